// The send policy (docs/spec.md §14): text about to be typed into an agent pane is
// checked against the [send_policy] block / warn / log patterns of the
// config. A block match refuses the send (unless the caller explicitly
// allows dangerous text); warn and log matches are sent and reported.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/config.h"
#include "libagtcore/detect/regex.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

enum class PolicyLevel { kNone, kLog, kWarn, kBlock };
/// "none" | "log" | "warn" | "block".
std::string_view PolicyLevelName(PolicyLevel level);

/// The strongest rule a text matched.
struct PolicyVerdict {
  PolicyLevel level = PolicyLevel::kNone;
  std::string rule;     // "send_policy.block[0]", empty when none matched
  std::string pattern;  // the rule's regex
};

class SendPolicy {
 public:
  /// Compiles every pattern; E_CONFIG_INVALID naming the list, index and
  /// PCRE2's message for a bad one.
  static core::Result<SendPolicy> Create(const core::SendPolicyConfig& config);
  /// The strongest match: block > warn > log.
  PolicyVerdict Check(std::string_view text) const;

 private:
  struct Rule {
    PolicyLevel level;
    std::string id;
    detect::Regex regex;
  };
  std::vector<Rule> rules_;  // block rules first, then warn, then log
};

}  // namespace agt::agg
