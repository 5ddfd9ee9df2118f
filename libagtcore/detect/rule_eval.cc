// Evaluates a rule's condition tree (regex, menu, all/any/not) on the
// regions of one screen and extracts the waiting detail. Pure: the same
// screen gives the same match, whichever mode (PTY or CAP) produced it.
#include "libagtcore/detect/rule_eval.h"

#include <algorithm>

namespace agt::detect {
namespace {

struct EvalState {
  const MenuStyle& style;
  ScreenView& view;
  std::vector<std::string>* trace;
  std::string evidence;
  int evidence_row = -1;
  const Menu* menu = nullptr;
};

// The end of a long region: the bottom of the screen is what rules care about.
std::string Shorten(std::string_view s, size_t max = 240) {
  std::string out;
  if (s.size() > max) {
    size_t from = s.size() - max;
    while (from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80)
      ++from;
    out = "...";
    s = s.substr(from);
  }
  for (char c : s) out += c == '\n' ? '|' : c;
  return out;
}

void Trace(EvalState& st, int depth, const std::string& line) {
  if (st.trace != nullptr) st.trace->push_back(std::string(depth * 2, ' ') + line);
}

bool Eval(const Condition& c, const Region& inherited, EvalState& st, int depth,
          bool negated) {
  const Region& region = c.region ? *c.region : inherited;
  std::string where = RegionName(region);
  if (c.regex) {
    const RegionText& text = st.view.Get(region);
    RegexMatch m;
    if (!c.regex->Search(text.text, &m)) {
      Trace(st, depth,
            "FAIL regex /" + c.regex->pattern() + "/ on " + where +
                (text.text.empty() ? " (region empty)"
                                   : ": no match in \"" + Shorten(text.text) + "\""));
      return false;
    }
    // Evidence is the row where the match shows, not a blank row that a
    // leading \s* reached back into.
    size_t at = m.begin();
    while (at < m.groups[0].second && (text.text[at] == '\n' || text.text[at] == ' '))
      ++at;
    std::string_view line = text.LineAt(at);
    Trace(st, depth,
          "ok   regex /" + c.regex->pattern() + "/ on " + where + ": matched \"" +
              Shorten(line) + "\"");
    if (!negated && st.evidence.empty()) {
      st.evidence = std::string(line);
      st.evidence_row = text.RowAt(at);
    }
  }
  if (c.menu) {
    std::string why;
    const auto& menu = st.view.MenuIn(region, st.style, &why);
    if (!menu) {
      Trace(st, depth, "FAIL menu on " + where + ": " + why);
      return false;
    }
    Trace(st, depth,
          "ok   menu on " + where + ": " + std::to_string(menu->choices.size()) +
              " options, cursor on " + std::to_string(menu->cursor_position) +
              (menu->multi_select ? ", multi-select" : ""));
    if (!negated) st.menu = &*menu;
  }
  for (size_t i = 0; i < c.all.size(); ++i) {
    Trace(st, depth, "all[" + std::to_string(i) + "]:");
    if (!Eval(c.all[i], region, st, depth + 1, negated)) return false;
  }
  if (!c.any.empty()) {
    bool one = false;
    for (size_t i = 0; i < c.any.size() && !one; ++i) {
      Trace(st, depth, "any[" + std::to_string(i) + "]:");
      one = Eval(c.any[i], region, st, depth + 1, negated);
    }
    if (!one) {
      Trace(st, depth, "FAIL any: none of " + std::to_string(c.any.size()) + " held");
      return false;
    }
  }
  for (size_t i = 0; i < c.none.size(); ++i) {
    Trace(st, depth, "not[" + std::to_string(i) + "]:");
    if (Eval(c.none[i], region, st, depth + 1, true)) {
      Trace(st, depth, "FAIL not[" + std::to_string(i) + "] held");
      return false;
    }
  }
  return true;
}

}  // namespace

// The prompt row: the bottom-most row matching the set's [menu] prompt. The
// transcript is above it, the input area (the prompt, what is typed, the
// footer) from it down.
void ScreenView::FindPrompt() {
  if (prompt_found_) return;
  prompt_found_ = true;
  if (style_ == nullptr || !style_->prompt) return;
  for (int r = cutter_.last_nonblank(); r >= 0; --r) {
    if (style_->prompt->Search(cutter_.lines()[static_cast<size_t>(r)])) {
      prompt_row_ = r;
      break;
    }
  }
  cutter_.SetPromptRow(prompt_row_);
}

int ScreenView::PromptRow() {
  FindPrompt();
  return prompt_row_;
}

bool ScreenView::Live(const Menu& menu, int first_row) {
  const int end = first_row + std::max(menu.last_row, menu.footer_row);
  if (PromptRow() > end) return false;
  int rules = 0;
  for (int r = end + 1; r <= cutter_.last_nonblank(); ++r) {
    std::string_view row = cutter_.lines()[static_cast<size_t>(r)];
    const size_t b = row.find_first_not_of(' ');
    // The bottom border of the dialog's own box ("╰────╯") closes it.
    const bool closes = b != std::string_view::npos &&
                        (row.substr(b).starts_with("╰") || row.substr(b).starts_with("└"));
    if (!closes && IsRuleLine(row)) ++rules;
  }
  // Two rules below are an input box (the composer between them); one is a
  // separator above a footer (Gemini 0.29's status rows under its dialog).
  return rules < 2;
}

// The dialog region: the last menu on the whole screen (the set's style) and
// the rows above it up to the nearest [menu] dialog_top row, then down to the
// bottom. A long preview between a dialog's question and its options stays
// inside; a transcript entry or a rule above the dialog ends it. No menu: empty.
// A dialog is live only while it is the last thing on screen: an answered
// one stays in the scrollback above what came after it (a fresh banner and
// an empty prompt under an accepted warning), so a menu with the agent's
// prompt row below it, or two horizontal rules below its footer (an input
// box; the bottom border of the dialog's own box does not count, and one
// rule is a separator above a footer), is no dialog.
void ScreenView::FindDialog() {
  if (dialog_found_) return;
  dialog_found_ = true;
  if (style_ == nullptr) return;
  std::vector<std::string_view> rows;
  for (int i = 0; i <= cutter_.last_nonblank(); ++i)
    rows.emplace_back(cutter_.lines()[static_cast<size_t>(i)]);
  auto menu = rows.empty() ? std::nullopt : FindMenu(rows, *style_, nullptr, width_);
  if (!menu || !Live(*menu, 0)) return;
  int top = 0;
  for (int r = menu->first_row - 1; r >= 0 && style_->dialog_top; --r) {
    if (style_->dialog_top->Search(rows[static_cast<size_t>(r)])) {
      top = r + 1;
      break;
    }
  }
  cutter_.SetDialogRows(top, cutter_.last_nonblank());
}

const RegionText& ScreenView::Get(const Region& r) {
  auto it = cache_.find(Key(r));
  if (it != cache_.end()) return it->second;
  if (r.kind == RegionKind::kDialog) FindDialog();
  if (r.kind == RegionKind::kTranscript || r.kind == RegionKind::kInput) FindPrompt();
  return cache_.emplace(Key(r), cutter_.Cut(r)).first->second;
}

const std::optional<Menu>& ScreenView::MenuIn(const Region& r, const MenuStyle& style,
                                              std::string* why) {
  std::string key = RegionName(r) + "|" + (style.footer ? style.footer->pattern() : "");
  auto it = menus_.find(key);
  if (it == menus_.end()) {
    if (r.kind == RegionKind::kDialog) FindDialog();
    if (r.kind == RegionKind::kTranscript || r.kind == RegionKind::kInput) FindPrompt();
    int first = 0;
    int last = -1;
    cutter_.Rows(r, &first, &last);
    std::vector<std::string_view> rows;
    for (int i = first; i <= last; ++i)
      rows.emplace_back(cutter_.lines()[static_cast<size_t>(i)]);
    std::string reason = rows.empty() ? "region empty" : "";
    auto menu = rows.empty() ? std::nullopt : FindMenu(rows, style, &reason, width_);
    if (menu && !Live(*menu, first)) {
      reason = "the menu is not the last thing on screen (a prompt row or an input box below it)";
      menu.reset();
    }
    it = menus_.emplace(key, std::pair{std::move(menu), reason}).first;
  }
  if (why != nullptr) *why = it->second.second;
  return it->second.first;
}

std::optional<RuleMatch> MatchRule(const Rule& rule, const MenuStyle& style,
                                   ScreenView& view, std::vector<std::string>* trace) {
  MenuStyle own;
  const MenuStyle* use = &style;
  if (rule.menu_footer_set) {
    own = style;
    own.footer = rule.menu_footer;
    use = &own;
  }
  EvalState st{*use, view, trace, {}, -1, nullptr};
  if (!Eval(rule.cond, rule.region, st, 1, false)) return std::nullopt;
  RuleMatch m;
  m.rule = &rule;
  m.evidence = std::move(st.evidence);
  m.evidence_row = st.evidence_row;
  m.detail.approval_type = rule.approval_type;
  if (st.menu != nullptr) {
    m.detail.choices = st.menu->choices;
    m.detail.cursor_position = st.menu->cursor_position;
    m.detail.multi_select = st.menu->multi_select;
    m.detail.details = st.menu->question;
    if (st.menu->scrolled) m.scrolled_first = st.menu->first_number;
    if (m.evidence.empty()) m.evidence = st.menu->question;
  }
  if (rule.details) {
    const RegionText& text = view.Get(rule.region);
    RegexMatch dm;
    if (rule.details->Search(text.text, &dm)) {
      std::string_view d = dm.Group(text.text, dm.groups.size() > 1 ? 1 : 0);
      m.detail.details = std::string(TrimBox(d));
    }
  }
  return m;
}

}  // namespace agt::detect
