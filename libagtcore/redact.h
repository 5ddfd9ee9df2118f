// Redaction of secrets before text is stored, logged or shown (docs/spec.md §6
// and §15). The rules are data: patterns/redaction.toml, one PCRE2 regex per
// rule, compiled once (JIT when available). A match is replaced by
// "[REDACTED:<rule id>]"; when the regex has a named group `secret`, only
// that group is replaced, so "password=hunter2" keeps its "password=".
//
// Work is bounded: each match attempt (one rule at one start position) may
// take a fixed number of PCRE2 steps (its match limit). The rules are
// written to stay far below it (patterns/redaction.toml says how); a rule
// that still exceeds it fails closed: the rest of the text, from where that
// search began, is replaced by the rule's marker, so a slow rule can cost
// text but never leave a secret behind or stall the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/event.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/base/result.h"

namespace agt::core {

struct RedactorOptions {
  /// PCRE2 steps (match() calls, backtracking points) one match attempt
  /// may take before the search fails closed. PCRE2 counts them per start
  /// position: a rule that reads far and fails at every start of a long
  /// run (the quadratic kind) needs about the run's length at each.
  uint32_t match_limit = 1'000'000;
  /// JIT-compile the rules (when PCRE2 has a JIT). Tests turn it off to
  /// count steps with the interpreter, whose count is the documented one.
  bool jit = true;
};

struct RedactStats {
  size_t replaced = 0;     // secrets replaced
  size_t over_budget = 0;  // rule searches that failed closed (see above)
};

class Redactor {
 public:
  Redactor(Redactor&&) noexcept;
  Redactor& operator=(Redactor&&) noexcept;
  ~Redactor();

  /// Parses a rule file (TOML: `[[rule]]` tables with `id`, `pattern`,
  /// optional `description`). `path` is used in messages. E_PATTERN_INVALID
  /// naming the file, the rule id and PCRE2's message and offset.
  static Result<Redactor> Parse(std::string_view toml_text, std::string_view path,
                                 const RedactorOptions& options = {});
  static Result<Redactor> LoadFile(const std::string& path, const RedactorOptions& options = {});
  /// redaction.toml from $AGTMUX_PATTERNS_DIR, else the source tree's
  /// patterns/ (AGTMUX_SOURCE_PATTERNS_DIR), else the installed datadir.
  static Result<Redactor> LoadBuiltin(const EnvFn& env = RealEnv(), const RedactorOptions& options = {});

  /// `text` with every secret replaced. Ill-formed UTF-8 is tolerated.
  std::string Redact(std::string_view text) const;
  /// Like Redact; also counts the replacements.
  std::string Redact(std::string_view text, size_t* replaced) const;
  /// Like Redact; also counts replacements and searches that failed closed.
  std::string Redact(std::string_view text, RedactStats* stats) const;

  /// The rule ids, in the order they are applied.
  std::vector<std::string> RuleIds() const;

 private:
  struct Rule;
  Redactor();
  std::vector<std::unique_ptr<Rule>> rules_;
  RedactorOptions options_;
};

/// Calls `f(text)` on each text of an event that may carry a secret: the
/// raw payload, and the signal's evidence, waiting details and choices (in
/// that order). `E` is Event or const Event; `f` takes std::string& or
/// const std::string&. The one list of those fields, so that the hook, the
/// wrapper, the daemon and the store agree on what redaction covers.
template <typename E, typename F>
void ForEachSecretText(E& e, F&& f) {
  f(e.raw_payload);
  if (!e.signal) return;
  f(e.signal->evidence);
  f(e.signal->detail.details);
  for (auto& c : e.signal->detail.choices) f(c);
}

// Redacting (and capping) those texts: core::RedactEvent,
// libagtcore/event_redact.h.

}  // namespace agt::core
