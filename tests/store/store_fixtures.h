// Builders shared by the store tests: a temporary directory, and runtimes,
// events and Effects that look like what the engine produces.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "libagtcore/vocabulary.h"
#include "state/model.h"
#include "state/store/sqlite.h"
#include "state/store/store.h"

namespace agt::state::storetest {

constexpr core::TimeNs kT0 = 1'780'000'000LL * core::kNsPerSec;

/// Options for a writer on `path`.
inline StoreOptions Opts(std::string path, Durability d = Durability::kFull) {
  StoreOptions o;
  o.path = std::move(path);
  o.durability = d;
  return o;
}

/// Options for a read-only connection on `path`.
inline StoreOptions ReaderOpts(std::string path) {
  StoreOptions o;
  o.path = std::move(path);
  o.read_only = true;
  return o;
}

/// A directory under $TMPDIR removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "agtstore-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline Runtime MakeRuntime(const std::string& id, const std::string& pane, int64_t epoch = 0) {
  Runtime r;
  r.runtime_id = id;
  r.target_id = "host";
  r.pane_id = pane;
  r.boot_id = "boot-1";
  r.pane_epoch = epoch;
  r.agent_type = "claude";
  r.pid = 4242;
  r.started_at = kT0;
  r.owner = core::Source::kWrapper;
  return r;
}

inline core::Event MakeEvent(const std::string& id, const std::string& runtime_id,
                             core::Source source, int64_t seq, core::TimeNs at) {
  core::Event e;
  e.event_id = id;
  e.event_type = "state_changed";
  e.source = source;
  e.dedupe_key = "dk-" + id;
  e.source_seq = seq;
  e.event_time = at;
  e.ingested_at = at;
  e.runtime_id = runtime_id;
  e.target_id = "host";
  e.pane_id = "%1";
  e.signal = core::Signal{core::State::kRunning, "", core::Confidence::kHigh, "claude.spinner",
                          "* Thinking...", {}};
  e.raw_payload = R"({"hook_event_name":"PreToolUse"})";
  return e;
}

/// The Effects of applying `e` to runtime `r`: the event row, its cursor,
/// the candidate it sets and the pane state it resolves to.
inline Effects AppliedEffects(const Runtime& r, const core::Event& e, int64_t version) {
  Effects fx;
  fx.disposition = Disposition::kApplied;
  fx.stored_event = e;
  OrderKey key{e.source_seq, e.event_time, e.ingested_at, e.event_id};
  fx.cursors.push_back(Cursor{r.runtime_id, e.source, key});
  Candidate c;
  c.source = e.source;
  c.signal = e.signal.value_or(core::Signal{});
  c.event_id = e.event_id;
  c.key = key;
  c.seen_at = e.ingested_at;
  fx.candidates.emplace_back(c, r.runtime_id);
  PaneState s;
  s.target_id = r.target_id;
  s.pane_id = r.pane_id;
  s.runtime_id = r.runtime_id;
  s.signal = c.signal;
  s.source = e.source;
  s.has_source = true;
  s.state_version = version;
  s.last_source_seq = e.source_seq;
  s.last_seen_at = e.ingested_at;
  s.updated_at = e.ingested_at;
  fx.states.push_back(s);
  return fx;
}

}  // namespace agt::state::storetest
