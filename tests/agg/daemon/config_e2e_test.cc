// config.toml against the real binaries (docs/config.md): the [daemon]
// keys reach the state engine (a completed pane is demoted to idle after
// the configured completed_to_idle, not the 120 s default), and a config
// that does not load stops agtmuxd with the error on stderr and makes
// `agtmux daemon start` report it instead of "started".
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>

#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

class ConfigE2eTest : public ::testing::Test {
 protected:
  void WriteConfig(const std::string& text) {
    std::filesystem::create_directories(env_.root + "/config/agtmux");
    std::ofstream(config_path()) << text;
  }
  std::string config_path() const { return env_.root + "/config/agtmux/config.toml"; }
  std::string PaneState(const std::string& pane) {
    auto r = daemon_->Call("GET", "/v1/panes?all=1");
    if (!r.ok()) return "";
    rapidjson::Document d;
    d.Parse(r->body.c_str());
    if (!d.IsObject() || !d.HasMember("items")) return "";
    for (const auto& it : d["items"].GetArray())
      if (std::string(it["identity"]["pane_id"].GetString()) == pane) return it["state"].GetString();
    return "";
  }
  TestEnv env_;
  std::unique_ptr<Daemon> daemon_;
};

// [daemon] completed_to_idle = "1s": the daemon's tick (every second)
// demotes the completed pane within a few seconds; with the 120 s default
// it would stay completed for the whole test.
TEST_F(ConfigE2eTest, CompletedToIdleFromConfigDemotesACompletedPane) {
  WriteConfig("[daemon]\ncompleted_to_idle = \"1s\"\n");
  daemon_ = std::make_unique<Daemon>(env_, std::vector<std::string>{"--no-observe"});
  ASSERT_TRUE(daemon_->WaitReady());
  const std::string rt = "rt-dddddddddddddddd";
  auto r = daemon_->Call("POST", "/v1/events",
                         "{\"events\":[" + Started("01JD0000000000000000000001", rt, "%4") + "," +
                             StateEvent("01JD0000000000000000000002", rt, "%4", "completed", 1) + "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(PaneState("%4"), "completed");
  EXPECT_TRUE(PollUntil([&] { return PaneState("%4") == "idle"; }, 8000))
      << "still " << PaneState("%4") << " 8 s after completed with completed_to_idle = 1s";
}

// [daemon] log_level = "warn": the info line agtmuxd writes once it listens
// is not in agtmuxd.log (with the default, info, it is).
TEST_F(ConfigE2eTest, LogLevelFromConfigFiltersTheDaemonLog) {
  WriteConfig("[daemon]\nlog_level = \"warn\"\n");
  daemon_ = std::make_unique<Daemon>(env_, std::vector<std::string>{"--no-observe"});
  ASSERT_TRUE(daemon_->WaitReady());
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  std::ifstream f(env_.state_dir() + "/agtmuxd.log");
  std::string log((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(log.find("listening on"), std::string::npos) << log;

  std::filesystem::remove(config_path());
  daemon_ = std::make_unique<Daemon>(env_, std::vector<std::string>{"--no-observe"});
  ASSERT_TRUE(daemon_->WaitReady());
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  std::ifstream g(env_.state_dir() + "/agtmuxd.log");
  log.assign((std::istreambuf_iterator<char>(g)), std::istreambuf_iterator<char>());
  EXPECT_NE(log.find("listening on"), std::string::npos) << log;
}

// A misspelt key, and a bare number where a duration is needed: agtmuxd
// exits non-zero at once with the file, line and key on stderr, and never
// listens.
TEST_F(ConfigE2eTest, AgtmuxdRefusesAConfigThatDoesNotLoad) {
  WriteConfig("[daemon]\ncompleted_to_idel = \"1s\"\n");
  RunResult r = env_.Run({AGTMUXD_BIN, "--no-observe"});
  EXPECT_EQ(r.status, 4);
  EXPECT_NE(r.err.find(config_path() + ":2: unknown key \"daemon.completed_to_idel\" (did you mean "
                                       "\"daemon.completed_to_idle\"?)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(env_.socket()));

  WriteConfig("[poller]\nactive_interval = 200\n");
  r = env_.Run({AGTMUXD_BIN, "--no-observe"});
  EXPECT_EQ(r.status, 4);
  EXPECT_NE(r.err.find(config_path() + ":2: poller.active_interval: expected a duration like \"120s\", got 200"),
            std::string::npos)
      << r.err;
}

// `agtmux daemon start` with a bad config reports the error and fails; it
// never says "started". Fixed, the same command starts the daemon.
TEST_F(ConfigE2eTest, DaemonStartReportsTheConfigErrorInsteadOfStarted) {
  WriteConfig("[daemon]\nskew_budget = 10\n");
  RunResult r = env_.Run({AGTMUX_BIN, "daemon", "start"});
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out.find("started"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(config_path() + ":2: daemon.skew_budget: expected a duration"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(env_.socket())) << "a daemon listens after a refused start";

  WriteConfig("[daemon]\nskew_budget = \"10s\"\n");
  r = env_.Run({AGTMUX_BIN, "daemon", "start"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("agtmuxd started"), std::string::npos) << r.out;
  EXPECT_EQ(env_.Run({AGTMUX_BIN, "daemon", "stop"}).status, 0);
}

}  // namespace
}  // namespace agt::test
