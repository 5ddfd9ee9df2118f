// The libvterm-backed virtual screen (see vterm_screen.h). The mosh design:
// the terminal emulator is a separate layer fed with exactly the bytes the
// real terminal gets, after they were written out.
#include "libagtcore/screen/vterm_screen.h"

#include <vterm.h>

#include <cstring>
#include <string>

#include "libagtcore/base/utf8.h"

namespace agt::screen {
namespace {

/// Length of an incomplete UTF-8 sequence at the end of `s` (0 if none).
size_t IncompleteTail(std::string_view s) {
  const size_t n = s.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto b = static_cast<unsigned char>(s[n - back]);
    if ((b & 0xC0) == 0x80) continue;  // continuation: look further back
    size_t need = 0;
    if ((b & 0xE0) == 0xC0) need = 2;
    else if ((b & 0xF0) == 0xE0) need = 3;
    else if ((b & 0xF8) == 0xF0) need = 4;
    return need > back ? back : 0;
  }
  return 0;
}

void DiscardOutput(const char*, size_t, void*) {}

}  // namespace

void VtermScreen::VTermDeleter::operator()(VTerm* vt) const { vterm_free(vt); }

struct VtermCallbacks {
  static int Damage(VTermRect, void* user) {
    static_cast<VtermScreen*>(user)->dirty_ = true;
    return 1;
  }
  static int MoveCursor(VTermPos, VTermPos, int, void* user) {
    static_cast<VtermScreen*>(user)->dirty_ = true;
    return 1;
  }
  static int TermProp(VTermProp prop, VTermValue* val, void* user) {
    auto* self = static_cast<VtermScreen*>(user);
    if (prop == VTERM_PROP_ALTSCREEN) {
      self->alt_screen_ = val->boolean != 0;
      self->dirty_ = true;
    }
    return 1;
  }
};

VtermScreen::VtermScreen(int rows, int cols) : rows_(rows), cols_(cols) {
  vt_.reset(vterm_new(rows, cols));
  vterm_set_utf8(vt_.get(), 1);
  vterm_output_set_callback(vt_.get(), &DiscardOutput, nullptr);
  screen_ = vterm_obtain_screen(vt_.get());
  static const VTermScreenCallbacks kCallbacks = [] {
    VTermScreenCallbacks cb{};
    cb.damage = &VtermCallbacks::Damage;
    cb.movecursor = &VtermCallbacks::MoveCursor;
    cb.settermprop = &VtermCallbacks::TermProp;
    return cb;
  }();
  vterm_screen_set_callbacks(screen_, &kCallbacks, this);
  vterm_screen_set_damage_merge(screen_, VTERM_DAMAGE_SCROLL);
  vterm_screen_enable_altscreen(screen_, 1);
  vterm_screen_reset(screen_, 1);
}

VtermScreen::~VtermScreen() = default;

void VtermScreen::Feed(std::string_view bytes) {
  if (bytes.empty()) return;
  // The common case: no ESC that could start a string, none held back.
  auto starts_string = [](char c) { return c == '_' || c == '^' || c == 'X'; };
  if (string_state_ == StringState::kOutside && bytes.back() != '\x1b') {
    bool clean = true;
    for (size_t i = bytes.find('\x1b'); i != std::string_view::npos && clean;
         i = bytes.find('\x1b', i + 1))
      clean = i + 1 < bytes.size() && !starts_string(bytes[i + 1]);
    if (clean) {
      FeedUnfiltered(bytes);
      return;
    }
  }
  std::string out;
  out.reserve(bytes.size() + 1);
  for (char c : bytes) {
    switch (string_state_) {
      case StringState::kOutside:
        if (c == '\x1b')
          string_state_ = StringState::kOutsideEsc;
        else
          out.push_back(c);
        break;
      case StringState::kOutsideEsc:
        if (starts_string(c)) {
          string_state_ = StringState::kInside;
        } else {
          out.push_back('\x1b');
          if (c == '\x1b') break;  // another ESC: hold that one
          out.push_back(c);
          string_state_ = StringState::kOutside;
        }
        break;
      case StringState::kInside:
        if (c == '\x1b') string_state_ = StringState::kInsideEsc;
        else if (c == '\x07') string_state_ = StringState::kOutside;
        break;
      case StringState::kInsideEsc:
        // ST ends the string; any other ESC sequence aborts it (as in a
        // terminal) and is interpreted.
        if (c == '\\') {
          string_state_ = StringState::kOutside;
        } else if (starts_string(c)) {
          string_state_ = StringState::kInside;
        } else if (c == '\x1b') {
          string_state_ = StringState::kOutsideEsc;
        } else {
          out.push_back('\x1b');
          out.push_back(c);
          string_state_ = StringState::kOutside;
        }
        break;
    }
  }
  if (!out.empty()) FeedUnfiltered(out);
}

void VtermScreen::FeedUnfiltered(std::string_view bytes) {
  if (bytes.empty()) return;
  if (pending_len_ > 0) {
    // Complete the held-back sequence with this read's continuation bytes.
    std::string joined(pending_, pending_len_);
    size_t i = 0;
    while (i < bytes.size() && IncompleteTail(joined) == joined.size() &&
           (static_cast<unsigned char>(bytes[i]) & 0xC0) == 0x80)
      joined.push_back(bytes[i++]);
    if (i == bytes.size() && IncompleteTail(joined) == joined.size()) {
      std::memcpy(pending_, joined.data(), joined.size());  // still incomplete
      pending_len_ = joined.size();
      return;
    }
    // Complete, or cut short by a non-continuation byte: libvterm shows
    // the latter as U+FFFD, as a terminal would.
    vterm_input_write(vt_.get(), joined.data(), joined.size());
    pending_len_ = 0;
    bytes.remove_prefix(i);
  }
  const size_t tail = IncompleteTail(bytes);
  vterm_input_write(vt_.get(), bytes.data(), bytes.size() - tail);
  std::memcpy(pending_, bytes.data() + bytes.size() - tail, tail);
  pending_len_ = tail;
  vterm_screen_flush_damage(screen_);
}

void VtermScreen::Resize(int rows, int cols) {
  if (rows == rows_ && cols == cols_) return;
  rows_ = rows;
  cols_ = cols;
  vterm_set_size(vt_.get(), rows, cols);
  vterm_screen_flush_damage(screen_);
  dirty_ = true;
}

detect::Screen VtermScreen::Snapshot() const {
  detect::Screen s;
  s.rows = rows_;
  s.cols = cols_;
  s.alt_screen = alt_screen_;
  VTermPos cursor{};
  vterm_state_get_cursorpos(vterm_obtain_state(vt_.get()), &cursor);
  s.cursor_row = cursor.row;
  s.cursor_col = cursor.col;
  s.lines.reserve(static_cast<size_t>(rows_));
  VTermScreenCell cell;
  for (int r = 0; r < rows_; ++r) {
    std::string line;
    size_t keep = 0;  // length up to the last non-blank cell
    for (int c = 0; c < cols_;) {
      VTermPos pos{r, c};
      vterm_screen_get_cell(screen_, pos, &cell);
      if (cell.chars[0] == 0 || (cell.chars[0] == ' ' && cell.chars[1] == 0)) {
        line.push_back(' ');
      } else {
        for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i] != 0; ++i)
          core::AppendUtf8(&line, cell.chars[i]);
        keep = line.size();
      }
      c += cell.width > 1 ? cell.width : 1;
    }
    line.resize(keep);
    s.lines.push_back(std::move(line));
  }
  dirty_ = false;
  return s;
}

}  // namespace agt::screen
