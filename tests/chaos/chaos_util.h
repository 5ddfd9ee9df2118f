// What the chaos tests (tests/chaos) and their benchmark
// (bench/agg/chaos_bench.cc) share on top of tests/agg/daemon_harness.h:
// event ids and batches, the daemon's RSS, a small tmpfs mounted for a full
// disk (unmounted on every exit path), the event ids agtmux.db holds, a
// watch client that keeps the view a
// stream describes (snapshot, upserts, deletes) and the cursor it reached,
// and writers that stream events and remember what was acknowledged.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <rapidjson/document.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "state/store/store.h"
#include "tests/agg/daemon_harness.h"

namespace agt::chaos {

/// A 26-character event id in the daemon's accepted form: `prefix` (4
/// characters) then `writer` and `n`, zero-padded.
inline std::string Id(const char* prefix, int writer, int n) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.4s%08d%014d", prefix, writer, n);
  return std::string(buf, 26);
}

inline std::string Runtime(int writer) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "rt-chaos-%08d", writer);
  return buf;
}

inline std::string Pane(int writer) { return "%" + std::to_string(writer); }

/// wrapper_started for `writer`'s runtime on its pane. The wrapper's pid is
/// this process, alive for the whole test: the daemon ends a wrapped
/// runtime whose pid is gone.
inline std::string Started(const std::string& id, int writer) {
  return test::EventJson(id, "wrapper_started", Runtime(writer), Pane(writer),
                         ",\"pid\":" + std::to_string(getpid()) +
                             ",\"runtime\":{\"agent_type\":\"claude\",\"started_at\":\"2026-11-22T04:00:00Z\"}");
}

inline std::string Batch(const std::vector<std::string>& events) {
  std::string body = "{\"events\":[";
  for (size_t i = 0; i < events.size(); ++i) body += (i ? "," : "") + events[i];
  return body + "]}";
}

/// VmRSS of `pid` in KiB, -1 when unreadable.
inline long RssKib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

/// A tmpfs of `size` mounted at `dir` (created); unmounted (lazily if
/// something still holds it) when this goes, whatever the exit path.
class Tmpfs {
 public:
  Tmpfs(const std::string& dir, const std::string& size) : dir_(dir) {
    std::filesystem::create_directories(dir);
    const std::string opts = "size=" + size + ",mode=0700";
    if (mount("tmpfs", dir.c_str(), "tmpfs", 0, opts.c_str()) == 0) {
      mounted_ = true;
    } else {
      error_ = std::string("mount -t tmpfs -o ") + opts + " " + dir + ": " + std::strerror(errno);
    }
  }
  ~Tmpfs() {
    if (mounted_ && umount2(dir_.c_str(), 0) != 0) umount2(dir_.c_str(), MNT_DETACH);
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }

  /// Writes `<dir>/filler` until the file system is full; returns the bytes
  /// written.
  size_t Fill() {
    int fd = open((dir_ + "/filler").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return 0;
    static const std::string block(64 * 1024, 'x');
    size_t total = 0;
    for (size_t chunk = block.size(); chunk > 0;) {
      ssize_t n = write(fd, block.data(), chunk);
      if (n > 0) {
        total += static_cast<size_t>(n);
      } else {
        chunk /= 2;  // ENOSPC: fill the last pages with smaller writes
      }
    }
    close(fd);
    return total;
  }
  /// Gives the space back.
  void Free() { std::filesystem::remove(dir_ + "/filler"); }

 private:
  std::string dir_;
  bool mounted_ = false;
  std::string error_;
};

/// A watch stream read without blocking: Pump() reads what has arrived and
/// applies each JSON line to `view` (pane_id -> state), as a client would.
class WatchClient {
 public:
  WatchClient(const std::string& socket, const std::string& query, int rcvbuf = 0) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (rcvbuf > 0) setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, socket.c_str(), sizeof a.sun_path - 1);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(fd_);
      fd_ = -1;
      eof = true;
      return;
    }
    const std::string req = "GET /v1/watch" + query + " HTTP/1.1\r\nHost: x\r\n\r\n";
    if (send(fd_, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) eof = true;
  }
  ~WatchClient() {
    if (fd_ >= 0) close(fd_);
  }
  WatchClient(const WatchClient&) = delete;
  WatchClient& operator=(const WatchClient&) = delete;
  int fd() const { return fd_; }

  /// Reads everything available now; returns the bytes read.
  size_t Pump() {
    size_t got = 0;
    char buf[65536];
    while (fd_ >= 0 && !eof) {
      ssize_t n = recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) {
        raw_.append(buf, static_cast<size_t>(n));
        got += static_cast<size_t>(n);
        bytes += static_cast<size_t>(n);
      } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        eof = true;
      } else {
        break;
      }
    }
    Parse();
    return got;
  }
  /// Pumps until `cond` holds, the stream ends, or `timeout_ms`.
  bool PumpUntil(const std::function<bool()>& cond, int timeout_ms) {
    return test::PollUntil([&] {
      Pump();
      return cond() || eof;
    }, timeout_ms) && cond();
  }

  std::map<std::string, std::string> view;  // pane_id -> state
  std::string cursor;                       // of the last line
  std::vector<std::string> types;           // type of each line, in order
  std::vector<std::string> reset_reasons;
  size_t lines = 0, bytes = 0;
  bool ended = false;  // the chunked terminator arrived
  bool eof = false;

 private:
  void Parse() {
    if (!headers_done_) {
      size_t end = raw_.find("\r\n\r\n");
      if (end == std::string::npos) return;
      raw_.erase(0, end + 4);
      headers_done_ = true;
    }
    // Chunks: "<hex>\r\n<data>\r\n"; each data is one JSON line.
    while (true) {
      size_t eol = raw_.find("\r\n");
      if (eol == std::string::npos) return;
      size_t len = std::strtoul(raw_.substr(0, eol).c_str(), nullptr, 16);
      if (len == 0) {
        ended = true;
        raw_.clear();
        return;
      }
      if (raw_.size() < eol + 2 + len + 2) return;
      Apply(raw_.substr(eol + 2, len));
      raw_.erase(0, eol + 2 + len + 2);
    }
  }
  void Apply(const std::string& line) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    if (!d.IsObject() || !d.HasMember("type")) return;
    ++lines;
    const std::string type = d["type"].GetString();
    types.push_back(type);
    if (d.HasMember("cursor") && d["cursor"].IsString()) cursor = d["cursor"].GetString();
    if (type == "reset") {
      reset_reasons.push_back(d.HasMember("reason") ? d["reason"].GetString() : "");
    } else if (type == "snapshot") {
      view.clear();
      for (const auto& item : d["items"].GetArray())
        view[item["identity"]["pane_id"].GetString()] = item["state"].GetString();
    } else if (type == "delta") {
      for (const auto& c : d["changes"].GetArray()) {
        const std::string pane = c["identity"]["pane_id"].GetString();
        if (std::string(c["op"].GetString()) == "delete") {
          view.erase(pane);
        } else {
          view[pane] = c["item"]["state"].GetString();
        }
      }
    }
  }

  int fd_ = -1;
  std::string raw_;
  bool headers_done_ = false;
};

/// pane_id -> state of GET /v1/panes (agent panes), or {"ERROR": why}.
inline std::map<std::string, std::string> PanesView(const test::Daemon& d, const std::string& query = "") {
  auto r = d.Call("GET", "/v1/panes" + query);
  if (!r.ok()) return {{"ERROR", r.error().ToString()}};
  if (r->status != 200) return {{"ERROR", std::to_string(r->status) + " " + r->body}};
  rapidjson::Document doc;
  doc.Parse(r->body.c_str());
  std::map<std::string, std::string> out;
  for (const auto& item : doc["items"].GetArray())
    out[item["identity"]["pane_id"].GetString()] = item["state"].GetString();
  return out;
}

inline std::vector<std::string> Runtimes(int writers) {
  std::vector<std::string> out;
  for (int w = 0; w < writers; ++w) out.push_back(Runtime(w));
  return out;
}

/// The event ids of `runtimes` in <state_dir>/agtmux.db, read through a
/// read-only store (the daemon may be running or dead); `error` is set when
/// the database cannot be read or fails PRAGMA integrity_check.
inline std::set<std::string> StoredIds(const test::TestEnv& env, const std::vector<std::string>& runtimes,
                                       std::string* error) {
  state::StoreOptions o;
  o.path = env.state_dir() + "/agtmux.db";
  o.read_only = true;
  std::set<std::string> out;
  auto store = state::Store::Open(o);
  if (!store.ok()) {
    *error = store.error().ToString();
    return out;
  }
  if (auto check = (*store)->IntegrityCheck(); !check.ok() || *check != "ok")
    *error = "integrity_check: " + (check.ok() ? *check : check.error().ToString());
  for (const auto& rt : runtimes) {
    auto events = (*store)->EventsForRuntime(rt);
    if (!events.ok()) {
      *error = events.error().ToString();
      continue;
    }
    for (const auto& e : *events) out.insert(e.event_id);
  }
  return out;
}

/// How many of `acked` are not in `stored`.
inline size_t Missing(const std::set<std::string>& acked, const std::set<std::string>& stored) {
  size_t n = 0;
  for (const auto& id : acked) n += !stored.count(id);
  return n;
}

/// What writers had acknowledged: event ids answered 200, and per pane the
/// state of its last acknowledged event.
struct Acked {
  std::mutex mu;
  std::set<std::string> ids;
  std::map<std::string, std::string> last_state;  // pane_id -> state
  std::atomic<long> batches{0}, refused{0};
};

/// One writer: its own runtime on its own pane, announced, then batches of
/// `per_batch` state changes until `stop` or `max_batches`, each batch
/// recorded in `acked` when answered 200. Stops at the first failed call
/// (the daemon was killed). `evidence` pads each event's evidence.
inline void StreamEvents(const test::Daemon& d, int writer, const char* prefix, int per_batch, int max_batches,
                         const std::atomic<bool>& stop, Acked* acked, size_t evidence = 0) {
  static const char* kStates[] = {"running", "waiting_input", "waiting_approval", "completed"};
  int n = 0;
  const std::string pad = evidence ? std::string(evidence, 'e') : "line";
  for (int b = 0; b < max_batches && !stop; ++b) {
    std::vector<std::string> events, ids;
    std::string last;
    if (b == 0) {
      ids.push_back(Id(prefix, writer, ++n));
      events.push_back(Started(ids.back(), writer));
    }
    for (int k = 0; k < per_batch; ++k) {
      ids.push_back(Id(prefix, writer, ++n));
      last = kStates[(n + writer) % 4];
      std::string ev = test::StateEvent(ids.back(), Runtime(writer), Pane(writer), last, n);
      if (evidence) ev.replace(ev.find("\"evidence\":\"line\""), 17, "\"evidence\":\"" + pad + "\"");
      events.push_back(ev);
    }
    auto r = d.Call("POST", "/v1/events", Batch(events));
    if (!r.ok()) return;
    if (r->status != 200) {
      ++acked->refused;
      return;
    }
    std::lock_guard<std::mutex> l(acked->mu);
    acked->ids.insert(ids.begin(), ids.end());
    acked->last_state[Pane(writer)] = last;
    ++acked->batches;
  }
}

}  // namespace agt::chaos
