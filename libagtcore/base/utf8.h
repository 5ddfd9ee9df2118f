// UTF-8 validation, shared by the ref parser (decoded session names must be
// valid UTF-8) and the event codec (JSON strings must be), and encoding of
// one code point (the wrapper's screen text, `agtmux ui`'s typed prompt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace agt::core {

/// True when `s` is well-formed UTF-8 (no overlongs, surrogates, or code
/// points above U+10FFFF). On false, `*bad_offset` (if given) is the offset
/// of the first byte of the offending sequence.
bool IsValidUtf8(std::string_view s, size_t* bad_offset = nullptr);

/// `s` with every ill-formed sequence replaced by U+FFFD.
std::string SanitizeUtf8(std::string_view s);

/// Decodes the code point at s[*i] and advances *i past it; a byte that
/// starts no well-formed sequence yields U+FFFD and advances by one. For
/// scanning screen rows, which hold what a terminal drew.
char32_t NextCodePoint(std::string_view s, size_t* i);

/// Appends `cp` encoded as UTF-8; nothing for a value above U+10FFFF.
void AppendUtf8(std::string* out, uint32_t cp);

}  // namespace agt::core
