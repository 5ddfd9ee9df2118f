// Tests for state/order.h: effective time and the two comparisons.
#include "state/order.h"

#include <vector>

#include <gtest/gtest.h>

#include "tests/state/event_builder.h"

namespace agt::state {
namespace {

using testing::Ev;
using testing::T;

constexpr TimeNs kBudget = 10 * core::kNsPerSec;

TEST(EffectiveTime, UsesEventTimeWithinTheSkewBudget) {
  Event e = Ev("x", Source::kHook, "a").Ingested(T(100)).EventTime(T(95));
  EXPECT_EQ(EffectiveTime(e, kBudget), T(95));
  e.event_time = T(110);  // exactly at the budget, ahead
  EXPECT_EQ(EffectiveTime(e, kBudget), T(110));
  e.event_time = T(90);  // exactly at the budget, behind
  EXPECT_EQ(EffectiveTime(e, kBudget), T(90));
}

TEST(EffectiveTime, FallsBackToIngestedAtBeyondTheBudget) {
  Event e = Ev("x", Source::kHook, "a").Ingested(T(100)).EventTime(T(110.5));
  EXPECT_EQ(EffectiveTime(e, kBudget), T(100));
  e.event_time = T(40);
  EXPECT_EQ(EffectiveTime(e, kBudget), T(100));
  e.event_time = 0;  // no source time at all
  EXPECT_EQ(EffectiveTime(e, kBudget), T(100));
}

OrderKey Key(std::optional<int64_t> seq, double t, double ingested, std::string id) {
  return OrderKey{seq, T(t), T(ingested), std::move(id)};
}

TEST(CompareInStream, SequenceDecidesWhenBothHaveOne) {
  EXPECT_LT(CompareInStream(Key(1, 50, 50, "b"), Key(2, 10, 10, "a")), 0);
  EXPECT_GT(CompareInStream(Key(3, 10, 10, "a"), Key(2, 50, 50, "b")), 0);
}

TEST(CompareInStream, TimeDecidesWhenOneSideHasNoSequence) {
  EXPECT_GT(CompareInStream(Key(1, 50, 50, "a"), Key(std::nullopt, 10, 10, "b")), 0);
  EXPECT_LT(CompareInStream(Key(std::nullopt, 5, 50, "a"), Key(9, 10, 10, "b")), 0);
}

TEST(CompareInStream, TiesFallToIngestedAtThenEventId) {
  EXPECT_LT(CompareInStream(Key(1, 10, 11, "z"), Key(1, 10, 12, "a")), 0);
  EXPECT_LT(CompareInStream(Key(1, 10, 12, "a"), Key(1, 10, 12, "b")), 0);
  EXPECT_EQ(CompareInStream(Key(1, 10, 12, "a"), Key(1, 10, 12, "a")), 0);
}

TEST(CompareAcross, IgnoresSequenceNumbersOfDifferentSources) {
  EXPECT_LT(CompareAcross(Key(100, 10, 10, "a"), Key(1, 20, 20, "b")), 0);
  EXPECT_GT(CompareAcross(Key(1, 10, 30, "a"), Key(100, 10, 20, "b")), 0);
}

TEST(OrderKey, IsBuiltFromTheEvent) {
  Event e = Ev("x", Source::kWrapper, "k").Ingested(T(100)).EventTime(T(99)).Seq(7).Id("E1");
  OrderKey k = MakeOrderKey(e, kBudget);
  EXPECT_EQ(k, (OrderKey{7, T(99), T(100), "E1"}));
}

TEST(CompareInStream, AnEventComparesLikeItsOrderKey) {
  // The engine compares an incoming event with a stored key without building
  // the event's key; every rule must give the same answer as MakeOrderKey.
  std::vector<Event> events;
  std::vector<OrderKey> keys;
  for (int seq = 0; seq < 3; ++seq) {
    for (double t : {10.0, 11.0}) {
      for (double ingested : {11.0, 12.0, 30.0}) {
        for (const char* id : {"a", "b", "ab", ""}) {
          Ev e = Ev("x", Source::kWrapper, "k").Ingested(T(ingested)).EventTime(T(t)).Id(id);
          if (seq > 0) e.Seq(seq);
          events.push_back(e);
          keys.push_back(MakeOrderKey(events.back(), kBudget));
        }
      }
    }
  }
  for (const Event& e : events) {
    const OrderKey own = MakeOrderKey(e, kBudget);
    for (const OrderKey& k : keys) {
      ASSERT_EQ(CompareInStream(e, EffectiveTime(e, kBudget), k), CompareInStream(own, k))
          << e.event_id << " vs " << k.event_id;
    }
  }
}

}  // namespace
}  // namespace agt::state
