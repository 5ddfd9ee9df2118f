// Unit tests of the CLI's display-width tables and status-line text.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <sstream>

#include "cli/table.h"

namespace agt::cli {
std::string StatusLineText(const rapidjson::Value& summary, bool ascii);
namespace {

TEST(DisplayWidth, CountsWideGlyphsTwice) {
  EXPECT_EQ(DisplayWidth("abc"), 3);
  EXPECT_EQ(DisplayWidth("開発"), 4);
  EXPECT_EQ(DisplayWidth("🚀"), 2);
  EXPECT_EQ(DisplayWidth("e\xCC\x81"), 1);  // e + combining acute
  EXPECT_EQ(DisplayWidth("\xff"), 1);       // invalid byte
}

TEST(Table, AlignsColumnsByDisplayWidth) {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"work", "running"}, {"開発", "idle"}, {"🚀 deploy", "waiting_input"}};
  Table t({"SESSION", "STATE"});
  for (const auto& [session, state] : rows) t.AddRow({session, state});
  std::string out = t.Render(false);
  std::istringstream in(out);
  std::string line;
  std::vector<std::string> expect = {"STATE"};
  for (const auto& r : rows) expect.push_back(r.second);
  std::vector<int> state_col;
  for (size_t i = 0; std::getline(in, line); ++i) {
    ASSERT_LT(i, expect.size()) << out;
    size_t pos = line.rfind(expect[i]);
    ASSERT_NE(pos, std::string::npos) << line;
    state_col.push_back(DisplayWidth(line.substr(0, pos)));
  }
  ASSERT_EQ(state_col.size(), 4u);
  for (int c : state_col) EXPECT_EQ(c, state_col[0]) << out;
  EXPECT_EQ(state_col[0], DisplayWidth("🚀 deploy") + 2);
}

TEST(Table, ColourOnlyWhenAsked) {
  Table t({"STATE"});
  t.AddRow({"running"}, {StateColor("running")});
  EXPECT_EQ(t.Render(false).find('\x1b'), std::string::npos);
  EXPECT_NE(t.Render(true).find("\x1b[32mrunning"), std::string::npos);
}

TEST(Table, TruncatesLongCells) {
  Table t({"A", "B"});
  t.SetMaxWidth(0, 5);
  t.AddRow({"abcdefghij", "x"});
  EXPECT_NE(t.Render(false).find("abcd…"), std::string::npos);
}

TEST(StatusLine, CompactCounts) {
  rapidjson::Document d;
  d.Parse(R"({"by_state":{"error":0,"waiting_approval":1,"waiting_input":1,"running":3,"completed":1,"idle":2,"unknown":0}})");
  EXPECT_EQ(StatusLineText(d, false), "⚠2 ▶3 ✓1");
  EXPECT_EQ(StatusLineText(d, true), "W2 R3 D1");
  d.Parse(R"({"by_state":{"error":0,"waiting_approval":0,"waiting_input":0,"running":0,"completed":0,"idle":1,"unknown":0}})");
  EXPECT_EQ(StatusLineText(d, false), "");
}

}  // namespace
}  // namespace agt::cli
