// ParseToml: a table for good text, and for a syntax error the caller's
// code with the file, line and column (no exception escapes).
#include <gtest/gtest.h>

#include "libagtcore/base/toml_parse.h"

namespace agt::core {
namespace {

TEST(ParseTomlTest, ParsesATable) {
  auto t = ParseToml("[wrap]\nsettle = \"500ms\"\n", "/x/config.toml", Err::kConfigInvalid);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ((*t)["wrap"]["settle"].value<std::string>(), "500ms");
}

TEST(ParseTomlTest, SyntaxErrorNamesFileLineAndColumn) {
  auto t = ParseToml("a = 1\nb = = 2\n", "/x/p.toml", Err::kPatternInvalid);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, Err::kPatternInvalid);
  EXPECT_EQ(t.error().message.rfind("/x/p.toml:2:", 0), 0u) << t.error().message;
  EXPECT_NE(t.error().message.find("TOML syntax error: "), std::string::npos) << t.error().message;
}

TEST(ParseTomlTest, DuplicateKeyIsAnError) {
  auto t = ParseToml("a = 1\na = 2\n", "c.toml", Err::kConfigInvalid);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, Err::kConfigInvalid);
  EXPECT_EQ(t.error().message.rfind("c.toml:2:", 0), 0u) << t.error().message;
}

}  // namespace
}  // namespace agt::core
