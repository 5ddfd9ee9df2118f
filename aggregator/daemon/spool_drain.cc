// The spool drain (see spool_drain.h for the rules). The order of renames
// is what makes a crash unrepeatable: a file is out of the way (.draining)
// before a byte of it is parsed, and its bad lines are written, and
// counted, only after its events were committed, so a retry after a failed
// commit counts nothing twice.
#include "aggregator/daemon/spool_drain.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "libagtcore/os/file_reader.h"
#include "libagtcore/net/spool.h"

namespace agt::agg {
namespace {

constexpr std::string_view kDraining = ".draining";
constexpr std::string_view kBad = ".bad";

// The names in `dir` that end in `ext`.
std::vector<std::string> NamesEndingIn(const std::string& dir, std::string_view ext) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n.size() > ext.size() && n.ends_with(ext)) out.emplace_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

int64_t CountLines(const std::string& path) {
  auto text = core::RealFileReader().Read(path);
  if (!text) return 0;
  int64_t n = std::count(text->begin(), text->end(), '\n');
  if (!text->empty() && text->back() != '\n') ++n;
  return n;
}

// Appends the bad lines to <file>.bad (0600), one per line as they were.
void SetAside(const std::string& file, const net::SpoolContents& c, std::vector<std::string>* errors) {
  std::string out;
  for (const net::SpoolBadLine& b : c.bad) out += b.text + "\n";
  if (out.empty()) return;
  const std::string bad = file + std::string(kBad);
  int fd = ::open(bad.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    errors->push_back(bad + ": " + std::strerror(errno));
    return;
  }
  ssize_t n = ::write(fd, out.data(), out.size());
  (void)n;
  ::close(fd);
}

void ExpireBadFiles(const std::string& dir, const DrainOptions& o, DrainReport* r) {
  for (const std::string& name : NamesEndingIn(dir, kBad)) {
    const std::string path = dir + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    const core::TimeNs mtime = st.st_mtim.tv_sec * core::kNsPerSec + st.st_mtim.tv_nsec;
    if (o.now - mtime > o.bad_max_age && ::unlink(path.c_str()) == 0) ++r->bad_files_expired;
  }
}

}  // namespace

DrainReport DrainSpool(const std::string& spool_dir, const DrainIngest& ingest, const PidAlive& alive,
                       const DrainOptions& options) {
  DrainReport report;
  ExpireBadFiles(spool_dir, options, &report);

  // A drain died in these: set them aside unread.
  for (const std::string& name : NamesEndingIn(spool_dir, kDraining)) {
    const std::string path = spool_dir + "/" + name;
    const int64_t lines = CountLines(path);
    if (std::rename(path.c_str(), (path + std::string(kBad)).c_str()) != 0) {
      report.errors.push_back(path + ": " + std::strerror(errno));
      continue;
    }
    report.quarantined += lines;
    report.errors.push_back(path + ": a previous drain stopped in this file; its " + std::to_string(lines) +
                            " lines are set aside unread in " + name + std::string(kBad));
  }

  auto files = net::ListSpool(spool_dir);
  if (!files) {
    report.errors.push_back(files.error().ToString());
    return report;
  }
  for (const net::SpoolFile& f : *files) {
    if (alive(f.name.pid)) continue;
    const std::string draining = f.path + std::string(kDraining);
    if (std::rename(f.path.c_str(), draining.c_str()) != 0) {
      report.errors.push_back(f.path + ": " + std::strerror(errno));
      continue;
    }
    auto contents = net::ReadSpool(draining);
    if (!contents) {
      report.errors.push_back(f.path + ": " + contents.error().message);
      std::rename(draining.c_str(), f.path.c_str());
      continue;
    }
    const size_t n = contents->events.size();
    if (n > 0) {
      if (auto st = ingest(std::move(contents->events)); !st) {
        report.errors.push_back(f.path + ": " + st.error().message);
        std::rename(draining.c_str(), f.path.c_str());  // try again on the next drain
        break;
      }
    }
    // The log names the first few bad lines of a file, then how many.
    constexpr size_t kNamed = 3;
    for (size_t i = 0; i < contents->bad.size() && i < kNamed; ++i) {
      const net::SpoolBadLine& b = contents->bad[i];
      report.errors.push_back(f.path + ":" + std::to_string(b.line_no) + ": not an event, set aside: " + b.error);
    }
    if (contents->bad.size() > kNamed)
      report.errors.push_back(f.path + ": " + std::to_string(contents->bad.size()) +
                              " lines in all were not events, set aside in " + f.path + std::string(kBad));
    if (contents->torn_tail)
      report.errors.push_back(f.path + ": the last line is torn (its producer died mid-append); dropped");
    SetAside(f.path, *contents, &report.errors);
    report.undecodable += static_cast<int64_t>(contents->bad.size()) + (contents->torn_tail ? 1 : 0);
    (void)net::DeleteSpoolFile(draining);
    ++report.files;
    report.events += static_cast<int>(n);
  }

  if (auto drops = net::ListDropRecords(spool_dir)) {
    for (const net::DropRecord& d : *drops) {
      if (alive(d.name.pid)) continue;
      report.producer_dropped += d.count;
      if (d.count > 0)
        report.errors.push_back(d.path + ": its producer dropped " + std::to_string(d.count) + " events");
      (void)net::DeleteSpoolFile(d.path);
    }
  }
  return report;
}

}  // namespace agt::agg
