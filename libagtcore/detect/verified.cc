// VerifyVersion: the agent's own set (not the generic fallback, which is
// verified on no agent) and its verified_on list, against the version the
// wrapper or the observer found.
#include "libagtcore/detect/verified.h"

#include <algorithm>

namespace agt::detect {

Verification VerifyVersion(const PatternLibrary* library, std::string_view agent_type,
                           std::string_view agent_version) {
  Verification v;
  v.agent_version = std::string(agent_version);
  const PatternSet* set = library != nullptr ? library->Find(agent_type) : nullptr;
  if (set != nullptr) {
    v.set_name = set->name;
    v.set_version = set->version;
    v.verified_on = set->verified_on;
  }
  if (agent_version.empty()) return v;
  v.verified = set != nullptr && std::find(set->verified_on.begin(), set->verified_on.end(),
                                           agent_version) != set->verified_on.end();
  return v;
}

}  // namespace agt::detect
