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

// Row 5's tie-break between candidates with the same state: which source
// says that state best. A wait is the screen's (it shows the options the
// user picks from, which a hook does not carry); anything else is a
// lifecycle fact the hook knows and the screen only infers.
bool SaysItBest(Source s, State state) { return NeedsAction(state) ? IsScreen(s) : !IsScreen(s); }

// Row 1: how a newer screen reading ends a hook/notify waiting_* or error.
// No hook fires when an approval is granted (and a deny by Esc may end the
// turn without a Stop), so the screen is what sees a dialog go. But the
// screen is also what misses a dialog it cannot read (a new agent release),
// and then the hook's wait is the only knowledge there is: a screen reading
// ends a hook wait only when it shows the dialog gone (the screen reported
// a wait after the hook's last non-wait report, i.e. it saw this dialog,
// and reads something else now) or the turn over (idle, completed or error
// with high confidence). An unknown reading is no knowledge: it ends
// nothing by itself, and after a dialog the screen saw go it leaves the
// hook's turn running (row 1b).
//
// Row 1c is the same knowledge for a hook running: when the screen saw a
// dialog after the hooks' last report (one no hook reports, such as Claude
// Code's auto-mode dialogs) and then the turn end, the hooks' running is
// older than what the screen knows, and no hook may follow (a deny).
enum class HookEnd { kNone, kSuperseded, kAnswered, kTurnEnded };

HookEnd Row1(const Candidate& hook, const Candidate& screen, const FusionMarks& marks) {
  const State h = hook.signal.state;
  const State s = screen.signal.state;
  if (!Newer(screen, hook) || s == h) return HookEnd::kNone;
  if (h == State::kError) return s == State::kUnknown ? HookEnd::kNone : HookEnd::kSuperseded;
  const bool saw_dialog = !marks.screen_wait.empty() && marks.hook_turn < marks.screen_wait &&
                          marks.screen_wait < MarkOf(screen.key);
  const bool turn_end = s == State::kIdle || s == State::kCompleted || s == State::kError;
  if (h == State::kRunning) return saw_dialog && turn_end ? HookEnd::kTurnEnded : HookEnd::kNone;
  if (!NeedsAction(h)) return HookEnd::kNone;
  if (NeedsAction(s)) return HookEnd::kSuperseded;  // the screen reads the dialog that is there
  if (s == State::kUnknown) return saw_dialog ? HookEnd::kAnswered : HookEnd::kNone;
  const bool turn_over = turn_end && screen.signal.confidence == Confidence::kHigh;
  return saw_dialog || turn_over ? HookEnd::kSuperseded : HookEnd::kNone;
}

// Rows 2 and 3: a screen candidate is superseded by a newer hook/notify
// candidate (lifecycle facts win for what they know), except a
// high-confidence screen waiting_*: hooks lag the dialog, so only a hook that
// ends the turn (completed, idle, error) clears it (row 3). Row 2a: a hook
// that says unknown (the session ended) leaves the wrapper's reading: the
// wrapper sees its agent exit itself, when it exits.
std::string_view Row2Or3(Source screen_source, const Candidate& screen, const Candidate& hook) {
  if (!Newer(hook, screen)) return {};
  if (hook.signal.state == State::kUnknown && screen_source == Source::kWrapper) return {};
  State s = screen.signal.state;
  bool screen_sure_wait = NeedsAction(s) && screen.signal.confidence == Confidence::kHigh;
  if (!screen_sure_wait) return fusion_rule::kHookBeatsScreen;
  State h = hook.signal.state;
  if (h == State::kCompleted || h == State::kIdle || h == State::kError) {
    return fusion_rule::kTurnEndClearsScreenWait;
  }
  return {};
}

// Row 5's detail: a hook/notify wait that won is shown with the options of
// the dialog the screen reads now (its newest fresh reading, when that is a
// wait too): a hook's PermissionRequest carries none.
void LendScreenDetail(const std::array<const Candidate*, core::kSourceCount>& present,
                      const std::array<bool, core::kSourceCount>& fresh, FusionResult& r) {
  const int w = Idx(r.winner);
  if (IsScreen(r.winner) || r.answered[w] || !NeedsAction(present[w]->signal.state)) return;
  int screen = -1;
  for (Source s : {Source::kWrapper, Source::kPoller}) {
    const int i = Idx(s);
    if (present[i] != nullptr && fresh[i] && (screen < 0 || Newer(*present[i], *present[screen])))
      screen = i;
  }
  if (screen < 0 || !NeedsAction(present[screen]->signal.state)) return;
  r.detail_from_screen = true;
  r.detail_source = static_cast<Source>(screen);
}

}  // namespace

bool RecordFusionMarks(FusionMarks& marks, const Event& e, TimeNs effective) {
  if (!e.signal) return false;
  const TimeMark mark{effective, e.ingested_at};
  const bool wait = NeedsAction(e.signal->state);
  TimeMark* m = nullptr;
  if (IsScreen(e.source) && wait) m = &marks.screen_wait;
  if (!IsScreen(e.source) && !wait) m = &marks.hook_turn;
  if (m == nullptr || !(*m < mark)) return false;
  *m = mark;
  return true;
}

FusionResult Fuse(const std::array<const Candidate*, core::kSourceCount>& present,
                  const std::array<bool, core::kSourceCount>& fresh, const FusionMarks& marks) {
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
      switch (Row1(hc, sc, marks)) {
        case HookEnd::kSuperseded:
          if (superseded[Idx(h)].empty()) superseded[Idx(h)] = fusion_rule::kHookWaitingClearedByScreen;
          break;
        case HookEnd::kTurnEnded:
          if (superseded[Idx(h)].empty()) superseded[Idx(h)] = fusion_rule::kScreenSawTurnEnd;
          break;
        case HookEnd::kAnswered:
          r.answered[Idx(h)] = true;
          break;
        case HookEnd::kNone:
          break;
      }
      if (superseded[Idx(s)].empty()) {
        std::string_view rule = Row2Or3(s, sc, hc);
        if (!rule.empty()) superseded[Idx(s)] = rule;
      }
    }
  }
  for (int i = 0; i < core::kSourceCount; ++i) {
    if (alive[i] && !superseded[i].empty()) {
      r.answered[i] = false;  // another screen source showed what followed
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
    const State cs = FusedState(c, r.answered[i]);
    const State bs = FusedState(b, r.answered[best]);
    int pc = core::StatePrecedence(cs);
    int pb = core::StatePrecedence(bs);
    if (pc != pb) {
      if (pc > pb) best = i;
      continue;
    }
    bool ci = SaysItBest(static_cast<Source>(i), cs);
    bool bi = SaysItBest(static_cast<Source>(best), bs);
    if (ci != bi) {
      if (ci) best = i;
      continue;
    }
    if (CompareAcross(c.key, b.key) > 0) best = i;
  }
  for (int i = 0; i < core::kSourceCount; ++i) {
    if (alive[i]) {
      r.verdict[i] = i == best ? FusionVerdict::kWon : FusionVerdict::kOutranked;
      r.rule[i] = r.answered[i] ? fusion_rule::kAnsweredWait : fusion_rule::kPrecedence;
    }
  }
  if (best >= 0) {
    r.has_winner = true;
    r.winner = static_cast<Source>(best);
    LendScreenDetail(present, fresh, r);
  }
  return r;
}

}  // namespace agt::state
