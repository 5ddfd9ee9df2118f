// The CAP poller: decides when an unwrapped agent pane is captured, feeds
// the capture to the same analyzer the wrapper uses, and sends state_changed
// (source poller) only when the verdict changed. It does no I/O itself: the
// collector asks TakeDueCaptures(), runs capture-pane through its control
// client, and hands the text back to OnCapture(). So the scheduling rules
// are tested with a fake clock and a fake sink.
//
// Scheduling: a pane is captured only after a change mark (%output for it,
// or its window's activity advanced) and no sooner than its interval after
// the previous capture. The interval starts at active_interval (200 ms) and
// doubles, up to idle_interval_max (30 s), each time a marked capture shows
// the same text as before (a pane that keeps producing invisible output);
// a capture that shows new text resets it. The capture waits burst_settle
// after the first mark, so that a redraw written in several pieces (clear,
// then the frame) is read whole: otherwise the first piece would be
// captured at once and the rest only an interval later. Analyzer recheck_at deadlines
// re-run the analyzer on the last screen without capturing again.
//
// Ownership (CollectorSink::OwnerOf, docs/observe.md "Who owns a pane"): a
// pane the wrapper reads is neither captured nor reported. While the hooks
// report the lifecycle (PaneOwner::kHooks), the pane is captured as any
// other, but only a wait is reported, and after a reported wait every
// change up to a readable verdict that is no wait (the dialog went, and
// what followed); any other verdict is the hooks' to report.
//
// Self-diagnosis: a screen that stays unknown/no_rule_matched for 3 s, or
// that contradicts the hooks (CollectorSink::HookOpinion: a wait against no
// wait, work against rest) for 3 s, is handed to CollectorSink::KeepScreen,
// once per such spell (docs/patterns.md "When a screen is not recognised").
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aggregator/observe/collector.h"
#include "libagtcore/detect/analyzer.h"

namespace agt::agg {

/// Makes the analyzer for an agent type (detect::CreateAnalyzer in the
/// daemon). May return null: the pane is then not analysed.
using AnalyzerFactory = std::function<std::unique_ptr<detect::Analyzer>(std::string_view agent_type)>;

struct PollerOptions {
  TimeNs active_interval = 200 * core::kNsPerMs;
  TimeNs idle_interval_max = 30 * core::kNsPerSec;
  TimeNs burst_settle = 50 * core::kNsPerMs;
  /// How long a pane a fresher source owns waits before it is asked again.
  TimeNs owned_recheck = 1 * core::kNsPerSec;
  TimeNs keep_after = 3 * core::kNsPerSec;  // an unreadable or contradicting screen is kept after this
};

/// A pane the poller should watch, as the collector last saw it.
struct PolledPane {
  std::string pane_id;
  std::string agent_type;
  int64_t agent_pid = 0;
  std::string title;
  int rows = 0;
  int cols = 0;
  int cursor_row = 0;
  int cursor_col = 0;
  bool alt_screen = false;
};

class Poller {
 public:
  Poller(std::string target_id, std::string instance, PollerOptions options,
         AnalyzerFactory factory, CollectorSink& sink);

  /// Replaces the watched set. New panes (or a new agent pid in a pane) start
  /// marked, so they are captured once; panes not listed are forgotten.
  void SetPanes(const std::vector<PolledPane>& panes, TimeNs now);
  /// The pane's content may have changed.
  void MarkChanged(const std::string& pane_id, TimeNs now);
  /// Panes to capture now; they are in flight until OnCapture/CaptureFailed.
  /// Panes a fresher source owns are skipped (they keep their mark).
  std::vector<std::string> TakeDueCaptures(TimeNs now);
  /// A capture-pane result (`capture-pane -p` text, rows separated by '\n').
  void OnCapture(const std::string& pane_id, std::string_view text, TimeNs now);
  void CaptureFailed(const std::string& pane_id);
  /// Runs the analyzer again for panes whose recheck_at has come.
  void Tick(TimeNs now);
  /// The earliest time something is due (a capture or a recheck); 0 = none.
  /// Every deadline it returns is consumed by TakeDueCaptures or Tick when
  /// it has come (so a caller's timer never fires again for the same one).
  TimeNs NextDeadline() const;

  int64_t captures() const { return captures_; }
  int64_t analyses() const { return analyses_; }
  bool Watching(const std::string& pane_id) const { return panes_.count(pane_id) != 0; }
  /// When the pane was last captured (0 = never or not watched).
  TimeNs LastCapture(const std::string& pane_id) const {
    auto it = panes_.find(pane_id);
    return it == panes_.end() ? 0 : it->second.last_capture;
  }

 private:
  struct Pane {
    PolledPane info;
    std::unique_ptr<detect::Analyzer> analyzer;
    bool marked = true;
    TimeNs marked_at = 0;      // the first mark since the last capture
    bool in_flight = false;
    TimeNs last_capture = 0;   // 0 = never
    TimeNs interval = 0;
    TimeNs last_change = 0;    // when the captured text last differed
    bool have_screen = false;
    std::string text;          // the last captured text
    detect::Screen screen;
    TimeNs recheck_at = 0;
    TimeNs owned_until = 0;    // a fresher source owned it; ask again then
    std::optional<core::Signal> emitted;  // last verdict sent
    bool dialog_open = false;  // the last wait sent has not been followed by a readable non-wait
    detect::StuckUnknownWatch unreadable;
    TimeNs contra_since = 0;   // start of the current disagreement with the hooks, 0 = none
    std::string contra_key;    // what disagrees (hook state and rule, screen state)
    bool contra_kept = false;
  };
  /// The diagnosis of one analysis (see the header comment); returns when
  /// to look again (0 = nothing pending).
  TimeNs Diagnose(const std::string& pane_id, Pane& p, const core::Signal& verdict, TimeNs now);
  detect::KeptScreen Kept(const std::string& pane_id, const Pane& p, const core::Signal& verdict,
                          std::string_view reason, TimeNs now) const;
  void Analyze(const std::string& pane_id, Pane& p, TimeNs now);
  /// When a marked pane may be captured: its interval after the last
  /// capture, and burst_settle after its first mark.
  TimeNs DueAt(const Pane& p) const;

  std::string target_id_;
  std::string instance_;
  PollerOptions options_;
  AnalyzerFactory factory_;
  CollectorSink& sink_;
  std::map<std::string, Pane> panes_;
  int64_t captures_ = 0;
  int64_t analyses_ = 0;
  int64_t seq_ = 0;
};

/// True when two verdicts differ in what a user sees (state, reason, rule,
/// confidence, waiting detail); the evidence text alone does not count.
bool VerdictChanged(const core::Signal& a, const core::Signal& b);

/// True when the screen and the hooks disagree in kind: one says a dialog
/// waits and the other not, or one says the agent works and the other that
/// it rests (idle, completed). Unknown and error on either side never do.
bool ContradictsHooks(const core::Signal& hook, const core::Signal& screen);

}  // namespace agt::agg
