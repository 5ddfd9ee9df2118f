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
//     the corpus gates' score of the live timelines (time-weighted
//     agreement with 300 ms grace, missed waits, false approval): the
//     playing, polling and scoring are tests/agg/observe/live_cap.h, which
//     the live CAP gate (live_cap_gate_test.cc) holds to its bars.
//  2. CPU: 20 panes looping a busy recorded Claude Code turn, each daemon's
//     CPU with its tmux control clients, over two windows of 10 s.
//
// Figures only, no assertion. Goals (issue 15): p95 <= 500 ms; < 5 % of a
// core for 20 busy panes.
//
//   cap_live_bench [--busy N] [--no-latency] [--no-cpu]
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "bench/agg/bench_util.h"
#include "tests/agg/observe/live_cap.h"

namespace {

using agt::test::Daemon;
using agt::test::TestEnv;
namespace corpus = agt::detect::corpus;
namespace live = agt::test::live_cap;
namespace fs = std::filesystem;

struct Path {
  const char* name;
  std::unique_ptr<TestEnv> env;
  std::unique_ptr<Daemon> daemon;
};

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

agt::core::State StateAt(const corpus::Timeline& tl, double t) {
  agt::core::State s = agt::core::State::kUnknown;
  for (const auto& p : tl) {
    if (p.t > t) break;
    s = p.signal.state;
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
    Path paths[2] = {{"capture (byte_screens=false)", nullptr, nullptr}, {"byte screens", nullptr, nullptr}};
  for (auto& p : paths) p.env = std::make_unique<TestEnv>();
  // One tmux server, where both daemons' `host` target looks.
  live::Lab lab(*paths[0].env);
  for (auto& v : paths[1].env->vars)
    if (v.rfind("TMUX_TMPDIR=", 0) == 0) v = "TMUX_TMPDIR=" + lab.tmux_dir();
  fs::create_directories(paths[0].env->root + "/config/agtmux");
  std::ofstream(paths[0].env->root + "/config/agtmux/config.toml") << "[poller]\nbyte_screens = false\n";

  if (latency) {
    std::vector<live::Recording> recs;
    for (const char* d : {"claude/2.1.330/shell_approved", "claude/2.1.330/shell_denied",
                          "claude/2.1.330/question_single", "claude/2.1.330/turns_completed",
                          "claude/2.1.330/file_edit", "claude/2.1.197/shell_approved",
                          "codex/0.169.0/shell_approved", "codex/0.169.0/turns_completed",
                          "gemini/0.61.0/shell_approved", "gemini/0.61.0/turns_completed"}) {
      auto r = live::LoadRecording(corpus::FixturesRoot() + "/" + d);
      if (r.ok()) recs.push_back(std::move(r).value());
      else std::printf("skipped %s: %s\n", d, r.error().message.c_str());
    }
    lab.CreatePanes(recs);
    for (auto& p : paths) {
      p.daemon = std::make_unique<Daemon>(*p.env);
      if (!p.daemon->WaitReady()) {
        std::printf("%s: daemon not ready\n", p.name);
        return 1;
      }
    }
    std::vector<std::vector<corpus::Timeline>> timelines;
    if (!lab.PlayAndWatch(recs, {paths[0].daemon.get(), paths[1].daemon.get()}, &timelines, 3000, 3.0)) {
      std::printf("the daemons never listed every pane as an agent\n");
      return 1;
    }
    std::printf("cap_live_bench: %zu recordings played live in separate sessions of one tmux server, "
                "two daemons watching (GET /v1/panes every 10 ms)\n", recs.size());
    for (int k = 0; k < 2; ++k) {
      std::vector<double> lat, waits;
      int missed = 0, n = 0;
      corpus::Score score;
      for (size_t i = 0; i < recs.size(); ++i) {
        const auto& truth = recs[i].fixture.truth;
        const corpus::Timeline& tl = timelines[k][i];
        if (recs[i].start == 0) continue;
        score.Add(live::ScoreLive(recs[i], tl));
        agt::core::State prev = agt::core::State::kUnknown;
        for (size_t j = 0; j < truth.size(); ++j) {
          const auto& l = truth[j];
          if (l.source == "agent_exit") break;
          const double next = j + 1 < truth.size() ? truth[j + 1].t : recs[i].duration;
          if (l.state == prev || l.state == agt::core::State::kUnknown) {
            prev = l.state;
            continue;
          }
          prev = l.state;
          ++n;
          if (StateAt(tl, l.t) == l.state) {
            lat.push_back(0);
            continue;
          }
          bool found = false;
          for (const auto& p : tl)
            if (p.t > l.t && p.t <= next + 2.0 && p.signal.state == l.state) {
              lat.push_back((p.t - l.t) * 1000);
              if (agt::core::NeedsAction(l.state)) waits.push_back(lat.back());
              found = true;
              break;
            }
          if (!found) ++missed;
        }
      }
      std::printf("%-30s transitions %d  shown %zu  missed %d  latency p50 %6.0f ms  p95 %6.0f ms  max %6.0f ms"
                  "  | waits p50 %5.0f p95 %5.0f ms  | agreement %.1f %%  missed waits %d  false approval %.2f s\n",
                  paths[k].name, n, lat.size(), missed, Pct(lat, 0.5), Pct(lat, 0.95), Pct(lat, 1.0),
                  Pct(waits, 0.5), Pct(waits, 0.95), 100.0 * score.Agreement(), score.missed_waits,
                  score.false_approval);
    }
    for (auto& p : paths) p.daemon.reset();
    lab.Tmux({"kill-server"});
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }

  if (cpu) {
    const std::string cast = corpus::FixturesRoot() + "/claude/2.1.330/long_tool_run/session.cast";
    const std::string play = lab.bin() + "/claude " + cast + " --loop";
    // Four sessions of busy panes: the main clients see one, feeds the rest.
    for (int i = 0; i < busy; ++i) {
      const std::string s = "busy" + std::to_string(i % 4);
      if (i < 4) lab.Tmux({"new-session", "-d", "-s", s, "-x", "120", "-y", "40", play});
      else lab.Tmux({"new-window", "-d", "-t", s, play});
    }
    for (auto& p : paths) {
      p.daemon = std::make_unique<Daemon>(*p.env);
      if (!p.daemon->WaitReady()) return 1;
    }
    std::this_thread::sleep_for(std::chrono::seconds(5));
    const int64_t server = std::atoll(lab.Tmux({"display-message", "-p", "#{pid}"}).c_str());
    std::vector<double> use[2], tmux_use;
    for (int w = 0; w < 2; ++w) {
      double c0[2], s0 = agt::bench::ProcCpuSeconds(server);
      for (int k = 0; k < 2; ++k) c0[k] = TreeCpu(paths[k].daemon->pid());
      const int64_t t0 = live::RealNs();
      std::this_thread::sleep_for(std::chrono::seconds(10));
      const double secs = double(live::RealNs() - t0) / 1e9;
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
    lab.Tmux({"kill-server"});
  }
  return 0;
}
