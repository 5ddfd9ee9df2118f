// `agtmux explain <ref>`: why a pane has its state. Shows every source's
// latest opinion (the engine's candidates) with rule id, evidence and age,
// marks the winner and says why it won (GET /v1/explain?ref=).
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>

#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/client/ref_resolve.h"
#include "cli/client/daemon_client.h"
#include "cli/table.h"
#include "libagtcore/base/timefmt.h"
#include "libagtcore/base/visible_text.h"

namespace agt::cli {
namespace {

// A string field of the answer as it may be printed: the daemon's answer
// carries agent text (evidence, rule detail, the question), so it is made
// visible (core::VisibleText), never sent to the terminal raw.
std::string S(const rapidjson::Value& o, const char* k) {
  return o.IsObject() && o.HasMember(k) && o[k].IsString() ? core::VisibleText(o[k].GetString()) : "-";
}

}  // namespace

std::string VerifiedLine(const rapidjson::Value& d) {
  if (!d.IsObject() || !d.HasMember("verified")) return "";
  const auto& v = d["verified"];
  const std::string version = d.HasMember("runtime") ? S(d["runtime"], "agent_version") : "-";
  std::string list;
  if (d.HasMember("verified_on") && d["verified_on"].IsArray())
    for (const auto& x : d["verified_on"].GetArray())
      if (x.IsString()) list += (list.empty() ? "" : ", ") + core::VisibleText(x.GetString());
  if (list.empty()) list = "none";
  if (v.IsNull()) return "verified unknown: the agent's version is not known (the set is verified on " + list + ")\n";
  if (v.IsBool() && v.GetBool()) return "verified yes: " + version + " (the set is verified on " + list + ")\n";
  return "verified no: " + version + " is not a version the pattern set was verified on (" + list +
         "); the state is read with unchecked rules (agtmux patterns doctor)\n";
}

namespace {

int RunExplain(const std::string& ref, bool json) {
  auto client = DaemonClient::Open({});
  if (!client) return ReportError(client.error());
  auto body = client->Call("GET", "/v1/explain" + QueryString({{"ref", ref}}));
  if (!body) return ReportError(body.error());
  if (json) {
    std::fwrite(body->data(), 1, body->size(), stdout);
    return 0;
  }
  auto answer = ParseAnswer(*body);
  if (!answer) return ReportError(answer.error());
  const rapidjson::Document& d = *answer;
  const auto& id = d["identity"];
  std::printf("pane     %s %s %s %s\n", S(id, "target").c_str(), S(id, "session_name").c_str(),
              S(id, "window_id").c_str(), S(id, "pane_id").c_str());
  std::printf("state    %s", S(d, "state").c_str());
  if (d.HasMember("reason_code") && d["reason_code"].IsString())
    std::printf(" (%s)", core::VisibleText(d["reason_code"].GetString()).c_str());
  std::printf("\nsource   %s\n", S(d, "source").c_str());
  if (d.HasMember("runtime")) {
    const auto& rt = d["runtime"];
    std::string agent = S(rt, "agent_type");
    if (rt.IsObject() && rt.HasMember("agent_version") && rt["agent_version"].IsString())
      agent += " " + core::VisibleText(rt["agent_version"].GetString());
    std::printf("runtime  %s (%s, announced by %s)\n", S(rt, "runtime_id").c_str(), agent.c_str(),
                S(rt, "owner").c_str());
  }
  std::printf("%s", VerifiedLine(d).c_str());
  if (d.HasMember("candidates") && d["candidates"].IsArray() && !d["candidates"].Empty()) {
    Table t({"", "SOURCE", "STATE", "CONF", "RULE", "AGE", "EVIDENCE"});
    t.SetMaxWidth(6, 60);
    for (const auto& c : d["candidates"].GetArray()) {
      bool winner = c["winner"].GetBool();
      bool stale = c["stale"].GetBool();
      std::string state = S(c, "state");
      t.AddRow({winner ? "*" : (stale ? "stale" : ""), S(c, "column") + " (" + S(c, "source") + ")", state,
                S(c, "confidence"), S(c, "rule_id"), core::FormatAge(c["age_seconds"].GetInt64() * core::kNsPerSec),
                S(c, "evidence")},
               {"", "", StateColor(state), "", "", "", ""});
    }
    std::printf("\n%s", t.Render(ColorEnabled()).c_str());
  }
  std::printf("\nwhy      %s\n", S(d, "why").c_str());
  return 0;
}

}  // namespace

CommandSpec ExplainCommand() {
  return {"explain", "Explain why a pane has its state (sources, rule, evidence, age)",
          [](CLI::App* sub) -> Runner {
            auto ref = std::make_shared<std::string>();
            auto json = std::make_shared<bool>(false);
            sub->add_option("ref", *ref, kRefHelp)->required();
            sub->add_flag("--json", *json, "the daemon's JSON answer");
            return [ref, json] { return WithResolvedRef(ref.get(), [ref, json] { return RunExplain(*ref, *json); }); };
          }};
}

}  // namespace agt::cli
