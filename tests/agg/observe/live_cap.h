// Live CAP (issue 15 item 6), shared by the live CAP gate
// (tests/agg/observe/live_cap_gate_test.cc) and the benchmark
// (bench/agg/cap_live_bench.cc): recorded agent sessions played in real time
// by cast_play into their own sessions of a private tmux server, real
// agtmuxd daemons watching it, GET /v1/panes polled every 10 ms into one
// state timeline per recording and daemon, on the recording's clock. The
// timelines are scored by the corpus gates' own scoring
// (tests/detect/corpus.h, ScoreTimeline), so live and replayed CAP are held
// to the same measure. Needs AGTMUXD_BIN and CAST_PLAY_BIN defined.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <rapidjson/document.h>

#include "tests/agg/daemon_harness.h"
#include "tests/detect/corpus.h"

namespace agt::test::live_cap {

inline int64_t RealNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// One recording played live: the corpus fixture, its cast's size and
/// length, and once played, its pane and when its t = 0 was (CLOCK_REALTIME).
struct Recording {
  detect::corpus::Fixture fixture;
  int width = 0, height = 0;
  double duration = 0;
  std::string pane;
  int64_t start = 0;
  /// Where scoring stops: the agent's exit in truth (the pane then stays
  /// on the last frame), else the cast's end.
  double End() const {
    return fixture.truth.empty() ? duration : std::max(0.0, fixture.truth.back().t);
  }
};

/// Loads the fixture at `dir` and its cast's header and length.
inline core::Result<Recording> LoadRecording(const std::string& dir) {
  auto f = detect::corpus::LoadFixture(dir);
  if (!f.ok()) return f.error();
  Recording r;
  r.fixture = std::move(f).value();
  std::ifstream cast(r.fixture.cast_path.empty() ? dir + "/session.cast" : r.fixture.cast_path);
  std::string line;
  rapidjson::Document h;
  if (std::getline(cast, line)) h.Parse(line.c_str());
  if (h.HasParseError() || !h.IsObject() || !h.HasMember("width") || !h.HasMember("height"))
    return core::MakeError(core::Err::kNotFound, dir + ": session.cast has no asciicast header");
  r.width = h["width"].GetInt();
  r.height = h["height"].GetInt();
  while (std::getline(cast, line)) {
    rapidjson::Document e;
    e.Parse(line.c_str());
    if (!e.HasParseError() && e.IsArray() && e.Size() > 0 && e[0].IsNumber())
      r.duration = std::max(r.duration, e[0].GetDouble());
  }
  return r;
}

/// pane id -> the daemon's signal for it, from one GET /v1/panes (agent
/// panes only).
inline std::map<std::string, core::Signal> States(const Daemon& d) {
  std::map<std::string, core::Signal> r;
  auto resp = d.Call("GET", "/v1/panes");
  if (!resp.ok() || resp->status != 200) return r;
  rapidjson::Document doc;
  doc.Parse(resp->body.c_str());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("items")) return r;
  for (const auto& it : doc["items"].GetArray()) {
    if (!it.HasMember("identity") || !it["identity"].HasMember("pane_id") || !it.HasMember("state") ||
        !it["state"].IsString() || !it.HasMember("agent") || !it["agent"].IsBool() || !it["agent"].GetBool())
      continue;
    core::Signal s;
    s.state = core::ParseState(it["state"].GetString()).value_or(core::State::kUnknown);
    if (it.HasMember("reason_code") && it["reason_code"].IsString()) s.reason_code = it["reason_code"].GetString();
    if (it.HasMember("rule_id") && it["rule_id"].IsString()) s.rule_id = it["rule_id"].GetString();
    if (it.HasMember("waiting") && it["waiting"].IsObject()) {
      const auto& w = it["waiting"];
      if (w.HasMember("approval_type") && w["approval_type"].IsString())
        s.detail.approval_type = w["approval_type"].GetString();
      if (w.HasMember("details") && w["details"].IsString()) s.detail.details = w["details"].GetString();
      if (w.HasMember("choices") && w["choices"].IsArray())
        for (const auto& c : w["choices"].GetArray())
          if (c.IsString()) s.detail.choices.push_back(c.GetString());
      if (w.HasMember("multi_select") && w["multi_select"].IsBool()) s.detail.multi_select = w["multi_select"].GetBool();
      if (w.HasMember("cursor_position") && w["cursor_position"].IsInt())
        s.detail.cursor_position = w["cursor_position"].GetInt();
    }
    r[it["identity"]["pane_id"].GetString()] = std::move(s);
  }
  return r;
}

/// A private tmux server (its socket under `env`'s TMUX_TMPDIR, where the
/// daemons' `host` target looks) and the cast_play symlinks named after
/// the agents, so each pane is identified as that agent, unwrapped.
class Lab {
 public:
  explicit Lab(const TestEnv& env) : env_(env) {
    const std::string sockdir = env.root + "/tmux/tmux-" + std::to_string(getuid());
    std::filesystem::create_directories(sockdir);
    chmod(sockdir.c_str(), 0700);
    sock_ = sockdir + "/default";
    bin_ = env.root + "/bin";
    std::filesystem::create_directories(bin_);
    for (const char* agent : {"claude", "codex", "gemini"})
      std::filesystem::create_symlink(CAST_PLAY_BIN, bin_ + "/" + agent);
  }
  ~Lab() { Tmux({"kill-server"}); }
  std::string tmux_dir() const { return env_.root + "/tmux"; }
  const std::string& bin() const { return bin_; }
  /// The server's socket (what $TMUX names inside its panes).
  const std::string& socket() const { return sock_; }
  /// Where recording `i` writes its start time once it plays.
  std::string start_file(size_t i) const { return env_.root + "/start" + std::to_string(i); }

  std::string Tmux(std::vector<std::string> args) const {
    std::vector<std::string> a = {"/usr/bin/tmux", "-S", sock_, "-f", "/dev/null"};
    a.insert(a.end(), args.begin(), args.end());
    return env_.Run(a).out;
  }

  /// Each recording in its own session (the daemons' main control client
  /// sees one, the others come through their per-session feeds), waiting
  /// for Go() to start playing.
  void CreatePanes(std::vector<Recording>& recs) {
    for (size_t i = 0; i < recs.size(); ++i) {
      Recording& r = recs[i];
      const std::string cmd = bin_ + "/" + r.fixture.agent + " " + r.fixture.cast_path + " --wait-file " + go_file() +
                              " --start-file " + start_file(i);
      r.pane = Tmux({"new-session", "-d", "-s", "rec" + std::to_string(i), "-x", std::to_string(r.width), "-y",
                     std::to_string(r.height), "-P", "-F", "#{pane_id}", cmd});
      if (!r.pane.empty() && r.pane.back() == '\n') r.pane.pop_back();
    }
  }

  /// Waits until every daemon lists every pane as an agent pane, gives
  /// them `settle_ms` to seed, starts the recordings together and polls
  /// each daemon every 10 ms until the longest has ended (+ `tail_s`).
  /// Returns, per daemon, per recording, the timeline on the recording's
  /// clock (seconds since its t = 0); false when the panes never showed up.
  /// `on_go`, when given, is called as the recordings are told to start
  /// (the hooks' player starts there, live_cap_hooks.h).
  bool PlayAndWatch(std::vector<Recording>& recs, const std::vector<const Daemon*>& daemons,
                    std::vector<std::vector<detect::corpus::Timeline>>* out, int settle_ms = 2000,
                    double tail_s = 1.0, const std::function<void()>& on_go = {}) {
    const bool listed = PollUntil(
        [&] {
          for (const Daemon* d : daemons)
            if (States(*d).size() < recs.size()) return false;
          return true;
        },
        15000);
    if (!listed) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
    std::ofstream(go_file()) << "go\n";
    if (on_go) on_go();
    double longest = 0;
    for (const auto& r : recs) longest = std::max(longest, r.duration);
    const int64_t end = RealNs() + int64_t((longest + tail_s + 0.5) * 1e9);
    // pane -> (when, signal) at each change seen, per daemon
    std::vector<std::map<std::string, std::vector<std::pair<int64_t, core::Signal>>>> seen(daemons.size());
    std::vector<std::map<std::string, core::Signal>> last(daemons.size());
    while (RealNs() < end) {
      for (size_t k = 0; k < daemons.size(); ++k) {
        auto now = States(*daemons[k]);
        const int64_t t = RealNs();
        for (auto& [pane, sig] : now) {
          auto it = last[k].find(pane);
          if (it != last[k].end() && it->second == sig) continue;
          seen[k][pane].push_back({t, sig});
          last[k][pane] = sig;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (size_t i = 0; i < recs.size(); ++i) std::ifstream(start_file(i)) >> recs[i].start;
    out->assign(daemons.size(), std::vector<detect::corpus::Timeline>(recs.size()));
    for (size_t k = 0; k < daemons.size(); ++k)
      for (size_t i = 0; i < recs.size(); ++i) {
        if (recs[i].start == 0) continue;  // never started: an empty timeline
        for (const auto& [t, sig] : seen[k][recs[i].pane])
          (*out)[k][i].push_back({std::max(0.0, double(t - recs[i].start) / 1e9), sig});
      }
    return true;
  }

 private:
  std::string go_file() const { return env_.root + "/go"; }
  const TestEnv& env_;
  std::string sock_, bin_;
};

/// The corpus gates' score of one live timeline, up to the agent's exit.
inline detect::corpus::Score ScoreLive(const Recording& r, const detect::corpus::Timeline& t) {
  return detect::corpus::ScoreTimeline(r.fixture, t, r.End());
}

}  // namespace agt::test::live_cap
