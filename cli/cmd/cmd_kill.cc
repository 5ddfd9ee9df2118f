// `agtmux kill <ref>`: stops the agent in a pane, through the daemon's
// action path: --mode key sends C-c to the pane (default), --mode signal
// sends INT, TERM or KILL to the runtime's pid. Asks on a tty unless
// --yes; refuses without --yes when there is no tty to ask on.
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/client/action_client.h"
#include "cli/command.h"
#include "cli/client/ref_resolve.h"
#include "cli/client/daemon_client.h"

namespace agt::cli {

namespace {

struct KillArgs {
  std::string ref, mode = "key", signal = "INT";
  bool yes = false;
  ActionGuards guards;
};

int RunKill(const KillArgs& a) {
  if (!a.yes) {
    if (!isatty(STDIN_FILENO))
      return ReportError(core::MakeError(core::Err::kRequestInvalid, "kill needs --yes when stdin is not a terminal"));
    std::fprintf(stderr, "kill the agent in %s (%s)? [y/N] ", a.ref.c_str(),
                 a.mode == "key" ? "C-c" : ("SIG" + a.signal).c_str());
    std::string answer;
    std::getline(std::cin, answer);
    if (answer != "y" && answer != "Y" && answer != "yes") {
      std::fprintf(stderr, "not killed\n");
      return 1;
    }
  }
  rapidjson::Document body = ActionBody(a.ref);
  auto& al = body.GetAllocator();
  body.AddMember("mode", rapidjson::Value(a.mode.c_str(), al), al);
  body.AddMember("signal", rapidjson::Value(a.signal.c_str(), al), al);
  auto d = PostAction("kill", body, a.guards);
  if (!d) return ReportError(d.error());
  std::printf("killed (action %s)\n", (*d)["action_id"].GetString());
  return 0;
}

}  // namespace

CommandSpec KillCommand() {
  return {"kill", "Stop the agent in a pane (C-c, or a signal to its pid), guarded",
          [](CLI::App* sub) -> Runner {
            auto a = std::make_shared<KillArgs>();
            sub->add_option("ref", a->ref, kRefHelp)->required();
            sub->add_option("--mode", a->mode, "key (C-c, default) or signal")->check(CLI::IsMember({"key", "signal"}));
            sub->add_option("--signal", a->signal, "with --mode signal: INT, TERM or KILL")
                ->check(CLI::IsMember({"INT", "TERM", "KILL"}));
            sub->add_flag("--yes,-y", a->yes, "do not ask for confirmation");
            AddGuardFlags(sub, &a->guards);
            return [a] { return WithResolvedRef(&a->ref, [a] { return RunKill(*a); }); };
          }};
}

}  // namespace agt::cli
