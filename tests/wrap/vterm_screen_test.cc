// VtermScreen: what a terminal shows, rendered as lines; UTF-8 glyphs split
// at any read boundary reach the screen intact.
#include "libagtcore/screen/vterm_screen.h"

#include <gtest/gtest.h>

#include <string>

#include "libagtcore/screen/stream_scanner.h"

namespace agt::screen {
namespace {

// 1-, 2-, 3- and 4-byte sequences, a wide CJK glyph and an emoji.
const std::string kText =
    "a\xc3\xa9\xe2\x9c\xb3\xf0\x9f\x98\x80\xe6\xbc\xa2z \xe2\x9d\xaf\xc2\xa0ok";

TEST(VtermScreen, RendersTextAndCursor) {
  VtermScreen v(5, 20);
  v.Feed("hello\r\n  world   ");
  detect::Screen s = v.Snapshot();
  ASSERT_EQ(s.lines.size(), 5u);
  EXPECT_EQ(s.lines[0], "hello");
  EXPECT_EQ(s.lines[1], "  world");
  EXPECT_EQ(s.lines[2], "");
  EXPECT_EQ(s.cursor_row, 1);
  EXPECT_EQ(s.cursor_col, 10);
  EXPECT_FALSE(s.alt_screen);
}

// Claude Code 2.1.330 asks for Kitty graphics with an APC string
// ("ESC _ G ... ESC \\") while drawing a dialog. A terminal shows nothing of
// it; libvterm 0.1 printed its body over the dialog's cursor row. APC, PM
// and SOS strings are dropped, also when split across reads.
TEST(VtermScreen, ApcPmAndSosStringsShowNothing) {
  const std::string apc = "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\";
  VtermScreen v(3, 40);
  v.Feed("  \xe2\x9d\xaf No, exit\r" + apc + "\x1b[16t\n    Yes, I accept");
  detect::Screen s = v.Snapshot();
  EXPECT_EQ(s.lines[0], "  \xe2\x9d\xaf No, exit");
  EXPECT_EQ(s.lines[1], "    Yes, I accept");
  const std::string text = "ab\x1b^private\x07" "cd\x1bXstart of string\x1b\\ef" + apc + "gh";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    VtermScreen w(2, 40);
    w.Feed(text.substr(0, cut));
    w.Feed(text.substr(cut));
    EXPECT_EQ(w.Snapshot().lines[0], "abcdefgh") << "split at " << cut;
  }
}

TEST(VtermScreen, WideGlyphsAppearOnce) {
  VtermScreen v(2, 20);
  v.Feed(kText);
  EXPECT_EQ(v.Snapshot().lines[0], kText);
}

TEST(VtermScreen, Utf8SplitAtEveryBoundaryIsIntact) {
  for (size_t cut = 0; cut <= kText.size(); ++cut) {
    VtermScreen v(2, 30);
    StreamScanner scan;
    const std::string_view a = std::string_view(kText).substr(0, cut);
    const std::string_view b = std::string_view(kText).substr(cut);
    scan.Feed(a, 1);
    v.Feed(a);
    scan.Feed(b, 2);
    v.Feed(b);
    SCOPED_TRACE("cut at " + std::to_string(cut));
    EXPECT_EQ(v.Snapshot().lines[0], kText);
    EXPECT_EQ(scan.recent_output(), kText);
  }
}

TEST(VtermScreen, Utf8ByteAtATimeAndThreeWaySplits) {
  {
    VtermScreen v(2, 30);
    for (char c : kText) v.Feed(std::string_view(&c, 1));
    EXPECT_EQ(v.Snapshot().lines[0], kText);
  }
  for (size_t i = 0; i <= kText.size(); ++i) {
    for (size_t j = i; j <= kText.size(); ++j) {
      VtermScreen v(2, 30);
      v.Feed(std::string_view(kText).substr(0, i));
      v.Feed(std::string_view(kText).substr(i, j - i));
      v.Feed(std::string_view(kText).substr(j));
      ASSERT_EQ(v.Snapshot().lines[0], kText) << "cuts at " << i << "," << j;
    }
  }
}

TEST(VtermScreen, InvalidUtf8DoesNotSwallowFollowingText) {
  VtermScreen v(2, 30);
  v.Feed("x\xe2");
  v.Feed("yz");  // the lead byte is cut short by an ASCII byte
  const std::string line = v.Snapshot().lines[0];
  EXPECT_EQ(line.substr(0, 1), "x");
  EXPECT_EQ(line.substr(line.size() - 2), "yz");
}

TEST(VtermScreen, AlternateScreenAndResize) {
  VtermScreen v(4, 10);
  v.Feed("main");
  v.Feed("\x1b[?1049h\x1b[Halt");
  EXPECT_TRUE(v.alt_screen());
  EXPECT_EQ(v.Snapshot().lines[0], "alt");
  EXPECT_TRUE(v.Snapshot().alt_screen);
  v.Feed("\x1b[?1049l");
  EXPECT_FALSE(v.alt_screen());
  EXPECT_EQ(v.Snapshot().lines[0], "main");
  v.Resize(6, 30);
  detect::Screen s = v.Snapshot();
  EXPECT_EQ(s.rows, 6);
  EXPECT_EQ(s.cols, 30);
  EXPECT_EQ(s.lines.size(), 6u);
  v.Feed("\x1b[6;25HX");
  EXPECT_EQ(v.Snapshot().lines[5], std::string(24, ' ') + "X");
}

TEST(VtermScreen, DirtyTracksDrawing) {
  VtermScreen v(2, 10);
  (void)v.Snapshot();
  EXPECT_FALSE(v.dirty());
  v.Feed("a");
  EXPECT_TRUE(v.dirty());
}

}  // namespace
}  // namespace agt::screen
