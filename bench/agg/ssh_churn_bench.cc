// tmux 3.3a's crash over ssh (docs/observe.md, "tmux 3.3a and control
// clients" and "What starts a scan: control clients over ssh"): an
// SshControlFeed follows a private tmux server through a loopback sshd
// while sessions on it are created, renamed and killed.
// Per run: whether the remote server died, how many control clients the
// feed attached per second of churn and at most within 100 ms (a burst),
// whether the session that stayed is followed again afterwards (its pane's
// output reaches the feed), and how many processes naming the run's tmux
// socket are left once the feed is gone and kill-server has run.
// Two kinds of churn: sessions that live milliseconds (two shells as fast
// as tmux answers) and sessions that live 3 s (one made every 0.5 s).
// Prints, per kind, crashes per runs, the median and max of attaches per
// churn second, and the follow-ups; asserts nothing. Arguments: [runs]
// [seconds per run] (default 10 4).
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aggregator/observe/ssh_control_feed.h"
#include "libagtcore/os/file.h"
#include "libagtcore/base/text.h"
#include "tests/agg/observe/session_churn.h"
#include "tests/agg/observe/tmux_fixture.h"
#include "tests/agg/targets/sshd_fixture.h"

namespace {

using namespace agt::agg;
namespace testing = agt::agg::testing;
using Clock = std::chrono::steady_clock;

struct RunResult {
  bool up = false;       // the feed followed the remote before the churn
  bool crashed = false;  // the remote tmux server died during the churn
  double attaches_per_s = 0;
  int64_t burst = 0;      // the most attaches within any 100 ms of the churn
  bool followed = false;  // after the churn: the staying pane's output heard
  int leftovers = 0;      // processes naming the run's tmux socket after teardown
};

/// Processes whose command line names `needle` (the run's tmux socket).
int ProcessesNaming(const std::string& needle) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto cmdline = agt::core::ReadWholeFile(e.path() / "cmdline");
    if (cmdline.ok() && cmdline->find(needle) != std::string::npos) ++n;
  }
  return n;
}

/// Control clients attached to `session` (any session when empty).
size_t ControlClients(testing::PrivateTmux& tmux, const std::string& session = "") {
  size_t n = 0;
  const std::string listing = tmux.Run({"list-clients", "-F", "#{client_control_mode} #{session_id}"}).out;
  for (std::string_view line : agt::core::SplitLines(listing)) {
    n += line == "1 " + session || (session.empty() && line.substr(0, 2) == "1 ");
  }
  return n;
}

RunResult Run(int seconds, const std::function<std::vector<std::string>(const std::string&)>& scripts) {
  RunResult res;
  testing::TempDir dir;
  testing::Sshd sshd(dir.path());
  testing::PrivateTmux tmux(dir.path());
  testing::Loop loop;
  const std::string pane = tmux.Must({"new-session", "-d", "-s", "stays", "-P", "-F", "#{pane_id}", "sh"});
  const std::string stays = tmux.Must({"display-message", "-p", "-t", pane, "#{session_id}"});
  const pid_t server = pid_t(std::stoll(tmux.Must({"display-message", "-p", "#{pid}"})));
  std::vector<FeedReport> reports;
  SshControlFeedOptions o;
  o.tmux = {"tmux", "-S", tmux.socket()};
  auto feed = std::make_unique<SshControlFeed>(loop.get(), sshd.Options(), o,
                                               [&](FeedReport r) { reports.push_back(std::move(r)); });
  feed->Start();
  auto up_with_one = [&] { return !reports.empty() && reports.back().up && reports.back().sessions.size() == 1; };
  res.up = loop.RunUntil([&] { return up_with_one() && ControlClients(tmux) == 1; }, 15000);
  if (!res.up) return res;
  const int64_t before = feed->attaches();
  const auto t0 = Clock::now();
  {
    testing::SessionChurn churn(scripts(tmux.socket()));
    // Attach counts sampled at every turn of the loop: the burst is the
    // largest rise within 100 ms.
    std::vector<std::pair<Clock::time_point, int64_t>> samples;
    res.crashed = loop.RunUntil([&] {
      samples.emplace_back(Clock::now(), feed->attaches());
      return kill(server, 0) != 0;
    }, seconds * 1000);
    for (size_t i = 0, j = 0; j < samples.size(); ++j) {
      while (samples[j].first - samples[i].first > std::chrono::milliseconds(100)) ++i;
      res.burst = std::max(res.burst, samples[j].second - samples[i].second);
    }
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  res.attaches_per_s = double(feed->attaches() - before) / s;
  // Sessions that lived through the end of the churn may still be there.
  auto follows_stays = [&] {
    return !reports.empty() && reports.back().up && reports.back().sessions.count(stays) &&
           ControlClients(tmux, stays) == 1;
  };
  if (!res.crashed && loop.RunUntil(follows_stays, 8000)) {
    const size_t from = reports.size();
    tmux.Must({"send-keys", "-t", pane, "echo after-churn", "Enter"});
    res.followed = loop.RunUntil([&] {
      for (size_t i = from; i < reports.size(); ++i)
        if (reports[i].output.count(pane)) return true;
      return false;
    }, 8000);
  }
  feed.reset();
  loop.RunFor(20);
  tmux.Kill();
  loop.RunFor(1000);
  res.leftovers = ProcessesNaming(tmux.socket());
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  unsetenv("TMUX");
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const int runs = argc > 1 ? std::atoi(argv[1]) : 10;
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 4;
  struct Scenario {
    const char* name;
    std::function<std::vector<std::string>(const std::string&)> scripts;
  };
  const Scenario scenarios[] = {
      {"tight churn (two shells: create, rename, kill, as fast as tmux answers)",
       [](const std::string& sock) { return std::vector<std::string>{agt::agg::testing::TightChurn(sock, "a"),
                                                                     agt::agg::testing::TightChurn(sock, "b")}; }},
      {"lived churn (a new session every 0.5 s, each living 3 s)",
       [](const std::string& sock) { return std::vector<std::string>{agt::agg::testing::LivedChurn(sock, "l", "0.5", 6)}; }},
  };
  for (const Scenario& sc : scenarios) {
    int crashes = 0, followed = 0, measured = 0, leftovers = 0;
    std::vector<double> rates, bursts;
    std::printf("%s, %d s per run\n", sc.name, seconds);
    for (int r = 0; r < runs; ++r) {
      const RunResult res = Run(seconds, sc.scripts);
      if (!res.up) {
        std::printf("  run %d: the feed did not come up\n", r + 1);
        continue;
      }
      ++measured;
      crashes += res.crashed ? 1 : 0;
      followed += res.followed ? 1 : 0;
      rates.push_back(res.attaches_per_s);
      std::printf("  run %d: %s, %.1f attaches per churn second (at most %lld in 100 ms), staying session %s, "
                  "%d processes left\n",
                  r + 1, res.crashed ? "remote tmux crashed" : "remote tmux alive", res.attaches_per_s,
                  (long long)res.burst, res.crashed ? "-" : res.followed ? "followed after" : "NOT followed after",
                  res.leftovers);
      bursts.push_back(double(res.burst));
      leftovers += res.leftovers;
    }
    if (rates.empty()) return 1;
    std::sort(rates.begin(), rates.end());
    std::sort(bursts.begin(), bursts.end());
    std::printf("  crashes %d / %d runs; attaches per churn second: median %.1f, max %.1f; attaches within "
                "100 ms: median %.0f, max %.0f; staying session followed after the churn in %d / %d surviving "
                "runs; %d processes left after teardown\n",
                crashes, measured, rates[rates.size() / 2], rates.back(), bursts[bursts.size() / 2], bursts.back(),
                followed, measured - crashes, leftovers);
  }
  return 0;
}
