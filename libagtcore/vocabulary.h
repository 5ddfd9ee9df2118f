// The canonical vocabulary every part of agtmux shares: the seven pane
// states and their precedence, the four event sources and the column each
// one shows as, confidence levels, target health, and the detail a waiting
// state carries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Every event and signal is stamped in TimeNs; its users get it from here.
#include "libagtcore/base/time_ns.h"

namespace agt::core {

/// Canonical states (docs/spec.md §4). Declared in precedence order, highest first.
enum class State : uint8_t {
  kError,
  kWaitingApproval,
  kWaitingInput,
  kRunning,
  kCompleted,
  kIdle,
  kUnknown,
};
constexpr int kStateCount = 7;

/// Wire name: "error", "waiting_approval", ...
std::string_view StateName(State s);
/// Inverse of StateName; nullopt for anything else.
std::optional<State> ParseState(std::string_view name);
/// "unknown state 'waiting' (did you mean waiting_approval or
/// waiting_input?); the states: error, waiting_approval, ...": the error
/// text for a name ParseState refused.
std::string UnknownStateMessage(std::string_view name);
/// Higher number = higher precedence (error = 6 ... unknown = 0).
int StatePrecedence(State s);
/// True for waiting_approval and waiting_input.
bool NeedsAction(State s);

/// Where an event came from (envelope `source`).
enum class Source : uint8_t { kHook, kNotify, kWrapper, kPoller };
constexpr int kSourceCount = 4;

std::string_view SourceName(Source s);  // "hook", "notify", "wrapper", "poller"
std::optional<Source> ParseSource(std::string_view name);
/// The SOURCE column: wrapper -> "PTY", hook/notify -> "HOOK", poller -> "CAP".
std::string_view SourceColumn(Source s);

enum class Confidence : uint8_t { kLow, kMedium, kHigh };
std::string_view ConfidenceName(Confidence c);  // "low", "medium", "high"
std::optional<Confidence> ParseConfidence(std::string_view name);

/// A target's health (docs/spec.md#target-health): the collectors decide
/// it, target_health_changed events carry its name, the engine keeps it,
/// the store and the API show it.
enum class TargetHealth : uint8_t { kOk, kDegraded, kDown };
std::string_view TargetHealthName(TargetHealth h);  // "ok", "degraded", "down"
std::optional<TargetHealth> ParseTargetHealth(std::string_view name);

/// What a waiting state is waiting on (docs/spec.md §4).
struct WaitingDetail {
  std::string approval_type;         // shell, file_edit, mcp, network, plan, user_question, ...
  std::string details;               // the question or the command shown
  std::vector<std::string> choices;  // option labels, in screen order
  bool multi_select = false;
  int cursor_position = 0;           // 1-based; 0 = on no option, or unknown
  bool operator==(const WaitingDetail&) const = default;
  bool empty() const { return approval_type.empty() && details.empty() && choices.empty(); }
};

/// One source's opinion of a pane's state, with its evidence (docs/spec.md §3).
struct Signal {
  State state = State::kUnknown;
  std::string reason_code;            // required when state == unknown
  Confidence confidence = Confidence::kLow;
  std::string rule_id;                // pattern rule or hook event that decided
  std::string evidence;               // the matched line, redacted
  WaitingDetail detail;               // for waiting states
  bool operator==(const Signal&) const = default;
};

}  // namespace agt::core
