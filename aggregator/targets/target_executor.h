// TargetExecutor: the one read/write contract for running a tmux command on
// a target, local or over ssh (docs/spec.md §9). A command is an argv, never a shell
// string: the local executor execs it directly, the ssh executor shell-quotes
// every argument because the remote side runs a shell.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libagtcore/base/result.h"
#include "libagtcore/os/run_argv.h"
#include "libagtcore/vocabulary.h"

namespace agt::agg {

/// What a finished command gave back.
// A command's result and options are RunArgv's (libagtcore/os/run_argv.h):
// exit code (128+signal), stdout, stderr; a 5 s timeout (docs/spec.md §9),
// stdin bytes, 16 MiB kept per stream.
using ExecResult = core::RunResult;
using ExecOptions = core::RunOptions;

class TargetExecutor {
 public:
  virtual ~TargetExecutor() = default;
  /// Runs `argv` (argv[0] looked up in PATH). A non-zero exit is a result,
  /// not an error; errors are E_TIMEOUT (killed after options.timeout), E_IO
  /// (could not start) and E_TARGET_UNREACHABLE (ssh: no session).
  virtual core::Result<ExecResult> Run(const std::vector<std::string>& argv,
                                       const ExecOptions& options) = 0;
  /// "local" or "ssh:<host>", for messages.
  virtual std::string Describe() const = 0;
};

/// Runs commands on this machine (core::RunArgv); blocking, for
/// one-off commands (the daemon's hot path goes through the control client).
class LocalExecutor final : public TargetExecutor {
 public:
  core::Result<ExecResult> Run(const std::vector<std::string>& argv,
                               const ExecOptions& options) override;
  std::string Describe() const override { return "local"; }
};

}  // namespace agt::agg
