// Names and precedence of the canonical states, sources, confidences and
// target health.
// Keeping them in one table per enum keeps the wire names in one place.
#include "libagtcore/vocabulary.h"

#include <array>
#include <vector>

#include "libagtcore/base/suggest.h"

namespace agt::core {
namespace {

constexpr std::array<std::string_view, kStateCount> kStateNames = {
    "error", "waiting_approval", "waiting_input", "running",
    "completed", "idle", "unknown"};
constexpr std::array<std::string_view, kSourceCount> kSourceNames = {
    "hook", "notify", "wrapper", "poller"};
constexpr std::array<std::string_view, kSourceCount> kSourceColumns = {
    "HOOK", "HOOK", "PTY", "CAP"};
constexpr std::array<std::string_view, 3> kConfidenceNames = {"low", "medium",
                                                              "high"};
constexpr std::array<std::string_view, 3> kTargetHealthNames = {"ok", "degraded", "down"};

}  // namespace

std::string_view StateName(State s) {
  return kStateNames[static_cast<size_t>(s)];
}

std::optional<State> ParseState(std::string_view name) {
  for (size_t i = 0; i < kStateNames.size(); ++i)
    if (kStateNames[i] == name) return static_cast<State>(i);
  return std::nullopt;
}

std::string UnknownStateMessage(std::string_view name) {
  std::vector<std::string_view> names(kStateNames.begin(), kStateNames.end());
  std::string near;
  if (auto close = ClosestName(name, names)) near = *close;
  if (near.empty() && name.size() >= 2) {  // "waiting": the states it begins
    for (std::string_view n : names)
      if (n.substr(0, name.size()) == name) near += (near.empty() ? "" : " or ") + std::string(n);
  }
  std::string msg = "unknown state '" + std::string(name) + "'";
  if (!near.empty()) msg += " (did you mean " + near + "?)";
  msg += "; the states:";
  for (size_t i = 0; i < names.size(); ++i) msg += (i ? ", " : " ") + std::string(names[i]);
  return msg;
}

int StatePrecedence(State s) {
  return kStateCount - 1 - static_cast<int>(s);
}

bool NeedsAction(State s) {
  return s == State::kWaitingApproval || s == State::kWaitingInput;
}

std::string_view SourceName(Source s) {
  return kSourceNames[static_cast<size_t>(s)];
}

std::optional<Source> ParseSource(std::string_view name) {
  for (size_t i = 0; i < kSourceNames.size(); ++i)
    if (kSourceNames[i] == name) return static_cast<Source>(i);
  return std::nullopt;
}

std::string_view SourceColumn(Source s) {
  return kSourceColumns[static_cast<size_t>(s)];
}

std::string_view ConfidenceName(Confidence c) {
  return kConfidenceNames[static_cast<size_t>(c)];
}

std::optional<Confidence> ParseConfidence(std::string_view name) {
  for (size_t i = 0; i < kConfidenceNames.size(); ++i)
    if (kConfidenceNames[i] == name) return static_cast<Confidence>(i);
  return std::nullopt;
}

std::string_view TargetHealthName(TargetHealth h) {
  return kTargetHealthNames[static_cast<size_t>(h)];
}

std::optional<TargetHealth> ParseTargetHealth(std::string_view name) {
  for (size_t i = 0; i < kTargetHealthNames.size(); ++i)
    if (kTargetHealthNames[i] == name) return static_cast<TargetHealth>(i);
  return std::nullopt;
}

}  // namespace agt::core
