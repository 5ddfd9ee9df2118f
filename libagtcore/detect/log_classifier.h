// Log analysis for `view-output --analyze`: classifies captured output
// with the success / failure / warning rules of patterns/analyze.toml
// (build and test failures, git conflicts, panics, OOM, ...).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/regex.h"
#include "libagtcore/base/result.h"

namespace agt::detect {

enum class LogClass { kUnknown, kSuccess, kWarning, kFailure };
std::string_view LogClassName(LogClass c);  // "unknown", "success", "warning", "failure"

struct LogRule {
  std::string id;
  LogClass cls = LogClass::kUnknown;
  std::shared_ptr<const Regex> regex;
};

struct LogRules {
  std::string path;
  std::vector<LogRule> rules;
};

/// Parses analyze.toml; errors name the file, line, rule id and field.
core::Result<LogRules> ParseLogRules(std::string_view text, std::string_view path);

struct LogFinding {
  std::string rule_id;
  LogClass cls = LogClass::kUnknown;
  int line_no = 0;  // 1-based
  std::string line;
};

struct LogReport {
  LogClass verdict = LogClass::kUnknown;  // failure > warning > success > unknown
  std::vector<LogFinding> findings;       // one per matching line and rule, in text order
};

/// Classifies `text` line by line.
LogReport ClassifyLog(const LogRules& rules, std::string_view text);

}  // namespace agt::detect
