// Chaos: 100 writers stream events at once while 50 watch clients are
// connected, one of which never reads (issue 14, the chaos suite).
//
// The writers speak the wire protocol `agtmux wrap` uses (POST /v1/events,
// batches; docs/api.md), each from its own thread with its own runtime and
// pane: 100 real wrappers would each need a PTY and an agent process, which
// on a 2-core machine measures the machine, not the daemon. The 49 reading
// watchers must keep receiving and end with the view /v1/panes shows; the
// one that never reads must be closed once 8 MiB are queued for it
// (docs/api.md, Limits), so that the daemon's memory stays bounded, and
// must no longer count in /v1/health's `watchers`; and every acknowledged
// event is in agtmux.db.
#include <gtest/gtest.h>
#include <poll.h>

#include <thread>

#include "tests/chaos/chaos_util.h"

namespace agt::chaos {
namespace {

using test::Daemon;
using test::PollUntil;
using test::TestEnv;

/// True when the peer closed `fd`, read or not (POLLHUP / POLLRDHUP).
bool PeerHungUp(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

TEST(ChaosFlood, HundredWritersAndFiftyWatchersOneNeverReading) {
  TestEnv env;
  constexpr int kWriters = 100, kWatchers = 50, kMaxBatches = 400;
  Daemon d(env, {"--no-observe"});
  ASSERT_TRUE(d.WaitReady());
  std::vector<std::unique_ptr<WatchClient>> watchers;
  for (int i = 0; i < kWatchers - 1; ++i)
    watchers.push_back(std::make_unique<WatchClient>(env.socket(), "?interval=1s"));
  // The one that never reads: the smallest receive buffer, never drained.
  WatchClient slow(env.socket(), "?interval=1s", 1);
  for (auto& w : watchers) ASSERT_TRUE(w->PumpUntil([&] { return w->lines > 0; }, 10000)) << "no snapshot";
  const long rss_before = RssKib(d.pid());
  ASSERT_GT(rss_before, 0);

  std::atomic<bool> stop{false}, slow_closed{false};
  std::atomic<long> rss_max{rss_before};  // printed only (see below)
  Acked acked;
  std::thread readers([&] {
    std::vector<pollfd> fds;
    while (!stop) {
      fds.clear();
      for (auto& w : watchers) fds.push_back({w->fd(), POLLIN, 0});
      poll(fds.data(), fds.size(), 50);
      for (auto& w : watchers) w->Pump();
      rss_max = std::max<long>(rss_max, RssKib(d.pid()));
      if (PeerHungUp(slow.fd())) slow_closed = true;
    }
  });
  // Writers go on until the slow watcher is closed (enough was queued for
  // it), at most kMaxBatches each.
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] { StreamEvents(d, w, "01JK", 4, kMaxBatches, slow_closed, &acked, 1000); });
  for (auto& t : writers) t.join();
  const bool closed_during_writes = slow_closed;
  EXPECT_EQ(acked.refused, 0);

  // The readers converge on what /v1/panes shows, which is each writer's
  // last acknowledged state.
  const auto final_view = PanesView(d);
  {
    std::lock_guard<std::mutex> l(acked.mu);
    EXPECT_EQ(final_view, acked.last_state) << "/v1/panes is not the last acknowledged state of each pane";
  }
  EXPECT_TRUE(PollUntil([&] {
    for (auto& w : watchers)
      if (w->view != final_view) return false;
    return true;
  }, 20000)) << "a reading watcher did not receive every change";
  stop = true;
  readers.join();
  for (size_t i = 0; i < watchers.size(); ++i) EXPECT_FALSE(watchers[i]->eof) << "reading watcher " << i << " was closed";

  std::printf("flood: %ld batches acknowledged (%zu events); a reading watcher received %zu bytes; "
              "RSS %ld KiB before, %ld KiB at most\n",
              acked.batches.load(), acked.ids.size(), watchers[0]->bytes, rss_before, rss_max.load());
  // The daemon's memory is bounded by closing the stream that does not
  // read once 8 MiB are queued for it; that is what is asserted here. Its
  // RSS is printed, not bounded: under this load it grows by about 37 MiB
  // with no slow watcher at all (SQLite's cache, connection buffers, the
  // heap), measured, so at the traffic a cheap test makes an RSS bound
  // could not tell a capped queue from an uncapped one.
  // bench/agg/chaos_bench.cc prints the RSS under this attack.
  EXPECT_TRUE(closed_during_writes) << "the watcher that never reads was not closed after "
                                    << watchers[0]->bytes << " bytes were sent to each reader";
  auto watching = d.Call("GET", "/v1/health");
  ASSERT_TRUE(watching.ok());
  rapidjson::Document h;
  h.Parse(watching->body.c_str());
  EXPECT_EQ(h["watchers"].GetInt64(), kWatchers - 1) << "the closed stream is still counted";

  // Every acknowledged event is in agtmux.db.
  std::string error;
  const auto stored = StoredIds(env, Runtimes(kWriters), &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(Missing(acked.ids, stored), 0u) << "of " << acked.ids.size() << " acknowledged events";
  auto health = d.Call("GET", "/v1/health");
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
}

}  // namespace
}  // namespace agt::chaos
