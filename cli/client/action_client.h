// What the action commands (send, respond, attach, view-output, kill)
// share: the guard flags every action takes and the call that posts an
// action to agtmuxd.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

#include "cli/client/tmux_client.h"

#include "libagtcore/base/result.h"

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

/// The last `lines` lines of the pane's screen (POST
/// /v1/actions/view-output, unguarded: reading acts on nothing); with
/// `escapes`, the text keeps its colours as SGR sequences (capture-pane -e).
core::Result<std::string> ViewOutput(const std::string& ref, int lines, bool escapes = false);

/// d["result"][key] as a string, "" when absent.
std::string ResultString(const rapidjson::Document& d, const char* key);

/// The text after `before` in `after`: the output the send produced, from
/// the start of the line where the two first differ (a prompt line the
/// agent appended to counts whole). Nothing when nothing changed, and no
/// line that was whole before: a screen the agent has not redrawn yet must
/// not match the previous command's output.
std::string NewOutput(const std::string& before, const std::string& after);

/// `agtmux respond`: looks at the pane (a snapshot), then answers with
/// `choices` guarded by what it saw (same runtime, still waiting, the same
/// options on screen) unless `g` names guards. The daemon's answer.
/// Defined in cmd_respond.cc.
core::Result<rapidjson::Document> Respond(const std::string& ref, const std::vector<std::string>& choices,
                                          ActionGuards g);
/// "answered 1. Yes (action …, delivery …)" from a respond answer.
std::string RespondSummary(const rapidjson::Document& d);

/// What `agtmux attach` did or leaves to its caller.
struct AttachOutcome {
  std::string mode;                  // switched | attach | print (docs/actions.md)
  std::vector<std::string> command;  // the attach command when not switched
  std::optional<CallingClient> client;
};
/// `agtmux attach`'s request: switches the calling tmux client (unless
/// `print`), else returns the command to run. Defined in cmd_attach.cc.
core::Result<AttachOutcome> Attach(const std::string& ref, const ActionGuards& g, bool print);

/// Runs the attach command in place of this process; returns only on failure.
core::Error ExecAttach(std::vector<std::string> command);

/// `agtmux send`'s request (and its --wait).
struct SendArgs {
  std::string ref, text;
  bool read_stdin = false, paste = false, enter = false, allow_dangerous = false, json = false;
  std::vector<std::string> keys;
  ActionGuards guards;
  bool wait = false;
  std::string until, match, fail_match, timeout = "30s";
};
struct SendOutcome {
  int exit = 0;             // 0 success, 1 failure match or error state, 124 timeout
  std::string output;       // with wait: the output the send produced
  std::string policy_note;  // the send policy's warning, if any
  rapidjson::Document answer;
};
/// Sends, and with `wait` waits for the result. Defined in cmd_send.cc.
core::Result<SendOutcome> Send(const SendArgs& a);

}  // namespace agt::cli
