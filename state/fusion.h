// Fusion (docs/spec.md §3, docs/precedence.md): how the latest opinions of the four
// sources about one runtime become one pane state. Pure: the engine decides
// which candidates exist and which are fresh; this file decides who wins.
#pragma once

#include <array>
#include <string_view>

#include "state/model.h"
#include "state/order.h"

namespace agt::state {

/// Why a candidate did not win, for `agtmux explain` and the tests.
enum class FusionVerdict : uint8_t {
  kAbsent,         // the source has no opinion
  kStale,          // marked by stale_detected or older than its TTL
  kSuperseded,     // a supersession row (see `rule`) removed it
  kOutranked,      // lost on precedence or on the tie-break
  kWon,
};

/// The rule ids of docs/precedence.md, also written to explain output.
namespace fusion_rule {
inline constexpr std::string_view kHookWaitingClearedByScreen = "fusion.1.screen_clears_hook_wait";
inline constexpr std::string_view kAnsweredWait = "fusion.1b.answered_wait";
inline constexpr std::string_view kScreenSawTurnEnd = "fusion.1c.screen_saw_turn_end";
inline constexpr std::string_view kHookBeatsScreen = "fusion.2.hook_lifecycle";
inline constexpr std::string_view kTurnEndClearsScreenWait = "fusion.3.turn_end_clears_screen_wait";
inline constexpr std::string_view kNewerScreenWins = "fusion.4.newer_screen";
inline constexpr std::string_view kNewerHookWins = "fusion.4b.newer_hook";
inline constexpr std::string_view kPrecedence = "fusion.5.precedence";
}  // namespace fusion_rule

/// What the engine remembers beyond each source's latest opinion, for row 1
/// (docs/precedence.md): whether the screen saw the dialog a hook reports.
/// Both are maxima over the events received, so they do not depend on the
/// order the events arrived in.
struct FusionMarks {
  TimeMark screen_wait;  // the newest screen (wrapper, poller) report of a waiting state
  TimeMark hook_turn;    // the newest hook/notify report of anything but a waiting state
  bool operator==(const FusionMarks&) const = default;
};

struct FusionResult {
  Source winner = Source::kPoller;
  bool has_winner = false;   // false: no fresh candidate survived
  bool any_present = false;  // some candidate exists (fresh or not)
  std::array<FusionVerdict, core::kSourceCount> verdict{};
  std::array<std::string_view, core::kSourceCount> rule{};  // the row that decided each verdict
  /// A hook/notify wait the screen saw answered, with no readable screen
  /// after it (row 1b): it takes part, and is shown, as `running`.
  std::array<bool, core::kSourceCount> answered{};
  /// The winner is a hook/notify wait and the newest fresh screen reading
  /// is a wait too: the pane shows the winner's state with that reading's
  /// waiting detail (row 5: the options are the screen's).
  bool detail_from_screen = false;
  Source detail_source = Source::kWrapper;  // which screen source, when detail_from_screen
};

/// `present[s]` is source s's candidate or nullptr; `fresh[s]` says whether
/// it may take part. Deterministic: the result depends only on the inputs.
FusionResult Fuse(const std::array<const Candidate*, core::kSourceCount>& present,
                  const std::array<bool, core::kSourceCount>& fresh, const FusionMarks& marks = {});

/// The state a candidate takes part with: `running` for an answered wait
/// (FusionResult::answered), else its own.
inline State FusedState(const Candidate& c, bool answered) {
  return answered ? State::kRunning : c.signal.state;
}

/// True for the screen sources (wrapper = PTY, poller = CAP).
constexpr bool IsScreen(Source s) { return s == Source::kWrapper || s == Source::kPoller; }

/// Folds a signal-bearing event, whose effective time is `effective`, into
/// `marks`. Every stored event of a runtime counts, in or out of order, so
/// the engine and the store (state/store/books.cc) fold the same maxima.
/// True when a mark moved.
bool RecordFusionMarks(FusionMarks& marks, const Event& e, TimeNs effective);

}  // namespace agt::state
