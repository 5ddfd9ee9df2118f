// ReadWholeFile: open, read to EOF (retrying EINTR), close on every path.
// WriteFileAtomic: a temporary file beside the target, renamed over it.
#include "libagtcore/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace agt::core {

Result<std::string> ReadWholeFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return MakeError(e == ENOENT ? Err::kNotFound : Err::kIo, path + ": " + std::strerror(e));
  }
  std::string out;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      return MakeError(Err::kIo, path + ": " + std::strerror(e));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Status WriteFileAtomic(const std::string& path, std::string_view bytes, unsigned mode, bool sync) {
  std::string tmp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return MakeError(Err::kIo, path + ": " + std::strerror(errno));
  auto fail = [&](int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return MakeError(Err::kIo, path + ": " + std::strerror(e));
  };
  if (::fchmod(fd, mode) != 0) return fail(errno);
  size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errno);
    }
    off += static_cast<size_t>(n);
  }
  if (sync && ::fsync(fd) != 0) return fail(errno);
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return MakeError(Err::kIo, path + ": " + std::strerror(e));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return MakeError(Err::kIo, path + ": " + std::strerror(e));
  }
  return Ok();
}

}  // namespace agt::core
