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

TEST(DedupeSet, RowHashFromTheOwnerStringMatchesTheInternedOwner) {
  // The engine hashes a row from its event's runtime_id before it has found
  // the runtime (to prefetch the row's slot), then inserts by interned id.
  DedupeSet d;
  const DedupeSet::OwnerId rt = d.Intern("runtime-1");
  for (Source s : {Source::kHook, Source::kNotify, Source::kWrapper, Source::kPoller}) {
    for (const std::string& key : {std::string(), std::string("k"), std::string(64, 'f')}) {
      const uint64_t h = DedupeSet::RowHash(DedupeSet::OwnerHash("runtime-1"), s, key);
      EXPECT_EQ(h, d.RowHash(rt, s, key));
      d.Prefetch(h);
      EXPECT_TRUE(d.Insert(h, rt, s, key));
      EXPECT_FALSE(d.Insert(rt, s, key));
      EXPECT_TRUE(d.Contains("runtime-1", s, key));
    }
  }
  EXPECT_EQ(d.size(), 12u);
}

TEST(DedupeSet, ManyChunksOfRowsAreListedAndFound) {
  // 64-byte keys (the size of the daemon's) over many 64 KiB chunks and
  // table growths, under a few owners: every row is found, and listed once.
  DedupeSet d;
  constexpr int kRows = 30'000;
  auto key = [](int i) { return std::string(56, 'k') + std::to_string(10'000'000 + i); };
  for (int i = 0; i < kRows; ++i) {
    ASSERT_TRUE(d.Insert("rt" + std::to_string(i % 7), Source::kWrapper, key(i))) << i;
  }
  for (int i = 0; i < kRows; ++i) {
    ASSERT_TRUE(d.Contains("rt" + std::to_string(i % 7), Source::kWrapper, key(i))) << i;
    ASSERT_FALSE(d.Contains("rt" + std::to_string((i + 1) % 7), Source::kWrapper, key(i))) << i;
  }
  std::set<std::string> rows;
  d.ForEach([&](std::string_view row) { rows.emplace(row); });
  EXPECT_EQ(rows.size(), static_cast<size_t>(kRows));
  EXPECT_TRUE(rows.contains("rt3\x1fwrapper\x1f" + key(7 * 1000 + 3)));
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
