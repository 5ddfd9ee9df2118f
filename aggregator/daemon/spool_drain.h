// Drains the spool (libagtcore/net/spool.h): event files left by producers
// (wrapper, hooks) while the daemon was away. Only files whose producer
// process is gone are taken (a live producer delivers its own spool);
// files go oldest first, lines in order, each file deleted once its events
// are committed. Re-delivery is harmless: dedupe keys make it idempotent.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "libagtcore/event.h"
#include "libagtcore/result.h"

namespace agt::agg {

struct DrainReport {
  int files = 0;
  int events = 0;
  std::vector<std::string> errors;  // files set aside as <file>.bad, with why
};

/// `ingest` must return only once the events are durable.
using DrainIngest = std::function<core::Status(std::vector<core::Event>)>;
/// True when the producer pid still runs (tests inject their own).
using PidAlive = std::function<bool(int64_t pid)>;

bool ProcessAlive(int64_t pid);

DrainReport DrainSpool(const std::string& spool_dir, const DrainIngest& ingest, const PidAlive& alive);

}  // namespace agt::agg
