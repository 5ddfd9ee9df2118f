// The daemon's instance lock (see instance_lock.h). flock() locks are tied
// to the open file description, so the kernel releases ours when the
// process dies in any way, kill -9 included: no pid-file guessing needed.
#include "aggregator/daemon/instance_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace agt::agg {

namespace {

std::string WhatIsThere(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISREG(st.st_mode)) return "a regular file";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  return "not a socket";
}

}  // namespace

core::Result<InstanceLock> InstanceLock::Acquire(const std::string& lock_path) {
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd < 0) {
    const int err = errno;
    struct stat st {};
    if (err == ELOOP && ::lstat(lock_path.c_str(), &st) == 0)
      return core::MakeError(core::Err::kIo, "the lock " + lock_path + " is " + WhatIsThere(st) +
                                                 "; agtmuxd does not follow it (remove it if it is not yours)");
    return core::MakeError(core::Err::kIo, "cannot open lock " + lock_path + ": " + std::strerror(err));
  }
  core::UniqueFd owned(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return core::MakeError(core::Err::kIo, "cannot stat lock " + lock_path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return core::MakeError(core::Err::kIo, "the lock " + lock_path + " is " + WhatIsThere(st) + ", not a regular file");
  if (st.st_uid != ::geteuid())
    return core::MakeError(core::Err::kIo, "the lock " + lock_path + " belongs to uid " + std::to_string(st.st_uid) +
                                               ", not to us");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "?";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return core::MakeError(core::Err::kPreconditionFailed,
                           "agtmuxd is already running (pid " + holder + ", lock " + lock_path + ")");
  }
  std::string pid = std::to_string(getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    return core::MakeError(core::Err::kIo, "cannot write lock " + lock_path + ": " + std::strerror(errno));
  }
  return InstanceLock(lock_path, std::move(owned));
}

core::Result<bool> InstanceLock::RemoveStaleSocket(const std::string& socket_path) {
  struct stat st {};
  if (::lstat(socket_path.c_str(), &st) != 0) return false;
  if (!S_ISSOCK(st.st_mode))
    return core::MakeError(core::Err::kIo, socket_path + " is " + WhatIsThere(st) +
                                               ", not agtmuxd's socket; agtmuxd will not replace it (remove it "
                                               "if it is not yours)");
  if (::unlink(socket_path.c_str()) != 0)
    return core::MakeError(core::Err::kIo, "cannot remove the stale socket " + socket_path + ": " +
                                               std::strerror(errno));
  return true;
}

}  // namespace agt::agg
