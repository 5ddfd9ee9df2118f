// The event spool's files (see spool.h for the layout and the delivery
// contract). Plain POSIX I/O: the spool is written from the wrapper's event
// loop thread, a few small appends per state change.
#include "libagtcore/net/spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "libagtcore/event_codec.h"
#include "libagtcore/file_reader.h"

namespace agt::net {

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
  auto text = core::RealFileReader().Read(path);
  if (!text) return text.error();
  std::vector<core::Event> events;
  std::string_view rest = *text;
  for (int line_no = 1;; ++line_no) {
    const size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) break;
    if (nl > 0) {
      auto ev = core::DecodeEvent(rest.substr(0, nl));
      if (!ev)
        return core::MakeError(core::Err::kPayloadInvalid,
                               path + ":" + std::to_string(line_no) + ": " +
                                   ev.error().message);
      events.push_back(std::move(*ev));
    }
    rest.remove_prefix(nl + 1);
  }
  return events;
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

core::Result<std::unique_ptr<SpoolWriter>> SpoolWriter::Open(const std::string& dir,
                                                             const SpoolName& name) {
  if (auto s = MakeSpoolDir(dir); !s) return s.error();
  std::string path = dir + "/" + FormatSpoolName(name);
  core::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return core::MakeError(core::Err::kIo, path + ": " + std::strerror(errno));
  return std::unique_ptr<SpoolWriter>(new SpoolWriter(std::move(path), std::move(fd)));
}

core::Status SpoolWriter::Append(std::string_view line) {
  std::string buf;
  buf.reserve(line.size() + 1);
  buf.append(line);
  buf.push_back('\n');
  size_t off = 0;
  while (off < buf.size()) {
    const ssize_t n = ::write(fd_.get(), buf.data() + off, buf.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return core::MakeError(core::Err::kIo, path_ + ": " + std::strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
  return core::Ok();
}

}  // namespace agt::net
