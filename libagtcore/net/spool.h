// The spool: where a producer of events (the wrapper, a hook) keeps them while
// agtmuxd is away. Layout, shared with the daemon, which drains leftovers at
// start-up:
//   <state_dir>/spool/                      (Paths::spool_dir, mode 0700)
//     <source>-<pid>-<ulid>.jsonl           one file per producer episode, 0600
// Each line is one event encoded by core::EncodeEvent, appended with a single
// write(), so a crash can only leave a torn last line (no '\n'), which readers
// skip. Files are delivered oldest first (by ULID), lines in file order, and
// deleted once the daemon has acknowledged them; re-delivery after a crash is
// harmless because every event carries its dedupe key.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/event.h"
#include "libagtcore/result.h"
#include "libagtcore/unique_fd.h"

namespace agt::net {

/// The parts of a spool file name.
struct SpoolName {
  std::string source;  // "wrapper", "hook", ...
  int64_t pid = 0;     // the producer's pid
  std::string ulid;    // when the file was started
  bool operator==(const SpoolName&) const = default;
};

/// "<source>-<pid>-<ulid>.jsonl".
std::string FormatSpoolName(const SpoolName& n);
/// Inverse of FormatSpoolName; false for any other file name.
bool ParseSpoolName(std::string_view file_name, SpoolName* out);

struct SpoolFile {
  std::string path;
  SpoolName name;
};

/// The spool files in `dir`, oldest first (ULID, then name). A missing
/// directory is an empty spool. Other files are ignored.
core::Result<std::vector<SpoolFile>> ListSpool(const std::string& dir);

/// The complete lines of a spool file, without their '\n'. A torn last
/// line is dropped; empty lines are skipped.
core::Result<std::vector<std::string>> ReadSpoolLines(const std::string& path);

/// The events of a spool file. E_PAYLOAD_INVALID naming the file and line
/// when a complete line does not decode.
core::Result<std::vector<core::Event>> ReadSpoolEvents(const std::string& path);

/// Removes a delivered file; a file already gone is not an error.
core::Status DeleteSpoolFile(const std::string& path);

/// mkdir -p with mode 0700 on each directory it creates.
core::Status MakeSpoolDir(const std::string& dir);

/// Appends encoded events to one spool file, created 0600 on open.
class SpoolWriter {
 public:
  /// Creates `dir` if needed and a new file named after `name` in it.
  static core::Result<std::unique_ptr<SpoolWriter>> Open(const std::string& dir,
                                                         const SpoolName& name);
  /// Appends `line` (one encoded event, no '\n') and a newline in one write.
  core::Status Append(std::string_view line);
  const std::string& path() const { return path_; }

 private:
  SpoolWriter(std::string path, core::UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string path_;
  core::UniqueFd fd_;
};

}  // namespace agt::net
