// libagtcore/net: the HTTP response parser, the blocking client against a
// real Unix socket, the spool files, and the tmux identity parsers.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "libagtcore/event_codec.h"
#include "libagtcore/net/http_message.h"
#include "libagtcore/net/spool.h"
#include "libagtcore/net/tmux_identity.h"
#include "libagtcore/net/unix_http_client.h"

namespace agt::net {
namespace {

std::string TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string t = std::string(base ? base : "/tmp") + "/agtmux-net-XXXXXX";
  AGT_CHECK(::mkdtemp(t.data()) != nullptr);
  return t;
}

TEST(HttpResponseParser, ContentLengthAcrossEverySplit) {
  const std::string wire =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
      "{\"ok\":true}";
  for (size_t cut = 0; cut <= wire.size(); ++cut) {
    HttpResponseParser p;
    auto st = p.Feed(std::string_view(wire).substr(0, cut));
    if (cut < wire.size()) {
      ASSERT_EQ(st, HttpResponseParser::Status::kNeedMore) << cut;
      st = p.Feed(std::string_view(wire).substr(cut));
    }
    ASSERT_EQ(st, HttpResponseParser::Status::kDone) << cut;
    EXPECT_EQ(p.response().status, 200);
    EXPECT_EQ(p.response().Header("content-type"), "application/json");
    EXPECT_EQ(p.response().body, "{\"ok\":true}");
  }
}

TEST(HttpResponseParser, ChunkedAndCloseDelimited) {
  HttpResponseParser p;
  EXPECT_EQ(p.Feed("HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n"
                   "3;x=y\r\nefg\r\n0\r\n\r\n"),
            HttpResponseParser::Status::kDone);
  EXPECT_EQ(p.response().status, 503);
  EXPECT_EQ(p.response().reason, "Busy");
  EXPECT_EQ(p.response().body, "abcdefg");

  HttpResponseParser q;
  EXPECT_EQ(q.Feed("HTTP/1.0 200 OK\r\n\r\npart1"), HttpResponseParser::Status::kNeedMore);
  EXPECT_EQ(q.Feed("part2"), HttpResponseParser::Status::kNeedMore);
  EXPECT_EQ(q.Finish(), HttpResponseParser::Status::kDone);
  EXPECT_EQ(q.response().body, "part1part2");
}

TEST(HttpResponseParser, ErrorsNameTheProblem) {
  HttpResponseParser a;
  EXPECT_EQ(a.Feed("SMTP 220 hi\r\n\r\n"), HttpResponseParser::Status::kError);
  EXPECT_NE(a.error().find("bad status line"), std::string::npos);
  HttpResponseParser b;
  EXPECT_EQ(b.Feed("HTTP/1.1 200 OK\r\nContent-Length: x1\r\n\r\n"),
            HttpResponseParser::Status::kError);
  EXPECT_NE(b.error().find("Content-Length"), std::string::npos);
  HttpResponseParser c;
  EXPECT_EQ(c.Feed("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab"),
            HttpResponseParser::Status::kNeedMore);
  EXPECT_EQ(c.Finish(), HttpResponseParser::Status::kError);
  EXPECT_NE(c.error().find("middle of the body"), std::string::npos);
}

TEST(HttpMessage, FormatsRequestsAndApiErrors) {
  HttpRequest r;
  r.method = "POST";
  r.path = "/v1/events";
  r.content_type = "application/json";
  r.body = "{}";
  EXPECT_EQ(FormatHttpRequest(r),
            "POST /v1/events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            "Content-Length: 2\r\n\r\n{}");
  HttpResponse resp;
  resp.status = 400;
  resp.body = R"({"schema_version":1,"error":{"code":"E_PAYLOAD_INVALID","message":"field x"}})";
  core::Error e = ApiErrorFromResponse(resp);
  EXPECT_EQ(e.code, core::Err::kPayloadInvalid);
  EXPECT_EQ(e.message, "field x");
  resp.status = 502;
  resp.reason = "Bad Gateway";
  resp.body = "<html>";
  e = ApiErrorFromResponse(resp);
  EXPECT_EQ(e.code, core::Err::kDaemonUnreachable);
  EXPECT_NE(e.message.find("502"), std::string::npos);
}

/// A one-shot server on a real Unix socket: reads a request, answers `reply`.
class OneShotServer {
 public:
  OneShotServer(const std::string& path, std::string reply, bool answer = true) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    AGT_CHECK(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    AGT_CHECK(::listen(fd_, 4) == 0);
    thread_ = std::thread([this, reply, answer] {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      for (;;) {
        ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        request_.append(buf, static_cast<size_t>(n));
        const size_t h = request_.find("\r\n\r\n");
        if (h == std::string::npos) continue;
        const size_t cl = request_.find("Content-Length: ");
        const size_t len = cl == std::string::npos ? 0 : std::stoul(request_.substr(cl + 16));
        if (request_.size() >= h + 4 + len) break;
      }
      if (answer) {
        (void)!::write(c, reply.data(), reply.size());
      } else {
        ::read(c, buf, sizeof buf);  // hold the connection until the client gives up
      }
      ::close(c);
    });
  }
  ~OneShotServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  std::string request_;

 private:
  std::string path_;
  int fd_;
  std::thread thread_;
};

TEST(UnixHttpClient, PostsAndReadsTheAnswer) {
  const std::string dir = TempDir();
  UnixHttpClientOptions o;
  o.socket_path = dir + "/s.sock";
  std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  {
    OneShotServer srv(o.socket_path, reply);
    HttpRequest r;
    r.method = "POST";
    r.path = "/v1/events";
    r.content_type = "application/json";
    r.body = "{\"events\":[]}";
    auto resp = HttpCall(o, r);
    ASSERT_TRUE(resp.ok()) << resp.error().ToString();
    EXPECT_EQ(resp->status, 200);
    EXPECT_EQ(resp->body, "ok");
    // Wait for the server thread by destroying it, then check what it read.
  }
  ::rmdir(dir.c_str());
}

TEST(UnixHttpClient, MissingSocketAndSilentServer) {
  const std::string dir = TempDir();
  UnixHttpClientOptions o;
  o.socket_path = dir + "/absent.sock";
  auto r = HttpCall(o, HttpRequest{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kDaemonUnreachable);
  EXPECT_NE(r.error().message.find("absent.sock"), std::string::npos);

  o.socket_path = dir + "/silent.sock";
  o.read_timeout = 100 * core::kNsPerMs;
  {
    OneShotServer srv(o.socket_path, "", /*answer=*/false);
    r = HttpCall(o, HttpRequest{});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, core::Err::kTimeout);
  }
  ::rmdir(dir.c_str());
}

// Seen in the chaos suite (tests/chaos/hostile_clients_test.cc): under a
// connection flood the daemon's listen backlog is full for a moment, a
// non-blocking connect fails with EAGAIN and leaves the socket unconnected
// (a Unix socket is never "connecting"), and the request then failed with
// "Transport endpoint is not connected". The connect is tried again until
// the connect deadline.
TEST(UnixHttpClient, AFullListenBacklogIsWaitedOutWithinTheConnectDeadline) {
  const std::string dir = TempDir();
  const std::string path = dir + "/busy.sock";
  int lfd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(lfd, 0), 0);
  // Fill the backlog; the fillers go away but stay queued until accepted.
  int queued = 0;
  for (; queued < 64; ++queued) {
    int c = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int rc = ::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::close(c);
    if (rc != 0) break;
  }
  ASSERT_LT(queued, 64) << "the backlog never filled";
  // The server starts accepting 300 ms later and answers the real request.
  std::thread server([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (;;) {
      int c = ::accept(lfd, nullptr, nullptr);
      if (c < 0) return;
      std::string got;
      char buf[4096];
      ssize_t n;
      while (got.find("\r\n\r\n") == std::string::npos && (n = ::read(c, buf, sizeof buf)) > 0)
        got.append(buf, static_cast<size_t>(n));
      if (got.find("\r\n\r\n") != std::string::npos) {
        const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        (void)!::write(c, reply.data(), reply.size());
        ::close(c);
        return;
      }
      ::close(c);  // a filler: EOF without a request
    }
  });
  UnixHttpClientOptions o;
  o.socket_path = path;
  o.connect_timeout = 5 * core::kNsPerSec;
  HttpRequest r;
  r.method = "GET";
  r.path = "/v1/health";
  auto resp = HttpCall(o, r);
  ::shutdown(lfd, SHUT_RDWR);  // the server's accept returns if the client gave up
  server.join();
  ::close(lfd);
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
  ASSERT_TRUE(resp.ok()) << resp.error().ToString();
  EXPECT_EQ(resp->status, 200);
}

TEST(Spool, NamesRoundTripAndOthersAreIgnored) {
  SpoolName n{"wrapper", 4242, "01JABCDEFGHJKMNPQRSTVWXYZ0"};
  EXPECT_EQ(FormatSpoolName(n), "wrapper-4242-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl");
  SpoolName back;
  ASSERT_TRUE(ParseSpoolName(FormatSpoolName(n), &back));
  EXPECT_EQ(back, n);
  ASSERT_TRUE(ParseSpoolName("codex-notify-7-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", &back));
  EXPECT_EQ(back.source, "codex-notify");
  EXPECT_FALSE(ParseSpoolName("wrapper-x-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", &back));
  EXPECT_FALSE(ParseSpoolName("wrapper-1-short.jsonl", &back));
  EXPECT_FALSE(ParseSpoolName("wrapper-1-01JABCDEFGHJKMNPQRSTVWXYZ0.json", &back));
}

TEST(Spool, AppendListReadDelete) {
  const std::string dir = TempDir() + "/state/spool";
  core::Event e;
  e.event_id = "01JABCDEFGHJKMNPQRSTVWXYZ0";
  e.event_type = "state_changed";
  e.source = core::Source::kWrapper;
  e.dedupe_key = "k1";
  e.runtime_id = "r1";
  e.event_time = 1700000000 * core::kNsPerSec;
  e.signal = core::Signal{};
  e.signal->state = core::State::kRunning;
  auto w2 = SpoolWriter::Open(dir, {"wrapper", 2, "01JB0000000000000000000000"});
  auto w1 = SpoolWriter::Open(dir, {"wrapper", 9, "01JA0000000000000000000000"});
  ASSERT_TRUE(w1.ok() && w2.ok());
  ASSERT_TRUE((*w1)->Append(core::EncodeEvent(e)).ok());
  e.dedupe_key = "k2";
  ASSERT_TRUE((*w1)->Append(core::EncodeEvent(e)).ok());
  struct stat st {};
  ASSERT_EQ(::stat((*w1)->path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  { std::ofstream(dir + "/README") << "not a spool file"; }
  // A torn last line (a crash mid-append) is not an event.
  { std::ofstream((*w1)->path(), std::ios::app) << "{\"event_id\":\"tor"; }

  auto files = ListSpool(dir);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].name.pid, 9);  // older ULID first
  auto events = ReadSpoolEvents((*files)[0].path);
  ASSERT_TRUE(events.ok()) << events.error().ToString();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].dedupe_key, "k1");
  EXPECT_EQ((*events)[1].dedupe_key, "k2");
  EXPECT_EQ(ReadSpoolLines((*files)[0].path)->size(), 2u);

  { std::ofstream((*files)[1].path) << "{\"not\":\"an event\"}\n"; }
  auto bad = ReadSpoolEvents((*files)[1].path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(":1: "), std::string::npos) << bad.error().message;

  ASSERT_TRUE(DeleteSpoolFile((*files)[0].path).ok());
  ASSERT_TRUE(DeleteSpoolFile((*files)[0].path).ok());  // already gone: fine
  EXPECT_EQ(ListSpool(dir)->size(), 1u);
  EXPECT_EQ(ListSpool(dir + "/nowhere")->size(), 0u);
}

core::Event SpoolEvent(const std::string& key) {
  core::Event e;
  e.event_id = "01JABCDEFGHJKMNPQRSTVWXYZ0";
  e.event_type = "state_changed";
  e.source = core::Source::kWrapper;
  e.dedupe_key = key;
  e.runtime_id = "r1";
  e.event_time = 1700000000 * core::kNsPerSec;
  return e;
}

TEST(Spool, ALineThatIsNotAnEventCostsOnlyItself) {
  const std::string dir = TempDir() + "/spool";
  auto w = SpoolWriter::Open(dir, {"hook", 5, "01JA0000000000000000000000"});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(core::EncodeEvent(SpoolEvent("k1"))).ok());
  { std::ofstream((*w)->path(), std::ios::app) << "{\"not\":\"an event\"}\n" << std::string(100, '[') << "\n"; }
  ASSERT_TRUE((*w)->Append(core::EncodeEvent(SpoolEvent("k2"))).ok());
  { std::ofstream((*w)->path(), std::ios::app) << "{\"event_id\":\"tor"; }
  auto c = ReadSpool((*w)->path());
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  ASSERT_EQ(c->events.size(), 2u);
  EXPECT_EQ(c->events[0].dedupe_key, "k1");
  EXPECT_EQ(c->events[1].dedupe_key, "k2");
  ASSERT_EQ(c->bad.size(), 2u);
  EXPECT_EQ(c->bad[0].line_no, 2);
  EXPECT_EQ(c->bad[0].text, "{\"not\":\"an event\"}");
  EXPECT_EQ(c->bad[1].line_no, 3);
  EXPECT_NE(c->bad[1].error.find("nested deeper than"), std::string::npos) << c->bad[1].error;
  EXPECT_TRUE(c->torn_tail);
}

TEST(Spool, AppendsStopAtTheCapOfTheWholeDirectory) {
  const std::string dir = TempDir() + "/spool";
  const std::string line = core::EncodeEvent(SpoolEvent("k"));
  const int64_t cap = static_cast<int64_t>(line.size() + 1) * 3 + 10;
  // Both measure the directory before every append (remeasure_after 0).
  auto a = SpoolWriter::Open(dir, {"wrapper", 5, "01JA0000000000000000000000"}, cap, 0);
  auto b = SpoolWriter::Open(dir, {"hook", 6, "01JB0000000000000000000000"}, cap, 0);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE((*a)->Append(line).ok());
  EXPECT_TRUE((*b)->Append(line).ok());
  EXPECT_TRUE((*a)->Append(line).ok());
  // The fourth line would pass the cap, counting both writers' files.
  core::Status full = (*b)->Append(line);
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.error().message.find("spool full"), std::string::npos) << full.error().message;
  EXPECT_LE(SpoolBytes(dir), cap);
  // Once a file is drained there is room again.
  ASSERT_TRUE(DeleteSpoolFile((*a)->path()).ok());
  EXPECT_TRUE((*b)->Append(line).ok());
  EXPECT_EQ(SpoolMaxBytes([](const char*) -> const char* { return "4096"; }), 4096);
  EXPECT_EQ(SpoolMaxBytes([](const char*) -> const char* { return "x"; }), kDefaultSpoolMaxBytes);
}

TEST(Spool, AWriteThatFailsHalfWayIsCutBackOff) {
  // RLIMIT_FSIZE makes write() stop part-way through a line (then fail
  // with EFBIG): the part must not stay in the file, or the next line
  // would be glued to it and both be lost.
  const std::string dir = TempDir() + "/spool";
  auto w = SpoolWriter::Open(dir, {"wrapper", 7, "01JA0000000000000000000000"});
  ASSERT_TRUE(w.ok());
  const std::string line = core::EncodeEvent(SpoolEvent("first"));
  ASSERT_TRUE((*w)->Append(line).ok());
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  struct sigaction ign {}, prev {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGXFSZ, &ign, &prev);
  struct rlimit lim = old;
  lim.rlim_cur = line.size() + 1 + line.size() / 2;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &lim), 0);
  core::Status st = (*w)->Append(core::EncodeEvent(SpoolEvent("torn")));
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::sigaction(SIGXFSZ, &prev, nullptr);
  ASSERT_FALSE(st.ok());
  ASSERT_TRUE((*w)->Append(core::EncodeEvent(SpoolEvent("third"))).ok());
  auto c = ReadSpool((*w)->path());
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->bad.empty()) << c->bad.front().text;
  EXPECT_FALSE(c->torn_tail);
  ASSERT_EQ(c->events.size(), 2u);
  EXPECT_EQ(c->events[1].dedupe_key, "third");
}

TEST(Spool, DropRecordsAreWrittenWholeAndListed) {
  const std::string dir = TempDir() + "/spool";
  ASSERT_TRUE(WriteDropRecord(dir, {"hook", 41, "01JA0000000000000000000000"}, 3).ok());
  ASSERT_TRUE(WriteDropRecord(dir, {"hook", 41, "01JA0000000000000000000000"}, 5).ok());
  { std::ofstream(dir + "/wrapper-42-01JB0000000000000000000000.dropped") << "junk"; }
  auto r = ListDropRecords(dir);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  int64_t total = 0;
  for (const DropRecord& d : *r) total += d.count;
  EXPECT_EQ(total, 5);
  EXPECT_EQ(ListSpool(dir)->size(), 0u);  // records are no spool files
}

TEST(TmuxIdentity, ParsesTmuxEnv) {
  auto e = ParseTmuxEnv("/tmp/tmux-1000/default,1234,0");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->socket_path, "/tmp/tmux-1000/default");
  EXPECT_EQ(e->server_pid, 1234);
  EXPECT_EQ(e->session, "0");
  e = ParseTmuxEnv("/tmp/odd,dir/sock,77,$3");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->socket_path, "/tmp/odd,dir/sock");
  EXPECT_EQ(e->server_pid, 77);
  EXPECT_FALSE(ParseTmuxEnv("").ok());
  EXPECT_FALSE(ParseTmuxEnv("/sock").ok());
  auto bad = ParseTmuxEnv("/sock,abc,0");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("field pid"), std::string::npos);
}

TEST(TmuxIdentity, BootIdFromProcStat) {
  core::MemoryFileReader fs;
  // A command name with spaces and parentheses, as /proc shows it.
  fs.files["/proc/77/stat"] =
      "77 (tmux: server (x) y) S 1 77 77 0 -1 4194560 300 0 0 0 5 3 0 0 20 0 1 0 "
      "123456 9000000 400 18446744073709551615\n";
  auto id = TmuxServerBootId(77, fs);
  ASSERT_TRUE(id.ok()) << id.error().ToString();
  EXPECT_EQ(*id, "77-123456");
  EXPECT_EQ(TmuxServerBootId(78, fs).error().code, core::Err::kNotFound);
  fs.files["/proc/79/stat"] = "79 (x) S 1 2 3\n";
  EXPECT_FALSE(TmuxServerBootId(79, fs).ok());
}

TEST(TmuxIdentity, RealProcMatchesFake) {
  // The real reader on our own process: the same parser gives a stable id.
  auto a = TmuxServerBootId(::getpid(), core::RealFileReader());
  auto b = TmuxServerBootId(::getpid(), core::RealFileReader());
  ASSERT_TRUE(a.ok()) << a.error().ToString();
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(a->rfind(std::to_string(::getpid()) + "-", 0), 0u);
}

}  // namespace
}  // namespace agt::net
