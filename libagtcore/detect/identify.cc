// Identification rules (patterns/identify.toml) and their evaluation. Order
// of evidence: an excluded process wins over everything; then the process
// name; then, for interpreters only (node, bun, ...), the script path in
// the child's cmdline; then the title glyphs, the weakest hint.
#include "libagtcore/detect/identify.h"

#include <mutex>

#include "libagtcore/detect/pattern_library.h"
#include "libagtcore/base/toml_parse.h"

namespace agt::detect {
namespace {

using core::Err;
using core::MakeError;
using core::Result;

Result<std::vector<std::shared_ptr<const Regex>>> Regexes(const toml::table& t,
                                                          std::string_view key,
                                                          const std::string& where) {
  std::vector<std::shared_ptr<const Regex>> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  std::string at = where + ":" + std::to_string(n->source().begin.line) + ": ";
  const toml::array* a = n->as_array();
  if (a == nullptr)
    return MakeError(Err::kPatternInvalid, at + "field '" + std::string(key) +
                                               "' must be an array of regex strings");
  for (auto&& e : *a) {
    if (!e.is_string())
      return MakeError(Err::kPatternInvalid, at + "field '" + std::string(key) +
                                                 "' must be an array of regex strings");
    std::string p = *e.value<std::string>();
    RegexOptions ro;
    ro.multiline = false;
    auto r = Regex::Compile(p, ro);
    if (!r.ok())
      return MakeError(Err::kPatternInvalid, at + "field '" + std::string(key) +
                                                 "': regex /" + p +
                                                 "/: PCRE2 error: " + r.error().message);
    out.push_back(std::make_shared<const Regex>(std::move(r).value()));
  }
  return out;
}

bool Any(const std::vector<std::shared_ptr<const Regex>>& res, std::string_view s) {
  for (const auto& r : res)
    if (r->Search(s)) return true;
  return false;
}

}  // namespace

Result<IdentifyRules> ParseIdentifyRules(std::string_view text, std::string_view path) {
  IdentifyRules rules;
  rules.path = std::string(path);
  auto parsed = core::ParseToml(text, path, Err::kPatternInvalid);
  if (!parsed.ok()) return parsed.error();
  const toml::table& doc = *parsed;
  std::string file(path);
  for (auto&& [k, v] : doc) {
    std::string_view key = k.str();
    if (key != "format" && key != "version" && key != "verified_on" && key != "notes" &&
        key != "exclude" && key != "interpreters" && key != "agent")
      return MakeError(Err::kPatternInvalid,
                       file + ":" + std::to_string(v.source().begin.line) +
                           ": unknown key '" + std::string(key) + "'");
  }
  if (auto v = doc["version"].value<std::string>()) rules.version = *v;
  for (auto [key, dst] : {std::pair{"exclude", &rules.exclude},
                          std::pair{"interpreters", &rules.interpreters}}) {
    if (const toml::table* t = doc[key].as_table()) {
      auto r = Regexes(*t, "process", file + " [" + key + "]");
      if (!r.ok()) return r.error();
      *dst = std::move(r).value();
    }
  }
  if (const toml::array* agents = doc["agent"].as_array()) {
    for (auto&& e : *agents) {
      const toml::table* t = e.as_table();
      if (t == nullptr)
        return MakeError(Err::kPatternInvalid,
                         file + ": 'agent' must be [[agent]] tables");
      AgentIdentity a;
      auto name = (*t)["name"].value<std::string>();
      std::string where = file + ":" + std::to_string(t->source().begin.line);
      if (!name || name->empty())
        return MakeError(Err::kPatternInvalid, where + ": [[agent]] needs a 'name'");
      a.name = *name;
      where = file + " agent '" + a.name + "'";
      for (auto&& [k, v] : *t) {
        std::string_view key = k.str();
        if (key != "name" && key != "process" && key != "cmdline" && key != "title" &&
            key != "note")
          return MakeError(Err::kPatternInvalid,
                           where + ": unknown key '" + std::string(key) + "'");
      }
      for (auto [key, dst] :
           {std::pair{"process", &a.process}, std::pair{"cmdline", &a.cmdline},
            std::pair{"title", &a.title}}) {
        auto r = Regexes(*t, key, where);
        if (!r.ok()) return r.error();
        *dst = std::move(r).value();
      }
      rules.agents.push_back(std::move(a));
    }
  }
  return rules;
}

std::optional<Identification> Identify(const IdentifyRules& rules,
                                       std::string_view process_name,
                                       std::string_view cmdline, std::string_view title) {
  if (!process_name.empty() && Any(rules.exclude, process_name)) return std::nullopt;
  for (const auto& a : rules.agents)
    if (!process_name.empty() && Any(a.process, process_name))
      return Identification{a.name, "process"};
  if (!cmdline.empty() && Any(rules.interpreters, process_name)) {
    std::string args(cmdline);
    for (char& c : args)
      if (c == '\0') c = ' ';
    while (!args.empty() && args.back() == ' ') args.pop_back();
    // The interpreter may itself run an excluded program (node running an editor).
    for (const auto& a : rules.agents)
      if (Any(a.cmdline, args)) return Identification{a.name, "cmdline"};
  }
  for (const auto& a : rules.agents)
    if (!title.empty() && Any(a.title, title)) return Identification{a.name, "title"};
  return std::nullopt;
}

std::shared_ptr<const IdentifyRules> DefaultIdentifyRules() {
  static std::once_flag once;
  static std::shared_ptr<const IdentifyRules> rules;
  std::call_once(once, [] {
    auto out = std::make_shared<IdentifyRules>();
    for (const std::string& dir : {DefaultUserPatternsDir(), DefaultPatternsDir()}) {
      if (dir.empty()) continue;
      auto text = ReadTextFile(dir + "/identify.toml");
      if (!text.ok()) continue;
      auto r = ParseIdentifyRules(*text, dir + "/identify.toml");
      if (!r.ok()) continue;  // a broken user file: the built-in one stays
      *out = std::move(r).value();
      break;
    }
    rules = out;
  });
  return rules;
}

std::optional<std::string> Identify(std::string_view process_name,
                                    std::string_view cmdline, std::string_view title) {
  auto id = Identify(*DefaultIdentifyRules(), process_name, cmdline, title);
  if (!id) return std::nullopt;
  return id->agent;
}

}  // namespace agt::detect
