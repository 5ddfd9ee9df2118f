// The spool drain (see spool_drain.h). A file that does not decode is set
// aside as <file>.bad instead of being retried forever or deleted unread.
#include "aggregator/daemon/spool_drain.h"

#include <signal.h>

#include <cerrno>
#include <cstdio>

#include "libagtcore/net/spool.h"

namespace agt::agg {

bool ProcessAlive(int64_t pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

DrainReport DrainSpool(const std::string& spool_dir, const DrainIngest& ingest, const PidAlive& alive) {
  DrainReport report;
  auto files = net::ListSpool(spool_dir);
  if (!files) {
    report.errors.push_back(files.error().ToString());
    return report;
  }
  for (const net::SpoolFile& f : *files) {
    if (alive(f.name.pid)) continue;
    auto events = net::ReadSpoolEvents(f.path);
    if (!events) {
      report.errors.push_back(f.path + ": " + events.error().message);
      std::rename(f.path.c_str(), (f.path + ".bad").c_str());
      continue;
    }
    size_t n = events->size();
    if (n > 0) {
      if (auto st = ingest(std::move(*events)); !st) {
        report.errors.push_back(f.path + ": " + st.error().message);
        break;  // keep the file; try again on the next drain
      }
    }
    (void)net::DeleteSpoolFile(f.path);
    ++report.files;
    report.events += static_cast<int>(n);
  }
  return report;
}

}  // namespace agt::agg
