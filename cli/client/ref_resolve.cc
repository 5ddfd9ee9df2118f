// ResolveRef (see ref_resolve.h): the forms users type, matched against
// the panes the daemon lists.
#include "cli/client/ref_resolve.h"

#include <vector>

#include "cli/client/daemon_client.h"
#include "cli/json_fields.h"
#include "cli/table.h"
#include "libagtcore/ref.h"

namespace agt::cli {
namespace {

struct Pane {
  std::string ref, runtime, target, session, window_name, pane_id, agent, state;
  int64_t window_index = -1, pane_index = -1;
  std::string Display() const {
    std::string s = (target == kHostTarget ? "" : target + "/") + session + ":" + std::to_string(window_index) + "." +
                    std::to_string(pane_index) + " " + pane_id;
    if (!agent.empty()) s += " (" + agent + ", " + state + ")";
    return s;
  }
};

std::vector<Pane> Panes(const rapidjson::Value& items) {
  std::vector<Pane> out;
  if (!items.IsArray()) return out;
  for (const auto& it : items.GetArray()) {
    if (!it.IsObject() || !it.HasMember("identity")) continue;
    const auto& id = it["identity"];
    Pane p;
    p.ref = JsonStr(it, "ref");
    p.runtime = JsonStr(it, "runtime_id");
    p.target = JsonStr(id, "target");
    p.session = JsonStr(id, "session_name");
    p.pane_id = JsonStr(id, "pane_id");
    p.window_name = JsonStr(it, "window_name");
    p.window_index = JsonInt(it, "window_index", -1);
    p.pane_index = JsonInt(it, "pane_index", -1);
    p.agent = JsonStr(it, "agent_type");
    p.state = JsonStr(it, "state");
    if (p.ref.empty()) p.ref = core::FormatRef({core::Ref::Kind::kPane, "", p.target, p.session,
                                                JsonStr(id, "window_id"), p.pane_id});
    out.push_back(std::move(p));
  }
  return out;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// `spec` without its target: "%4", "work:2.1", "work:2", "work".
bool Matches(const Pane& p, std::string_view spec) {
  if (!spec.empty() && spec[0] == '%') return p.pane_id == spec;
  size_t colon = spec.rfind(':');
  std::string_view session = colon == std::string_view::npos ? spec : spec.substr(0, colon);
  if (session != p.session) return false;
  if (colon == std::string_view::npos) return true;
  std::string_view rest = spec.substr(colon + 1);
  size_t dot = rest.rfind('.');
  std::string_view window = dot == std::string_view::npos ? rest : rest.substr(0, dot);
  if (!window.empty()) {
    bool by_index = AllDigits(window) && std::to_string(p.window_index) == window;
    if (!by_index && window != p.window_name) return false;
  }
  if (dot == std::string_view::npos) return true;
  std::string_view pane = rest.substr(dot + 1);
  return AllDigits(pane) && std::to_string(p.pane_index) == pane;
}

// Agent panes first: "work" names the agent pane of a session that also
// has a shell pane.
std::vector<const Pane*> PreferAgents(const std::vector<const Pane*>& found) {
  std::vector<const Pane*> agents;
  for (const Pane* p : found)
    if (!p->agent.empty()) agents.push_back(p);
  return agents.empty() ? found : agents;
}

std::string List(const std::vector<const Pane*>& panes, size_t max) {
  std::string out;
  for (size_t i = 0; i < panes.size() && i < max; ++i) out += "\n  " + panes[i]->Display();
  if (panes.size() > max) out += "\n  … and " + std::to_string(panes.size() - max) + " more";
  return out;
}

}  // namespace

core::Result<std::string> ResolveRefIn(const rapidjson::Value& items, std::string_view typed) {
  const std::vector<Pane> panes = Panes(items);
  std::vector<const Pane*> found;
  size_t slash = typed.find('/');
  bool targeted = slash != std::string_view::npos && typed.find(':') > slash;
  std::string_view target = targeted ? typed.substr(0, slash) : std::string_view();
  std::string_view spec = targeted ? typed.substr(slash + 1) : typed;
  for (const Pane& p : panes)
    if ((!targeted || p.target == target) && Matches(p, spec)) found.push_back(&p);
  if (found.empty() && typed.size() >= 3) {
    auto starts = [&](const std::string& s) { return s.compare(0, typed.size(), typed) == 0; };
    for (const Pane& p : panes)
      if (starts(p.ref) || (!p.runtime.empty() && (starts(p.runtime) || starts("runtime:" + p.runtime))))
        found.push_back(&p);
  }
  found = PreferAgents(found);
  if (found.size() == 1) return found[0]->ref;
  if (found.size() > 1)
    return core::MakeError(core::Err::kRefAmbiguous, "'" + std::string(typed) + "' matches " +
                                                       std::to_string(found.size()) + " panes; name one:" +
                                                       List(found, 8));
  std::vector<const Pane*> agents;
  for (const Pane& p : panes)
    if (!p.agent.empty()) agents.push_back(&p);
  std::string msg = "no pane matches '" + std::string(typed) +
                    "' (a ref is %<pane>, session:window.pane, [target/]... or pane:/runtime: as `agtmux list "
                    "panes` shows)";
  if (!agents.empty()) msg += "; agent panes:" + List(agents, 8);
  return core::MakeError(core::Err::kRefInvalid, msg);
}

core::Result<std::string> ResolveRef(std::string_view typed) {
  auto parsed = core::ParseRef(typed);
  if (parsed.ok()) return std::string(typed);
  // A pane:/runtime: ref whose percent-encoding is broken is that error, not
  // a name to look for among the panes.
  if (parsed.error().code == core::Err::kRefInvalidEncoding) return parsed.error();
  auto client = DaemonClient::Open({});
  if (!client) return client.error();
  auto answer = client->CallJson("GET", "/v1/panes?all=1", "", {"items"});
  if (!answer) return answer.error();
  return ResolveRefIn((*answer)["items"], typed);
}

int WithResolvedRef(std::string* ref, const std::function<int()>& run) {
  auto resolved = ResolveRef(*ref);
  if (!resolved) return ReportError(resolved.error());
  *ref = *resolved;
  return run();
}

}  // namespace agt::cli
