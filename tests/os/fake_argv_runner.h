// A core::ArgvRunner for unit tests: records every argv and its options and
// answers from a script, so code that runs programs is tested in-process.
#pragma once

#include <string>
#include <vector>

#include "libagtcore/os/run_argv.h"

namespace agt::test {

class FakeArgvRunner final : public core::ArgvRunner {
 public:
  std::vector<std::vector<std::string>> calls;
  std::vector<core::RunOptions> options;
  /// Answers in order; when exhausted, `fallback` answers.
  std::vector<core::Result<core::RunResult>> script;
  core::Result<core::RunResult> fallback = core::RunResult{};

  core::Result<core::RunResult> Run(const std::vector<std::string>& argv,
                                    const core::RunOptions& o) override {
    calls.push_back(argv);
    options.push_back(o);
    if (calls.size() <= script.size()) return script[calls.size() - 1];
    return fallback;
  }
};

}  // namespace agt::test
