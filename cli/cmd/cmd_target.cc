// `agtmux target add|connect|list|remove`: the target registry through the
// daemon (POST /v1/targets, POST /v1/targets/{name}/connect, GET
// /v1/targets, DELETE /v1/targets/{name}). A local target with
// --tmux-socket observes another tmux server on this machine.
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/client/daemon_client.h"
#include "cli/table.h"
#include "libagtcore/ref.h"

namespace agt::cli {
namespace {

struct TargetFlags {
  std::string name, kind = "local", tmux_socket, ssh_target, via;
  bool json = false, yes = false;
};

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string S(const rapidjson::Value& o, const char* k) {
  return o.HasMember(k) && o[k].IsString() ? o[k].GetString() : "";
}

void PrintTargets(const rapidjson::Value& items) {
  // WATCHED: a collector runs for the target (it may still be down).
  Table t({"NAME", "KIND", "HEALTH", "WATCHED", "PANES", "AGENTS", "WHERE"});
  for (const auto& it : items.GetArray()) {
    std::string where = S(it, "kind") == "ssh" ? S(it, "ssh_target") : S(it, "tmux_socket");
    std::string health = S(it, "health");
    // A collector that reaches no server is healthy, and watches nothing: say so.
    if (S(it, "server") == "none") health = health == "ok" ? "no tmux server" : health + ", no tmux server";
    // The reason word first (what to fix: auth_failed, host_key_mismatch...), then the message.
    if (it.HasMember("error") && it["error"].IsString()) {
      const std::string reason = S(it, "reason");
      health += " (" + (reason.empty() ? "" : reason + ": ") + S(it, "error") + ")";
    }
    t.AddRow({S(it, "name"), S(it, "kind"), health, it["connected"].GetBool() ? "yes" : "no",
              std::to_string(it["pane_count"].GetInt64()), std::to_string(it["agent_pane_count"].GetInt64()),
              where});
  }
  std::fputs(t.Render(ColorEnabled()).c_str(), stdout);
}

int Run(const std::string& verb, const TargetFlags& f) {
  auto client = DaemonClient::Open({});
  if (!client) return ReportError(client.error());
  core::Result<std::string> body = std::string();
  if (verb == "list") {
    body = client->Call("GET", "/v1/targets");
  } else if (verb == "add") {
    std::string json = "{\"name\":" + JsonString(f.name) + ",\"kind\":" + JsonString(f.kind);
    if (!f.tmux_socket.empty()) json += ",\"tmux_socket\":" + JsonString(f.tmux_socket);
    if (!f.ssh_target.empty()) json += ",\"ssh_target\":" + JsonString(f.ssh_target);
    if (!f.via.empty()) json += ",\"via\":" + JsonString(f.via);
    body = client->Call("POST", "/v1/targets", json + "}");
  } else if (verb == "connect") {
    body = client->Call("POST", "/v1/targets/" + core::PercentEncode(f.name) + "/connect");
  } else if (verb == "remove") {
    if (!f.yes) {
      if (!isatty(STDIN_FILENO))
        return ReportError(core::MakeError(core::Err::kPreconditionFailed,
                                           "removing target '" + f.name + "' needs --yes when stdin is not a terminal"));
      std::fprintf(stderr, "Remove target '%s'? [y/N] ", f.name.c_str());
      std::string answer;
      std::getline(std::cin, answer);
      if (answer != "y" && answer != "Y" && answer != "yes") return 1;
    }
    body = client->Call("DELETE", "/v1/targets/" + core::PercentEncode(f.name));
  }
  if (!body) return ReportError(body.error());
  if (f.json) {
    std::fwrite(body->data(), 1, body->size(), stdout);
    return 0;
  }
  auto d = verb == "list" ? ParseAnswer(*body, {"items"})
           : verb == "remove" ? ParseAnswer(*body)
                              : ParseAnswer(*body, {"target"});
  if (!d) return ReportError(d.error());
  if (verb == "list") {
    PrintTargets((*d)["items"]);
  } else if (verb == "remove") {
    std::printf("removed target %s\n", f.name.c_str());
  } else {
    rapidjson::Document arr;
    arr.SetArray();
    arr.PushBack(rapidjson::Value((*d)["target"], arr.GetAllocator()), arr.GetAllocator());
    PrintTargets(arr);
  }
  return 0;
}

}  // namespace

CommandSpec TargetCommand() {
  return {"target", "Manage the targets agtmuxd observes (add, connect, list, remove)",
          [](CLI::App* sub) -> Runner {
            sub->require_subcommand(1);
            auto f = std::make_shared<TargetFlags>();
            auto verbs = std::make_shared<std::vector<std::pair<std::string, CLI::App*>>>();
            CLI::App* add = sub->add_subcommand("add", "Register a target");
            add->add_option("name", f->name, "target name ([A-Za-z0-9._-]+)")->required();
            add->add_option("--kind", f->kind, "local or ssh")->check(CLI::IsMember({"local", "ssh"}));
            add->add_option("--tmux-socket", f->tmux_socket, "the tmux server socket to observe (on this machine, or on the ssh host)");
            add->add_option("--ssh-target", f->ssh_target, "ssh: user@host[:port]; keys and known_hosts from ~/.ssh");
            add->add_option("--via", f->via,
                            "ssh: agtmuxd (read the host's own agtmuxd) or cap (capture over ssh); default: probe");
            add->add_flag("--json", f->json, "the daemon's JSON answer");
            CLI::App* connect = sub->add_subcommand("connect", "(Re)connect a target now");
            connect->add_option("name", f->name, "target name")->required();
            connect->add_flag("--json", f->json, "the daemon's JSON answer");
            CLI::App* list = sub->add_subcommand("list", "List targets and their health");
            list->add_flag("--json", f->json, "the daemon's JSON answer");
            CLI::App* remove = sub->add_subcommand("remove", "Forget a target");
            remove->add_option("name", f->name, "target name")->required();
            remove->add_flag("--yes", f->yes, "do not ask for confirmation");
            remove->add_flag("--json", f->json, "the daemon's JSON answer");
            *verbs = {{"add", add}, {"connect", connect}, {"list", list}, {"remove", remove}};
            return [f, verbs] {
              for (const auto& [verb, app] : *verbs)
                if (app->parsed()) return Run(verb, *f);
              return 2;
            };
          }};
}

}  // namespace agt::cli
