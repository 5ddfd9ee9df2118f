// The chaos suite's figures (issue 14): a real agtmuxd under each attack of
// tests/chaos, with a client calling GET /v1/health every 10 ms throughout.
// Per attack it prints the health call's p50 and p99 and their ratio to the
// baseline (the same daemon idle, measured first in the same run), the
// daemon's largest RSS, and events lost (acknowledged with 200 but missing
// from agtmux.db; 0 is the only right answer). For the tmux churn it prints
// the daemon's CPU as a share of one core (health is then called every
// 200 ms, so that the figure is the churn's, not the health calls'). Attacks:
//   idle         the baseline: 100 agent panes, nothing happening
//   ingest       100 writers streaming batches (POST /v1/events) for 6 s
//   watch        50 watch streams, one never reading, while 20 writers stream
//   hostile      50 slowloris + a trickled body + nested JSON + huge headers
//                + 400 connections past the cap of 256
//   kill-9       3 x (8 writers streaming, SIGKILL, restart): health after
//                the restart, events lost over the three kills
//   disk-full    (root only) the state dir on a 16 MiB tmpfs, filled, then
//                freed: health while full, events lost
//   churn        a private tmux server killed and started again every 2 s
//                with agent-like panes (wrapped and not), 20 s: daemon CPU
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "bench/agg/bench_util.h"
#include "tests/chaos/chaos_util.h"

namespace {

using agt::chaos::Acked;
using agt::test::Daemon;
using agt::test::RawConn;
using agt::test::TestEnv;
using Clock = std::chrono::steady_clock;

struct Figures {
  std::vector<double> health_ms;
  long rss_max_kib = 0;
  int failed = 0;  // health calls not answered 200
};

/// Calls /v1/health every `every_ms` and samples RSS until stopped.
class Sampler {
 public:
  explicit Sampler(const Daemon& d, int every_ms = 10) : d_(d), every_ms_(every_ms), t_([this] { Run(); }) {}
  Figures Stop() {
    stop_ = true;
    t_.join();
    return f_;
  }

 private:
  void Run() {
    while (!stop_) {
      auto t0 = Clock::now();
      auto r = d_.Call("GET", "/v1/health");
      f_.health_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      if (!r.ok() || r->status != 200) ++f_.failed;
      f_.rss_max_kib = std::max(f_.rss_max_kib, agt::chaos::RssKib(d_.pid()));
      std::this_thread::sleep_for(std::chrono::milliseconds(every_ms_));
    }
  }
  const Daemon& d_;
  const int every_ms_;
  Figures f_;
  std::atomic<bool> stop_{false};
  std::thread t_;
};

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * double(v.size() - 1) + 0.5))];
}

double base_p50 = 0, base_p99 = 0;

void Print(const char* attack, const Figures& f, long lost, const std::string& extra = "") {
  const double p50 = Pct(f.health_ms, 0.5), p99 = Pct(f.health_ms, 0.99);
  char lost_s[32];
  std::snprintf(lost_s, sizeof lost_s, lost < 0 ? "-" : "%ld", lost);
  std::printf("%-10s health n=%-5zu p50=%7.2fms p99=%8.2fms (x%.1f of idle p99)  not-200=%d  RSS max=%6ld KiB  "
              "lost=%s%s\n",
              attack, f.health_ms.size(), p50, p99, base_p99 > 0 ? p99 / base_p99 : 1.0, f.failed, f.rss_max_kib,
              lost_s, extra.c_str());
  std::fflush(stdout);
}

std::unique_ptr<Daemon> Start(const TestEnv& env, std::vector<std::string> extra = {"--no-observe"}) {
  auto d = std::make_unique<Daemon>(env, extra);
  if (!d->WaitReady()) {
    std::fprintf(stderr, "agtmuxd did not start\n");
    std::exit(1);
  }
  return d;
}

/// Acknowledged ids of `acked` missing from agtmux.db (runtimes 0..writers-1).
long Lost(const TestEnv& env, Acked& acked, int writers) {
  std::string error;
  const auto stored = agt::chaos::StoredIds(env, agt::chaos::Runtimes(writers), &error);
  if (!error.empty()) std::fprintf(stderr, "reading agtmux.db: %s\n", error.c_str());
  return static_cast<long>(agt::chaos::Missing(acked.ids, stored));
}

void Writers(const Daemon& d, int n, const char* prefix, int ms, Acked* acked, size_t evidence = 0) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> ts;
  for (int w = 0; w < n; ++w)
    ts.emplace_back([&, w] { agt::chaos::StreamEvents(d, w, prefix, 4, 1 << 30, stop, acked, evidence); });
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  stop = true;
  for (auto& t : ts) t.join();
}

void IdleAndIngest() {
  TestEnv env;
  auto d = Start(env);
  Acked setup;
  std::atomic<bool> once{false};
  for (int w = 0; w < 100; ++w) agt::chaos::StreamEvents(*d, w, "01JP", 1, 1, once, &setup);
  {
    Sampler s(*d);
    std::this_thread::sleep_for(std::chrono::seconds(4));
    Figures f = s.Stop();
    base_p50 = Pct(f.health_ms, 0.5);
    base_p99 = Pct(f.health_ms, 0.99);
    Print("idle", f, -1);
  }
  Acked acked;
  Sampler s(*d);
  Writers(*d, 100, "01JQ", 6000, &acked);
  Figures f = s.Stop();
  char extra[96];
  std::snprintf(extra, sizeof extra, "  (%zu events acknowledged)", acked.ids.size());
  Print("ingest", f, Lost(env, acked, 100), extra);
}

void Watch() {
  TestEnv env;
  auto d = Start(env);
  std::vector<std::unique_ptr<agt::chaos::WatchClient>> watchers;
  for (int i = 0; i < 49; ++i)
    watchers.push_back(std::make_unique<agt::chaos::WatchClient>(env.socket(), "?interval=1s"));
  agt::chaos::WatchClient slow(env.socket(), "?interval=1s", 1);
  std::atomic<bool> stop{false};
  std::thread readers([&] {
    while (!stop) {
      for (auto& w : watchers) w->Pump();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  Acked acked;
  Sampler s(*d);
  Writers(*d, 20, "01JR", 8000, &acked, 1000);
  Figures f = s.Stop();
  stop = true;
  readers.join();
  char extra[128];
  std::snprintf(extra, sizeof extra, "  (%zu events; each reader got %zu KiB)", acked.ids.size(),
                watchers[0]->bytes / 1024);
  Print("watch", f, Lost(env, acked, 20), extra);
}

void Hostile() {
  TestEnv env;
  auto d = Start(env, {"--no-observe", "--header-timeout", "1s"});
  Sampler s(*d);
  std::vector<std::unique_ptr<RawConn>> loris, flood;
  for (int i = 0; i < 50; ++i) loris.push_back(std::make_unique<RawConn>(env.socket()));
  RawConn trickle(env.socket());
  trickle.Send("POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
  std::atomic<bool> stop{false};
  std::thread slow([&] {
    for (int i = 0; !stop; ++i) {
      for (auto& c : loris) c->Send("s");
      trickle.Send("[");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  for (int i = 0; i < 5; ++i) (void)d->Call("POST", "/v1/events", "{\"events\":" + std::string(900 * 1024, '['));
  RawConn huge(env.socket());
  huge.Send("GET /v1/panes HTTP/1.1\r\nX-Huge: " + std::string(64 * 1024, 'h') + "\r\n\r\n");
  for (int i = 0; i < 400; ++i) {
    flood.push_back(std::make_unique<RawConn>(env.socket()));
    flood.back()->Send("GET /v1/health HTTP/1.1\r\n");
  }
  std::this_thread::sleep_for(std::chrono::seconds(6));
  stop = true;
  slow.join();
  Print("hostile", s.Stop(), -1);
}

void Kill9() {
  TestEnv env;
  Acked acked;
  Figures all;
  for (int round = 0; round < 3; ++round) {
    auto d = Start(env);
    Sampler s(*d);
    const char* prefix[] = {"01JS", "01JT", "01JU"};
    std::atomic<bool> stop{false};
    std::vector<std::thread> ts;
    for (int w = 0; w < 8; ++w)
      ts.emplace_back([&, w] { agt::chaos::StreamEvents(*d, w, prefix[round], 4, 1 << 30, stop, &acked); });
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    kill(d->pid(), SIGKILL);
    stop = true;
    for (auto& t : ts) t.join();
    Figures f = s.Stop();  // includes the calls that met the killed daemon
    all.rss_max_kib = std::max(all.rss_max_kib, f.rss_max_kib);
    d->Stop(SIGKILL);
    d = Start(env);  // health after the restart
    Sampler after(*d);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    Figures fa = after.Stop();
    all.health_ms.insert(all.health_ms.end(), fa.health_ms.begin(), fa.health_ms.end());
    all.failed += fa.failed;
  }
  char extra[96];
  std::snprintf(extra, sizeof extra, "  (%zu events acknowledged over 3 kills)", acked.ids.size());
  Print("kill-9", all, Lost(env, acked, 8), extra);
}

void DiskFull() {
  TestEnv env;
  agt::chaos::Tmpfs fs(env.state_dir(), "16m");
  if (!fs.mounted()) {
    std::printf("%-10s skipped: %s\n", "disk-full", fs.error().c_str());
    return;
  }
  auto d = Start(env);
  Acked acked;
  std::atomic<bool> stop{false};
  agt::chaos::StreamEvents(*d, 0, "01JV", 8, 20, stop, &acked, 1000);
  fs.Fill();
  Sampler s(*d);
  long refused = 0;
  for (int b = 0; b < 300; ++b) {
    Acked more;
    agt::chaos::StreamEvents(*d, 1 + b, "01JW", 8, 1, stop, &more, 1000);
    refused += more.refused;
    std::lock_guard<std::mutex> l(acked.mu);
    acked.ids.insert(more.ids.begin(), more.ids.end());
  }
  Figures f = s.Stop();
  fs.Free();
  agt::chaos::StreamEvents(*d, 0, "01JX", 8, 5, stop, &acked, 1000);
  char extra[96];
  std::snprintf(extra, sizeof extra, "  (%ld of 300 batches refused while full)", refused);
  Print("disk-full", f, Lost(env, acked, 301), extra);
  d->Stop(SIGTERM);
}

void Churn() {
  TestEnv env;
  const std::string bin = env.root + "/bin";
  std::filesystem::create_directories(bin);
  std::ofstream(bin + "/claude") << "#!/bin/sh\ni=0\nwhile :; do i=$((i+1)); "
                                    "printf '\\r✻ Working… (%ss · esc to interrupt)' $i; sleep 0.1; done\n";
  chmod((bin + "/claude").c_str(), 0755);
  auto tmux = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/tmux", "-f", "/dev/null"});
    return env.Run(args);
  };
  auto d = Start(env, {});  // observes the test's default tmux socket
  const double cpu0 = agt::bench::ProcCpuSeconds(d->pid());
  const auto t0 = Clock::now();
  Sampler s(*d, 200);  // 5 calls a second: the CPU figure is the churn's
  for (int round = 0; Clock::now() - t0 < std::chrono::seconds(20); ++round) {
    tmux({"new-session", "-d", "-s", "r" + std::to_string(round), bin + "/claude"});
    tmux({"new-window", "-d", std::string(AGTMUX_BIN) + " wrap --agent claude -- " + bin + "/claude"});
    tmux({"split-window", "-d", bin + "/claude"});
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    tmux({"kill-server"});
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  Figures f = s.Stop();
  const double cpu = agt::bench::ProcCpuSeconds(d->pid()) - cpu0;
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  char extra[96];
  std::snprintf(extra, sizeof extra, "  daemon CPU %.2f s over %.1f s = %.2f %% of a core", cpu, wall,
                100 * cpu / wall);
  Print("churn", f, -1, extra);
}

}  // namespace

int main() {
  std::printf("agtmuxd under the chaos suite's attacks (GET /v1/health every 10 ms throughout)\n");
  IdleAndIngest();
  Watch();
  Hostile();
  Kill9();
  DiskFull();
  Churn();
  return 0;
}
