// Matching one rule against one screen, with an optional trace of every
// test and why it passed or failed (the engine behind `patterns explain`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libagtcore/detect/pattern_set.h"

namespace agt::detect {

struct RuleMatch {
  const Rule* rule = nullptr;
  std::string evidence;        // the row the rule's first positive test matched
  int evidence_row = -1;       // its screen row, -1 off-screen (title, stream)
  core::WaitingDetail detail;  // filled for rules with a menu or extractions
  /// For a menu in a scrolling list (Menu::scrolled): the number of
  /// detail.choices[0]; 0 otherwise. The analyzer joins what it saw of the
  /// list across frames.
  int scrolled_first = 0;
};

/// One screen seen through regions; cuts each region once. `style` is the
/// agent set's menu style, which finds the `dialog` region (the last menu and
/// the rows above it up to [menu] dialog_top); without it that region is empty.
class ScreenView {
 public:
  explicit ScreenView(const AnalyzerInput& in, const MenuStyle* style = nullptr)
      : cutter_(in), style_(style), width_(in.screen != nullptr ? in.screen->cols : 0) {}
  const RegionText& Get(const Region& r);
  /// The menu in region `r`, found once per (region) and cached.
  const std::optional<Menu>& MenuIn(const Region& r, const MenuStyle& style,
                                    std::string* why);

 private:
  static int Key(const Region& r) { return static_cast<int>(r.kind) * 10000 + r.lines; }
  void FindDialog();
  RegionCutter cutter_;
  const MenuStyle* style_;
  bool dialog_found_ = false;
  std::map<int, RegionText> cache_;
  std::map<std::string, std::pair<std::optional<Menu>, std::string>> menus_;
  int width_;
};

/// Matches `rule`; `trace`, when given, receives one indented line per test.
std::optional<RuleMatch> MatchRule(const Rule& rule, const MenuStyle& style,
                                   ScreenView& view,
                                   std::vector<std::string>* trace = nullptr);

}  // namespace agt::detect
