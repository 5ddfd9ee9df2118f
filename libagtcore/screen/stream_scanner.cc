// The stream-signal scanner (see stream_scanner.h). It follows the ECMA-48 /
// xterm escape grammar only as far as needed to find where sequences end:
// CSI runs to its final byte, OSC/DCS/SOS/PM/APC strings run to BEL or ST
// (ESC \), CAN and SUB abort. C1 controls in 8-bit form are not recognised:
// in a UTF-8 stream those bytes are continuation bytes.
#include "libagtcore/screen/stream_scanner.h"

#include <charconv>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace agt::screen {
namespace {

constexpr char kEsc = 0x1b;
constexpr char kBel = 0x07;

/// True for a byte that belongs to a text run: printable ASCII, a byte of
/// a UTF-8 sequence, LF or TAB (everything but the other C0 controls and DEL).
constexpr bool IsText(unsigned char v) { return (v >= 0x20 && v != 0x7f) || v == '\n' || v == '\t'; }

/// The end of the text run that starts at `i` in `s` (the first byte that
/// is not text, or s.size()). Bulk output is mostly text, so this loop is
/// the scanner's hot path: 16 bytes at a time where SSE2 is there.
size_t TextRunEnd(std::string_view s, size_t i) {
  const size_t n = s.size();
#ifdef __SSE2__
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const __m128i c1f = _mm_set1_epi8(0x1f);
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i del = _mm_set1_epi8(0x7f);
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i c0 = _mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f);  // v <= 0x1f
    const __m128i ok = _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, tab));
    const __m128i stop = _mm_or_si128(_mm_andnot_si128(ok, c0), _mm_cmpeq_epi8(v, del));
    const int mask = _mm_movemask_epi8(stop);
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  while (i < n && IsText(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

bool ParseInt(std::string_view s, int* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

void StreamScanner::AddText(std::string_view text) {
  if (text.size() > 2 * opts_.recent_output) {
    text.remove_prefix(text.size() - 2 * opts_.recent_output);
    while (!text.empty() && (static_cast<unsigned char>(text[0]) & 0xC0) == 0x80)
      text.remove_prefix(1);
    recent_.clear();
  }
  recent_.append(text);
  if (recent_.size() > 2 * opts_.recent_output) {
    size_t cut = recent_.size() - opts_.recent_output;
    const size_t nl = recent_.find('\n', cut);
    if (nl != std::string::npos && nl - cut < 256) cut = nl + 1;
    // Never cut inside a UTF-8 sequence.
    while (cut < recent_.size() && (static_cast<unsigned char>(recent_[cut]) & 0xC0) == 0x80)
      ++cut;
    recent_.erase(0, cut);
  }
}

bool StreamScanner::EndOsc(core::TimeNs now) {
  if (osc_overflow_) return false;
  std::string_view s = osc_;
  const size_t semi = s.find(';');
  std::string_view num = s.substr(0, semi);
  std::string_view arg = semi == std::string_view::npos ? std::string_view() : s.substr(semi + 1);
  if (num == "0" || num == "2") {
    signals_.title = std::string(arg);
    signals_.title_at = now;
    return true;
  }
  if (num == "9") {
    // OSC 9;4;<state>[;<percent>] is ConEmu/Windows Terminal progress; any
    // other OSC 9 payload is an iTerm2-style notification body.
    if (arg == "4" || arg.starts_with("4;")) {
      std::string_view p = arg.size() > 2 ? arg.substr(2) : std::string_view();
      const size_t s2 = p.find(';');
      int state = 0;
      int value = -1;
      if (!ParseInt(p.substr(0, s2), &state) || state < 0 || state > 4) return false;
      if (s2 != std::string_view::npos && !ParseInt(p.substr(s2 + 1), &value)) value = -1;
      signals_.progress_state = state;
      signals_.progress_value = value;
      signals_.progress_at = now;
      return true;
    }
    signals_.notification = std::string(arg);
    signals_.notification_at = now;
    return true;
  }
  if (num == "7501") {
    // OSC 7501;state=<s>:app=<a>[:kind=<k>]: the agent's own state report
    // (Codex). "?" is a program asking whether the terminal takes them.
    if (arg.empty() || arg == "?") return false;
    signals_.program_status = std::string(arg);
    signals_.program_status_at = now;
    return true;
  }
  if (num == "777") {
    // OSC 777;notify;<title>;<body> (rxvt/foot/ghostty); kept as "title;body".
    if (!arg.starts_with("notify;")) return false;
    signals_.notification = std::string(arg.substr(7));
    signals_.notification_at = now;
    return true;
  }
  return false;
}

bool StreamScanner::Feed(std::string_view bytes, core::TimeNs now) {
  bool changed = false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    const auto u = static_cast<unsigned char>(c);
    if (st_ == St::kGround && IsText(u)) {
      // Fast path: a run of text goes to the recent output in one append.
      const size_t j = TextRunEnd(bytes, i + 1);
      AddText(bytes.substr(i, j - i));
      i = j - 1;
      continue;
    }
    switch (st_) {
      case St::kGround:
        if (c == kEsc) {
          st_ = St::kEsc;
        } else if (c == kBel) {
          ++signals_.bel_count;
          signals_.bel_at = now;
          changed = true;
        }
        break;
      case St::kEsc:
        if (c == '[') {
          st_ = St::kCsi;
        } else if (c == ']') {
          st_ = St::kOsc;
          osc_.clear();
          osc_overflow_ = false;
        } else if (c == 'P' || c == 'X' || c == '^' || c == '_') {
          st_ = St::kStr;
        } else if (c == kEsc) {
          st_ = St::kEsc;
        } else if (u >= 0x20 && u <= 0x2f) {
          st_ = St::kEscInter;
        } else if (c == 0x18 || c == 0x1a || u >= 0x30) {
          st_ = St::kGround;
        }
        break;
      case St::kEscInter:
        if (c == kEsc) st_ = St::kEsc;
        else if (u >= 0x30 || c == 0x18 || c == 0x1a) st_ = St::kGround;
        break;
      case St::kCsi:
        if (c == kEsc) st_ = St::kEsc;
        else if ((u >= 0x40 && u <= 0x7e) || c == 0x18 || c == 0x1a) st_ = St::kGround;
        break;
      case St::kOsc:
        if (c == kBel) {
          changed |= EndOsc(now);
          st_ = St::kGround;
        } else if (c == kEsc) {
          st_ = St::kOscEsc;
        } else if (c == 0x18 || c == 0x1a) {
          st_ = St::kGround;
        } else if (osc_.size() < opts_.max_osc) {
          osc_.push_back(c);
        } else {
          osc_overflow_ = true;
        }
        break;
      case St::kOscEsc:
        // ST is ESC \; any other ESC ends the string too and starts a new
        // sequence (what xterm does).
        changed |= EndOsc(now);
        if (c == '\\') {
          st_ = St::kGround;
        } else {
          st_ = St::kEsc;
          changed |= Feed(std::string_view(&c, 1), now);
        }
        break;
      case St::kStr:
        if (c == kEsc) st_ = St::kStrEsc;
        else if (c == kBel || c == 0x18 || c == 0x1a) st_ = St::kGround;
        break;
      case St::kStrEsc:
        if (c == '\\') {
          st_ = St::kGround;
        } else {
          st_ = St::kEsc;
          changed |= Feed(std::string_view(&c, 1), now);
        }
        break;
    }
  }
  return changed;
}

}  // namespace agt::screen
