// `agtmux respond <ref> <choice>...`: answers the approval or question a
// pane is waiting on, in one command. It looks at the pane first (a
// snapshot: runtime, state and the options the state saw), then asks the
// daemon to act guarded by exactly that: the same runtime, still
// waiting_approval or waiting_input, the same state_version and the same
// options on screen. The daemon reads the menu from the screen, moves the
// cursor with arrow keys and confirms (aggregator/actions/action_respond.cc).
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <memory>

#include "cli/client/action_client.h"
#include "cli/command.h"
#include "cli/client/ref_resolve.h"
#include "cli/client/daemon_client.h"

namespace agt::cli {
namespace {

struct RespondArgs {
  std::string ref;
  std::vector<std::string> choices;
  ActionGuards guards;
  bool json = false;
};

int RunRespond(const RespondArgs& a) {
  auto d = Respond(a.ref, a.choices, a.guards);
  if (!d) return ReportError(d.error());
  if (a.json) {
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    d->Accept(w);
    std::printf("%s\n", sb.GetString());
    return 0;
  }
  std::printf("%s\n", RespondSummary(*d).c_str());
  return 0;
}

}  // namespace

core::Result<rapidjson::Document> Respond(const std::string& ref, const std::vector<std::string>& choices,
                                          ActionGuards g) {
  rapidjson::Document look = ActionBody(ref);
  auto snap = PostAction("snapshot", look, {});
  if (!snap) return snap.error();
  const rapidjson::Document& s = *snap;
  std::string state = s["state"].GetString();
  if (state != "waiting_approval" && state != "waiting_input")
    return core::MakeError(core::Err::kPreconditionFailed,
                           ref + " is " + state + ", not waiting for an answer; nothing was sent");

  rapidjson::Document body = ActionBody(ref);
  auto& al = body.GetAllocator();
  rapidjson::Value list(rapidjson::kArrayType);
  for (const auto& c : choices) list.PushBack(rapidjson::Value(c.c_str(), al), al);
  body.AddMember("choices", list, al);
  if (s.HasMember("waiting") && s["waiting"]["choices"].Size() > 0) {
    rapidjson::Value seen(rapidjson::kArrayType);
    for (const auto& c : s["waiting"]["choices"].GetArray()) seen.PushBack(rapidjson::Value(c.GetString(), al), al);
    body.AddMember("expect_choices", seen, al);
  }
  // Guard on what was just seen, unless the caller named its own guards.
  if (g.if_runtime.empty()) g.if_runtime = s["runtime_id"].GetString();
  if (g.if_state.empty()) g.if_state = "waiting_approval,waiting_input";
  if (g.snapshot_id.empty()) g.snapshot_id = s["snapshot_id"].GetString();
  return PostAction("respond", body, g);
}

std::string RespondSummary(const rapidjson::Document& d) {
  const auto& r = d["result"];
  std::string chosen;
  for (const auto& c : r["choices"].GetArray()) {
    if (!chosen.empty()) chosen += ", ";
    chosen += std::to_string(c["number"].GetInt()) + ". " + c["label"].GetString();
  }
  return "answered " + chosen + " (action " + d["action_id"].GetString() + ", delivery " +
         r["delivery"].GetString() + ")";
}

CommandSpec RespondCommand() {
  return {"respond", "Answer the approval or question a pane is waiting on (arrow keys + Enter), guarded",
          [](CLI::App* sub) -> Runner {
            auto a = std::make_shared<RespondArgs>();
            sub->add_option("ref", a->ref, kRefHelp)->required();
            sub->add_option("choice", a->choices,
                            "the option: its number, yes, no, or its text; several for a multi-select")
                ->required();
            sub->add_flag("--json", a->json, "print the daemon's JSON answer");
            AddGuardFlags(sub, &a->guards);
            return [a] { return WithResolvedRef(&a->ref, [a] { return RunRespond(*a); }); };
          }};
}

}  // namespace agt::cli
