// The real FileReader: core::ReadWholeFile, which reads /proc files (size 0
// in stat) to EOF.
#include "libagtcore/os/file_reader.h"

#include "libagtcore/os/file.h"

namespace agt::core {

Result<std::string> RealFileReader::Read(const std::string& path) const {
  return ReadWholeFile(path);
}

}  // namespace agt::core
