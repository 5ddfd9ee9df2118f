// Screen motion between analysed frames (screen_motion.h). Cheap: one pass
// over the rows of the frame, and a fold of only the rows that differ.
#include "libagtcore/detect/screen_motion.h"

#include <algorithm>
#include <cctype>

#include "libagtcore/base/utf8.h"

namespace agt::detect {
namespace {

// The glyphs agents turn while they work: Braille spinners (Codex, Gemini,
// Claude's title), Claude's asterisks and quarter circles, dots and bullets.
bool IsSpinnerGlyph(char32_t cp) {
  if (cp >= 0x2800 && cp <= 0x28FF) return true;
  switch (cp) {
    case U'·':
    case U'✢':
    case U'✳':
    case U'✶':
    case U'✻':
    case U'✽':
    case U'*':
    case U'◐':
    case U'◑':
    case U'◒':
    case U'◓':
    case U'●':
    case U'○':
    case U'◦':
    case U'•':
    case U'⏺':
    case U'◉':
    case U'◯':
    case U'|':
    case U'/':
    case U'-':
    case U'\\':
    case U'⣾':
    case U'◴':
    case U'◵':
    case U'◶':
    case U'◷':
      return true;
    default:
      return false;
  }
}

// An elapsed time somewhere in the row: digits, an optional space, then s,
// m or h not followed by a letter ("12s", "1m 5s", "(esc to cancel, 50s)").
// A bare number (a line number in a file listing that scrolled) is no timer.
bool HasTimer(std::string_view row) {
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] < '0' || row[i] > '9' ||
        (i > 0 && std::isalnum(static_cast<unsigned char>(row[i - 1]))))
      continue;
    size_t j = i;
    while (j < row.size() && row[j] >= '0' && row[j] <= '9') ++j;
    if (j < row.size() && row[j] == ' ') ++j;
    if (j < row.size() && (row[j] == 's' || row[j] == 'm' || row[j] == 'h') &&
        (j + 1 == row.size() || !std::isalpha(static_cast<unsigned char>(row[j + 1]))))
      return true;
    i = j;
  }
  return false;
}

}  // namespace

std::string FoldTicking(std::string_view row) {
  std::string out;
  out.reserve(row.size());
  size_t i = 0;
  while (i < row.size() && row[i] == ' ') out += row[i++];
  if (i < row.size()) {
    size_t j = i;
    char32_t cp = core::NextCodePoint(row, &j);
    if (IsSpinnerGlyph(cp)) {
      out += '\x01';
      i = j;
    }
  }
  bool in_digits = false;
  for (; i < row.size(); ++i) {
    const char c = row[i];
    const bool digit = c >= '0' && c <= '9';
    if (digit && !in_digits) out += '\x02';
    if (!digit) out += c;
    in_digits = digit;
  }
  return out;
}

void ScreenMotion::Observe(const Screen& screen, TimeNs now, int below_row,
                           bool may_tick) {
  const auto& rows = screen.lines;
  if (rows.size() != prev_.size()) {
    changed_at_ = now;
    prev_ = rows;
    return;
  }
  int last = static_cast<int>(rows.size()) - 1;
  while (last >= 0 &&
         rows[static_cast<size_t>(last)].find_first_not_of(' ') == std::string::npos)
    --last;
  const int top_excl = below_row >= 0 ? below_row : last + 1;
  const int from = std::max(0, top_excl - kWindow);
  bool changed = false;
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r] == prev_[r]) continue;
    changed = true;
    const int row = static_cast<int>(r);
    if (!may_tick || row < from || row >= top_excl || row == screen.cursor_row) continue;
    if (rows[r].find_first_not_of(' ') == std::string::npos) continue;
    const std::string now_fold = FoldTicking(rows[r]);
    if (now_fold != FoldTicking(prev_[r])) continue;
    // A turning glyph (the row starts with one, and only it or numbers
    // changed) or a ticking timer.
    const size_t lead = now_fold.find_first_not_of(' ');
    if ((lead != std::string::npos && now_fold[lead] == '\x01') || HasTimer(rows[r])) {
      tick_.at = now;
      tick_.row = rows[r];
      tick_.index = row;
    }
  }
  if (changed) {
    changed_at_ = now;
    prev_ = rows;
  }
}

}  // namespace agt::detect
