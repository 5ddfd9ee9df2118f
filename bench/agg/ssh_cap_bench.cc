// Live CAP over ssh (docs/observe.md, "What starts a scan: control clients
// over ssh"): a remote pane's change -> its CAP state_changed event, with
// the ssh collector scanning on its 2 s timer only (the baseline) and with
// control clients over ssh starting the scans, in the same run. Figures,
// not assertions. The "remote" is a loopback sshd (tests/agg/targets/
// sshd_fixture.h) and a private tmux server whose pane replays a recorded
// Claude Code session, switched between an idle screen and an approval
// dialog.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "aggregator/observe/collector_ssh.h"
#include "bench/agg/bench_util.h"
#include "libagtcore/detect/pattern_analyzer.h"
#include "tests/agg/observe/fake_sink.h"
#include "tests/agg/observe/tmux_fixture.h"
#include "tests/agg/targets/sshd_fixture.h"

namespace {

using namespace agt::agg;
namespace testing = agt::agg::testing;
using Clock = std::chrono::steady_clock;
constexpr int kRounds = 8;  // each makes two changes (to the dialog and back)

std::vector<double> Run(bool control) {
  testing::TempDir dir;
  testing::Sshd sshd(dir.path());
  testing::PrivateTmux tmux(dir.path());
  testing::Loop loop;
  testing::FakeSink sink;
  const std::string fx =
      std::string(SSH_CAP_BENCH_SOURCE_DIR) + "/tests/fixtures/claude/2.1.197/shell_approved/snapshots.jsonl";
  const std::string d = dir.path() + "/replay";
  std::filesystem::create_directories(d);
  const int approval = testing::FirstSnapshotWith(fx, "Do you want to proceed?");
  testing::PrepareReplay(fx, d, "claude");
  const std::string pane = tmux.Must({"new-session", "-d", "-s", "agents", "-x", "120", "-y", "40", "-P", "-F",
                                      "#{pane_id}", d + "/claude", d, "0"});
  SshCollectorOptions o;
  o.target_id = "vm";
  o.socket_path = tmux.socket();
  if (control) o.control = sshd.Options();  // scan_interval and the rest: the daemon's defaults
  SshCollector collector(loop.get(), o, std::make_unique<SshExecutor>(sshd.Options()), sink,
                         agt::core::SystemClock::Get(),
                         [](std::string_view agent) { return agt::detect::CreateAnalyzer(agent); });
  collector.Start();
  auto state_after = [&](size_t from, bool approval_wanted) {
    for (size_t i = from; i < sink.events.size(); ++i) {
      const auto& e = sink.events[i];
      if (e.event_type != "state_changed" || e.pane_id != pane || !e.signal) continue;
      if ((e.signal->state == agt::core::State::kWaitingApproval) == approval_wanted) return true;
    }
    return false;
  };
  loop.RunUntil([&] { return state_after(0, false) && (!control || collector.feed_up()); }, 20000);
  loop.RunFor(2500);
  std::vector<double> ms;
  for (int r = 0; r < kRounds; ++r) {
    for (bool to_dialog : {true, false}) {
      const size_t from = sink.events.size();
      const auto t0 = Clock::now();
      testing::ShowScreen(d, to_dialog ? approval : 0);
      if (!loop.RunUntil([&] { return state_after(from, to_dialog); }, 20000)) {
        std::fprintf(stderr, "%s: no state change in 20 s\n", control ? "control" : "timer");
        continue;
      }
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      loop.RunFor(300 + 137 * r % 700);  // changes at different phases of the timer
    }
  }
  std::printf("%s: scans=%lld notified=%lld\n", control ? "control" : "timer", (long long)collector.scans(),
              (long long)collector.notified_scans());
  collector.Stop();
  loop.RunFor(200);
  return ms;
}

}  // namespace

int main() {
  unsetenv("TMUX");
  auto timer = Run(false);
  auto control = Run(true);
  if (timer.empty() || control.empty()) return 1;
  agt::bench::PrintLatencies("pane change -> CAP event, 2 s timer", timer, 44);
  agt::bench::PrintLatencies("pane change -> CAP event, control clients", control, 44);
  return 0;
}
