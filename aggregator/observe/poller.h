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
// Byte screens (options.byte_screens, the local collector): a pane whose
// %output bytes all reach the collector (SetBytePanes) is read as the
// wrapper reads its child: a libvterm screen (libagtcore/screen/) fed with
// the bytes, analysed 30 ms after each burst and at the analyzer's recheck
// times. A seed capture (cursor, size, scroll region and the screen with its
// attributes, pane_seed.h) starts it, and the same capture is its check: at
// most every check_interval while output flows, doubling up to
// idle_interval_max while a check finds the screen right; a check that finds
// it different replaces it (counted in resyncs()). A resize re-seeds at once.
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

#include <set>

#include "aggregator/observe/collector.h"
#include "aggregator/observe/pane_seed.h"
#include "libagtcore/detect/analyzer.h"
#include "libagtcore/screen/screen_pipeline.h"

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
  /// Byte screens (see the header comment); off for a collector that has no
  /// %output (ssh).
  bool byte_screens = false;
  /// How often, at most, a byte screen is checked against a capture while
  /// its pane writes.
  TimeNs check_interval = 2 * core::kNsPerSec;
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
  /// The panes whose every %output byte reaches the collector, through one
  /// connection that was already attached at the previous topology read.
  /// Only they get byte screens (with byte_screens on); a pane not listed
  /// loses its screen and is captured as before.
  void SetBytePanes(const std::set<std::string>& panes, TimeNs now);
  /// %output bytes of a pane (decoded), in the order tmux wrote them: fed to
  /// its byte screen when it has one; the pane is marked changed either way.
  void OnOutput(const std::string& pane_id, std::string_view bytes, TimeNs now);
  /// Bytes of the pane may have been lost or misread: its screen is seeded
  /// again at once.
  void Resync(const std::string& pane_id, TimeNs now);
  /// True when the pane's next capture is a seed capture (SeedCommand, then
  /// OnSeed): it has or is to get a byte screen.
  bool WantsSeed(const std::string& pane_id) const;
  /// The reply to a seed capture.
  void OnSeed(const std::string& pane_id, const PaneSeed& seed, TimeNs now);
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
  /// Byte screens started from a capture, checks that found one different
  /// (and replaced it), and analyses of byte screens.
  int64_t seeds() const { return seeds_; }
  int64_t resyncs() const { return resyncs_; }
  int64_t byte_analyses() const { return byte_analyses_; }
  /// True when the pane is read from its bytes now.
  bool ByteFed(const std::string& pane_id) const { return ByteScreen(pane_id) != nullptr; }
  /// The byte screen as its last analysis read it; null when the pane has none.
  const detect::Screen* ByteScreen(const std::string& pane_id) const {
    auto it = panes_.find(pane_id);
    return it == panes_.end() || !it->second.pipe ? nullptr : &it->second.pipe->analysed();
  }
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
    bool bytes_ok = false;     // its %output reaches the collector whole (SetBytePanes)
    bool force_seed = false;   // seed at once (resize, lost bytes), not at the check interval
    bool seed_forced = false;  // the seed in flight was forced; a loss after it sets force_seed again
    std::unique_ptr<screen::ScreenPipeline> pipe;  // the byte screen, once seeded
  };
  /// The diagnosis of one analysis (see the header comment); returns when
  /// to look again (0 = nothing pending).
  TimeNs Diagnose(const std::string& pane_id, Pane& p, const core::Signal& verdict, TimeNs now);
  detect::KeptScreen Kept(const std::string& pane_id, const Pane& p, const core::Signal& verdict,
                          std::string_view reason, TimeNs now) const;
  void Analyze(const std::string& pane_id, Pane& p, TimeNs now);
  /// What follows an analysis (either kind): ownership, diagnosis, the event.
  void Judge(const std::string& pane_id, Pane& p, const detect::Verdict& v, TimeNs now);
  /// Classic analysis of p.screen (a capture).
  void AnalyzeCapture(const std::string& pane_id, Pane& p, TimeNs now);
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
  int64_t seeds_ = 0;
  int64_t resyncs_ = 0;
  int64_t byte_analyses_ = 0;
};

/// True when two verdicts differ in what a user sees (state, reason, rule,
/// confidence, waiting detail); the evidence text alone does not count.
bool VerdictChanged(const core::Signal& a, const core::Signal& b);

/// True when the screen and the hooks disagree in kind: one says a dialog
/// waits and the other not, or one says the agent works and the other that
/// it rests (idle, completed). Unknown and error on either side never do.
bool ContradictsHooks(const core::Signal& hook, const core::Signal& screen);

}  // namespace agt::agg
