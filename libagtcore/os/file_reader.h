// FileReader: reading a small file (a /proc entry, a config file) behind an
// interface, so code that inspects the OS can read the real files, canned
// text in tests, or a snapshot of another host's files (MemoryFileReader).
#pragma once

#include <map>
#include <string>

#include "libagtcore/base/result.h"

namespace agt::core {

class FileReader {
 public:
  virtual ~FileReader() = default;
  /// The whole file; E_NOT_FOUND when it does not exist, E_IO otherwise.
  virtual Result<std::string> Read(const std::string& path) const = 0;
};

/// Reads the real file system.
class RealFileReader final : public FileReader {
 public:
  Result<std::string> Read(const std::string& path) const override;
};

/// Serves files held in memory, from a map of path -> contents: canned
/// text in tests, and in production the snapshot of a remote host's /proc
/// that the ssh collector reads in one command (collector_ssh.cc).
class MemoryFileReader final : public FileReader {
 public:
  std::map<std::string, std::string> files;
  Result<std::string> Read(const std::string& path) const override {
    auto it = files.find(path);
    if (it == files.end())
      return MakeError(Err::kNotFound, path + ": no such file");
    return it->second;
  }
};

}  // namespace agt::core
