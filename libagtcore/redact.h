// Redaction of secrets before text is stored, logged or shown (spec §6,
// NFR-9). The rules are data: patterns/redaction.toml, one PCRE2 regex per
// rule, compiled once (JIT when available). A match is replaced by
// "[REDACTED:<rule id>]"; when the regex has a named group `secret`, only
// that group is replaced, so "password=hunter2" keeps its "password=".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace agt::core
