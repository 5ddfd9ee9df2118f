// Parsing TOML text into a table, the one way agtmux does it (config,
// pattern sets, identification and log rules, redaction rules, agents'
// config files). toml++ as Debian builds it reports a syntax error by
// throwing toml::parse_error; ParseToml catches it here and returns it as
// an error naming the file, line and column, so no caller needs a try.
#pragma once

#include <toml++/toml.h>

#include <string_view>

#include "libagtcore/base/result.h"

namespace agt::core {

/// The parsed table, or `code` with
/// "<path>:<line>:<column>: TOML syntax error: <what>".
Result<toml::table> ParseToml(std::string_view text, std::string_view path, Err code);

}  // namespace agt::core
