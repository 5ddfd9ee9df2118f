// `agtmux patterns`: tools for pattern authors, and for a user whose agent
// shows a screen agtmux cannot read.
//   agtmux patterns list [--agent X]
//   agtmux patterns test FILE.cast|SCREEN.txt|KEPT|FIXTURE_DIR [--agent X]
//                        [--expect STATE] [--save DIR]
//   agtmux patterns explain SCREEN.txt|FILE.cast [--agent X] [--at SECONDS]
//   agtmux patterns doctor [--agent X]
// `test` prints the state timeline with rule ids (a .cast goes through the
// wrapper's replay pipeline; a text file is one captured screen; KEPT is a
// screen the wrapper or the daemon kept, by id or path; a fixture directory
// is what --save wrote); `explain` shows every rule of the set on one
// screen, matched or not, and why; `doctor` lists the kept screens
// (libagtcore/detect/kept_screen.h) with the rule that came closest. The
// sets are the built-in ones plus the user's overrides, as the daemon and
// the wrapper load them; rejected files are reported on stderr.
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "libagtcore/base/visible_text.h"
#include "libagtcore/detect/closest_rule.h"
#include "libagtcore/detect/kept_screen.h"
#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/detect/verified.h"
#include "libagtcore/os/file.h"
#include "libagtcore/base/json.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/base/timefmt.h"
#include "wrap/asciicast.h"
#include "wrap/replay.h"

namespace agt::cli {
namespace {

struct PatternsArgs {
  std::string file;
  std::string agent;
  double at = -1;
  std::string expect;  // test: the state the screen should read
  std::string save;    // test: write a fixture directory here
};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The agent from --agent, else from a fixture-like path (.../codex/...).
std::string AgentFor(const PatternsArgs& a) {
  if (!a.agent.empty()) return a.agent;
  for (const char* name : {"claude", "codex", "gemini", "copilot", "opencode", "cursor"})
    if (a.file.find(std::string("/") + name + "/") != std::string::npos ||
        a.file.rfind(std::string(name) + "/", 0) == 0)
      return name;
  return "generic";
}

std::shared_ptr<const detect::PatternLibrary> Library() {
  auto lib = detect::DefaultLibrary();
  for (const auto& p : lib->problems())
    std::fprintf(stderr, "agtmux patterns: rejected: %s\n", p.c_str());
  return lib;
}

detect::Screen ScreenFromText(const std::string& text) {
  detect::Screen s;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    s.lines.push_back(line);
    pos = nl + 1;
  }
  s.rows = static_cast<int>(s.lines.size());
  for (const auto& l : s.lines) {
    int w = 0;
    for (char c : l)
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++w;
    s.cols = std::max(s.cols, w);
  }
  return s;
}

std::string DetailText(const core::Signal& s) {
  std::string out;
  const auto& d = s.detail;
  if (!d.approval_type.empty()) out += "  type=" + d.approval_type;
  if (!d.details.empty()) out += "  details=\"" + d.details + "\"";
  if (!d.choices.empty()) {
    out += "  choices=[";
    for (size_t i = 0; i < d.choices.size(); ++i)
      out += (i ? "\", \"" : "\"") + d.choices[i];
    out += "\"] cursor=" + std::to_string(d.cursor_position);
    if (d.multi_select) out += " multi";
  }
  return out;
}

// What a screen holds is the agent's (untrusted) text: everything printed
// from it goes through V (core::VisibleText), so no escape reaches the terminal.
std::string V(const std::string& s) { return core::VisibleText(s); }

void PrintVerdict(const core::Signal& s) {
  std::printf("%s  %s  %s%s%s\n", std::string(core::StateName(s.state)).c_str(),
              std::string(core::ConfidenceName(s.confidence)).c_str(),
              s.rule_id.empty() ? "-" : s.rule_id.c_str(),
              s.reason_code.empty() ? "" : ("  reason=" + V(s.reason_code)).c_str(),
              V(DetailText(s)).c_str());
  if (!s.evidence.empty()) std::printf("  evidence: %s\n", V(s.evidence).c_str());
}

// One captured screen, analysed as the poller would (CAP): twice, the second
// time 99 s later, so that settle times pass and the screen has stood still
// (a kept screen has), then at each recheck the analyzer asks for (a
// debounce). tests/detect/screens_test.cc reads its fixtures the same way.
core::Signal AnalyzeOnce(std::shared_ptr<const detect::PatternLibrary> lib,
                         const std::string& agent, const detect::Screen& screen,
                         const detect::StreamSignals& signals, bool captured = true) {
  auto analyzer = detect::CreateAnalyzer(std::move(lib), agent);
  detect::AnalyzerInput in;
  in.screen = &screen;
  in.signals = &signals;
  in.agent_type = agent;
  in.captured = captured;
  in.now = core::kNsPerSec;
  analyzer->Analyze(in);
  in.now = 100 * core::kNsPerSec;
  detect::Verdict v = analyzer->Analyze(in);
  for (int i = 0; i < 10 && v.recheck_at > in.now; ++i) {
    in.now = v.recheck_at;
    v = analyzer->Analyze(in);
  }
  return v.signal;
}

core::Result<wrap::Cast> LoadCast(const std::string& path) {
  auto text = detect::ReadTextFile(path);
  if (!text.ok()) return text.error();
  auto cast = wrap::ParseCast(*text);
  if (!cast.ok())
    return core::MakeError(cast.error().code, path + ": " + cast.error().message);
  return cast;
}

int RunList(const PatternsArgs& a) {
  auto lib = Library();
  std::printf("built-in: %s\nuser:     %s\n", lib->builtin_dir().c_str(),
              lib->user_dir().empty() ? "-" : lib->user_dir().c_str());
  for (const auto& name : lib->Names()) {
    if (!a.agent.empty() && name != a.agent) continue;
    const detect::PatternSet* set = lib->Find(name);
    std::string verified;
    for (const auto& v : set->verified_on) verified += (verified.empty() ? "" : ", ") + v;
    std::printf("\n%s  version %s  verified on %s\n  %s\n", name.c_str(),
                set->version.c_str(), verified.empty() ? "-" : verified.c_str(),
                set->path.c_str());
    for (const auto& r : set->rules)
      std::printf("  %-32s %-16s %-22s %s\n", r.id.c_str(),
                  std::string(core::StateName(r.state)).c_str(),
                  detect::RegionName(r.region).c_str(),
                  std::string(core::ConfidenceName(r.confidence)).c_str());
  }
  return lib->problems().empty() ? 0 : 1;
}

std::string KeptScreensDir() {
  auto paths = core::ResolvePaths(core::RealEnv());
  return paths.ok() ? paths->screens_dir : "";
}

// A kept screen named by its path or by its id in the state dir.
core::Result<detect::KeptScreen> LoadKept(const std::string& ref) {
  std::string path = ref;
  if (ref.find('/') == std::string::npos && !EndsWith(ref, ".json")) {
    path = KeptScreensDir() + "/" + ref + ".json";
  }
  auto text = core::ReadWholeFile(path);
  if (!text.ok()) return text.error();
  auto k = detect::DecodeKeptScreen(*text);
  if (!k.ok()) return core::MakeError(k.error().code, path + ": " + k.error().message);
  k->path = path;
  return k;
}

bool IsKeptRef(const std::string& file) {
  if (EndsWith(file, ".json")) return true;
  if (file.find('/') != std::string::npos || KeptScreensDir().empty()) return false;
  return core::ReadWholeFile(KeptScreensDir() + "/" + file + ".json").ok();
}

// A fixture directory (`test --save`): screen.txt and fixture.json.
struct Fixture {
  std::string agent;
  std::string mode = "CAP";
  std::string title;
  std::optional<core::State> expect;
};

core::Result<Fixture> LoadFixture(const std::string& dir) {
  auto text = core::ReadWholeFile(dir + "/fixture.json");
  if (!text.ok()) return text.error();
  rapidjson::Document d;
  if (auto parsed = core::ParseJson(*text, &d); !parsed)
    return core::MakeError(core::Err::kPayloadInvalid, dir + "/fixture.json: " + parsed.error().message);
  if (!d.IsObject()) return core::MakeError(core::Err::kPayloadInvalid, dir + "/fixture.json: not a JSON object");
  Fixture f;
  auto str = [&](const char* k, std::string* out) {
    auto it = d.FindMember(k);
    if (it != d.MemberEnd() && it->value.IsString()) *out = it->value.GetString();
  };
  str("agent_type", &f.agent);
  str("mode", &f.mode);
  str("title", &f.title);
  std::string expect;
  str("expected_state", &expect);
  if (!expect.empty()) {
    f.expect = core::ParseState(expect);
    if (!f.expect)
      return core::MakeError(core::Err::kPayloadInvalid,
                             dir + "/fixture.json: expected_state \"" + expect + "\" is not a state");
  }
  if (f.agent.empty())
    return core::MakeError(core::Err::kPayloadInvalid, dir + "/fixture.json: no agent_type");
  return f;
}

// Writes the fixture a user can send a maintainer: the screen as text (what
// `patterns test SCREEN.txt` reads), and what it should read.
core::Status SaveFixture(const std::string& dir, const detect::KeptScreen& k,
                         const core::Signal& reads, core::State expect) {
  // Redacted again as a screen (a file kept by an older agtmux was redacted
  // row by row) and private: the user decides what to send (issue 25).
  auto redactor = core::Redactor::LoadBuiltin();
  if (!redactor) return redactor.error();
  detect::Screen shown = k.screen;
  detect::RedactScreen(&shown, *redactor);
  if (auto st = core::EnsureDir(dir, 0700); !st.ok()) return st;
  std::string screen;
  for (const auto& l : shown.lines) screen += l + "\n";
  if (auto st = core::WriteFileAtomic(dir + "/screen.txt", screen, 0600); !st.ok()) return st;
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  auto kv = [&](const char* key, std::string_view v) {
    w.Key(key);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  };
  w.StartObject();
  kv("agent_type", k.agent_type);
  kv("agent_version", k.agent_version);
  kv("mode", k.mode);
  kv("title", k.title);
  w.Key("rows");
  w.Int(k.screen.rows);
  w.Key("cols");
  w.Int(k.screen.cols);
  kv("expected_state", core::StateName(expect));
  kv("read_state", core::StateName(reads.state));
  kv("read_rule_id", reads.rule_id);
  kv("read_reason_code", reads.reason_code);
  kv("pattern_set_version", k.pattern_set_version);
  kv("kept_at", core::FormatRfc3339(k.kept_at));
  kv("kept_because", k.reason);
  if (k.hook_state) kv("hook_state", core::StateName(*k.hook_state));
  kv("note", "screen.txt is redacted; agtmux patterns test <this directory> checks it");
  w.EndObject();
  return core::WriteFileAtomic(dir + "/fixture.json", std::string(buf.GetString(), buf.GetSize()) + "\n",
                               0600);
}

// Compares a verdict with --expect (or the fixture's expected state).
int CheckExpect(const core::Signal& got, std::optional<core::State> expect) {
  if (!expect) return 0;
  if (got.state == *expect) {
    std::printf("expected %s: ok\n", std::string(core::StateName(*expect)).c_str());
    return 0;
  }
  std::printf("expected %s: reads %s\n", std::string(core::StateName(*expect)).c_str(),
              std::string(core::StateName(got.state)).c_str());
  return 1;
}

int RunTestKept(const PatternsArgs& a, std::optional<core::State> expect) {
  auto k = LoadKept(a.file);
  if (!k.ok()) {
    std::fprintf(stderr, "agtmux patterns test: %s\n", k.error().message.c_str());
    return 1;
  }
  auto lib = Library();
  const std::string agent = a.agent.empty() ? k->agent_type : a.agent;
  detect::StreamSignals signals;
  signals.title = k->title;
  std::printf("# %s: agent %s%s, %s screen kept %s (%s)\n", k->path.c_str(), agent.c_str(),
              k->agent_version.empty() ? "" : (" " + k->agent_version).c_str(), k->mode.c_str(),
              core::FormatRfc3339(k->kept_at).c_str(), k->reason.c_str());
  const core::Signal got = AnalyzeOnce(lib, agent, k->screen, signals, k->mode == "CAP");
  PrintVerdict(got);
  if (!a.save.empty()) {
    if (!expect) {
      std::fprintf(stderr, "agtmux patterns test: --save needs --expect STATE (what the screen shows)\n");
      return 2;
    }
    detect::KeptScreen out = *k;
    out.agent_type = agent;
    if (auto st = SaveFixture(a.save, out, got, *expect); !st.ok()) {
      std::fprintf(stderr, "agtmux patterns test: %s\n", st.error().message.c_str());
      return 1;
    }
    std::printf("fixture: %s (screen.txt, fixture.json)\n", a.save.c_str());
  }
  return CheckExpect(got, expect);
}

int RunTestFixture(const PatternsArgs& a, std::optional<core::State> expect) {
  auto f = LoadFixture(a.file);
  if (!f.ok()) {
    std::fprintf(stderr, "agtmux patterns test: %s\n", f.error().message.c_str());
    return 1;
  }
  auto text = core::ReadWholeFile(a.file + "/screen.txt");
  if (!text.ok()) {
    std::fprintf(stderr, "agtmux patterns test: %s\n", text.error().message.c_str());
    return 1;
  }
  auto lib = Library();
  const std::string agent = a.agent.empty() ? f->agent : a.agent;
  detect::StreamSignals signals;
  signals.title = f->title;
  std::printf("# %s: agent %s, one %s screen\n", a.file.c_str(), agent.c_str(), f->mode.c_str());
  const core::Signal got = AnalyzeOnce(lib, agent, ScreenFromText(*text), signals, f->mode == "CAP");
  PrintVerdict(got);
  return CheckExpect(got, expect ? expect : f->expect);
}

int RunTest(const PatternsArgs& a) {
  std::optional<core::State> expect;
  if (!a.expect.empty()) {
    expect = core::ParseState(a.expect);
    if (!expect) {
      std::fprintf(stderr, "agtmux patterns test: --expect %s: not a state (running, idle, ...)\n",
                   a.expect.c_str());
      return 2;
    }
  }
  if (IsKeptRef(a.file)) return RunTestKept(a, expect);
  if (core::ReadWholeFile(a.file + "/fixture.json").ok()) return RunTestFixture(a, expect);
  if (!a.save.empty()) {
    std::fprintf(stderr, "agtmux patterns test: --save takes a kept screen (see agtmux patterns doctor)\n");
    return 2;
  }
  auto lib = Library();
  std::string agent = AgentFor(a);
  if (EndsWith(a.file, ".cast")) {
    auto cast = LoadCast(a.file);
    if (!cast.ok()) {
      std::fprintf(stderr, "agtmux patterns test: %s\n", cast.error().message.c_str());
      return 1;
    }
    auto r = wrap::Replay(*cast, agent, detect::CreateAnalyzer(lib, agent));
    std::printf("# %s: agent %s, %zu events\n", a.file.c_str(), agent.c_str(),
                cast->events.size());
    for (const auto& e : r.timeline) {
      std::printf("%9.3fs  ", static_cast<double>(e.at) / 1e9);
      PrintVerdict(e.signal);
    }
    return 0;
  }
  auto text = detect::ReadTextFile(a.file);
  if (!text.ok()) {
    std::fprintf(stderr, "agtmux patterns test: %s\n", text.error().message.c_str());
    return 1;
  }
  detect::StreamSignals none;
  std::printf("# %s: agent %s, one captured screen\n", a.file.c_str(), agent.c_str());
  const core::Signal got = AnalyzeOnce(lib, agent, ScreenFromText(*text), none);
  PrintVerdict(got);
  return CheckExpect(got, expect);
}

// One kept screen: what it was, what the sets in force read now, and the
// rule that came closest with the parts of it that failed.
void PrintDoctorEntry(const std::shared_ptr<const detect::PatternLibrary>& lib,
                      const detect::KeptScreen& k) {
  const detect::Verification v = detect::VerifyVersion(lib.get(), k.agent_type, k.agent_version);
  std::string version = k.agent_version.empty() ? "version unknown" : k.agent_version;
  if (v.verified.has_value() && !*v.verified) {
    std::string list;
    for (const auto& x : v.verified_on) list += (list.empty() ? "" : ", ") + x;
    version += " (not verified: the set is verified on " + (list.empty() ? "-" : list) + ")";
  }
  std::printf("%s  %s  %s %s  %s %s  kept: %s\n", V(k.id).c_str(), core::FormatRfc3339(k.kept_at).c_str(),
              V(k.agent_type).c_str(), V(version).c_str(), V(k.mode).c_str(),
              k.pane_id.empty() ? "-" : V(k.pane_id).c_str(), V(k.reason).c_str());
  std::printf("  screen read: %s%s%s", std::string(core::StateName(k.state)).c_str(),
              k.reason_code.empty() ? "" : (" (" + V(k.reason_code) + ")").c_str(),
              k.rule_id.empty() ? "" : (" " + V(k.rule_id)).c_str());
  if (k.hook_state)
    std::printf("   hooks said: %s %s", std::string(core::StateName(*k.hook_state)).c_str(),
                V(k.hook_rule_id).c_str());
  std::printf("\n");
  const detect::PatternSet* set = lib->ForAgent(k.agent_type);
  if (set == nullptr) {
    std::printf("  no pattern set for %s\n\n", V(k.agent_type).c_str());
    return;
  }
  detect::StreamSignals signals;
  signals.title = k.title;
  const core::Signal now = AnalyzeOnce(lib, k.agent_type, k.screen, signals, k.mode == "CAP");
  if (now.state != core::State::kUnknown && now.state != k.state) {
    std::printf("  reads now: %s by %s (set %s)\n", std::string(core::StateName(now.state)).c_str(),
                now.rule_id.c_str(), set->version.c_str());
  }
  // The closest rule: among the rules of the state the hooks said, when the
  // screen contradicted them; else among all that do not match.
  detect::KeptInput in;
  detect::MakeKeptInput(k, &in);
  const detect::RuleCloseness* closest = nullptr;
  std::vector<detect::RuleCloseness> ranked = detect::RankRules(*set, in.input);
  for (const auto& c : ranked) {
    if (c.matched || (k.hook_state && c.rule->state != *k.hook_state)) continue;
    closest = &c;
    break;
  }
  if (closest != nullptr) {
    std::printf("  closest rule: %s -> %s, %d of %d parts held\n", closest->rule->id.c_str(),
                std::string(core::StateName(closest->rule->state)).c_str(), closest->held,
                closest->total);
    for (const auto& f : closest->failed) std::printf("    %s\n", V(f).c_str());
  }
  std::printf("  the screen (bottom):\n");
  const auto& lines = k.screen.lines;
  size_t last = lines.size();
  while (last > 0 && lines[last - 1].empty()) --last;
  for (size_t i = last > 8 ? last - 8 : 0; i < last; ++i) std::printf("    | %s\n", V(lines[i]).c_str());
  std::printf("  make it a fixture: agtmux patterns test %s --expect STATE --save DIR\n\n", k.id.c_str());
}

int RunDoctor(const PatternsArgs& a) {
  auto lib = Library();
  const std::string dir = KeptScreensDir();
  if (dir.empty()) {
    std::fprintf(stderr, "agtmux patterns doctor: no state directory (HOME is not set)\n");
    return 1;
  }
  std::vector<std::string> problems;
  std::vector<detect::KeptScreen> kept = detect::ListKeptScreens(dir, &problems);
  for (const auto& p : problems) std::fprintf(stderr, "agtmux patterns doctor: skipped %s\n", p.c_str());
  size_t shown = 0;
  for (const auto& k : kept) {
    if (!a.agent.empty() && k.agent_type != a.agent) continue;
    PrintDoctorEntry(lib, k);
    ++shown;
  }
  std::printf("%zu kept screen%s in %s\n", shown, shown == 1 ? "" : "s", dir.c_str());
  return 0;
}

int RunExplain(const PatternsArgs& a) {
  auto lib = Library();
  std::string agent = AgentFor(a);
  const detect::PatternSet* set = lib->ForAgent(agent);
  if (set == nullptr) {
    std::fprintf(stderr,
                 "agtmux patterns explain: no pattern set for '%s' and no generic set\n",
                 agent.c_str());
    return 1;
  }
  detect::Screen screen;
  detect::StreamSignals signals;
  if (EndsWith(a.file, ".cast")) {
    auto cast = LoadCast(a.file);
    if (!cast.ok()) {
      std::fprintf(stderr, "agtmux patterns explain: %s\n", cast.error().message.c_str());
      return 1;
    }
    // The screen at --at: the recording cut there, replayed through the
    // wrapper's pipeline.
    if (a.at >= 0) {
      const auto until = static_cast<core::TimeNs>(a.at * 1e9);
      auto& evs = cast->events;
      evs.erase(std::remove_if(evs.begin(), evs.end(),
                               [until](const wrap::CastEvent& e) { return e.at > until; }),
                evs.end());
    }
    wrap::ReplayResult r = wrap::Replay(*cast, agent, detect::CreateAnalyzer(lib, agent));
    screen = std::move(r.final_screen);
    signals = std::move(r.signals);
  } else {
    if (a.at >= 0) {
      std::fprintf(stderr, "agtmux patterns explain: --at needs a .cast recording\n");
      return 2;
    }
    auto text = detect::ReadTextFile(a.file);
    if (!text.ok()) {
      std::fprintf(stderr, "agtmux patterns explain: %s\n", text.error().message.c_str());
      return 1;
    }
    screen = ScreenFromText(*text);
  }
  detect::AnalyzerInput in;
  in.screen = &screen;
  in.signals = &signals;
  in.agent_type = agent;
  std::printf("# %s: set %s (%s)%s\n", a.file.c_str(), set->name.c_str(),
              set->path.c_str(),
              a.at >= 0 ? (" at " + std::to_string(a.at) + "s").c_str() : "");
  if (!signals.title.empty()) std::printf("# title: %s\n", signals.title.c_str());
  for (const auto& e : detect::ExplainScreen(*set, in)) {
    std::printf("%s %s -> %s  [%s]\n", e.matched ? "MATCH" : "no   ", e.rule->id.c_str(),
                std::string(core::StateName(e.rule->state)).c_str(),
                detect::RegionName(e.rule->region).c_str());
    for (const auto& t : e.trace) std::printf("    %s\n", t.c_str());
  }
  std::printf("verdict: ");
  PrintVerdict(AnalyzeOnce(lib, agent, screen, signals));
  return 0;
}

}  // namespace

CommandSpec PatternsCommand() {
  return {
      "patterns", "Test, explain and list the state-detection pattern sets",
      [](CLI::App* sub) -> Runner {
        auto args = std::make_shared<PatternsArgs>();
        sub->require_subcommand(1);
        auto* list = sub->add_subcommand("list", "List the pattern sets and their rules");
        list->add_option("--agent", args->agent, "Only this agent's set");
        auto* test = sub->add_subcommand(
            "test", "Print the state timeline of a .cast, a screen dump, a kept screen or a fixture");
        test->add_option("file", args->file,
                         "FILE.cast, SCREEN.txt, a kept screen (id or .json) or a fixture directory")
            ->required();
        test->add_option("--agent", args->agent,
                         "Agent type (default: from the path or the kept screen, else generic)");
        test->add_option("--expect", args->expect,
                         "The state the screen shows; exit 1 when it reads otherwise");
        test->add_option("--save", args->save,
                         "With a kept screen and --expect: write a fixture directory here");
        auto* doctor = sub->add_subcommand(
            "doctor", "List the screens agtmux could not read, with the rule that came closest");
        doctor->add_option("--agent", args->agent, "Only this agent's screens");
        auto* explain = sub->add_subcommand(
            "explain", "Show every rule on one screen and why it matched or not");
        explain->add_option("file", args->file, "SCREEN.txt or FILE.cast")->required();
        explain->add_option("--agent", args->agent,
                            "Agent type (default: from the path, else generic)");
        explain->add_option("--at", args->at,
                            "For a .cast: the screen at this many seconds");
        return [=]() -> int {
          if (list->parsed()) return RunList(*args);
          if (test->parsed()) return RunTest(*args);
          if (doctor->parsed()) return RunDoctor(*args);
          return RunExplain(*args);
        };
      }};
}

}  // namespace agt::cli
