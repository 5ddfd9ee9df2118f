// Federation end to end (docs/architecture.md, "Federation"): a local
// agtmuxd reads ssh targets whose hosts run their own agtmuxd. Each host is
// a RemoteHost (loopback sshd, private tmux, its own agtmuxd and state dir);
// the wrapper's events are posted to the host's daemon as the wrapper posts
// them. The remote panes show locally with the remote's state and SOURCE;
// a host that goes away never blocks the view, its panes turn
// unknown / target_unreachable, and come back with what happened meanwhile.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/agg/federation/remote_host.h"
#include "libagtcore/file.h"

namespace agt::test {
namespace {

constexpr const char* kRuntime = "rt-fedfedfedfedfedfe";

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

TEST_F(FederationTest, ARemoteWrappedPaneShowsWithTheRemotesStateAndSource) {
  RemoteHost host(1);
  ASSERT_NO_FATAL_FAILURE(StartWrappedHost(host));
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_NO_FATAL_FAILURE(AddTarget(host));
  ASSERT_TRUE(PollUntil([&] { return VmState("running"); }, 15000)) << Log();
  auto p = VmPane();
  EXPECT_STREQ(p["identity"]["target"].GetString(), "vm");
  EXPECT_STREQ(p["identity"]["session_name"].GetString(), "work");
  EXPECT_STREQ(p["identity"]["pane_id"].GetString(), pane_.c_str());
  EXPECT_EQ(std::string(p["ref"].GetString()).rfind("pane:vm/work/@", 0), 0u) << p["ref"].GetString();
  EXPECT_STREQ(p["source"].GetString(), "PTY");
  EXPECT_STREQ(p["signal_source"].GetString(), "wrapper");
  EXPECT_STREQ(p["rule_id"].GetString(), "test.running");
  EXPECT_STREQ(p["evidence"].GetString(), "line");
  EXPECT_STREQ(p["runtime_id"].GetString(), kRuntime);
  EXPECT_STREQ(p["agent_type"].GetString(), "claude");
  EXPECT_TRUE(p["age_seconds"].IsInt64());
  EXPECT_NE(Log().find("reading the host's agtmuxd (streamlocal)"), std::string::npos) << Log();

  // A state change on the remote reaches the local view; nothing is
  // re-derived here (the state_version is the remote's).
  const int64_t version = p["state_version"].GetInt64();
  host.Post({StateEvent("01JG0000000000000000000F03", kRuntime, pane_, "waiting_input", 2)});
  ASSERT_TRUE(PollUntil([&] { return VmState("waiting_input"); }, 5000));
  auto remote = host.daemon->Call("GET", "/v1/panes?target=host");
  rapidjson::Document rd;
  rd.Parse(remote->body.c_str());
  EXPECT_EQ(VmPane()["state_version"].GetInt64(), rd["items"][0]["state_version"].GetInt64());
  EXPECT_GT(VmPane()["state_version"].GetInt64(), version);

  // The CLI lists it under the target's name with SOURCE PTY.
  auto list = env_.Run({AGTMUX_BIN, "list", "panes", "--target", "vm"});
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("PTY"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("vm"), std::string::npos) << list.out;
  EXPECT_EQ(VmHealth(), "ok");
}

TEST_F(FederationTest, SshdKilledMidWatchTurnsThePanesUnknownAndTheyComeBackWithWhatHappened) {
  RemoteHost host(2);
  ASSERT_NO_FATAL_FAILURE(StartWrappedHost(host));
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_NO_FATAL_FAILURE(AddTarget(host, "agtmuxd"));
  ASSERT_TRUE(PollUntil([&] { return VmState("running"); }, 15000)) << Log();

  RawConn watch(env_.socket());
  watch.Send("GET /v1/watch?target=vm&interval=1s HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_NE(watch.ReadUntil("\"state\":\"running\"").find("\"snapshot\""), std::string::npos);

  host.sshd->Stop();
  ASSERT_TRUE(PollUntil([&] { return VmState("unknown", "target_unreachable"); }, 5000)) << Log();
  // The view keeps answering, promptly, with the target reported.
  ASSERT_TRUE(PollUntil([&] { return VmHealth() == "down"; }, 15000)) << Log();
  auto d = Get("/v1/panes?target=vm");
  EXPECT_TRUE(d["partial"].GetBool());
  ASSERT_EQ(d["target_errors"].Size(), 1u);
  EXPECT_STREQ(d["target_errors"][0]["target"].GetString(), "vm");

  // Meanwhile the agent asks for input on the remote.
  host.Post({StateEvent("01JG0000000000000000000F04", kRuntime, pane_, "waiting_input", 2)});
  host.sshd->Start();
  ASSERT_TRUE(PollUntil([&] { return VmState("waiting_input"); }, 20000)) << Log();
  EXPECT_STREQ(VmPane()["source"].GetString(), "PTY");
  ASSERT_TRUE(PollUntil([&] { return VmHealth() == "ok"; }, 10000)) << Log();

  // The local stream saw running, then unknown, then waiting_input: the
  // state from before the outage never came back as news.
  const std::string seen = watch.ReadUntil("\"state\":\"waiting_input\"");
  const size_t unknown = seen.find("target_unreachable");
  ASSERT_NE(unknown, std::string::npos) << seen;
  EXPECT_EQ(seen.find("\"state\":\"running\"", unknown), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"state\":\"waiting_input\"", unknown), std::string::npos) << seen;
}

TEST_F(FederationTest, ARemoteDaemonKilledAndRestartedLosesNothing) {
  RemoteHost host(3);
  ASSERT_NO_FATAL_FAILURE(StartWrappedHost(host));
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_NO_FATAL_FAILURE(AddTarget(host));
  ASSERT_TRUE(PollUntil([&] { return VmState("running"); }, 15000)) << Log();

  host.daemon->Stop(SIGKILL);
  ASSERT_TRUE(PollUntil([&] { return VmState("unknown", "target_unreachable"); }, 8000)) << Log();
  // The restarted daemon is a new stream: the local side's cursor is of
  // another run, so it gets reset + snapshot, with the state it kept.
  ASSERT_NO_FATAL_FAILURE(host.StartDaemon());
  ASSERT_TRUE(PollUntil([&] { return VmState("running"); }, 20000)) << Log();
  host.Post({StateEvent("01JG0000000000000000000F05", kRuntime, pane_, "completed", 3)});
  ASSERT_TRUE(PollUntil([&] { return VmState("completed"); }, 5000)) << Log();
  EXPECT_STREQ(VmPane()["source"].GetString(), "PTY");
}

TEST_F(FederationTest, WithoutUnixSocketForwardingTheBridgeCarriesTheStream) {
  RemoteHost host(4, {.streamlocal = false});
  ASSERT_NO_FATAL_FAILURE(StartWrappedHost(host));
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_NO_FATAL_FAILURE(AddTarget(host));
  ASSERT_TRUE(PollUntil([&] { return VmState("running"); }, 15000)) << Log();
  EXPECT_NE(Log().find("reading the host's agtmuxd (bridge)"), std::string::npos) << Log();
  host.Post({StateEvent("01JG0000000000000000000F06", kRuntime, pane_, "idle", 2)});
  ASSERT_TRUE(PollUntil([&] { return VmState("idle"); }, 5000));
}

TEST_F(FederationTest, AHostWithoutAgtmuxIsObservedOverSshInstead) {
  RemoteHost host(5, {.agtmux_on_path = false});
  pane_ = host.NewPane("plain");
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_NO_FATAL_FAILURE(AddTarget(host));
  ASSERT_TRUE(PollUntil([&] {
    auto d = Get("/v1/panes?all=1&target=vm");
    return d.IsObject() && d.HasMember("items") && d["items"].Size() == 1 &&
           d["items"][0]["identity"]["pane_id"].GetString() == pane_;
  }, 15000)) << Log();
  EXPECT_NE(Log().find("observing it over ssh instead"), std::string::npos) << Log();
}

TEST_F(FederationTest, ForcedFederationStartsTheRemoteDaemonOnDemand) {
  RemoteHost host(6);
  pane_ = host.NewPane("work");
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_NO_FATAL_FAILURE(AddTarget(host, "agtmuxd"));
  // `agtmux bridge --locate --start` on the host started its agtmuxd.
  net::UnixHttpClientOptions o;
  o.socket_path = host.env.socket();
  net::HttpRequest health;
  health.path = "/v1/health";
  int64_t pid = 0;
  ASSERT_TRUE(PollUntil([&] {
    auto r = net::HttpCall(o, health);
    if (!r.ok() || r->status != 200) return false;
    rapidjson::Document d;
    d.Parse(r->body.c_str());
    pid = d["pid"].GetInt64();
    return true;
  }, 15000)) << Log();
  ASSERT_TRUE(PollUntil([&] {
    auto d = Get("/v1/panes?all=1&target=vm");
    return d.IsObject() && d.HasMember("items") && d["items"].Size() == 1;
  }, 15000)) << Log();
  kill(pid_t(pid), SIGTERM);
}

TEST_F(FederationTest, ARestartedLocalDaemonResumesFromItsCursor) {
  RemoteHost host(7);
  ASSERT_NO_FATAL_FAILURE(StartWrappedHost(host));
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_NO_FATAL_FAILURE(AddTarget(host));
  ASSERT_TRUE(PollUntil([&] { return VmState("running"); }, 15000)) << Log();
  const std::string kept = env_.state_dir() + "/federation/vm.json";
  ASSERT_TRUE(PollUntil([&] { return std::filesystem::exists(kept); }, 5000));
  ASSERT_EQ(local_->Stop(SIGTERM), 0);
  auto text = core::ReadWholeFile(kept);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("\"cursor\":\"0"), std::string::npos) << *text;  // a ULID stream id
  host.Post({StateEvent("01JG0000000000000000000F07", kRuntime, pane_, "waiting_approval", 2)});
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_TRUE(PollUntil([&] { return VmState("waiting_approval"); }, 15000)) << Log();
}

}  // namespace
}  // namespace agt::test

namespace agt::test {
namespace {

std::string SnapshotId(const std::string& body) {
  const std::string key = "\"snapshot_id\":\"";
  const size_t at = body.find(key);
  if (at == std::string::npos) return "";
  return body.substr(at + key.size(), body.find('"', at + key.size()) - at - key.size());
}

TEST_F(FederationTest, ActionsOnARemotePaneGoToItsDaemonWithItsGuards) {
  RemoteHost host(8);
  ASSERT_NO_FATAL_FAILURE(StartWrappedHost(host));
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_NO_FATAL_FAILURE(AddTarget(host));
  ASSERT_TRUE(PollUntil([&] { return VmState("running"); }, 15000)) << Log();
  const std::string ref = VmPane()["ref"].GetString();

  // A snapshot taken through the local daemon is the remote daemon's.
  auto snap = local_->Call("POST", "/v1/actions/snapshot", "{\"ref\":\"" + ref + "\"}");
  ASSERT_TRUE(snap.ok());
  ASSERT_EQ(snap->status, 200) << snap->body;
  const std::string id = SnapshotId(snap->body);
  ASSERT_FALSE(id.empty()) << snap->body;
  EXPECT_NE(snap->body.find("\"state\":\"running\""), std::string::npos) << snap->body;

  // The pane moved on the remote: the send is refused there.
  host.Post({StateEvent("01JG0000000000000000000F08", kRuntime, pane_, "waiting_input", 2)});
  ASSERT_TRUE(PollUntil([&] { return VmState("waiting_input"); }, 5000));
  auto refused = local_->Call("POST", "/v1/actions/send",
                              "{\"ref\":\"" + ref + "\",\"text\":\"echo fed-one\",\"snapshot_id\":\"" + id + "\"}");
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->status, 409) << refused->body;
  EXPECT_NE(refused->body.find("E_PRECONDITION_FAILED"), std::string::npos) << refused->body;

  // With a fresh snapshot the text reaches the remote pane.
  auto fresh = local_->Call("POST", "/v1/actions/snapshot", "{\"ref\":\"" + ref + "\"}");
  ASSERT_TRUE(fresh.ok());
  auto sent = local_->Call("POST", "/v1/actions/send",
                           "{\"ref\":\"" + ref + "\",\"text\":\"echo fed-two\",\"enter\":true,\"snapshot_id\":\"" +
                               SnapshotId(fresh->body) + "\"}");
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(sent->status, 200) << sent->body;
  EXPECT_TRUE(PollUntil([&] {
    return host.Tmux({"capture-pane", "-p", "-t", pane_}).out.find("fed-two") != std::string::npos;
  }, 5000));
  EXPECT_EQ(host.Tmux({"capture-pane", "-p", "-t", pane_}).out.find("fed-one"), std::string::npos);

  // attach answers the ssh command that reaches the pane's tmux there.
  auto attach = local_->Call("POST", "/v1/actions/attach", "{\"ref\":\"" + ref + "\"}");
  ASSERT_TRUE(attach.ok());
  EXPECT_EQ(attach->status, 200) << attach->body;
  EXPECT_NE(attach->body.find("[\"ssh\",\"-t\""), std::string::npos) << attach->body;
  EXPECT_NE(attach->body.find(pane_), std::string::npos) << attach->body;

  // While the host cannot be reached, an action is refused at once.
  host.sshd->Stop();
  ASSERT_TRUE(PollUntil([&] { return VmState("unknown", "target_unreachable"); }, 5000));
  auto down = local_->Call("POST", "/v1/actions/send", "{\"ref\":\"" + ref + "\",\"text\":\"x\"}");
  ASSERT_TRUE(down.ok());
  EXPECT_NE(down->body.find("E_TARGET_UNREACHABLE"), std::string::npos) << down->body;
}

}  // namespace
}  // namespace agt::test
