// FileReader: reading a small file (a /proc entry, a config file) behind an
// interface, so code that inspects the OS can be tested with canned text.
#pragma once

#include <map>
#include <string>

#include "libagtcore/result.h"

namespace agt::net {

class FileReader {
 public:
  virtual ~FileReader() = default;
  /// The whole file; E_NOT_FOUND when it does not exist, E_IO otherwise.
  virtual core::Result<std::string> Read(const std::string& path) const = 0;
};

/// Reads the real file system.
class RealFileReader final : public FileReader {
 public:
  core::Result<std::string> Read(const std::string& path) const override;
};

/// Serves files from a map; records nothing else. For tests.
class FakeFileReader final : public FileReader {
 public:
  std::map<std::string, std::string> files;
  core::Result<std::string> Read(const std::string& path) const override {
    auto it = files.find(path);
    if (it == files.end())
      return core::MakeError(core::Err::kNotFound, path + ": no such file");
    return it->second;
  }
};

}  // namespace agt::net
