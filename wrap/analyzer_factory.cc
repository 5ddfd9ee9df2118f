// Chooses the analyzer behind the wrapper's screen pipeline: the detection
// engine's pattern analyzer (libagtcore/detect), which adds activity, echo
// and settle timing to the agent's pattern set and falls back to the generic
// set. wrap/activity_analyzer.h remains for tests and as a reference.
//
// A wrapper runs one agent for its whole life, so it compiles only that
// agent's set (or the generic one), not the whole library the daemon needs:
// every set compiled is heap and JIT code the wrapper would carry for
// nothing. LibraryOptions::only keeps the built-in + user merge of
// PatternLibrary::Load, so the set in force is the same one.
#include "wrap/analyzer_factory.h"

#include <string>

#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/detect/pattern_library.h"

namespace agt::wrap {

std::unique_ptr<detect::Analyzer> MakeAnalyzer(std::string_view agent_type, bool* own_set,
                                               std::string* set_version,
                                               const detect::AnalyzerOptions& timing) {
  detect::LibraryOptions options;
  options.user_dir = detect::DefaultUserPatternsDir();
  // The generic set runs under the agent's own (its structural dialog rules).
  options.only = {std::string(agent_type), "generic"};
  auto lib = detect::PatternLibrary::Load(options);
  if (lib->Find(agent_type) == nullptr) {
    options.only = {"generic"};
    lib = detect::PatternLibrary::Load(options);
  }
  const detect::PatternSet* own = lib->Find(agent_type);
  if (own_set != nullptr) *own_set = own != nullptr;
  if (set_version != nullptr) *set_version = own != nullptr ? own->version : "";
  return detect::CreateAnalyzer(std::move(lib), agent_type, timing);
}

detect::AnalyzerOptions AnalyzerTimingFor(const core::WrapConfig& config) {
  auto ms = [](core::TimeNs d) { return static_cast<int>(d / core::kNsPerMs); };
  detect::AnalyzerOptions o;
  o.activity_ms = ms(config.running_window);
  o.echo_grace_ms = ms(config.echo_grace);
  o.approval_settle_ms = ms(config.approval_settle);
  o.debounce_ms = ms(config.idle_debounce);
  return o;
}

}  // namespace agt::wrap
