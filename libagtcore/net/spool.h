// The spool: where a producer of events (the wrapper, a hook) keeps them while
// agtmuxd is away. Layout, shared with the daemon, which drains leftovers at
// start-up:
//   <state_dir>/spool/                      (Paths::spool_dir, mode 0700)
//     <source>-<pid>-<ulid>.jsonl           one file per producer episode, 0600
//     <source>-<pid>-<ulid>.dropped         events that producer had to drop
// Each line is one event encoded by core::EncodeEvent (its texts redacted
// and capped first: core::RedactEvent), appended with a single write(); a
// write that fails part-way is cut back off the file, so a crash can only
// leave a torn last line (no '\n'). Readers take a file line by line: a
// line that does not decode costs only itself. Files are delivered oldest
// first (by ULID), lines in file order, and deleted once the daemon has
// acknowledged them; re-delivery after a crash is harmless because every
// event carries its dedupe key. The directory's size is capped
// (SpoolMaxBytes): an event that does not fit is dropped, and the producer
// counts it in its .dropped record, which the daemon adds to the drops it
// reports (docs/wrap.md "The spool").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/clock.h"
#include "libagtcore/event.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/base/result.h"
#include "libagtcore/os/unique_fd.h"

namespace agt::net {

/// What the spool directory may hold, every producer's files together.
inline constexpr int64_t kDefaultSpoolMaxBytes = int64_t{64} << 20;
/// kDefaultSpoolMaxBytes, or $AGTMUX_SPOOL_MAX_BYTES when it is a positive
/// number (tests set it to fill the spool quickly).
int64_t SpoolMaxBytes(const core::EnvFn& env = core::RealEnv());

/// The bytes of every regular file in `dir` (0 when it does not exist).
int64_t SpoolBytes(const std::string& dir);

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
/// when a complete line does not decode (for a file the caller wrote).
core::Result<std::vector<core::Event>> ReadSpoolEvents(const std::string& path);

/// A line of a spool file that is not an event.
struct SpoolBadLine {
  int line_no = 0;
  std::string text;   // the line as it was
  std::string error;  // why it is not an event
};

/// A spool file read line by line, for the daemon's drain.
struct SpoolContents {
  std::vector<core::Event> events;
  std::vector<SpoolBadLine> bad;  // complete lines that do not decode
  bool torn_tail = false;         // the file ends inside a line: its producer died mid-append
};
/// Every event of a spool file; a line that does not decode costs only
/// itself (it goes to `bad`). E_IO only when the file cannot be read.
core::Result<SpoolContents> ReadSpool(const std::string& path);
/// ReadSpool on a file's bytes.
SpoolContents ParseSpool(std::string_view text);

/// Records that the producer `name` dropped `count` events in all:
/// "<source>-<pid>-<ulid>.dropped" in `dir`, the count in decimal,
/// replaced whole on each call. Tiny, so written even when the spool is at
/// its cap.
core::Status WriteDropRecord(const std::string& dir, const SpoolName& name, int64_t count);

struct DropRecord {
  std::string path;
  SpoolName name;
  int64_t count = 0;
};
/// The drop records in `dir` (a record that does not hold a number counts 0).
core::Result<std::vector<DropRecord>> ListDropRecords(const std::string& dir);

/// Removes a delivered file; a file already gone is not an error.
core::Status DeleteSpoolFile(const std::string& path);

/// mkdir -p with mode 0700 on each directory it creates.
core::Status MakeSpoolDir(const std::string& dir);

/// Appends encoded events to one spool file, created 0600 on open.
class SpoolWriter {
 public:
  /// Creates `dir` if needed and a new file named after `name` in it. The
  /// spool may hold `max_spool_bytes` in all. The writer measures the
  /// directory at open, again whenever its own count says an append would
  /// not fit, and at most `remeasure_after` after the last time; between
  /// measurements it counts its own appends, so producers writing at the
  /// same moment may pass the cap by what they append in that time.
  static core::Result<std::unique_ptr<SpoolWriter>> Open(const std::string& dir, const SpoolName& name,
                                                         int64_t max_spool_bytes = SpoolMaxBytes(),
                                                         core::TimeNs remeasure_after = core::kNsPerSec);
  /// Appends `line` (one encoded event, no '\n') and a newline in one
  /// write. E_IO "spool full" when the spool would pass its cap; on a write
  /// error the file is cut back to where it was, so no torn line is left
  /// for the next append to follow.
  core::Status Append(std::string_view line);
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

 private:
  SpoolWriter(std::string dir, std::string path, core::UniqueFd fd, int64_t max_bytes, core::TimeNs remeasure_after)
      : dir_(std::move(dir)),
        path_(std::move(path)),
        fd_(std::move(fd)),
        max_bytes_(max_bytes),
        remeasure_after_(remeasure_after) {}
  void Measure();
  std::string dir_;
  std::string path_;
  core::UniqueFd fd_;
  int64_t max_bytes_;
  core::TimeNs remeasure_after_;
  int64_t used_ = 0;            // the spool's size when last measured, plus what this writer appended since
  core::TimeNs measured_at_ = 0;  // monotonic
};

}  // namespace agt::net
