// The daemon's persistence over the SQLite store (state/store/store.h):
// <state_dir>/agtmux.db, written by this one connection on the loop thread.
// Commit writes a whole ingest batch's Effects in one transaction
// (Store::CommitBatch), so the daemon acknowledges only what is on disk;
// Restore loads the engine's snapshot (states, candidates, cursors, pending
// inbox, dedupe keys, books) at start-up instead of replaying events; Flush
// checkpoints the WAL at shutdown.
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "aggregator/ingest/persistence.h"
#include "libagtcore/redact.h"
#include "state/store/redact_fallback.h"
#include "state/store/store.h"

namespace agt::agg {
namespace {

class StorePersistence final : public Persistence {
 public:
  explicit StorePersistence(std::unique_ptr<state::Store> store) : store_(std::move(store)) {}

  core::Status Commit(const std::vector<Applied>& batch, core::TimeNs now) override {
    effects_.clear();
    for (const Applied& a : batch) effects_.push_back(&a.effects);
    return store_->CommitBatch(std::span<const state::Effects* const>(effects_), now);
  }

  core::Result<core::TimeNs> Restore(EngineSeam& core) override {
    auto snap = store_->LoadSnapshot();
    if (!snap.ok()) return snap.error();
    core.Restore(*snap);
    return store_->NewestIngestedAt();
  }

  core::Status Flush() override { return store_->Checkpoint(); }
  const char* name() const override { return "sqlite"; }
  state::Store* store() override { return store_.get(); }
  core::Result<state::RetentionReport> RunRetention(core::TimeNs now,
                                                    const state::RetentionOptions& o) override {
    return store_->RunRetention(now, o);
  }

 private:
  std::unique_ptr<state::Store> store_;
  std::vector<const state::Effects*> effects_;  // reused per Commit
};

/// An older agtmuxd kept the action audit in its own <state_dir>/actions.db:
/// its rows are copied into agtmux.db once, then the file (and its WAL) is
/// renamed to actions.db.imported, never deleted. A failed import leaves
/// the file where it is, to be tried again at the next start.
void ImportOldActionStore(const std::string& state_dir, state::Store& store) {
  const std::string old = state_dir + "/actions.db";
  std::error_code ec;
  if (!std::filesystem::exists(old, ec)) return;
  auto log = spdlog::get("agtmuxd");
  auto n = store.ImportActionStore(old);
  if (!n.ok()) {
    if (log) log->warn("could not import {} into agtmux.db (kept, tried again at the next start): {}", old,
                       n.error().ToString());
    return;
  }
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::string from = old + suffix;
    if (!std::filesystem::exists(from, ec)) continue;
    if (std::rename(from.c_str(), (old + ".imported" + suffix).c_str()) != 0 && log)
      log->warn("imported {} but could not rename {}: {}", old, from, std::strerror(errno));
  }
  if (log) log->info("imported {} action(s) with their snapshots and audit events from {} into agtmux.db; "
                     "the old file is now {}.imported", *n, old, old);
}

}  // namespace

core::Result<Backend> CreateBackend(const BackendOptions& options) {
  const std::string journal = options.state_dir + "/events.journal";
  struct stat st {};
  if (::stat(journal.c_str(), &st) == 0) {
    // The journal of earlier development builds is not migrated (agtmux was
    // never released with it); it is left in place, untouched.
    if (auto log = spdlog::get("agtmuxd")) {
      log->warn("ignoring {} (an earlier build's journal); state is kept in {}/agtmux.db", journal,
                options.state_dir);
    }
  }
  state::StoreOptions so;
  so.path = options.state_dir + "/agtmux.db";
  so.durability = options.fast_durability ? state::Durability::kNormal : state::Durability::kFull;
  so.skew_budget = options.engine.skew_budget;
  // DaemonCore::Ingest redacted every event before the engine saw it
  // (docs/store.md, Redaction); the store redacts the action audit (its
  // metadata and event details) with the same rules.
  so.events_redacted = true;
  if (auto r = core::Redactor::LoadBuiltin(); r.ok())
    so.redact = state::PatternRedactor(std::make_shared<const core::Redactor>(std::move(*r)));
  auto store = state::Store::Open(std::move(so));
  if (!store.ok()) return store.error();
  ImportOldActionStore(options.state_dir, **store);
  Backend b;
  b.core = CreateEngineSeam(options.engine);
  b.persistence = std::make_unique<StorePersistence>(std::move(*store));
  return b;
}

}  // namespace agt::agg
