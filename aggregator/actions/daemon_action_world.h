// The daemon's ActionWorld: the panes and targets of a DaemonCore, tmux run
// by argv on this machine (LocalExecutor), kill(2) for signals, a real
// sleep between keys. tests/agg/actions/fake_world.h is its fake; a
// contract test runs the same expectations against both.
#pragma once

#include <memory>

#include "aggregator/actions/action_service.h"
#include "aggregator/ingest/daemon_core.h"

namespace agt::agg {

/// The world of `core`, which must outlive it.
std::unique_ptr<ActionWorld> MakeDaemonWorld(DaemonCore* core);

}  // namespace agt::agg
