// The one place the wrapper chooses its analyzer. Switching to the detection
// engine's pattern analyzer is a change to analyzer_factory.cc only.
#pragma once

#include <memory>
#include <string_view>

#include "libagtcore/detect/analyzer.h"

namespace agt::wrap {

/// The analyzer for `agent_type` ("claude", "codex", "generic", ...).
/// `own_set`, when given, says whether the agent has a pattern set of its
/// own (else the generic set reads it), and `set_version` is that set's version.
std::unique_ptr<detect::Analyzer> MakeAnalyzer(std::string_view agent_type,
                                               bool* own_set = nullptr,
                                               std::string* set_version = nullptr);

}  // namespace agt::wrap
