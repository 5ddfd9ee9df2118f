// Terminal (see terminal.h): the only file of `agtmux ui` that calls ncurses.
// Colours follow the tables' rule (cli/table.h ColorEnabled: NO_COLOR
// turns them off) on the terminal's default background.
#include "cli/ui/terminal.h"

#include <curses.h>

#include <climits>
#include <clocale>
#include <cstdlib>

namespace agt::cli::ui {
namespace {

enum Pair : short { kPairRed = 1, kPairYellow, kPairGreen, kPairCyan };

}  // namespace

Terminal::Terminal() {
  std::setlocale(LC_ALL, "");
  set_escdelay(25);  // Esc quits: do not wait a second for an escape sequence
  initscr();
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  curs_set(0);
  const char* nc = std::getenv("NO_COLOR");
  color_ = has_colors() && !(nc && *nc);
  if (color_) {
    start_color();
    use_default_colors();
    init_pair(kPairRed, COLOR_RED, -1);
    init_pair(kPairYellow, COLOR_YELLOW, -1);
    init_pair(kPairGreen, COLOR_GREEN, -1);
    init_pair(kPairCyan, COLOR_CYAN, -1);
    next_pair_ = kPairCyan + 1;
  }
}

short Terminal::PairFor(int16_t fg, int16_t bg) {
  if (fg < 0 && bg < 0) return 0;
  auto it = pairs_.find({fg, bg});
  if (it != pairs_.end()) return it->second;
  // A colour the terminal lacks: a bright one (8-15) as its base colour,
  // anything else as the default.
  auto fit = [](int16_t c) -> short {
    if (c < COLORS) return c;
    if (c < 16 && c - 8 < COLORS) return static_cast<short>(c - 8);
    return -1;
  };
  short pair = 0;
  if (next_pair_ < COLOR_PAIRS && next_pair_ < SHRT_MAX && init_pair(next_pair_, fit(fg), fit(bg)) == OK)
    pair = next_pair_++;
  pairs_[{fg, bg}] = pair;
  return pair;
}

Terminal::~Terminal() { End(); }

void Terminal::End() {
  if (ended_) return;
  ended_ = true;
  curs_set(1);
  endwin();
}

int Terminal::cols() const { return COLS; }
int Terminal::rows() const { return LINES; }

int Terminal::ReadKey() {
  while (true) {
    wint_t ch = 0;
    int rc = get_wch(&ch);
    if (rc == ERR) return -1;
    if (rc == KEY_CODE_YES) {
      switch (ch) {
        case KEY_RESIZE:
          resized_ = true;
          last_.clear();
          continue;
        case KEY_UP: return kKeyUp;
        case KEY_DOWN: return kKeyDown;
        case KEY_NPAGE: return kKeyPageDown;
        case KEY_PPAGE: return kKeyPageUp;
        case KEY_HOME: return kKeyHome;
        case KEY_END: return kKeyEnd;
        case KEY_ENTER: return kKeyEnter;
        case KEY_BACKSPACE: return kKeyBackspace;
        default: continue;  // a key the view has no use for
      }
    }
    if (ch == '\r' || ch == '\n') return kKeyEnter;
    if (ch == 27) return kKeyEscape;
    if (ch == 127 || ch == 8) return kKeyBackspace;
    return static_cast<int>(ch);
  }
}

size_t Terminal::Paint(const std::vector<FrameLine>& frame) {
  size_t changed = 0;
  for (size_t i = 0; i < frame.size() && static_cast<int>(i) < LINES; ++i) {
    if (i < last_.size() && last_[i] == frame[i]) continue;
    ++changed;
    move(static_cast<int>(i), 0);
    for (const auto& seg : frame[i].segments) {
      attr_t a = A_NORMAL;
      short pair = 0;
      switch (seg.style) {
        case Style::kPlain: break;
        case Style::kTitle:
        case Style::kHeader: a = A_BOLD; break;
        case Style::kSelected: a = A_REVERSE; break;
        case Style::kDim: a = A_DIM; break;
        case Style::kError: a = A_BOLD, pair = kPairRed; break;
        case Style::kRed: pair = kPairRed; break;
        case Style::kYellow: pair = kPairYellow; break;
        case Style::kGreen: pair = kPairGreen; break;
        case Style::kCyan: pair = kPairCyan; break;
        case Style::kPrompt: a = A_BOLD, pair = kPairCyan; break;
      }
      // A previewed pane's own colours and attributes.
      if (seg.attrs & kAttrBold) a |= A_BOLD;
      if (seg.attrs & kAttrDim) a |= A_DIM;
      if (seg.attrs & kAttrItalic) a |= A_ITALIC;
      if (seg.attrs & kAttrUnderline) a |= A_UNDERLINE;
      if (seg.attrs & kAttrReverse) a |= A_REVERSE;
      if (color_ && pair == 0 && (seg.fg >= 0 || seg.bg >= 0)) pair = PairFor(seg.fg, seg.bg);
      if (!color_) pair = 0;
      attrset(a | COLOR_PAIR(pair));
      addstr(seg.text.c_str());
    }
    attrset(A_NORMAL);
    // The line's end: clrtoeol, unless the text reached the last column
    // (the cursor then sits on the next line).
    if (LineWidth(frame[i]) < COLS) clrtoeol();
  }
  for (size_t i = frame.size(); static_cast<int>(i) < LINES; ++i) {
    move(static_cast<int>(i), 0);
    clrtoeol();
  }
  last_ = frame;
  wnoutrefresh(stdscr);
  doupdate();
  return changed;
}

}  // namespace agt::cli::ui
