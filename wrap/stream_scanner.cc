// The stream-signal scanner (see stream_scanner.h). It follows the ECMA-48 /
// xterm escape grammar only as far as needed to find where sequences end:
// CSI runs to its final byte, OSC/DCS/SOS/PM/APC strings run to BEL or ST
// (ESC \), CAN and SUB abort. C1 controls in 8-bit form are not recognised:
// in a UTF-8 stream those bytes are continuation bytes.
#include "wrap/stream_scanner.h"

#include <charconv>

namespace agt::wrap {
namespace {

constexpr char kEsc = 0x1b;
constexpr char kBel = 0x07;

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
    if (st_ == St::kGround && (u >= 0x20 || c == '\n' || c == '\t') && u != 0x7f) {
      // Fast path: a run of text goes to the recent output in one append.
      size_t j = i + 1;
      while (j < bytes.size()) {
        const auto v = static_cast<unsigned char>(bytes[j]);
        if ((v < 0x20 && v != '\n' && v != '\t') || v == 0x7f) break;
        ++j;
      }
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

}  // namespace agt::wrap
