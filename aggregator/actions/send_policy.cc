// The send policy: compiles the [send_policy] lists once and checks text
// against them, strongest level first, so the first match decides.
#include "aggregator/actions/send_policy.h"

namespace agt::agg {

std::string_view PolicyLevelName(PolicyLevel level) {
  switch (level) {
    case PolicyLevel::kNone: return "none";
    case PolicyLevel::kLog: return "log";
    case PolicyLevel::kWarn: return "warn";
    case PolicyLevel::kBlock: return "block";
  }
  return "none";
}

core::Result<SendPolicy> SendPolicy::Create(const core::SendPolicyConfig& config) {
  SendPolicy p;
  const std::pair<PolicyLevel, const std::vector<std::string>*> lists[] = {
      {PolicyLevel::kBlock, &config.block}, {PolicyLevel::kWarn, &config.warn}, {PolicyLevel::kLog, &config.log}};
  for (const auto& [level, patterns] : lists) {
    for (size_t i = 0; i < patterns->size(); ++i) {
      std::string id = "send_policy." + std::string(PolicyLevelName(level)) + "[" + std::to_string(i) + "]";
      detect::RegexOptions o;
      o.jit = false;  // checked once per send: compiling for JIT is not worth it
      auto re = detect::Regex::Compile((*patterns)[i], o);
      if (!re) return core::MakeError(core::Err::kConfigInvalid, id + ": " + re.error().message);
      p.rules_.push_back(Rule{level, std::move(id), std::move(*re)});
    }
  }
  return p;
}

PolicyVerdict SendPolicy::Check(std::string_view text) const {
  for (const Rule& r : rules_)
    if (r.regex.Search(text)) return PolicyVerdict{r.level, r.id, r.regex.pattern()};
  return {};
}

}  // namespace agt::agg
