// Seeding a byte screen from tmux: the display-message header is checked,
// and the seed bytes draw on a blank libvterm screen what tmux showed (text,
// cursor, alternate screen, scroll region).
#include "aggregator/observe/pane_seed.h"

#include <gtest/gtest.h>

#include "libagtcore/screen/vterm_screen.h"

namespace agt::agg {
namespace {

TEST(PaneSeed, CommandReadsCursorSizeAndScreenOfThePane) {
  const std::string c = SeedCommand("%7");
  EXPECT_NE(c.find("display-message -p -t %7"), std::string::npos);
  EXPECT_NE(c.find(" ; capture-pane -e -p -t %7"), std::string::npos);
}

TEST(PaneSeed, AHeaderThatIsNotSevenNumbersIsRefusedByName) {
  EXPECT_TRUE(ParseSeed("3 4 80 24 0 0 23", "x").ok());
  for (const char* bad : {"", "3 4 80 24 0 0", "3 4 80 24 0 0 23 9", "3 4 80 x 0 0 23",
                          "3 4 0 24 0 0 23", "-1 4 80 24 0 0 23", "can't find pane: %7"}) {
    auto r = ParseSeed(bad, "x");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, core::Err::kPayloadInvalid);
    EXPECT_NE(r.error().message.find("pane seed"), std::string::npos);
  }
}

TEST(PaneSeed, TheBytesDrawWhatTmuxShowed) {
  auto seed = ParseSeed("5 2 20 4 0 0 3",
                        "\x1b[1m\x1b[31mred\x1b[0m\x1b[39m\x1b[49m plain\n"
                        "12345678901234567890\n"   // a full-width row does not wrap
                        "❯ wide 漢字\n");
  ASSERT_TRUE(seed.ok());
  screen::VtermScreen v(4, 20);
  v.Feed("old text everywhere\r\nmore old text");
  v.Feed(SeedBytes(*seed));
  detect::Screen s = v.Snapshot();
  ASSERT_EQ(s.lines.size(), 4u);
  EXPECT_EQ(s.lines[0], "red plain");
  EXPECT_EQ(s.lines[1], "12345678901234567890");
  EXPECT_EQ(s.lines[2], "❯ wide 漢字");
  EXPECT_EQ(s.lines[3], "");
  EXPECT_EQ(s.cursor_row, 2);
  EXPECT_EQ(s.cursor_col, 5);
  EXPECT_FALSE(s.alt_screen);
}

TEST(PaneSeed, AlternateScreenAndScrollRegionAreRestored) {
  auto seed = ParseSeed("0 2 10 4 1 1 2", "top\nmid\nlow\nfoot");
  ASSERT_TRUE(seed.ok());
  screen::VtermScreen v(4, 10);
  v.Feed(SeedBytes(*seed));
  EXPECT_TRUE(v.Snapshot().alt_screen);
  // A line feed at the region's bottom scrolls rows 2-3 only.
  v.Feed("\nnew");
  detect::Screen s = v.Snapshot();
  EXPECT_EQ(s.lines[0], "top");
  EXPECT_EQ(s.lines[1], "low");
  EXPECT_EQ(s.lines[2], "new");
  EXPECT_EQ(s.lines[3], "foot");
}

}  // namespace
}  // namespace agt::agg
