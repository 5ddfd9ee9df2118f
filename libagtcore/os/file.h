// Reading and replacing whole files, the one way agtmux does it: config,
// pattern and redaction files, /proc entries (which report size 0, so reads
// go to EOF), agents' settings files, the daemon's targets.json, kept
// screens and fixtures.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "libagtcore/base/result.h"

namespace agt::core {

/// The file's bytes. E_NOT_FOUND when it does not exist, E_IO on any other
/// failure; the message is "<path>: <strerror>".
Result<std::string> ReadWholeFile(const std::string& path);

/// Replaces `path` with `data` so that a reader (or a crash, or a power
/// loss) sees the old file or the new one, never a mix: writes a temporary
/// file in the same directory, fsyncs it, renames it over `path`, fsyncs
/// the directory. An existing file keeps its permission bits; a new one
/// gets `new_file_mode`. `sync` false skips both fsyncs (a reader still
/// never sees a part; a power loss may lose the write): for files that are
/// a convenience, such as kept screens. The directory must exist. On
/// failure `path` is unchanged, no temporary file is left, and the error
/// (E_IO) names the path and the reason.
Status WriteFileAtomic(const std::string& path, std::string_view data,
                       mode_t new_file_mode = 0600, bool sync = true);

}  // namespace agt::core
