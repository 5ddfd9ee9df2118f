// What the action commands (send, respond, attach, view-output, kill)
// share: the guard flags every action takes, the call that posts an action
// to agtmuxd and reads its answer, and small helpers for request and
// result bodies (see action_client.h).
#include "cli/client/action_client.h"

#include <CLI/CLI.hpp>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "cli/client/daemon_client.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/ids.h"

namespace agt::cli {

void AddGuardFlags(CLI::App* sub, ActionGuards* g) {
  sub->add_option("--if-runtime", g->if_runtime, "act only if the pane's runtime is this id");
  sub->add_option("--if-state", g->if_state, "act only in these states (comma-separated)");
  sub->add_option("--if-updated-within", g->if_updated_within, "act only if the state is this fresh (e.g. 30s)");
  sub->add_option("--snapshot", g->snapshot_id, "check against this snapshot id (fails closed when it moved)");
  sub->add_option("--request-ref", g->request_ref, "idempotency key (a replay returns the stored result)");
  sub->add_flag("--force-stale", g->force_stale, "act even if the state moved since the snapshot");
}

/// POSTs /v1/actions/<type> with `body` plus the guards; the parsed answer.
core::Result<rapidjson::Document> PostAction(const std::string& type, rapidjson::Document& body,
                                             const ActionGuards& g) {
  auto& a = body.GetAllocator();
  auto put = [&](const char* k, const std::string& v) {
    if (!v.empty()) body.AddMember(rapidjson::StringRef(k), rapidjson::Value(v.c_str(), a), a);
  };
  put("if_runtime", g.if_runtime);
  put("if_state", g.if_state);
  put("if_updated_within", g.if_updated_within);
  put("snapshot_id", g.snapshot_id);
  put("request_ref", g.request_ref.empty() ? core::NewUlid(core::SystemClock::Get().Now()) : g.request_ref);
  if (g.force_stale) body.AddMember("force_stale", true, a);
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  body.Accept(w);
  auto client = DaemonClient::Open({});
  if (!client) return client.error();
  return client->CallJson("POST", "/v1/actions/" + type, std::string(sb.GetString(), sb.GetSize()));
}

rapidjson::Document ActionBody(const std::string& ref) {
  rapidjson::Document d(rapidjson::kObjectType);
  d.AddMember("ref", rapidjson::Value(ref.c_str(), d.GetAllocator()), d.GetAllocator());
  return d;
}

core::Result<std::string> ViewOutput(const std::string& ref, int lines, bool escapes) {
  rapidjson::Document b = ActionBody(ref);
  b.AddMember("lines", lines, b.GetAllocator());
  if (escapes) b.AddMember("escapes", true, b.GetAllocator());
  auto d = PostAction("view-output", b, {});
  if (!d) return d.error();
  return ResultString(*d, "output");
}

std::string ResultString(const rapidjson::Document& d, const char* key) {
  if (!d.HasMember("result") || !d["result"].IsObject()) return "";
  const auto& r = d["result"];
  return r.HasMember(key) && r[key].IsString() ? r[key].GetString() : "";
}

std::string NewOutput(const std::string& before, const std::string& after) {
  size_t common = 0;
  while (common < before.size() && common < after.size() && before[common] == after[common]) ++common;
  if (common == after.size()) return "";
  if (common == before.size() && after[common] == '\n') return after.substr(common + 1);
  if (common > 0 && after[common - 1] == '\n') return after.substr(common);
  size_t start = after.rfind('\n', common == 0 ? 0 : common - 1);
  return start == std::string::npos ? after : after.substr(start + 1);
}

}  // namespace agt::cli
