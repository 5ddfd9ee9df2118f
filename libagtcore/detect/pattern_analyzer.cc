// The analyzer: pattern-set reading plus timing. Screen rules say what the
// agent shows; timing says whether it is still moving. Waiting states win
// over everything (a dialog on screen beats a stale "running"), output
// activity turns a quiet-looking screen into running (Codex hides its
// Working line while answer text streams), and an idle screen that follows
// running is a completed turn. Silence alone never means completed.
#include "libagtcore/detect/pattern_analyzer.h"

#include <map>
#include <mutex>

#include "libagtcore/detect/screen_motion.h"
#include "libagtcore/redact.h"

namespace agt::detect {
namespace {

using core::kNsPerMs;
using core::State;
using core::TimeNs;

// Evidence and waiting detail leave the analyzer redacted (docs/spec.md §3:
// the matched text, redacted). The rules are the core's redaction.toml; when
// they cannot be loaded the evidence is withheld rather than leaked.
const core::Redactor* EvidenceRedactor() {
  static std::once_flag once;
  static std::unique_ptr<core::Redactor> redactor;
  std::call_once(once, [] {
    auto r = core::Redactor::LoadBuiltin();
    if (r.ok()) redactor = std::make_unique<core::Redactor>(std::move(r).value());
  });
  return redactor.get();
}

void RedactSignal(core::Signal* s) {
  const core::Redactor* r = EvidenceRedactor();
  if (r == nullptr) {
    if (!s->evidence.empty())
      s->evidence = "[evidence withheld: redaction rules unavailable]";
    return;
  }
  s->evidence = r->Redact(s->evidence);
  s->detail.details = r->Redact(s->detail.details);
  for (auto& c : s->detail.choices) c = r->Redact(c);
}

bool IsWaiting(State s) {
  return s == State::kWaitingApproval || s == State::kWaitingInput;
}

bool Better(const RuleMatch& a, const RuleMatch& b) {
  int pa = core::StatePrecedence(a.rule->state);
  int pb = core::StatePrecedence(b.rule->state);
  if (pa != pb) return pa > pb;
  return static_cast<int>(a.rule->confidence) > static_cast<int>(b.rule->confidence);
}

core::Signal FromMatch(const RuleMatch& m) {
  core::Signal s;
  s.state = m.rule->state;
  s.reason_code = m.rule->reason_code;
  s.confidence = m.rule->confidence;
  s.rule_id = m.rule->id;
  s.evidence = m.evidence;
  if (IsWaiting(s.state)) s.detail = m.detail;
  return s;
}

class PatternAnalyzer final : public Analyzer {
 public:
  PatternAnalyzer(std::shared_ptr<const PatternLibrary> lib, const PatternSet* set,
                  const AnalyzerOptions& opts)
      : lib_(std::move(lib)), set_(set), opts_(opts) {
    if (set_ != nullptr) {
      const auto& t = set_->timing;
      if (t.activity_ms >= 0) opts_.activity_ms = t.activity_ms;
      if (t.echo_grace_ms >= 0) opts_.echo_grace_ms = t.echo_grace_ms;
      if (t.approval_settle_ms >= 0) opts_.approval_settle_ms = t.approval_settle_ms;
      if (t.debounce_ms >= 0) opts_.debounce_ms = t.debounce_ms;
      if (t.cap_activity >= 0) opts_.cap_activity = t.cap_activity == 1;
    }
    last_.state = State::kUnknown;
    last_.reason_code = "no_rule_matched";
    // The generic set's structural rules run under every agent's own set.
    if (set_ != nullptr && set_->name != "generic" && lib_ && opts_.generic_evidence)
      under_ = lib_->Find("generic");
  }

  Verdict Analyze(const AnalyzerInput& in) override {
    Verdict v;
    if (set_ == nullptr) {
      v.signal.state = State::kUnknown;
      v.signal.reason_code = "unsupported_signal";
      v.signal.rule_id = "no_pattern_set";
      return v;
    }
    ScreenReading reading = ReadScreen(*set_, in, under_);
    // Rows above the agent's input tick; before its input is drawn (a set
    // that knows its prompt row and does not see it) nothing does.
    if (in.screen != nullptr && opts_.generic_evidence)
      motion_.Observe(*in.screen, in.now, reading.prompt_row,
                      !set_->menu.prompt || reading.prompt_row >= 0);
    core::Signal cand = Candidate(reading, in);
    JoinScrolledList(reading, &cand);
    TimeNs recheck = 0;
    Motion(reading, in, &cand, &recheck);

    // Activity ends by itself: look again when its window closes.
    if (cand.rule_id == kActivityRule)
      recheck = in.last_output + opts_.activity_ms * kNsPerMs + 1;

    // An idle screen right after running is a finished turn -- when a
    // screen rule saw the work; output alone (a UI being drawn at startup)
    // is no turn.
    // Ticking is like output: evidence of work, not of a turn a screen rule
    // saw (an agent animates while it starts up too).
    if (cand.state == State::kRunning && cand.rule_id != kActivityRule &&
        cand.rule_id != kTickingRule)
      worked_ = true;
    if (cand.state == State::kIdle && worked_ &&
        (last_.state == State::kRunning || last_.state == State::kCompleted)) {
      const Rule* r = set_->FindRule(cand.rule_id);
      if (r == nullptr || r->completes) cand.state = State::kCompleted;
    }
    if (IsWaiting(cand.state) || cand.state == State::kError ||
        (cand.state == State::kIdle && last_.state != State::kRunning))
      worked_ = false;

    // Waiting rules must hold for their settle time before they are believed.
    if (IsWaiting(cand.state) && cand.state != last_.state) {
      const Rule* r = set_->FindRule(cand.rule_id);
      int settle =
          r != nullptr && r->settle_ms >= 0 ? r->settle_ms : opts_.approval_settle_ms;
      if (pending_rule_ != cand.rule_id) {
        pending_rule_ = cand.rule_id;
        pending_since_ = in.now;
      }
      TimeNs due = pending_since_ + settle * kNsPerMs;
      if (in.now < due) {
        recheck = due;
        cand = last_;
      }
    } else if (!IsWaiting(cand.state)) {
      pending_rule_.clear();
    }

    // Debounce running -> quiet states, so a frame between two spinner
    // updates does not flip the pane to idle.
    bool leaving_running =
        last_.state == State::kRunning &&
        (cand.state == State::kIdle || cand.state == State::kCompleted ||
         cand.state == State::kUnknown);
    // A frame no rule reads does not end a rest state (idle, completed,
    // error) at once either: it is most often a frame drawn half-way (an
    // Ink redraw erases the old frame in one write and draws the new one in
    // the next; a reader's analysis can fall between them). Kept for the
    // debounce, the state before it is still the one the next full frame
    // follows, so the idle prompt after a finished turn still reads
    // `completed`. A wait is not kept: a dialog that is no longer drawn
    // may have been answered, and a wait shown after it is a false one.
    const bool unread = cand.state == State::kUnknown &&
                        cand.reason_code == kNoRuleMatched &&
                        (last_.state == State::kIdle || last_.state == State::kCompleted ||
                         last_.state == State::kError);
    if (leaving_running || unread) {
      if (leave_since_ == 0) leave_since_ = in.now;
      const Rule* r = set_->FindRule(cand.rule_id);
      int debounce =
          r != nullptr && r->debounce_ms >= 0 ? r->debounce_ms : opts_.debounce_ms;
      TimeNs due = leave_since_ + debounce * kNsPerMs;
      if (in.now < due) {
        recheck = recheck == 0 ? due : std::min(recheck, due);
        core::Signal keep = last_;
        cand = keep;
      } else {
        leave_since_ = 0;  // left: the next leaving starts its own wait
      }
    } else {
      leave_since_ = 0;
    }

    last_ = cand;
    v.signal = cand;
    RedactSignal(&v.signal);
    v.recheck_at = recheck > in.now ? recheck : 0;
    return v;
  }

 private:
  static constexpr const char* kActivityRule = "activity.output";
  static constexpr const char* kNoRuleMatched = "no_rule_matched";
  static constexpr const char* kTickingRule = "evidence.ticking";
  static constexpr const char* kStillRule = "evidence.still";
  /// A row that ticked this recently, and still shows, is an agent at work.
  static constexpr TimeNs kTickWindowNs = 2500 * kNsPerMs;
  /// A running verdict below high confidence that the screen has not
  /// moved under for this long gives way (docs/patterns.md, "Generic evidence").
  static constexpr TimeNs kStillNs = 3000 * kNsPerMs;

  // The row that ticked is still on screen, in the same place, and ticked
  // within the window: the agent is animating its working indicator now.
  bool Ticking(const AnalyzerInput& in) const {
    const Tick& t = motion_.tick();
    if (t.at == 0 || in.now - t.at > kTickWindowNs || in.screen == nullptr || t.index < 0 ||
        t.index >= static_cast<int>(in.screen->lines.size()))
      return false;
    const std::string& now = in.screen->lines[static_cast<size_t>(t.index)];
    return now == t.row || FoldTicking(now) == FoldTicking(t.row);
  }

  // Evidence from motion, under the rules: a ticking row turns a quiet
  // verdict (idle, completed, nothing read) into running; a running verdict
  // below high confidence that a still screen contradicts gives way to the
  // idle rule that also matched, else to unknown. Waiting and error stand.
  void Motion(const ScreenReading& reading, const AnalyzerInput& in, core::Signal* cand,
              TimeNs* recheck) const {
    if (in.screen == nullptr || !opts_.generic_evidence) return;
    const bool quiet = cand->state == State::kIdle || cand->state == State::kCompleted ||
                       (cand->state == State::kUnknown && cand->reason_code == kNoRuleMatched);
    if (quiet && Ticking(in)) {
      const std::string row = motion_.tick().row;
      *cand = core::Signal{};
      cand->state = State::kRunning;
      cand->confidence = core::Confidence::kMedium;
      cand->rule_id = kTickingRule;
      cand->evidence = row;
      *recheck = motion_.tick().at + kTickWindowNs + 1;
      return;
    }
    if (cand->state != State::kRunning || cand->confidence == core::Confidence::kHigh ||
        cand->rule_id == kActivityRule || cand->rule_id == kTickingRule || Ticking(in))
      return;
    const TimeNs still_due = motion_.changed_at() + kStillNs;
    if (in.now < still_due) {
      *recheck = still_due + 1;
      return;
    }
    const RuleMatch* idle = nullptr;
    for (const auto& m : reading.matches)
      if (m.rule->state == State::kIdle && (idle == nullptr || Better(m, *idle))) idle = &m;
    const std::string was = cand->rule_id;
    const std::string secs = std::to_string((in.now - motion_.changed_at()) / 1000000000);
    if (idle != nullptr) {
      *cand = FromMatch(*idle);
      cand->evidence += " (" + was + " contradicted: the screen has not moved for " + secs + " s)";
      return;
    }
    *cand = core::Signal{};
    cand->state = State::kUnknown;
    cand->reason_code = "still_screen";
    cand->confidence = core::Confidence::kLow;
    cand->rule_id = kStillRule;
    cand->evidence = was + " contradicted: the screen has not moved for " + secs + " s";
  }

  bool Active(const AnalyzerInput& in) const {
    if (in.last_output <= 0 || opts_.activity_ms <= 0) return false;
    if (in.captured && !opts_.cap_activity) return false;
    if (in.now - in.last_output > opts_.activity_ms * kNsPerMs) return false;
    // Output right after a keystroke is its echo, not the agent working.
    if (in.last_input > 0 && in.last_output >= in.last_input &&
        in.last_output - in.last_input <= opts_.echo_grace_ms * kNsPerMs)
      return false;
    return true;
  }

  // A scrolling list (Gemini's ask_user shows three options at a time, with
  // "▲"/"▼") never shows all of its options at once. While the same question
  // stays open, the options seen in earlier frames are joined by their
  // numbers, so `choices` is the list from option 1 as far as it has been
  // seen and `cursor_position` indexes it (a window alone would report
  // cursor 4 with three choices). A label that changes under its number is
  // another list: start again. A frame no rule reads in between (the menu
  // redrawn for a cursor move, caught half-way) does not end the list: only
  // a screen that reads as something else does.
  void JoinScrolledList(const ScreenReading& reading, core::Signal* cand) {
    if (cand->state == State::kUnknown && cand->reason_code == kNoRuleMatched) return;
    if (!IsWaiting(cand->state)) {
      list_.clear();
      list_key_.clear();
      return;
    }
    const RuleMatch* best = reading.best ? &*reading.best : nullptr;
    if (best == nullptr || best->rule->id != cand->rule_id || best->scrolled_first <= 0)
      return;
    std::vector<std::string>& choices = cand->detail.choices;
    std::string key = cand->rule_id + '\n' + cand->detail.details +
                      (cand->detail.multi_select ? "\nmulti" : "");
    if (key != list_key_) {
      list_.clear();
      list_key_ = key;
    }
    for (size_t i = 0; i < choices.size(); ++i) {
      auto it = list_.find(best->scrolled_first + static_cast<int>(i));
      if (it != list_.end() && it->second != choices[i]) {
        list_.clear();
        break;
      }
    }
    for (size_t i = 0; i < choices.size(); ++i)
      list_[best->scrolled_first + static_cast<int>(i)] = choices[i];
    if (list_.count(1) == 0) return;  // the top was never seen: the window it is
    std::vector<std::string> joined;
    for (int n = 1; list_.count(n) != 0; ++n) joined.push_back(list_[n]);
    const size_t visible_end =
        static_cast<size_t>(best->scrolled_first - 1) + choices.size();
    if (joined.size() >= visible_end) choices = std::move(joined);
  }

  core::Signal Candidate(const ScreenReading& reading, const AnalyzerInput& in) const {
    const RuleMatch* best = reading.best ? &*reading.best : nullptr;
    State bs = best != nullptr ? best->rule->state : State::kUnknown;
    if (best != nullptr &&
        (bs == State::kError || IsWaiting(bs) || bs == State::kRunning))
      return FromMatch(*best);
    if (Active(in)) {
      core::Signal s;
      s.state = State::kRunning;
      s.confidence = core::Confidence::kMedium;
      s.rule_id = kActivityRule;
      s.evidence = "output within " + std::to_string(opts_.activity_ms) + " ms";
      return s;
    }
    if (best != nullptr && best->rule->hold && last_.state != State::kUnknown) {
      core::Signal keep = last_;
      keep.evidence = best->evidence;
      return keep;
    }
    if (best != nullptr && !best->rule->hold) return FromMatch(*best);
    core::Signal s;
    s.state = State::kUnknown;
    s.reason_code = kNoRuleMatched;
    s.confidence = core::Confidence::kLow;
    return s;
  }

  std::shared_ptr<const PatternLibrary> lib_;
  const PatternSet* set_;
  const PatternSet* under_ = nullptr;  // the generic set, under an agent's own
  AnalyzerOptions opts_;
  ScreenMotion motion_;
  core::Signal last_;
  std::string pending_rule_;
  TimeNs pending_since_ = 0;
  TimeNs leave_since_ = 0;
  bool worked_ = false;              // a running rule matched since the last idle/waiting
  std::map<int, std::string> list_;  // a scrolling list's options seen, by number
  std::string list_key_;             // which list: rule, question, multi-select
};

}  // namespace

namespace {

// A numbered menu needs a row where a cursor glyph is followed by an
// option's number ("❯ 1. Yes", "│ ● 2. Allow"); without one in the bottom 24
// rows the generic set's dialog rules cannot hold, and reading it is skipped
// (most frames: the agent working or idle).
bool MayHoldNumberedMenu(const AnalyzerInput& in, const MenuStyle& style) {
  if (in.screen == nullptr) return false;
  const auto& lines = in.screen->lines;
  size_t end = lines.size();  // past the last non-blank row, as bottom_lines(N) counts
  while (end > 0 && lines[end - 1].find_first_not_of(' ') == std::string::npos) --end;
  const size_t from = end > 24 ? end - 24 : 0;
  for (size_t r = from; r < end; ++r) {
    const std::string& row = lines[r];
    for (const auto& g : style.cursor_glyphs) {
      if (g.empty()) continue;
      for (size_t at = row.find(g); at != std::string::npos; at = row.find(g, at + 1)) {
        size_t k = at + g.size();
        while (k < row.size() && row[k] == ' ') ++k;
        if (k < row.size() && row[k] >= '0' && row[k] <= '9') return true;
      }
    }
  }
  return false;
}

// One set's reading; `prompt_row` >= 0 gives the view the prompt row found
// by the set above it.
ScreenReading ReadOne(const PatternSet& set, const AnalyzerInput& in, int prompt_row) {
  ScreenReading out;
  ScreenView view(in, &set.menu);
  if (prompt_row >= 0) view.SetPromptRow(prompt_row);
  for (const auto& rule : set.rules) {
    auto m = MatchRule(rule, set.menu, view);
    if (!m) continue;
    if (!out.best || Better(*m, *out.best)) out.best = *m;
    out.matches.push_back(std::move(*m));
  }
  out.prompt_row = view.PromptRow();
  return out;
}

}  // namespace

ScreenReading ReadScreen(const PatternSet& set, const AnalyzerInput& in,
                         const PatternSet* under) {
  ScreenReading out = ReadOne(set, in, -1);
  // The set under the agent's own (the generic one): its structural dialog
  // rules (a question, numbered options with a cursor, a hint; menu = true)
  // read a dialog no rule of the agent's set knows. They rank below every
  // waiting or error rule of the agent's own set, and above what it says
  // otherwise: a dialog on screen is never read as running or idle.
  if (under != nullptr && under != &set &&
      !(out.best && (IsWaiting(out.best->rule->state) ||
                     out.best->rule->state == State::kError)) &&
      MayHoldNumberedMenu(in, under->menu)) {
    ScreenReading u = ReadOne(*under, in, out.prompt_row);
    if (u.best && IsWaiting(u.best->rule->state) && u.best->rule->cond.menu) {
      out.best = u.best;
      out.matches.push_back(*u.best);
    }
  }
  return out;
}

std::vector<RuleExplanation> ExplainScreen(const PatternSet& set,
                                           const AnalyzerInput& in) {
  std::vector<RuleExplanation> out;
  ScreenView view(in, &set.menu);
  for (const auto& rule : set.rules) {
    RuleExplanation e;
    e.rule = &rule;
    e.match = MatchRule(rule, set.menu, view, &e.trace);
    e.matched = e.match.has_value();
    out.push_back(std::move(e));
  }
  return out;
}

std::unique_ptr<Analyzer> CreateAnalyzer(std::shared_ptr<const PatternLibrary> library,
                                         std::string_view agent_type,
                                         const AnalyzerOptions& options) {
  const PatternSet* set = library ? library->ForAgent(agent_type) : nullptr;
  return std::make_unique<PatternAnalyzer>(std::move(library), set, options);
}

std::shared_ptr<const PatternLibrary> DefaultLibrary() {
  static std::once_flag once;
  static std::shared_ptr<const PatternLibrary> lib;
  std::call_once(once, [] {
    LibraryOptions o;
    o.user_dir = DefaultUserPatternsDir();
    lib = PatternLibrary::Load(o);
  });
  return lib;
}

std::unique_ptr<Analyzer> CreateAnalyzer(std::string_view agent_type) {
  return CreateAnalyzer(DefaultLibrary(), agent_type);
}

}  // namespace agt::detect
