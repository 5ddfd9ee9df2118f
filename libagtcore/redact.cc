// The data-driven redactor: loads patterns/redaction.toml, compiles each
// rule with PCRE2 once, and replaces matches rule by rule, in file order
// (so a specific rule such as anthropic_api_key runs before a general one
// such as openai_api_key, and the general one then sees only the marker).
// Patterns are compiled with PCRE2_MATCH_INVALID_UTF so terminal text with
// broken UTF-8 is still scanned instead of failing the match. Each match
// attempt runs under a match limit (redact.h: the step budget).
#define PCRE2_CODE_UNIT_WIDTH 8
#include "libagtcore/redact.h"

#include <pcre2.h>

#include "libagtcore/os/file.h"
#include "libagtcore/base/toml_parse.h"
#include "agtmux_source_paths.h"

namespace agt::core {

struct Redactor::Rule {
  struct CodeFree {
    void operator()(pcre2_code* c) const { pcre2_code_free(c); }
  };
  std::string id;
  std::string marker;  // "[REDACTED:<id>]"
  std::unique_ptr<pcre2_code, CodeFree> code;
  int secret_group = -1;  // number of the named group `secret`, or -1
};

namespace {

struct MatchDataFree {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};
struct MatchContextFree {
  void operator()(pcre2_match_context* c) const { pcre2_match_context_free(c); }
};

Error PatternError(std::string_view path, int64_t line, std::string_view why) {
  return MakeError(Err::kPatternInvalid,
                   std::string(path) + ":" + std::to_string(line) + ": " + std::string(why));
}

Result<std::string> ReadFile(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return MakeError(Err::kPatternInvalid, "cannot read " + text.error().message);
  return text;
}

bool FileExists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

}  // namespace

Redactor::Redactor() = default;
Redactor::Redactor(Redactor&&) noexcept = default;
Redactor& Redactor::operator=(Redactor&&) noexcept = default;
Redactor::~Redactor() = default;

Result<Redactor> Redactor::Parse(std::string_view toml_text, std::string_view path,
                                 const RedactorOptions& options) {
  auto parsed = ParseToml(toml_text, path, Err::kPatternInvalid);
  if (!parsed.ok()) return parsed.error();
  const toml::table& root = *parsed;
  for (auto&& [k, v] : root) {
    if (k.str() != "rule" && k.str() != "version")
      return PatternError(path, k.source().begin.line,
                          "unknown key \"" + std::string(k.str()) + "\"");
  }
  const toml::array* rules = root["rule"].as_array();
  if (rules == nullptr || rules->empty())
    return PatternError(path, 1, "expected [[rule]] tables");
  Redactor r;
  r.options_ = options;
  for (size_t i = 0; i < rules->size(); ++i) {
    const toml::node& node = *rules->get(i);
    int64_t line = node.source().begin.line;
    const toml::table* t = node.as_table();
    std::string where = "rule " + std::to_string(i + 1);
    if (t == nullptr) return PatternError(path, line, where + ": expected a table");
    for (auto&& [k, v] : *t) {
      if (k.str() != "id" && k.str() != "pattern" && k.str() != "description")
        return PatternError(path, k.source().begin.line,
                            where + ": unknown key \"" + std::string(k.str()) + "\"");
    }
    std::optional<std::string> id = (*t)["id"].value_exact<std::string>();
    if (!id || id->empty()) return PatternError(path, line, where + ": missing string \"id\"");
    where = "rule \"" + *id + "\"";
    for (const auto& existing : r.rules_)
      if (existing->id == *id) return PatternError(path, line, where + ": duplicate id");
    std::optional<std::string> pattern = (*t)["pattern"].value_exact<std::string>();
    if (!pattern || pattern->empty())
      return PatternError(path, line, where + ": missing string \"pattern\"");
    int code = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern->data()),
                                   pattern->size(), PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                                   &code, &offset, nullptr);
    if (re == nullptr) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(code, msg, sizeof msg);
      int64_t pline = (*t)["pattern"].node()->source().begin.line;
      return PatternError(path, pline,
                          where + ": " + reinterpret_cast<char*>(msg) + " at offset " +
                              std::to_string(offset));
    }
    auto rule = std::make_unique<Rule>();
    rule->code.reset(re);
    if (options.jit) pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  // else, or failing, the interpreter
    rule->id = *id;
    rule->marker = "[REDACTED:" + *id + "]";
    int group = pcre2_substring_number_from_name(re, reinterpret_cast<PCRE2_SPTR>("secret"));
    rule->secret_group = group > 0 ? group : -1;
    r.rules_.push_back(std::move(rule));
  }
  return r;
}

Result<Redactor> Redactor::LoadFile(const std::string& path, const RedactorOptions& options) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return text.error();
  return Parse(*text, path, options);
}

Result<Redactor> Redactor::LoadBuiltin(const EnvFn& env, const RedactorOptions& options) {
  constexpr const char* kFile = "/redaction.toml";
  if (const char* dir = env("AGTMUX_PATTERNS_DIR"); dir != nullptr && *dir != '\0')
    return LoadFile(std::string(dir) + kFile, options);
  std::string source = std::string(AGTMUX_SOURCE_PATTERNS_DIR) + kFile;
  if (FileExists(source)) return LoadFile(source, options);
  return LoadFile(std::string(AGTMUX_INSTALLED_PATTERNS_DIR) + kFile, options);
}

std::string Redactor::Redact(std::string_view text) const {
  size_t ignored = 0;
  return Redact(text, &ignored);
}

std::string Redactor::Redact(std::string_view text, size_t* replaced) const {
  RedactStats stats;
  std::string out = Redact(text, &stats);
  *replaced = stats.replaced;
  return out;
}

std::string Redactor::Redact(std::string_view text, RedactStats* stats) const {
  *stats = RedactStats{};
  // One context per call: a Redactor is shared (const) between threads.
  std::unique_ptr<pcre2_match_context, MatchContextFree> ctx(pcre2_match_context_create(nullptr));
  AGT_CHECK(ctx != nullptr);
  pcre2_match_context* mctx = ctx.get();
  pcre2_set_match_limit(mctx, options_.match_limit);
  std::string cur(text);
  std::string next;
  for (const auto& rule : rules_) {
    std::unique_ptr<pcre2_match_data, MatchDataFree> md(
        pcre2_match_data_create_from_pattern(rule->code.get(), nullptr));
    AGT_CHECK(md != nullptr);
    next.clear();
    size_t copied = 0;  // cur[0, copied) is already in `next`
    size_t start = 0;
    bool changed = false;
    while (start <= cur.size()) {
      int rc = pcre2_match(rule->code.get(), reinterpret_cast<PCRE2_SPTR>(cur.data()),
                           cur.size(), start, 0, md.get(), mctx);
      if (rc == PCRE2_ERROR_NOMATCH) break;
      if (rc < 0) {
        // Over budget (or another resource limit): fail closed.
        next.append(cur, copied, start - copied);
        next += rule->marker;
        copied = cur.size();
        changed = true;
        ++stats->over_budget;
        break;
      }
      PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
      size_t mstart = ov[0], mend = ov[1];
      size_t rstart = mstart, rend = mend;
      if (rule->secret_group > 0 && rule->secret_group < rc &&
          ov[2 * rule->secret_group] != PCRE2_UNSET) {
        rstart = ov[2 * rule->secret_group];
        rend = ov[2 * rule->secret_group + 1];
      }
      if (rend > rstart) {
        next.append(cur, copied, rstart - copied);
        next += rule->marker;
        copied = rend;
        changed = true;
        ++stats->replaced;
      }
      // An empty match must not loop forever: step past one byte.
      start = mend > mstart ? mend : mend + 1;
    }
    if (changed) {
      next.append(cur, copied, std::string::npos);
      cur.swap(next);
    }
  }
  return cur;
}

std::vector<std::string> Redactor::RuleIds() const {
  std::vector<std::string> ids;
  for (const auto& r : rules_) ids.push_back(r->id);
  return ids;
}

}  // namespace agt::core
