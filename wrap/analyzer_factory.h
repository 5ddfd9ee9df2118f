// The one place the wrapper chooses its analyzer. Switching to the detection
// engine's pattern analyzer is a change to analyzer_factory.cc only.
#pragma once

#include <memory>
#include <string_view>

#include "libagtcore/config.h"
#include "libagtcore/detect/analyzer.h"
#include "libagtcore/detect/pattern_analyzer.h"

namespace agt::wrap {

/// The analyzer for `agent_type` ("claude", "codex", "generic", ...).
/// `own_set`, when given, says whether the agent has a pattern set of its
/// own (else the generic set reads it), and `set_version` is that set's
/// version. `timing` is the analyzer's timing before the pattern set's own
/// [timing] and rules' settle_ms/debounce_ms, which override it.
std::unique_ptr<detect::Analyzer> MakeAnalyzer(std::string_view agent_type,
                                               bool* own_set = nullptr,
                                               std::string* set_version = nullptr,
                                               const detect::AnalyzerOptions& timing = {});

/// config.toml's [wrap] as the analyzer's timing (docs/config.md):
/// running_window, echo_grace, approval_settle, idle_debounce, in whole
/// milliseconds (a finer part is dropped).
detect::AnalyzerOptions AnalyzerTimingFor(const core::WrapConfig& config);

}  // namespace agt::wrap
