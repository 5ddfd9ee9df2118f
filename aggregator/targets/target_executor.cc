// The local TargetExecutor: posix_spawnp with three pipes, a poll loop that
// drains stdout/stderr while feeding stdin, and a deadline after which the
// child is killed and reaped. No shell is involved, so arguments reach tmux
// exactly as given (names with spaces, quotes or `;` are just bytes).
#include "aggregator/targets/target_executor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "libagtcore/os/unique_fd.h"

extern char** environ;

namespace agt::agg {
namespace {

using core::Err;
using core::MakeError;
using core::TimeNs;
using core::UniqueFd;

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

}  // namespace

core::Result<ExecResult> LocalExecutor::Run(const std::vector<std::string>& argv,
                                            const ExecOptions& options) {
  if (argv.empty()) return MakeError(Err::kInternal, "exec: empty argv");
  UniqueFd in_r, in_w, out_r, out_w, err_r, err_w;
  if (!MakePipe(&in_r, &in_w) || !MakePipe(&out_r, &out_w) || !MakePipe(&err_r, &err_w))
    return MakeError(Err::kIo, std::string("exec: pipe: ") + strerror(errno));

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
    return MakeError(Err::kIo, "exec " + argv[0] + ": " + strerror(rc));
  Child child(pid);
  in_r.Reset();
  out_w.Reset();
  err_w.Reset();
  if (options.stdin_data.empty()) in_w.Reset();

  ExecResult result;
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
      return MakeError(Err::kTimeout, "exec " + argv[0] + ": timed out after " +
                                          std::to_string(options.timeout / core::kNsPerMs) + " ms");
    int pr = poll(fds, n, int(left / core::kNsPerMs) + 1);
    if (pr < 0) {
      if (errno == EINTR) continue;
      return MakeError(Err::kIo, std::string("exec: poll: ") + strerror(errno));
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

core::Result<ExecResult> FakeExecutor::Run(const std::vector<std::string>& argv,
                                           const ExecOptions&) {
  calls.push_back(argv);
  if (calls.size() <= script.size()) return script[calls.size() - 1];
  return fallback;
}

}  // namespace agt::agg
