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
  /// The screen row of the bottom-most [menu] prompt row, -1 when none.
  int PromptRow();
  /// Takes the prompt row another set's style found (the generic set read
  /// under an agent's own knows no prompt of its own): a menu above it is
  /// not live for this view either.
  void SetPromptRow(int row) {
    prompt_found_ = true;
    prompt_row_ = row;
    cutter_.SetPromptRow(row);
  }

 private:
  static int Key(const Region& r) { return static_cast<int>(r.kind) * 10000 + r.lines; }
  void FindDialog();
  void FindPrompt();
  /// False for a menu (found in rows starting at screen row `first_row`)
  /// that is not the last thing on screen: the agent's prompt row, or two
  /// horizontal rules (an input box), below its options and footer (an
  /// answered dialog left in the scrollback above what came after it).
  bool Live(const Menu& menu, int first_row);
  RegionCutter cutter_;
  const MenuStyle* style_;
  bool dialog_found_ = false;
  bool prompt_found_ = false;
  int prompt_row_ = -1;
  std::map<int, RegionText> cache_;
  std::map<std::string, std::pair<std::optional<Menu>, std::string>> menus_;
  int width_;
};

/// Matches `rule`; `trace`, when given, receives one indented line per test.
std::optional<RuleMatch> MatchRule(const Rule& rule, const MenuStyle& style,
                                   ScreenView& view,
                                   std::vector<std::string>* trace = nullptr);

}  // namespace agt::detect
