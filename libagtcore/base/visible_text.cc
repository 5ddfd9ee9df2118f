// VisibleText (visible_text.h).
#include "libagtcore/base/visible_text.h"

#include <cstdio>

#include "libagtcore/base/utf8.h"

namespace agt::core {
namespace {

bool IsBidiControl(char32_t cp) { return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069); }

void AppendCodeName(std::string* out, char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "<U+%04X>", static_cast<unsigned>(cp));
  *out += buf;
}

}  // namespace

std::string VisibleText(std::string_view text, VisibleOptions options) {
  // Well-formed first: NextCodePoint trusts continuation bytes, so an
  // ill-formed lead byte could otherwise swallow an ESC into a "code point"
  // whose bytes would be copied out.
  std::string valid;
  if (!IsValidUtf8(text)) valid = SanitizeUtf8(text);
  const std::string_view s = valid.empty() ? text : std::string_view(valid);
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      if (c == '\n' && options.keep_newlines) {
        out += '\n';
      } else if (c == '\t') {
        out += ' ';
      } else if (c < 0x20) {
        out += '^';
        out += static_cast<char>(c + 0x40);
      } else if (c == 0x7F) {
        out += "^?";
      } else {
        out += static_cast<char>(c);
      }
      continue;
    }
    const size_t start = i;
    const char32_t cp = NextCodePoint(s, &i);
    if (cp >= 0x80 && cp <= 0x9F) {
      AppendCodeName(&out, cp);
    } else if (IsBidiControl(cp)) {
      AppendCodeName(&out, cp);
    } else {
      out.append(s.substr(start, i - start));
    }
  }
  return out;
}

bool NeedsVisible(std::string_view s, VisibleOptions options) { return VisibleText(s, options) != s; }

}  // namespace agt::core
