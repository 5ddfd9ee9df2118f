// The CLI's daemon client (see daemon_client.h). Plain calls go through
// libagtcore/net's blocking client; the watch stream has its own small
// reader here because it must hand over each line as its chunk arrives
// rather than wait for the end of the body.
#include "cli/client/daemon_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/command.h"
#include "cli/json_fields.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/config.h"
#include "libagtcore/os/file.h"
#include "libagtcore/net/tmux_identity.h"
#include "libagtcore/net/unix_http_client.h"
#include "libagtcore/os/process.h"
#include "libagtcore/os/run_argv.h"
#include "libagtcore/ref.h"
#include "libagtcore/base/visible_text.h"
#include "libagtcore/os/unique_fd.h"

namespace agt::cli {
namespace {

core::TimeNs MonoNow() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * core::kNsPerSec + ts.tv_nsec;
}

bool Executable(const std::string& p) { return ::access(p.c_str(), X_OK) == 0; }

core::Error Unreachable(const std::string& socket, const std::string& why) {
  return core::MakeError(core::Err::kDaemonUnreachable, "agtmuxd is not reachable at " + socket + " (" + why + ")");
}

constexpr const char* kDidNotStart = "agtmuxd did not start";

/// The daemon exited before it answered: what it wrote to stderr since
/// `offset` (its own "agtmuxd: ..." lines) is the error.
core::Error ExitedAtStart(const std::string& err_path, off_t offset) {
  std::string why;
  if (auto text = core::ReadWholeFile(err_path); text && static_cast<size_t>(offset) <= text->size())
    why = text->substr(static_cast<size_t>(offset));
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  if (why.empty()) why = "agtmuxd exited at start-up without a message; see " + err_path;
  return core::MakeError(core::Err::kDaemonUnreachable, std::string(kDidNotStart) + ":\n" + why);
}

}  // namespace

std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string q;
  for (const auto& [k, v] : params) {
    if (v.empty()) continue;
    q += q.empty() ? '?' : '&';
    q += k + "=" + core::PercentEncode(v);
  }
  return q;
}

core::Result<std::string> FindDaemonBinary() {
  if (const std::string self = SelfPath(); self.find('/') != std::string::npos) {
    std::string dir = self.substr(0, self.rfind('/'));
    for (const std::string& cand : {dir + "/agtmuxd", dir + "/../aggregator/agtmuxd"})
      if (Executable(cand)) return cand;
  }
  if (const char* path = std::getenv("PATH")) {
    std::string p(path);
    size_t start = 0;
    while (start <= p.size()) {
      size_t colon = p.find(':', start);
      std::string dir = p.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!dir.empty() && Executable(dir + "/agtmuxd")) return dir + "/agtmuxd";
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  return core::MakeError(core::Err::kDaemonUnreachable,
                         "cannot find the agtmuxd binary next to agtmux or in PATH");
}

core::Result<int64_t> StartDaemon(const core::Paths& paths, core::TimeNs wait) {
  auto bin = FindDaemonBinary();
  if (!bin) return bin.error();
  // agtmuxd refuses a config.toml that does not load; say why here, with the
  // file, line and key, rather than only in its stderr file.
  if (auto cfg = core::LoadConfig(paths.config_file); !cfg) return cfg.error();
  if (auto st = core::EnsureDir(paths.state_dir, 0700); !st) return st.error();
  // What the daemon writes to stderr from here on is its start-up error if
  // it exits before it answers (a config.toml that does not load).
  const std::string err_path = paths.state_dir + "/agtmuxd.stderr";
  struct stat before {};
  const off_t err_offset = ::stat(err_path.c_str(), &before) == 0 ? before.st_size : 0;
  // Detached (core::SpawnDetached: a new session, re-parented to init,
  // holding none of our caller's pipes), its stderr appended to err_path.
  core::DetachOptions detach;
  detach.path = *bin;
  detach.stderr_path = err_path;
  auto started = core::SpawnDetached({"agtmuxd"}, detach);
  if (!started) return started.error();
  const pid_t daemon_pid = *started;
  net::UnixHttpClientOptions o;
  o.socket_path = paths.socket_path;
  o.connect_timeout = 200 * core::kNsPerMs;
  o.read_timeout = 1 * core::kNsPerSec;
  net::HttpRequest req;
  req.path = "/v1/health";
  core::TimeNs deadline = MonoNow() + wait;
  while (MonoNow() < deadline) {
    auto r = net::HttpCall(o, req);
    if (r && r->status == 200) {
      const std::string& b = r->body;
      size_t p = b.find("\"pid\":");
      return p == std::string::npos ? int64_t{0} : std::atoll(b.c_str() + p + 6);
    }
    if (daemon_pid > 0 && !core::ProcessAlive(daemon_pid)) return ExitedAtStart(err_path, err_offset);
    ::usleep(20 * 1000);
  }
  return Unreachable(paths.socket_path, "started " + *bin + " but it did not answer within " +
                                            std::to_string(wait / core::kNsPerMs) + " ms; see " +
                                            paths.log_path);
}

namespace {
std::atomic<bool> autostart_disabled{false};
}  // namespace

void DisableAutostart() { autostart_disabled = true; }

core::Result<DaemonClient> DaemonClient::Open(const ClientOptions& options) {
  auto paths = core::ResolvePaths(core::RealEnv());
  if (!paths) return paths.error();
  DaemonClient c(*paths, options);
  if (options.autostart && !autostart_disabled && !c.Alive()) {
    // Something accepts connections but does not answer (a stopped or
    // overloaded daemon): a second daemon would not help.
    if (auto fd = net::ConnectUnixSocket(c.paths_.socket_path); fd) {
      core::UniqueFd listening(*fd);
      return Unreachable(c.paths_.socket_path, "it accepts connections but does not answer");
    }
    auto pid = StartDaemon(c.paths_, options.start_wait);
    if (!pid) return pid.error();
  }
  if (options.follow_tmux) c.FollowCallerTmux();
  return c;
}

void DaemonClient::FollowCallerTmux() {
  const char* tmux = std::getenv("TMUX");
  if (!tmux || !*tmux) return;
  auto env = net::ParseTmuxEnv(tmux);
  if (!env || env->socket_path.empty()) return;
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("tmux_socket");
  w.String(env->socket_path.c_str(), static_cast<rapidjson::SizeType>(env->socket_path.size()));
  w.EndObject();
  auto answer = CallJson("POST", "/v1/follow", sb.GetString(), {"target"});
  if (!answer) return;
  // A server just added is not read yet: wait (briefly) for its first read,
  // so the command that follows sees its panes.
  const auto& target = JsonObj(*answer, "target");
  if (!target.IsObject()) return;
  const std::string name = JsonStr(target, "name");
  std::string server = JsonStr(target, "server");
  // Without a collector (agtmuxd --no-observe) nothing will read it.
  const auto connected = target.FindMember("connected");
  if (connected == target.MemberEnd() || !connected->value.IsBool() || !connected->value.GetBool()) return;
  const core::Clock& clock = core::SystemClock::Get();
  const core::TimeNs deadline = clock.Monotonic() + 2 * core::kNsPerSec;
  while (server == "unknown" && clock.Monotonic() < deadline) {
    ::usleep(50 * 1000);
    auto targets = CallJson("GET", "/v1/targets", "", {"items"});
    if (!targets || !(*targets)["items"].IsArray()) return;
    server.clear();
    for (const auto& t : (*targets)["items"].GetArray())
      if (JsonStr(t, "name") == name) server = JsonStr(t, "server");
  }
}

bool DaemonClient::Alive() {
  net::UnixHttpClientOptions o;
  o.socket_path = paths_.socket_path;
  o.connect_timeout = 500 * core::kNsPerMs;
  o.read_timeout = 2 * core::kNsPerSec;
  net::HttpRequest req;
  req.path = "/v1/health";
  auto r = net::HttpCall(o, req);
  return r && r->status == 200;
}

core::Result<std::string> DaemonClient::Call(std::string method, std::string path, std::string body) {
  net::UnixHttpClientOptions o;
  o.socket_path = paths_.socket_path;
  o.read_timeout = options_.call_timeout;
  net::HttpRequest req;
  req.method = std::move(method);
  req.path = std::move(path);
  if (!body.empty()) {
    req.content_type = "application/json";
    req.body = std::move(body);
  }
  auto r = net::HttpCall(o, req);
  if (!r) {
    if (r.error().code == core::Err::kDaemonUnreachable) return Unreachable(paths_.socket_path, r.error().message);
    return r.error();
  }
  if (r->status < 200 || r->status >= 300) return net::ApiErrorFromResponse(*r);
  return std::move(r->body);
}

core::Result<rapidjson::Document> DaemonClient::CallJson(std::string method, std::string path,
                                                         std::string body,
                                                         std::initializer_list<const char*> required) {
  auto answer = Call(std::move(method), std::move(path), std::move(body));
  if (!answer) return answer.error();
  return ParseAnswer(*answer, required);
}

core::Result<rapidjson::Document> ParseAnswer(const std::string& body,
                                              std::initializer_list<const char*> required) {
  const std::string malformed = "the daemon sent a malformed answer";
  rapidjson::Document d;
  d.Parse(body.c_str(), body.size());
  if (d.HasParseError() || !d.IsObject())
    return core::MakeError(core::Err::kInternal, malformed + " (not a JSON object)");
  for (const char* member : required)
    if (!d.HasMember(member))
      return core::MakeError(core::Err::kInternal, malformed + " (no \"" + member + "\")");
  return d;
}

core::Status DaemonClient::Stream(const std::string& path, core::TimeNs idle_timeout,
                                  const std::function<bool(std::string_view)>& on_line) {
  auto fdr = net::ConnectUnixSocket(paths_.socket_path);
  if (!fdr) return Unreachable(paths_.socket_path, fdr.error().message);
  core::UniqueFd fd(*fdr);
  auto wait = [&](short ev, core::TimeNs timeout) -> bool {
    pollfd p{fd.get(), ev, 0};
    int ms = static_cast<int>(timeout / core::kNsPerMs);
    int rc;
    do rc = ::poll(&p, 1, ms); while (rc < 0 && errno == EINTR);
    return rc > 0;
  };
  if (!wait(POLLOUT, core::kNsPerSec)) return Unreachable(paths_.socket_path, "connect timed out");
  net::HttpRequest req;
  req.path = path;
  std::string wire = net::FormatHttpRequest(req);
  if (::send(fd.get(), wire.data(), wire.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(wire.size()))
    return Unreachable(paths_.socket_path, std::string("send: ") + std::strerror(errno));
  LineStreamDecoder decoder;
  char tmp[65536];
  while (true) {
    if (!wait(POLLIN, idle_timeout))
      return core::MakeError(core::Err::kDaemonUnreachable, "agtmuxd stopped sending (no data for " +
                                                                std::to_string(idle_timeout / core::kNsPerSec) + " s)");
    ssize_t n = ::recv(fd.get(), tmp, sizeof tmp, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      if (!decoder.in_body()) return Unreachable(paths_.socket_path, "connection closed before a response");
      if (!decoder.pending().empty()) on_line(decoder.pending());
      return core::MakeError(core::Err::kDaemonUnreachable, "the watch stream was cut off");
    }
    switch (decoder.Feed(std::string_view(tmp, static_cast<size_t>(n)), on_line)) {
      case LineStreamDecoder::Status::kMore: break;
      case LineStreamDecoder::Status::kEnded:
      case LineStreamDecoder::Status::kStopped: return core::Ok();
      case LineStreamDecoder::Status::kFailed: return decoder.error();
    }
  }
}

LineStreamDecoder::Status LineStreamDecoder::Feed(std::string_view bytes,
                                                  const std::function<bool(std::string_view)>& on_line) {
  if (failed_) {
    // An error answer: its Content-Length body, then the error.
    if (error_parser_.Feed(bytes) == net::HttpResponseParser::Status::kNeedMore) return Status::kMore;
    error_ = net::ApiErrorFromResponse(error_parser_.response());
    return Status::kFailed;
  }
  buf_.append(bytes);
  if (!in_body_) {
    size_t end = buf_.find("\r\n\r\n");
    if (end == std::string::npos) return Status::kMore;
    std::string head = buf_.substr(0, end + 4);
    buf_.erase(0, end + 4);
    size_t sp = head.find(' ');
    int status = sp == std::string::npos ? 0 : std::atoi(head.c_str() + sp + 1);
    std::string lower;
    for (char c : head) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    chunked_ = lower.find("transfer-encoding: chunked") != std::string::npos;
    in_body_ = true;
    if (status != 200) {
      failed_ = true;
      std::string rest;
      rest.swap(buf_);
      return Feed(head + rest, on_line);
    }
  }
  // Decode chunks into `pending_`, then hand over complete lines.
  bool ended = false;
  while (!buf_.empty()) {
    if (!chunked_) {
      pending_ += buf_;
      buf_.clear();
      break;
    }
    if (chunk_crlf_) {
      if (buf_.size() < 2) break;
      buf_.erase(0, 2);
      chunk_crlf_ = false;
      continue;
    }
    if (chunk_left_ == 0) {
      size_t eol = buf_.find("\r\n");
      if (eol == std::string::npos) break;
      chunk_left_ = std::strtoul(buf_.substr(0, eol).c_str(), nullptr, 16);
      buf_.erase(0, eol + 2);
      if (chunk_left_ == 0) {
        ended = true;
        break;
      }
      continue;
    }
    size_t take = std::min(chunk_left_, buf_.size());
    pending_.append(buf_, 0, take);
    buf_.erase(0, take);
    chunk_left_ -= take;
    if (chunk_left_ == 0) chunk_crlf_ = true;
  }
  size_t nl;
  while ((nl = pending_.find('\n')) != std::string::npos) {
    std::string line = pending_.substr(0, nl);
    pending_.erase(0, nl + 1);
    if (!line.empty() && !on_line(line)) return Status::kStopped;
  }
  if (ended) {
    if (!pending_.empty()) on_line(pending_);
    pending_.clear();
    return Status::kEnded;
  }
  return Status::kMore;
}

int ReportError(const core::Error& error) {
  // A message can quote agent text (a pane title, a question): made visible.
  std::fprintf(stderr, "agtmux: %s\n", core::VisibleText(error.ToString(), {.keep_newlines = true}).c_str());
  if (error.code == core::Err::kDaemonUnreachable) {
    // After a start that failed, starting it again is no advice.
    if (error.message.rfind(kDidNotStart, 0) != 0)
      std::fprintf(stderr, "agtmux: start the daemon with `agtmux daemon start` (or run `agtmuxd` in a terminal)\n");
    return 3;
  }
  return 1;
}

}  // namespace agt::cli
