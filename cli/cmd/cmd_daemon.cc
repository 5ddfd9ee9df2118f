// `agtmux daemon start|stop|status`. start: runs agtmuxd detached unless one
// already answers; stop: SIGTERM to the pid /v1/health reports, then waits
// for the socket to go quiet (a graceful shutdown ends watch streams with
// `reset` and flushes the store); status: pid, uptime, socket, engine,
// events ingested and dropped, the store's error, the tmux servers watched.
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/client/daemon_client.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/os/process.h"

namespace agt::cli {
namespace {

core::Result<rapidjson::Document> Health(DaemonClient& c) {
  return c.CallJson("GET", "/v1/health", "", {"pid"});
}

std::string Str(const rapidjson::Value& o, const char* k) {
  return o.HasMember(k) && o[k].IsString() ? o[k].GetString() : "";
}

// The tmux servers the daemon watches, one line each: target, where, and
// whether a server answers there (GET /v1/targets, `server`).
void PrintServers(DaemonClient& c) {
  auto d = c.CallJson("GET", "/v1/targets", "", {"items"});
  if (!d || !(*d)["items"].IsArray()) return;
  std::printf("tmux servers watched:\n");
  for (const auto& t : (*d)["items"].GetArray()) {
    const std::string kind = Str(t, "kind"), server = Str(t, "server");
    std::string where = kind == "ssh" ? "ssh " + Str(t, "ssh_target") : Str(t, "tmux_socket");
    if (kind == "ssh" && !Str(t, "tmux_socket").empty()) where += " " + Str(t, "tmux_socket");
    std::string what = server == "running" ? "running" : server == "none" ? "no server" : "not read yet";
    if (server == "running" && t.HasMember("pane_count") && t["pane_count"].IsInt64()) {
      const long long panes = t["pane_count"].GetInt64();
      what += ", " + std::to_string(panes) + (panes == 1 ? " pane" : " panes");
    }
    if (Str(t, "health") != "ok") what += ", " + Str(t, "health");
    if (!Str(t, "error").empty()) what += " (" + Str(t, "error") + ")";
    std::printf("  %s: %s: %s\n", Str(t, "name").c_str(), where.c_str(), what.c_str());
  }
}

int Run(const std::string& verb, bool json) {
  ClientOptions o;
  o.autostart = false;
  auto client = DaemonClient::Open(o);
  if (!client) return ReportError(client.error());
  if (verb == "start") {
    if (auto h = Health(*client)) {
      std::printf("agtmuxd is already running (pid %lld)\n", static_cast<long long>((*h)["pid"].GetInt64()));
      return 0;
    }
    auto pid = StartDaemon(client->paths(), 3 * core::kNsPerSec);
    if (!pid) return ReportError(pid.error());
    std::printf("agtmuxd started (pid %lld, socket %s)\n", static_cast<long long>(*pid),
                client->paths().socket_path.c_str());
    return 0;
  }
  auto h = Health(*client);
  if (verb == "status") {
    if (!h) {
      std::printf("agtmuxd is not running (socket %s)\n", client->paths().socket_path.c_str());
      return 3;
    }
    if (json) {
      auto body = client->Call("GET", "/v1/health");
      if (body) std::fwrite(body->data(), 1, body->size(), stdout);
      return 0;
    }
    const auto& d = *h;
    std::printf("agtmuxd is running: pid %lld, up %llds, socket %s\n", static_cast<long long>(d["pid"].GetInt64()),
                static_cast<long long>(d["uptime_seconds"].GetInt64()), d["socket_path"].GetString());
    const long long panes = d["panes"].GetInt64(), agents = d["agent_panes"].GetInt64(),
                    watchers = d["watchers"].GetInt64();
    // The state core is named only when it is not the usual one ("engine").
    const std::string engine = d["engine"].GetString();
    std::printf("%sstore %s, %lld %s (%lld with an agent), %lld %s\n",
                engine == "engine" ? "" : ("state core " + engine + ", ").c_str(), d["persistence"].GetString(),
                panes, panes == 1 ? "pane" : "panes", agents, watchers, watchers == 1 ? "watcher" : "watchers");
    // Events lost on the way to the store (docs/api.md, /v1/health).
    if (d.HasMember("events_dropped") && d["events_dropped"].IsInt64()) {
      std::string why;
      if (d.HasMember("dropped") && d["dropped"].IsObject()) {
        for (const auto& m : d["dropped"].GetObject()) {
          if (!m.value.IsInt64() || m.value.GetInt64() == 0) continue;
          why += (why.empty() ? " (" : ", ") + std::string(m.name.GetString()) + " " +
                 std::to_string(m.value.GetInt64());
        }
        if (!why.empty()) why += ")";
      }
      std::printf("%lld events ingested, %lld dropped%s\n", static_cast<long long>(d["events_ingested"].GetInt64()),
                  static_cast<long long>(d["events_dropped"].GetInt64()), why.c_str());
    }
    if (d.HasMember("store_error") && d["store_error"].IsString())
      std::printf("store error: %s (events are refused until a commit succeeds)\n", d["store_error"].GetString());
    PrintServers(*client);
    return 0;
  }
  // stop
  if (!h) {
    std::printf("agtmuxd is not running\n");
    return 0;
  }
  pid_t pid = static_cast<pid_t>((*h)["pid"].GetInt64());
  if (::kill(pid, SIGTERM) != 0) {
    return ReportError(core::MakeError(core::Err::kIo, "cannot signal agtmuxd (pid " + std::to_string(pid) + ")"));
  }
  const core::Clock& clock = core::SystemClock::Get();
  core::TimeNs deadline = clock.Monotonic() + 10 * core::kNsPerSec;
  while (clock.Monotonic() < deadline) {
    if (!core::ProcessAlive(pid)) {
      std::printf("agtmuxd stopped (pid %d)\n", pid);
      return 0;
    }
    ::usleep(20 * 1000);
  }
  return ReportError(core::MakeError(core::Err::kTimeout, "agtmuxd (pid " + std::to_string(pid) +
                                                              ") did not stop within 10 s"));
}

}  // namespace

CommandSpec DaemonCommand() {
  return {"daemon", "Start, stop or query agtmuxd", [](CLI::App* sub) -> Runner {
            sub->require_subcommand(1);
            auto json = std::make_shared<bool>(false);
            auto verbs = std::make_shared<std::vector<std::pair<std::string, CLI::App*>>>();
            for (const char* v : {"start", "stop", "status"}) {
              CLI::App* a = sub->add_subcommand(v, std::string(v) + " the daemon");
              if (std::string(v) == "status") a->add_flag("--json", *json, "the health answer as JSON");
              verbs->emplace_back(v, a);
            }
            return [json, verbs] {
              for (const auto& [verb, app] : *verbs)
                if (app->parsed()) return Run(verb, *json);
              return 2;
            };
          }};
}

}  // namespace agt::cli
