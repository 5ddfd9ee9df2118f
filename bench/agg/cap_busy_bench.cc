// CAP busy benchmark: what the CAP poller's capture interval costs when
// agent panes are busy. A private tmux server holds 20 unwrapped "claude"
// panes in one session (so every pane's %output reaches the collector's
// control client and every change is marked: the worst case for the
// poller); each pane runs tests/agg/observe/cast_play looping a recorded
// Claude Code 2.1.330 turn (spinner redraws, a tool run, streamed text).
//
// Byte screens are off here (every change is captured); their cost is
// measured by cap_live_bench. Rounds alternate the poller's active interval: 2 s (the default before
// the fused CAP gate, the baseline) and 200 ms (today's default, see
// docs/observe.md "When a pane is captured"). Each round starts a fresh
// LocalCollector in this process, lets it settle, then measures over two
// windows of 5 s: this process's CPU (collector + poller + analyzer), the
// tmux server's CPU, and the captures per second. Prints medians and the
// ratio against the baseline; asserts nothing.
//
//   cap_busy_bench [--panes N] [--rounds R]
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "aggregator/observe/collector_local.h"
#include "bench/agg/bench_util.h"
#include "aggregator/targets/target_executor.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/detect/analyzer.h"
#include "libagtcore/os/file_reader.h"

namespace {

using namespace agt;

struct Sink final : agg::CollectorSink {
  int64_t observed = 0;
  int64_t changes = 0;
  void OnTopology(const agg::Topology&) override {}
  void OnEvent(core::Event e) override {
    if (e.event_type == "runtime_observed") ++observed;
    if (e.event_type == "state_changed") ++changes;
  }
  agg::PaneOwner OwnerOf(const std::string&, const std::string&) const override { return agg::PaneOwner::kNone; }
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Figures {
  std::vector<double> self_cpu, tmux_cpu, captures_per_s, changes_per_s;
};

}  // namespace

int main(int argc, char** argv) {
  int panes = 20, rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--panes") panes = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--rounds") rounds = std::max(1, std::atoi(argv[i + 1]));
  }
  signal(SIGPIPE, SIG_IGN);
  unsetenv("TMUX");
  const std::string src = CAP_BUSY_BENCH_SOURCE_DIR;
  const std::string cast = src + "/tests/fixtures/claude/2.1.330/long_tool_run/session.cast";
  char tmpl[] = "/tmp/agtmux-capbusy-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string sock = dir + "/tmux.sock";
  // The process is named after the agent, so the collector identifies it.
  std::filesystem::create_symlink(CAST_PLAY_BIN, dir + "/claude");
  agg::LocalExecutor ex;
  auto tmux = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {"tmux", "-S", sock, "-f", "/dev/null"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = ex.Run(argv, agg::ExecOptions{});
    return r.ok() ? r->out : std::string();
  };
  const std::string play = dir + "/claude " + cast + " --loop";
  (void)tmux({"new-session", "-d", "-s", "busy", "-x", "120", "-y", "40", play});
  for (int i = 1; i < panes; ++i) (void)tmux({"new-window", "-d", "-t", "busy", play});
  const int64_t server_pid = std::atoll(tmux({"display-message", "-p", "#{pid}"}).c_str());

  const std::vector<std::pair<const char*, core::TimeNs>> settings = {
      {"2 s (baseline)", 2 * core::kNsPerSec}, {"200 ms", 200 * core::kNsPerMs}};
  std::map<core::TimeNs, Figures> figures;
  for (int r = 0; r < rounds; ++r) {
    for (const auto& [name, interval] : settings) {
      uv_loop_t loop;
      uv_loop_init(&loop);
      Sink sink;
      core::RealFileReader files;
      agg::LocalCollectorOptions o;
      o.target_id = "bench";
      o.socket_path = sock;
      o.poller.active_interval = interval;
      o.byte_screens = false;  // the capture interval's cost; byte screens: cap_live_bench
      auto collector = std::make_unique<agg::LocalCollector>(
          &loop, o, sink, core::SystemClock::Get(), files,
          [](std::string_view a) { return detect::CreateAnalyzer(a); });
      collector->Start();
      bench::RunIdle(&loop, 3000);  // the panes found, first captures taken
      Figures& f = figures[interval];
      for (int w = 0; w < 2; ++w) {
        const double c0 = bench::CpuSeconds(RUSAGE_SELF), t0 = bench::ProcCpuSeconds(server_pid);
        const int64_t caps0 = collector->poller().captures(), ch0 = sink.changes;
        const int64_t m0 = core::SystemClock::Get().Monotonic();
        bench::RunIdle(&loop, 5000);
        const double secs = double(core::SystemClock::Get().Monotonic() - m0) / 1e9;
        f.self_cpu.push_back(100.0 * (bench::CpuSeconds(RUSAGE_SELF) - c0) / secs);
        f.tmux_cpu.push_back(100.0 * (bench::ProcCpuSeconds(server_pid) - t0) / secs);
        f.captures_per_s.push_back(double(collector->poller().captures() - caps0) / secs);
        f.changes_per_s.push_back(double(sink.changes - ch0) / secs);
      }
      if (sink.observed < panes)
        std::printf("round %d, %s: only %lld of %d panes observed\n", r, name, (long long)sink.observed, panes);
      collector->Stop();
      collector.reset();
      for (int i = 0; i < 50 && uv_loop_alive(&loop); ++i) uv_run(&loop, UV_RUN_NOWAIT);
      uv_loop_close(&loop);
    }
  }

  std::printf("cap_busy_bench: %d busy claude panes (cast_play --loop of claude/2.1.330/long_tool_run), "
              "%d rounds x 2 windows of 5 s, medians\n", panes, rounds);
  for (const auto& [name, interval] : settings) {
    const Figures& f = figures[interval];
    std::printf("active_interval %-15s collector CPU %6.2f %% of a core   tmux server %6.2f %%   "
                "captures %6.1f/s   state changes %5.1f/s\n",
                name, Median(f.self_cpu), Median(f.tmux_cpu), Median(f.captures_per_s), Median(f.changes_per_s));
  }
  const double base = std::max(Median(figures[2 * core::kNsPerSec].self_cpu), 0.001);
  std::printf("ratio collector CPU 200 ms / 2 s: %.2fx (goal for 20 busy panes: < 5 %% of a core)\n",
              Median(figures[200 * core::kNsPerMs].self_cpu) / base);
  (void)tmux({"kill-server"});
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
