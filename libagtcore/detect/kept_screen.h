// Kept screens: what a pane showed when its pattern set could not read it
// (unknown, no_rule_matched, for longer than a moment) or when the screen
// contradicted the pane's hooks. The wrapper (PTY) and the daemon's poller
// (CAP) keep them, redacted and bounded, in <state_dir>/screens/;
// `agtmux patterns doctor` lists them with the rule that came closest, and
// `agtmux patterns test --fixture` turns one into a fixture a user can send
// a maintainer (docs/patterns.md "When a screen is not recognised").
//
// A kept screen is one JSON file, <ulid>.json:
//   {"format":1,"kept_at","reason","mode","agent_type","agent_version",
//    "pattern_set_version","target_id","pane_id",
//    "verdict":{"state","reason_code","rule_id"},"hook"?:{"state","rule_id"},
//    "title","rows","cols","cursor_row","cursor_col","alt_screen","lines":[...]}
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/analyzer.h"
#include "libagtcore/redact.h"
#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::detect {

/// Why a screen was kept.
inline constexpr std::string_view kKeptNoRule = "no_rule_matched";
inline constexpr std::string_view kKeptContradiction = "contradicts_hook";

struct KeptScreen {
  std::string id;                   // the file's stem (a ULID: files sort by time)
  core::TimeNs kept_at = 0;
  std::string reason;               // kKeptNoRule or kKeptContradiction
  std::string mode;                 // "PTY" (wrapper) or "CAP" (poller)
  std::string agent_type;
  std::string agent_version;        // "" when not known
  std::string pattern_set_version;  // the set that read it (PatternSet::version)
  std::string target_id;
  std::string pane_id;
  core::State state = core::State::kUnknown;  // what the screen read
  std::string reason_code;
  std::string rule_id;
  std::optional<core::State> hook_state;      // what the hooks said (contradictions)
  std::string hook_rule_id;
  std::string title;                // the OSC title (PTY), "" for CAP
  Screen screen;
  std::string path;                 // where it was loaded from (not stored)
};

struct KeepLimits {
  size_t max_files = 50;        // oldest removed beyond this
  size_t max_bytes = 64 * 1024; // per file; top rows dropped first (rules read the bottom)
  bool sync = true;             // fsync before the rename
};

/// Redacts a screen as a screen, not row by row (issue 25): a private key
/// block over several rows is replaced from its BEGIN row to its END row (or
/// as far as its body goes), a secret that wraps across rows (a row filled
/// to the last column continues on the next) is found on the rows joined and
/// written back over the same rows, then each row is redacted on its own.
/// The row count never changes: a pattern set reads rows by position.
void RedactScreen(Screen* screen, const core::Redactor& redactor);

/// Redacts `s` (RedactScreen, the title) and writes it to `dir` (made 0700),
/// then removes the oldest files beyond the limit. Returns the file's path.
/// Nothing is written without a redactor.
core::Result<std::string> KeepScreen(const std::string& dir, KeptScreen s,
                                     const core::Redactor& redactor, const KeepLimits& limits = {});

/// Every kept screen in `dir`, newest first. A file that does not decode
/// is reported in `problems` ("<path>: <why>") and skipped; a missing
/// directory is an empty list.
std::vector<KeptScreen> ListKeptScreens(const std::string& dir, std::vector<std::string>* problems);

std::string EncodeKeptScreen(const KeptScreen& s);
/// E_PAYLOAD_INVALID naming the field.
core::Result<KeptScreen> DecodeKeptScreen(std::string_view json);

/// The analyzer input that shows `s` as it was read (its screen, its title,
/// CAP or PTY).
struct KeptInput {
  StreamSignals signals;
  AnalyzerInput input;
};
void MakeKeptInput(const KeptScreen& s, KeptInput* out);

/// Decides when a pane has been unreadable long enough to keep its screen:
/// once per spell of unknown/no_rule_matched verdicts that lasted `after`.
class StuckUnknownWatch {
 public:
  explicit StuckUnknownWatch(core::TimeNs after = 3 * core::kNsPerSec) : after_(after) {}
  /// Feeds the verdict at `now`; true exactly once per spell, when it has
  /// lasted `after`.
  bool Observe(const core::Signal& verdict, core::TimeNs now);
  /// When to observe again without new input for the spell to be judged
  /// (0 = nothing pending).
  core::TimeNs deadline() const { return kept_ || since_ == 0 ? 0 : since_ + after_; }

 private:
  core::TimeNs after_;
  core::TimeNs since_ = 0;  // start of the current spell, 0 = none
  bool kept_ = false;
};

}  // namespace agt::detect
