// agtmuxd notices that its socket or its state directory was removed (see
// home_check.h). Two stat() calls a second: the socket by identity, since a
// file at the same path may be another daemon's socket, and the state
// directory by existence.
#include "aggregator/daemon/home_check.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace agt::agg {

core::Result<HomeCheck> HomeCheck::Record(const std::string& socket_path, const std::string& state_dir) {
  struct stat st {};
  if (::lstat(socket_path.c_str(), &st) != 0)
    return core::MakeError(core::Err::kIo, "cannot stat the socket " + socket_path + ": " + std::strerror(errno));
  return HomeCheck(socket_path, state_dir, st.st_dev, st.st_ino);
}

bool HomeCheck::SocketIsOurs() const {
  struct stat st {};
  return ::lstat(socket_path_.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
}

std::string HomeCheck::Lost() const {
  struct stat st {};
  if (::lstat(socket_path_.c_str(), &st) != 0) {
    // Only a file that is not there is lost: another error (EACCES on a
    // directory made unreadable) is not a reason to stop.
    if (errno == ENOENT || errno == ENOTDIR) return "its socket " + socket_path_ + " was removed";
  } else if (st.st_dev != dev_ || st.st_ino != ino_) {
    return "its socket " + socket_path_ + " was replaced by another file";
  }
  if (::stat(state_dir_.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
    return "its state directory " + state_dir_ + " was removed";
  return "";
}

}  // namespace agt::agg
