// The real FileReader: core::ReadWholeFile, which reads /proc files (size 0
// in stat) to EOF.
#include "libagtcore/net/file_reader.h"

#include "libagtcore/file.h"

namespace agt::net {

core::Result<std::string> RealFileReader::Read(const std::string& path) const {
  return core::ReadWholeFile(path);
}

}  // namespace agt::net
