// Store::LoadSnapshot against Engine::Snapshot: after a generated stream
// (wrapper, hooks, the poller, pane-bound hooks, stale marks of every kind,
// demotions, target health, resent duplicates) has been applied through the
// real engine and its Effects committed in random batches, the snapshot the
// store loads must equal the engine's, field for field, books included.
// The daemon restores from it, so a restarted engine must then behave
// exactly like one that never stopped.
#include <gtest/gtest.h>

#include <ostream>
#include <random>

#include "state/engine.h"
#include "state/store/store.h"
#include "tests/store/store_fixtures.h"
#include "tests/store/stream.h"

namespace agt::state {

// Readable failures (gtest finds these by argument-dependent lookup).
void PrintTo(const TimeMark& m, std::ostream* os) { *os << "(" << m.effective_time << "," << m.ingested_at << ")"; }
void PrintTo(const OrderKey& k, std::ostream* os) {
  *os << "{seq " << (k.source_seq ? std::to_string(*k.source_seq) : "-") << " t " << k.effective_time << " in "
      << k.ingested_at << " " << k.event_id << "}";
}
void PrintTo(const RuntimeBook& b, std::ostream* os) {
  *os << b.runtime_id << " max " << b.max_ingested << " demoted " << b.demoted_version << "@" << b.demoted_at
      << " stale";
  for (const TimeMark& m : b.stale) PrintTo(m, os);
  *os << " screen_wait ";
  PrintTo(b.marks.screen_wait, os);
  *os << " hook_turn ";
  PrintTo(b.marks.hook_turn, os);
}
void PrintTo(const TargetBook& b, std::ostream* os) {
  *os << b.target_id << " health " << b.has_health << ":" << static_cast<int>(b.health) << " key ";
  PrintTo(b.health_key, os);
  *os << " max " << b.max_ingested << " stale";
  for (const TimeMark& m : b.stale) PrintTo(m, os);
}
void PrintTo(const Cursor& c, std::ostream* os) {
  *os << c.runtime_id << "/" << core::SourceName(c.source) << " ";
  PrintTo(c.last, os);
}
void PrintTo(const Candidate& c, std::ostream* os) {
  *os << core::SourceName(c.source) << " " << core::StateName(c.signal.state) << " " << c.event_id << " seen "
      << c.seen_at << " stale " << c.stale << " ";
  PrintTo(c.key, os);
}

namespace {

std::vector<core::Event> Stream(uint32_t seed) {
  storetest::StreamOptions so;
  so.seed = seed;
  so.events = 300;
  so.pane_bound_hooks = true;
  so.books = true;
  return storetest::GenerateStream(so);
}

std::unique_ptr<Store> OpenStore(const std::string& path) {
  auto s = Store::Open(storetest::Opts(path, Durability::kNormal));
  EXPECT_TRUE(s.ok()) << s.error().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

// Applies `events` to `engine`, committing in batches of 1..32 drawn from `rng`.
void Ingest(Engine& engine, Store& store, const std::vector<core::Event>& events, std::mt19937& rng) {
  std::vector<Effects> pending;
  size_t want = 1 + rng() % 32;
  for (const auto& e : events) {
    pending.push_back(engine.Apply(e, e.ingested_at));
    if (pending.size() >= want) {
      auto st = store.CommitBatch(pending, e.ingested_at);
      ASSERT_TRUE(st.ok()) << st.error().ToString();
      pending.clear();
      want = 1 + rng() % 32;
    }
  }
  auto st = store.CommitBatch(pending, events.empty() ? 0 : events.back().ingested_at);
  ASSERT_TRUE(st.ok()) << st.error().ToString();
}

// Field by field first, so that a failure names the field.
void ExpectSameSnapshot(const EngineSnapshot& got, const EngineSnapshot& want) {
  EXPECT_EQ(got.runtimes, want.runtimes);
  EXPECT_EQ(got.cursors, want.cursors);
  EXPECT_EQ(got.states, want.states);
  EXPECT_EQ(got.pending, want.pending);
  EXPECT_EQ(got.target_health, want.target_health);
  EXPECT_EQ(got.candidates, want.candidates);
  EXPECT_EQ(got.dedupe_keys, want.dedupe_keys);
  ASSERT_EQ(got.runtime_books.size(), want.runtime_books.size());
  for (size_t i = 0; i < want.runtime_books.size(); ++i) {
    EXPECT_EQ(got.runtime_books[i], want.runtime_books[i]) << "runtime book " << want.runtime_books[i].runtime_id;
  }
  ASSERT_EQ(got.target_books.size(), want.target_books.size());
  for (size_t i = 0; i < want.target_books.size(); ++i) {
    EXPECT_EQ(got.target_books[i], want.target_books[i]) << "target book " << want.target_books[i].target_id;
  }
  EXPECT_TRUE(got == want);
}

TEST(SnapshotTest, StreamExercisesEveryBookField) {
  // Guards the other tests against a stream that leaves the books empty.
  storetest::TempDir dir;
  auto store = OpenStore(dir.File("agtmux.db"));
  ASSERT_TRUE(store);
  Engine engine;
  std::mt19937 rng(1);
  Ingest(engine, *store, Stream(3), rng);
  const EngineSnapshot snap = engine.Snapshot();
  bool demoted = false, runtime_stale_all = false, runtime_stale_one = false;
  for (const RuntimeBook& b : snap.runtime_books) {
    EXPECT_GT(b.max_ingested, 0);
    demoted |= b.demoted_version >= 0;
    int marked = 0;
    for (const TimeMark& m : b.stale) marked += m.empty() ? 0 : 1;
    runtime_stale_all |= marked == core::kSourceCount;
    runtime_stale_one |= marked == 1;
  }
  EXPECT_TRUE(demoted);
  EXPECT_TRUE(runtime_stale_all);
  EXPECT_TRUE(runtime_stale_one);
  ASSERT_EQ(snap.target_books.size(), 1u);
  const TargetBook& t = snap.target_books[0];
  EXPECT_TRUE(t.has_health);
  EXPECT_GT(t.max_ingested, 0);
  EXPECT_FALSE(t.stale[0].empty());
  bool stale_candidate = false;
  for (const auto& [c, id] : snap.candidates) stale_candidate |= c.stale;
  EXPECT_TRUE(stale_candidate);
}

TEST(SnapshotTest, LoadSnapshotEqualsEngineSnapshot) {
  for (uint32_t seed : {3u, 11u, 29u}) {
    SCOPED_TRACE("stream seed " + std::to_string(seed));
    storetest::TempDir dir;
    auto store = OpenStore(dir.File("agtmux.db"));
    ASSERT_TRUE(store);
    Engine engine;
    std::mt19937 rng(seed);
    Ingest(engine, *store, Stream(seed), rng);
    store.reset();  // what a restarted daemon reads
    store = OpenStore(dir.File("agtmux.db"));
    auto snap = store->LoadSnapshot();
    ASSERT_TRUE(snap.ok()) << snap.error().ToString();
    ExpectSameSnapshot(*snap, engine.Snapshot());
  }
}

TEST(SnapshotTest, ShuffledAndResentStreamsStillMatch) {
  const std::vector<core::Event> stream = Stream(5);
  const uint32_t base = std::random_device{}();
  bool saw_pending = false;
  for (uint32_t i = 0; i < 12; ++i) {
    const uint32_t seed = base + i;
    SCOPED_TRACE("shuffle seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::vector<core::Event> shuffled = stream;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    for (size_t k = 0; k < stream.size(); k += 7) {
      shuffled.insert(shuffled.begin() + static_cast<std::ptrdiff_t>(rng() % shuffled.size()),
                      stream[k]);
    }
    auto store = OpenStore(":memory:");
    ASSERT_TRUE(store);
    Engine engine;
    // A third of the way: events that came before their runtime's start
    // wait in the inbox.
    const auto third = shuffled.begin() + static_cast<std::ptrdiff_t>(shuffled.size() / 3);
    Ingest(engine, *store, std::vector<core::Event>(shuffled.begin(), third), rng);
    auto early = store->LoadSnapshot();
    ASSERT_TRUE(early.ok()) << early.error().ToString();
    ExpectSameSnapshot(*early, engine.Snapshot());
    saw_pending |= !early->pending.empty();
    Ingest(engine, *store, std::vector<core::Event>(third, shuffled.end()), rng);
    auto before = store->LoadSnapshot();
    ASSERT_TRUE(before.ok()) << before.error().ToString();
    ExpectSameSnapshot(*before, engine.Snapshot());
    const core::TimeNs later = stream.back().ingested_at + 60 * core::kNsPerSec;
    ASSERT_TRUE(store->Commit(engine.Tick(later), later).ok());
    auto snap = store->LoadSnapshot();
    ASSERT_TRUE(snap.ok()) << snap.error().ToString();
    ExpectSameSnapshot(*snap, engine.Snapshot());
  }
  EXPECT_TRUE(saw_pending) << "no shuffle left an event waiting in the inbox";
}

// A restart half-way: the engine restored from the store continues exactly
// like the one that never stopped (same dispositions, same snapshot).
TEST(SnapshotTest, RestoredEngineContinuesLikeTheUninterruptedOne) {
  const std::vector<core::Event> stream = Stream(17);
  storetest::TempDir dir;
  const size_t half = stream.size() / 2;
  Engine uninterrupted;
  {
    auto store = OpenStore(dir.File("agtmux.db"));
    ASSERT_TRUE(store);
    std::mt19937 rng(17);
    Ingest(uninterrupted, *store,
           std::vector<core::Event>(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(half)),
           rng);
  }
  auto store = OpenStore(dir.File("agtmux.db"));
  ASSERT_TRUE(store);
  auto snap = store->LoadSnapshot();
  ASSERT_TRUE(snap.ok());
  Engine restored;
  restored.Restore(*snap);
  ExpectSameSnapshot(restored.Snapshot(), uninterrupted.Snapshot());
  // The second half, resending the first half's events among it.
  std::vector<core::Event> rest(stream.begin() + static_cast<std::ptrdiff_t>(half), stream.end());
  for (size_t k = 0; k < half; k += 5) rest.insert(rest.begin() + static_cast<std::ptrdiff_t>(k % rest.size()), stream[k]);
  for (const auto& e : rest) {
    Effects a = uninterrupted.Apply(e, e.ingested_at);
    Effects b = restored.Apply(e, e.ingested_at);
    ASSERT_EQ(b.disposition, a.disposition) << e.event_id << " " << e.event_type;
    ASSERT_EQ(b.states, a.states) << e.event_id;
    ASSERT_TRUE(store->Commit(b, e.ingested_at).ok());
  }
  ExpectSameSnapshot(restored.Snapshot(), uninterrupted.Snapshot());
  auto again = store->LoadSnapshot();
  ASSERT_TRUE(again.ok());
  ExpectSameSnapshot(*again, uninterrupted.Snapshot());
}

// The books live in their own tables, so retention deleting the events
// they were derived from does not change them.
TEST(SnapshotTest, BooksSurviveRetention) {
  storetest::TempDir dir;
  auto store = OpenStore(dir.File("agtmux.db"));
  ASSERT_TRUE(store);
  Engine engine;
  std::mt19937 rng(23);
  const std::vector<core::Event> stream = Stream(23);
  Ingest(engine, *store, stream, rng);
  const core::TimeNs far = stream.back().ingested_at + 30 * 24 * 3600 * core::kNsPerSec;
  auto report = store->RunRetention(far);
  ASSERT_TRUE(report.ok());
  EXPECT_GT(report->events_deleted, 0);
  auto snap = store->LoadSnapshot();
  ASSERT_TRUE(snap.ok()) << snap.error().ToString();
  EXPECT_TRUE(snap->dedupe_keys.empty());  // the events are gone...
  const EngineSnapshot want = engine.Snapshot();
  EXPECT_EQ(snap->runtime_books, want.runtime_books);  // ...their books are not
  EXPECT_EQ(snap->target_books, want.target_books);
  EXPECT_EQ(snap->candidates, want.candidates);
}

}  // namespace
}  // namespace agt::state
