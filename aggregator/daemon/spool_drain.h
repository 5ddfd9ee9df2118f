// Drains the spool (libagtcore/net/spool.h): event files left by producers
// (wrapper, hooks) while the daemon was away. Only files whose producer
// process is gone are taken (a live producer delivers its own spool);
// files go oldest first, lines in order, each file deleted once its events
// are committed. Re-delivery is harmless: dedupe keys make it idempotent.
//
// No file can crash the daemon twice: a file is renamed <file>.draining
// before it is read, so a file found under that name at the next drain is
// one a drain died in (a crash, or a kill), and it is set aside unread as
// <file>.draining.bad. A line that is not an event (torn, broken, hostile)
// costs only itself: it is appended to <file>.bad and counted. .bad files
// are deleted once older than DrainOptions::bad_max_age.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "libagtcore/base/clock.h"
#include "libagtcore/event.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

struct DrainReport {
  int files = 0;
  int events = 0;
  int64_t undecodable = 0;  // lines that were not events, set aside in <file>.bad
  int64_t quarantined = 0;  // lines of files a previous drain died in, set aside unread
  int64_t producer_dropped = 0;  // events producers recorded dropping (.dropped records)
  int bad_files_expired = 0;
  std::vector<std::string> errors;  // what went wrong, naming the file
};

struct DrainOptions {
  core::TimeNs now = 0;                             // wall clock, for the age of .bad files
  core::TimeNs bad_max_age = 7 * 24 * 3600 * core::kNsPerSec;
};

/// `ingest` must return only once the events are durable.
using DrainIngest = std::function<core::Status(std::vector<core::Event>)>;
/// True when the producer pid still runs: core::ProcessAlive (tests inject
/// their own).
using PidAlive = std::function<bool(int64_t pid)>;

DrainReport DrainSpool(const std::string& spool_dir, const DrainIngest& ingest, const PidAlive& alive,
                       const DrainOptions& options);

}  // namespace agt::agg
