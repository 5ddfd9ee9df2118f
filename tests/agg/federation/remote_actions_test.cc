// Actions on a federated pane, end to end (docs/architecture.md,
// "Federation", Actions): the local CLI and API act on a pane of a loopback
// RemoteHost through the local agtmuxd, which forwards them to the host's
// agtmuxd; the guards are the remote daemon's. The agent stand-in is the
// action tests' fake agent (tests/agg/actions/fake_agent.py, which draws
// Claude Code's approval dialog) run under the real `agtmux wrap --agent
// claude` on the host: its state is the host wrapper's (SOURCE PTY), read
// from its screen with Claude's patterns, so an answered dialog changes the
// state with no event posted by the test.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "tests/agg/federation/federation_fixture.h"
#include "libagtcore/os/file.h"

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

class RemoteActionsTest : public FederationTest {
 protected:
  /// The host runs the fake agent under `agtmux wrap --agent claude` in
  /// session "work"; the local daemon reads the host as target "vm" and
  /// shows the wrapped pane with SOURCE PTY.
  void StartWrappedAgent(RemoteHost& host) {
    agent_log_ = host.env.root + "/agent.log";
    // The pane before the daemon: no session is created while the daemon's
    // control client attaches (docs/observe.md, "tmux 3.3a and control clients").
    pane_ = host.NewPane("work", std::string(AGTMUX_BIN) + " wrap --agent claude -- python3 " + FAKE_AGENT + " " +
                                     agent_log_);
    ASSERT_TRUE(PollUntil([&] { return Screen(host).find("agent ready") != std::string::npos; }, 10000))
        << Screen(host);
    ASSERT_NO_FATAL_FAILURE(host.StartDaemon());
    ASSERT_NO_FATAL_FAILURE(StartLocal());
    ASSERT_NO_FATAL_FAILURE(AddTarget(host));
    ASSERT_TRUE(PollUntil([&] {
      auto p = VmPane();
      return p.HasMember("source") && std::string(p["source"].GetString()) == "PTY";
    }, 20000)) << Log();
    ref_ = VmPane()["ref"].GetString();
  }
  std::string VmPaneText() {
    auto r = local_->Call("GET", "/v1/panes?target=vm");
    return r.ok() ? r->body : r.error().ToString();
  }
  std::string Screen(RemoteHost& host) { return host.Tmux({"capture-pane", "-p", "-t", pane_}).out; }
  std::string AgentLog() {
    auto text = core::ReadWholeFile(agent_log_);
    return text ? *text : "";
  }
  /// Types `text` + Enter into the remote pane, as its user would there.
  void TypeOnHost(RemoteHost& host, const std::string& text) {
    ASSERT_EQ(host.Tmux({"send-keys", "-t", pane_, "-l", text}).status, 0);
    ASSERT_EQ(host.Tmux({"send-keys", "-t", pane_, "Enter"}).status, 0);
  }
  /// Opens the fake agent's approval dialog on the host and waits until
  /// the local view shows the pane waiting on it.
  void OpenApproval(RemoteHost& host) {
    ASSERT_NO_FATAL_FAILURE(TypeOnHost(host, "ask"));
    ASSERT_TRUE(PollUntil([&] { return Screen(host).find("Do you want to proceed?") != std::string::npos; }, 5000))
        << Screen(host);
    ASSERT_TRUE(PollUntil([&] { return VmState("waiting_approval"); }, 10000)) << VmPaneText();
  }
  RunResult Cli(std::vector<std::string> args, int timeout_ms = 30000) {
    args.insert(args.begin(), AGTMUX_BIN);
    return env_.Run(args, timeout_ms);
  }

  std::string agent_log_, ref_;
};

TEST_F(RemoteActionsTest, RespondThroughTheLocalDaemonAnswersTheRemoteDialog) {
  RemoteHost host(21);
  ASSERT_NO_FATAL_FAILURE(StartWrappedAgent(host));
  ASSERT_NO_FATAL_FAILURE(OpenApproval(host));
  auto p = VmPane();
  EXPECT_STREQ(p["source"].GetString(), "PTY");
  EXPECT_STREQ(p["rule_id"].GetString(), "claude.approval.other");
  ASSERT_TRUE(p.HasMember("waiting")) << "no waiting detail reached the local view";
  EXPECT_EQ(p["waiting"]["choices"].Size(), 3u);

  auto r = Cli({"respond", ref_, "no"});
  ASSERT_EQ(r.status, 0) << r.out << r.err << Log();
  EXPECT_NE(r.out.find("answered 3. No, and tell Claude what to do differently"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("delivery verified"), std::string::npos) << r.out;
  // The keys reached the remote pane: the agent took option 3 and nothing else.
  ASSERT_TRUE(PollUntil([&] { return AgentLog().find("CHOSE ") != std::string::npos; }, 5000)) << AgentLog();
  EXPECT_NE(AgentLog().find("CHOSE No, and tell Claude what to do differently (esc)\n"), std::string::npos)
      << AgentLog();
  EXPECT_EQ(AgentLog().find("CHOSE Yes"), std::string::npos) << AgentLog();
  EXPECT_EQ(AgentLog().find("DROPPED"), std::string::npos) << "keys arrived together: " << AgentLog();
  // The host's wrapper saw the dialog go; the local view follows.
  EXPECT_TRUE(PollUntil([&] {
    auto now = VmPane();
    return now.HasMember("state") && std::string(now["state"].GetString()) != "waiting_approval";
  }, 10000)) << VmPaneText();

  // The answer names the pane as the local user knows it.
  OpenApproval(host);
  auto json = Cli({"respond", ref_, "1", "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  rapidjson::Document d;
  d.Parse(json.out.c_str());
  ASSERT_TRUE(d.IsObject()) << json.out;
  EXPECT_STREQ(d["target"].GetString(), "vm") << json.out;
  EXPECT_STREQ(d["pane_id"].GetString(), pane_.c_str()) << json.out;
  ASSERT_TRUE(PollUntil([&] { return AgentLog().find("CHOSE Yes\n") != std::string::npos; }, 5000)) << AgentLog();
}

TEST_F(RemoteActionsTest, AForwardedActionIsLookedUpThroughTheLocalDaemon) {
  RemoteHost host(26);
  ASSERT_NO_FATAL_FAILURE(StartWrappedAgent(host));
  ASSERT_NO_FATAL_FAILURE(OpenApproval(host));
  auto json = Cli({"respond", ref_, "1", "--json"});
  ASSERT_EQ(json.status, 0) << json.out << json.err;
  rapidjson::Document d;
  d.Parse(json.out.c_str());
  ASSERT_TRUE(d.IsObject() && d.HasMember("action_id")) << json.out;
  const std::string id = d["action_id"].GetString();

  // The id the local user got is one the local daemon answers for: the
  // host's audit of the action, in the local names.
  auto got = local_->Call("GET", "/v1/actions/" + id);
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  ASSERT_EQ(got->status, 200) << got->body;
  rapidjson::Document a;
  a.Parse(got->body.c_str());
  ASSERT_TRUE(a.IsObject() && a.HasMember("action") && a.HasMember("events")) << got->body;
  EXPECT_EQ(std::string(a["action"]["action_id"].GetString()), id) << got->body;
  EXPECT_STREQ(a["action"]["action_type"].GetString(), "respond") << got->body;
  EXPECT_STREQ(a["action"]["target"].GetString(), "vm") << got->body;
  EXPECT_EQ(std::string(a["action"]["pane_id"].GetString()), pane_) << got->body;
  EXPECT_STREQ(a["action"]["result_code"].GetString(), "ok") << got->body;
  bool responded = false;
  for (const auto& e : a["events"].GetArray()) {
    EXPECT_EQ(std::string(e["action_id"].GetString()), id) << got->body;
    responded = responded || std::string(e["event_type"].GetString()) == "action_responded";
  }
  EXPECT_TRUE(responded) << got->body;
  EXPECT_NE(got->body.find(ref_), std::string::npos) << "the audit does not name the local ref: " << got->body;
  EXPECT_EQ(got->body.find("pane:host/"), std::string::npos) << got->body;

  // The id `send` prints is one too.
  auto sent = Cli({"send", ref_, "--text", "looked up", "--enter"});
  ASSERT_EQ(sent.status, 0) << sent.out << sent.err;
  const std::string key = "sent (action ";
  ASSERT_EQ(sent.out.find(key), 0u) << sent.out;
  const std::string send_id = sent.out.substr(key.size(), sent.out.find(',') - key.size());
  auto send_audit = local_->Call("GET", "/v1/actions/" + send_id);
  ASSERT_TRUE(send_audit.ok());
  EXPECT_EQ(send_audit->status, 200) << send_audit->body;
  EXPECT_NE(send_audit->body.find("action_sent"), std::string::npos) << send_audit->body;
  // `send --wait` waits through the forwarded snapshot and view-output:
  // it returns once the remote agent answered, with its new output.
  auto waited = Cli({"send", ref_, "--text", "waited for", "--enter", "--wait", "--match", "GOT waited for",
                     "--timeout", "20s"});
  EXPECT_EQ(waited.status, 0) << waited.out << waited.err;
  EXPECT_NE(waited.out.find("GOT waited for"), std::string::npos) << waited.out;

  // An id the host has no action for, and a target that is not read
  // through its agtmuxd: not found, saying where it was looked for.
  auto unknown = local_->Call("GET", "/v1/actions/vm/01JG00000000000000000000ZZ");
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->status, 404) << unknown->body;
  EXPECT_NE(unknown->body.find("E_NOT_FOUND"), std::string::npos) << unknown->body;
  EXPECT_NE(unknown->body.find("target vm"), std::string::npos) << unknown->body;
  auto elsewhere = local_->Call("GET", "/v1/actions/nosuch/01JG00000000000000000000ZZ");
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_EQ(elsewhere->status, 404) << elsewhere->body;
  EXPECT_NE(elsewhere->body.find("nosuch"), std::string::npos) << elsewhere->body;

  // A host that stops answering: the lookup fails naming the target
  // within the client's wait (10 s), instead of hanging.
  ASSERT_NO_FATAL_FAILURE(host.FreezeSshd(true));
  auto frozen = local_->Call("GET", "/v1/actions/" + id);
  ASSERT_TRUE(frozen.ok()) << "the lookup hung on a frozen host: " << frozen.error().ToString();
  EXPECT_EQ(frozen->status, 502) << frozen->body;
  EXPECT_NE(frozen->body.find("E_TARGET_UNREACHABLE"), std::string::npos) << frozen->body;
  EXPECT_NE(frozen->body.find("target vm"), std::string::npos) << frozen->body;
  // Once the target is down, at once.
  ASSERT_TRUE(PollUntil([&] { return VmState("unknown", "target_unreachable"); }, 10000)) << VmPaneText();
  auto down = local_->Call("GET", "/v1/actions/" + id);
  ASSERT_TRUE(down.ok()) << down.error().ToString();
  EXPECT_EQ(down->status, 502) << down->body;
  EXPECT_NE(down->body.find("target vm"), std::string::npos) << down->body;
  // Back: the same id answers again.
  ASSERT_NO_FATAL_FAILURE(host.FreezeSshd(false));
  ASSERT_TRUE(PollUntil([&] {
    auto r = local_->Call("GET", "/v1/actions/" + id);
    return r.ok() && r->status == 200;
  }, 20000)) << Log();
}

TEST_F(RemoteActionsTest, RespondIsRefusedWhenTheRemotePaneMovedOrWentAway) {
  RemoteHost host(22);
  ASSERT_NO_FATAL_FAILURE(StartWrappedAgent(host));
  ASSERT_NO_FATAL_FAILURE(OpenApproval(host));
  auto snap = local_->Call("POST", "/v1/actions/snapshot", "{\"ref\":\"" + ref_ + "\"}");
  ASSERT_TRUE(snap.ok());
  ASSERT_EQ(snap->status, 200) << snap->body;
  const std::string seen = SnapshotId(snap->body);
  const int64_t seen_version = VmPane()["state_version"].GetInt64();

  // The user answers on the host, and the agent asks again: the same
  // dialog on screen, but not the one the snapshot saw.
  ASSERT_EQ(host.Tmux({"send-keys", "-t", pane_, "Enter"}).status, 0);
  ASSERT_TRUE(PollUntil([&] { return AgentLog().find("CHOSE Yes\n") != std::string::npos; }, 5000)) << AgentLog();
  ASSERT_TRUE(PollUntil([&] { return !VmState("waiting_approval"); }, 10000));
  ASSERT_NO_FATAL_FAILURE(OpenApproval(host));
  ASSERT_GT(VmPane()["state_version"].GetInt64(), seen_version);

  auto moved = Cli({"respond", ref_, "no", "--snapshot", seen});
  EXPECT_EQ(moved.status, 1) << moved.out << moved.err;
  EXPECT_NE(moved.err.find("E_PRECONDITION_FAILED"), std::string::npos) << moved.err;
  EXPECT_NE(moved.err.find("moved since the snapshot"), std::string::npos) << moved.err;
  EXPECT_NE(moved.err.find("vm"), std::string::npos) << "the refusal does not name the target: " << moved.err;
  // The refused action is named by the id the local daemon answers for.
  EXPECT_NE(moved.err.find("(action vm/"), std::string::npos) << moved.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(AgentLog().find("CHOSE No"), std::string::npos) << "a refused respond chose: " << AgentLog();
  EXPECT_NE(Screen(host).find("❯ 1. Yes"), std::string::npos) << "the cursor moved: " << Screen(host);

  // A snapshot of another pane of the host: the refusal names that pane
  // as the local user knows it (vm/%N), not as its host does (host/%N).
  const std::string keep = host.NewPane("keep", "sleep 600");  // the server stays when "work" goes
  const std::string keep_window = host.Tmux({"display-message", "-p", "-t", keep, "#{window_id}"}).out;
  ASSERT_TRUE(PollUntil([&] {
    auto r = host.daemon->Call("GET", "/v1/panes?all=1&target=host");
    return r.ok() && r->body.find("\"pane_id\":\"" + keep + "\"") != std::string::npos;
  }, 10000));
  auto other = host.daemon->Call("POST", "/v1/actions/snapshot",
                                 "{\"ref\":\"pane:host/keep/" + keep_window.substr(0, keep_window.find('\n')) + "/" +
                                     keep + "\"}");
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(other->status, 200) << other->body;
  auto mismatch = local_->Call("POST", "/v1/actions/respond",
                               "{\"ref\":\"" + ref_ + "\",\"choices\":[\"no\"],\"snapshot_id\":\"" +
                                   SnapshotId(other->body) + "\"}");
  ASSERT_TRUE(mismatch.ok());
  EXPECT_EQ(mismatch->status, 409) << mismatch->body;
  EXPECT_NE(mismatch->body.find("taken of pane vm/" + keep + ", not this one"), std::string::npos) << mismatch->body;
  EXPECT_EQ(mismatch->body.find("host/"), std::string::npos) << mismatch->body;

  // The pane goes away on the host after a snapshot was taken of it.
  auto last = local_->Call("POST", "/v1/actions/snapshot", "{\"ref\":\"" + ref_ + "\"}");
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->status, 200) << last->body;
  ASSERT_EQ(host.Tmux({"kill-session", "-t", "work"}).status, 0);
  ASSERT_TRUE(PollUntil([&] {
    auto r = host.daemon->Call("GET", "/v1/panes?all=1&target=host");
    return r.ok() && r->body.find("\"pane_id\":\"" + pane_ + "\"") == std::string::npos;
  }, 10000));
  auto gone = local_->Call("POST", "/v1/actions/respond",
                           "{\"ref\":\"" + ref_ + "\",\"choices\":[\"yes\"],\"snapshot_id\":\"" +
                               SnapshotId(last->body) + "\"}");
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->status, 404) << gone->body;
  EXPECT_NE(gone->body.find("E_REF_NOT_FOUND"), std::string::npos) << gone->body;
  // The ref in the host's refusal is the one the local user typed.
  EXPECT_NE(gone->body.find("no pane matches " + ref_), std::string::npos) << gone->body;
  EXPECT_EQ(gone->body.find("pane:host/"), std::string::npos) << gone->body;
  auto cli_gone = Cli({"respond", ref_, "yes"});
  EXPECT_EQ(cli_gone.status, 1) << cli_gone.out << cli_gone.err;
  EXPECT_NE(cli_gone.err.find("E_REF_NOT_FOUND"), std::string::npos) << cli_gone.err;
  EXPECT_EQ(AgentLog().find("CHOSE No"), std::string::npos) << AgentLog();
}

TEST_F(RemoteActionsTest, RespondToATargetThatIsDownFailsAtOnceNamingIt) {
  RemoteHost host(23);
  ASSERT_NO_FATAL_FAILURE(StartWrappedAgent(host));
  ASSERT_NO_FATAL_FAILURE(OpenApproval(host));

  // At once after sshd went, before the link has noticed.
  host.sshd->Stop();
  const auto t0 = std::chrono::steady_clock::now();
  auto early = Cli({"respond", ref_, "yes"});
  EXPECT_EQ(early.status, 1) << early.out << early.err;
  EXPECT_NE(early.err.find("E_TARGET_UNREACHABLE"), std::string::npos) << early.err;
  EXPECT_NE(early.err.find("target vm"), std::string::npos) << early.err;
  // Once the target is down.
  ASSERT_TRUE(PollUntil([&] { return VmState("unknown", "target_unreachable"); }, 10000)) << Log();
  auto down = Cli({"respond", ref_, "yes"});
  EXPECT_EQ(down.status, 1) << down.out << down.err;
  EXPECT_NE(down.err.find("E_TARGET_UNREACHABLE"), std::string::npos) << down.err;
  EXPECT_NE(down.err.find("target vm"), std::string::npos) << down.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(25)) << "a refusal waited on the host";
  EXPECT_EQ(AgentLog().find("CHOSE"), std::string::npos) << AgentLog();
}

TEST_F(RemoteActionsTest, AnActionOnAHostThatStoppedAnsweringFailsNamingTheTarget) {
  RemoteHost host(25);
  ASSERT_NO_FATAL_FAILURE(StartWrappedAgent(host));
  ASSERT_NO_FATAL_FAILURE(OpenApproval(host));
  // The host stops answering, nothing is closed (a dead network): an
  // action fails with the target named, within the CLI's own wait (10 s).
  ASSERT_NO_FATAL_FAILURE(host.FreezeSshd(true));
  auto frozen = Cli({"respond", ref_, "yes"});
  EXPECT_EQ(frozen.status, 1) << frozen.out << frozen.err;
  EXPECT_NE(frozen.err.find("E_TARGET_UNREACHABLE"), std::string::npos) << frozen.err;
  EXPECT_NE(frozen.err.find("target vm"), std::string::npos) << frozen.err;
  // What found the host gone is the watch's own heartbeat bound, checked
  // while the action's channel was being opened: opening it never held
  // the watch (it used to, for up to the same 4 s, and then the action's
  // open timed out first: "opening ... timed out").
  EXPECT_NE(frozen.err.find("no heartbeat for"), std::string::npos) << frozen.err;
  // The view never waited on the host: its panes turn unknown meanwhile.
  EXPECT_TRUE(PollUntil([&] { return VmState("unknown", "target_unreachable"); }, 10000)) << VmPaneText();
  ASSERT_NO_FATAL_FAILURE(host.FreezeSshd(false));
  ASSERT_TRUE(PollUntil([&] { return VmState("waiting_approval"); }, 20000)) << VmPaneText() << Log();
  auto back = Cli({"respond", ref_, "yes"});
  EXPECT_EQ(back.status, 0) << back.out << back.err;
  EXPECT_TRUE(PollUntil([&] { return AgentLog().find("CHOSE Yes\n") != std::string::npos; }, 5000)) << AgentLog();
  ASSERT_TRUE(PollUntil([&] { return Screen(host).find("answered") != std::string::npos; }, 5000));

  // The host stops answering while an action runs there (its text is
  // typed, its Enter 3 s away): the caller is told the link broke and that
  // the action may have run, once the heartbeats stopped.
  auto in_flight = std::async(std::launch::async, [&] {
    return local_->Call("POST", "/v1/actions/send",
                        "{\"ref\":\"" + ref_ + "\",\"text\":\"slow words\",\"enter\":true,\"enter_delay_ms\":3000}");
  });
  ASSERT_TRUE(PollUntil([&] { return Screen(host).find("slow words") != std::string::npos; }, 5000)) << Screen(host);
  ASSERT_NO_FATAL_FAILURE(host.FreezeSshd(true));
  ASSERT_EQ(in_flight.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "the caller still waits";
  auto broke = in_flight.get();
  ASSERT_TRUE(broke.ok()) << broke.error().ToString();
  EXPECT_EQ(broke->status, 502) << broke->body;
  EXPECT_NE(broke->body.find("E_TARGET_UNREACHABLE"), std::string::npos) << broke->body;
  EXPECT_NE(broke->body.find("target vm"), std::string::npos) << broke->body;
  EXPECT_NE(broke->body.find("may have run"), std::string::npos) << broke->body;
  ASSERT_NO_FATAL_FAILURE(host.FreezeSshd(false));
}

TEST_F(RemoteActionsTest, ViewOutputAndKillReachTheRemotePane) {
  RemoteHost host(24);
  ASSERT_NO_FATAL_FAILURE(StartWrappedAgent(host));
  ASSERT_NO_FATAL_FAILURE(TypeOnHost(host, "remote words"));
  ASSERT_TRUE(PollUntil([&] { return AgentLog().find("MSG remote words") != std::string::npos; }, 5000));
  auto view = Cli({"view-output", ref_, "--lines", "50"});
  ASSERT_EQ(view.status, 0) << view.err;
  EXPECT_NE(view.out.find("GOT remote words"), std::string::npos) << view.out;

  auto key = Cli({"kill", ref_, "--yes"});
  ASSERT_EQ(key.status, 0) << key.err;
  ASSERT_TRUE(PollUntil([&] { return AgentLog().find("INTERRUPT") != std::string::npos; }, 5000)) << AgentLog();

  // By signal: the host's daemon signals the agent it knows there (the
  // loopback host's processes are this machine's, so the test can look).
  auto p = VmPane();
  ASSERT_TRUE(p["runtime_pid"].IsInt64()) << "no runtime_pid in the local view";
  const pid_t agent = static_cast<pid_t>(p["runtime_pid"].GetInt64());
  ASSERT_EQ(kill(agent, 0), 0) << "the agent is not running before the kill";
  auto sig = Cli({"kill", ref_, "--yes", "--mode", "signal", "--signal", "KILL"});
  ASSERT_EQ(sig.status, 0) << sig.err;
  EXPECT_TRUE(PollUntil([&] { return kill(agent, 0) != 0; }, 5000)) << "the remote agent still runs";
}

}  // namespace
}  // namespace agt::test
