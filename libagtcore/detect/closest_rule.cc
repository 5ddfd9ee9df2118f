// Scores each rule by its top-level parts (see closest_rule.h). Each part
// becomes a rule of its own (the same id, region and menu style, with only
// that part as its condition) and goes through the one matcher the analyzer
// uses, so the score cannot drift from what the analyzer does.
#include "libagtcore/detect/closest_rule.h"

#include <algorithm>

#include "libagtcore/detect/rule_eval.h"

namespace agt::detect {
namespace {

// The top-level parts of `c`, each as a condition that holds exactly when
// that part does.
std::vector<Condition> Parts(const Condition& c) {
  std::vector<Condition> parts;
  if (c.regex) {
    Condition p;
    p.region = c.region;
    p.regex = c.regex;
    parts.push_back(std::move(p));
  }
  if (c.menu) {
    Condition p;
    p.region = c.region;
    p.menu = true;
    parts.push_back(std::move(p));
  }
  for (const Condition& a : c.all) {
    Condition p;
    p.region = c.region;
    p.all = {a};
    parts.push_back(std::move(p));
  }
  if (!c.any.empty()) {
    Condition p;
    p.region = c.region;
    p.any = c.any;
    parts.push_back(std::move(p));
  }
  for (const Condition& n : c.none) {
    Condition p;
    p.region = c.region;
    p.none = {n};
    parts.push_back(std::move(p));
  }
  return parts;
}

// The pattern without a leading `^` (and the `\s*`/`\s+` after it) and
// a trailing `$` or `\z`; "" when it has no such anchor.
std::string Unanchored(const std::string& p) {
  std::string out = p;
  bool changed = false;
  if (out.rfind("^", 0) == 0) {
    out.erase(0, 1);
    for (const char* ws : {"\\s*", "\\s+"})
      if (out.rfind(ws, 0) == 0) out.erase(0, 3);
    changed = true;
  }
  for (const char* end : {"\\z", "$"}) {
    const std::string e = end;
    if (out.size() >= e.size() && out.compare(out.size() - e.size(), e.size(), e) == 0 &&
        !(out.size() > e.size() && out[out.size() - e.size() - 1] == '\\')) {
      out.erase(out.size() - e.size());
      changed = true;
      break;
    }
  }
  return changed && !out.empty() ? out : "";
}

// Why a failed regex part of `rule` is a near miss, or "".
std::string NearMiss(const Rule& rule, const Condition& part, ScreenView& view) {
  if (!part.regex || part.menu || !part.all.empty() || !part.any.empty() || !part.none.empty())
    return "";
  const Region& region = part.region ? *part.region : rule.region;
  if (std::string relaxed = Unanchored(part.regex->pattern()); !relaxed.empty()) {
    auto re = Regex::Compile(relaxed, RegexOptions{.jit = false});
    if (re.ok() && re->Search(view.Get(region).text))
      return "near: /" + relaxed + "/ matches on " + RegionName(region) +
             ": the text is there, the anchor is not";
  }
  const Region whole{RegionKind::kWholeScreen, 0};
  if (!(region == whole) && region.kind != RegionKind::kTitle &&
      region.kind != RegionKind::kOscProgress && region.kind != RegionKind::kNotification &&
      region.kind != RegionKind::kRawStream && part.regex->Search(view.Get(whole).text))
    return "near: the regex matches on whole_screen, outside " + RegionName(region);
  return "";
}

}  // namespace

std::vector<RuleCloseness> RankRules(const PatternSet& set, const AnalyzerInput& in) {
  std::vector<RuleCloseness> out;
  ScreenView view(in, &set.menu);
  for (const Rule& rule : set.rules) {
    RuleCloseness c;
    c.rule = &rule;
    c.matched = MatchRule(rule, set.menu, view).has_value();
    for (Condition& part : Parts(rule.cond)) {
      Rule one = rule;
      one.cond = std::move(part);
      std::vector<std::string> trace;
      ++c.total;
      if (MatchRule(one, set.menu, view, &trace)) {
        ++c.held;
        continue;
      }
      for (auto& line : trace) c.failed.push_back(std::move(line));
      if (std::string near = NearMiss(rule, one.cond, view); !near.empty()) {
        ++c.near;
        c.failed.push_back("  " + near);
      }
    }
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const RuleCloseness& a, const RuleCloseness& b) {
    if (a.matched != b.matched) return a.matched;
    const int a_hard = a.total - a.held - a.near;
    const int b_hard = b.total - b.held - b.near;
    if (a_hard != b_hard) return a_hard < b_hard;
    // a.held / a.total > b.held / b.total, without division
    const long lhs = static_cast<long>(a.held) * b.total;
    const long rhs = static_cast<long>(b.held) * a.total;
    if (lhs != rhs) return lhs > rhs;
    return a.held > b.held;
  });
  return out;
}

}  // namespace agt::detect
