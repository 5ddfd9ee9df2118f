// MakeDaemonWorld (see daemon_action_world.h). Only local targets have an
// executor: an action on an ssh target is refused as unsupported by the
// service. Sleep runs on an action's worker thread (never on the loop),
// so it may simply sleep.
#include "aggregator/actions/daemon_action_world.h"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace agt::agg {
namespace {

class DaemonWorld final : public ActionWorld {
 public:
  explicit DaemonWorld(DaemonCore* core) : core_(core) {}
  std::vector<PaneRow> Panes() const override { return core_->Rows(); }
  const TargetStatus* FindTarget(const std::string& name) const override { return core_->targets().Find(name); }
  TargetExecutor* Executor(const TargetStatus& target) override {
    return target.spec.kind == "local" ? &local_ : nullptr;
  }
  core::Status Signal(int64_t pid, int sig) override {
    if (pid <= 1) return core::MakeError(core::Err::kPidUnavailable, "refusing to signal pid " + std::to_string(pid));
    if (::kill(static_cast<pid_t>(pid), sig) != 0)
      return core::MakeError(core::Err::kIo, "kill " + std::to_string(pid) + ": " + std::strerror(errno));
    return core::Ok();
  }
  void Sleep(core::TimeNs d) override { std::this_thread::sleep_for(std::chrono::nanoseconds(d)); }

 private:
  DaemonCore* core_;
  LocalExecutor local_;
};

}  // namespace

std::unique_ptr<ActionWorld> MakeDaemonWorld(DaemonCore* core) { return std::make_unique<DaemonWorld>(core); }

}  // namespace agt::agg
