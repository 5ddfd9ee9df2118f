#include "libagtcore/base/timefmt.h"

#include <gtest/gtest.h>

namespace agt::core {
namespace {

constexpr TimeNs kT = 1'795'317'918'123'456'789LL;  // 2026-11-22T03:25:18.123456789Z

TEST(Rfc3339Test, FormatsUtcWithTrimmedFraction) {
  EXPECT_EQ(FormatRfc3339(kT), "2026-11-22T03:25:18.123456789Z");
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(1'500'000'000), "1970-01-01T00:00:01.5Z");
  EXPECT_EQ(FormatRfc3339(-1), "1969-12-31T23:59:59.999999999Z");
  EXPECT_EQ(FormatRfc3339(951'782'400LL * kNsPerSec), "2000-02-29T00:00:00Z");
}

TEST(Rfc3339Test, RoundTrips) {
  const TimeNs times[] = {kT, 0, -1, 1, INT64_MAX, INT64_MIN + 1, 951'782'400 * kNsPerSec};
  for (TimeNs t : times) {
    Result<TimeNs> back = ParseRfc3339(FormatRfc3339(t));
    ASSERT_TRUE(back.ok()) << FormatRfc3339(t) << ": " << back.error().ToString();
    EXPECT_EQ(*back, t);
  }
}

TEST(Rfc3339Test, ParsesFractionsAndOffsets) {
  EXPECT_EQ(*ParseRfc3339("2026-11-22T03:25:18Z"), kT - 123'456'789);
  EXPECT_EQ(*ParseRfc3339("2026-11-22T03:25:18.1Z"), kT - 23'456'789);
  EXPECT_EQ(*ParseRfc3339("2026-11-22T12:25:18.123456789+09:00"), kT);
  EXPECT_EQ(*ParseRfc3339("2026-11-21T22:55:18.123456789-04:30"), kT);
  EXPECT_EQ(*ParseRfc3339("2026-11-22t03:25:18.123456789z"), kT);
  EXPECT_EQ(*ParseRfc3339("2026-11-22T03:25:18.123456789-00:00"), kT);
}

TEST(Rfc3339Test, RejectsMalformedTimes) {
  const char* bad[] = {
      "",
      "2026-11-22",
      "2026-11-22 03:25:18Z",         // space instead of T
      "2026-11-22T03:25:18",          // no offset
      "2026-11-22T03:25:18.Z",        // empty fraction
      "2026-11-22T03:25:18.1234567891Z",  // 10 fraction digits
      "2026-13-01T00:00:00Z",
      "2026-02-29T00:00:00Z",         // not a leap year
      "2026-04-31T00:00:00Z",
      "2026-11-22T24:00:00Z",
      "2026-11-22T23:60:00Z",
      "2026-11-22T23:59:60Z",         // leap seconds refused
      "2026-11-22T03:25:18+0900",
      "2026-11-22T03:25:18+24:00",
      "2026-11-22T03:25:18Zjunk",
      "26-11-22T03:25:18Z",
      "2026-1-22T03:25:18Z",
      "9999-12-31T23:59:59Z",         // beyond int64 nanoseconds
      "1000-01-01T00:00:00Z",
  };
  for (const char* s : bad) {
    Result<TimeNs> r = ParseRfc3339(s);
    ASSERT_FALSE(r.ok()) << s;
    EXPECT_EQ(r.error().code, Err::kPayloadInvalid);
    EXPECT_NE(r.error().message.find(std::string("\"") + s + "\""), std::string::npos)
        << r.error().message;
  }
}

TEST(DurationTest, ParsesUnitsAndCombinations) {
  EXPECT_EQ(*ParseDuration("500ms"), 500 * kNsPerMs);
  EXPECT_EQ(*ParseDuration("30s"), 30 * kNsPerSec);
  EXPECT_EQ(*ParseDuration("2m"), 120 * kNsPerSec);
  EXPECT_EQ(*ParseDuration("1h30m"), 5400 * kNsPerSec);
  EXPECT_EQ(*ParseDuration("1.5s"), 1500 * kNsPerMs);
  EXPECT_EQ(*ParseDuration("7d"), 7 * 86400 * kNsPerSec);
  EXPECT_EQ(*ParseDuration("1m30s500ms"), 90 * kNsPerSec + 500 * kNsPerMs);
  EXPECT_EQ(*ParseDuration("250us"), 250'000);
  EXPECT_EQ(*ParseDuration("10ns"), 10);
  EXPECT_EQ(*ParseDuration("0"), 0);
  EXPECT_EQ(*ParseDuration("120"), 120 * kNsPerSec);  // bare number = seconds
  EXPECT_EQ(*ParseDuration("0.25"), 250 * kNsPerMs);
  EXPECT_EQ(*ParseDuration("0.5h"), 1800 * kNsPerSec);
}

TEST(DurationTest, RejectsNegativesGarbageAndOverflow) {
  const char* bad[] = {"", "-1s", "-5", "s", "10x", "1h30", "1..5s", "1.s",
                       "abc", " 5s", "5s ", "5 s", "1e3s", "+5s",
                       "99999999999999999999s", "300000d", "9223372036854775807h"};
  for (const char* s : bad) {
    Result<TimeNs> r = ParseDuration(s);
    ASSERT_FALSE(r.ok()) << s;
    EXPECT_EQ(r.error().code, Err::kPayloadInvalid);
    EXPECT_NE(r.error().message.find("invalid duration"), std::string::npos);
  }
  EXPECT_NE(ParseDuration("-1s").error().message.find("negative"), std::string::npos);
  EXPECT_NE(ParseDuration("10x").error().message.find("unknown unit"), std::string::npos);
  EXPECT_NE(ParseDuration("300000d").error().message.find("too large"), std::string::npos);
}

TEST(FormatAgeTest, CompactForms) {
  EXPECT_EQ(FormatAge(0), "0s");
  EXPECT_EQ(FormatAge(999 * kNsPerMs), "0s");
  EXPECT_EQ(FormatAge(12 * kNsPerSec), "12s");
  EXPECT_EQ(FormatAge(184 * kNsPerSec), "3m04s");
  EXPECT_EQ(FormatAge((2 * 3600 + 5 * 60 + 59) * kNsPerSec), "2h05m");
  EXPECT_EQ(FormatAge((3 * 86400 + 4 * 3600) * kNsPerSec), "3d04h");
  EXPECT_EQ(FormatAge(-5 * kNsPerSec), "0s");  // clock skew never shows negative
}

}  // namespace
}  // namespace agt::core
