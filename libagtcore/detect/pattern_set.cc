// Loading pattern files (TOML) into PatternSet (syntax errors come back
// from core::ParseToml). Every error names the file, the line, the rule id
// and the field, so a user can fix an override without reading our code.
#include "libagtcore/detect/pattern_set.h"

#include <algorithm>
#include <set>

#include "libagtcore/base/toml_parse.h"

namespace agt::detect {
namespace {

using core::Err;
using core::MakeError;
using core::Result;

// Error context: "path:line: rule 'id': ".
struct Ctx {
  std::string_view path;
  std::string rule_id;
  int line = 0;
  std::string Prefix() const {
    std::string s(path);
    if (line > 0) s += ":" + std::to_string(line);
    s += ": ";
    if (!rule_id.empty()) s += "rule '" + rule_id + "': ";
    return s;
  }
  core::Error Fail(const std::string& msg) const {
    return MakeError(Err::kPatternInvalid, Prefix() + msg);
  }
};

int LineOf(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

core::Status CheckKeys(const toml::table& t, const std::set<std::string_view>& allowed,
                       const Ctx& ctx, std::string_view where) {
  for (auto&& [k, v] : t) {
    if (!allowed.count(k.str())) {
      Ctx c = ctx;
      c.line = LineOf(v);
      return c.Fail("unknown key '" + std::string(k.str()) + "' in " +
                    std::string(where));
    }
  }
  return core::Ok();
}

Result<std::string> GetString(const toml::table& t, std::string_view key, const Ctx& ctx,
                              bool required, std::string dflt = {}) {
  const toml::node* n = t.get(key);
  if (n == nullptr) {
    if (required) return ctx.Fail("missing field '" + std::string(key) + "'");
    return dflt;
  }
  if (auto s = n->value<std::string>(); s && n->is_string()) return *s;
  Ctx c = ctx;
  c.line = LineOf(*n);
  return c.Fail("field '" + std::string(key) + "' must be a string");
}

Result<int64_t> GetInt(const toml::table& t, std::string_view key, const Ctx& ctx,
                       int64_t dflt, int64_t lo, int64_t hi) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return dflt;
  Ctx c = ctx;
  c.line = LineOf(*n);
  if (!n->is_integer())
    return c.Fail("field '" + std::string(key) + "' must be an integer");
  int64_t v = *n->value<int64_t>();
  if (v < lo || v > hi)
    return c.Fail("field '" + std::string(key) + "' = " + std::to_string(v) +
                  " is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

Result<bool> GetBool(const toml::table& t, std::string_view key, const Ctx& ctx,
                     bool dflt) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return dflt;
  if (!n->is_boolean()) {
    Ctx c = ctx;
    c.line = LineOf(*n);
    return c.Fail("field '" + std::string(key) + "' must be true or false");
  }
  return *n->value<bool>();
}

Result<std::vector<std::string>> GetStrings(const toml::table& t, std::string_view key,
                                            const Ctx& ctx) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  Ctx c = ctx;
  c.line = LineOf(*n);
  const toml::array* a = n->as_array();
  if (a == nullptr)
    return c.Fail("field '" + std::string(key) + "' must be an array of strings");
  for (auto&& e : *a) {
    if (!e.is_string())
      return c.Fail("field '" + std::string(key) + "' must be an array of strings");
    out.push_back(*e.value<std::string>());
  }
  return out;
}

Result<std::shared_ptr<const Regex>> CompileField(const toml::table& t,
                                                  std::string_view key, const Ctx& ctx,
                                                  const RegexOptions& ro) {
  auto s = GetString(t, key, ctx, false);
  if (!s.ok()) return s.error();
  if (!t.contains(key)) return std::shared_ptr<const Regex>();
  auto r = Regex::Compile(*s, ro);
  if (!r.ok()) {
    Ctx c = ctx;
    c.line = LineOf(*t.get(key));
    return c.Fail("field '" + std::string(key) + "': regex /" + *s +
                  "/: PCRE2 error: " + r.error().message);
  }
  return std::make_shared<const Regex>(std::move(r).value());
}

Result<Condition> ParseCondition(const toml::table& t, const Ctx& ctx,
                                 const RegexOptions& ro, bool top,
                                 std::string_view where);

Result<std::vector<Condition>> ParseConditionList(const toml::table& t,
                                                  std::string_view key, const Ctx& ctx,
                                                  const RegexOptions& ro) {
  std::vector<Condition> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  Ctx c = ctx;
  c.line = LineOf(*n);
  const toml::array* a = n->as_array();
  if (a == nullptr)
    return c.Fail("field '" + std::string(key) +
                  "' must be an array of inline tables {region, regex, ...}");
  int i = 0;
  for (auto&& e : *a) {
    const toml::table* sub = e.as_table();
    if (sub == nullptr)
      return c.Fail("field '" + std::string(key) + "[" + std::to_string(i) +
                    "]' must be an inline table {region, regex, ...}");
    auto cond = ParseCondition(*sub, c, ro, false,
                               std::string(key) + "[" + std::to_string(i) + "]");
    if (!cond.ok()) return cond.error();
    out.push_back(std::move(cond).value());
    ++i;
  }
  return out;
}

Result<Condition> ParseCondition(const toml::table& t, const Ctx& ctx,
                                 const RegexOptions& ro, bool top,
                                 std::string_view where) {
  Condition c;
  if (!top) {
    auto st = CheckKeys(t, {"region", "regex", "menu", "all", "any", "not"}, ctx, where);
    if (!st.ok()) return st.error();
    if (t.contains("region")) {
      auto rs = GetString(t, "region", ctx, true);
      if (!rs.ok()) return rs.error();
      auto r = ParseRegion(*rs);
      if (!r.ok()) return ctx.Fail(std::string(where) + ": " + r.error().message);
      c.region = *r;
    }
  }
  auto re = CompileField(t, "regex", ctx, ro);
  if (!re.ok()) {
    if (top) return re.error();
    return MakeError(Err::kPatternInvalid,
                     re.error().message + " (in " + std::string(where) + ")");
  }
  c.regex = *re;
  auto menu = GetBool(t, "menu", ctx, false);
  if (!menu.ok()) return menu.error();
  c.menu = *menu;
  for (auto [key, dst] :
       {std::pair{"all", &c.all}, std::pair{"any", &c.any}, std::pair{"not", &c.none}}) {
    auto list = ParseConditionList(t, key, ctx, ro);
    if (!list.ok()) return list.error();
    *dst = std::move(list).value();
  }
  if (!c.regex && !c.menu && c.all.empty() && c.any.empty() && c.none.empty())
    return ctx.Fail(std::string(where) +
                    " has no test: give regex, menu, all, any or not");
  return c;
}

Result<Rule> ParseRule(const toml::table& t, const Ctx& file_ctx,
                       const RegexOptions& ro) {
  Ctx ctx = file_ctx;
  ctx.line = LineOf(t);
  Rule rule;
  rule.line = ctx.line;
  auto id = GetString(t, "id", ctx, true);
  if (!id.ok()) return id.error();
  if (id->empty()) return ctx.Fail("field 'id' is empty");
  rule.id = *id;
  ctx.rule_id = rule.id;
  auto keys = CheckKeys(t,
                        {"id", "state", "reason", "region", "regex", "menu", "all", "any",
                         "not", "confidence", "settle_ms", "debounce_ms", "details",
                         "approval_type", "menu_footer", "completes", "note"},
                        ctx, "a rule");
  if (!keys.ok()) return keys.error();

  auto state = GetString(t, "state", ctx, true);
  if (!state.ok()) return state.error();
  auto st = core::ParseState(*state);
  if (*state == "hold") {
    rule.hold = true;
    st = core::State::kUnknown;
  }
  if (!st)
    return ctx.Fail("unknown state '" + *state + "' (a canonical state, or \"hold\")");
  rule.state = *st;
  auto reason = GetString(t, "reason", ctx, false);
  if (!reason.ok()) return reason.error();
  rule.reason_code = *reason;
  if (rule.state == core::State::kUnknown && !rule.hold && rule.reason_code.empty())
    return ctx.Fail("a rule for state 'unknown' needs a 'reason'");

  auto region = GetString(t, "region", ctx, false, "whole_screen");
  if (!region.ok()) return region.error();
  auto r = ParseRegion(*region);
  if (!r.ok()) return ctx.Fail(r.error().message);
  rule.region = *r;

  auto cond = ParseCondition(t, ctx, ro, true, "the rule");
  if (!cond.ok()) return cond.error();
  rule.cond = std::move(cond).value();

  auto conf = GetString(t, "confidence", ctx, false, "medium");
  if (!conf.ok()) return conf.error();
  auto c = core::ParseConfidence(*conf);
  if (!c) return ctx.Fail("confidence must be high, medium or low, not '" + *conf + "'");
  rule.confidence = *c;
  auto settle = GetInt(t, "settle_ms", ctx, -1, -1, 60000);
  if (!settle.ok()) return settle.error();
  rule.settle_ms = static_cast<int>(*settle);
  auto debounce = GetInt(t, "debounce_ms", ctx, -1, -1, 60000);
  if (!debounce.ok()) return debounce.error();
  rule.debounce_ms = static_cast<int>(*debounce);
  auto details = CompileField(t, "details", ctx, ro);
  if (!details.ok()) return details.error();
  rule.details = *details;
  if (t.contains("menu_footer")) {
    auto mf = GetString(t, "menu_footer", ctx, true);
    if (!mf.ok()) return mf.error();
    rule.menu_footer_set = true;
    if (!mf->empty()) {
      auto re = CompileField(t, "menu_footer", ctx, ro);
      if (!re.ok()) return re.error();
      rule.menu_footer = *re;
    }
  }
  auto completes = GetBool(t, "completes", ctx, true);
  if (!completes.ok()) return completes.error();
  rule.completes = *completes;
  auto at = GetString(t, "approval_type", ctx, false);
  if (!at.ok()) return at.error();
  rule.approval_type = *at;
  return rule;
}

Result<MenuStyle> ParseMenuStyle(const toml::table& t, const Ctx& file_ctx,
                                 const RegexOptions& ro) {
  Ctx ctx = file_ctx;
  ctx.line = LineOf(t);
  auto keys = CheckKeys(t,
                        {"cursor", "footer", "footer_within", "max_gap", "hint",
                         "question", "column_gap", "wrap_margin", "scroll_marker",
                         "cursor_off_list", "unnumbered", "dialog_top", "prompt",
                         "question_required"},
                        ctx, "[menu]");
  if (!keys.ok()) return keys.error();
  MenuStyle m;
  if (t.contains("cursor")) {
    auto g = GetStrings(t, "cursor", ctx);
    if (!g.ok()) return g.error();
    m.cursor_glyphs = *g;
  }
  for (auto [key, dst] : {std::pair{"footer", &m.footer}, std::pair{"hint", &m.hint},
                          std::pair{"question", &m.question},
                          std::pair{"dialog_top", &m.dialog_top},
                          std::pair{"prompt", &m.prompt}}) {
    auto re = CompileField(t, key, ctx, ro);
    if (!re.ok()) return re.error();
    *dst = *re;
  }
  auto within = GetInt(t, "footer_within", ctx, m.footer_within, 1, 100);
  if (!within.ok()) return within.error();
  m.footer_within = static_cast<int>(*within);
  auto gap = GetInt(t, "max_gap", ctx, m.max_gap, 0, 50);
  if (!gap.ok()) return gap.error();
  m.max_gap = static_cast<int>(*gap);
  auto margin = GetInt(t, "wrap_margin", ctx, m.wrap_margin, 0, 1000);
  if (!margin.ok()) return margin.error();
  m.wrap_margin = static_cast<int>(*margin);
  auto cg = GetBool(t, "column_gap", ctx, false);
  if (!cg.ok()) return cg.error();
  m.column_gap = *cg;
  auto sm = GetString(t, "scroll_marker", ctx, false);
  if (!sm.ok()) return sm.error();
  m.scroll_marker = *sm;
  auto off = GetBool(t, "cursor_off_list", ctx, false);
  if (!off.ok()) return off.error();
  m.cursor_off_list = *off;
  auto unnumbered = GetBool(t, "unnumbered", ctx, false);
  if (!unnumbered.ok()) return unnumbered.error();
  m.unnumbered = *unnumbered;
  auto qr = GetBool(t, "question_required", ctx, false);
  if (!qr.ok()) return qr.error();
  m.question_required = *qr;
  return m;
}

Result<TimingOverrides> ParseTiming(const toml::table& t, const Ctx& file_ctx) {
  Ctx ctx = file_ctx;
  ctx.line = LineOf(t);
  auto keys = CheckKeys(t,
                        {"activity_ms", "echo_grace_ms", "approval_settle_ms",
                         "debounce_ms", "cap_activity"},
                        ctx, "[timing]");
  if (!keys.ok()) return keys.error();
  TimingOverrides o;
  for (auto [key, dst] : {std::pair{"activity_ms", &o.activity_ms},
                          std::pair{"echo_grace_ms", &o.echo_grace_ms},
                          std::pair{"approval_settle_ms", &o.approval_settle_ms},
                          std::pair{"debounce_ms", &o.debounce_ms}}) {
    auto v = GetInt(t, key, ctx, -1, 0, 60000);
    if (!v.ok()) return v.error();
    *dst = static_cast<int>(*v);
  }
  if (t.contains("cap_activity")) {
    auto b = GetBool(t, "cap_activity", ctx, false);
    if (!b.ok()) return b.error();
    o.cap_activity = *b ? 1 : 0;
  }
  return o;
}

Result<PatternSet> ParseTable(const toml::table& doc, std::string_view path,
                              const RegexOptions& ro) {
  Ctx ctx{path, {}, 0};
  auto keys = CheckKeys(doc,
                        {"format", "name", "agent", "version", "verified_on", "notes",
                         "mode", "menu", "timing", "rule"},
                        ctx, "the top level");
  if (!keys.ok()) return keys.error();
  PatternSet set;
  set.path = std::string(path);
  auto format = GetInt(doc, "format", ctx, 1, 1, 1);
  if (!format.ok()) return format.error();
  set.format = static_cast<int>(*format);
  for (auto [key, dst] :
       {std::pair{"version", &set.version}, std::pair{"notes", &set.notes}}) {
    auto s = GetString(doc, key, ctx, false);
    if (!s.ok()) return s.error();
    *dst = *s;
  }
  auto name = GetString(doc, "agent", ctx, false);
  if (!name.ok()) return name.error();
  set.name = *name;
  auto verified = GetStrings(doc, "verified_on", ctx);
  if (!verified.ok()) return verified.error();
  set.verified_on = *verified;
  auto mode = GetString(doc, "mode", ctx, false, "extend");
  if (!mode.ok()) return mode.error();
  if (*mode != "extend" && *mode != "replace")
    return ctx.Fail("mode must be 'extend' or 'replace', not '" + *mode + "'");
  set.replace = *mode == "replace";
  if (const toml::node* m = doc.get("menu")) {
    if (!m->is_table()) return ctx.Fail("[menu] must be a table");
    auto style = ParseMenuStyle(*m->as_table(), ctx, ro);
    if (!style.ok()) return style.error();
    set.menu = std::move(style).value();
  }
  if (const toml::node* tm = doc.get("timing")) {
    if (!tm->is_table()) return ctx.Fail("[timing] must be a table");
    auto timing = ParseTiming(*tm->as_table(), ctx);
    if (!timing.ok()) return timing.error();
    set.timing = *timing;
  }
  std::set<std::string> ids;
  if (const toml::node* rules = doc.get("rule")) {
    const toml::array* a = rules->as_array();
    if (a == nullptr) return ctx.Fail("'rule' must be an array of tables ([[rule]])");
    for (auto&& e : *a) {
      const toml::table* t = e.as_table();
      if (t == nullptr) return ctx.Fail("'rule' must be an array of tables ([[rule]])");
      auto rule = ParseRule(*t, ctx, ro);
      if (!rule.ok()) return rule.error();
      if (!ids.insert(rule->id).second) {
        Ctx c = ctx;
        c.line = rule->line;
        c.rule_id = rule->id;
        return c.Fail("duplicate rule id");
      }
      set.rules.push_back(std::move(rule).value());
    }
  }
  return set;
}

}  // namespace

const Rule* PatternSet::FindRule(std::string_view id) const {
  for (const auto& r : rules)
    if (r.id == id) return &r;
  return nullptr;
}

namespace {

/// A set without an `agent` key is named by its file stem:
/// ".../claude.toml" -> "claude".
std::string StemName(std::string_view path) {
  std::string_view stem = path.substr(path.find_last_of('/') + 1);
  return std::string(stem.substr(0, stem.find('.')));
}

}  // namespace

Result<std::string> PatternSetName(std::string_view text, std::string_view path) {
  auto doc = core::ParseToml(text, path, Err::kPatternInvalid);
  if (!doc.ok()) return doc.error();
  if (auto agent = (*doc)["agent"].value<std::string>(); agent && !agent->empty()) return *agent;
  return StemName(path);
}

Result<PatternSet> ParsePatternSet(std::string_view text, std::string_view path,
                                   const RegexOptions& regex_options) {
  auto doc = core::ParseToml(text, path, Err::kPatternInvalid);
  if (!doc.ok()) return doc.error();
  auto set = ParseTable(*doc, path, regex_options);
  if (set.ok() && set->name.empty()) set->name = StemName(path);
  return set;
}

PatternSet MergePatternSets(const PatternSet& builtin, const PatternSet& user) {
  if (user.replace) return user;
  PatternSet out = builtin;
  out.path = user.path + " (over " + builtin.path + ")";
  if (!user.version.empty()) out.version = builtin.version + "+" + user.version;
  // A user file that reads a newer release says so: its versions count as
  // verified too (libagtcore/detect/verified.h).
  for (const auto& v : user.verified_on)
    if (std::find(out.verified_on.begin(), out.verified_on.end(), v) == out.verified_on.end())
      out.verified_on.push_back(v);
  if (user.menu.footer || user.menu.hint || user.menu.question || user.menu.prompt)
    out.menu = user.menu;
  auto pick = [](int u, int b) { return u >= 0 ? u : b; };
  out.timing.activity_ms = pick(user.timing.activity_ms, builtin.timing.activity_ms);
  out.timing.echo_grace_ms =
      pick(user.timing.echo_grace_ms, builtin.timing.echo_grace_ms);
  out.timing.approval_settle_ms =
      pick(user.timing.approval_settle_ms, builtin.timing.approval_settle_ms);
  out.timing.debounce_ms = pick(user.timing.debounce_ms, builtin.timing.debounce_ms);
  out.timing.cap_activity = pick(user.timing.cap_activity, builtin.timing.cap_activity);
  out.rules = user.rules;
  for (const auto& r : builtin.rules)
    if (user.FindRule(r.id) == nullptr) out.rules.push_back(r);
  return out;
}

}  // namespace agt::detect
