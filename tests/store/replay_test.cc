// Replay to the store (NFR-8): the same event stream applied through the
// real engine in many shuffled orders, with resent duplicates, must leave
// the same rows in every table. Surrogate keys and commit stamps are left
// out of the comparison (dump.h), and so are inbox rows of events that name
// their runtime: whether such an event waited in the inbox depends on
// arrival order by design, its stored row does not. The engine's own
// replay test covers its in-memory state; this one covers what persists.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "state/engine.h"
#include "state/store/store.h"
#include "tests/store/dump.h"
#include "tests/store/store_fixtures.h"
#include "tests/store/stream.h"

namespace agt::state {
namespace {

std::vector<core::Event> Stream() {
  storetest::StreamOptions so;
  so.seed = 7;
  so.events = 240;
  so.resend_new_id = false;  // a resend of the same envelope
  so.pane_bound_hooks = true;
  return storetest::GenerateStream(so);
}

// Applies `events` in order, committing every `batch` Effects together.
storetest::Dump RunStream(const std::vector<core::Event>& events, size_t batch) {
  auto store = Store::Open(storetest::Opts(":memory:"));
  EXPECT_TRUE(store.ok());
  Engine engine;
  std::vector<Effects> pending;
  core::TimeNs last = 0;
  for (const auto& e : events) {
    pending.push_back(engine.Apply(e, e.ingested_at));
    last = std::max(last, e.ingested_at);
    if (pending.size() >= batch) {
      auto st = (*store)->CommitBatch(pending, e.ingested_at);
      EXPECT_TRUE(st.ok()) << st.error().ToString();
      pending.clear();
    }
  }
  pending.push_back(engine.Tick(last + 60 * core::kNsPerSec));
  auto st = (*store)->CommitBatch(pending, last);
  EXPECT_TRUE(st.ok()) << st.error().ToString();
  std::set<std::string> skip;
  for (const auto& e : events) {
    if (!e.runtime_id.empty()) skip.insert(e.event_id);
  }
  return storetest::DumpStore((*store)->db(), skip);
}

TEST(ReplayToStore, StreamHasEveryKindOfRow) {
  const storetest::Dump d = RunStream(Stream(), 1);
  EXPECT_GT(d.at("events").size(), 150u);
  EXPECT_EQ(d.at("runtimes").size(), 5u);  // 4 panes + the restarted one
  EXPECT_EQ(d.at("states").size(), 4u);
  EXPECT_GE(d.at("candidates").size(), 12u);
  EXPECT_GE(d.at("runtime_source_cursors").size(), 12u);
  EXPECT_EQ(d.at("targets").size(), 1u);
  EXPECT_GT(d.at("event_inbox").size(), 5u);  // the pane-bound hooks
}

TEST(ReplayToStore, ShuffledOrdersGiveTheSameRows) {
  const std::vector<core::Event> stream = Stream();
  const storetest::Dump want = RunStream(stream, 1);
  const uint32_t base = std::random_device{}();
  for (uint32_t i = 0; i < 40; ++i) {
    const uint32_t seed = base + i;
    SCOPED_TRACE("shuffle seed " + std::to_string(seed));
    std::vector<core::Event> shuffled = stream;
    std::mt19937 rng(seed);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    // Duplicates: every tenth event arrives twice more, anywhere.
    for (size_t k = 0; k < stream.size(); k += 10) {
      shuffled.insert(shuffled.begin() + static_cast<std::ptrdiff_t>(rng() % shuffled.size()), stream[k]);
    }
    const storetest::Dump got = RunStream(shuffled, 1 + rng() % 32);
    for (const auto& [table, rows] : want) {
      ASSERT_EQ(got.at(table), rows) << "table " << table;
    }
  }
}

}  // namespace
}  // namespace agt::state
