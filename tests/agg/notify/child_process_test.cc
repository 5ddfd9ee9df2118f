// ChildSet on the real OS (a libuv loop, real processes): the environment
// reaches the child, stdout is kept, a child past its timeout is killed
// with its process group, a program that does not exist is an error, and
// destroying the set kills what still runs.
#include "aggregator/notify/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <thread>

namespace agt::agg {
namespace {

/// True once `pid` has exited (absent, or a zombie waiting to be reaped).
bool Exited(pid_t pid) {
  for (int i = 0; i < 300; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string id, comm, state;
    if (!(stat >> id >> comm >> state) || state == "Z") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class ChildSetTest : public ::testing::Test {
 protected:
  ChildSetTest() { uv_loop_init(&loop_); }
  ~ChildSetTest() override {
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop_), 0);
  }
  uv_loop_t loop_{};
};

TEST_F(ChildSetTest, EnvironmentAndOutputReachTheCallback) {
  std::optional<ChildExit> got;
  {
    ChildSet set(&loop_);
    ChildOptions o;
    o.argv = {"sh", "-c", "printf '%s|%s' \"$AGTMUX_STATE\" \"$AGTMUX_CHOICES\"; exit 3"};
    o.env = {{"AGTMUX_STATE", "waiting_approval"}, {"AGTMUX_CHOICES", "Yes\nNo"}};
    o.capture_stdout = true;
    ASSERT_TRUE(set.Spawn(o, [&](const ChildExit& e) { got = e; }).ok());
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(set.running(), 0u);
  }
  ASSERT_TRUE(got);
  EXPECT_EQ(got->out, "waiting_approval|Yes\nNo");
  EXPECT_EQ(got->exit_status, 3);
  EXPECT_FALSE(got->timed_out);
}

TEST_F(ChildSetTest, ATimeoutKillsTheWholeProcessGroup) {
  const std::string pidfile = ::testing::TempDir() + "/grandchild-" + std::to_string(getpid());
  std::optional<ChildExit> got;
  ChildSet set(&loop_);
  ChildOptions o;
  // A grandchild holding stdout open: the timeout must end both.
  o.argv = {"sh", "-c", "sleep 30 & echo $! > " + pidfile + "; wait"};
  o.timeout = 300 * core::kNsPerMs;
  o.capture_stdout = true;
  ASSERT_TRUE(set.Spawn(o, [&](const ChildExit& e) { got = e; }).ok());
  uv_run(&loop_, UV_RUN_DEFAULT);
  ASSERT_TRUE(got);
  EXPECT_TRUE(got->timed_out);
  EXPECT_EQ(got->exit_status, 128 + SIGKILL);
  pid_t grandchild = 0;
  std::ifstream(pidfile) >> grandchild;
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(Exited(grandchild)) << "the grandchild " << grandchild << " outlived the timeout";
  std::remove(pidfile.c_str());
}

TEST_F(ChildSetTest, AMissingProgramIsAnError) {
  ChildSet set(&loop_);
  ChildOptions o;
  o.argv = {"/nonexistent/agtmux-no-such-program"};
  auto st = set.Spawn(o, [](const ChildExit&) { ADD_FAILURE() << "called back"; });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("cannot start /nonexistent/agtmux-no-such-program"), std::string::npos)
      << st.error().message;
}

TEST_F(ChildSetTest, DestroyingTheSetKillsWhatRuns) {
  const std::string pidfile = ::testing::TempDir() + "/child-" + std::to_string(getpid());
  {
    ChildSet set(&loop_);
    ChildOptions o;
    o.argv = {"sh", "-c", "echo $$ > " + pidfile + "; exec sleep 30"};
    ASSERT_TRUE(set.Spawn(o, [](const ChildExit&) { ADD_FAILURE() << "called back after the set went"; }).ok());
    EXPECT_EQ(set.running(), 1u);
    for (int i = 0; i < 300 && std::ifstream(pidfile).peek() == EOF; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  uv_run(&loop_, UV_RUN_DEFAULT);  // the handles close; nothing keeps the loop
  pid_t pid = 0;
  std::ifstream(pidfile) >> pid;
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(Exited(pid)) << "the child " << pid << " outlived its set";
  std::remove(pidfile.c_str());
}

}  // namespace
}  // namespace agt::agg
