// agtmuxd's lifecycle: paths and permissions, the single-instance lock,
// stale-socket recovery, the HTTP server, the spool drain, the targets'
// collectors, periodic engine work, and graceful shutdown on SIGTERM/SIGINT
// (stop accepting, let requests in flight finish, end watch streams with a
// `reset`, flush the store, exit 0).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "aggregator/ingest/daemon_core.h"
#include "aggregator/observe/collector.h"
#include "aggregator/targets/target_registry.h"
#include "libagtcore/config.h"
#include "libagtcore/os/paths.h"

namespace agt::agg {

/// Starts a collector on `spec` that reports through `sink`, and returns it
/// as the PaneDecorator of that target's panes; destroying it stops the
/// collector. Null when this kind of target is not supported (it is then
/// listed, but not observed).
using CollectorFactory = std::function<core::Result<std::unique_ptr<PaneDecorator>>(
    uv_loop_t* loop, const TargetSpec& spec, CollectorSink& sink)>;

struct DaemonOptions {
  core::Paths paths;
  std::string host_socket;           // the `host` target's tmux socket
  int64_t header_timeout_ms = 5000;
  size_t max_body_bytes = 1024 * 1024;
  bool fast_durability = false;      // survive kill -9 but not power loss (tests, benchmarks)
  int64_t spool_interval_ms = 3000;
  /// How often retention runs (docs/spec.md §6: payloads 7 days, metadata 14 days,
  /// from config.toml [daemon] retention_payloads / retention_events). The
  /// environment variable AGTMUX_RETENTION_INTERVAL_MS overrides it (tests).
  int64_t retention_interval_ms = 3600 * 1000;
  /// config.toml, loaded by the caller (a config that does not load never
  /// gets here: agtmuxd exits with its error). [daemon] sets the engine's
  /// timings, retention and the log level.
  core::Config config;
  CollectorFactory collectors;       // empty: no tmux observation
};

/// Runs the daemon until it is told to stop; returns the exit status.
int RunDaemon(const DaemonOptions& options);

}  // namespace agt::agg
