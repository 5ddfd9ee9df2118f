// Single instance per user (docs/spec.md §12): an flock()ed lock file next to the
// socket. Holding the lock is what makes a socket "live"; a socket file
// whose lock nobody holds is stale (a crashed daemon) and is unlinked.
#pragma once

#include <string>

#include "libagtcore/base/result.h"
#include "libagtcore/os/unique_fd.h"

namespace agt::agg {

class InstanceLock {
 public:
  /// Takes the lock at `lock_path` without blocking and writes our pid
  /// into it. E_PRECONDITION_FAILED naming the holder's pid when another
  /// daemon holds it. The file is opened without following a symbolic link
  /// and must be a regular file of ours: E_IO naming what is there instead
  /// (a planted link must not make us truncate its target).
  static core::Result<InstanceLock> Acquire(const std::string& lock_path);
  /// With the lock held: removes a leftover socket at `socket_path`.
  /// Returns true when one was removed, false when nothing was there. E_IO
  /// when something else is there (a symbolic link, a file): agtmuxd never
  /// removes it, and binding would only say "address already in use".
  static core::Result<bool> RemoveStaleSocket(const std::string& socket_path);
  const std::string& path() const { return path_; }

 private:
  InstanceLock(std::string path, core::UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string path_;
  core::UniqueFd fd_;
};

}  // namespace agt::agg
