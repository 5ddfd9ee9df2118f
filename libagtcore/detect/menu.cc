// Structural menu recognition shared by every agent's approval and question
// dialogs. The analyzer calls it on a rule's region; the rule then reports
// the choices, the cursor position and multi-select from what it found.
#include "libagtcore/detect/menu.h"

#include <cctype>

#include "libagtcore/detect/region.h"

namespace agt::detect {
namespace {

struct Option {
  int row = 0;
  int number = 0;
  bool cursor = false;
  std::string_view label;
  std::string continuation;  // wrapped rows of the label, joined by spaces
};

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

bool StartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

std::string_view TrimSpaces(std::string_view s) {
  // Spaces, and U+00A0 (C2 A0) which Claude puts after its prompt glyph.
  while (true) {
    if (!s.empty() && s.front() == ' ')
      s.remove_prefix(1);
    else if (StartsWith(s, "\xC2\xA0"))
      s.remove_prefix(2);
    else
      break;
  }
  while (true) {
    if (!s.empty() && s.back() == ' ')
      s.remove_suffix(1);
    else if (s.size() >= 2 && s.substr(s.size() - 2) == "\xC2\xA0")
      s.remove_suffix(2);
    else
      break;
  }
  return s;
}

std::optional<Option> ParseOption(std::string_view line, int row,
                                  const MenuStyle& style) {
  Option o;
  o.row = row;
  std::string_view s = TrimBox(line);
  for (const auto& g : style.cursor_glyphs) {
    if (!g.empty() && StartsWith(s, g)) {
      o.cursor = true;
      s = TrimSpaces(s.substr(g.size()));
      break;
    }
  }
  size_t i = 0;
  while (i < s.size() && i < 3 && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i == 3 || i + 1 >= s.size() || s[i] != '.' || s[i + 1] != ' ')
    return std::nullopt;
  o.number = std::stoi(std::string(s.substr(0, i)));
  o.label = TrimSpaces(s.substr(i + 2));
  if (o.label.empty()) return std::nullopt;
  return o;
}

// "[ ] x", "[x] x", "☐ x", ... -> true, and removes the box.
bool StripBox(std::string_view* label) {
  static const std::string_view kBoxes[] = {"[ ]", "[x]", "[X]", "[✓]", "[✔]", "[•]",
                                            "[*]", "☐",   "☑",   "☒",   "◻",   "◼"};
  for (auto b : kBoxes) {
    if (StartsWith(*label, b)) {
      *label = TrimSpaces(label->substr(b.size()));
      return true;
    }
  }
  return false;
}

std::string CleanLabel(const std::string& full, const MenuStyle& style, bool* boxed) {
  std::string_view label = full;
  if (style.column_gap) {
    size_t gap = label.find("  ");
    if (gap != std::string_view::npos) label = label.substr(0, gap);
  }
  *boxed = StripBox(&label);
  const Regex* hint = style.hint ? style.hint.get() : DefaultHintRegex().get();
  RegexMatch m;
  if (hint->Search(label, &m) && m.groups[0].second == label.size())
    label = TrimSpaces(label.substr(0, m.groups[0].first));
  return std::string(label);
}

}  // namespace

std::string_view TrimBox(std::string_view s) {
  s = TrimSpaces(s);
  for (std::string_view b : {"│", "┃", "|"}) {
    if (StartsWith(s, b)) s = TrimSpaces(s.substr(b.size()));
    if (s.size() >= b.size() && s.substr(s.size() - b.size()) == b)
      s = TrimSpaces(s.substr(0, s.size() - b.size()));
  }
  return s;
}

std::shared_ptr<const Regex> DefaultHintRegex() {
  static const std::shared_ptr<const Regex> re = [] {
    auto r = Regex::Compile(
        R"(\s*\((?:esc|tab|enter|shift\+tab|ctrl\+\w|alt\+\w|[a-z0-9])\)$)");
    AGT_CHECK(r.ok());
    return std::make_shared<const Regex>(std::move(r).value());
  }();
  return re;
}

namespace {

std::optional<Menu> Reject(std::string* why, std::string reason) {
  if (why != nullptr) *why = std::move(reason);
  return std::nullopt;
}

// The dialog's footer: a row matching style.footer within footer_within rows
// below the last option. False (and `why`) when the style wants one and none is there.
bool FindFooter(const std::vector<std::string_view>& lines, const MenuStyle& style,
                Menu* menu, std::string* why) {
  const int below = std::min(static_cast<int>(lines.size()) - 1,
                             menu->last_row + style.footer_within);
  if (!style.footer) return true;
  for (int r = menu->last_row + 1; r <= below; ++r) {
    if (style.footer->Search(lines[static_cast<size_t>(r)])) {
      menu->footer_row = r;
      return true;
    }
  }
  Reject(why, "no footer matching /" + style.footer->pattern() + "/ within " +
                  std::to_string(style.footer_within) + " rows below the options");
  return false;
}

// The question: a row above option 1 (the nearest matching `question`, else
// the nearest non-blank row that is not a horizontal rule).
void FindQuestion(const std::vector<std::string_view>& lines, const MenuStyle& style,
                  Menu* menu) {
  for (int r = menu->first_row - 1; r >= 0 && r >= menu->first_row - 8; --r) {
    std::string_view t = TrimBox(lines[static_cast<size_t>(r)]);
    if (t.empty()) continue;
    if (IsRuleLine(t)) continue;
    if (style.question && !style.question->Search(t)) continue;
    if (!style.scroll_marker.empty() && t == style.scroll_marker) continue;
    menu->question = std::string(t);
    break;
  }
}

// The code-point column where a row's text starts (after leading spaces), or
// npos for a blank row.
size_t TextColumn(std::string_view line) {
  size_t i = line.find_first_not_of(' ');
  return i == std::string_view::npos ? std::string_view::npos : CodePoints(line.substr(0, i));
}

// Options without numbers: the last row that starts with a cursor glyph (and
// is no numbered option), and the rows around it, without a blank row between,
// whose text starts in the column of its label.
std::optional<Menu> FindUnnumbered(const std::vector<std::string_view>& lines,
                                   const MenuStyle& style, std::string* why) {
  int cursor_row = -1;
  size_t label_col = 0;
  std::string_view cursor_label;
  for (int r = static_cast<int>(lines.size()) - 1; r >= 0 && cursor_row < 0; --r) {
    std::string_view line = lines[static_cast<size_t>(r)];
    size_t lead = line.find_first_not_of(' ');
    if (lead == std::string_view::npos) continue;
    for (const auto& g : style.cursor_glyphs) {
      std::string_view rest = line.substr(lead);
      if (g.empty() || !StartsWith(rest, g)) continue;
      rest.remove_prefix(g.size());
      if (rest.empty() || rest.front() != ' ') continue;
      std::string_view label = TrimSpaces(rest);
      if (label.empty() || ParseOption(line, r, style)) continue;
      cursor_row = r;
      cursor_label = label;
      label_col = CodePoints(line.substr(0, static_cast<size_t>(label.data() - line.data())));
      break;
    }
  }
  if (cursor_row < 0) return Reject(why, "no numbered options, and no row starts with a cursor glyph");
  auto is_option = [&](int r) {
    std::string_view line = lines[static_cast<size_t>(r)];
    return TextColumn(line) == label_col && !IsRuleLine(line) && !ParseOption(line, r, style);
  };
  int first = cursor_row;
  while (first > 0 && is_option(first - 1)) --first;
  int last = cursor_row;
  while (last + 1 < static_cast<int>(lines.size()) && is_option(last + 1)) ++last;
  if (first == last)
    return Reject(why, "the cursor row \"" + std::string(cursor_label) +
                           "\" has no option rows next to it");
  Menu menu;
  menu.numbered = false;
  menu.first_row = first;
  menu.last_row = last;
  menu.cursor_position = cursor_row - first + 1;
  int boxed = 0;
  for (int r = first; r <= last; ++r) {
    std::string label(r == cursor_row ? cursor_label : TrimSpaces(lines[static_cast<size_t>(r)]));
    bool b = false;
    menu.choices.push_back(CleanLabel(label, style, &b));
    if (b) ++boxed;
  }
  menu.multi_select = boxed >= 2;
  if (!FindFooter(lines, style, &menu, why)) return std::nullopt;
  FindQuestion(lines, style, &menu);
  if (style.question_required && menu.question.empty())
    return Reject(why, "no question row within 8 rows above option 1");
  return menu;
}

std::optional<Menu> FindNumbered(const std::vector<std::string_view>& lines,
                                 const MenuStyle& style, std::string* why, int width) {
  auto fail = [why](std::string reason) { return Reject(why, std::move(reason)); };
  std::vector<Option> opts;
  for (size_t r = 0; r < lines.size(); ++r) {
    auto o = ParseOption(lines[r], static_cast<int>(r), style);
    if (!o) continue;
    // A long label wraps onto indented rows below it (not a new option).
    size_t label_col = CodePoints(
        lines[r].substr(0, static_cast<size_t>(o->label.data() - lines[r].data())));
    for (size_t n = r + 1; width > 0 && n < lines.size(); ++n) {
      size_t prev_len = CodePoints(lines[n - 1]);
      if (prev_len + static_cast<size_t>(style.wrap_margin) < static_cast<size_t>(width))
        break;
      std::string_view next = lines[n];
      size_t indent = next.find_first_not_of(' ');
      if (indent == std::string_view::npos || indent != label_col) break;
      if (ParseOption(next, static_cast<int>(n), style)) break;
      o->continuation += " " + std::string(TrimSpaces(next));
    }
    opts.push_back(*o);
  }
  if (opts.empty()) return fail("no numbered option rows");

  // The last run 1, 2, ..., k (k >= 2) with small gaps between options.
  int run_end = -1;
  int run_begin = -1;
  bool run_scrolled = false;
  for (int i = static_cast<int>(opts.size()) - 1; i >= 0 && run_end < 0; --i) {
    // Walk back from opts[i] while numbers go down by one.
    int j = i;
    while (j > 0 &&
           opts[static_cast<size_t>(j - 1)].number ==
               opts[static_cast<size_t>(j)].number - 1 &&
           opts[static_cast<size_t>(j)].row - opts[static_cast<size_t>(j - 1)].row - 1 <=
               style.max_gap)
      --j;
    bool scrolled = false;
    if (!style.scroll_marker.empty()) {
      for (int r = opts[static_cast<size_t>(j)].row - 1; r >= 0; --r) {
        std::string_view t = TrimBox(lines[static_cast<size_t>(r)]);
        if (t.empty()) continue;
        scrolled = t == style.scroll_marker;
        break;
      }
    }
    if ((opts[static_cast<size_t>(j)].number == 1 || scrolled) && i > j) {
      run_begin = j;
      run_end = i;
      run_scrolled = scrolled;
    }
  }
  if (run_end < 0) return fail("no consecutive options numbered from 1");

  Menu menu;
  int cursors = 0;
  int boxed = 0;
  for (int i = run_begin; i <= run_end; ++i) {
    const Option& o = opts[static_cast<size_t>(i)];
    bool b = false;
    menu.choices.push_back(CleanLabel(std::string(o.label) + o.continuation, style, &b));
    if (b) ++boxed;
    if (o.cursor) {
      ++cursors;
      menu.cursor_position = o.number;
    }
  }
  if (cursors > 1 || (cursors == 0 && !style.cursor_off_list))
    return fail("options 1.." + std::to_string(menu.choices.size()) + " carry " +
                std::to_string(cursors) + " cursor glyphs (need exactly 1)");
  menu.multi_select = boxed >= 2;
  menu.first_number = opts[static_cast<size_t>(run_begin)].number;
  menu.scrolled = run_scrolled;
  menu.first_row = opts[static_cast<size_t>(run_begin)].row;
  menu.last_row = opts[static_cast<size_t>(run_end)].row;

  const int below = std::min(static_cast<int>(lines.size()) - 1,
                             menu.last_row + style.footer_within);
  if (!FindFooter(lines, style, &menu, why)) return std::nullopt;

  if (cursors == 0) {
    // cursor_off_list: the cursor glyph must be on a row between the last
    // option and the footer ("●  Done"); anywhere else it is no menu.
    const int end = menu.footer_row >= 0 ? menu.footer_row - 1 : below;
    bool found = false;
    for (int r = menu.last_row + 1; r <= end && !found; ++r) {
      std::string_view t = TrimBox(lines[static_cast<size_t>(r)]);
      for (const auto& g : style.cursor_glyphs)
        found = found || (!g.empty() && StartsWith(t, g));
    }
    if (!found)
      return fail("options 1.." + std::to_string(menu.choices.size()) +
                  " carry no cursor glyph, and no row between them and the footer does");
    menu.cursor_position = 0;
  }

  FindQuestion(lines, style, &menu);
  if (style.question_required && menu.question.empty())
    return fail("no question row within 8 rows above option 1");
  return menu;
}

}  // namespace

std::optional<Menu> FindMenu(const std::vector<std::string_view>& lines,
                             const MenuStyle& style, std::string* why, int width) {
  std::string numbered_why;
  auto menu = FindNumbered(lines, style, &numbered_why, width);
  if (menu || !style.unnumbered) {
    if (!menu && why != nullptr) *why = numbered_why;
    return menu;
  }
  std::string unnumbered_why;
  menu = FindUnnumbered(lines, style, &unnumbered_why);
  if (!menu && why != nullptr) *why = numbered_why + "; without numbers: " + unnumbered_why;
  return menu;
}

}  // namespace agt::detect
