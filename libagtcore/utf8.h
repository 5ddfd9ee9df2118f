// UTF-8 validation, shared by the ref parser (decoded session names must be
// valid UTF-8) and the event codec (JSON strings must be).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace agt::core {

/// True when `s` is well-formed UTF-8 (no overlongs, surrogates, or code
/// points above U+10FFFF). On false, `*bad_offset` (if given) is the offset
/// of the first byte of the offending sequence.
bool IsValidUtf8(std::string_view s, size_t* bad_offset = nullptr);

/// `s` with every ill-formed sequence replaced by U+FFFD.
std::string SanitizeUtf8(std::string_view s);

}  // namespace agt::core
