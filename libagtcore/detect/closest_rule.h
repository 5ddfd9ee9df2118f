// Which rule of a pattern set came closest to reading a screen it did not
// read (`agtmux patterns doctor`). A rule holds when every part of it holds
// (docs/patterns.md "Conditions"): its regex on its region, its menu, each
// `all` entry, one of its `any` entries, none of its `not` entries. Each of
// those top-level parts is tested on its own, so a rule is scored by how
// many of its parts held, and the parts that failed are what a pattern
// author needs to see.
//
// A failed regex part is a *near miss* when the text is there and only
// where the rule looks is wrong: the regex matches once its anchors (a
// leading `^\s*`, a trailing `$` or `\z`) are dropped, or it matches
// elsewhere on the screen (a dialog whose header sits above the rule's
// `bottom_lines(N)`). That is what a release that moved its UI looks like:
// Claude Code 2.1.330 put "⏸ manual mode on ·" before the footer
// `^\s*esc to interrupt` is anchored on.
//
// Closest: a rule that matches; then the fewest failed parts that are not
// near misses; then the highest share of parts held; then file order.
#pragma once

#include <string>
#include <vector>

#include "libagtcore/detect/analyzer.h"
#include "libagtcore/detect/pattern_set.h"

namespace agt::detect {

struct RuleCloseness {
  const Rule* rule = nullptr;
  int held = 0;                      // top-level parts that held
  int total = 0;                     // top-level parts of the rule
  bool matched = false;              // the whole rule holds on this screen
  int near = 0;                      // failed parts that are near misses
  std::vector<std::string> failed;   // the trace of each part that failed (and why it was near)
};

/// Every rule of `set` scored on the screen of `in`, closest first (see
/// above). Pure.
std::vector<RuleCloseness> RankRules(const PatternSet& set, const AnalyzerInput& in);

}  // namespace agt::detect
