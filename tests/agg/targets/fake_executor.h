// agg::FakeExecutor: a TargetExecutor for unit tests that records every argv
// and answers from a script.
#pragma once

#include <string>
#include <vector>

#include "aggregator/targets/target_executor.h"

namespace agt::agg {

/// Records every argv and answers from a script.
class FakeExecutor final : public TargetExecutor {
 public:
  std::vector<std::vector<std::string>> calls;
  /// Answers in order; when exhausted, `fallback` answers.
  std::vector<core::Result<ExecResult>> script;
  core::Result<ExecResult> fallback = ExecResult{};
  core::Result<ExecResult> Run(const std::vector<std::string>& argv, const ExecOptions&) override {
    calls.push_back(argv);
    if (calls.size() <= script.size()) return script[calls.size() - 1];
    return fallback;
  }
  std::string Describe() const override { return "fake"; }
};

}  // namespace agt::agg
