// Chaos: slow and malformed clients all at once (issue 14, the chaos suite):
// slowloris headers, a body trickled byte by byte, deeply nested JSON,
// headers past the 16 KiB limit, and a flood of connections past the cap of
// 256, while a normal client keeps reading /v1/panes. Every one of the
// normal client's calls must be answered 200 with the pane it expects, and
// each attacker gets the answer docs/api.md (Limits, Errors) gives it.
// How fast the normal client is answered is a figure of
// bench/agg/chaos_bench.cc, not asserted here.
#include <gtest/gtest.h>

#include <thread>

#include "tests/chaos/chaos_util.h"

namespace agt::chaos {
namespace {

using test::Daemon;
using test::PollUntil;
using test::RawConn;
using test::TestEnv;
using Clock = std::chrono::steady_clock;

TEST(ChaosHostileClients, ANormalClientIsAnsweredWhileSlowAndMalformedClientsAttack) {
  TestEnv env;
  // A 1 s header deadline (6 s for a whole request) so the slow clients are
  // cut within the test.
  Daemon d(env, {"--no-observe", "--header-timeout", "1s"});
  ASSERT_TRUE(d.WaitReady());
  auto posted = d.Call("POST", "/v1/events",
                       Batch({Started(Id("01JM", 1, 0), 1),
                              test::StateEvent(Id("01JM", 1, 1), Runtime(1), Pane(1), "waiting_input", 1)}));
  ASSERT_TRUE(posted.ok());
  ASSERT_EQ(posted->status, 200) << posted->body;
  const std::map<std::string, std::string> expected = {{Pane(1), "waiting_input"}};

  std::atomic<bool> stop{false};
  std::atomic<int> normal_calls{0}, normal_failures{0};
  std::string first_failure;
  std::mutex mu;
  std::thread normal([&] {
    while (!stop) {
      auto view = PanesView(d);
      ++normal_calls;
      if (view != expected) {
        ++normal_failures;
        std::lock_guard<std::mutex> l(mu);
        if (first_failure.empty()) first_failure = view.begin() == view.end() ? "(empty)" : view.begin()->second;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });

  // Slowloris: 50 connections sending their headers a byte at a time.
  std::vector<std::unique_ptr<RawConn>> loris;
  for (int i = 0; i < 50; ++i) loris.push_back(std::make_unique<RawConn>(env.socket()));
  // A body trickled byte by byte.
  RawConn trickle(env.socket());
  ASSERT_TRUE(trickle.Send("POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"));
  std::thread slow([&] {
    const std::string header = "GET /v1/panes HTTP/1.1\r\nX-Slow: " + std::string(200, 's') + "\r\n";
    for (size_t i = 0; i < header.size() && !stop; ++i) {
      for (auto& c : loris)
        if (c->ok()) c->Send(header.substr(i, 1));
      trickle.Send("[");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });

  // Deeply nested JSON, under the body cap: a clear 400 each time.
  std::vector<int> nested_status;
  for (int i = 0; i < 5; ++i) {
    auto r = d.Call("POST", "/v1/events", "{\"events\":" + std::string(900 * 1024, '['));
    nested_status.push_back(r.ok() ? r->status : -1);
  }
  // Headers past 16 KiB: 431.
  RawConn huge(env.socket());
  ASSERT_TRUE(huge.Send("GET /v1/panes HTTP/1.1\r\nX-Huge: " + std::string(64 * 1024, 'h') + "\r\n\r\n"));
  const std::string huge_answer = huge.ReadUntil("}\n", 10000);
  // A flood of connections past the cap, each with an unfinished request.
  std::vector<std::unique_ptr<RawConn>> flood;
  for (int i = 0; i < 400; ++i) {
    flood.push_back(std::make_unique<RawConn>(env.socket()));
    if (flood.back()->ok()) flood.back()->Send("GET /v1/health HTTP/1.1\r\n");
  }
  // The attack goes on for a while with the normal client reading.
  const int calls_before = normal_calls;
  ASSERT_TRUE(PollUntil([&] { return normal_calls >= calls_before + 100; }, 30000))
      << "the normal client's calls stopped during the flood";
  stop = true;
  slow.join();
  normal.join();

  EXPECT_EQ(normal_failures, 0) << "of " << normal_calls << " calls of /v1/panes; the first answered: "
                                << first_failure;
  for (int s : nested_status) EXPECT_EQ(s, 400) << "deeply nested JSON";
  EXPECT_NE(huge_answer.find("HTTP/1.1 431"), std::string::npos) << huge_answer.substr(0, 200);
  // The slow clients are cut at their deadlines with 408 (some may have
  // been closed earlier with 503 to make room for the flood).
  int cut = 0;
  for (auto& c : loris) {
    std::string got = c->ReadUntil("}\n", 10000);
    if (c->eof() || got.find("HTTP/1.1 408") != std::string::npos || got.find("HTTP/1.1 503") != std::string::npos)
      ++cut;
  }
  EXPECT_EQ(cut, 50) << "slowloris connections still open past their deadline";
  std::string t = trickle.ReadUntil("}\n", 10000);
  EXPECT_TRUE(t.find("HTTP/1.1 408") != std::string::npos || t.find("HTTP/1.1 503") != std::string::npos) << t;
  // No more than the cap stays open.
  int open = 0;
  EXPECT_TRUE(PollUntil([&] {
    open = 0;
    for (auto& c : flood)
      if (c->ok() && !c->PeerClosed()) ++open;
    return open <= 256;
  }, 20000)) << open << " flood connections still open";
  auto health = d.Call("GET", "/v1/health");
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(PanesView(d), expected);
}

}  // namespace
}  // namespace agt::chaos
