// A compiled PCRE2 pattern (8-bit, UTF + UCP), JIT-compiled when the
// platform supports it. Compiled once when a pattern set loads, then
// matched many times per second against screen regions.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/result.h"

struct pcre2_real_code_8;

namespace agt::detect {

struct RegexOptions {
  bool jit = true;        // try JIT; falls back to the interpreter silently
  bool multiline = true;  // ^ and $ match at line breaks
  bool caseless = false;
};

/// One successful match: the whole match and its numbered groups as
/// offsets into the subject ({npos, npos} for a group that did not take part).
struct RegexMatch {
  std::vector<std::pair<size_t, size_t>> groups;  // [0] = whole match
  /// Text of group `i`, empty when it did not take part.
  std::string_view Group(std::string_view subject, size_t i) const;
  size_t begin() const { return groups.empty() ? 0 : groups[0].first; }
};

class Regex {
 public:
  /// Compiles `pattern`. On failure the error message is PCRE2's own text
  /// followed by " at offset N" (N = byte offset into the pattern).
  static core::Result<Regex> Compile(std::string_view pattern,
                                     const RegexOptions& options = {});

  Regex(Regex&&) noexcept = default;
  Regex& operator=(Regex&&) noexcept = default;
  ~Regex();

  /// True when the pattern matches anywhere in `subject`; fills `m`.
  /// Invalid UTF-8 in the subject never matches (and never crashes).
  bool Search(std::string_view subject, RegexMatch* m = nullptr) const;

  const std::string& pattern() const { return pattern_; }
  bool jit() const { return jit_; }

 private:
  struct CodeFree {
    void operator()(pcre2_real_code_8* c) const;
  };
  Regex() = default;
  std::unique_ptr<pcre2_real_code_8, CodeFree> code_;
  std::string pattern_;
  bool jit_ = false;
};

}  // namespace agt::detect
