// RunArgv, SpawnDetached, ExecArgv (run_argv.h): posix_spawnp with three
// pipes and a poll loop that drains stdout/stderr while feeding stdin; a
// double fork for a detached program; execvp.
#include "libagtcore/os/run_argv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "libagtcore/os/unique_fd.h"

extern char** environ;

namespace agt::core {
namespace {

TimeNs MonoNow() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return TimeNs(ts.tv_sec) * core::kNsPerSec + ts.tv_nsec;
}

bool MakePipe(UniqueFd* read_end, UniqueFd* write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end->Reset(fds[0]);
  write_end->Reset(fds[1]);
  return true;
}

/// A spawned child that is always reaped: killed first if still running.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      int st = 0;
      while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {}
    }
  }
  /// Waits for exit; returns the exit status (128+signal when killed).
  int Wait() {
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {}
    pid_ = -1;
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return 255;
  }

 private:
  pid_t pid_;
};


std::vector<char*> CArgv(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}

}  // namespace

Result<RunResult> RunArgv(const std::vector<std::string>& argv, const RunOptions& options) {
  if (argv.empty()) return MakeError(Err::kInternal, "run: empty argv");
  UniqueFd in_r, in_w, out_r, out_w, err_r, err_w;
  if (!MakePipe(&in_r, &in_w) || !MakePipe(&out_r, &out_w) || !MakePipe(&err_r, &err_w))
    return MakeError(Err::kIo, std::string("run: pipe: ") + strerror(errno));

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_r.get(), 0);
  posix_spawn_file_actions_adddup2(&fa, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, err_w.get(), 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t dfl;
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &dfl);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return MakeError(Err::kIo, "cannot run " + argv[0] + ": " + strerror(rc));
  Child child(pid);
  in_r.Reset();
  out_w.Reset();
  err_w.Reset();
  if (options.stdin_data.empty()) in_w.Reset();

  RunResult result;
  size_t stdin_off = 0;
  const TimeNs deadline = MonoNow() + options.timeout;
  char buf[65536];
  while (out_r.valid() || err_r.valid()) {
    pollfd fds[3];
    int n = 0;
    int idx_out = -1, idx_err = -1, idx_in = -1;
    if (out_r.valid()) { idx_out = n; fds[n++] = {out_r.get(), POLLIN, 0}; }
    if (err_r.valid()) { idx_err = n; fds[n++] = {err_r.get(), POLLIN, 0}; }
    if (in_w.valid()) { idx_in = n; fds[n++] = {in_w.get(), POLLOUT, 0}; }
    const TimeNs left = deadline - MonoNow();
    if (left <= 0)
      return MakeError(Err::kTimeout, argv[0] + ": timed out after " +
                                          std::to_string(options.timeout / core::kNsPerMs) + " ms");
    int pr = poll(fds, n, int(left / core::kNsPerMs) + 1);
    if (pr < 0) {
      if (errno == EINTR) continue;
      return MakeError(Err::kIo, std::string("run: poll: ") + strerror(errno));
    }
    auto drain = [&](int idx, UniqueFd& fd, std::string& into) {
      if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
      ssize_t r = read(fd.get(), buf, sizeof buf);
      if (r > 0) {
        size_t keep = std::min(size_t(r), options.max_output - std::min(options.max_output, into.size()));
        into.append(buf, keep);
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        fd.Reset();
      }
    };
    drain(idx_out, out_r, result.out);
    drain(idx_err, err_r, result.err);
    if (idx_in >= 0 && (fds[idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(in_w.get(), options.stdin_data.data() + stdin_off,
                        options.stdin_data.size() - stdin_off);
      if (w > 0) stdin_off += size_t(w);
      if (w < 0 && errno != EINTR && errno != EAGAIN) in_w.Reset();
      if (stdin_off >= options.stdin_data.size()) in_w.Reset();
    }
  }
  in_w.Reset();
  result.exit_code = child.Wait();
  return result;
}

Result<pid_t> SpawnDetached(const std::vector<std::string>& argv, const DetachOptions& options) {
  if (argv.empty()) return MakeError(Err::kInternal, "run: empty argv");
  // Everything the children need is made before the fork: after it only
  // async-signal-safe calls.
  auto args = CArgv(argv);
  const char* file = options.path.empty() ? argv[0].c_str() : options.path.c_str();
  const bool search = options.path.empty();
  int pid_pipe[2];
  if (pipe2(pid_pipe, O_CLOEXEC) != 0) return MakeError(Err::kIo, std::string("pipe: ") + strerror(errno));
  UniqueFd pid_in(pid_pipe[0]), pid_out(pid_pipe[1]);
  pid_t mid = fork();
  if (mid < 0) return MakeError(Err::kIo, std::string("fork: ") + strerror(errno));
  if (mid == 0) {
    setsid();
    pid_t d = fork();
    if (d != 0) {
      if (d > 0) (void)!write(pid_out.get(), &d, sizeof d);
      _exit(d < 0 ? 1 : 0);
    }
    int null = open("/dev/null", O_RDWR);
    int err = options.stderr_path.empty()
                  ? -1
                  : open(options.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
    dup2(null, 0);
    dup2(null, 1);
    dup2(err >= 0 ? err : null, 2);
    for (int fd = 3; fd < 1024; ++fd) close(fd);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (search)
      execvp(file, args.data());
    else
      execv(file, args.data());
    _exit(127);
  }
  pid_out.Reset();
  int status = 0;
  while (waitpid(mid, &status, 0) < 0 && errno == EINTR) {}
  pid_t pid = 0;
  if (read(pid_in.get(), &pid, sizeof pid) != sizeof pid || pid <= 0)
    return MakeError(Err::kIo, "fork: the detached " + argv[0] + " did not start");
  return pid;
}

Error ExecArgv(const std::vector<std::string>& argv) {
  if (argv.empty()) return MakeError(Err::kInternal, "run: empty argv");
  auto args = CArgv(argv);
  execvp(args[0], args.data());
  return MakeError(Err::kIo, "cannot run " + argv[0] + ": " + strerror(errno));
}

RealArgvRunner& RealArgvRunner::Get() {
  static RealArgvRunner runner;
  return runner;
}

}  // namespace agt::core
