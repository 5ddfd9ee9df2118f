// The wire half of federation (docs/architecture.md, "Federation"): one
// thread per federated target that holds the target's libssh2 session,
// finds the remote agtmuxd (`agtmux bridge --locate` over an exec channel),
// opens a channel to its Unix socket (direct-streamlocal; where sshd refuses
// that, `agtmux bridge` over an exec channel), asks for GET /v1/watch from
// the cursor it was given, and hands every line to the loop thread. A lost
// link is reported and retried with exponential backoff and jitter. Actions
// forwarded to the remote daemon (Call) go on channels of their own while the
// watch keeps being read, their channels opened a step at a time between
// reads. Nothing here blocks the loop; Stop returns within one read slice.
#pragma once

#include <uv.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "aggregator/targets/ssh_executor.h"
#include "libagtcore/net/http_message.h"

namespace agt::agg {

struct RemoteLinkOptions {
  std::string target_id;
  SshOptions ssh;
  /// `--via agtmuxd`: start the remote agtmuxd on demand and never give up
  /// on it; otherwise a host without one is reported `absent` once.
  bool forced = false;
  std::string agtmux = "agtmux";                    // the CLI on the remote PATH
  core::TimeNs heartbeat = 1 * core::kNsPerSec;     // the watch interval asked for
  core::TimeNs idle_timeout = 4 * core::kNsPerSec;  // no byte for this long: the link is dead
  core::TimeNs first_backoff = 250 * core::kNsPerMs;
  core::TimeNs max_backoff = 8 * core::kNsPerSec;
  double jitter = 0.2;                              // each delay * (1 ± jitter)
};

/// What the link tells the loop thread, in order.
struct LinkReport {
  enum class Kind {
    kUp,      // the watch stream answers (text: "streamlocal" or "bridge")
    kLine,    // one watch line (text)
    kDown,    // the link failed (text: why); a retry follows
    kAbsent,  // no agtmuxd on the host and not forced (text: why); the link stopped
  };
  Kind kind;
  std::string text;
};

class RemoteLink {
 public:
  using Sink = std::function<void(LinkReport)>;
  /// `sink` runs on `loop`'s thread. Start launches the thread.
  RemoteLink(uv_loop_t* loop, RemoteLinkOptions options, Sink sink);
  ~RemoteLink();
  RemoteLink(const RemoteLink&) = delete;
  RemoteLink& operator=(const RemoteLink&) = delete;

  void Start();
  /// Where the next (re)connection resumes; "" asks for a snapshot.
  void SetCursor(std::string cursor);
  /// Drops the current connection and reconnects from the cursor (after a
  /// line the mirror could not apply).
  void Reconnect() { reconnect_ = true; }
  /// One request to the remote daemon (actions on its panes, and GETs of
  /// their audit), on a channel of its own beside the watch stream; `done`
  /// runs on the loop with the answer, or E_TARGET_UNREACHABLE when the
  /// link is not up or breaks first (for a POST: "the action may have run
  /// there").
  using CallDone = std::function<void(core::Result<net::HttpResponse>)>;
  void Call(net::HttpRequest req, CallDone done);
  /// Payload bytes read from the channel since the start (benchmarks).
  int64_t bytes_read() const { return bytes_read_.load(); }

 private:
  void Run();
  /// One connection: returns why it ended ("" when asked to stop).
  std::string Session(SshExecutor& ssh, bool& absent);
  void Post(LinkReport r);
  void PostTask(std::function<void()> task);
  /// Sends the queued calls over `ssh` (the watch's session), each on a
  /// channel of its own, as far as it goes without waiting on the host;
  /// why the session must end ("" when it need not).
  std::string StartCalls(SshExecutor& ssh, const std::string& mode);
  /// One step of opening the channel of `opening_`: E_TIMEOUT while the
  /// host has not answered (the open stays pending in the session).
  core::Result<std::unique_ptr<SshChannel>> OpenStep(SshExecutor& ssh, const std::string& mode);
  /// Reads the answers that arrived, without waiting; answers the callers.
  void PollCalls();
  /// Answers every call in flight, and the one being opened, with
  /// E_TARGET_UNREACHABLE (`why`).
  void FailInFlight(const std::string& why);
  /// Answers every queued call with E_TARGET_UNREACHABLE (`why`).
  void FailCalls(const std::string& why);
  void Answer(CallDone done, core::Result<net::HttpResponse> answer);
  core::Error Unreachable(const std::string& why) const;
  void Drain();
  bool SleepInterruptible(core::TimeNs ns);

  uv_loop_t* loop_;
  RemoteLinkOptions options_;
  Sink sink_;
  uv_async_t* async_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> reconnect_{false};
  std::atomic<int64_t> bytes_read_{0};
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<LinkReport> queue_;  // guarded by mu_
  std::deque<std::function<void()>> tasks_;  // guarded by mu_: run on the loop
  std::deque<std::pair<net::HttpRequest, CallDone>> calls_;  // guarded by mu_
  std::atomic<bool> streaming_{false};
  std::string cursor_;            // guarded by mu_
  std::string socket_path_;       // the thread's: the remote socket once located
  struct InFlight;
  struct InFlightList {            // the thread's: calls sent, answers awaited
    ~InFlightList();
    std::vector<std::unique_ptr<InFlight>> items;
  };
  InFlightList calls_in_flight_;
  struct Opening;
  std::unique_ptr<Opening> opening_;  // the thread's: the call whose channel is being opened
};

}  // namespace agt::agg
