// What the action commands (send, respond, attach, view-output, kill)
// share: the guard flags every action takes and the call that posts an
// action to agtmuxd.
#pragma once

#include <rapidjson/document.h>

#include <string>

#include "libagtcore/result.h"

namespace CLI {
class App;
}

namespace agt::cli {

/// The guard flags every action takes (docs/spec.md §13).
struct ActionGuards {
  std::string if_runtime, if_state, if_updated_within, snapshot_id, request_ref;
  bool force_stale = false;
};

/// Declares --if-runtime, --if-state, --if-updated-within, --snapshot,
/// --request-ref and --force-stale on `sub`.
void AddGuardFlags(CLI::App* sub, ActionGuards* g);

/// POST /v1/actions/<type> with `body` plus the guards; the daemon's answer.
core::Result<rapidjson::Document> PostAction(const std::string& type, rapidjson::Document& body,
                                             const ActionGuards& g);

/// A request body holding {"ref": ref}.
rapidjson::Document ActionBody(const std::string& ref);

/// d["result"][key] as a string, "" when absent.
std::string ResultString(const rapidjson::Document& d, const char* key);

/// The text after `before` in `after`: the output the send produced, from
/// the start of the line where the two first differ (a prompt line the
/// agent appended to counts whole). Nothing when nothing changed, and no
/// line that was whole before: a screen the agent has not redrawn yet must
/// not match the previous command's output.
std::string NewOutput(const std::string& before, const std::string& after);

}  // namespace agt::cli
