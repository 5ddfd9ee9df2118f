// One action while it runs: the request, its audit rows and the result
// fields it gathers. Shared by the files of the action service
// (action_service.cc, action_respond.cc); nothing else includes it. The
// loop thread builds it, a worker fills it while it runs the action's tmux
// part, then the loop finishes it: never two threads at once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aggregator/actions/action_service.h"
#include "aggregator/http/json_writer.h"

namespace agt::agg {

struct ActionService::Run {
  ActionRequest req;
  state::ActionRow action;
  state::ActionSnapshotRow snap;       // the action's own snapshot (taken now)
  std::string base_snapshot_id;        // the snapshot it is checked against
  PolicyVerdict policy;
  JsonOut extra;                       // type-specific result fields (an open object)
  int event_seq = 0;
  TargetStatus target;                 // a copy for the worker (set by Prepare)
  std::vector<std::string> tmux;       // TmuxArgv(target)
  std::optional<core::Error> failed;   // the worker's outcome (none = ok)
};

}  // namespace agt::agg
