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

#include "tests/agg/federation/federation_fixture.h"
#include "libagtcore/os/file.h"

namespace agt::test {
namespace {

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

// Nothing changed on the host during the outage: the resumed stream's
// first line is an empty delta, and the panes kept are current again.
TEST_F(FederationTest, AfterAnOutageWhereNothingChangedThePanesShowTheirStateAgain) {
  RemoteHost host(9);
  ASSERT_NO_FATAL_FAILURE(StartWrappedHost(host));
  ASSERT_NO_FATAL_FAILURE(StartLocal());
  ASSERT_NO_FATAL_FAILURE(AddTarget(host));
  ASSERT_TRUE(PollUntil([&] { return VmState("running"); }, 15000)) << Log();
  host.sshd->Stop();
  ASSERT_TRUE(PollUntil([&] { return VmState("unknown", "target_unreachable"); }, 8000)) << Log();
  host.sshd->Start();
  ASSERT_TRUE(PollUntil([&] { return VmState("running"); }, 20000)) << Log();
  EXPECT_STREQ(VmPane()["source"].GetString(), "PTY");
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

  // Actions and their lookups go over the bridge too, each on a session
  // channel of its own running `agtmux bridge`.
  const std::string ref = VmPane()["ref"].GetString();
  auto sent = local_->Call("POST", "/v1/actions/send", "{\"ref\":\"" + ref + "\",\"text\":\"over the bridge\"}");
  ASSERT_TRUE(sent.ok());
  ASSERT_EQ(sent->status, 200) << sent->body;
  EXPECT_TRUE(PollUntil([&] {
    return host.Tmux({"capture-pane", "-p", "-t", pane_}).out.find("over the bridge") != std::string::npos;
  }, 5000));
  rapidjson::Document d;
  d.Parse(sent->body.c_str());
  ASSERT_TRUE(d.IsObject() && d.HasMember("action_id")) << sent->body;
  auto audit = local_->Call("GET", std::string("/v1/actions/") + d["action_id"].GetString());
  ASSERT_TRUE(audit.ok());
  EXPECT_EQ(audit->status, 200) << audit->body;
  EXPECT_NE(audit->body.find("action_sent"), std::string::npos) << audit->body;
  // A host that stops answering while a call's channel is being opened:
  // the watch's own heartbeat bound finds it (the open never held it).
  ASSERT_NO_FATAL_FAILURE(host.FreezeSshd(true));
  auto frozen = local_->Call("POST", "/v1/actions/snapshot", "{\"ref\":\"" + ref + "\"}");
  ASSERT_TRUE(frozen.ok()) << "the action hung on a frozen host: " << frozen.error().ToString();
  EXPECT_EQ(frozen->status, 502) << frozen->body;
  EXPECT_NE(frozen->body.find("target vm"), std::string::npos) << frozen->body;
  EXPECT_NE(frozen->body.find("no heartbeat for"), std::string::npos) << frozen->body;
  ASSERT_NO_FATAL_FAILURE(host.FreezeSshd(false));
  ASSERT_TRUE(PollUntil([&] { return VmState("idle"); }, 20000)) << Log();
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
  // The forced link starts the host's agtmuxd again whenever it stops
  // answering: the local daemon (and its link) goes first, then the
  // host's, which must be gone before the host's directory is.
  ASSERT_EQ(local_->Stop(SIGTERM), 0);
  ASSERT_EQ(kill(pid_t(pid), SIGTERM), 0);
  EXPECT_TRUE(PollUntil([&] { return kill(pid_t(pid), 0) != 0; }, 10000)) << "the host's agtmuxd did not stop";
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
