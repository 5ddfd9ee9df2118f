// ShowAsCommand (cli/process_title.h) on an argument area laid out as the
// kernel lays out main()'s: the strings back to back, each ending in NUL.
#include "cli/process_title.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agt::cli {
namespace {

/// An argument area holding `args` and the argv pointing into it.
struct Area {
  explicit Area(const std::vector<std::string>& args) {
    for (const auto& a : args) bytes.insert(bytes.end(), a.begin(), a.end()), bytes.push_back('\0');
    size_t at = 0;
    for (const auto& a : args) {
      argv.push_back(bytes.data() + at);
      at += a.size() + 1;
    }
  }
  std::string Text() const { return std::string(bytes.begin(), bytes.end()); }
  std::vector<char> bytes;
  std::vector<char*> argv;
};

TEST(ShowAsCommand, PutsTheNameFirstAndKeepsTheArguments) {
  Area a({"/usr/local/bin/agtmux", "wrap", "claude", "--resume"});
  RememberArgv(static_cast<int>(a.argv.size()), a.argv.data());
  ShowAsCommand("claude");
  const std::string want = std::string("claude\0wrap\0claude\0--resume\0", 28);
  EXPECT_EQ(a.Text().substr(0, want.size()), want);
  EXPECT_EQ(a.Text().find_first_not_of('\0', want.size()), std::string::npos);
}

TEST(ShowAsCommand, ALongerNameCutsTheArgumentsNotTheName) {
  Area a({"agtmux", "wrap", "opencode"});
  RememberArgv(static_cast<int>(a.argv.size()), a.argv.data());
  ShowAsCommand("opencode");
  ASSERT_EQ(a.bytes.size(), 21u);
  EXPECT_EQ(a.Text(), std::string("opencode\0wrap\0openco\0", 21));
}

TEST(ShowAsCommand, ANameThatDoesNotFitChangesNothing) {
  Area a({"ag", "x"});
  RememberArgv(static_cast<int>(a.argv.size()), a.argv.data());
  ShowAsCommand("opencode");
  EXPECT_EQ(a.Text(), std::string("ag\0x\0", 5));
}

}  // namespace
}  // namespace agt::cli
