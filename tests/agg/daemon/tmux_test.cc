// agtmuxd observing a real tmux server: a private server (`tmux -L
// agtmux-test-<pid>-<n> -f /dev/null` under the test's own TMUX_TMPDIR)
// registered as a local target. Panes appear and disappear in the API, a
// wrapper-announced pane shows PTY and gets @agtmux_state/@agtmux_source,
// and `agtmux list` aligns a CJK + emoji session name by display width.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/table.h"
#include "libagtcore/os/file_reader.h"
#include "libagtcore/net/tmux_identity.h"
#include "tests/agg/daemon_harness.h"
#include "tests/agg/targets/sshd_fixture.h"

namespace agt::test {
namespace {

class TmuxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = "agtmux-test-" + std::to_string(getpid()) + "-1";
    socket_ = env_.root + "/tmux/tmux-" + std::to_string(getuid()) + "/" + name_;
    daemon_ = std::make_unique<Daemon>(env_, std::vector<std::string>{});
    ASSERT_TRUE(daemon_->WaitReady());
  }
  void TearDown() override {
    Tmux({"kill-server"});
    daemon_.reset();
  }
  RunResult Tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/tmux", "-L", name_, "-f", "/dev/null"});
    return env_.Run(args);
  }
  rapidjson::Document Panes() {
    rapidjson::Document d;
    auto r = daemon_->Call("GET", "/v1/panes?all=1&target=lab");
    if (r.ok()) d.Parse(r->body.c_str());
    return d;
  }
  /// Registers the private server as the local target "lab".
  void AddLabTarget() {
    auto add = daemon_->Call("POST", "/v1/targets",
                             "{\"name\":\"lab\",\"kind\":\"local\",\"tmux_socket\":\"" + socket_ + "\"}");
    ASSERT_TRUE(add.ok());
    ASSERT_EQ(add->status, 201) << add->body;
  }
  size_t PaneCount() {
    auto d = Panes();
    return d.IsObject() && d.HasMember("items") ? d["items"].Size() : 0;
  }
  TestEnv env_;
  std::string name_, socket_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(TmuxTest, PanesAppearChangeAndDisappear) {
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "開発🚀", "-x", "100", "-y", "30", "sh"}).status, 0);
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "work", "sh"}).status, 0);
  ASSERT_NO_FATAL_FAILURE(AddLabTarget());
  ASSERT_TRUE(PollUntil([&] { return PaneCount() == 2; }, 10000)) << "panes never appeared";

  // A wrapper announces itself in the 開発🚀 pane as a real one does: as
  // target host, naming its tmux server only by socket path. The daemon
  // gives the runtime to the target that owns that socket; the pane shows
  // PTY and gets the tmux user options.
  std::string pane = Tmux({"list-panes", "-t", "開発🚀", "-F", "#{pane_id}"}).out;
  pane = pane.substr(0, pane.find('\n'));
  const std::string started = EventJson(
      "01JG0000000000000000000001", "wrapper_started", "rt-gggggggggggggggg", pane,
      ",\"pid\":4242,\"runtime\":{\"agent_type\":\"claude\",\"tmux_socket\":\"" + socket_ +
          "\",\"started_at\":\"2026-11-22T04:00:00Z\"}");
  ASSERT_NE(started.find("\"target_id\":\"host\""), std::string::npos) << started;
  auto r = daemon_->Call("POST", "/v1/events",
                         "{\"events\":[" + started + "," +
                             StateEvent("01JG0000000000000000000002", "rt-gggggggggggggggg", pane, "running", 1) +
                             "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;
  auto agents = daemon_->Call("GET", "/v1/panes?target=lab");
  rapidjson::Document d;
  d.Parse(agents->body.c_str());
  ASSERT_EQ(d["items"].Size(), 1u) << agents->body;
  EXPECT_STREQ(d["items"][0]["identity"]["session_name"].GetString(), "開発🚀");
  EXPECT_STREQ(d["items"][0]["source"].GetString(), "PTY");
  EXPECT_TRUE(PollUntil([&] {
    return Tmux({"show-options", "-p", "-t", pane, "-v", "@agtmux_state"}).out == "running\n";
  }, 5000)) << "@agtmux_state was not set";
  EXPECT_EQ(Tmux({"show-options", "-p", "-t", pane, "-v", "@agtmux_source"}).out, "PTY\n");

  // The CLI table lines up the CJK + emoji session with the ASCII one.
  auto list = env_.Run({AGTMUX_BIN, "list", "panes", "--all", "--target", "lab"});
  ASSERT_EQ(list.status, 0) << list.err;
  std::vector<int> window_col;
  size_t start = 0;
  while (start < list.out.size()) {
    size_t nl = list.out.find('\n', start);
    std::string line = list.out.substr(start, nl - start);
    start = nl == std::string::npos ? list.out.size() : nl + 1;
    // The ID column ("%N" cells) must start at the same display column on
    // every line, whatever width the session names before it have.
    size_t w = line.find(" %");
    if (w == std::string::npos) w = line.find(" ID ");
    if (w != std::string::npos) ++w;
    if (w != std::string::npos) window_col.push_back(cli::DisplayWidth(line.substr(0, w)));
  }
  ASSERT_EQ(window_col.size(), 3u) << list.out;
  EXPECT_EQ(window_col[0], window_col[1]) << list.out;
  EXPECT_EQ(window_col[0], window_col[2]) << list.out;

  // A session killed: its pane leaves the view.
  ASSERT_EQ(Tmux({"kill-session", "-t", "work"}).status, 0);
  EXPECT_TRUE(PollUntil([&] { return PaneCount() == 1; }, 10000));
}

TEST_F(TmuxTest, AnUnwrappedAgentsVersionAndItsUnreadableScreenAreKept) {
  // A program called claude, laid out as npm installs Claude Code, showing a
  // screen no claude rule reads; the collector finds it by its process name.
  const std::string pkg = env_.root + "/nm/@anthropic-ai/claude-code";
  std::filesystem::create_directories(pkg + "/bin");
  std::filesystem::copy_file("/bin/sleep", pkg + "/bin/claude");
  std::ofstream(pkg + "/package.json") << R"({"name":"@anthropic-ai/claude-code","version":"0.0.1-lab"})";
  std::ofstream(env_.root + "/odd.txt") << "✻ a screen nobody recorded\n  ⟡⟡ some footer\n";
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "cap", "-x", "100", "-y", "30",
                  "cat " + env_.root + "/odd.txt; exec " + pkg + "/bin/claude 60"})
                .status,
            0);
  ASSERT_NO_FATAL_FAILURE(AddLabTarget());
  rapidjson::Document item;
  ASSERT_TRUE(PollUntil([&] {
    auto r = daemon_->Call("GET", "/v1/panes?target=lab");
    if (!r.ok()) return false;
    item.Parse(r->body.c_str());
    return item.IsObject() && item["items"].Size() == 1 && item["items"][0]["agent_version"].IsString();
  }, 10000)) << "the agent pane never showed its version";
  const auto& it = item["items"][0];
  EXPECT_STREQ(it["agent_type"].GetString(), "claude");
  EXPECT_STREQ(it["agent_version"].GetString(), "0.0.1-lab");
  EXPECT_FALSE(it["verified"].GetBool());

  const std::string dir = env_.state_dir() + "/screens";
  std::string kept;
  ASSERT_TRUE(PollUntil([&] {
    if (!std::filesystem::exists(dir)) return false;
    // Only a finished screen: the daemon writes `<id>.json.tmp-XXXXXX`
    // first and renames it (WriteFileAtomic).
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") kept = e.path().string();
    return !kept.empty();
  }, 15000)) << "no screen kept";
  std::ifstream in(kept);
  std::stringstream ss;
  ss << in.rdbuf();
  rapidjson::Document k;
  k.Parse(ss.str().c_str());
  ASSERT_TRUE(k.IsObject()) << ss.str();
  EXPECT_STREQ(k["mode"].GetString(), "CAP");
  EXPECT_STREQ(k["reason"].GetString(), "no_rule_matched");
  EXPECT_STREQ(k["agent_version"].GetString(), "0.0.1-lab");
  EXPECT_NE(ss.str().find("⟡⟡ some footer"), std::string::npos) << ss.str();
}

TEST_F(TmuxTest, AHookInAnotherServersPaneLandsOnThatTarget) {
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "agents"}).status, 0);
  ASSERT_NO_FATAL_FAILURE(AddLabTarget());
  std::string pane = Tmux({"display-message", "-p", "-t", "agents", "#{pane_id}"}).out;
  pane = pane.substr(0, pane.find('\n'));
  auto r = daemon_->Call(
      "POST", "/v1/events",
      "{\"events\":[" +
          EventJson("01JH0000000000000000000001", "wrapper_started", "rt-hhhhhhhhhhhhhhhh", pane,
                    ",\"pid\":4242,\"runtime\":{\"agent_type\":\"codex\",\"tmux_socket\":\"" + socket_ +
                        "\",\"started_at\":\"2026-11-22T04:00:00Z\"}") +
          "," + StateEvent("01JH0000000000000000000002", "rt-hhhhhhhhhhhhhhhh", pane, "running", 1) + "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;

  // Codex's notify in that pane, unwrapped (no AGTMUX_RUNTIME_ID), as Codex
  // runs it: $TMUX names the private server, the event says target host.
  env_.vars.push_back("TMUX=" + socket_ + ",1,0");
  env_.vars.push_back("TMUX_PANE=" + pane);
  auto hook = env_.Run({AGTMUX_BIN, "hook", "codex-notify",
                        R"({"type":"agent-turn-complete","thread-id":"th-1","turn-id":"tu-1",)"
                        R"("last-assistant-message":"All done."})"});
  env_.vars.resize(env_.vars.size() - 2);
  ASSERT_EQ(hook.status, 0) << hook.err;
  EXPECT_EQ(hook.out, "");

  auto completed = [&] {
    auto d = Panes();
    if (!d.IsObject() || !d.HasMember("items")) return false;
    for (const auto& it : d["items"].GetArray())
      if (std::string(it["identity"]["pane_id"].GetString()) == pane && it.HasMember("state") &&
          std::string(it["state"].GetString()) == "completed")
        return std::string(it["source"].GetString()) == "HOOK";
    return false;
  };
  EXPECT_TRUE(PollUntil(completed, 5000)) << daemon_->Call("GET", "/v1/panes?all=1")->body;
}

TEST_F(TmuxTest, AnSshTargetsPanesAppearInTheList) {
  // A real sshd on 127.0.0.1; its keys go where the daemon looks by default
  // (~/.ssh of the test's HOME). Over ssh it reaches the private server.
  const std::string keys = env_.root + "/sshd";
  std::filesystem::create_directories(keys);
  agg::testing::Sshd sshd(keys);
  std::filesystem::create_directories(env_.root + "/.ssh");
  std::filesystem::copy_file(keys + "/id_ed25519", env_.root + "/.ssh/id_ed25519");
  std::filesystem::copy_file(keys + "/known_hosts", env_.root + "/.ssh/known_hosts");
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "remote", "-x", "100", "-y", "30"}).status, 0);

  auto add = env_.Run({AGTMUX_BIN, "target", "add", "vm", "--kind", "ssh", "--ssh-target",
                       agg::testing::Sshd::getpwuid_name() + "@127.0.0.1:" + std::to_string(sshd.port()),
                       "--tmux-socket", socket_});
  ASSERT_EQ(add.status, 0) << add.err;
  auto listed = [&] {
    auto r = daemon_->Call("GET", "/v1/panes?all=1&target=vm");
    return r.ok() && r->body.find("\"session_name\":\"remote\"") != std::string::npos;
  };
  EXPECT_TRUE(PollUntil(listed, 15000)) << daemon_->Call("GET", "/v1/targets")->body;
  auto list = env_.Run({AGTMUX_BIN, "list", "panes", "--all", "--target", "vm"});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("remote"), std::string::npos) << list.out;

  // A bad ssh target is refused with its reason.
  auto bad = env_.Run({AGTMUX_BIN, "target", "add", "vm2", "--kind", "ssh", "--ssh-target", "dev@host:99999"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("E_TARGET_INVALID: ssh_target 'dev@host:99999': the port must be a number from 1 to 65535"),
            std::string::npos)
      << bad.err;
}

TEST_F(TmuxTest, AnSshTargetsFailureReasonIsShownWhereUsersLook) {
  // known_hosts lists another key for the server: the reason (a mismatch)
  // must reach /v1/targets and `agtmux target list`, not only the log.
  const std::string keys = env_.root + "/sshd";
  std::filesystem::create_directories(keys);
  agg::testing::Sshd sshd(keys);
  std::filesystem::create_directories(env_.root + "/.ssh");
  std::filesystem::copy_file(keys + "/id_ed25519", env_.root + "/.ssh/id_ed25519");
  std::ofstream(env_.root + "/.ssh/known_hosts") << sshd.HostField() << " " << sshd.PublicKey("other_key.pub") << "\n";
  auto add = env_.Run({AGTMUX_BIN, "target", "add", "vm", "--kind", "ssh", "--ssh-target",
                       agg::testing::Sshd::getpwuid_name() + "@127.0.0.1:" + std::to_string(sshd.port())});
  ASSERT_EQ(add.status, 0) << add.err;
  auto reason_shown = [&] {
    auto r = daemon_->Call("GET", "/v1/targets");
    return r.ok() && r->body.find("does not match") != std::string::npos &&
           r->body.find("\"reason\":\"host_key_mismatch\"") != std::string::npos;
  };
  EXPECT_TRUE(PollUntil(reason_shown, 15000)) << daemon_->Call("GET", "/v1/targets")->body;
  auto list = env_.Run({AGTMUX_BIN, "target", "list"});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("possible impersonation"), std::string::npos) << list.out;

  // A target that would be read as an ssh option is refused, by the API
  // and by the CLI.
  auto api = daemon_->Call("POST", "/v1/targets", R"({"name":"evil","kind":"ssh","ssh_target":"-oProxyCommand=id"})");
  ASSERT_TRUE(api.ok());
  EXPECT_EQ(api->status, 400) << api->body;
  EXPECT_NE(api->body.find("may not begin with '-'"), std::string::npos) << api->body;
  auto cli = env_.Run({AGTMUX_BIN, "target", "add", "evil", "--kind", "ssh", "--ssh-target=-oProxyCommand=id"});
  EXPECT_NE(cli.status, 0);
  EXPECT_NE(cli.err.find("E_TARGET_INVALID"), std::string::npos) << cli.err;
}

/// The row of `pane` in a /v1/panes answer, or null.
const rapidjson::Value* RowOf(const rapidjson::Document& d, const std::string& pane) {
  if (!d.IsObject() || !d.HasMember("items")) return nullptr;
  for (const auto& it : d["items"].GetArray())
    if (pane == it["identity"]["pane_id"].GetString()) return &it;
  return nullptr;
}

// Issue 15 item 7: a tmux server killed and a new one started on the same
// socket. The new server's panes reuse the old ids (%0 again), but pane
// identity includes the server's boot id: the new %0 never shows the old
// %0's state, and the new server is followed by itself, promptly.
TEST_F(TmuxTest, ANewServerOnTheSameSocketIsANewPaneIdentity) {
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "old", "sh"}).status, 0);
  ASSERT_NO_FATAL_FAILURE(AddLabTarget());
  ASSERT_TRUE(PollUntil([&] { return PaneCount() == 1; }, 10000));
  std::string pid = Tmux({"display-message", "-p", "-t", "old", "#{pid}"}).out;
  core::RealFileReader files;
  auto boot = net::TmuxServerBootId(std::stoll(pid), files);
  ASSERT_TRUE(boot.ok());
  // A wrapped agent in the old server's %0 finished its turn, and its server
  // was then killed (the wrapper never said goodbye: killed with it).
  auto r = daemon_->Call(
      "POST", "/v1/events",
      "{\"events\":[" +
          EventJson("01JK0000000000000000000001", "wrapper_started", "rt-kkkkkkkkkkkkkkkk", "%0",
                    ",\"pid\":4242,\"runtime\":{\"agent_type\":\"claude\",\"tmux_socket\":\"" + socket_ +
                        "\",\"boot_id\":\"" + *boot + "\",\"started_at\":\"2026-11-22T04:00:00Z\"}") +
          "," + StateEvent("01JK0000000000000000000002", "rt-kkkkkkkkkkkkkkkk", "%0", "completed", 1) + "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;
  ASSERT_TRUE(PollUntil([&] {
    auto d = Panes();
    const auto* row = RowOf(d, "%0");
    return row && row->HasMember("state") && std::string((*row)["state"].GetString()) == "completed";
  }));
  ASSERT_EQ(Tmux({"kill-server"}).status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // the old server is long gone

  // A new server on the same socket, whose first pane is %0 again.
  auto created = Tmux({"new-session", "-d", "-s", "new", "sh"});
  ASSERT_EQ(created.status, 0) << created.err;
  const auto started = std::chrono::steady_clock::now();
  double seen_after = -1;
  std::string wrong;
  // Watched until 1.5 s after the new %0 appeared (the old state used to
  // show for about a second), or 6 s.
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  while (elapsed() < 6 && (seen_after < 0 || elapsed() < seen_after + 1.5)) {
    auto d = Panes();
    const auto* row = RowOf(d, "%0");
    if (row && std::string((*row)["identity"]["session_name"].GetString()) == "new") {
      if (seen_after < 0) seen_after = elapsed();
      // A plain shell: no agent, no runtime, none of the old state.
      if ((*row)["agent"].GetBool() || !(*row)["runtime_id"].IsNull()) {
        rapidjson::StringBuffer b;
        rapidjson::Writer<rapidjson::StringBuffer> w(b);
        row->Accept(w);
        wrong = b.GetString();
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(wrong, "") << "the new server's %0 showed the old %0's state";
  ASSERT_GE(seen_after, 0) << "the new server was never followed";
  // A behaviour bound with a wide margin (the goal is 100 ms, see
  // bench/agg): found by itself, not after seconds of backoff.
  EXPECT_LT(seen_after, 1.0) << "the new server's pane appeared only after " << seen_after << " s";
  std::printf("new server followed after %.3f s\n", seen_after);
}

/// Processes whose command line holds every one of `parts` (read with
/// open/read: a process may be gone by the time it is read).
std::vector<pid_t> ProcessesWith(const std::vector<std::string>& parts) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    int fd = open(("/proc/" + name + "/cmdline").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    std::string cmd;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) cmd.append(buf, static_cast<size_t>(n));
    close(fd);
    bool all = !cmd.empty();
    for (const auto& p : parts) all = all && cmd.find(p) != std::string::npos;
    if (all) out.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return out;
}

// Issue 14 item 9: a wrapper killed with kill -9 never sends
// wrapper_exited. Its agent goes with it (the PTY hangs up), and the daemon
// ends the runtime once the agent's pid is gone: the pane no longer shows
// the dead wrapper's state (PTY, running) for ever.
TEST_F(TmuxTest, AWrapperKilledWithSigkillEndsItsRuntime) {
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "w", "-x", "120", "-y", "30", "sh"}).status, 0);
  ASSERT_NO_FATAL_FAILURE(AddLabTarget());
  ASSERT_TRUE(PollUntil([&] { return PaneCount() == 1; }, 10000));
  ASSERT_EQ(Tmux({"send-keys", "-t", "w", "-l",
                  std::string(AGTMUX_BIN) + " wrap --agent claude -- sh -c 'echo working; exec sleep 987654'"})
                .status,
            0);
  ASSERT_EQ(Tmux({"send-keys", "-t", "w", "Enter"}).status, 0);
  std::string runtime;
  ASSERT_TRUE(PollUntil([&] {
    auto d = Panes();
    const auto* row = RowOf(d, "%0");
    if (!row || !row->HasMember("source") || !(*row)["source"].IsString()) return false;
    if (std::string((*row)["source"].GetString()) != "PTY") return false;
    runtime = (*row)["runtime_id"].GetString();
    return true;
  }, 10000)) << "the wrapped pane never showed PTY";
  // The wrapper shows its agent's name as argv[0] (cli/process_title.h):
  // it is found by its other arguments.
  std::vector<pid_t> wrappers = ProcessesWith({"wrap", "--agent", "987654"});
  ASSERT_EQ(wrappers.size(), 1u);
  ASSERT_EQ(kill(wrappers[0], SIGKILL), 0);
  // Documented: within the daemon's tick (1 s) and a grace of 2 s.
  EXPECT_TRUE(PollUntil([&] {
    auto d = Panes();
    const auto* row = RowOf(d, "%0");
    return row && (!(*row)["runtime_id"].IsString() || runtime != (*row)["runtime_id"].GetString());
  }, 8000)) << "the dead wrapper's runtime " << runtime << " still holds the pane";
}

TEST_F(TmuxTest, AKilledDaemonLeavesNoControlClientBehind) {
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "work"}).status, 0);
  ASSERT_NO_FATAL_FAILURE(AddLabTarget());
  std::string window = Tmux({"display-message", "-p", "-t", "work", "#{window_id}"}).out;
  std::string pane = Tmux({"display-message", "-p", "-t", "work", "#{pane_id}"}).out;
  window.pop_back();
  pane.pop_back();
  // The daemon is its own control client (tmux lists the daemon's pid); a
  // `tmux -C` process would be one it spawned on a server of another
  // protocol version.
  const std::vector<std::string> process = {socket_, std::string("-C\0", 3) + "attach-session"};
  auto control_clients = [&] {
    std::istringstream lines(Tmux({"list-clients", "-F", "#{?client_control_mode,#{client_pid},}"}).out);
    std::vector<std::string> pids;
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) pids.push_back(line);
    return pids;
  };
  // A few rounds: when the client was a `tmux -C` child, without a
  // parent-death signal the orphaned client lingered in some of them (seen
  // after the daemon had run actions).
  for (int round = 0; round < 3; ++round) {
    if (!daemon_) {
      daemon_ = std::make_unique<Daemon>(env_, std::vector<std::string>{});
      ASSERT_TRUE(daemon_->WaitReady());  // the lab target comes back from targets.json
    }
    const std::vector<std::string> mine = {std::to_string(daemon_->pid())};
    ASSERT_TRUE(PollUntil([&] { return control_clients() == mine; }, 10000)) << "no control client";
    EXPECT_TRUE(ProcessesWith(process).empty()) << "a tmux -C process for a tmux of the same version";
    ASSERT_TRUE(PollUntil([&] { return PaneCount() == 1; }, 10000)) << "the pane was not observed";
    auto sent = daemon_->Call("POST", "/v1/actions/send", "{\"ref\":\"pane:lab/work/" + window + "/" + pane +
                                                              "\",\"text\":\"echo hi\",\"enter\":true}");
    ASSERT_TRUE(sent.ok());
    ASSERT_EQ(sent->status, 200) << sent->body;
    daemon_.reset();  // SIGKILL: no chance to stop its children
    ASSERT_TRUE(PollUntil([&] { return control_clients().empty(); }, 5000))
        << "round " << round << ": the daemon's control client outlived it";
  }
  // ...so the server can be killed, and goes.
  ASSERT_EQ(Tmux({"kill-server"}).status, 0);
  EXPECT_TRUE(PollUntil([&] { return Tmux({"list-sessions"}).status != 0; }, 5000));
}

}  // namespace
}  // namespace agt::test
