// Whether a pane's agent runs a version its pattern set was verified on
// (docs/patterns.md `verified_on`). agtmux does not change a pane's state
// for it: `agtmux list`, `agtmux explain` and the API say so, so that a
// drift in the agent's screens is visible the day the agent updates
// (docs/api.md `verified`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/pattern_library.h"

namespace agt::detect {

struct Verification {
  std::string agent_version;             // "" = not known
  std::string set_name;                  // the set that reads this agent ("" = none)
  std::string set_version;
  std::vector<std::string> verified_on;  // the set's list
  /// true: the version is in verified_on; false: it is not (or the agent
  /// has no set of its own); nullopt: the version is not known.
  std::optional<bool> verified;
};

/// `library` may be null (then nothing is verified for a known version).
Verification VerifyVersion(const PatternLibrary* library, std::string_view agent_type,
                           std::string_view agent_version);

}  // namespace agt::detect
