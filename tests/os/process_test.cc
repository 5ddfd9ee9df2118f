// ProcessAlive on real processes: this one, a running child, a child that
// exited but is not reaped yet (a zombie), a reaped one, and pids that
// cannot name a process.
#include "libagtcore/os/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agt::core {
namespace {

TEST(ProcessAliveTest, ThisProcessAndPid1AreAlive) {
  EXPECT_TRUE(ProcessAlive(getpid()));
  EXPECT_TRUE(ProcessAlive(1));
  EXPECT_FALSE(ProcessAlive(0));
  EXPECT_FALSE(ProcessAlive(-5));
}

TEST(ProcessAliveTest, AChildIsAliveUntilItExitsAZombieIsNot) {
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char c;
    close(go[1]);
    (void)!read(go[0], &c, 1);  // exits when the parent closes its end
    _exit(0);
  }
  close(go[0]);
  EXPECT_TRUE(ProcessAlive(child));
  close(go[1]);
  // Wait (without reaping) until the child has exited: waitid with WNOWAIT.
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  EXPECT_FALSE(ProcessAlive(child)) << "an exited, unreaped child (zombie) is not alive";
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_FALSE(ProcessAlive(child));
}

}  // namespace
}  // namespace agt::core
