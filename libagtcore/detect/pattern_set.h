// A pattern set: one agent's rules, as loaded from patterns/<agent>.toml.
// Data only; rule_eval.h matches it against a screen and analyzer.h adds
// timing. The file format is documented in docs/patterns.md.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/menu.h"
#include "libagtcore/detect/regex.h"
#include "libagtcore/detect/region.h"
#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::detect {

/// A match condition: a regex on a region, a structural menu, and all/any/not
/// combinations of sub-conditions. Every part present must hold.
struct Condition {
  std::optional<Region> region;        // unset = the enclosing rule's region
  std::shared_ptr<const Regex> regex;  // null = no regex test
  bool menu = false;                   // a structural menu must be present
  std::vector<Condition> all;          // each must hold
  std::vector<Condition> any;          // at least one must hold (when non-empty)
  std::vector<Condition> none;         // none may hold (`not` in the file)
};

struct Rule {
  std::string id;
  core::State state = core::State::kUnknown;
  std::string reason_code;  // for unknown / error verdicts
  Region region;
  Condition cond;
  core::Confidence confidence = core::Confidence::kMedium;
  int settle_ms = -1;  // -1 = the analyzer's default for the state
  /// Leaving running for this rule's verdict waits this long instead of the
  /// set's debounce (-1 = the set's): a marker the agent prints only when a
  /// turn has ended needs no debounce against a frame between two spinners.
  int debounce_ms = -1;
  std::shared_ptr<const Regex> details;  // group 1 (else the match) -> details
  std::string approval_type;  // shell, file_edit, mcp, network, plan, user_question, ...
  /// `menu_footer` in the file: replaces the set's menu footer for this
  /// rule; an empty string means this dialog has no footer.
  bool menu_footer_set = false;
  /// An idle rule matched right after running reports `completed` unless
  /// this is false (an interrupted or cancelled turn did not complete).
  bool completes = true;
  /// `state = "hold"`: a screen that says nothing new about the agent's
  /// state (an exit summary while the process winds down); the previous
  /// verdict stands. Lowest precedence, like unknown.
  bool hold = false;
  std::shared_ptr<const Regex> menu_footer;
  int line = 0;  // where the rule starts in its file
};

/// Optional timing overrides from a file's [timing] table (ms; -1 = default).
struct TimingOverrides {
  int activity_ms = -1;
  int echo_grace_ms = -1;
  int approval_settle_ms = -1;
  int debounce_ms = -1;
  int cap_activity = -1;  // -1 = default, 0 = false, 1 = true
};

struct PatternSet {
  std::string name;  // file stem: claude, codex, gemini, generic
  std::string path;  // where it was loaded from
  int format = 1;
  std::string version;                   // the set's own version
  std::vector<std::string> verified_on;  // agent versions the rules were checked on
  std::string notes;
  bool replace = false;  // user file: replace the built-in set instead of extending it
  MenuStyle menu;
  TimingOverrides timing;
  std::vector<Rule> rules;  // in evaluation order
  const Rule* FindRule(std::string_view id) const;
};

/// Parses one pattern file. `path` is only used in error messages, which
/// name the file, the line, the rule id and the field; regex errors carry
/// PCRE2's own message and offset.
core::Result<PatternSet> ParsePatternSet(std::string_view text, std::string_view path,
                                         const RegexOptions& regex_options = {});

/// The name of the set a pattern file defines (its `agent` key, else the
/// file stem), read without compiling any rule; an error for a file that is
/// not TOML.
core::Result<std::string> PatternSetName(std::string_view text, std::string_view path);

/// Merges a user set over a built-in one: `replace = true` takes the user
/// set alone; otherwise user rules come first and replace built-in rules of
/// the same id, and a user [menu]/[timing] entry overrides the built-in one.
PatternSet MergePatternSets(const PatternSet& builtin, const PatternSet& user);

}  // namespace agt::detect
