// `agtmux list panes|windows|sessions`: the read side of the CLI. Every
// view filter of docs/spec.md §11 maps to a query parameter of GET /v1/<scope>; `--json`
// prints the daemon's stable schema unchanged, the default is a human table
// aligned by display width with a summary line. Partial results (a target
// down) are said on stderr and still printed.
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "cli/client/daemon_client.h"
#include "cli/table.h"
#include "libagtcore/base/visible_text.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/base/suggest.h"

namespace agt::cli {
namespace {

struct ListFlags {
  std::vector<std::string> targets;
  bool all_targets = false;
  std::string target_session, session, state, agent, group_by;
  bool needs_action = false, with_agent_status = false, agent_summary = false, all = false, json = false;
};

void AddFlags(CLI::App* sub, ListFlags* f, const std::string& scope) {
  sub->add_option("--target", f->targets, "only these targets (repeatable)");
  sub->add_flag("--all-targets", f->all_targets, "every target (the default)");
  sub->add_option("--session", f->session, "only sessions with this name");
  sub->add_flag("--json", f->json, "the stable JSON schema");
  if (scope != "sessions") sub->add_option("--target-session", f->target_session, "<target>/<session-enc>");
  if (scope == "panes") {
    sub->add_option("--state", f->state, "only panes in this state");
    sub->add_option("--agent", f->agent, "only this agent type (claude, codex, gemini, ...)");
    sub->add_flag("--needs-action", f->needs_action, "only panes waiting for approval or input");
    sub->add_flag("--all", f->all, "also panes without an agent");
  }
  if (scope == "windows") sub->add_flag("--with-agent-status", f->with_agent_status, "only windows with agent panes");
  if (scope == "sessions") {
    sub->add_flag("--agent-summary", f->agent_summary, "per-agent counts");
    sub->add_option("--group-by", f->group_by, "target-session (default) or session-name")
        ->check(CLI::IsMember({"target-session", "session-name"}));
  }
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

// "no claud panes; the agent panes here are claude, codex (did you mean
// claude?)": `--agent` matched nothing, so say which agents there are.
std::string NoPanesOfAgent(DaemonClient& client, const std::string& agent) {
  std::string msg = "no " + agent + " panes";
  auto all = client.CallJson("GET", "/v1/panes", "", {"items"});
  if (!all) return msg;
  std::vector<std::string> types;
  for (const auto& it : (*all)["items"].GetArray()) {
    if (!it.IsObject() || !it.HasMember("agent_type") || !it["agent_type"].IsString()) continue;
    std::string t = it["agent_type"].GetString();
    if (!t.empty() && std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
  }
  if (types.empty()) return msg + " (no agent panes at all: start one with `agtmux wrap <agent>`)";
  msg += "; the agent panes here are";
  for (size_t i = 0; i < types.size(); ++i) msg += (i ? ", " : " ") + types[i];
  std::vector<std::string_view> views(types.begin(), types.end());
  if (auto near = core::ClosestName(agent, views)) msg += " (did you mean " + *near + "?)";
  return msg;
}

int RunList(const std::string& scope, const ListFlags& f) {
  if (f.all_targets && !f.targets.empty()) {
    return ReportError(core::MakeError(core::Err::kRequestInvalid, "--all-targets and --target exclude each other"));
  }
  auto client = DaemonClient::Open({});
  if (!client) return ReportError(client.error());
  std::string q = QueryString({{"target", Join(f.targets)},
                               {"target_session", f.target_session},
                               {"session", f.session},
                               {"state", f.state},
                               {"agent", f.agent},
                               {"needs_action", f.needs_action ? "1" : ""},
                               {"all", f.all ? "1" : ""},
                               {"with_agent_status", f.with_agent_status ? "1" : ""},
                               {"agent_summary", f.agent_summary ? "1" : ""},
                               {"group_by", f.group_by}});
  auto body = client->Call("GET", "/v1/" + scope + q);
  if (!body) return ReportError(body.error());
  if (f.json) {
    std::fwrite(body->data(), 1, body->size(), stdout);
    return 0;
  }
  auto answer = ParseAnswer(*body, {"items"});
  if (!answer) return ReportError(answer.error());
  const rapidjson::Document& d = *answer;
  if (d.HasMember("target_errors") && d["target_errors"].IsArray()) {
    for (const auto& e : d["target_errors"].GetArray()) {
      std::fprintf(stderr, "agtmux: partial result: target %s: %s: %s\n",
                   core::VisibleText(e["target"].GetString()).c_str(), core::VisibleText(e["code"].GetString()).c_str(),
                   core::VisibleText(e["message"].GetString()).c_str());
    }
  }
  bool color = ColorEnabled();
  core::TimeNs now = core::SystemClock::Get().Now();
  if (d["items"].Empty()) {
    if (!f.agent.empty()) {
      std::printf("%s\n", NoPanesOfAgent(*client, f.agent).c_str());
    } else if (scope == "panes" && !f.all) {
      std::printf("no agent panes (start one with `agtmux wrap <agent>`, or add --all)\n");
    } else {
      std::printf("no %s\n", scope.c_str());
    }
  } else {
    std::string table = RenderItemsTable(scope, d["items"], now, color, f.agent_summary, TerminalWidth());
    std::fwrite(table.data(), 1, table.size(), stdout);
  }
  if (d.HasMember("summary")) std::printf("%s\n", SummaryLine(d["summary"]).c_str());
  return 0;
}

}  // namespace

CommandSpec ListCommand() {
  return {"list", "List agent panes, windows or sessions with their state and source",
          [](CLI::App* sub) -> Runner {
            sub->require_subcommand(1);
            auto flags = std::make_shared<std::map<std::string, ListFlags>>();
            std::vector<std::pair<std::string, CLI::App*>> scopes;
            for (const char* scope : {"panes", "windows", "sessions"}) {
              CLI::App* s = sub->add_subcommand(scope, std::string("List ") + scope);
              AddFlags(s, &(*flags)[scope], scope);
              scopes.emplace_back(scope, s);
            }
            return [flags, scopes]() {
              for (const auto& [scope, s] : scopes)
                if (s->parsed()) return RunList(scope, flags->at(scope));
              return 2;
            };
          }};
}

}  // namespace agt::cli
