// WriteOwned and CloseAll on a real libuv loop over a socketpair: the bytes
// arrive, a write the close cancelled is called back before the close
// completes, and CloseAll frees only after every handle has closed. Under
// ASan a leaked or twice-freed request fails the test.
#include "libagtcore/uv/handles.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace agt::uv {
namespace {

struct Pair {
  uv_loop_t loop{};
  uv_pipe_t pipe{};
  int peer = -1;
  Pair() {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    uv_loop_init(&loop);
    uv_pipe_init(&loop, &pipe, 0);
    EXPECT_EQ(uv_pipe_open(&pipe, sv[0]), 0);
    peer = sv[1];
  }
  ~Pair() {
    uv_run(&loop, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop), 0) << "a handle or request outlived the test";
    close(peer);
  }
  uv_stream_t* stream() { return reinterpret_cast<uv_stream_t*>(&pipe); }
};

TEST(WriteOwned, DeliversTheBytesAndReportsSuccess) {
  Pair p;
  std::vector<int> statuses;
  std::string msg = "hello, agtmux";
  ASSERT_EQ(WriteOwned(p.stream(), msg, [&](int st) { statuses.push_back(st); }), 0);
  msg.assign(msg.size(), 'x');  // the request holds its own copy
  ASSERT_EQ(WriteOwned(p.stream(), "!"), 0);  // no callback wanted
  uv_run(&p.loop, UV_RUN_DEFAULT);
  EXPECT_EQ(statuses, std::vector<int>{0});
  char buf[64] = {};
  ssize_t n = read(p.peer, buf, sizeof buf);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "hello, agtmux!");
  bool closed = false;
  CloseAll({AsHandle(&p.pipe)}, [&] { closed = true; });
  uv_run(&p.loop, UV_RUN_DEFAULT);
  EXPECT_TRUE(closed);
}

TEST(WriteOwned, AWriteTheCloseCancelledIsCalledBackBeforeTheClose) {
  Pair p;
  // More than the socket buffers hold, to a peer that does not read: the
  // write stays queued until the close cancels it.
  std::vector<std::string> order;
  ASSERT_EQ(WriteOwned(p.stream(), std::string(16 << 20, 'z'),
                       [&](int st) { order.push_back(st == UV_ECANCELED ? "cancelled" : "status " + std::to_string(st)); }),
            0);
  uv_run(&p.loop, UV_RUN_NOWAIT);
  CloseAll({AsHandle(&p.pipe)}, [&] { order.push_back("closed"); });
  uv_run(&p.loop, UV_RUN_DEFAULT);
  EXPECT_EQ(order, (std::vector<std::string>{"cancelled", "closed"}));
}

TEST(CloseAll, CallsDoneOnceAfterTheLastHandleSkipsClosingOnes) {
  Pair p;
  auto* timer = new uv_timer_t;
  uv_timer_init(&p.loop, timer);
  int done = 0;
  CloseAll({AsHandle(timer), AsHandle(&p.pipe)}, [&] {
    ++done;
    delete timer;
  });
  EXPECT_EQ(done, 0);  // close callbacks run on the loop, not inside uv_close
  // Both are closing now: a second CloseAll has nothing to wait for.
  int again = 0;
  CloseAll({AsHandle(timer), AsHandle(&p.pipe), nullptr}, [&] { ++again; });
  EXPECT_EQ(again, 1);
  uv_run(&p.loop, UV_RUN_DEFAULT);
  EXPECT_EQ(done, 1);
}

TEST(CloseAndDelete, FreesTheHandleInItsCloseCallback) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  auto* timer = new uv_timer_t;
  uv_timer_init(&loop, timer);
  CloseAndDelete(timer);
  CloseAndDelete<uv_timer_t>(nullptr);
  uv_run(&loop, UV_RUN_DEFAULT);
  EXPECT_EQ(uv_loop_close(&loop), 0);
}

}  // namespace
}  // namespace agt::uv
