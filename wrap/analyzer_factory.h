// The one place the wrapper chooses its analyzer. Switching to the detection
// engine's pattern analyzer is a change to analyzer_factory.cc only.
#pragma once

#include <memory>
#include <string_view>

#include "libagtcore/detect/analyzer.h"

namespace agt::wrap {

/// The analyzer for `agent_type` ("claude", "codex", "generic", ...).
/// `set_version`, when given, receives the version of the pattern set in
/// force ("" when there is none).
std::unique_ptr<detect::Analyzer> MakeAnalyzer(std::string_view agent_type,
                                               std::string* set_version = nullptr);

}  // namespace agt::wrap
