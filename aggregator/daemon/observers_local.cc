// RealObservers with the observer's collectors in the build: a local target
// gets a LocalCollector (tmux control mode + CAP poller) on its tmux socket;
// the `host` target's socket is the one the user's own `tmux` would reach.
// An ssh target gets an SshCollector (scans over one libssh2 session on the
// libuv thread pool), so a read never blocks on a remote host.
#include "aggregator/observe/collector_local.h"
#include "aggregator/observe/collector_ssh.h"
#include "aggregator/daemon/observers.h"
#include "aggregator/targets/tmux_socket.h"
#include "libagtcore/clock.h"
#include "libagtcore/detect/analyzer.h"
#include "libagtcore/net/file_reader.h"
#include "libagtcore/paths.h"

#include <unistd.h>

namespace agt::agg {
namespace {

class LocalObserver final : public TargetObserver {
 public:
  LocalObserver(uv_loop_t* loop, LocalCollectorOptions options, CollectorSink& sink)
      : collector_(loop, std::move(options), sink, core::SystemClock::Get(), files_,
                   [](std::string_view agent) { return detect::CreateAnalyzer(agent); }) {
    collector_.Start();
  }
  ~LocalObserver() override { collector_.Stop(); }
  void Decorate(const std::string&, const std::string& pane_id, core::State state,
                core::Source source) override {
    collector_.SetPaneOptions(pane_id, state, source);
  }

 private:
  net::RealFileReader files_;
  LocalCollector collector_;
};

class SshObserver final : public TargetObserver {
 public:
  SshObserver(uv_loop_t* loop, SshCollectorOptions options, SshOptions ssh, CollectorSink& sink)
      : collector_(loop, std::move(options), std::make_unique<SshExecutor>(std::move(ssh)), sink,
                   core::SystemClock::Get(), [](std::string_view agent) { return detect::CreateAnalyzer(agent); }) {
    collector_.Start();
  }
  ~SshObserver() override { collector_.Stop(); }
  // The remote panes' tmux options are not set (one more round trip per
  // change); their state is in the API and the CLI.
  void Decorate(const std::string&, const std::string&, core::State, core::Source) override {}

 private:
  SshCollector collector_;
};

}  // namespace

ObserverFactory RealObservers() {
  return [](uv_loop_t* loop, const TargetSpec& spec,
            CollectorSink& sink) -> core::Result<std::unique_ptr<TargetObserver>> {
    if (spec.kind == "ssh") {
      auto ssh = ParseSshTarget(spec.ssh_target);
      if (!ssh) return ssh.error();
      SshCollectorOptions o;
      o.target_id = spec.name;
      o.socket_path = spec.tmux_socket;
      return std::unique_ptr<TargetObserver>(std::make_unique<SshObserver>(loop, std::move(o), std::move(*ssh), sink));
    }
    if (spec.kind != "local")
      return core::MakeError(core::Err::kUnsupported, "target '" + spec.name + "': unknown kind " + spec.kind);
    LocalCollectorOptions o;
    o.target_id = spec.name;
    o.socket_path = spec.tmux_socket.empty() ? ResolveHostSocket(core::RealEnv(), getuid()) : spec.tmux_socket;
    return std::unique_ptr<TargetObserver>(std::make_unique<LocalObserver>(loop, std::move(o), sink));
  };
}

}  // namespace agt::agg
