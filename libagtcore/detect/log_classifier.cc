// The log classifier behind `view-output --analyze`. Each line is tested
// against every rule; the verdict is the worst class found, so one compile
// error among a thousand passing lines still reads as a failure.
#include "libagtcore/detect/log_classifier.h"

#include "libagtcore/base/toml_parse.h"

namespace agt::detect {

using core::Err;
using core::MakeError;

std::string_view LogClassName(LogClass c) {
  switch (c) {
    case LogClass::kSuccess:
      return "success";
    case LogClass::kWarning:
      return "warning";
    case LogClass::kFailure:
      return "failure";
    default:
      return "unknown";
  }
}

core::Result<LogRules> ParseLogRules(std::string_view text, std::string_view path) {
  LogRules out;
  out.path = std::string(path);
  std::string file(path);
  auto parsed = core::ParseToml(text, path, Err::kPatternInvalid);
  if (!parsed.ok()) return parsed.error();
  const toml::table& doc = *parsed;
  const toml::array* rules = doc["rule"].as_array();
  if (rules == nullptr) return out;
  for (auto&& e : *rules) {
    const toml::table* t = e.as_table();
    if (t == nullptr)
      return MakeError(Err::kPatternInvalid, file + ": 'rule' must be [[rule]] tables");
    std::string at = file + ":" + std::to_string(t->source().begin.line) + ": ";
    LogRule r;
    auto id = (*t)["id"].value<std::string>();
    if (!id) return MakeError(Err::kPatternInvalid, at + "missing field 'id'");
    r.id = *id;
    at += "rule '" + r.id + "': ";
    for (auto&& [k, v] : *t) {
      std::string_view key = k.str();
      if (key != "id" && key != "class" && key != "regex" && key != "note")
        return MakeError(Err::kPatternInvalid,
                         at + "unknown key '" + std::string(key) + "'");
    }
    std::string cls = (*t)["class"].value<std::string>().value_or("");
    if (cls == "success")
      r.cls = LogClass::kSuccess;
    else if (cls == "warning")
      r.cls = LogClass::kWarning;
    else if (cls == "failure")
      r.cls = LogClass::kFailure;
    else
      return MakeError(
          Err::kPatternInvalid,
          at + "class must be success, warning or failure, not '" + cls + "'");
    auto re = (*t)["regex"].value<std::string>();
    if (!re) return MakeError(Err::kPatternInvalid, at + "missing field 'regex'");
    RegexOptions ro;
    ro.multiline = false;
    auto c = Regex::Compile(*re, ro);
    if (!c.ok())
      return MakeError(
          Err::kPatternInvalid,
          at + "field 'regex': regex /" + *re + "/: PCRE2 error: " + c.error().message);
    r.regex = std::make_shared<const Regex>(std::move(c).value());
    out.rules.push_back(std::move(r));
  }
  return out;
}

LogReport ClassifyLog(const LogRules& rules, std::string_view text) {
  LogReport rep;
  int no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    ++no;
    for (const auto& r : rules.rules) {
      if (!r.regex->Search(line)) continue;
      rep.findings.push_back({r.id, r.cls, no, std::string(line)});
      if (static_cast<int>(r.cls) > static_cast<int>(rep.verdict)) rep.verdict = r.cls;
    }
    if (nl == text.size()) break;
    pos = nl + 1;
  }
  return rep;
}

}  // namespace agt::detect
