// RealCollectors: a local target gets a LocalCollector (tmux control mode
// + CAP poller) on its tmux socket; the `host` target's socket is the one
// the user's own `tmux` would reach. An ssh target gets an SshCollector
// (scans over one libssh2 session on the libuv thread pool), so a read
// never blocks on a remote host.
#include "aggregator/daemon/real_collectors.h"

#include "aggregator/observe/collector_local.h"
#include "aggregator/observe/collector_ssh.h"
#include "aggregator/targets/tmux_socket.h"
#include "libagtcore/clock.h"
#include "libagtcore/detect/analyzer.h"
#include "libagtcore/file_reader.h"
#include "libagtcore/paths.h"

#include <unistd.h>

namespace agt::agg {
namespace {

/// A started LocalCollector as its target's PaneDecorator; stops it when destroyed.
class RunningLocalCollector final : public PaneDecorator {
 public:
  RunningLocalCollector(uv_loop_t* loop, LocalCollectorOptions options, CollectorSink& sink)
      : collector_(loop, std::move(options), sink, core::SystemClock::Get(), files_,
                   [](std::string_view agent) { return detect::CreateAnalyzer(agent); }) {
    collector_.Start();
  }
  ~RunningLocalCollector() override { collector_.Stop(); }
  void Decorate(const std::string&, const std::string& pane_id, core::State state,
                core::Source source) override {
    collector_.SetPaneOptions(pane_id, state, source);
  }

 private:
  core::RealFileReader files_;
  LocalCollector collector_;
};

/// A started SshCollector as its target's PaneDecorator; stops it when destroyed.
class RunningSshCollector final : public PaneDecorator {
 public:
  RunningSshCollector(uv_loop_t* loop, SshCollectorOptions options, SshOptions ssh, CollectorSink& sink)
      : collector_(loop, std::move(options), std::make_unique<SshExecutor>(std::move(ssh)), sink,
                   core::SystemClock::Get(), [](std::string_view agent) { return detect::CreateAnalyzer(agent); }) {
    collector_.Start();
  }
  ~RunningSshCollector() override { collector_.Stop(); }
  // The remote panes' tmux options are not set (one more round trip per
  // change); their state is in the API and the CLI.
  void Decorate(const std::string&, const std::string&, core::State, core::Source) override {}

 private:
  SshCollector collector_;
};

}  // namespace

CollectorFactory RealCollectors(const core::PollerConfig& poller) {
  PollerOptions polling;
  polling.active_interval = poller.active_interval;
  polling.idle_interval_max = poller.max_backoff;
  const bool byte_screens = poller.byte_screens;
  return [polling, byte_screens](uv_loop_t* loop, const TargetSpec& spec,
            CollectorSink& sink) -> core::Result<std::unique_ptr<PaneDecorator>> {
    if (spec.kind == "ssh") {
      auto ssh = ParseSshTarget(spec.ssh_target);
      if (!ssh) return ssh.error();
      SshCollectorOptions o;
      o.target_id = spec.name;
      o.socket_path = spec.tmux_socket;
      o.poller = polling;
      return std::unique_ptr<PaneDecorator>(
          std::make_unique<RunningSshCollector>(loop, std::move(o), std::move(*ssh), sink));
    }
    if (spec.kind != "local")
      return core::MakeError(core::Err::kUnsupported, "target '" + spec.name + "': unknown kind " + spec.kind);
    LocalCollectorOptions o;
    o.target_id = spec.name;
    o.poller = polling;
    o.byte_screens = byte_screens;
    o.socket_path = spec.tmux_socket.empty() ? ResolveHostSocket(core::RealEnv(), getuid()) : spec.tmux_socket;
    return std::unique_ptr<PaneDecorator>(std::make_unique<RunningLocalCollector>(loop, std::move(o), sink));
  };
}

}  // namespace agt::agg
