#include "libagtcore/ids.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace agt::core {
namespace {

constexpr std::string_view kCrockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

TEST(Sha256Test, KnownAnswers) {
  // FIPS 180-2 test vectors.
  EXPECT_EQ(Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, HashesEmbeddedNulBytes) {
  std::string with_nul("a\0b", 3);
  EXPECT_NE(Sha256Hex(with_nul), Sha256Hex("a"));
  EXPECT_NE(Sha256Hex(with_nul), Sha256Hex("ab"));
}

TEST(UlidTest, ShapeAndTimePrefix) {
  // The ULID spec's example: ulid(1469918176385) starts "01ARYZ6S41".
  TimeNs t = 1469918176385LL * kNsPerMs;
  std::string id = NewUlid(t + 123456);  // sub-ms part is ignored
  ASSERT_EQ(id.size(), 26u);
  EXPECT_EQ(id.substr(0, 10), "01ARYZ6S41");
  for (char c : id) EXPECT_NE(kCrockford.find(c), std::string_view::npos) << c;
}

TEST(UlidTest, MonotonicWithinOneMillisecondAndWhenTimeStepsBack) {
  TimeNs t = 1'800'000'000'000LL * kNsPerMs;
  std::string prev = NewUlid(t);
  std::set<std::string> seen{prev};
  for (int i = 0; i < 1000; ++i) {
    std::string id = NewUlid(t);
    EXPECT_GT(id, prev);
    EXPECT_EQ(id.substr(0, 10), prev.substr(0, 10));
    seen.insert(id);
    prev = id;
  }
  std::string back = NewUlid(t - 5 * kNsPerSec);  // clock stepped back
  EXPECT_GT(back, prev);
  std::string later = NewUlid(t + kNsPerSec);
  EXPECT_GT(later, back);
  EXPECT_NE(later.substr(0, 10), prev.substr(0, 10));
  EXPECT_EQ(seen.size(), 1001u);
}

TEST(UlidTest, UniqueAndOrderedPerThreadUnderConcurrency) {
  TimeNs t = 1'850'000'000'000LL * kNsPerMs;
  std::mutex mu;
  std::set<std::string> all;
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&] {
      std::vector<std::string> mine;
      for (int i = 0; i < 500; ++i) mine.push_back(NewUlid(t));
      for (size_t i = 1; i < mine.size(); ++i) EXPECT_GT(mine[i], mine[i - 1]);
      std::lock_guard<std::mutex> lock(mu);
      all.insert(mine.begin(), mine.end());
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(all.size(), 2000u);
}

TEST(UlidTest, RandomPartDiffersAcrossMilliseconds) {
  TimeNs t = 1'900'000'000'000LL * kNsPerMs;
  std::string a = NewUlid(t);
  std::string b = NewUlid(t + kNsPerMs);
  // 80 random bits: equal random parts would mean no randomness at all.
  EXPECT_NE(a.substr(10), b.substr(10));
}

TEST(DeriveTest, RuntimeIdIsSha256OfUnitSeparatedFields) {
  std::string expected = Sha256Hex(std::string("host\x1f") + "boot-1\x1f" + "%7\x1f" +
                                   "2\x1f" + "claude\x1f" + "1700000000000000000");
  EXPECT_EQ(DeriveRuntimeId("host", "boot-1", "%7", 2, "claude",
                            1'700'000'000'000'000'000LL),
            expected);
  EXPECT_EQ(expected.size(), 64u);
}

TEST(DeriveTest, RuntimeIdFieldsDoNotCollide) {
  // Moving a character across a field boundary changes the id.
  EXPECT_NE(DeriveRuntimeId("ab", "c", "%1", 0, "x", 1),
            DeriveRuntimeId("a", "bc", "%1", 0, "x", 1));
  EXPECT_NE(DeriveRuntimeId("h", "b", "%1", 1, "x", 1),
            DeriveRuntimeId("h", "b", "%1", 2, "x", 1));
  EXPECT_NE(DeriveRuntimeId("h", "b", "%1", 1, "x", 1),
            DeriveRuntimeId("h", "b", "%1", 1, "x", 2));
}

TEST(DeriveTest, DedupeKeyIsSha256OfColonJoinedFields) {
  EXPECT_EQ(DeriveDedupeKey(Source::kHook, "sess-1:PreToolUse:toolu_01", "abc123",
                            "state_changed"),
            Sha256Hex("hook:sess-1:PreToolUse:toolu_01:abc123:state_changed"));
  EXPECT_NE(DeriveDedupeKey(Source::kHook, "x", "p", "t"),
            DeriveDedupeKey(Source::kNotify, "x", "p", "t"));
  // Stable: same inputs, same key (never derived from the current time).
  EXPECT_EQ(DeriveDedupeKey(Source::kWrapper, "r:1", "", "wrapper_started"),
            DeriveDedupeKey(Source::kWrapper, "r:1", "", "wrapper_started"));
}

}  // namespace
}  // namespace agt::core
