// The local TargetExecutor: tmux by argv through core::RunArgv
// (libagtcore/os/run_argv.h: no shell, stdout and stderr collected, killed
// at the deadline).
#include "aggregator/targets/target_executor.h"

#include "libagtcore/os/run_argv.h"

namespace agt::agg {

core::Result<ExecResult> LocalExecutor::Run(const std::vector<std::string>& argv,
                                            const ExecOptions& options) {
  core::RunOptions o;
  o.timeout = options.timeout;
  o.stdin_data = options.stdin_data;
  o.max_output = options.max_output;
  auto r = core::RunArgv(argv, o);
  if (!r) return r.error();
  return ExecResult{r->exit_code, std::move(r->out), std::move(r->err)};
}

}  // namespace agt::agg
