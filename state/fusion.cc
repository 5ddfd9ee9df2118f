// The fusion rules of docs/precedence.md. Rows 1-4 remove candidates that a
// newer, better-placed source has superseded; row 5 ranks what is left by
// state precedence. Every row compares "newer" across sources by time only
// (CompareAcross): sequence numbers of different sources are unrelated.
#include "state/fusion.h"

#include "state/order.h"

namespace agt::state {
namespace {

using core::NeedsAction;

constexpr int Idx(Source s) { return static_cast<int>(s); }


bool Newer(const Candidate& a, const Candidate& b) { return CompareAcross(a.key, b.key) > 0; }

bool IsScreen(Source s) { return s == Source::kWrapper || s == Source::kPoller; }

// Row 5's tie-break between candidates with the same state: which source
// says that state best. A wait is the screen's (it shows the options the
// user picks from, which a hook does not carry); anything else is a
// lifecycle fact the hook knows and the screen only infers.
bool SaysItBest(Source s, State state) { return NeedsAction(state) ? IsScreen(s) : !IsScreen(s); }

// Row 1: a hook/notify waiting_* or error is superseded by a newer screen
// candidate that shows something else (no hook fires when an approval is
// granted; the screen sees the dialog go).
bool Row1(const Candidate& hook, const Candidate& screen) {
  State h = hook.signal.state;
  bool h_sticky = NeedsAction(h) || h == State::kError;
  return h_sticky && Newer(screen, hook) && screen.signal.state != h;
}

// Rows 2 and 3: a screen candidate is superseded by a newer hook/notify
// candidate (lifecycle facts win for what they know), except a
// high-confidence screen waiting_*: hooks lag the dialog, so only a hook that
// ends the turn (completed, idle, error) clears it (row 3).
std::string_view Row2Or3(const Candidate& screen, const Candidate& hook) {
  if (!Newer(hook, screen)) return {};
  State s = screen.signal.state;
  bool screen_sure_wait = NeedsAction(s) && screen.signal.confidence == Confidence::kHigh;
  if (!screen_sure_wait) return fusion_rule::kHookBeatsScreen;
  State h = hook.signal.state;
  if (h == State::kCompleted || h == State::kIdle || h == State::kError) {
    return fusion_rule::kTurnEndClearsScreenWait;
  }
  return {};
}

}  // namespace

FusionResult Fuse(const std::array<const Candidate*, core::kSourceCount>& present,
                  const std::array<bool, core::kSourceCount>& fresh) {
  FusionResult r;
  std::array<bool, core::kSourceCount> alive{};
  for (int i = 0; i < core::kSourceCount; ++i) {
    if (present[i] == nullptr) {
      r.verdict[i] = FusionVerdict::kAbsent;
      continue;
    }
    r.any_present = true;
    if (!fresh[i]) {
      r.verdict[i] = FusionVerdict::kStale;
      continue;
    }
    alive[i] = true;
  }

  // Supersession is decided on the fresh set as it was before any removal,
  // so the rows do not depend on the order they are checked in.
  std::array<std::string_view, core::kSourceCount> superseded{};
  auto pair_rule = [&](Source a, Source b, std::string_view rule) {
    // Among two sources of the same kind the newer wins (rows 4 and 4b).
    if (!alive[Idx(a)] || !alive[Idx(b)]) return;
    if (Newer(*present[Idx(a)], *present[Idx(b)])) {
      superseded[Idx(b)] = rule;
    } else {
      superseded[Idx(a)] = rule;
    }
  };
  pair_rule(Source::kWrapper, Source::kPoller, fusion_rule::kNewerScreenWins);
  pair_rule(Source::kHook, Source::kNotify, fusion_rule::kNewerHookWins);
  for (Source h : {Source::kHook, Source::kNotify}) {
    if (!alive[Idx(h)]) continue;
    for (Source s : {Source::kWrapper, Source::kPoller}) {
      if (!alive[Idx(s)]) continue;
      const Candidate& hc = *present[Idx(h)];
      const Candidate& sc = *present[Idx(s)];
      if (superseded[Idx(h)].empty() && Row1(hc, sc)) {
        superseded[Idx(h)] = fusion_rule::kHookWaitingClearedByScreen;
      }
      if (superseded[Idx(s)].empty()) {
        std::string_view rule = Row2Or3(sc, hc);
        if (!rule.empty()) superseded[Idx(s)] = rule;
      }
    }
  }
  for (int i = 0; i < core::kSourceCount; ++i) {
    if (alive[i] && !superseded[i].empty()) {
      alive[i] = false;
      r.verdict[i] = FusionVerdict::kSuperseded;
      r.rule[i] = superseded[i];
    }
  }

  // Row 5: precedence; equal states go to the source that says it best,
  // then to the newer candidate, then to the source order.
  int best = -1;
  for (int i = 0; i < core::kSourceCount; ++i) {
    if (!alive[i]) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const Candidate& c = *present[i];
    const Candidate& b = *present[best];
    int pc = core::StatePrecedence(c.signal.state);
    int pb = core::StatePrecedence(b.signal.state);
    if (pc != pb) {
      if (pc > pb) best = i;
      continue;
    }
    bool ci = SaysItBest(static_cast<Source>(i), c.signal.state);
    bool bi = SaysItBest(static_cast<Source>(best), b.signal.state);
    if (ci != bi) {
      if (ci) best = i;
      continue;
    }
    if (CompareAcross(c.key, b.key) > 0) best = i;
  }
  for (int i = 0; i < core::kSourceCount; ++i) {
    if (alive[i]) {
      r.verdict[i] = i == best ? FusionVerdict::kWon : FusionVerdict::kOutranked;
      r.rule[i] = fusion_rule::kPrecedence;
    }
  }
  if (best >= 0) {
    r.has_winner = true;
    r.winner = static_cast<Source>(best);
  }
  return r;
}

}  // namespace agt::state
