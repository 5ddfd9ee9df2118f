// Reading a whole file, the one way agtmux does it: config, pattern and
// redaction files, /proc entries (which report size 0, so it reads to EOF),
// agents' settings files. And writing one so that a reader never sees it
// half-written.
#pragma once

#include <string>
#include <string_view>

#include "libagtcore/result.h"

namespace agt::core {

/// The file's bytes. E_NOT_FOUND when it does not exist, E_IO on any other
/// failure; the message is "<path>: <strerror>".
Result<std::string> ReadWholeFile(const std::string& path);

/// Writes `bytes` to `path` through a temporary file in the same directory
/// (created with `mode`), fsynced (unless `sync` is false) and renamed over
/// `path`: readers see the old file or the new one, never a part. E_IO
/// naming the path.
Status WriteFileAtomic(const std::string& path, std::string_view bytes, unsigned mode = 0600,
                       bool sync = true);

}  // namespace agt::core
