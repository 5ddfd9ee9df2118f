// AnsiLine (see ansi_line.h): SGR parameters -> Segment colours/attributes.
#include "cli/ui/ansi_line.h"

#include <string>
#include <vector>

namespace agt::cli::ui {
namespace {

struct Pen {
  int16_t fg = -1, bg = -1;
  uint8_t attrs = 0;
};

/// The xterm 256-colour index nearest to an RGB colour (the 6x6x6 cube).
int16_t CubeIndex(int r, int g, int b) {
  auto level = [](int v) { return v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40; };
  return static_cast<int16_t>(16 + 36 * level(r) + 6 * level(g) + level(b));
}

/// Applies one SGR sequence's parameters (";"-separated; ":" taken as ";").
void ApplySgr(std::string_view params, Pen* pen) {
  std::vector<int> p;
  int n = -1;
  for (char c : params) {
    if (c >= '0' && c <= '9') {
      n = (n < 0 ? 0 : n * 10) + (c - '0');
      if (n > 100000) n = 100000;
    } else if (c == ';' || c == ':') {
      p.push_back(n < 0 ? 0 : n);
      n = -1;
    }
  }
  p.push_back(n < 0 ? 0 : n);
  for (size_t i = 0; i < p.size(); ++i) {
    const int v = p[i];
    // 38/48: 5;n (indexed) or 2;r;g;b (direct colour).
    if ((v == 38 || v == 48) && i + 1 < p.size()) {
      int16_t colour = -1;
      if (p[i + 1] == 5 && i + 2 < p.size()) {
        colour = static_cast<int16_t>(p[i + 2] & 0xFF);
        i += 2;
      } else if (p[i + 1] == 2 && i + 4 < p.size()) {
        colour = CubeIndex(p[i + 2], p[i + 3], p[i + 4]);
        i += 4;
      } else {
        i += 1;
      }
      (v == 38 ? pen->fg : pen->bg) = colour;
      continue;
    }
    if (v == 0) *pen = Pen{};
    else if (v == 1) pen->attrs |= kAttrBold;
    else if (v == 2) pen->attrs |= kAttrDim;
    else if (v == 3) pen->attrs |= kAttrItalic;
    else if (v == 4) pen->attrs |= kAttrUnderline;
    else if (v == 7) pen->attrs |= kAttrReverse;
    else if (v == 22) pen->attrs &= static_cast<uint8_t>(~(kAttrBold | kAttrDim));
    else if (v == 23) pen->attrs &= static_cast<uint8_t>(~kAttrItalic);
    else if (v == 24) pen->attrs &= static_cast<uint8_t>(~kAttrUnderline);
    else if (v == 27) pen->attrs &= static_cast<uint8_t>(~kAttrReverse);
    else if (v >= 30 && v <= 37) pen->fg = static_cast<int16_t>(v - 30);
    else if (v == 39) pen->fg = -1;
    else if (v >= 40 && v <= 47) pen->bg = static_cast<int16_t>(v - 40);
    else if (v == 49) pen->bg = -1;
    else if (v >= 90 && v <= 97) pen->fg = static_cast<int16_t>(v - 90 + 8);
    else if (v >= 100 && v <= 107) pen->bg = static_cast<int16_t>(v - 100 + 8);
  }
}

}  // namespace

FrameLine AnsiLine(std::string_view text) {
  FrameLine line;
  Pen pen;
  std::string run;
  auto flush = [&] {
    if (run.empty()) return;
    Segment s;
    s.text = std::move(run);
    s.fg = pen.fg;
    s.bg = pen.bg;
    s.attrs = pen.attrs;
    line.segments.push_back(std::move(s));
    run.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\x1b') {
      if (i + 1 < text.size() && text[i + 1] == '[') {
        // CSI: parameters up to the final byte (0x40-0x7E).
        size_t j = i + 2;
        while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7E)) ++j;
        if (j < text.size() && text[j] == 'm') {
          flush();
          ApplySgr(text.substr(i + 2, j - i - 2), &pen);
        }
        i = j;
      } else if (i + 1 < text.size() && text[i + 1] == ']') {
        // OSC: up to BEL or ESC backslash.
        size_t j = i + 2;
        while (j < text.size() && text[j] != '\a' && !(text[j] == '\x1b' && j + 1 < text.size() && text[j + 1] == '\\'))
          ++j;
        i = (j < text.size() && text[j] == '\x1b') ? j + 1 : j;
      } else {
        ++i;  // a two-byte escape
      }
      continue;
    }
    if (c == '\t') run += "    ";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) run += ' ';
    else run += c;
  }
  flush();
  return line;
}

}  // namespace agt::cli::ui
