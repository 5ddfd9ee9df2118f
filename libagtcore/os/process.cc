// ProcessAlive (see process.h). A zombie answers kill(pid, 0) like a live
// process; its state letter in /proc/<pid>/stat (after the ") " that ends
// the command name, which may itself hold spaces and parentheses) says Z.
#include "libagtcore/os/process.h"

#include <signal.h>

#include <cerrno>
#include <string>

#include "libagtcore/os/file.h"

namespace agt::core {

bool ProcessAlive(int64_t pid) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  auto stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return true;  // no /proc: kill's answer stands
  const size_t end = stat->rfind(") ");
  return end == std::string::npos || end + 2 >= stat->size() || (*stat)[end + 2] != 'Z';
}

}  // namespace agt::core
