// Chooses the analyzer behind the wrapper's screen pipeline: the detection
// engine's pattern analyzer (libagtcore/detect), which adds activity, echo
// and settle timing to the agent's pattern set and falls back to the generic
// set. wrap/activity_analyzer.h remains for tests and as a reference.
#include "wrap/analyzer_factory.h"

namespace agt::wrap {

std::unique_ptr<detect::Analyzer> MakeAnalyzer(std::string_view agent_type) {
  return detect::CreateAnalyzer(agent_type);
}

}  // namespace agt::wrap
