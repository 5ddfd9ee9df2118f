// Where the daemon makes ingested events durable before it acknowledges
// them: the SQLite store, state::Store on <state_dir>/agtmux.db
// (persistence.cc): one transaction per batch of Effects, restored with
// LoadSnapshot at start-up. CreateBackend builds the engine
// and its persistence.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aggregator/view/engine_seam.h"
#include "libagtcore/base/result.h"
#include "state/store/store.h"

namespace agt::agg {

/// One ingested event and what applying it changed.
struct Applied {
  core::Event event;  // with ingested_at stamped
  state::Effects effects;
};

class Persistence {
 public:
  virtual ~Persistence() = default;
  /// Makes the batch durable; returns only once it is (or failed).
  virtual core::Status Commit(const std::vector<Applied>& batch, core::TimeNs now) = 0;
  /// Rebuilds `core` from what was persisted (daemon start-up); returns the
  /// newest ingested_at seen, so stamping stays strictly increasing.
  virtual core::Result<core::TimeNs> Restore(EngineSeam& core) = 0;
  /// Flushes everything (WAL checkpoint) at shutdown.
  virtual core::Status Flush() = 0;
  /// Clears old payloads and deletes old events (docs/spec.md §6 retention); the
  /// daemon calls it from a timer with a bounded max_batches.
  virtual core::Result<state::RetentionReport> RunRetention(core::TimeNs now,
                                                            const state::RetentionOptions& options) = 0;
  virtual const char* name() const = 0;
  /// The SQLite store, for the action service's audit rows (loop thread
  /// only); null when there is none (a fake).
  virtual state::Store* store() { return nullptr; }
};

struct Backend {
  std::unique_ptr<EngineSeam> core;
  std::unique_ptr<Persistence> persistence;
};

struct BackendOptions {
  std::string state_dir;  // agtmux.db lives here
  state::EngineOptions engine;
  bool fast_durability = false;  // tests/benchmarks: survive kill -9, not power loss
};

core::Result<Backend> CreateBackend(const BackendOptions& options);

}  // namespace agt::agg
