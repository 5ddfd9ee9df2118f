// Deferred answers of the HTTP server (Exchange::Defer): an answer given
// later from the loop reaches its client, requests pipelined behind it are
// answered after it and in order, a client that hangs up first costs
// nothing (the late answer is dropped; ASan runs this in CI), and the
// request deadlines do not cut a deferred answer short. The server runs on
// its own loop thread; the test is its client over a real Unix socket.
#include <gtest/gtest.h>
#include <unistd.h>
#include <uv.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>

#include "aggregator/http/http_server.h"
#include "tests/agg/daemon_harness.h"

namespace agt::agg {
namespace {

using test::PollUntil;
using test::RawConn;

/// An HttpServer on its own loop thread. GET /slow is answered `delay_ms`
/// later by a timer; anything else at once.
class DeferredServer {
 public:
  explicit DeferredServer(int64_t delay_ms, int64_t header_timeout_ms = 5000) : delay_ms_(delay_ms) {
    char tmpl[] = "/tmp/agtmux-deferred-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ + "/s.sock";
    uv_loop_init(&loop_);
    uv_async_init(&loop_, &stop_, [](uv_async_t* a) {
      auto* self = static_cast<DeferredServer*>(a->data);
      self->server_->CloseAll();
      uv_close(reinterpret_cast<uv_handle_t*>(a), nullptr);
    });
    stop_.data = this;
    ServerOptions o;
    o.allowed_uid = getuid();
    o.header_timeout_ms = header_timeout_ms;
    server_ = std::make_unique<HttpServer>(&loop_, o, [this](const HttpRequest& req, Exchange& ex) {
      if (req.path != "/slow") return ex.Reply({200, "text/plain", "fast"});
      auto* t = new Pending{{}, ex.Defer(), this};
      uv_timer_init(&loop_, &t->timer);
      t->timer.data = t;
      uv_timer_start(&t->timer, [](uv_timer_t* h) {
        auto* p = static_cast<Pending*>(h->data);
        p->owner->dropped_ += p->answer->closed();
        p->answer->Reply({200, "text/plain", "slow"});
        ++p->owner->answered_;
        uv_close(reinterpret_cast<uv_handle_t*>(h), [](uv_handle_t* h) { delete static_cast<Pending*>(h->data); });
      }, static_cast<uint64_t>(delay_ms_), 0);
    });
    EXPECT_TRUE(server_->Listen(path_).ok());
    thread_ = std::thread([this] { uv_run(&loop_, UV_RUN_DEFAULT); });
  }
  ~DeferredServer() {
    uv_async_send(&stop_);
    thread_.join();
    uv_run(&loop_, UV_RUN_DEFAULT);  // the close callbacks (nothing else is left)
    server_.reset();
    uv_loop_close(&loop_);
    std::filesystem::remove_all(dir_);
  }
  const std::string& path() const { return path_; }
  int answered() const { return answered_; }
  int dropped() const { return dropped_; }

 private:
  struct Pending {
    uv_timer_t timer;
    std::shared_ptr<DeferredReply> answer;
    DeferredServer* owner;
  };
  int64_t delay_ms_;
  std::string dir_, path_;
  uv_loop_t loop_{};
  uv_async_t stop_{};
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  std::atomic<int> answered_{0}, dropped_{0};
};

const char kSlow[] = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n";
const char kFast[] = "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n";

TEST(DeferredReply, PipelinedRequestsAreAnsweredInOrderBehindIt) {
  DeferredServer s(200);
  RawConn c(s.path());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c.Send(std::string(kSlow) + kFast));
  std::string got = c.ReadUntil("fast", 5000);
  const size_t slow = got.find("\r\n\r\nslow"), fast = got.find("\r\n\r\nfast");
  ASSERT_NE(slow, std::string::npos) << got;
  ASSERT_NE(fast, std::string::npos) << got;
  EXPECT_LT(slow, fast) << got;
}

TEST(DeferredReply, OtherConnectionsAreAnsweredWhileItIsOwed) {
  DeferredServer s(3000);
  RawConn slow(s.path()), fast(s.path());
  ASSERT_TRUE(slow.Send(kSlow));
  ASSERT_TRUE(fast.Send(kFast));
  EXPECT_NE(fast.ReadUntil("fast", 2000).find("fast"), std::string::npos);
  EXPECT_EQ(s.answered(), 0);
  EXPECT_NE(slow.ReadUntil("slow", 5000).find("slow"), std::string::npos);
}

TEST(DeferredReply, AnAnswerToAClientThatHungUpIsDropped) {
  DeferredServer s(300);
  {
    RawConn c(s.path());
    ASSERT_TRUE(c.Send(kSlow));
  }  // closed: the server reads the request, then the hang-up
  ASSERT_TRUE(PollUntil([&] { return s.answered() == 1; }, 5000));
  EXPECT_EQ(s.dropped(), 1);
  RawConn c(s.path());
  ASSERT_TRUE(c.Send(kFast));
  EXPECT_NE(c.ReadUntil("fast", 2000).find("fast"), std::string::npos);
}

TEST(DeferredReply, TheRequestDeadlinesDoNotCutItShort) {
  // Whole-request deadline 6 x 100 ms: the answer comes after 1 s.
  DeferredServer s(1000, 100);
  RawConn c(s.path());
  ASSERT_TRUE(c.Send(kSlow));
  std::string got = c.ReadUntil("slow", 5000);
  EXPECT_NE(got.find("HTTP/1.1 200"), std::string::npos) << got;
  EXPECT_EQ(got.find("408"), std::string::npos) << got;
}

}  // namespace
}  // namespace agt::agg
