// The recorded corpus (tests/fixtures/<agent>/<version>/<scenario>/) as seen
// by the detection gates: loading a fixture, replaying it through the
// analyzer in CAP mode (the capture-pane snapshots) and PTY mode (the cast,
// through the wrapper's screen pipeline), and scoring the resulting state
// timeline against truth.jsonl.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "libagtcore/detect/pattern_library.h"
#include "libagtcore/event.h"
#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::detect::corpus {

struct TruthEntry {
  double t = 0;
  core::State state = core::State::kUnknown;
  core::WaitingDetail detail;
  std::string source;
};

struct Snapshot {
  double t = 0;
  std::vector<std::string> lines;
  int cursor_col = 0;
  int cursor_row = 0;
};

struct Fixture {
  std::string dir;
  std::string agent;
  std::string version;
  std::string mode;      // the permission mode it was recorded in (scenario.json)
  std::string scenario;  // the fixture's name: "<scenario>" or "<scenario>+hooks"
  std::vector<TruthEntry> truth;
  std::vector<Snapshot> snapshots;
  std::string cast_path;
  /// The terminal titles (OSC 0/2) the agent set, from its cast, with the
  /// time each was set: what tmux's pane_title holds, which the daemon's CAP
  /// reader has beside the screen (a capture's title, or the byte feed's).
  std::vector<std::pair<double, std::string>> titles;
  /// "claude/2.1.330/auto": what the gates report and hold to their bars.
  std::string Group() const { return agent + "/" + version + "/" + mode; }
};

/// Calls `fn` for each non-blank line of a JSONL file, parsed: a JSON object
/// with a numeric "t". Errors name the file and line.
core::Status ForEachJsonLine(
    const std::string& path, const std::function<core::Status(const rapidjson::Document&)>& fn);

/// Every fixture dir under `root` (<agent>/<version>[/<mode>]/<scenario>/
/// holding a truth.jsonl), sorted.
std::vector<std::string> FindFixtures(const std::string& root);
/// The fixtures root of the source tree.
std::string FixturesRoot();
core::Result<Fixture> LoadFixture(const std::string& dir);

struct Point {
  double t = 0;
  core::Signal signal;
};
using Timeline = std::vector<Point>;

/// CAP mode: each snapshot is a capture; a changed screen counts as output
/// at its time; the analyzer's rechecks run between snapshots.
Timeline ReplayCap(const Fixture& f, std::shared_ptr<const PatternLibrary> lib,
                   double* end);
/// PTY mode: the cast through the wrapper's pipeline (scanner, libvterm, analyzer).
/// With `every_write`, the screen is analysed after each of the agent's
/// writes (no analysis delay), and halfway through each longer one: what a
/// live reader sees at worst, when its analysis falls between two writes of
/// one frame (an Ink redraw erases the old frame in one write and draws the
/// new one in the next) or between two reads of one write.
core::Result<Timeline> ReplayPty(const Fixture& f,
                                 std::shared_ptr<const PatternLibrary> lib, double* end,
                                 bool every_write = false);

/// The hooks variant (tests/fixtures/README.md, "hooks.jsonl"): each event
/// `agtmux hook` sent, decoded with the daemon's codec, and when it arrived.
struct HookRecord {
  double t = 0;
  core::Event event;
};
bool HasHooks(const std::string& dir);
core::Result<std::vector<HookRecord>> LoadHooks(const std::string& dir);
/// The fused state of a hooks-variant fixture: the screen verdicts as the
/// wrapper's events (pty) or the poller's (CAP), and the recorded hook
/// events, through state::Engine (corpus_fused.cc).
core::Result<Timeline> ReplayFused(const Fixture& f, std::shared_ptr<const PatternLibrary> lib,
                                   bool pty, double* end);

struct Score {
  double counted = 0;         // seconds scored (outside the grace windows)
  double agreed = 0;          // of which the state agreed
  double false_approval = 0;  // seconds of waiting_approval that truth does not have
  int waits = 0;              // waiting intervals in truth
  int missed_waits = 0;       // of which the analyzer never showed the state
  double detail_wrong =
      0;  // seconds with the right waiting state but wrong choices/cursor/multi
  double aux_wrong = 0;  // seconds with wrong approval_type or details (reported)
  /// Seconds with a state other than the truth's at confidence medium or
  /// high (`unknown` and low-confidence verdicts are not counted): what a
  /// user is told wrongly, not what is only not known yet.
  double confident_wrong = 0;
  std::vector<std::string> problems;  // human-readable, with times
  double Agreement() const { return counted > 0 ? agreed / counted : 1.0; }
  double ConfidentWrongShare() const { return counted > 0 ? confident_wrong / counted : 0.0; }
  void Add(const Score& o);
};

/// Scores `pred` against truth over [0, end], skipping `grace` seconds
/// after each true transition.
Score ScoreTimeline(const Fixture& f, const Timeline& pred, double end,
                    double grace = 0.3);

/// "  1.234s running high claude.footer.interrupt | evidence"
std::string FormatTimeline(const Timeline& t);

/// How soon a finished turn is reported: for every truth `completed` (the
/// model's final answer fully streamed), the seconds until the timeline says
/// completed (0 when it already did), or a miss when it never did before the
/// next true transition; and the flickers: running -> idle/completed -> running
/// within one true running interval (e.g. between two tool calls).
struct CompletedLatency {
  std::vector<double> seconds;
  int missed = 0;
  int flickers = 0;
  std::vector<std::string> notes;  // each miss and flicker, with its time
  void Add(const CompletedLatency& o);
};
CompletedLatency MeasureCompleted(const Fixture& f, const Timeline& pred);

/// The gates' bars (issue 15): time-weighted agreement per agent, version
/// and mode, with no false or missed waits and right choices and cursor.
constexpr double kPtyBar = 0.99;
constexpr double kCapBar = 0.97;
/// Releases held back from rule writing (issue 22): tests/fixtures/held-back.txt
/// lists them as "<agent>/<version>". Their groups are judged against these
/// bars in PTY and CAP mode alike, and at most this share of confident wrong
/// time; what they miss is reported (GroupVerdict::reported), not failed.
constexpr double kHeldBackBar = 0.97;
constexpr double kHeldBackConfidentWrong = 0.005;
/// The "<agent>/<version>" entries of held-back.txt under `root`, and those
/// of $AGTMUX_HELD_BACK (comma-separated).
std::vector<std::string> HeldBack(const std::string& root);
/// The "<agent>/<version>" entries of below-bar.txt under `root`: releases
/// rules were written from whose screens lag the truth past the grace with
/// no stream signal to say so sooner (each line says why). Judged against
/// the bars like the others; what they miss is reported, not failed.
std::vector<std::string> BelowBar(const std::string& root);
/// True when `group` ("codex/0.171.0/on-request") is of a held-back release.
bool IsHeldBack(const std::vector<std::string>& held, const std::string& group);

/// One group's figures held against the bar: `failures` names every bar it
/// misses (empty: it passes).
struct GroupVerdict {
  std::string group;
  Score score;
  int fixtures = 0;
  bool held_back = false;  // a release no rule was written from
  bool below_bar = false;  // listed in below-bar.txt: misses reported, not failed
  /// The bars it misses. For a held-back group they are reported (the
  /// measure of how detection does on releases nobody wrote rules from,
  /// issue 22) and not failed: failing CI on them would invite writing
  /// rules from them, which would end their being held back.
  std::vector<std::string> failures;
  std::vector<std::string> reported;
};
std::vector<GroupVerdict> JudgeGroups(const std::map<std::string, Score>& groups,
                                      const std::map<std::string, int>& counts, double bar);
/// "PTY claude/2.1.330/auto  agree 99.12% of 120.3s  ...  PASS|FAIL: why"
std::string FormatVerdict(const char* mode, const GroupVerdict& v);
/// One line per agent over its held-back groups, then over the others:
/// "HELD PTY codex  4 groups  agree 98.10% of 300.2s  confident_wrong 0.20%  ..."
/// (held back) and "SEEN PTY codex ..." (the releases rules were written from).
std::vector<std::string> FormatSplit(const char* mode, const std::vector<GroupVerdict>& v);

}  // namespace agt::detect::corpus
