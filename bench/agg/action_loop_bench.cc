// Benchmark (figures, not assertions) of issue 14 item 3: GET /v1/health
// latency of the real agtmuxd while ten actions wait on a stopped tmux
// server (SIGSTOP), against the same daemon with no action in flight, in
// the same run. Prints min, median, p99 and max of each and their ratio;
// the goal is a p99 within 50 ms with the ten actions waiting.
//
//   build/bench/agg/action_loop_bench [requests per phase, default 400]
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/agg/daemon_harness.h"

namespace {

using agt::test::Daemon;
using agt::test::PollUntil;
using agt::test::TestEnv;
using Clock = std::chrono::steady_clock;

struct Figures {
  double min, p50, p99, max;
};

Figures Summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto pct = [&](double p) { return v[std::min(v.size() - 1, static_cast<size_t>(p * double(v.size() - 1) + 0.5))]; };
  return {v.front(), pct(0.5), pct(0.99), v.back()};
}

void Print(const char* name, const Figures& f, size_t n) {
  std::printf("%-36s n=%zu min=%.2fms p50=%.2fms p99=%.2fms max=%.2fms\n", name, n, f.min, f.p50, f.p99, f.max);
}

/// Times `n` GET /v1/health, one after the other; false if one failed.
bool Health(const Daemon& d, int n, std::vector<double>* ms) {
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    auto r = d.Call("GET", "/v1/health");
    if (!r.ok() || r->status != 200) return false;
    ms->push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return true;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(10, std::atoi(argv[1])) : 400;
  TestEnv env;
  const std::string sock = env.root + "/tmux/bench.sock";
  auto tmux = [&](std::vector<std::string> args) {
    std::vector<std::string> a = {"/usr/bin/tmux", "-S", sock, "-f", "/dev/null"};
    a.insert(a.end(), args.begin(), args.end());
    return env.Run(a);
  };
  if (tmux({"new-session", "-d", "-s", "work", "-x", "80", "-y", "24", "sh"}).status != 0) {
    std::fprintf(stderr, "cannot start tmux\n");
    return 1;
  }
  const pid_t server = std::atoi(Trim(tmux({"display-message", "-p", "#{pid}"}).out).c_str());
  const std::string pane = Trim(tmux({"display-message", "-p", "-t", "work", "#{pane_id}"}).out);
  const std::string window = Trim(tmux({"display-message", "-p", "-t", "work", "#{window_id}"}).out);
  int rc = 1;
  {
    Daemon d(env);
    auto target = d.WaitReady() ? d.Call("POST", "/v1/targets",
                                         "{\"name\":\"lab\",\"kind\":\"local\",\"tmux_socket\":\"" + sock + "\"}")
                                : agt::core::Result<agt::net::HttpResponse>(
                                      agt::core::MakeError(agt::core::Err::kIo, "daemon not ready"));
    const std::string ref = "pane:lab/work/" + window + "/" + pane;
    const bool listed = target.ok() && PollUntil([&] {
      auto r = d.Call("GET", "/v1/panes?all");
      return r.ok() && r->body.find("\"" + pane + "\"") != std::string::npos;
    }, 10000);
    if (!listed) {
      std::fprintf(stderr, "the daemon did not list the tmux pane\n");
    } else {
      std::vector<double> base, loaded;
      Health(d, n / 10, &base);  // warm-up
      base.clear();
      bool ok = Health(d, n, &base);
      // Ten actions on a stopped server: each waits in its tmux command.
      kill(server, SIGSTOP);
      std::atomic<int> answered{0};
      std::vector<std::thread> actions;
      for (int i = 0; i < 10; ++i)
        actions.emplace_back([&] {
          (void)d.Call("POST", "/v1/actions/view-output", "{\"ref\":\"" + ref + "\",\"lines\":5}");
          ++answered;
        });
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let them all reach the daemon
      ok = ok && Health(d, n, &loaded);
      const int answered_during = answered.load();
      kill(server, SIGCONT);
      for (auto& t : actions) t.join();
      if (!ok) {
        std::fprintf(stderr, "a /v1/health request failed\n");
      } else {
        Figures b = Summarize(base), l = Summarize(loaded);
        Print("/v1/health, no action", b, base.size());
        Print("/v1/health, 10 actions on stopped tmux", l, loaded.size());
        std::printf("p50 ratio %.2f, p99 ratio %.2f; actions answered while measuring: %d of 10 (goal: p99 < 50 ms)\n",
                    l.p50 / b.p50, l.p99 / b.p99, answered_during);
        rc = 0;
      }
    }
  }
  tmux({"kill-server"});
  if (server > 0 && kill(server, 0) == 0) kill(server, SIGKILL);
  return rc;
}
