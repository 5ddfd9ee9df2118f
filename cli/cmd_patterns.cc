// `agtmux patterns`: tools for pattern authors.
//   agtmux patterns list [--agent X]
//   agtmux patterns test FILE.cast|SCREEN.txt [--agent X]
//   agtmux patterns explain SCREEN.txt|FILE.cast [--agent X] [--at SECONDS]
// `test` prints the state timeline with rule ids (a .cast goes through the
// wrapper's replay pipeline; a text file is one captured screen); `explain`
// shows every rule of the set on one screen, matched or not, and why. The
// sets are the built-in ones plus the user's overrides, as the daemon and
// the wrapper load them; rejected files are reported on stderr.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>

#include "cli/command.h"
#include "libagtcore/detect/pattern_analyzer.h"
#include "wrap/asciicast.h"
#include "wrap/replay.h"

namespace agt::cli {
namespace {

struct PatternsArgs {
  std::string file;
  std::string agent;
  double at = -1;
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

void PrintVerdict(const core::Signal& s) {
  std::printf("%s  %s  %s%s%s\n", std::string(core::StateName(s.state)).c_str(),
              std::string(core::ConfidenceName(s.confidence)).c_str(),
              s.rule_id.empty() ? "-" : s.rule_id.c_str(),
              s.reason_code.empty() ? "" : ("  reason=" + s.reason_code).c_str(),
              DetailText(s).c_str());
  if (!s.evidence.empty()) std::printf("  evidence: %s\n", s.evidence.c_str());
}

// One captured screen, analysed as the poller would (CAP): twice, so that
// settle times pass on a screen that does not change.
core::Signal AnalyzeOnce(std::shared_ptr<const detect::PatternLibrary> lib,
                         const std::string& agent, const detect::Screen& screen,
                         const detect::StreamSignals& signals) {
  auto analyzer = detect::CreateAnalyzer(std::move(lib), agent);
  detect::AnalyzerInput in;
  in.screen = &screen;
  in.signals = &signals;
  in.agent_type = agent;
  in.captured = true;
  in.now = core::kNsPerSec;
  analyzer->Analyze(in);
  in.now = 100 * core::kNsPerSec;
  return analyzer->Analyze(in).signal;
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

int RunTest(const PatternsArgs& a) {
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
  PrintVerdict(AnalyzeOnce(lib, agent, ScreenFromText(*text), none));
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
            "test", "Print the state timeline of a .cast or a screen dump");
        test->add_option("file", args->file, "FILE.cast or SCREEN.txt")->required();
        test->add_option("--agent", args->agent,
                         "Agent type (default: from the path, else generic)");
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
          return RunExplain(*args);
        };
      }};
}

}  // namespace agt::cli
