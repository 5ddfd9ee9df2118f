// `agtmux attach <ref>`: brings the user to an agent pane. Inside tmux the
// daemon switches this client (switch-client, select-window, select-pane);
// outside it the daemon selects the pane and this process execs the
// attach command it answered; for a remote target the command is printed.
// The daemon checks freshness (snapshot, guards) before any of it.
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "cli/client/action_client.h"
#include "cli/command.h"
#include "cli/client/ref_resolve.h"
#include "cli/client/daemon_client.h"
#include "cli/client/tmux_client.h"
#include "libagtcore/base/shell.h"
#include "libagtcore/os/run_argv.h"

namespace agt::cli {

namespace {

struct AttachArgs {
  std::string ref;
  bool print = false;
  ActionGuards guards;
};

int RunAttach(const AttachArgs& a) {
  auto o = Attach(a.ref, a.guards, a.print);
  if (!o) return ReportError(o.error());
  if (o->mode == "switched") return 0;
  if (o->mode == "attach" && o->client) {
    // tmux inside tmux: the pane is on another server than this client's.
    std::fprintf(stderr, "agtmux: the pane is on another tmux server than this client (%s); "
                         "the window and pane are selected there; attach from outside tmux with:\n",
                 o->client->socket.c_str());
    std::printf("%s\n", core::ShellJoin(o->command).c_str());
    return 0;
  }
  if (o->mode == "print" || a.print || !isatty(STDIN_FILENO)) {
    std::printf("%s\n", core::ShellJoin(o->command).c_str());
    return 0;
  }
  return ReportError(ExecAttach(o->command));
}

}  // namespace

core::Result<AttachOutcome> Attach(const std::string& ref, const ActionGuards& g, bool print) {
  rapidjson::Document body = ActionBody(ref);
  auto& al = body.GetAllocator();
  AttachOutcome out;
  // Inside tmux the client to switch is the terminal that shows this
  // pane's session, not this process's terminal (the pane's own pty).
  if (!print) {
    if (auto c = FindCallingClient(); c.ok()) out.client = *c;
  }
  if (out.client) {
    body.AddMember("client", rapidjson::Value(out.client->name.c_str(), al), al);
    body.AddMember("client_socket", rapidjson::Value(out.client->socket.c_str(), al), al);
  }
  auto d = PostAction("attach", body, g);
  if (!d) return d.error();
  out.mode = ResultString(*d, "mode");
  if (out.mode != "switched")
    for (const auto& v : (*d)["result"]["command"].GetArray()) out.command.emplace_back(v.GetString());
  return out;
}

core::Error ExecAttach(std::vector<std::string> cmd) {
  if (cmd.empty()) return core::MakeError(core::Err::kInternal, "the daemon answered no attach command");
  return core::ExecArgv(cmd);
}

CommandSpec AttachCommand() {
  return {"attach", "Jump to an agent pane (switch this tmux client, or attach), freshness checked",
          [](CLI::App* sub) -> Runner {
            auto a = std::make_shared<AttachArgs>();
            sub->add_option("ref", a->ref, kRefHelp)->required();
            sub->add_flag("--print", a->print, "print the attach command instead of running it");
            AddGuardFlags(sub, &a->guards);
            return [a] { return WithResolvedRef(&a->ref, [a] { return RunAttach(*a); }); };
          }};
}

}  // namespace agt::cli
