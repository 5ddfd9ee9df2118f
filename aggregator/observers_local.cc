// RealObservers with the observer's collectors in the build: a local target
// gets a LocalCollector (tmux control mode + CAP poller) on its tmux socket;
// the `host` target's socket is the one the user's own `tmux` would reach.
// ssh targets are listed but not observed yet (E_UNSUPPORTED in their
// health), so a read never blocks on them.
#include "aggregator/collector_local.h"
#include "aggregator/observers.h"
#include "aggregator/tmux_socket.h"
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

}  // namespace

ObserverFactory RealObservers() {
  return [](uv_loop_t* loop, const TargetSpec& spec,
            CollectorSink& sink) -> core::Result<std::unique_ptr<TargetObserver>> {
    if (spec.kind != "local") {
      return core::MakeError(core::Err::kUnsupported,
                             "target '" + spec.name + "': ssh targets are not observed yet");
    }
    LocalCollectorOptions o;
    o.target_id = spec.name;
    o.socket_path = spec.tmux_socket.empty() ? ResolveHostSocket(core::RealEnv(), getuid()) : spec.tmux_socket;
    return std::unique_ptr<TargetObserver>(std::make_unique<LocalObserver>(loop, std::move(o), sink));
  };
}

}  // namespace agt::agg
