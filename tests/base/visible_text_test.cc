// core::VisibleText (libagtcore/base/visible_text.h): what an attacker can
// put in an agent's output, and what reaches a terminal after it.
#include "libagtcore/base/visible_text.h"

#include <gtest/gtest.h>

namespace agt::core {
namespace {

TEST(VisibleText, EscapeSequencesAreShownNotSent) {
  // OSC 52 (clipboard write), CSI (clear screen), OSC 2 (title), BEL, ST.
  EXPECT_EQ(VisibleText("echo \x1b]52;c;cHduZWQ=\x07" "CLIP \x1b[2J"), "echo ^[]52;c;cHduZWQ=^GCLIP ^[[2J");
  EXPECT_EQ(VisibleText("\x1b]2;title\x1b\\"), "^[]2;title^[\\");
  // C1 controls: CSI (U+009B) and OSC (U+009D) as code points.
  EXPECT_EQ(VisibleText("a\xc2\x9b" "2Jb\xc2\x9d" "52;c;x\xc2\x9c"), "a<U+009B>2Jb<U+009D>52;c;x<U+009C>");
}

TEST(VisibleText, CarriageReturnsAndBackspacesCannotOverdrawARow) {
  EXPECT_EQ(VisibleText("idle\r*  PTY  idle  FAKE\b\b"), "idle^M*  PTY  idle  FAKE^H^H");
  EXPECT_EQ(VisibleText("del\x7f"), "del^?");
  EXPECT_EQ(VisibleText(std::string("nul\0x", 5)), "nul^@x");
}

TEST(VisibleText, NewlinesOnlyWhereTheCallerKeepsThem) {
  EXPECT_EQ(VisibleText("one\ntwo\tcol"), "one^Jtwo col");
  EXPECT_EQ(VisibleText("one\ntwo\r\n", {.keep_newlines = true}), "one\ntwo^M\n");
}

TEST(VisibleText, BidiOverridesCannotReorderTheRow) {
  EXPECT_EQ(VisibleText("file\u202Etxt.exe"), "file<U+202E>txt.exe");
  EXPECT_EQ(VisibleText("a\u2066b\u2069"), "a<U+2066>b<U+2069>");
}

TEST(VisibleText, IllFormedUtf8CannotHideAnEscape) {
  // A lead byte that claims the ESC as its continuation.
  const std::string out = VisibleText("x\xe0\x1b[2Jy");
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_EQ(out, "x\uFFFD^[[2Jy");
  EXPECT_EQ(VisibleText("\xff"), "\uFFFD");
}

TEST(VisibleText, OrdinaryTextIsUnchangedAndTwiceIsOnce) {
  for (const char* s : {"Do you want to proceed?", "⠋ Working (12s • esc to interrupt)", "日本語のファイル.txt",
                        "emoji 🚀 ok", "❯ 1. Yes", "\uFFFD"}) {
    EXPECT_EQ(VisibleText(s), s);
    EXPECT_FALSE(NeedsVisible(s));
  }
  for (const char* s : {"\x1b]52;c;x\x07", "a\rb", "\u202E", "\xc2\x9b", "x\xe0\x1b"}) {
    const std::string once = VisibleText(s);
    EXPECT_TRUE(NeedsVisible(s));
    EXPECT_EQ(VisibleText(once), once) << s;
  }
}

}  // namespace
}  // namespace agt::core
