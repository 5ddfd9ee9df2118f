// core::RunArgv, SpawnDetached and ExecArgv (libagtcore/os/run_argv.h) with
// real programs: what reaches the program, what comes back, deadlines and
// failures, and a detached program that outlives its starter.
#include "libagtcore/os/run_argv.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "libagtcore/os/process.h"

namespace agt::core {
namespace {

TEST(RunArgv, ArgumentsReachTheProgramAsBytesNotShellWords) {
  auto r = RunArgv({"printf", "%s|", "a b", "$(id)", "; rm -rf /", "'q'"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, "a b|$(id)|; rm -rf /|'q'|");
}

TEST(RunArgv, FeedsStdinAndKeepsStdoutAndStderrApart) {
  RunOptions o;
  o.stdin_data = std::string(300000, 'x');  // more than a pipe holds
  auto r = RunArgv({"sh", "-c", "wc -c; echo oops >&2; exit 3"}, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(std::stoi(r->out), 300000);
  EXPECT_EQ(r->err, "oops\n");
}

TEST(RunArgv, CapsWhatItKeepsAndStillReadsToTheEnd) {
  RunOptions o;
  o.max_output = 10;
  auto r = RunArgv({"head", "-c", "1000000", "/dev/zero"}, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out.size(), 10u);
}

TEST(RunArgv, KillsAProgramPastItsDeadline) {
  RunOptions o;
  o.timeout = 200 * kNsPerMs;
  auto r = RunArgv({"sleep", "30"}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Err::kTimeout);
  EXPECT_NE(r.error().message.find("sleep: timed out after 200 ms"), std::string::npos) << r.error().message;
}

TEST(RunArgv, ReportsASignalAs128Plus) {
  auto r = RunArgv({"sh", "-c", "kill -TERM $$"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 128 + SIGTERM);
}

TEST(RunArgv, NamesAProgramThatCannotStart) {
  auto r = RunArgv({"agtmux-no-such-program"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Err::kIo);
  EXPECT_EQ(r.error().message, "cannot run agtmux-no-such-program: No such file or directory");
  EXPECT_EQ(RunArgv({}).error().code, Err::kInternal);
}

TEST(SpawnDetached, StartsAProgramInItsOwnSessionThatIsNotOurChild) {
  const std::string dir = std::filesystem::temp_directory_path() / ("run_argv_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  DetachOptions o;
  o.stderr_path = dir + "/err";
  auto pid = SpawnDetached({"sh", "-c", "echo started >&2; echo $$ $(ps -o sid= -p $$) > " + dir + "/out; sleep 5"},
                           o);
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  EXPECT_TRUE(ProcessAlive(*pid));
  // Not our child: waitpid has nothing to reap.
  EXPECT_EQ(waitpid(*pid, nullptr, WNOHANG), -1);
  std::string out;
  for (int i = 0; i < 200 && out.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream f(dir + "/out");
    std::getline(f, out);
  }
  std::istringstream words(out);
  pid_t self = 0, sid = 0;
  words >> self >> sid;
  EXPECT_EQ(self, *pid);
  EXPECT_NE(sid, getsid(0)) << "the program is in a session of its own, away from our terminal";
  EXPECT_NE(sid, *pid) << "and does not lead it, so it can never take a controlling terminal";
  std::ifstream err(dir + "/err");
  std::string line;
  std::getline(err, line);
  EXPECT_EQ(line, "started");
  kill(*pid, SIGKILL);
  std::filesystem::remove_all(dir);
}

TEST(ExecArgv, ReturnsOnlyWhenTheProgramCannotRun) {
  auto e = ExecArgv({"agtmux-no-such-program", "x"});
  EXPECT_EQ(e.code, Err::kIo);
  EXPECT_EQ(e.message, "cannot run agtmux-no-such-program: No such file or directory");
}

}  // namespace
}  // namespace agt::core
