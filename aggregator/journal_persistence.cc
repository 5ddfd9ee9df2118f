// The local persistence used while the SQLite store is not in the build: an
// append-only journal (<state_dir>/events.journal) of every event the
// engine accepted, one EncodeEvent line each. Commit appends the batch with
// one write() and fdatasync()s before the daemon acknowledges; Restore feeds
// the lines back through the engine in order (the engine is deterministic,
// so the rebuilt state equals the one before the crash). A torn last line
// (a crash mid-write) was never acknowledged and is skipped.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "aggregator/persistence.h"
#include "libagtcore/event_codec.h"
#include "libagtcore/net/unique_fd.h"

namespace agt::agg {
namespace {

bool Persisted(state::Disposition d) {
  return d == state::Disposition::kApplied || d == state::Disposition::kStored ||
         d == state::Disposition::kPending;
}

class JournalPersistence final : public Persistence {
 public:
  JournalPersistence(std::string path, net::UniqueFd fd, bool fast)
      : path_(std::move(path)), fd_(std::move(fd)), fast_(fast) {}

  core::Status Commit(const std::vector<Applied>& batch, core::TimeNs) override {
    std::string data;
    for (const Applied& a : batch) {
      if (!Persisted(a.effects.disposition)) continue;
      data += core::EncodeEvent(a.event);
      data += '\n';
    }
    if (data.empty()) return core::Ok();
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = ::write(fd_.get(), data.data() + off, data.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        return core::MakeError(core::Err::kStore, path_ + ": write: " + std::strerror(errno));
      }
      off += static_cast<size_t>(n);
    }
    // kill -9 loses nothing written to the page cache; fdatasync is for
    // power loss, skipped in fast mode.
    if (!fast_ && ::fdatasync(fd_.get()) != 0) {
      return core::MakeError(core::Err::kStore, path_ + ": fdatasync: " + std::strerror(errno));
    }
    return core::Ok();
  }

  core::Result<core::TimeNs> Restore(StateCore& core) override {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string all = ss.str();
    core::TimeNs last = 0;
    size_t pos = 0;
    int line_no = 0;
    while (pos < all.size()) {
      size_t nl = all.find('\n', pos);
      if (nl == std::string::npos) break;  // torn tail: never acknowledged
      ++line_no;
      std::string_view line(all.data() + pos, nl - pos);
      pos = nl + 1;
      if (line.empty()) continue;
      auto e = core::DecodeEvent(line);
      if (!e) {
        return core::MakeError(core::Err::kStore, path_ + ":" + std::to_string(line_no) + ": " +
                                                      e.error().message);
      }
      core.Apply(*e, e->ingested_at);
      if (e->ingested_at > last) last = e->ingested_at;
    }
    if (pos < all.size()) {
      // Drop the torn tail so the next append starts on a line boundary.
      if (::ftruncate(fd_.get(), static_cast<off_t>(pos)) != 0) {
        return core::MakeError(core::Err::kStore, path_ + ": ftruncate: " + std::strerror(errno));
      }
    }
    return last;
  }

  core::Status Flush() override {
    if (::fsync(fd_.get()) != 0)
      return core::MakeError(core::Err::kStore, path_ + ": fsync: " + std::strerror(errno));
    return core::Ok();
  }
  const char* name() const override { return "journal"; }

 private:
  std::string path_;
  net::UniqueFd fd_;
  bool fast_;
};

}  // namespace

core::Result<Backend> CreateBackend(const BackendOptions& options) {
  std::string path = options.state_dir + "/events.journal";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return core::MakeError(core::Err::kStore, path + ": " + std::strerror(errno));
  Backend b;
  b.core = CreateStateCore(options.engine);
  b.persistence = std::make_unique<JournalPersistence>(path, net::UniqueFd(fd), options.fast_durability);
  return b;
}

}  // namespace agt::agg
