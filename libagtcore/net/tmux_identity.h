// The identity of a tmux server as agtmux names it. `$TMUX` tells a process
// inside tmux which server it runs under ("socket,pid,session"); the boot id
// ("<server pid>-<start time in clock ticks>") tells two servers apart even
// when a pid is reused. The wrapper and the daemon's collectors both compute it
// here, from /proc, without forking, so they agree on the same server.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "libagtcore/os/file_reader.h"
#include "libagtcore/base/result.h"

namespace agt::net {

/// The parsed value of `$TMUX`.
struct TmuxEnv {
  std::string socket_path;  // "/tmp/tmux-1000/default"
  int64_t server_pid = 0;
  std::string session;      // the session index tmux puts last ("0", "$3")
  bool operator==(const TmuxEnv&) const = default;
};

/// Parses "socket,pid,session". The socket path may itself contain commas,
/// so the last two fields are taken from the right. E_PAYLOAD_INVALID naming
/// the field when the value is malformed.
core::Result<TmuxEnv> ParseTmuxEnv(std::string_view value);

/// Field 22 (starttime, clock ticks after boot) of a /proc/<pid>/stat line.
/// The command name (field 2) may contain spaces and ')', so fields are
/// counted after the last ')'.
core::Result<uint64_t> ParseProcStatStartTime(std::string_view stat);

/// "<pid>-<starttime>" read from /proc/<pid>/stat through `reader`.
/// E_NOT_FOUND when the process does not exist.
core::Result<std::string> TmuxServerBootId(int64_t server_pid, const core::FileReader& reader);

}  // namespace agt::net
