// One action while it runs: the request, its audit rows and the result
// fields it gathers. Shared by the files of the action service
// (action_service.cc, action_respond.cc); nothing else includes it.
#pragma once

#include <string>

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
};

}  // namespace agt::agg
