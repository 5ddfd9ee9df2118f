// The real `agtmux wrap` as a process: exit status and signals, byte-exact
// argv, piped stdin, and a clear error for a missing command. stdin is not a
// terminal here; tmux_wrap_test.cc covers the terminal side.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <string>

#include "tests/wrap/test_support.h"

namespace agt::wrap {
namespace {

using testing::AgtmuxBin;
using testing::TempDir;

struct WrapRun {
  int status = -1;
  std::string out;
  std::string err;
};

/// Runs `agtmux wrap -- args...` with stdin from `input` (a pipe), an
/// isolated HOME/state dir, and returns status, stdout and stderr.
WrapRun Wrap(const TempDir& dir, const std::vector<std::string>& args, const std::string& input = "",
         const std::function<void(pid_t, int out_fd)>& during = nullptr, bool dashdash = true) {
  int in[2], out[2], err[2];
  if (::pipe(in) || ::pipe(out) || ::pipe(err)) std::abort();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    for (std::string kv : {"HOME=" + dir.path(), "AGTMUX_SOCKET=" + dir.path() + "/d.sock",
                           "AGTMUX_STATE_DIR=" + dir.path() + "/state"})
      ::putenv(::strdup(kv.c_str()));
    std::vector<std::string> argv = {AgtmuxBin(), "wrap"};
    if (dashdash) argv.push_back("--");
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    ::execv(a[0], a.data());
    ::_exit(126);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (!input.empty()) (void)!::write(in[1], input.data(), input.size());
  ::close(in[1]);
  if (during) during(pid, out[0]);
  WrapRun r;
  char buf[4096];
  for (int fd : {out[0], err[0]}) {
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) (fd == out[0] ? r.out : r.err).append(buf, n);
    ::close(fd);
  }
  r.status = testing::WaitExit(pid, 20000);
  return r;
}

int Code(const WrapRun& r) { return WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1; }

TEST(WrapProcess, ExitStatusPassesThrough) {
  TempDir dir;
  EXPECT_EQ(Code(Wrap(dir, {"sh", "-c", "exit 7"})), 7);
  EXPECT_EQ(Code(Wrap(dir, {"sh", "-c", "exit 0"})), 0);
}

TEST(WrapProcess, KilledChildGives128PlusSignal) {
  TempDir dir;
  EXPECT_EQ(Code(Wrap(dir, {"sh", "-c", "kill -KILL $$"})), 137);
  EXPECT_EQ(Code(Wrap(dir, {"sh", "-c", "kill -SEGV $$"})), 139);
}

TEST(WrapProcess, SigtermToTheWrapperReachesTheChild) {
  TempDir dir;
  std::string seen;
  WrapRun r = Wrap(dir,
               {"sh", "-c",
                "trap 'echo got-term; exit 42' TERM; echo ready; while :; do sleep 0.05; done"},
               "", [&](pid_t pid, int out_fd) {
                 // Wait for the child's trap to be in place, then signal the wrapper.
                 char buf[256];
                 pollfd p{out_fd, POLLIN, 0};
                 while (seen.find("ready") == std::string::npos && ::poll(&p, 1, 5000) > 0) {
                   const ssize_t n = ::read(out_fd, buf, sizeof buf);
                   if (n <= 0) break;
                   seen.append(buf, static_cast<size_t>(n));
                 }
                 ::kill(pid, SIGTERM);
               });
  EXPECT_EQ(Code(r), 42) << seen << r.out << r.err;
  EXPECT_NE((seen + r.out).find("got-term"), std::string::npos) << seen << r.out;
}

TEST(WrapProcess, ArgvIsByteExact) {
  TempDir dir;
  const std::vector<std::string> args = {"a b", "", "q\"x", "it's", "\xc3\xbc\xe2\x9c\xb3 \xe6\xbc\xa2",
                                         "--", "-c", "$HOME", " lead", "tab\there", "--record"};
  std::vector<std::string> cmd = {"/usr/bin/printf", "<%s>\\n"};
  cmd.insert(cmd.end(), args.begin(), args.end());
  WrapRun r = Wrap(dir, cmd);
  EXPECT_EQ(Code(r), 0) << r.err;
  std::string want;
  for (const std::string& a : args) want += "<" + a + ">\r\n";  // the PTY's ONLCR
  EXPECT_EQ(r.out, want);
}

TEST(WrapProcess, EveryArgumentReachesTheChildByteForByte) {
  // Brackets (which CLI11 reads as a list), empty strings, "--", leading
  // dashes, wrap's own option names, newlines and bytes that are not UTF-8,
  // after "--" and after a plain agent name alike. The child runs on the
  // wrapper's PTY.
  TempDir dir;
  const std::vector<std::string> args = {"[%s]", "a b", "", "c", "[a,b]", "[", "]", "--", "-x", "--agent",
                                         "--no-events", "new\nline", "\xff\xfe\x80", "{x}", "a=b"};
  for (bool dashdash : {true, false}) {
    std::vector<std::string> cmd = {"/usr/bin/printf", "<%s>"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    WrapRun r = Wrap(dir, cmd, "", nullptr, dashdash);
    EXPECT_EQ(Code(r), 0) << r.err;
    std::string want;
    for (const std::string& a : args) {
      std::string shown = a;  // the PTY's ONLCR turns the child's \n into \r\n
      for (size_t p = shown.find('\n'); p != std::string::npos; p = shown.find('\n', p + 2)) shown.replace(p, 1, "\r\n");
      want += "<" + shown + ">";
    }
    EXPECT_EQ(r.out, want) << (dashdash ? "after --" : "after the program name");
  }
  // The issue's own example.
  WrapRun r = Wrap(dir, {"printf", "[%s]", "a b", "", "c"});
  EXPECT_EQ(r.out, "[a b][][c]");
}

TEST(WrapProcess, PipedStdinReachesTheChildAndEnds) {
  TempDir dir;
  WrapRun r = Wrap(dir, {"cat"}, "hi\n");
  EXPECT_EQ(Code(r), 0);
  EXPECT_EQ(r.out, "hi\r\n");  // no echo of piped input, like script(1)
  r = Wrap(dir, {"wc", "-c"}, "no newline at the end");
  EXPECT_EQ(Code(r), 0);
  EXPECT_EQ(r.out, "21\r\n");
}

TEST(WrapProcess, MissingCommandIsAClearError) {
  TempDir dir;
  WrapRun r = Wrap(dir, {"agtmux-no-such-command"});
  EXPECT_EQ(Code(r), 127);
  EXPECT_EQ(r.err, "agtmux wrap: agtmux-no-such-command: command not found in PATH\n");
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace agt::wrap
