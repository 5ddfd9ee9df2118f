// The PCRE2 wrapper behind every pattern rule. It owns the compiled code
// (unique_ptr with pcre2_code_free), keeps one match-data block per thread
// so matching allocates nothing, and turns PCRE2's compile errors into the
// message + offset that pattern authors need to fix their rule.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "libagtcore/detect/regex.h"

#include <pcre2.h>

#include <string>

namespace agt::detect {
namespace {

constexpr uint32_t kMaxGroups = 64;

struct MatchDataFree {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};

pcre2_match_data* ThreadMatchData() {
  thread_local std::unique_ptr<pcre2_match_data, MatchDataFree> md(
      pcre2_match_data_create(kMaxGroups, nullptr));
  return md.get();
}

std::string ErrorText(int code) {
  PCRE2_UCHAR buf[256];
  int n = pcre2_get_error_message(code, buf, sizeof buf);
  if (n < 0) return "PCRE2 error " + std::to_string(code);
  return std::string(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

}  // namespace

std::string_view RegexMatch::Group(std::string_view subject, size_t i) const {
  if (i >= groups.size()) return {};
  auto [b, e] = groups[i];
  if (b == std::string_view::npos || e < b || e > subject.size()) return {};
  return subject.substr(b, e - b);
}

void Regex::CodeFree::operator()(pcre2_real_code_8* c) const { pcre2_code_free(c); }

Regex::~Regex() = default;

core::Result<Regex> Regex::Compile(std::string_view pattern,
                                   const RegexOptions& options) {
  uint32_t flags = PCRE2_UTF | PCRE2_UCP;
  if (options.multiline) flags |= PCRE2_MULTILINE;
  if (options.caseless) flags |= PCRE2_CASELESS;
  int err = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()),
                                   pattern.size(), flags, &err, &offset, nullptr);
  if (code == nullptr) {
    return core::MakeError(core::Err::kPatternInvalid,
                           ErrorText(err) + " at offset " + std::to_string(offset));
  }
  Regex r;
  r.code_.reset(code);
  r.pattern_ = std::string(pattern);
  if (options.jit) r.jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  return r;
}

bool Regex::Search(std::string_view subject, RegexMatch* m) const {
  pcre2_match_data* md = ThreadMatchData();
  auto* s = reinterpret_cast<PCRE2_SPTR>(subject.data());
  // pcre2_match runs the JIT code when there is some, after checking the
  // subject is valid UTF-8 (pcre2_jit_match would skip that check).
  int rc = pcre2_match(code_.get(), s, subject.size(), 0, 0, md, nullptr);
  if (rc < 0) return false;  // no match, or bad UTF-8 in the subject
  if (m != nullptr) {
    uint32_t n = pcre2_get_ovector_count(md);
    uint32_t used = rc == 0 ? n : static_cast<uint32_t>(rc);
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    uint32_t capture_count = 0;
    pcre2_pattern_info(code_.get(), PCRE2_INFO_CAPTURECOUNT, &capture_count);
    m->groups.assign(capture_count + 1, {std::string_view::npos, std::string_view::npos});
    for (uint32_t i = 0; i < used && i <= capture_count; ++i) {
      if (ov[2 * i] == PCRE2_UNSET) continue;
      m->groups[i] = {ov[2 * i], ov[2 * i + 1]};
    }
  }
  return true;
}

}  // namespace agt::detect
