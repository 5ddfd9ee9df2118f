// RealCollectors: a local target gets a LocalCollector (tmux control mode
// + CAP poller) on its tmux socket; the `host` target's socket is the one
// the user's own `tmux` would reach. An ssh target gets an SshCollector
// (scans over one libssh2 session on the libuv thread pool), so a read
// never blocks on a remote host.
#include "aggregator/daemon/real_collectors.h"

#include "aggregator/federation/collector_remote.h"
#include "aggregator/observe/collector_local.h"
#include "aggregator/observe/collector_ssh.h"
#include "aggregator/targets/tmux_socket.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/detect/analyzer.h"
#include "libagtcore/os/file_reader.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/uv/handles.h"

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
  // The remote tmux is followed by control clients on a second session to
  // the same host (docs/observe.md, "The ssh collector").
  static SshCollectorOptions WithControl(SshCollectorOptions o, const SshOptions& ssh) {
    o.control = ssh;
    return o;
  }

 public:
  RunningSshCollector(uv_loop_t* loop, SshCollectorOptions options, SshOptions ssh, CollectorSink& sink)
      : collector_(loop, WithControl(std::move(options), ssh), std::make_unique<SshExecutor>(ssh), sink,
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

/// An ssh target read through the host's own agtmuxd (federation). Unless
/// the target says `via agtmuxd`, a host without one is observed over ssh
/// like any ssh target from then on (the probe is made once).
class RunningFederation final : public PaneDecorator {
 public:
  RunningFederation(uv_loop_t* loop, RemoteCollectorOptions options, SshCollectorOptions cap, SshOptions ssh,
                    CollectorSink& sink)
      : loop_(loop), cap_(std::move(cap)), ssh_(std::move(ssh)), sink_(sink) {
    switch_ = new uv_timer_t;
    uv_timer_init(loop_, switch_);
    switch_->data = this;
    remote_ = std::make_unique<RemoteCollector>(loop, std::move(options), sink, core::SystemClock::Get(),
                                                [this](const std::string&) { FallBackSoon(); });
    remote_->Start();
  }
  ~RunningFederation() override {
    remote_.reset();
    uv::CloseAndDelete(switch_);
  }
  void Decorate(const std::string&, const std::string&, core::State, core::Source) override {}

 private:
  // Not from inside the remote collector's own callback: on the next turn.
  void FallBackSoon() {
    uv_timer_start(
        switch_,
        [](uv_timer_t* t) {
          auto* self = static_cast<RunningFederation*>(t->data);
          self->remote_.reset();
          self->sink_.OnRemotePanes(self->cap_.target_id, {});
          self->cap_collector_ = std::make_unique<RunningSshCollector>(self->loop_, self->cap_, self->ssh_, self->sink_);
        },
        0, 0);
  }

  uv_loop_t* loop_;
  SshCollectorOptions cap_;
  SshOptions ssh_;
  CollectorSink& sink_;
  uv_timer_t* switch_ = nullptr;
  std::unique_ptr<RemoteCollector> remote_;
  std::unique_ptr<RunningSshCollector> cap_collector_;
};

}  // namespace

CollectorFactory RealCollectors(const core::PollerConfig& poller) { return RealCollectors(poller, ""); }

CollectorFactory RealCollectors(const core::PollerConfig& poller, std::string state_dir) {
  PollerOptions polling;
  polling.active_interval = poller.active_interval;
  polling.idle_interval_max = poller.max_backoff;
  const bool byte_screens = poller.byte_screens;
  return [polling, byte_screens, state_dir](uv_loop_t* loop, const TargetSpec& spec,
            CollectorSink& sink) -> core::Result<std::unique_ptr<PaneDecorator>> {
    if (spec.kind == "ssh") {
      auto ssh = ParseSshTarget(spec.ssh_target);
      if (!ssh) return ssh.error();
      SshCollectorOptions o;
      o.target_id = spec.name;
      o.socket_path = spec.tmux_socket;
      o.poller = polling;
      if (spec.via == "cap")
        return std::unique_ptr<PaneDecorator>(
            std::make_unique<RunningSshCollector>(loop, std::move(o), std::move(*ssh), sink));
      RemoteCollectorOptions r;
      r.link.target_id = spec.name;
      r.link.ssh = *ssh;
      r.link.forced = spec.via == "agtmuxd";
      if (!state_dir.empty()) r.mirror_file = state_dir + "/federation/" + spec.name + ".json";
      return std::unique_ptr<PaneDecorator>(
          std::make_unique<RunningFederation>(loop, std::move(r), std::move(o), std::move(*ssh), sink));
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
