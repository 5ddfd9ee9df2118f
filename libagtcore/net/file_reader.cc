// The real FileReader: reads a whole file with plain POSIX calls. /proc files
// report a size of 0, so it reads until EOF instead of trusting stat().
#include "libagtcore/net/file_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "libagtcore/net/unique_fd.h"

namespace agt::net {

core::Result<std::string> RealFileReader::Read(const std::string& path) const {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    const int e = errno;
    return core::MakeError(e == ENOENT ? core::Err::kNotFound : core::Err::kIo,
                           path + ": " + std::strerror(e));
  }
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return core::MakeError(core::Err::kIo, path + ": " + std::strerror(errno));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace agt::net
