// ParseAnswer: what every CLI command does with a daemon's JSON answer
// (list, explain, status-line, target, daemon status and the actions).
#include "cli/client/daemon_client.h"

#include <gtest/gtest.h>

namespace agt::cli {
namespace {

TEST(ParseAnswer, AcceptsAnObjectWithTheRequiredMembers) {
  auto d = ParseAnswer(R"({"schema_version":1,"items":[],"summary":{}})", {"items", "summary"});
  ASSERT_TRUE(d.ok()) << d.error().ToString();
  EXPECT_TRUE((*d)["items"].IsArray());
  EXPECT_TRUE(ParseAnswer("{}").ok());
}

TEST(ParseAnswer, MalformedAnswersAreInternalErrorsSayingWhy) {
  for (const char* body : {"", "not json", "[1,2]", "\"text\"", "{\"items\":"}) {
    auto d = ParseAnswer(body, {"items"});
    ASSERT_FALSE(d.ok()) << body;
    EXPECT_EQ(d.error().code, core::Err::kInternal);
    EXPECT_EQ(d.error().message, "the daemon sent a malformed answer (not a JSON object)") << body;
  }
  auto missing = ParseAnswer(R"({"items":[]})", {"items", "summary"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "the daemon sent a malformed answer (no \"summary\")");
}

}  // namespace
}  // namespace agt::cli
