// The event spool's files (see spool.h for the layout and the delivery
// contract). Plain POSIX I/O: the spool is written from the wrapper's event
// loop thread, a few small appends per state change, and by one-shot hook
// processes. The cap is checked against this writer's running total; the
// directory is measured again when that total says "full", and at most a
// second after the last measurement, so an append mostly costs one write().
#include "libagtcore/net/spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "libagtcore/base/clock.h"
#include "libagtcore/event_codec.h"
#include "libagtcore/os/file.h"
#include "libagtcore/os/file_reader.h"

namespace agt::net {

int64_t SpoolMaxBytes(const core::EnvFn& env) {
  if (const char* v = env("AGTMUX_SPOOL_MAX_BYTES"); v != nullptr && *v != '\0') {
    int64_t n = 0;
    std::string_view sv(v);
    auto [p, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), n);
    if (ec == std::errc() && p == sv.data() + sv.size() && n > 0) return n;
  }
  return kDefaultSpoolMaxBytes;
}

int64_t SpoolBytes(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  int64_t total = 0;
  while (dirent* e = ::readdir(d)) {
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
      total += st.st_size;
  }
  ::closedir(d);
  return total;
}

std::string FormatSpoolName(const SpoolName& n) {
  return n.source + "-" + std::to_string(n.pid) + "-" + n.ulid + ".jsonl";
}

bool ParseSpoolName(std::string_view file_name, SpoolName* out) {
  constexpr std::string_view kExt = ".jsonl";
  if (file_name.size() <= kExt.size() || !file_name.ends_with(kExt)) return false;
  std::string_view stem = file_name.substr(0, file_name.size() - kExt.size());
  const size_t d2 = stem.rfind('-');
  if (d2 == std::string_view::npos || d2 == 0) return false;
  const size_t d1 = stem.rfind('-', d2 - 1);
  if (d1 == std::string_view::npos || d1 == 0) return false;
  std::string_view pid = stem.substr(d1 + 1, d2 - d1 - 1);
  std::string_view ulid = stem.substr(d2 + 1);
  if (ulid.size() != 26) return false;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(pid.data(), pid.data() + pid.size(), v);
  if (pid.empty() || ec != std::errc() || p != pid.data() + pid.size() || v <= 0) return false;
  out->source = std::string(stem.substr(0, d1));
  out->pid = v;
  out->ulid = std::string(ulid);
  return true;
}

core::Result<std::vector<SpoolFile>> ListSpool(const std::string& dir) {
  std::vector<SpoolFile> files;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return files;
    return core::MakeError(core::Err::kIo, dir + ": " + std::strerror(errno));
  }
  while (dirent* e = ::readdir(d)) {
    SpoolName n;
    if (ParseSpoolName(e->d_name, &n)) files.push_back({dir + "/" + e->d_name, std::move(n)});
  }
  ::closedir(d);
  std::sort(files.begin(), files.end(), [](const SpoolFile& a, const SpoolFile& b) {
    if (a.name.ulid != b.name.ulid) return a.name.ulid < b.name.ulid;
    return a.path < b.path;
  });
  return files;
}

core::Result<std::vector<std::string>> ReadSpoolLines(const std::string& path) {
  auto text = core::RealFileReader().Read(path);
  if (!text) return text.error();
  std::vector<std::string> lines;
  std::string_view rest = *text;
  for (;;) {
    const size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) break;  // a torn last line, or nothing
    if (nl > 0) lines.emplace_back(rest.substr(0, nl));
    rest.remove_prefix(nl + 1);
  }
  return lines;
}

core::Result<std::vector<core::Event>> ReadSpoolEvents(const std::string& path) {
  auto contents = ReadSpool(path);
  if (!contents) return contents.error();
  if (!contents->bad.empty()) {
    const SpoolBadLine& b = contents->bad.front();
    return core::MakeError(core::Err::kPayloadInvalid, path + ":" + std::to_string(b.line_no) + ": " + b.error);
  }
  return std::move(contents->events);
}

core::Result<SpoolContents> ReadSpool(const std::string& path) {
  auto text = core::RealFileReader().Read(path);
  if (!text) return text.error();
  return ParseSpool(*text);
}

SpoolContents ParseSpool(std::string_view text) {
  SpoolContents out;
  std::string_view rest = text;
  for (int line_no = 1;; ++line_no) {
    const size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) {
      out.torn_tail = !rest.empty();
      break;
    }
    if (nl > 0) {
      std::string_view line = rest.substr(0, nl);
      auto ev = core::DecodeEvent(line);
      if (ev) {
        out.events.push_back(std::move(*ev));
      } else {
        out.bad.push_back({line_no, std::string(line), ev.error().message});
      }
    }
    rest.remove_prefix(nl + 1);
  }
  return out;
}

core::Status WriteDropRecord(const std::string& dir, const SpoolName& name, int64_t count) {
  if (auto s = MakeSpoolDir(dir); !s) return s;
  const std::string stem = FormatSpoolName(name);
  const std::string path = dir + "/" + stem.substr(0, stem.size() - 6) + ".dropped";
  return core::WriteFileAtomic(path, std::to_string(count) + "\n", 0600, false);
}

core::Result<std::vector<DropRecord>> ListDropRecords(const std::string& dir) {
  std::vector<DropRecord> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return out;
    return core::MakeError(core::Err::kIo, dir + ": " + std::strerror(errno));
  }
  constexpr std::string_view kExt = ".dropped";
  while (dirent* e = ::readdir(d)) {
    std::string_view file = e->d_name;
    if (file.size() <= kExt.size() || !file.ends_with(kExt)) continue;
    DropRecord r;
    if (!ParseSpoolName(std::string(file.substr(0, file.size() - kExt.size())) + ".jsonl", &r.name)) continue;
    r.path = dir + "/" + std::string(file);
    if (auto text = core::RealFileReader().Read(r.path)) {
      std::string_view t = *text;
      while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.remove_suffix(1);
      int64_t n = 0;
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
      if (ec == std::errc() && p == t.data() + t.size() && n > 0) r.count = n;
    }
    out.push_back(std::move(r));
  }
  ::closedir(d);
  return out;
}

core::Status DeleteSpoolFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return core::MakeError(core::Err::kIo, path + ": " + std::strerror(errno));
  return core::Ok();
}

core::Status MakeSpoolDir(const std::string& dir) {
  if (dir.empty()) return core::MakeError(core::Err::kConfigInvalid, "spool directory is empty");
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i != dir.size() && dir[i] != '/') continue;
    const std::string part = dir.substr(0, i);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      return core::MakeError(core::Err::kIo, part + ": " + std::strerror(errno));
  }
  return core::Ok();
}

core::Result<std::unique_ptr<SpoolWriter>> SpoolWriter::Open(const std::string& dir, const SpoolName& name,
                                                             int64_t max_spool_bytes, core::TimeNs remeasure_after) {
  if (auto s = MakeSpoolDir(dir); !s) return s.error();
  std::string path = dir + "/" + FormatSpoolName(name);
  core::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return core::MakeError(core::Err::kIo, path + ": " + std::strerror(errno));
  std::unique_ptr<SpoolWriter> w(new SpoolWriter(dir, std::move(path), std::move(fd), max_spool_bytes, remeasure_after));
  w->Measure();
  return w;
}

void SpoolWriter::Measure() {
  used_ = SpoolBytes(dir_);
  measured_at_ = core::SystemClock::Get().Monotonic();
}

core::Status SpoolWriter::Append(std::string_view line) {
  const int64_t need = static_cast<int64_t>(line.size()) + 1;
  if (used_ + need > max_bytes_ || core::SystemClock::Get().Monotonic() - measured_at_ >= remeasure_after_) {
    Measure();  // others may have written, or been drained, since
    if (used_ + need > max_bytes_)
      return core::MakeError(core::Err::kIo, path_ + ": spool full (" + std::to_string(used_) + " of " +
                                                 std::to_string(max_bytes_) + " bytes)");
  }
  std::string buf;
  buf.reserve(line.size() + 1);
  buf.append(line);
  buf.push_back('\n');
  const off_t before = ::lseek(fd_.get(), 0, SEEK_END);
  size_t off = 0;
  while (off < buf.size()) {
    const ssize_t n = ::write(fd_.get(), buf.data() + off, buf.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      // Cut the part that was written, so the next append starts a line.
      if (off > 0 && before >= 0) (void)::ftruncate(fd_.get(), before);
      return core::MakeError(core::Err::kIo, path_ + ": " + std::strerror(err));
    }
    off += static_cast<size_t>(n);
  }
  used_ += need;
  return core::Ok();
}

}  // namespace agt::net
