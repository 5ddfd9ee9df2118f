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

TEST(DedupeSet, InternedOwnersAndOwnerStringsAgree) {
  DedupeSet d;
  const DedupeSet::OwnerId rt1 = d.Intern("rt1");
  EXPECT_EQ(d.Intern("rt1"), rt1);
  EXPECT_NE(d.Intern("rt2"), rt1);
  EXPECT_TRUE(d.Insert(rt1, Source::kHook, "k"));
  EXPECT_FALSE(d.Insert("rt1", Source::kHook, "k"));
  EXPECT_TRUE(d.Contains("rt1", Source::kHook, "k"));
  EXPECT_FALSE(d.Contains("never-seen", Source::kHook, "k"));
  EXPECT_FALSE(d.Contains(d.Intern("rt2"), Source::kHook, "k"));
}

TEST(DedupeSet, KeysOfAnyLengthKeepTheirBytes) {
  // Keys are copied into fixed-size chunks; one longer than a chunk gets its
  // own, and the keys around it must stay intact.
  DedupeSet d;
  const std::string huge(200'000, 'x');
  std::string almost = huge;
  almost.back() = 'y';
  ASSERT_TRUE(d.Insert("rt", Source::kHook, "before"));
  ASSERT_TRUE(d.Insert("rt", Source::kHook, huge));
  ASSERT_TRUE(d.Insert("rt", Source::kHook, ""));
  for (int i = 0; i < 5'000; ++i) {
    ASSERT_TRUE(d.Insert("rt", Source::kHook, std::string(40, 'a') + std::to_string(i)));
  }
  EXPECT_FALSE(d.Insert("rt", Source::kHook, huge));
  EXPECT_FALSE(d.Insert("rt", Source::kHook, ""));
  EXPECT_TRUE(d.Contains("rt", Source::kHook, "before"));
  EXPECT_FALSE(d.Contains("rt", Source::kHook, almost));
  size_t rows = 0;
  bool saw_huge = false;
  d.ForEach([&](std::string_view row) {
    ++rows;
    if (row.size() > huge.size()) saw_huge = row == "rt\x1fhook\x1f" + huge;
  });
  EXPECT_EQ(rows, d.size());
  EXPECT_TRUE(saw_huge);
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
