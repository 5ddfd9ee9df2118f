// The pattern sets in force: the built-in files from patterns/ with the
// user's overrides from <config_dir>/patterns/ applied. A broken file is
// reported (path, rule id, PCRE2 message and offset) and skipped; for a
// broken user file the built-in set of that name stays in force.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/pattern_set.h"

namespace agt::detect {

struct LibraryOptions {
  std::string builtin_dir;  // empty = DefaultPatternsDir()
  std::string user_dir;     // empty = no user overrides
  RegexOptions regex;
  /// When not empty, only the sets of these names are compiled (the
  /// wrapper needs one set, not the whole library). Files are still chosen
  /// and merged as for the whole library, so the set in force is the same.
  std::vector<std::string> only;
};

class PatternLibrary {
 public:
  /// Loads every agent set (*.toml except the shared identify, analyze,
  /// redaction, exfil and send_policy files). Never fails: problems() lists
  /// what was rejected.
  static std::shared_ptr<const PatternLibrary> Load(const LibraryOptions& options);

  /// The set named `name` ("claude", ...), or null.
  const PatternSet* Find(std::string_view name) const;
  /// The set for an agent type: its own, else the conservative generic
  /// one, else null.
  const PatternSet* ForAgent(std::string_view agent_type) const;
  std::vector<std::string> Names() const;
  /// One message per rejected file ("path:line: rule 'id': ...").
  const std::vector<std::string>& problems() const { return problems_; }
  const std::string& builtin_dir() const { return builtin_dir_; }
  const std::string& user_dir() const { return user_dir_; }

  /// Adds or replaces a set (tests, tools).
  void Put(PatternSet set);

 private:
  std::map<std::string, PatternSet, std::less<>> sets_;
  std::vector<std::string> problems_;
  std::string builtin_dir_;
  std::string user_dir_;
};

/// $AGTMUX_PATTERNS_DIR if set, else the source tree's patterns/ (tests and
/// uninstalled builds), else the installed data dir.
std::string DefaultPatternsDir();
/// $AGTMUX_CONFIG_DIR/patterns, else $XDG_CONFIG_HOME/agtmux/patterns, else
/// ~/.config/agtmux/patterns (the same rule as core::Paths::user_patterns_dir).
std::string DefaultUserPatternsDir();

/// Reads a whole file; E_IO naming the path when it cannot.
core::Result<std::string> ReadTextFile(const std::string& path);

/// True for the shared files that are not agent pattern sets.
bool IsSharedPatternFile(std::string_view stem);

}  // namespace agt::detect
