// Corpus replay and scoring for the detection gates and the benchmark.
// Truth is a step function of time; so is the analyzer's output. The score
// integrates where they agree, leaving out a grace window after each true
// transition (the screen legitimately lags the model server's log).
#include "tests/detect/corpus.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>

#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/screen/stream_scanner.h"
#include "agtmux_source_paths.h"

namespace agt::detect::corpus {
namespace {

namespace fs = std::filesystem;
using core::kNsPerSec;
using core::State;

core::TimeNs ToNs(double t) { return static_cast<core::TimeNs>(t * 1e9) + 1; }
double ToSec(core::TimeNs t) { return static_cast<double>(t - 1) / 1e9; }

std::vector<std::string> Strings(const rapidjson::Value& v) {
  std::vector<std::string> out;
  if (v.IsArray())
    for (const auto& e : v.GetArray())
      if (e.IsString()) out.emplace_back(e.GetString(), e.GetStringLength());
  return out;
}

bool DetailMatches(const core::WaitingDetail& want, const core::WaitingDetail& got) {
  return want.choices == got.choices && want.cursor_position == got.cursor_position &&
         want.multi_select == got.multi_select;
}

std::string Fmt(double t) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3fs", t);
  return b;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
  return s + "]";
}

}  // namespace

std::string FixturesRoot() {
  if (const char* d = std::getenv("AGTMUX_FIXTURES_DIR"); d != nullptr && *d != '\0')
    return d;
  return fs::path(AGTMUX_SOURCE_PATTERNS_DIR).parent_path().string() + "/tests/fixtures";
}

std::vector<std::string> FindFixtures(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root, ec))
    if (e.path().filename() == "truth.jsonl" &&
        fs::exists(e.path().parent_path() / "snapshots.jsonl", ec))
      out.push_back(e.path().parent_path().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool HasHooks(const std::string& dir) { return ReadTextFile(dir + "/hooks.jsonl").ok(); }

// The agent, version and mode the recording names (scenario.json); a fixture
// recorded before modes existed is in its agent's base mode.
void ReadRecording(const std::string& dir, Fixture* f) {
  auto text = ReadTextFile(dir + "/scenario.json");
  if (!text.ok()) return;
  rapidjson::Document d;
  d.Parse(text->data(), text->size());
  if (d.HasParseError() || !d.IsObject()) return;
  if (d.HasMember("agent") && d["agent"].IsString()) f->agent = d["agent"].GetString();
  if (d.HasMember("mode") && d["mode"].IsString()) f->mode = d["mode"].GetString();
  if (d.HasMember("recording") && d["recording"].IsObject()) {
    const auto& r = d["recording"];
    if (r.HasMember("agent_version") && r["agent_version"].IsString())
      f->version = r["agent_version"].GetString();
  }
}

std::string BaseMode(const std::string& agent) {
  return agent == "codex" ? "on-request" : "default";
}

core::Status ForEachJsonLine(
    const std::string& path, const std::function<core::Status(const rapidjson::Document&)>& fn) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.error();
  size_t pos = 0;
  int line = 0;
  while (pos < text->size()) {
    size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) nl = text->size();
    std::string_view row(text->data() + pos, nl - pos);
    pos = nl + 1;
    ++line;
    if (row.find_first_not_of(" \r\t") == std::string_view::npos) continue;
    rapidjson::Document d;
    d.Parse(row.data(), row.size());
    auto st = d.HasParseError() || !d.IsObject() || !d.HasMember("t") || !d["t"].IsNumber()
                  ? core::Status(core::MakeError(core::Err::kPayloadInvalid,
                                                 "not a JSON object with a numeric \"t\""))
                  : fn(d);
    if (!st.ok())
      return core::MakeError(core::Err::kPayloadInvalid,
                             path + ":" + std::to_string(line) + ": " + st.error().message);
  }
  return core::Ok();
}

// The titles an asciicast's output set, in order, with their times (the
// stream scanner the wrapper and the byte-fed CAP reader use). A cast that
// cannot be read gives none: the replay then has no title, as before.
std::vector<std::pair<double, std::string>> CastTitles(const std::string& path) {
  std::vector<std::pair<double, std::string>> out;
  auto text = ReadTextFile(path);
  if (!text.ok()) return out;
  screen::StreamScanner scanner;
  size_t pos = text->find('\n');  // the header line
  while (pos != std::string::npos && pos < text->size()) {
    size_t nl = text->find('\n', pos + 1);
    std::string_view line(text->data() + pos + 1,
                          (nl == std::string::npos ? text->size() : nl) - pos - 1);
    pos = nl;
    rapidjson::Document d;
    d.Parse(line.data(), line.size());
    if (!d.IsArray() || d.Size() < 3 || !d[0].IsNumber() || !d[1].IsString() ||
        !d[2].IsString() || std::string_view(d[1].GetString()) != "o")
      continue;
    const double t = d[0].GetDouble();
    scanner.Feed(std::string_view(d[2].GetString(), d[2].GetStringLength()),
                 static_cast<core::TimeNs>(t * 1e9) + 1);
    const std::string& title = scanner.signals().title;
    if (out.empty() ? !title.empty() : out.back().second != title) out.emplace_back(t, title);
  }
  return out;
}

core::Result<Fixture> LoadFixture(const std::string& dir) {
  Fixture f;
  f.dir = dir;
  fs::path p(dir);
  f.scenario = p.filename().string();
  // <agent>/<version>/<scenario> or <agent>/<version>/<mode>/<scenario>;
  // scenario.json says which.
  f.version = p.parent_path().filename().string();
  f.agent = p.parent_path().parent_path().filename().string();
  ReadRecording(dir, &f);
  if (f.mode.empty()) f.mode = BaseMode(f.agent);
  f.cast_path = dir + "/session.cast";
  f.titles = CastTitles(f.cast_path);
  auto for_lines = [&](const std::string& name, auto&& fn) {
    return ForEachJsonLine(dir + "/" + name, [&](const rapidjson::Document& d) {
      fn(d);
      return core::Ok();
    });
  };
  auto st = for_lines("truth.jsonl", [&](const rapidjson::Document& d) {
    TruthEntry e;
    e.t = d["t"].GetDouble();
    if (d.HasMember("state") && d["state"].IsString())
      e.state = core::ParseState(d["state"].GetString()).value_or(State::kUnknown);
    if (d.HasMember("approval_type") && d["approval_type"].IsString())
      e.detail.approval_type = d["approval_type"].GetString();
    if (d.HasMember("details") && d["details"].IsString())
      e.detail.details = d["details"].GetString();
    if (d.HasMember("choices")) e.detail.choices = Strings(d["choices"]);
    if (d.HasMember("multi_select") && d["multi_select"].IsBool())
      e.detail.multi_select = d["multi_select"].GetBool();
    if (d.HasMember("cursor_position") && d["cursor_position"].IsInt())
      e.detail.cursor_position = d["cursor_position"].GetInt();
    if (d.HasMember("source") && d["source"].IsString())
      e.source = d["source"].GetString();
    f.truth.push_back(std::move(e));
  });
  if (!st.ok()) return st.error();
  st = for_lines("snapshots.jsonl", [&](const rapidjson::Document& d) {
    Snapshot s;
    s.t = d["t"].GetDouble();
    if (d.HasMember("lines")) s.lines = Strings(d["lines"]);
    if (d.HasMember("cursor") && d["cursor"].IsArray() && d["cursor"].Size() == 2) {
      s.cursor_col = d["cursor"][0].GetInt();
      s.cursor_row = d["cursor"][1].GetInt();
    }
    f.snapshots.push_back(std::move(s));
  });
  if (!st.ok()) return st.error();
  return f;
}

Timeline ReplayCap(const Fixture& f, std::shared_ptr<const PatternLibrary> lib,
                   double* end) {
  auto analyzer = CreateAnalyzer(std::move(lib), f.agent);
  Timeline out;
  Screen screen;
  screen.rows = 40;
  screen.cols = 120;
  // A capture gives no stream signals but the pane's title (tmux's
  // pane_title, set by the agent's OSC 0/2): the one set by then.
  StreamSignals signals;
  size_t next_title = 0;
  core::TimeNs last_output = 0;
  core::TimeNs recheck = 0;
  auto run = [&](core::TimeNs now) {
    AnalyzerInput in;
    in.screen = &screen;
    in.signals = &signals;
    in.agent_type = f.agent;
    in.now = now;
    in.last_output = last_output;
    in.captured = true;
    Verdict v = analyzer->Analyze(in);
    recheck = v.recheck_at;
    if (out.empty() || !(out.back().signal.state == v.signal.state &&
                         out.back().signal.rule_id == v.signal.rule_id &&
                         out.back().signal.detail == v.signal.detail))
      out.push_back({ToSec(now), v.signal});
  };
  double last_t = 0;
  // A title set between two captures is read when it is set (the byte-fed
  // reader sees it in the stream; the capture poller with the next change).
  auto titles_until = [&](double until) {
    for (; next_title < f.titles.size() && f.titles[next_title].first <= until; ++next_title) {
      const core::TimeNs at = ToNs(f.titles[next_title].first);
      for (int i = 0; i < 100 && recheck != 0 && recheck < at; ++i) run(recheck);
      signals.title = f.titles[next_title].second;
      signals.title_at = at;
      if (!screen.lines.empty()) run(at);
    }
  };
  for (const Snapshot& s : f.snapshots) {
    core::TimeNs t = ToNs(s.t);
    titles_until(s.t);
    for (int i = 0; i < 100 && recheck != 0 && recheck < t; ++i) run(recheck);
    if (s.lines != screen.lines) last_output = t;
    screen.lines = s.lines;
    screen.cursor_row = s.cursor_row;
    screen.cursor_col = s.cursor_col;
    run(t);
    last_t = s.t;
  }
  titles_until(1e18);
  for (int i = 0; i < 100 && recheck != 0; ++i) run(recheck);
  double truth_end = f.truth.empty() ? 0 : f.truth.back().t;
  *end = std::max(last_t, truth_end);
  return out;
}

void Score::Add(const Score& o) {
  counted += o.counted;
  agreed += o.agreed;
  false_approval += o.false_approval;
  waits += o.waits;
  missed_waits += o.missed_waits;
  detail_wrong += o.detail_wrong;
  aux_wrong += o.aux_wrong;
  confident_wrong += o.confident_wrong;
  problems.insert(problems.end(), o.problems.begin(), o.problems.end());
}

Score ScoreTimeline(const Fixture& f, const Timeline& pred, double end, double grace) {
  Score sc;
  std::set<double> cuts = {0.0, end};
  for (const auto& e : f.truth) {
    cuts.insert(e.t);
    cuts.insert(e.t + grace);
  }
  for (const auto& p : pred) cuts.insert(p.t);
  auto truth_at = [&](double t) -> const TruthEntry* {
    const TruthEntry* cur = nullptr;
    for (const auto& e : f.truth)
      if (e.t <= t) cur = &e;
    return cur;
  };
  auto pred_at = [&](double t) -> const core::Signal* {
    const core::Signal* cur = nullptr;
    for (const auto& p : pred)
      if (p.t <= t) cur = &p.signal;
    return cur;
  };
  auto in_grace = [&](double t) {
    for (size_t i = 0; i < f.truth.size(); ++i)
      if (t >= f.truth[i].t && t < f.truth[i].t + grace) return true;
    return false;
  };
  // Waiting intervals in truth, to find missed ones.
  struct Wait {
    double from, to;
    State state;
    bool seen = false;
  };
  std::vector<Wait> waits;
  for (size_t i = 0; i < f.truth.size(); ++i) {
    const auto& e = f.truth[i];
    if (!core::NeedsAction(e.state)) continue;
    if (!waits.empty() && waits.back().to == e.t && waits.back().state == e.state) {
      waits.back().to = i + 1 < f.truth.size() ? f.truth[i + 1].t : end;
      continue;
    }
    waits.push_back({e.t, i + 1 < f.truth.size() ? f.truth[i + 1].t : end, e.state});
  }
  std::string last_problem;
  auto problem = [&](const std::string& what, double a) {
    if (what == last_problem) return;
    last_problem = what;
    sc.problems.push_back(f.agent + "/" + f.scenario + " @" + Fmt(a) + ": " + what);
  };
  double prev = -1;
  for (double c : cuts) {
    if (prev >= 0 && c > prev && prev < end) {
      double a = prev, b = std::min(c, end);
      double mid = (a + b) / 2;
      const TruthEntry* T = truth_at(mid);
      const core::Signal* P = pred_at(mid);
      State ts = T ? T->state : State::kUnknown;
      State ps = P ? P->state : State::kUnknown;
      for (auto& w : waits)
        if (mid >= w.from && mid < w.to && ps == w.state) w.seen = true;
      if (!in_grace(mid)) {
        double d = b - a;
        sc.counted += d;
        if (ts == ps) {
          sc.agreed += d;
          if (core::NeedsAction(ts) && T != nullptr && P != nullptr) {
            if (!DetailMatches(T->detail, P->detail)) {
              sc.detail_wrong += d;
              problem("detail: want " + Join(T->detail.choices) + " cursor " +
                          std::to_string(T->detail.cursor_position) +
                          (T->detail.multi_select ? " multi" : "") + ", got " +
                          Join(P->detail.choices) + " cursor " +
                          std::to_string(P->detail.cursor_position) +
                          (P->detail.multi_select ? " multi" : "") + " (" + P->rule_id +
                          ")",
                      a);
            } else if (T->detail.approval_type != P->detail.approval_type ||
                       T->detail.details != P->detail.details) {
              sc.aux_wrong += d;
              problem("approval_type/details: want " + T->detail.approval_type + " \"" +
                          T->detail.details + "\", got " + P->detail.approval_type +
                          " \"" + P->detail.details + "\"",
                      a);
            }
          }
        } else {
          if (ps == State::kWaitingApproval) sc.false_approval += d;
          if (P != nullptr && ps != State::kUnknown &&
              P->confidence >= core::Confidence::kMedium)
            sc.confident_wrong += d;
          problem(
              std::string("state: want ") + std::string(core::StateName(ts)) + ", got " +
                  std::string(core::StateName(ps)) + " (" +
                  (P ? P->rule_id + (P->reason_code.empty() ? "" : "/" + P->reason_code)
                     : "-") +
                  ") for " + Fmt(d),
              a);
        }
      }
    }
    prev = c;
  }
  for (const auto& w : waits) {
    ++sc.waits;
    if (!w.seen) {
      ++sc.missed_waits;
      problem(std::string("missed ") + std::string(core::StateName(w.state)) + " " +
                  Fmt(w.from) + ".." + Fmt(w.to),
              w.from);
    }
  }
  return sc;
}

void CompletedLatency::Add(const CompletedLatency& o) {
  seconds.insert(seconds.end(), o.seconds.begin(), o.seconds.end());
  missed += o.missed;
  flickers += o.flickers;
  notes.insert(notes.end(), o.notes.begin(), o.notes.end());
}

CompletedLatency MeasureCompleted(const Fixture& f, const Timeline& pred) {
  CompletedLatency out;
  auto state_at = [&](double t) {
    State s = State::kUnknown;
    for (const auto& p : pred)
      if (p.t <= t) s = p.signal.state;
    return s;
  };
  const std::string name = f.Group() + "/" + f.scenario;
  for (size_t i = 0; i < f.truth.size(); ++i) {
    const TruthEntry& e = f.truth[i];
    const double next = i + 1 < f.truth.size() ? f.truth[i + 1].t : 1e9;
    if (e.state == State::kCompleted && e.source == "model_final_response_end") {
      if (state_at(e.t) == State::kCompleted) {
        out.seconds.push_back(0);
        continue;
      }
      double at = -1;
      for (const auto& p : pred)
        if (p.t > e.t && p.t < next && p.signal.state == State::kCompleted) {
          at = p.t;
          break;
        }
      if (at < 0) {
        ++out.missed;
        out.notes.push_back(name + " @" + Fmt(e.t) + ": completed never reported");
      } else {
        out.seconds.push_back(at - e.t);
      }
    }
    if (e.state == State::kRunning) {
      // running -> quiet -> running again inside one true running interval
      bool left = false;
      for (const auto& p : pred) {
        if (p.t <= e.t || p.t >= next) continue;
        State s = p.signal.state;
        if (s == State::kIdle || s == State::kCompleted) {
          left = state_at(p.t - 1e-6) == State::kRunning || left;
        } else if (s == State::kRunning && left) {
          ++out.flickers;
          out.notes.push_back(name + " @" + Fmt(p.t) + ": flicker back to running");
          left = false;
        }
      }
    }
  }
  return out;
}

namespace {

// The first word of each line of a list file (tests/fixtures/held-back.txt,
// below-bar.txt): "#" starts a comment, blank lines are skipped; a missing
// file is an empty list.
std::vector<std::string> ListFile(const std::string& path) {
  std::vector<std::string> out;
  auto text = ReadTextFile(path);
  if (!text.ok()) return out;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string first;
    if (words >> first) out.push_back(first);
  }
  return out;
}

}  // namespace

std::vector<std::string> HeldBack(const std::string& root) {
  std::vector<std::string> out;
  // $AGTMUX_HELD_BACK adds "<agent>/<version>,..." (check-release.sh
  // --newest: the release of the day is one no rule was written from).
  if (const char* env = std::getenv("AGTMUX_HELD_BACK"); env != nullptr) {
    std::string_view v(env);
    while (!v.empty()) {
      size_t comma = v.find(',');
      std::string_view item = v.substr(0, comma);
      if (!item.empty()) out.emplace_back(item);
      if (comma == std::string_view::npos) break;
      v.remove_prefix(comma + 1);
    }
  }
  for (auto& e : ListFile(root + "/held-back.txt")) out.push_back(std::move(e));
  return out;
}

std::vector<std::string> BelowBar(const std::string& root) {
  return ListFile(root + "/below-bar.txt");
}

bool IsHeldBack(const std::vector<std::string>& held, const std::string& group) {
  for (const auto& h : held)
    if (group.compare(0, h.size() + 1, h + "/") == 0) return true;
  return false;
}

std::vector<GroupVerdict> JudgeGroups(const std::map<std::string, Score>& groups,
                                      const std::map<std::string, int>& counts, double bar) {
  std::vector<GroupVerdict> out;
  const std::vector<std::string> held = HeldBack(FixturesRoot());
  const std::vector<std::string> below = BelowBar(FixturesRoot());
  for (const auto& [group, s] : groups) {
    GroupVerdict v;
    v.group = group;
    v.score = s;
    v.held_back = IsHeldBack(held, group);
    v.below_bar = !v.held_back && IsHeldBack(below, group);
    if (auto it = counts.find(group); it != counts.end()) v.fixtures = it->second;
    char b[96];
    const double want = v.held_back ? std::min(bar, kHeldBackBar) : bar;
    if (s.Agreement() < want) {
      std::snprintf(b, sizeof b, "agreement %.2f%% < %.0f%%", 100 * s.Agreement(), 100 * want);
      v.failures.emplace_back(b);
    }
    if (v.held_back && s.ConfidentWrongShare() > kHeldBackConfidentWrong) {
      std::snprintf(b, sizeof b, "confident wrong %.2f%% > %.1f%%",
                    100 * s.ConfidentWrongShare(), 100 * kHeldBackConfidentWrong);
      v.failures.emplace_back(b);
    }
    if (s.false_approval > 0) {
      std::snprintf(b, sizeof b, "%.2fs of false waiting_approval", s.false_approval);
      v.failures.emplace_back(b);
    }
    if (s.missed_waits > 0)
      v.failures.push_back(std::to_string(s.missed_waits) + " missed wait(s)");
    if (s.detail_wrong > 0) {
      std::snprintf(b, sizeof b, "%.2fs of wrong choices/cursor", s.detail_wrong);
      v.failures.emplace_back(b);
    }
    if (v.held_back || v.below_bar) v.reported.swap(v.failures);
    out.push_back(std::move(v));
  }
  return out;
}

std::string FormatVerdict(const char* mode, const GroupVerdict& v) {
  const Score& s = v.score;
  char b[320];
  std::snprintf(b, sizeof b,
                "%-4s %-30s %3d fixtures  agree %6.2f%% of %7.1fs  false_approval %.2fs  "
                "waits %d missed %d  detail_wrong %.2fs  type/details_wrong %.2fs  "
                "confident_wrong %.2f%%%s  %s",
                mode, v.group.c_str(), v.fixtures, 100 * s.Agreement(), s.counted,
                s.false_approval, s.waits, s.missed_waits, s.detail_wrong, s.aux_wrong,
                100 * s.ConfidentWrongShare(),
                v.held_back   ? "  held-back"
                : v.below_bar ? "  below-bar"
                              : "",
                !v.failures.empty()  ? "FAIL:"
                : v.reported.empty() ? "PASS"
                : v.held_back        ? "BELOW (held back, reported):"
                                     : "BELOW (below-bar.txt, reported):");
  std::string out = b;
  for (size_t i = 0; i < v.failures.size(); ++i) out += (i ? "; " : " ") + v.failures[i];
  for (size_t i = 0; i < v.reported.size(); ++i) out += (i ? "; " : " ") + v.reported[i];
  return out;
}

std::vector<std::string> FormatSplit(const char* mode, const std::vector<GroupVerdict>& v) {
  struct Sum {
    Score score;
    int groups = 0;
    int failing = 0;
  };
  std::map<std::pair<std::string, bool>, Sum> sums;
  for (const auto& g : v) {
    Sum& s = sums[{g.group.substr(0, g.group.find('/')), g.held_back}];
    s.score.Add(g.score);
    ++s.groups;
    if (!g.failures.empty() || !g.reported.empty()) ++s.failing;
  }
  std::vector<std::string> out;
  for (const auto& [key, s] : sums) {
    char b[256];
    std::snprintf(b, sizeof b,
                  "%s %-5s %-7s %2d groups  agree %6.2f%% of %7.1fs  confident_wrong %.2f%%  "
                  "false_approval %.2fs  waits %d missed %d  %d below a bar",
                  key.second ? "HELD" : "SEEN", mode, key.first.c_str(), s.groups,
                  100 * s.score.Agreement(), s.score.counted,
                  100 * s.score.ConfidentWrongShare(), s.score.false_approval, s.score.waits,
                  s.score.missed_waits, s.failing);
    out.emplace_back(b);
  }
  return out;
}

std::string FormatTimeline(const Timeline& t) {
  std::string out;
  for (const auto& p : t) {
    char b[32];
    std::snprintf(b, sizeof b, "%9.3fs  ", p.t);
    out += b;
    out += core::StateName(p.signal.state);
    out += "  " + std::string(core::ConfidenceName(p.signal.confidence)) + "  ";
    out += p.signal.rule_id.empty() ? "-" : p.signal.rule_id;
    if (!p.signal.reason_code.empty()) out += "  reason=" + p.signal.reason_code;
    const auto& d = p.signal.detail;
    if (!d.approval_type.empty()) out += "  type=" + d.approval_type;
    if (!d.choices.empty())
      out += "  choices=" + Join(d.choices) +
             " cursor=" + std::to_string(d.cursor_position) +
             (d.multi_select ? " multi" : "");
    if (!d.details.empty()) out += "  details=\"" + d.details + "\"";
    if (!p.signal.evidence.empty()) out += "  | " + p.signal.evidence;
    out += '\n';
  }
  return out;
}

}  // namespace agt::detect::corpus
