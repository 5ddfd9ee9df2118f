// DedupeSet: the engine's memory of (owner, source, dedupe_key). Membership
// must be exact (rows differing in any part, including where the separators
// fall, are different), survive many table growths, and list every row once
// in the snapshot format.
#include "state/dedupe_set.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace agt::state {
namespace {

using core::Source;

TEST(DedupeSet, InsertReportsOnlyTheFirstTime) {
  DedupeSet d;
  EXPECT_TRUE(d.Insert("rt1", Source::kHook, "k"));
  EXPECT_FALSE(d.Insert("rt1", Source::kHook, "k"));
  EXPECT_TRUE(d.Contains("rt1", Source::kHook, "k"));
  EXPECT_EQ(d.size(), 1u);
}

TEST(DedupeSet, EveryPartOfTheRowCounts) {
  DedupeSet d;
  ASSERT_TRUE(d.Insert("rt1", Source::kHook, "k"));
  EXPECT_FALSE(d.Contains("rt2", Source::kHook, "k"));
  EXPECT_FALSE(d.Contains("rt1", Source::kWrapper, "k"));
  EXPECT_FALSE(d.Contains("rt1", Source::kHook, "k2"));
  EXPECT_FALSE(d.Contains("rt1", Source::kHook, ""));
  EXPECT_TRUE(d.Insert("rt2", Source::kHook, "k"));
  EXPECT_TRUE(d.Insert("rt1", Source::kWrapper, "k"));
  EXPECT_EQ(d.size(), 3u);
}

TEST(DedupeSet, KeepsEveryRowAcrossGrowth) {
  DedupeSet d;
  constexpr int kRows = 50'000;
  for (int i = 0; i < kRows; ++i) {
    ASSERT_TRUE(d.Insert("rt" + std::to_string(i % 97), Source::kPoller, std::to_string(i))) << i;
  }
  EXPECT_EQ(d.size(), static_cast<size_t>(kRows));
  for (int i = 0; i < kRows; ++i) {
    ASSERT_FALSE(d.Insert("rt" + std::to_string(i % 97), Source::kPoller, std::to_string(i))) << i;
    ASSERT_FALSE(d.Contains("rt" + std::to_string(i % 97), Source::kHook, std::to_string(i))) << i;
  }
  EXPECT_EQ(d.size(), static_cast<size_t>(kRows));
}

TEST(DedupeSet, ForEachListsEachRowOnceInSnapshotFormat) {
  DedupeSet d;
  d.Insert("rt1", Source::kHook, "a");
  d.Insert("@host", Source::kPoller, "b");
  d.Insert("rt1", Source::kHook, "a");
  std::multiset<std::string> rows;
  d.ForEach([&](std::string_view row) { rows.emplace(row); });
  EXPECT_EQ(rows, (std::multiset<std::string>{"rt1\x1fhook\x1f" "a", "@host\x1fpoller\x1f" "b"}));
}

}  // namespace
}  // namespace agt::state
