// RemoteLink (see remote_link.h). The thread owns the SshExecutor and its
// channels; the loop thread only sees LinkReports through a uv_async.
#include "aggregator/federation/remote_link.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>
#include <random>

#include "libagtcore/net/http_message.h"
#include "libagtcore/uv/handles.h"

namespace agt::agg {
namespace {

using core::TimeNs;

constexpr TimeNs kReadSlice = 100 * core::kNsPerMs;  // how soon Stop is seen
constexpr TimeNs kCallSlice = 10 * core::kNsPerMs;   // the watch's slice while an answer is awaited
// How long a forwarded action may take on the host (a respond's keys, an
// Enter delay) before its caller is told it did not answer.
constexpr std::chrono::seconds kCallBound{30};
constexpr int kExitDaemonUnreachable = 3;            // agtmux's exit status (cli/exit_codes.h)
constexpr int kExitNotFound = 127;                   // the shell's "command not found"

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

RemoteLink::RemoteLink(uv_loop_t* loop, RemoteLinkOptions options, Sink sink)
    : loop_(loop), options_(std::move(options)), sink_(std::move(sink)) {
  async_ = new uv_async_t;
  uv_async_init(loop_, async_, [](uv_async_t* a) { static_cast<RemoteLink*>(a->data)->Drain(); });
  async_->data = this;
}

RemoteLink::~RemoteLink() {
  stop_ = true;
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Every caller gets an answer, even from a link that is going away; the
  // reports still queued are dropped: their sink is the owner being
  // destroyed (its link pointer already null).
  FailCalls("the target's link was stopped");
  std::deque<std::function<void()>> tasks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks.swap(tasks_);
    queue_.clear();
  }
  for (auto& t : tasks) t();
  uv::CloseAndDelete(async_);
}

void RemoteLink::Start() { thread_ = std::thread([this] { Run(); }); }

void RemoteLink::SetCursor(std::string cursor) {
  std::lock_guard<std::mutex> lock(mu_);
  cursor_ = std::move(cursor);
}

void RemoteLink::Post(LinkReport r) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(r));
  }
  uv_async_send(async_);
}

void RemoteLink::PostTask(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  uv_async_send(async_);
}

void RemoteLink::Call(net::HttpRequest req, CallDone done) {
  if (!streaming_) {
    done(core::MakeError(core::Err::kTargetUnreachable,
                         "target " + options_.target_id + ": its agtmuxd cannot be reached now"));
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  calls_.emplace_back(std::move(req), std::move(done));
}

void RemoteLink::FailCalls(const std::string& why) {
  std::deque<std::pair<net::HttpRequest, CallDone>> failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    failed.swap(calls_);
  }
  for (auto& [req, done] : failed) {
    PostTask([done = std::move(done), why, target = options_.target_id] {
      done(core::MakeError(core::Err::kTargetUnreachable, "target " + target + ": " + why + "; nothing was sent"));
    });
  }
}

/// A forwarded request whose answer is being read, beside the watch.
struct RemoteLink::InFlight {
  std::unique_ptr<SshChannel> ch;
  net::HttpResponseParser parser;
  CallDone done;
  std::chrono::steady_clock::time_point deadline;
  bool acts = true;  // a POST (an action), not a lookup: it may have run when no answer came

  /// What an unanswered caller is told about the host's side of it.
  std::string MayHaveRun() const { return acts ? "; the action may have run there" : ""; }
};

RemoteLink::InFlightList::~InFlightList() = default;

void RemoteLink::Answer(CallDone done, core::Result<net::HttpResponse> answer) {
  PostTask([done = std::move(done), answer = std::move(answer)]() mutable { done(std::move(answer)); });
}

core::Error RemoteLink::Unreachable(const std::string& why) const {
  return core::MakeError(core::Err::kTargetUnreachable, "target " + options_.target_id + ": " + why);
}

/// A call whose channel is being opened, a step at a time between reads of
/// the watch (StartCalls). Only one: libssh2 has one channel open pending
/// per session.
struct RemoteLink::Opening {
  std::pair<net::HttpRequest, CallDone> call;
  std::unique_ptr<SshChannel> session;  // bridge: the session channel, before its exec
  std::chrono::steady_clock::time_point deadline;
};

core::Result<std::unique_ptr<SshChannel>> RemoteLink::OpenStep(SshExecutor& ssh, const std::string& mode) {
  if (mode != "bridge") return ssh.OpenUnixSocket(socket_path_, 0);
  Opening& o = *opening_;
  if (!o.session) {
    auto ch = ssh.OpenSession(0);
    if (!ch) return ch.error();
    o.session = std::move(*ch);
  }
  if (auto st = o.session->Exec({options_.agtmux, "bridge"}, 0); !st) return st.error();
  return std::move(o.session);
}

std::string RemoteLink::StartCalls(SshExecutor& ssh, const std::string& mode) {
  while (!stop_) {
    if (!opening_) {
      std::lock_guard<std::mutex> lock(mu_);
      if (calls_.empty()) return "";
      opening_ = std::make_unique<Opening>(
          Opening{std::move(calls_.front()), nullptr, std::chrono::steady_clock::now() + kCallBound});
      calls_.pop_front();
    }
    // One step of the open, never a wait on the host: while a host that
    // stopped answering keeps the open pending, the watch goes on being
    // read and its heartbeat bound checked, so a call neither delays the
    // watch nor the finding that the host is gone (which then answers the
    // call, FailInFlight). A host whose heartbeats come but which opens no
    // channel gives the call its bound, then the session ends (its pending
    // open would hold every later one).
    auto ch = OpenStep(ssh, mode);
    if (!ch && ch.error().code == core::Err::kTimeout) {
      if (std::chrono::steady_clock::now() < opening_->deadline) return "";
      ch = core::MakeError(core::Err::kTimeout, "no channel opened within " + std::to_string(kCallBound.count()) +
                                                    " s while its heartbeats came");
    }
    std::pair<net::HttpRequest, CallDone> call = std::move(opening_->call);
    opening_.reset();
    if (ch) {
      // A request is a few hundred bytes on a fresh channel's window:
      // the write waits on the host only if it froze this very moment.
      if (auto st = (*ch)->Write(net::FormatHttpRequest(call.first), options_.idle_timeout); !st) ch = st.error();
    }
    if (!ch) {
      const std::string why = "cannot reach its agtmuxd (" + ch.error().message + "); nothing was sent";
      Answer(std::move(call.second), Unreachable(why));
      return why;
    }
    // An action answers when its tmux work is done (an Enter delay, a
    // respond's keys): the bound is the action's, not a heartbeat's; the
    // watch's heartbeats meanwhile prove the host is still there.
    const bool acts = call.first.method != "GET";
    calls_in_flight_.items.push_back(std::make_unique<InFlight>(
        InFlight{std::move(*ch), {}, std::move(call.second), std::chrono::steady_clock::now() + kCallBound, acts}));
  }
  return "";
}

void RemoteLink::PollCalls() {
  auto& items = calls_in_flight_.items;
  char buf[32768];
  for (auto it = items.begin(); it != items.end();) {
    InFlight& c = **it;
    std::optional<core::Result<net::HttpResponse>> answer;
    while (!answer) {
      auto n = c.ch->Read(buf, sizeof buf, 0);
      if (!n && n.error().code == core::Err::kTimeout) break;  // nothing more yet
      if (!n) {
        answer = Unreachable("the link broke before its agtmuxd answered (" + n.error().message + ")" +
                             c.MayHaveRun());
        break;
      }
      auto st = *n == 0 ? c.parser.Finish() : c.parser.Feed(std::string_view(buf, *n));
      if (st == net::HttpResponseParser::Status::kDone) answer = std::move(c.parser.response());
      else if (st == net::HttpResponseParser::Status::kError)
        answer = Unreachable("bad answer from its agtmuxd: " + c.parser.error());
      else if (*n == 0)
        answer = Unreachable("its agtmuxd closed the channel before answering");
    }
    if (!answer && std::chrono::steady_clock::now() >= c.deadline)
      answer = core::MakeError(core::Err::kTimeout, "target " + options_.target_id + ": its agtmuxd did not answer within " +
                                                        std::to_string(kCallBound.count()) + " s" +
                                                        c.MayHaveRun());
    if (!answer) {
      ++it;
      continue;
    }
    Answer(std::move(c.done), std::move(*answer));
    it = items.erase(it);
  }
}

void RemoteLink::FailInFlight(const std::string& why) {
  if (opening_) {
    Answer(std::move(opening_->call.second),
           Unreachable("the link broke before a channel to its agtmuxd opened (" + why + "); nothing was sent"));
    opening_.reset();
  }
  for (auto& c : calls_in_flight_.items)
    Answer(std::move(c->done), Unreachable("the link broke before its agtmuxd answered (" + why + ")" +
                                           c->MayHaveRun()));
  calls_in_flight_.items.clear();
}

void RemoteLink::Drain() {
  std::deque<LinkReport> batch;
  std::deque<std::function<void()>> tasks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch.swap(queue_);
    tasks.swap(tasks_);
  }
  for (auto& t : tasks) t();
  for (auto& r : batch) {
    const bool last = r.kind == LinkReport::Kind::kAbsent;  // the sink may destroy this link
    sink_(std::move(r));
    if (last) return;
  }
}

bool RemoteLink::SleepInterruptible(TimeNs ns) {
  std::unique_lock<std::mutex> lock(mu_);
  return !wake_.wait_for(lock, std::chrono::nanoseconds(ns), [this] { return stop_.load(); });
}

void RemoteLink::Run() {
  static thread_local std::mt19937 rng{std::random_device{}()};
  TimeNs backoff = options_.first_backoff;
  bool was_up = false;
  while (!stop_) {
    // A new executor per connection: a failed session is never reused,
    // and every channel of the old one is gone with it.
    SshExecutor ssh(options_.ssh);
    bool absent = false;
    const int64_t before = bytes_read_.load();
    std::string why = Session(ssh, absent);
    streaming_ = false;
    FailInFlight(why.empty() ? "the link stopped" : why);  // their channels go before the session
    FailCalls(why.empty() ? "the link stopped" : why);
    if (stop_) break;
    if (absent && !was_up) {
      Post({LinkReport::Kind::kAbsent, why});
      return;
    }
    const bool streamed = bytes_read_.load() > before;
    was_up = was_up || streamed;
    if (streamed) backoff = options_.first_backoff;  // it worked for a while: retry soon
    Post({LinkReport::Kind::kDown, why});
    std::uniform_real_distribution<double> j(1.0 - options_.jitter, 1.0 + options_.jitter);
    if (!SleepInterruptible(TimeNs(double(backoff) * j(rng)))) break;
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

std::string RemoteLink::Session(SshExecutor& ssh, bool& absent) {
  if (auto st = ssh.Connect(); !st) return st.error().message;
  // Where the remote daemon listens is the remote's to say: its CLI
  // resolves the socket with the same rules as every agtmux command there.
  std::vector<std::string> locate = {options_.agtmux, "bridge", "--locate"};
  if (options_.forced) locate.push_back("--start");
  ExecOptions eo;
  eo.timeout = 5 * core::kNsPerSec;
  auto found = ssh.Run(locate, eo);
  if (!found) return found.error().message;
  if (found->exit_code != 0) {
    absent = found->exit_code == kExitNotFound || found->exit_code == kExitDaemonUnreachable;
    std::string err = Trimmed(found->err);
    if (found->exit_code == kExitNotFound) return "no `" + options_.agtmux + "` on the host's PATH";
    return "the host's agtmuxd does not answer" + (err.empty() ? std::string() : ": " + err);
  }
  socket_path_ = Trimmed(found->out);

  auto channel = ssh.OpenUnixSocket(socket_path_, 5 * core::kNsPerSec);
  std::string mode = "streamlocal";
  if (!channel && channel.error().code == core::Err::kUnsupported) {
    channel = ssh.OpenCommand({options_.agtmux, "bridge"}, 5 * core::kNsPerSec);
    mode = "bridge";
  }
  if (!channel) return channel.error().message;
  SshChannel& ch = **channel;

  std::string cursor;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cursor = cursor_;
  }
  net::HttpRequest req;
  req.path = "/v1/watch?scope=panes&all=1&target=host&interval=" + std::to_string(options_.heartbeat / core::kNsPerMs) + "ms";
  if (!cursor.empty()) req.path += "&cursor=" + cursor;
  if (auto st = ch.Write(net::FormatHttpRequest(req), 5 * core::kNsPerSec); !st) return st.error().message;

  net::HttpResponseParser parser;
  bool up = false;
  auto last_byte = std::chrono::steady_clock::now();
  const auto idle_bound = std::chrono::nanoseconds(options_.idle_timeout);
  char buf[32768];
  reconnect_ = false;
  while (!stop_) {
    if (reconnect_) {
      reconnect_ = false;
      return "resynchronising after a line that could not be applied";
    }
    if (up) {
      if (std::string why = StartCalls(ssh, mode); !why.empty()) return why;
    }
    // While an answer is awaited, the watch is read in short slices so
    // that the answer is taken as soon as it is in.
    const bool waiting = !calls_in_flight_.items.empty() || opening_;
    auto n = ch.Read(buf, sizeof buf, waiting ? kCallSlice : kReadSlice);
    if (waiting) PollCalls();
    if (!n && n.error().code == core::Err::kTimeout) {
      if (std::chrono::steady_clock::now() - last_byte >= idle_bound)
        return "no heartbeat for " + std::to_string(options_.idle_timeout / core::kNsPerMs) + " ms";
      continue;
    }
    if (!n) return n.error().message;
    if (*n == 0) return "the remote agtmuxd closed the stream";
    last_byte = std::chrono::steady_clock::now();
    bytes_read_ += int64_t(*n);
    auto status = parser.Feed(std::string_view(buf, *n));
    if (status == net::HttpResponseParser::Status::kError) return "bad answer: " + parser.error();
    net::HttpResponse& resp = parser.response();
    if (resp.status == 0) continue;
    if (resp.status != 200) {
      if (status != net::HttpResponseParser::Status::kDone) continue;
      const core::Error e = net::ApiErrorFromResponse(resp);
      if (e.code == core::Err::kCursorInvalid) {
        // A cursor ahead of the stream (the remote's history was
        // replaced): start over from a snapshot.
        std::lock_guard<std::mutex> lock(mu_);
        cursor_.clear();
      }
      return "GET /v1/watch: " + e.ToString();
    }
    if (!up) {
      up = true;
      streaming_ = true;
      Post({LinkReport::Kind::kUp, mode});
    }
    size_t start = 0, nl;
    while ((nl = resp.body.find('\n', start)) != std::string::npos) {
      if (nl > start) Post({LinkReport::Kind::kLine, resp.body.substr(start, nl - start)});
      start = nl + 1;
    }
    resp.body.erase(0, start);
    if (status == net::HttpResponseParser::Status::kDone) return "the remote agtmuxd ended the stream";
  }
  return "";
}

}  // namespace agt::agg
