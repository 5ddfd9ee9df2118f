// The pattern analyzer: the real Analyzer behind both PTY (wrapper) and CAP
// (poller) mode. It reads a screen through an agent's pattern set and adds
// timing: output activity, echo grace after input, approval settle, and a
// debounce when running turns into idle.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/analyzer.h"
#include "libagtcore/detect/pattern_library.h"
#include "libagtcore/detect/rule_eval.h"

namespace agt::detect {

/// Timing defaults (docs/spec.md §7 baselines); a pattern file's [timing] overrides them.
struct AnalyzerOptions {
  int activity_ms = 200;    // output this recent means running; 0 = off
  int echo_grace_ms = 300;  // output this soon after input is echo, not activity
  int approval_settle_ms =
      500;                // a waiting rule must hold this long (unless the rule says)
  int debounce_ms = 300;  // running -> idle/completed must hold this long
  /// CAP mode: a changed capture counts as output activity only when this
  /// is set (a sampled screen also changes when the user types or a footer
  /// hint rotates; most agents show an explicit working indicator instead).
  bool cap_activity = false;
  /// The generic evidence under the rules (docs/patterns.md, "Generic
  /// evidence"): screen motion and the generic set's dialogs. Off only to
  /// measure what it costs (bench/detect).
  bool generic_evidence = true;
};

/// What the pattern set alone says about a screen (no timing).
struct ScreenReading {
  std::optional<RuleMatch> best;   // highest precedence, then confidence, then file order
  std::vector<RuleMatch> matches;  // every rule that matched, in file order
  int prompt_row = -1;             // the screen row of the set's [menu] prompt, -1 none
};

/// Reads one screen with `set`, and with `under` (the generic set, whose
/// structural dialog rules run under every agent's own set) where `set`
/// reads no wait or error. Pure.
ScreenReading ReadScreen(const PatternSet& set, const AnalyzerInput& in,
                         const PatternSet* under = nullptr);

/// Every rule of `set` on one screen: matched or not, and the trace of why.
struct RuleExplanation {
  const Rule* rule = nullptr;
  bool matched = false;
  std::vector<std::string> trace;
  std::optional<RuleMatch> match;
};
std::vector<RuleExplanation> ExplainScreen(const PatternSet& set,
                                           const AnalyzerInput& in);

/// The analyzer for `agent_type` using `library` (falls back to the
/// "generic" set for an agent without its own; with neither, every verdict
/// is unknown/unsupported_signal).
std::unique_ptr<Analyzer> CreateAnalyzer(std::shared_ptr<const PatternLibrary> library,
                                         std::string_view agent_type,
                                         const AnalyzerOptions& options = {});

/// The process-wide library: built-in sets plus the user's overrides,
/// loaded on first use (DefaultPatternsDir, DefaultUserPatternsDir).
std::shared_ptr<const PatternLibrary> DefaultLibrary();

}  // namespace agt::detect
