// EventEmitter on a real loop, a real socket and real files, for what the
// wrapper does when the daemon is away: every event is redacted before it
// is encoded (socket and spool alike); with no spool, memory is bounded
// and the events it had to drop are counted and told to the daemon with
// the next delivered batch; with a full spool, what could not be kept is
// counted in the spool's drop record at the end.
#include "wrap/event_emitter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "libagtcore/ids.h"
#include "libagtcore/net/spool.h"
#include "libagtcore/redact.h"
#include "tests/wrap/stand_in_daemon.h"
#include "tests/wrap/test_support.h"

namespace agt::wrap {
namespace {

using testing::StandInDaemon;
using testing::TempDir;

const char kKey[] = "ghp_qREfgCE9WratP86yr3uTRjjfrMN4H3k7mWFM";

core::Event StateEvent(int seq) {
  core::Event e;
  e.event_id = core::NewUlid(1700000000 * core::kNsPerSec + seq);
  e.event_type = "state_changed";
  e.source = core::Source::kWrapper;
  e.dedupe_key = "k" + std::to_string(seq);
  e.source_seq = seq;
  e.runtime_id = "rt-emitter-test";
  e.event_time = 1700000000 * core::kNsPerSec;
  e.signal = core::Signal{};
  e.signal->state = core::State::kRunning;
  e.signal->evidence = "export GH_TOKEN=" + std::string(kKey);
  e.signal->detail.choices = {"Yes, push with " + std::string(kKey)};
  return e;
}

bool RunUntil(uv_loop_t* loop, const std::function<bool()>& done, int timeout_ms = 5000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    uv_run(loop, UV_RUN_NOWAIT);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return done();
}

class EmitterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uv_loop_init(&loop_);
    auto r = core::Redactor::LoadBuiltin();
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    redactor_.emplace(std::move(*r));
    o_.socket_path = dir_.path() + "/d.sock";
    o_.spool_dir = dir_.path() + "/spool";
    o_.producer_pid = ::getpid();
    o_.retry_min_ms = 10;
    o_.retry_max_ms = 20;
    o_.redactor = &*redactor_;
  }
  void Finish(EventEmitter& em) {
    bool done = false;
    em.Flush(200, [&] { done = true; });
    EXPECT_TRUE(RunUntil(&loop_, [&] { return done; }));
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop_), 0);
  }
  TempDir dir_;
  uv_loop_t loop_{};
  std::optional<core::Redactor> redactor_;
  EventEmitterOptions o_;
};

TEST_F(EmitterTest, WithNoSpoolMemoryIsBoundedAndTheDropsReachTheDaemon) {
  { std::ofstream(o_.spool_dir) << "a file where the spool directory would be"; }
  o_.max_memory_events = 5;
  EventEmitter em(&loop_, o_);
  for (int seq = 1; seq <= 20; ++seq) em.Emit(StateEvent(seq));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return em.stats().dropped == 15; })) << em.stats().dropped;
  EXPECT_EQ(em.stats().spooled, 0);

  StandInDaemon daemon(o_.socket_path);
  ASSERT_TRUE(RunUntil(&loop_, [&] { return em.stats().delivered == 5; })) << em.stats().last_error;
  const std::vector<std::string> bodies = daemon.bodies();
  ASSERT_FALSE(bodies.empty());
  EXPECT_NE(bodies.front().find("\"dropped\":15"), std::string::npos) << bodies.front();
  EXPECT_EQ(em.stats().dropped_reported, 15);
  std::vector<core::Event> got = daemon.events();
  ASSERT_EQ(got.size(), 5u);
  // The first was on its way when the others came; of the rest, the
  // oldest were dropped.
  EXPECT_EQ(got[0].dedupe_key, "k1");
  EXPECT_EQ(got[1].dedupe_key, "k17");
  for (const std::string& b : bodies) EXPECT_EQ(b.find(kKey), std::string::npos) << b;
  EXPECT_EQ(got.front().signal->evidence, "export GH_TOKEN=[REDACTED:github_token]");
  Finish(em);
}

TEST_F(EmitterTest, AFullSpoolKeepsWhatFitsAndRecordsTheRest) {
  const std::string line = core::EncodeEvent(StateEvent(1));
  o_.max_spool_bytes = static_cast<int64_t>(line.size() + 1) * 2 + 40;  // two events
  o_.max_memory_events = 3;
  EventEmitter em(&loop_, o_);
  for (int seq = 1; seq <= 10; ++seq) em.Emit(StateEvent(seq));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return em.stats().spooled == 2; })) << em.stats().last_error;
  const std::string spool_file = em.spool_path();
  Finish(em);
  // Every event is in the spool or counted in the drop record.
  EXPECT_EQ(em.stats().delivered, 0);
  auto records = net::ListDropRecords(o_.spool_dir);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 1u);
  EXPECT_EQ(records->front().count, 8);
  EXPECT_EQ(em.stats().dropped, 8);
  EXPECT_EQ(em.stats().dropped_reported, 8);
  auto kept = net::ReadSpoolEvents(spool_file);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->size(), 2u);
  std::ifstream f(spool_file);
  std::string bytes((std::istreambuf_iterator<char>(f)), {});
  EXPECT_EQ(bytes.find(kKey), std::string::npos) << "the spool holds a secret";
}

}  // namespace
}  // namespace agt::wrap
