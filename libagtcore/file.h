// Reading a whole file, the one way agtmux does it: config, pattern and
// redaction files, /proc entries (which report size 0, so it reads to EOF),
// agents' settings files.
#pragma once

#include <string>

#include "libagtcore/result.h"

namespace agt::core {

/// The file's bytes. E_NOT_FOUND when it does not exist, E_IO on any other
/// failure; the message is "<path>: <strerror>".
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace agt::core
