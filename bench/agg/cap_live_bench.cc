// Live CAP benchmark (issue 15 item 6): recorded agent sessions played in
// real time (tests/agg/observe/cast_play) into the panes of a private tmux
// server, watched by two real agtmuxd processes at once: one with
// `[poller] byte_screens = false` (every change read by a capture, the old
// path) and one with byte screens (the default). Neither is wrapped and no
// hooks run: every state is CAP.
//
//  1. Latency: for each labelled transition of the recordings' truth.jsonl
//     (a state different from the one before, `unknown` and the agent's exit
//     left out), the time from the label to the first GET /v1/panes (polled
//     every 10 ms) that shows the pane in that state; 0 when it already did.
//     A transition never shown before the next one (+2 s) is missed. Also
//     the time-weighted agreement with the labels, 300 ms grace after each
//     label (the corpus gate's measure, here live rather than replayed).
//  2. CPU: 20 panes looping a busy recorded Claude Code turn, each daemon's
//     CPU with its tmux control clients, over two windows of 10 s.
//
// Figures only, no assertion. Goals (issue 15): p95 <= 500 ms; < 5 % of a
// core for 20 busy panes.
//
//   cap_live_bench [--busy N] [--no-latency] [--no-cpu]
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <rapidjson/document.h>

#include "bench/agg/bench_util.h"
#include "tests/agg/daemon_harness.h"

namespace {

using agt::test::Daemon;
using agt::test::TestEnv;
namespace fs = std::filesystem;

int64_t RealNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

struct Label {
  double t;
  std::string state;
};

struct Fixture {
  std::string agent, dir;
  int width = 0, height = 0;
  double duration = 0;
  std::vector<Label> truth;
  std::string pane;
  int64_t start = 0;  // CLOCK_REALTIME ns of the cast's t = 0
};

bool LoadFixture(Fixture& f) {
  std::ifstream cast(f.dir + "/session.cast");
  std::string line;
  if (!std::getline(cast, line)) return false;
  rapidjson::Document h;
  h.Parse(line.c_str());
  if (h.HasParseError() || !h.HasMember("width")) return false;
  f.width = h["width"].GetInt();
  f.height = h["height"].GetInt();
  while (std::getline(cast, line)) {
    rapidjson::Document e;
    e.Parse(line.c_str());
    if (!e.HasParseError() && e.IsArray() && e.Size() > 0) f.duration = std::max(f.duration, e[0].GetDouble());
  }
  std::ifstream truth(f.dir + "/truth.jsonl");
  while (std::getline(truth, line)) {
    rapidjson::Document e;
    e.Parse(line.c_str());
    if (e.HasParseError() || !e.HasMember("state")) continue;
    const std::string src = e.HasMember("source") ? e["source"].GetString() : "";
    if (src == "agent_exit") continue;
    f.truth.push_back({e["t"].GetDouble(), e["state"].GetString()});
  }
  return !f.truth.empty();
}

/// pane id -> state, from one GET /v1/panes.
std::map<std::string, std::string> States(const Daemon& d) {
  std::map<std::string, std::string> r;
  auto resp = d.Call("GET", "/v1/panes");
  if (!resp.ok() || resp->status != 200) return r;
  rapidjson::Document doc;
  doc.Parse(resp->body.c_str());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("items")) return r;
  for (const auto& it : doc["items"].GetArray())
    if (it.HasMember("identity") && it["identity"].HasMember("pane_id") && it.HasMember("state") &&
        it["state"].IsString() && it.HasMember("agent") && it["agent"].IsBool() && it["agent"].GetBool())
      r[it["identity"]["pane_id"].GetString()] = it["state"].GetString();
  return r;
}

struct Path {
  const char* name;
  std::unique_ptr<TestEnv> env;
  std::unique_ptr<Daemon> daemon;
  // pane -> (time, state) at each change seen
  std::map<std::string, std::vector<std::pair<int64_t, std::string>>> seen;
};

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

std::string StateAt(const std::vector<std::pair<int64_t, std::string>>& tl, int64_t t) {
  std::string s = "unknown";
  for (const auto& [at, st] : tl) {
    if (at > t) break;
    s = st;
  }
  return s;
}

/// The daemon and its direct children (the tmux control clients).
double TreeCpu(pid_t pid) {
  double s = agt::bench::ProcCpuSeconds(pid);
  std::ifstream ch("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  int64_t c;
  while (ch >> c) s += agt::bench::ProcCpuSeconds(c);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int busy = 20;
  bool latency = true, cpu = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--busy" && i + 1 < argc) busy = std::max(1, std::atoi(argv[++i]));
    else if (a == "--no-latency") latency = false;
    else if (a == "--no-cpu") cpu = false;
  }
  signal(SIGPIPE, SIG_IGN);
  const std::string src = CAP_LIVE_BENCH_SOURCE_DIR;
  Path paths[2] = {{"capture (byte_screens=false)", nullptr, nullptr, {}}, {"byte screens", nullptr, nullptr, {}}};
  for (auto& p : paths) p.env = std::make_unique<TestEnv>();
  // One tmux server, where both daemons' `host` target looks.
  const std::string tmpdir = paths[0].env->root + "/tmux";
  for (auto& v : paths[1].env->vars)
    if (v.rfind("TMUX_TMPDIR=", 0) == 0) v = "TMUX_TMPDIR=" + tmpdir;
  const std::string sockdir = tmpdir + "/tmux-" + std::to_string(getuid());
  fs::create_directories(sockdir);
  chmod(sockdir.c_str(), 0700);
  const std::string sock = sockdir + "/default";
  const std::string bin = paths[0].env->root + "/bin";
  fs::create_directories(bin);
  for (const char* agent : {"claude", "codex", "gemini"}) fs::create_symlink(CAST_PLAY_BIN, bin + "/" + agent);
  auto tmux = [&](std::vector<std::string> args) {
    std::vector<std::string> a = {"/usr/bin/tmux", "-S", sock, "-f", "/dev/null"};
    a.insert(a.end(), args.begin(), args.end());
    return paths[0].env->Run(a).out;
  };
  fs::create_directories(paths[0].env->root + "/config/agtmux");
  std::ofstream(paths[0].env->root + "/config/agtmux/config.toml") << "[poller]\nbyte_screens = false\n";

  if (latency) {
    const std::string fx = src + "/tests/fixtures/";
    std::vector<Fixture> fixtures;
    for (const char* d : {"claude/2.1.330/shell_approved", "claude/2.1.330/shell_denied",
                          "claude/2.1.330/question_single", "claude/2.1.330/turns_completed",
                          "claude/2.1.330/file_edit", "claude/2.1.197/shell_approved",
                          "codex/0.169.0/shell_approved", "codex/0.169.0/turns_completed",
                          "gemini/0.61.0/shell_approved", "gemini/0.61.0/turns_completed"}) {
      Fixture f;
      f.dir = fx + d;
      f.agent = std::string(d).substr(0, std::string(d).find('/'));
      if (LoadFixture(f)) fixtures.push_back(std::move(f));
      else std::printf("skipped %s: not readable\n", d);
    }
    // Each recording in its own session: the daemons' main clients see one,
    // the others come through their feeds.
    const std::string go = paths[0].env->root + "/go";
    for (size_t i = 0; i < fixtures.size(); ++i) {
      Fixture& f = fixtures[i];
      const std::string cmd = bin + "/" + f.agent + " " + f.dir + "/session.cast --wait-file " + go +
                              " --start-file " + paths[0].env->root + "/start" + std::to_string(i);
      f.pane = tmux({"new-session", "-d", "-s", "rec" + std::to_string(i), "-x", std::to_string(f.width), "-y",
                     std::to_string(f.height), "-P", "-F", "#{pane_id}", cmd});
      if (!f.pane.empty() && f.pane.back() == '\n') f.pane.pop_back();
    }
    for (auto& p : paths) {
      p.daemon = std::make_unique<Daemon>(*p.env);
      if (!p.daemon->WaitReady()) {
        std::printf("%s: daemon not ready\n", p.name);
        return 1;
      }
    }
    // Every pane an agent pane in both daemons, then time to seed.
    for (int i = 0; i < 300; ++i) {
      bool all = true;
      for (auto& p : paths) all = all && States(*p.daemon).size() >= fixtures.size();
      if (all) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::this_thread::sleep_for(std::chrono::seconds(3));
    std::ofstream(go) << "go\n";
    double longest = 0;
    for (auto& f : fixtures) longest = std::max(longest, f.duration);
    const int64_t end = RealNs() + int64_t((longest + 3) * 1e9);
    std::map<std::string, std::string> last[2];
    while (RealNs() < end) {
      for (int k = 0; k < 2; ++k) {
        auto now_states = States(*paths[k].daemon);
        const int64_t t = RealNs();
        for (const auto& [pane, st] : now_states)
          if (last[k][pane] != st) {
            paths[k].seen[pane].push_back({t, st});
            last[k][pane] = st;
          }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (size_t i = 0; i < fixtures.size(); ++i) {
      std::ifstream s(paths[0].env->root + "/start" + std::to_string(i));
      s >> fixtures[i].start;
    }
    std::printf("cap_live_bench: %zu recordings played live in separate sessions of one tmux server, "
                "two daemons watching (GET /v1/panes every 10 ms)\n", fixtures.size());
    for (auto& p : paths) {
      std::vector<double> lat, waits;
      int missed = 0, n = 0;
      double agree = 0, total = 0;
      for (const auto& f : fixtures) {
        const auto& tl = p.seen[f.pane];
        if (f.start == 0) continue;
        std::string prev = "unknown";
        for (size_t k = 0; k < f.truth.size(); ++k) {
          const Label& l = f.truth[k];
          const int64_t at = f.start + int64_t(l.t * 1e9);
          const int64_t next = k + 1 < f.truth.size() ? f.start + int64_t(f.truth[k + 1].t * 1e9)
                                                      : f.start + int64_t(f.duration * 1e9);
          // Agreement over [at + grace, next).
          for (int64_t t = at + 300 * 1000000LL; t < next; t += 10 * 1000000LL) {
            total += 1;
            if (StateAt(tl, t) == l.state) agree += 1;
          }
          if (l.state == prev || l.state == "unknown") {
            prev = l.state;
            continue;
          }
          prev = l.state;
          ++n;
          if (StateAt(tl, at) == l.state) {
            lat.push_back(0);
            continue;
          }
          bool found = false;
          for (const auto& [t, st] : tl)
            if (t > at && t <= next + 2000000000LL && st == l.state) {
              lat.push_back(double(t - at) / 1e6);
              if (l.state == "waiting_approval" || l.state == "waiting_input") waits.push_back(lat.back());
              found = true;
              break;
            }
          if (!found) ++missed;
        }
      }
      std::printf("%-30s transitions %d  shown %zu  missed %d  latency p50 %6.0f ms  p95 %6.0f ms  max %6.0f ms"
                  "  | waits p50 %5.0f p95 %5.0f ms  | agreement %.1f %%\n",
                  p.name, n, lat.size(), missed, Pct(lat, 0.5), Pct(lat, 0.95), Pct(lat, 1.0), Pct(waits, 0.5),
                  Pct(waits, 0.95), total > 0 ? 100.0 * agree / total : 0.0);
    }
    for (auto& p : paths) p.daemon.reset();
    tmux({"kill-server"});
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }

  if (cpu) {
    const std::string cast = src + "/tests/fixtures/claude/2.1.330/long_tool_run/session.cast";
    const std::string play = bin + "/claude " + cast + " --loop";
    // Four sessions of busy panes: the main clients see one, feeds the rest.
    for (int i = 0; i < busy; ++i) {
      const std::string s = "busy" + std::to_string(i % 4);
      if (i < 4) tmux({"new-session", "-d", "-s", s, "-x", "120", "-y", "40", play});
      else tmux({"new-window", "-d", "-t", s, play});
    }
    for (auto& p : paths) {
      p.daemon = std::make_unique<Daemon>(*p.env);
      if (!p.daemon->WaitReady()) return 1;
    }
    std::this_thread::sleep_for(std::chrono::seconds(5));
    const int64_t server = std::atoll(tmux({"display-message", "-p", "#{pid}"}).c_str());
    std::vector<double> use[2], tmux_use;
    for (int w = 0; w < 2; ++w) {
      double c0[2], s0 = agt::bench::ProcCpuSeconds(server);
      for (int k = 0; k < 2; ++k) c0[k] = TreeCpu(paths[k].daemon->pid());
      const int64_t t0 = RealNs();
      std::this_thread::sleep_for(std::chrono::seconds(10));
      const double secs = double(RealNs() - t0) / 1e9;
      for (int k = 0; k < 2; ++k) use[k].push_back(100.0 * (TreeCpu(paths[k].daemon->pid()) - c0[k]) / secs);
      tmux_use.push_back(100.0 * (agt::bench::ProcCpuSeconds(server) - s0) / secs);
    }
    std::printf("cap_live_bench: %d busy claude panes (cast_play --loop of claude/2.1.330/long_tool_run) in 4 "
                "sessions, both daemons at once, 2 windows of 10 s, medians\n", busy);
    for (int k = 0; k < 2; ++k)
      std::printf("%-30s daemon + control clients CPU %6.2f %% of a core\n", paths[k].name, Pct(use[k], 0.5));
    std::printf("%-30s %6.2f %% of a core (serving both daemons and the panes)\n", "tmux server",
                Pct(tmux_use, 0.5));
    for (auto& p : paths) p.daemon.reset();
    tmux({"kill-server"});
  }
  return 0;
}
