// Chaos: the tmux server the daemon observes is killed and a new one is
// started on the same socket, three times in a row (issue 14, the chaos
// suite). Each time the old server's panes and runtimes must end, and the
// new server's panes must appear with their own state: a wrapper-announced
// pane shows its wrapper's state (PTY), an unwrapped agent-like process is
// found by its name, and no runtime of the old server is carried over to
// the new server's pane of the same id (tmux numbers panes from %0 again).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <thread>

#include "tests/chaos/chaos_util.h"

namespace agt::chaos {
namespace {

using test::Daemon;
using test::PollUntil;
using test::TestEnv;

class TmuxRestart : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = "agtmux-chaos-" + std::to_string(getpid());
    socket_ = env_.root + "/tmux/tmux-" + std::to_string(getuid()) + "/" + name_;
    // An agent-like program: its process name is `claude`.
    std::filesystem::create_directories(env_.root + "/bin");
    claude_ = env_.root + "/bin/claude";
    std::ofstream(claude_) << "#!/bin/sh\nwhile :; do sleep 1; done\n";
    chmod(claude_.c_str(), 0755);
  }
  void TearDown() override { Tmux({"kill-server"}); }
  test::RunResult Tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/tmux", "-L", name_, "-f", "/dev/null"});
    return env_.Run(args);
  }
  std::string Format(const std::string& target, const std::string& fmt) {
    std::string out = Tmux({"display-message", "-p", "-t", target, fmt}).out;
    if (!out.empty()) out.pop_back();
    return out;
  }
  /// /v1/panes?all=1&target=lab: pane_id -> item (a copy of its JSON).
  std::map<std::string, rapidjson::Document> Items() {
    std::map<std::string, rapidjson::Document> out;
    auto r = daemon_->Call("GET", "/v1/panes?all=1&target=lab");
    if (!r.ok() || r->status != 200) return out;
    rapidjson::Document d;
    d.Parse(r->body.c_str());
    for (auto& item : d["items"].GetArray()) {
      rapidjson::Document copy;
      copy.CopyFrom(item, copy.GetAllocator());
      out[item["identity"]["pane_id"].GetString()] = std::move(copy);
    }
    return out;
  }
  static std::string Str(const rapidjson::Value& item, const char* key) {
    return item.HasMember(key) && item[key].IsString() ? item[key].GetString() : "";
  }

  TestEnv env_;
  std::string name_, socket_, claude_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(TmuxRestart, TheDaemonFollowsANewServerOnTheSameSocket) {
  daemon_ = std::make_unique<Daemon>(env_);
  ASSERT_TRUE(daemon_->WaitReady());
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "gen0", "-x", "120", "-y", "30", "sh"}).status, 0);
  auto add = daemon_->Call("POST", "/v1/targets",
                           "{\"name\":\"lab\",\"kind\":\"local\",\"tmux_socket\":\"" + socket_ + "\"}");
  ASSERT_TRUE(add.ok());
  ASSERT_EQ(add->status, 201) << add->body;

  const char* kStates[] = {"waiting_input", "waiting_approval", "running"};
  std::string old_runtime, old_pane;
  for (int gen = 0; gen < 3; ++gen) {
    SCOPED_TRACE("server " + std::to_string(gen));
    const std::string session = "gen" + std::to_string(gen);
    if (gen > 0) {
      ASSERT_EQ(Tmux({"new-session", "-d", "-s", session, "-x", "120", "-y", "30", "sh"}).status, 0)
          << "a new server on the same socket";
    }
    ASSERT_EQ(Tmux({"new-window", "-d", "-t", session, claude_}).status, 0);
    const std::string pane = Format(session + ":0", "#{pane_id}");
    const std::string agent_pane = Format(session + ":1", "#{pane_id}");
    const std::string pid = Format(session + ":0", "#{pane_pid}");
    if (gen > 0) {
      EXPECT_EQ(pane, old_pane) << "tmux reuses pane ids in a new server";
    }

    // Both panes of the new server appear; nothing of the old one is left.
    ASSERT_TRUE(PollUntil([&] {
      auto items = Items();
      if (items.size() != 2 || !items.count(pane) || !items.count(agent_pane)) return false;
      if (Str(items[pane]["identity"], "session_name") != session) return false;
      return Str(items[agent_pane], "agent_type") == "claude";
    }, 15000)) << "the new server's panes did not appear";
    if (gen > 0) {
      auto items = Items();
      EXPECT_NE(Str(items[pane], "runtime_id"), old_runtime) << "the old server's runtime owns the new %0";
    }

    // A wrapper announces itself in the shell pane (its pid is the pane's
    // process, so it dies with the server) and reports a state.
    const std::string runtime = "rt-chaos-tmux-gen" + std::to_string(gen);
    const std::string started =
        test::EventJson(Id("01JT", gen, 1), "wrapper_started", runtime, pane,
                        ",\"pid\":" + pid + ",\"runtime\":{\"agent_type\":\"claude\",\"tmux_socket\":\"" + socket_ +
                            "\",\"started_at\":\"2026-11-22T04:00:00Z\"}");
    auto r = daemon_->Call("POST", "/v1/events",
                           Batch({started, test::StateEvent(Id("01JT", gen, 2), runtime, pane, kStates[gen], 1)}));
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
    ASSERT_TRUE(PollUntil([&] {
      auto items = Items();
      return items.count(pane) && Str(items[pane], "runtime_id") == runtime &&
             Str(items[pane], "state") == kStates[gen] && Str(items[pane], "source") == "PTY";
    }, 5000)) << "the wrapped pane does not show its wrapper's state";

    // The server goes: its panes and its runtime end.
    ASSERT_EQ(Tmux({"kill-server"}).status, 0);
    EXPECT_TRUE(PollUntil([&] { return Items().empty(); }, 15000)) << "the dead server's panes are still listed";
    EXPECT_TRUE(PollUntil([&] { return PanesView(*daemon_).empty(); }, 15000))
        << "agent panes of a dead server are still listed";
    auto health = daemon_->Call("GET", "/v1/health");
    ASSERT_TRUE(health.ok());
    EXPECT_EQ(health->status, 200);
    old_runtime = runtime;
    old_pane = pane;
  }
}

}  // namespace
}  // namespace agt::chaos
