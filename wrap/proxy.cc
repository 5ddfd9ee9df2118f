// The PTY proxy's event loop (see proxy.h). Every handle lives on one libuv
// loop; nothing polls: the loop sleeps until the child writes, the user
// types, a signal arrives, or a real timer (analysis settle, event retry)
// is due. Terminal state is owned by TerminalGuard, restored on every path
// out of RunProxy, before a job-control stop, and re-applied after it.
//
// Job control: a ^Z typed by the user reaches the child through its PTY;
// when the child stops, the wrapper stops too (terminal restored first), so
// the user's shell sees the job stopped; `fg` continues both.
#include "wrap/proxy.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <uv.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "libagtcore/agent_version.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/detect/kept_screen.h"
#include "libagtcore/os/file_reader.h"
#include "libagtcore/net/tmux_identity.h"
#include "libagtcore/redact.h"
#include "wrap/analyzer_factory.h"
#include "wrap/asciicast.h"
#include "wrap/event_emitter.h"
#include "wrap/pty_child.h"
#include "libagtcore/screen/screen_pipeline.h"
#include "wrap/terminal_guard.h"
#include "wrap/wrapper_events.h"

namespace agt::wrap {
namespace {

constexpr size_t kReadBuf = 64 * 1024;

core::TimeNs Mono() { return static_cast<core::TimeNs>(uv_hrtime()); }

/// True when /proc says `pid` is stopped (state T).
bool ChildIsStopped(pid_t pid) {
  auto stat = core::RealFileReader().Read("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  const size_t paren = stat->rfind(')');
  return paren != std::string::npos && paren + 2 < stat->size() && (*stat)[paren + 2] == 'T';
}

/// Writes all of `data` to a blocking fd (the outer terminal). A terminal
/// that is slow to drain slows the child down, as it would without us.
void WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w > 0) {
      data += w;
      n -= static_cast<size_t>(w);
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && errno == EAGAIN) {
      // stdout was left non-blocking by someone else: wait for it.
      fd_set set;
      FD_ZERO(&set);
      FD_SET(fd, &set);
      ::select(fd + 1, nullptr, &set, nullptr, nullptr);
    } else {
      return;  // the terminal is gone (EIO/EPIPE): keep running for the child
    }
  }
}

class Session {
 public:
  explicit Session(const ProxyOptions& opts) : opts_(opts), term_(STDIN_FILENO) {}

  int Run();

 private:
  // Setup.
  bool Start();
  void StartEvents(core::TimeNs started_wall);
  // Loop callbacks.
  void OnMasterReadable();
  void OnMasterWritable();
  void OnStdinReadable();
  void OnSignal(int sig);
  void OnChildStatus();
  void OnAnalysisDue();
  // Helpers.
  void Output(const char* data, size_t n);
  void SendInput(const char* data, size_t n);
  void QueueInput(const char* data, size_t n);
  void SuspendJob();
  void UpdatePollMaster();
  void Resize();
  void ArmAnalysis();
  void RunAnalysis(core::TimeNs now);
  void WatchUnreadable(core::TimeNs now);
  void StopSelf();
  void Finish();
  void CloseAll();

  const ProxyOptions& opts_;
  TerminalGuard term_;
  uv_loop_t loop_{};
  std::optional<PtyChild> child_;
  core::UniqueFd master_;  // the PTY master: master_poll_ only watches it
  pid_t pid_ = -1;
  int rows_ = 24;
  int cols_ = 80;
  bool stdin_tty_ = false;
  bool stdin_open_ = true;
  bool stdin_polling_ = false;
  bool stdin_poll_inited_ = false;
  bool master_open_ = true;
  bool child_done_ = false;
  bool finishing_ = false;
  int exit_code_ = 0;
  int exit_signal_ = 0;
  std::string pending_input_;   // bytes not yet accepted by the PTY
  bool eof_pending_ = false;    // stdin ended: send VEOF once the input is out
  char last_input_byte_ = '\n';
  pid_t suspended_pgrp_ = 0;    // the child's job we stopped with ourselves

  uv_poll_t master_poll_{};
  uv_poll_t stdin_poll_{};
  uv_timer_t analysis_timer_{};
  core::TimeNs analysis_due_ = 0;
  static constexpr int kSignals[] = {SIGCHLD, SIGWINCH, SIGTERM, SIGHUP, SIGINT,
                                     SIGQUIT, SIGTSTP, SIGCONT, SIGUSR1, SIGUSR2};
  uv_signal_t signals_[sizeof kSignals / sizeof kSignals[0]]{};

  std::unique_ptr<screen::ScreenPipeline> pipeline_;
  bool own_set_ = false;                // the agent has a pattern set of its own
  std::string set_version_;             // and this is its version
  detect::StuckUnknownWatch unknown_watch_;
  std::unique_ptr<CastWriter> recorder_;
  std::unique_ptr<EventEmitter> emitter_;
  std::unique_ptr<WrapperEvents> events_;
  // For kept screens only: events carry the analyzer's output, which comes
  // redacted (docs/store.md, Redaction).
  std::optional<core::Redactor> redactor_;
  char buf_[kReadBuf];
};

bool Session::Start() {
  stdin_tty_ = term_.is_tty();
  if (!GetTerminalSize(STDIN_FILENO, &rows_, &cols_) &&
      !GetTerminalSize(STDOUT_FILENO, &rows_, &cols_) &&
      !GetTerminalSize(STDERR_FILENO, &rows_, &cols_)) {
    rows_ = 24;
    cols_ = 80;
  }
  PtySpawnOptions spawn;
  spawn.path = opts_.exe_path;
  spawn.argv = opts_.argv;
  spawn.rows = rows_;
  spawn.cols = cols_;
  if (stdin_tty_) {
    spawn.tty_modes = term_.saved();
  } else {
    // Like script(1) when stdin is not a terminal: piped input is not echoed.
    spawn.no_echo = true;
  }
  spawn.set_env.emplace_back("AGTMUX_WRAPPED", "1");
  if (events_) spawn.set_env.emplace_back("AGTMUX_RUNTIME_ID", events_->identity().runtime_id);

  auto child = PtyChild::Spawn(spawn);
  if (!child) {
    std::fprintf(stderr, "agtmux wrap: %s\n", child.error().message.c_str());
    exit_code_ = child.error().code == core::Err::kNotFound ? 127 : 126;
    return false;
  }
  child_.emplace(std::move(*child));
  pid_ = child_->pid();
  master_ = child_->TakeMaster();
  ::fcntl(master_.get(), F_SETFL, ::fcntl(master_.get(), F_GETFL) | O_NONBLOCK);
  if (events_) events_->set_child_pid(pid_);
  return true;
}

void Session::StartEvents(core::TimeNs started_wall) {
  if (!opts_.emit_events) return;
  IdentityInputs in;
  in.agent_type = opts_.agent_type;
  in.argv = opts_.argv;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) != nullptr) in.cwd = cwd;
  if (const char* t = std::getenv("TMUX")) in.tmux_env = t;
  if (const char* p = std::getenv("TMUX_PANE")) in.tmux_pane = p;
  in.wrapper_pid = ::getpid();
  in.started_at = started_wall;
  // A readlink and a few small reads, once, before the loop runs.
  if (auto v = core::AgentVersionFromProgram(opts_.exe_path)) in.agent_version = v->version;
  std::string boot_id;
  if (!in.tmux_env.empty()) {
    if (auto env = net::ParseTmuxEnv(in.tmux_env)) {
      if (auto b = net::TmuxServerBootId(env->server_pid, core::RealFileReader())) boot_id = *b;
    }
  }
  events_ = std::make_unique<WrapperEvents>(MakeIdentity(in, boot_id),
                                            core::SystemClock::Get());
  if (auto r = core::Redactor::LoadBuiltin()) redactor_.emplace(std::move(*r));
  EventEmitterOptions eo;
  eo.socket_path = opts_.socket_path;
  eo.spool_dir = opts_.spool_dir;
  eo.producer_pid = ::getpid();
  eo.redactor = redactor_ ? &*redactor_ : nullptr;
  emitter_ = std::make_unique<EventEmitter>(&loop_, eo);
}

void Session::Output(const char* data, size_t n) {
  WriteAll(STDOUT_FILENO, data, n);  // first, untouched
  const core::TimeNs now = Mono();
  if (recorder_) recorder_->Output(now, std::string_view(data, n));
  pipeline_->OnOutput(std::string_view(data, n), now);
  ArmAnalysis();
}

void Session::OnMasterReadable() {
  for (int i = 0; i < 16; ++i) {
    const ssize_t n = ::read(master_.get(), buf_, sizeof buf_);
    if (n > 0) {
      Output(buf_, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    // EOF/EIO: every holder of the slave side closed it; the child is
    // exiting. Its status arrives with SIGCHLD.
    master_open_ = false;
    uv_poll_stop(&master_poll_);
    if (child_done_) Finish();
    return;
  }
}

void Session::UpdatePollMaster() {
  if (!master_open_) return;
  int events = UV_READABLE;
  if (!pending_input_.empty() || eof_pending_) events |= UV_WRITABLE;
  uv_poll_start(&master_poll_, events, [](uv_poll_t* h, int status, int ev) {
    auto* s = static_cast<Session*>(h->data);
    if (status < 0) ev = UV_READABLE;  // an error shows up as read()'s result
    if (ev & UV_WRITABLE) s->OnMasterWritable();
    if (ev & UV_READABLE) s->OnMasterReadable();
  });
  // Stop reading stdin while the PTY is not taking input (backpressure).
  if (stdin_open_ && stdin_poll_inited_) {
    const bool want = pending_input_.size() < kReadBuf;
    if (want && !stdin_polling_) {
      uv_poll_start(&stdin_poll_, UV_READABLE, [](uv_poll_t* h, int, int) {
        static_cast<Session*>(h->data)->OnStdinReadable();
      });
      stdin_polling_ = true;
    } else if (!want && stdin_polling_) {
      uv_poll_stop(&stdin_poll_);
      stdin_polling_ = false;
    }
  }
}

void Session::OnMasterWritable() {
  while (!pending_input_.empty()) {
    const ssize_t w = ::write(master_.get(), pending_input_.data(), pending_input_.size());
    if (w > 0) {
      pending_input_.erase(0, static_cast<size_t>(w));
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EAGAIN: wait for writable again; EIO: the child is gone
    }
  }
  if (pending_input_.empty() && eof_pending_) {
    // End of piped input: the PTY's EOF character, twice when a partial
    // line is pending (the first only submits the line).
    termios t{};
    char veof = 4;
    if (::tcgetattr(master_.get(), &t) == 0 && t.c_cc[VEOF] != 0) veof = static_cast<char>(t.c_cc[VEOF]);
    if (last_input_byte_ != '\n') (void)!::write(master_.get(), &veof, 1);
    (void)!::write(master_.get(), &veof, 1);
    eof_pending_ = false;
  }
  UpdatePollMaster();
}

void Session::SendInput(const char* data, size_t n) {
  const core::TimeNs now = Mono();
  // A resize that tmux applied before this input must reach the child
  // before it, as it would without the wrapper; SIGWINCH may still be on
  // its way through the loop, so check the size now (one ioctl).
  if (stdin_tty_) Resize();
  if (recorder_) recorder_->Input(now, std::string_view(data, n));
  pipeline_->OnInput(now);
  // The child runs in its own session, an orphaned process group for the
  // kernel, which discards a terminal-generated SIGTSTP: the suspend key
  // would do nothing. So when the child's PTY has ISIG on, the wrapper
  // acts as the line discipline: the key suspends the whole job.
  if (stdin_tty_) {
    termios t{};
    if (::tcgetattr(master_.get(), &t) == 0 && (t.c_lflag & ISIG) &&
        t.c_cc[VSUSP] != _POSIX_VDISABLE) {
      const void* hit = std::memchr(data, t.c_cc[VSUSP], n);
      if (hit != nullptr) {
        const size_t i = static_cast<size_t>(static_cast<const char*>(hit) - data);
        if (i > 0) QueueInput(data, i);
        SuspendJob();
        if (i + 1 < n) SendInput(data + i + 1, n - i - 1);
        return;
      }
    }
  }
  QueueInput(data, n);
}

void Session::QueueInput(const char* data, size_t n) {
  last_input_byte_ = data[n - 1];
  if (pending_input_.empty()) {
    const ssize_t w = ::write(master_.get(), data, n);
    if (w == static_cast<ssize_t>(n)) return;
    const size_t done = w > 0 ? static_cast<size_t>(w) : 0;
    pending_input_.append(data + done, n - done);
  } else {
    pending_input_.append(data, n);
  }
  UpdatePollMaster();
}

void Session::SuspendJob() {
  if (child_done_) return StopSelf();
  pid_t pgrp = ::tcgetpgrp(master_.get());
  if (pgrp <= 0) pgrp = pid_;
  ::kill(-pgrp, SIGSTOP);
  suspended_pgrp_ = pgrp;
  StopSelf();
}

void Session::OnStdinReadable() {
  const ssize_t n = ::read(STDIN_FILENO, buf_, sizeof buf_);
  if (n > 0) return SendInput(buf_, static_cast<size_t>(n));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  // EOF or error on stdin: no more input. For a pipe, tell the child.
  uv_poll_stop(&stdin_poll_);
  stdin_polling_ = false;
  stdin_open_ = false;
  if (!stdin_tty_) {
    eof_pending_ = true;
    UpdatePollMaster();
  }
}

void Session::Resize() {
  int rows = 0, cols = 0;
  if (!GetTerminalSize(STDIN_FILENO, &rows, &cols) &&
      !GetTerminalSize(STDOUT_FILENO, &rows, &cols))
    return;
  if (rows == rows_ && cols == cols_) return;  // we alone size the PTY
  if (master_open_) SetPtySize(master_.get(), rows, cols);
  rows_ = rows;
  cols_ = cols;
  pipeline_->OnResize(rows, cols);
  if (recorder_) recorder_->Resize(Mono(), cols, rows);
}

void Session::StopSelf() {
  // Restore the terminal, stop like any job-control-aware program, and
  // pick up where we were when the shell continues us.
  term_.Restore();
  ::kill(::getpid(), SIGSTOP);
  term_.Reapply();
  Resize();
  if (!child_done_) {
    if (suspended_pgrp_ > 0) ::kill(-suspended_pgrp_, SIGCONT);
    ::kill(pid_, SIGCONT);
  }
  suspended_pgrp_ = 0;
}

void Session::OnSignal(int sig) {
  switch (sig) {
    case SIGCHLD:
      return OnChildStatus();
    case SIGWINCH:
      return Resize();
    case SIGTSTP:
      // Someone asked the wrapper to stop: the child's job stops too, and
      // its stop report (SIGCHLD) is then ignored as already handled.
      return SuspendJob();
    case SIGCONT:
      term_.Reapply();
      Resize();
      return;
    default:
      // SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1/2: the child decides.
      if (!child_done_) ::kill(pid_, sig);
      return;
  }
}

void Session::OnChildStatus() {
  if (child_done_) return;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG | WUNTRACED);
    if (r == 0) return;
    if (r < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (WIFSTOPPED(status)) {
      // The child stopped (^Z in its PTY, or a signal): stop with it, unless
      // it runs again already (we continued it after our own stop).
      if (ChildIsStopped(pid_)) StopSelf();
      continue;
    }
    break;
  }
  child_done_ = true;
  if (WIFSIGNALED(status)) {
    exit_signal_ = WTERMSIG(status);
    exit_code_ = 128 + exit_signal_;
  } else {
    exit_code_ = WEXITSTATUS(status);
  }
  // Output the child wrote just before exiting is still in the PTY.
  while (master_open_) {
    const ssize_t n = ::read(master_.get(), buf_, sizeof buf_);
    if (n > 0) {
      Output(buf_, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EAGAIN: a grandchild keeps the PTY open; EIO: all gone
    }
  }
  Finish();
}

void Session::ArmAnalysis() {
  core::TimeNs due = pipeline_->next_analysis();
  if (const core::TimeNs watch = unknown_watch_.deadline(); watch != 0 && !opts_.screens_dir.empty())
    due = due == 0 ? watch : std::min(due, watch);
  if (due == 0 || finishing_) return;
  if (analysis_due_ != 0 && analysis_due_ <= due) return;
  analysis_due_ = due;
  const core::TimeNs now = Mono();
  const uint64_t ms = due > now ? static_cast<uint64_t>((due - now + core::kNsPerMs - 1) / core::kNsPerMs) : 0;
  uv_timer_start(&analysis_timer_, [](uv_timer_t* t) {
    static_cast<Session*>(t->data)->OnAnalysisDue();
  }, ms, 0);
}

void Session::OnAnalysisDue() {
  analysis_due_ = 0;
  RunAnalysis(Mono());
  ArmAnalysis();
}

void Session::RunAnalysis(core::TimeNs now) {
  auto sig = pipeline_->Analyze(now);
  WatchUnreadable(now);
  if (!sig || !events_) return;
  // The analyzer's evidence and waiting detail come redacted
  // (detect::CreateAnalyzer; docs/store.md, Redaction).
  emitter_->Emit(events_->StateChanged(*sig));
}

// A screen no rule read for a few seconds is kept (redacted, bounded) for
// `agtmux patterns doctor`: once per spell, a single small write.
void Session::WatchUnreadable(core::TimeNs now) {
  // Only an agent with a pattern set of its own: `agtmux wrap -- vim` shows
  // the user's files, which no rule is meant to read.
  if (opts_.screens_dir.empty() || !redactor_ || !events_ || !own_set_) return;
  const core::Signal& s = pipeline_->last_signal();
  if (!unknown_watch_.Observe(s, now)) return;
  detect::KeptScreen k;
  k.kept_at = core::SystemClock::Get().Now();
  k.reason = detect::kKeptNoRule;
  k.mode = "PTY";
  k.agent_type = opts_.agent_type;
  k.agent_version = events_->identity().info.agent_version;
  k.pattern_set_version = set_version_;
  k.target_id = events_->identity().target_id;
  k.pane_id = events_->identity().pane_id;
  k.state = s.state;
  k.reason_code = s.reason_code;
  k.rule_id = s.rule_id;
  k.title = pipeline_->scanner().signals().title;
  k.screen = pipeline_->Snapshot();
  detect::KeepLimits limits;
  limits.sync = false;  // diagnostics: the page cache is enough, the loop must not wait on a disk
  (void)detect::KeepScreen(opts_.screens_dir, std::move(k), *redactor_, limits);
}

void Session::Finish() {
  if (finishing_ || !child_done_) return;
  finishing_ = true;
  uv_timer_stop(&analysis_timer_);
  if (events_) {
    RunAnalysis(Mono());
    emitter_->Emit(events_->Exited(core::ExitInfo{exit_code_, exit_signal_}));
    emitter_->Flush(opts_.flush_grace_ms, [this] { CloseAll(); });
  } else {
    CloseAll();
  }
}

void Session::CloseAll() {
  auto close = [](auto* h) {
    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(h)))
      uv_close(reinterpret_cast<uv_handle_t*>(h), nullptr);
  };
  close(&master_poll_);
  if (stdin_poll_inited_) close(&stdin_poll_);
  close(&analysis_timer_);
  for (auto& s : signals_) close(&s);
}

int Session::Run() {
  uv_loop_init(&loop_);
  const core::TimeNs started_wall = core::SystemClock::Get().Now();
  StartEvents(started_wall);

  // Signals first, so none is missed between fork and the loop.
  for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    uv_signal_init(&loop_, &signals_[i]);
    signals_[i].data = this;
    uv_signal_start(&signals_[i], [](uv_signal_t* h, int sig) {
      static_cast<Session*>(h->data)->OnSignal(sig);
    }, kSignals[i]);
  }
  if (!Start()) {
    for (auto& s : signals_) uv_close(reinterpret_cast<uv_handle_t*>(&s), nullptr);
    if (emitter_) emitter_->Flush(0, [] {});
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
    return exit_code_;
  }
  term_.MakeRaw();

  screen::ScreenPipelineOptions po;
  po.rows = rows_;
  po.cols = cols_;
  po.agent_type = opts_.agent_type;
  pipeline_ = std::make_unique<screen::ScreenPipeline>(po, MakeAnalyzer(opts_.agent_type, &own_set_, &set_version_, opts_.timing));
  if (!opts_.record_path.empty()) {
    CastHeader h;
    h.width = cols_;
    h.height = rows_;
    h.timestamp = started_wall / core::kNsPerSec;
    if (const char* t = std::getenv("TERM")) h.env["TERM"] = t;
    if (const char* t = std::getenv("SHELL")) h.env["SHELL"] = t;
    for (size_t i = 0; i < opts_.argv.size(); ++i)
      h.command += (i ? " " : "") + opts_.argv[i];
    auto w = CastWriter::Open(opts_.record_path, h, Mono());
    if (w) recorder_ = std::move(*w);
    else std::fprintf(stderr, "agtmux wrap: %s (not recording)\r\n", w.error().message.c_str());
  }
  if (events_) emitter_->Emit(events_->Started());

  uv_timer_init(&loop_, &analysis_timer_);
  analysis_timer_.data = this;
  uv_poll_init(&loop_, &master_poll_, master_.get());
  master_poll_.data = this;
  if (uv_poll_init(&loop_, &stdin_poll_, STDIN_FILENO) == 0) {
    stdin_poll_inited_ = true;
    stdin_poll_.data = this;
  } else {
    // stdin is a regular file (epoll refuses those) or closed: its content
    // is all there is, so queue it for the child now, then EOF.
    stdin_open_ = false;
    for (;;) {
      const ssize_t n = ::read(STDIN_FILENO, buf_, sizeof buf_);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending_input_.append(buf_, static_cast<size_t>(n));
      last_input_byte_ = buf_[n - 1];
    }
    eof_pending_ = !stdin_tty_;
  }
  UpdatePollMaster();
  OnChildStatus();  // it may have exited before SIGCHLD was watched

  uv_run(&loop_, UV_RUN_DEFAULT);
  term_.Restore();
  if (recorder_) (void)recorder_->Close();
  if (emitter_) {
    // Events lost with no record of the loss anywhere: say it, once, now
    // that the terminal is the user's again.
    const EmitterStats& st = emitter_->stats();
    if (st.dropped > st.dropped_reported)
      std::fprintf(stderr, "agtmux wrap: %lld events were lost: agtmuxd was away and the spool could not take them (%s)\n",
                   static_cast<long long>(st.dropped - st.dropped_reported), st.last_error.c_str());
  }
  emitter_.reset();
  uv_loop_close(&loop_);
  return exit_code_;
}

}  // namespace

int RunProxy(const ProxyOptions& opts) {
  auto session = std::make_unique<Session>(opts);
  return session->Run();
}

}  // namespace agt::wrap
