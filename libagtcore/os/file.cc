// ReadWholeFile and WriteFileAtomic: every descriptor is a UniqueFd, so no
// error path leaks one; reads and writes retry EINTR and short counts.
#include "libagtcore/os/file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "libagtcore/os/unique_fd.h"

namespace agt::core {
namespace {

Error IoError(const std::string& path, int err) {
  return MakeError(Err::kIo, path + ": " + std::strerror(err));
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Result<std::string> ReadWholeFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    const int e = errno;
    return MakeError(e == ENOENT ? Err::kNotFound : Err::kIo, path + ": " + std::strerror(e));
  }
  std::string out;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError(path, errno);
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Status WriteFileAtomic(const std::string& path, std::string_view data, mode_t new_file_mode, bool sync) {
  mode_t mode = new_file_mode;
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;

  std::string tmp = path + ".tmp-XXXXXX";
  UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (!fd.valid()) return IoError(tmp, errno);
  auto fail = [&](int err) {
    ::unlink(tmp.c_str());
    return IoError(path, err);
  };
  if (!WriteAll(fd.get(), data)) return fail(errno);
  if (::fchmod(fd.get(), mode) != 0) return fail(errno);
  if (sync && ::fsync(fd.get()) != 0) return fail(errno);
  if (::close(fd.Release()) != 0) return fail(errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail(errno);
  if (!sync) return Ok();

  // The rename is durable once the directory is: fsync it too.
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  UniqueFd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dfd.valid() || ::fsync(dfd.get()) != 0) return IoError(dir, errno);
  return Ok();
}

}  // namespace agt::core
