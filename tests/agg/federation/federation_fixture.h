// The fixture of the federation end-to-end tests (docs/architecture.md,
// "Federation"): a local agtmuxd in its own TestEnv that reads loopback
// RemoteHosts (remote_host.h) added as ssh target "vm", and the helpers the
// tests share to read the local view of the remote pane.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/agg/federation/remote_host.h"
#include "libagtcore/os/file.h"

namespace agt::test {

inline constexpr const char* kRuntime = "rt-fedfedfedfedfedfe";

class FederationTest : public ::testing::Test {
 protected:
  void StartLocal() {
    local_ = std::make_unique<Daemon>(env_);
    ASSERT_TRUE(local_->WaitReady());
  }
  void AddTarget(RemoteHost& host, const std::string& via = "") {
    host.Trust(env_);
    std::vector<std::string> argv = {AGTMUX_BIN, "target", "add", "vm", "--kind", "ssh", "--ssh-target", host.SshTarget()};
    if (!via.empty()) argv.insert(argv.end(), {"--via", via});
    auto add = env_.Run(argv);
    ASSERT_EQ(add.status, 0) << add.err;
  }
  rapidjson::Document Get(const std::string& path) {
    rapidjson::Document d;
    auto r = local_->Call("GET", path);
    if (r.ok()) d.Parse(r->body.c_str());
    return d;
  }
  /// The one agent pane of target vm, or an empty object.
  rapidjson::Document VmPane() {
    rapidjson::Document d = Get("/v1/panes?target=vm");
    rapidjson::Document one;
    one.SetObject();
    if (d.IsObject() && d.HasMember("items") && d["items"].Size() == 1) one.CopyFrom(d["items"][0], one.GetAllocator());
    return one;
  }
  bool VmState(const std::string& state, const std::string& reason = "") {
    auto p = VmPane();
    if (!p.HasMember("state") || p["state"].GetString() != state) return false;
    return reason.empty() || (p["reason_code"].IsString() && p["reason_code"].GetString() == reason);
  }
  std::string VmHealth() {
    auto d = Get("/v1/targets");
    if (!d.IsObject() || !d.HasMember("items")) return "";
    for (const auto& t : d["items"].GetArray())
      if (std::string(t["name"].GetString()) == "vm") return t["health"].GetString();
    return "";
  }
  std::string Log() {
    auto text = core::ReadWholeFile(env_.state_dir() + "/agtmuxd.log");
    return text ? *text : "";
  }
  /// A remote host with a wrapped agent running in session "work".
  void StartWrappedHost(RemoteHost& host) {
    host.StartDaemon();
    pane_ = host.NewPane("work");
    // The host's daemon has placed the pane in its tmux server.
    ASSERT_TRUE(PollUntil([&] {
      auto r = host.daemon->Call("GET", "/v1/panes?all=1&target=host");
      return r.ok() && r->body.find("\"session_name\":\"work\"") != std::string::npos;
    }, 10000)) << "the host's agtmuxd never saw its tmux pane";
    host.Post({host.WrapperStarted("01JG0000000000000000000F01", kRuntime, pane_),
               StateEvent("01JG0000000000000000000F02", kRuntime, pane_, "running", 1)});
  }

  TestEnv env_;
  std::unique_ptr<Daemon> local_;
  std::string pane_;
};

}  // namespace agt::test
