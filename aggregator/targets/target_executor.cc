// The local TargetExecutor: tmux by argv through core::RunArgv
// (libagtcore/os/run_argv.h: no shell, stdout and stderr collected, killed
// at the deadline).
#include "aggregator/targets/target_executor.h"

#include "libagtcore/os/run_argv.h"

namespace agt::agg {

core::Result<ExecResult> LocalExecutor::Run(const std::vector<std::string>& argv,
                                            const ExecOptions& options) {
  return core::RunArgv(argv, options);
}

}  // namespace agt::agg
