#include "libagtcore/vocabulary.h"

#include <gtest/gtest.h>

#include "libagtcore/base/result.h"

namespace agt::core {
namespace {

TEST(StateTest, PrecedenceIsTheSpecsOrder) {
  const State order[] = {State::kError,     State::kWaitingApproval,
                         State::kWaitingInput, State::kRunning,
                         State::kCompleted, State::kIdle, State::kUnknown};
  for (size_t i = 1; i < std::size(order); ++i)
    EXPECT_GT(StatePrecedence(order[i - 1]), StatePrecedence(order[i]))
        << StateName(order[i - 1]) << " vs " << StateName(order[i]);
}

TEST(StateTest, NamesRoundTrip) {
  for (int i = 0; i < kStateCount; ++i) {
    State s = static_cast<State>(i);
    EXPECT_EQ(ParseState(StateName(s)), s);
  }
  EXPECT_EQ(ParseState("Running"), std::nullopt);
  EXPECT_EQ(ParseState(""), std::nullopt);
}

TEST(StateTest, TargetHealthNamesRoundTrip) {
  for (TargetHealth h : {TargetHealth::kOk, TargetHealth::kDegraded, TargetHealth::kDown})
    EXPECT_EQ(ParseTargetHealth(TargetHealthName(h)), h);
  EXPECT_EQ(TargetHealthName(TargetHealth::kDegraded), "degraded");
  EXPECT_EQ(ParseTargetHealth("sideways"), std::nullopt);
  EXPECT_EQ(ParseTargetHealth("Down"), std::nullopt);
}

TEST(StateTest, SourceColumns) {
  EXPECT_EQ(SourceColumn(Source::kWrapper), "PTY");
  EXPECT_EQ(SourceColumn(Source::kHook), "HOOK");
  EXPECT_EQ(SourceColumn(Source::kNotify), "HOOK");
  EXPECT_EQ(SourceColumn(Source::kPoller), "CAP");
  EXPECT_EQ(ParseSource("wrapper"), Source::kWrapper);
  EXPECT_EQ(ParseSource("pty"), std::nullopt);
}

TEST(ResultTest, CarriesValueOrError) {
  Result<int> good = 3;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 3);
  Result<int> bad = MakeError(Err::kRefInvalid, "bad ref");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().ToString(), "E_REF_INVALID: bad ref");
  Err e;
  ASSERT_TRUE(ParseErrName("E_SNAPSHOT_EXPIRED", &e));
  EXPECT_EQ(e, Err::kSnapshotExpired);
  EXPECT_FALSE(ParseErrName("E_NOPE", &e));
}

}  // namespace
}  // namespace agt::core
