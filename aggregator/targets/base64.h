// Base64 (RFC 4648, with padding, no line breaks) for what ssh carries in
// it: keys in known_hosts and key files, and the framed /proc snapshot of
// an ssh scan. One copy, on OpenSSL's EVP block coder.
#pragma once

#include <string>
#include <string_view>

#include "libagtcore/base/result.h"

namespace agt::agg {

std::string Base64Encode(std::string_view bytes);
/// E_PAYLOAD_INVALID when `text` is not base64 (whitespace included).
core::Result<std::string> Base64Decode(std::string_view text);

}  // namespace agt::agg
