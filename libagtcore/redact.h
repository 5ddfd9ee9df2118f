// Redaction of secrets before text is stored, logged or shown (docs/spec.md §6
// and §15). The rules are data: patterns/redaction.toml, one PCRE2 regex per
// rule, compiled once (JIT when available). A match is replaced by
// "[REDACTED:<rule id>]"; when the regex has a named group `secret`, only
// that group is replaced, so "password=hunter2" keeps its "password=".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/event.h"
#include "libagtcore/paths.h"
#include "libagtcore/result.h"

namespace agt::core {

class Redactor {
 public:
  Redactor(Redactor&&) noexcept;
  Redactor& operator=(Redactor&&) noexcept;
  ~Redactor();

  /// Parses a rule file (TOML: `[[rule]]` tables with `id`, `pattern`,
  /// optional `description`). `path` is used in messages. E_PATTERN_INVALID
  /// naming the file, the rule id and PCRE2's message and offset.
  static Result<Redactor> Parse(std::string_view toml_text, std::string_view path);
  static Result<Redactor> LoadFile(const std::string& path);
  /// redaction.toml from $AGTMUX_PATTERNS_DIR, else the source tree's
  /// patterns/ (AGTMUX_SOURCE_PATTERNS_DIR), else the installed datadir.
  static Result<Redactor> LoadBuiltin(const EnvFn& env = RealEnv());

  /// `text` with every secret replaced. Ill-formed UTF-8 is tolerated.
  std::string Redact(std::string_view text) const;
  /// Like Redact; also counts the replacements.
  std::string Redact(std::string_view text, size_t* replaced) const;

  /// The rule ids, in the order they are applied.
  std::vector<std::string> RuleIds() const;

 private:
  struct Rule;
  Redactor();
  std::vector<std::unique_ptr<Rule>> rules_;
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

/// Redacts every ForEachSecretText text of `e` in place with `r`; with no
/// rules (`r` null: redaction.toml could not be loaded) the raw payload is
/// dropped and the evidence withheld rather than passed on unredacted.
void RedactEvent(const Redactor* r, Event* e);

}  // namespace agt::core
