#include "libagtcore/detect/menu.h"

#include <gtest/gtest.h>

namespace agt::detect {
namespace {

std::vector<std::string_view> View(const std::vector<std::string>& v) {
  return {v.begin(), v.end()};
}

MenuStyle Style(std::vector<std::string> glyphs, const char* footer) {
  MenuStyle s;
  s.cursor_glyphs = std::move(glyphs);
  if (footer != nullptr)
    s.footer = std::make_shared<const Regex>(std::move(Regex::Compile(footer)).value());
  return s;
}

TEST(Menu, ClaudeApprovalDialog) {
  std::vector<std::string> rows = {
      " Bash command",
      "",
      "   mkdir -p build/out",
      "   Create the build output directory",
      "",
      " Do you want to proceed?",
      " ❯ 1. Yes",
      "   2. Yes, and don't ask again for mkdir commands in /tmp/work",
      "   3. No, and tell Claude what to do differently (esc)",
      "",
      " Esc to cancel · Tab to amend",
  };
  auto m = FindMenu(View(rows), Style({"❯"}, "Esc to cancel"));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->choices,
            (std::vector<std::string>{
                "Yes", "Yes, and don't ask again for mkdir commands in /tmp/work",
                "No, and tell Claude what to do differently"}));
  EXPECT_EQ(m->cursor_position, 1);
  EXPECT_FALSE(m->multi_select);
  EXPECT_EQ(m->question, "Do you want to proceed?");
}

TEST(Menu, CursorOnALaterOptionAndDescriptionsBetween) {
  std::vector<std::string> rows = {
      "Which test framework should I use?",
      "",
      "  1. pytest",
      "     The de-facto standard, plain asserts",
      "❯ 2. unittest",
      "     In the standard library",
      "  3. doctest",
      "     Examples in docstrings",
      "  4. Type something.",
      "Enter to select · ↑/↓ to navigate · Esc to cancel",
  };
  auto m = FindMenu(View(rows), Style({"❯"}, "Enter to select"));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->cursor_position, 2);
  EXPECT_EQ(m->choices.size(), 4u);
  EXPECT_EQ(m->choices[3], "Type something.");
  EXPECT_EQ(m->question, "Which test framework should I use?");
}

TEST(Menu, MultiSelectBoxes) {
  std::vector<std::string> rows = {
      "Which checks should run?",
      "❯ 1. [ ] lint",
      "  2. [x] unit tests",
      "  3. [ ] e2e",
      "Enter to select · Esc to cancel",
  };
  auto m = FindMenu(View(rows), Style({"❯"}, "Esc to cancel"));
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->multi_select);
  EXPECT_EQ(m->choices, (std::vector<std::string>{"lint", "unit tests", "e2e"}));
}

TEST(Menu, BoxedGeminiStyleAndCodexHints) {
  std::vector<std::string> gemini = {
      "│ Allow execution of [Shell]?                   │",
      "│ ● 1. Allow once                               │",
      "│   2. Allow for this session                   │",
      "│   3. No, suggest changes (esc)                │",
      "╰───────────────────────────────────────────────╯",
  };
  auto g = FindMenu(View(gemini), Style({"●"}, nullptr));
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->choices, (std::vector<std::string>{"Allow once", "Allow for this session",
                                                  "No, suggest changes"}));
  EXPECT_EQ(g->question, "Allow execution of [Shell]?");

  std::vector<std::string> codex = {
      "  Would you like to run the following command?",
      "› 1. Yes, proceed (y)",
      "  2. Yes, and don't ask again for commands that start with `ls` (p)",
      "  3. No, and tell Codex what to do differently (esc)",
      "  Press enter to confirm or esc to cancel",
  };
  auto c = FindMenu(View(codex), Style({"›"}, "Press enter to confirm"));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->choices[0], "Yes, proceed");
  EXPECT_EQ(c->choices[1], "Yes, and don't ask again for commands that start with `ls`");
}

TEST(Menu, ProseNumberedListIsNotAMenu) {
  std::vector<std::string> prose = {
      "● Here is the plan:",
      "  1. Read the README",
      "  2. Write the tests",
      "  3. Run them",
      "",
      "Esc to cancel",
  };
  std::string why;
  EXPECT_FALSE(FindMenu(View(prose), Style({"❯"}, "Esc to cancel"), &why).has_value());
  EXPECT_NE(why.find("0 cursor glyphs"), std::string::npos) << why;

  // A list with a '>' quote marker in the middle still has no footer.
  std::vector<std::string> quoted = {"1. first", "> 2. second", "3. third", "done."};
  EXPECT_FALSE(FindMenu(View(quoted), Style({">"}, "Esc to cancel"), &why).has_value());
  EXPECT_NE(why.find("no footer"), std::string::npos) << why;
}

TEST(Menu, NeedsConsecutiveNumbersFromOneAndOneCursor) {
  std::string why;
  std::vector<std::string> from2 = {"❯ 2. b", "  3. c", "Esc to cancel"};
  EXPECT_FALSE(FindMenu(View(from2), Style({"❯"}, "Esc"), &why).has_value());
  std::vector<std::string> gap = {"❯ 1. a", "  3. c", "Esc to cancel"};
  EXPECT_FALSE(FindMenu(View(gap), Style({"❯"}, "Esc"), &why).has_value());
  std::vector<std::string> two = {"❯ 1. a", "❯ 2. b", "Esc to cancel"};
  EXPECT_FALSE(FindMenu(View(two), Style({"❯"}, "Esc"), &why).has_value());
  EXPECT_NE(why.find("2 cursor glyphs"), std::string::npos) << why;
  std::vector<std::string> single = {"❯ 1. a", "Esc to cancel"};
  EXPECT_FALSE(FindMenu(View(single), Style({"❯"}, "Esc"), &why).has_value());
}

TEST(Menu, TheLastMenuOnScreenWins) {
  std::vector<std::string> rows = {
      "❯ 1. old",         "  2. older", "Esc to cancel", "...",
      "Second question?", "  1. new",   "❯ 2. newer",    "Esc to cancel",
  };
  auto m = FindMenu(View(rows), Style({"❯"}, "Esc to cancel"));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->choices, (std::vector<std::string>{"new", "newer"}));
  EXPECT_EQ(m->cursor_position, 2);
}

}  // namespace
}  // namespace agt::detect

namespace agt::detect {
namespace {

// Gemini's menu style: "●" cursor, "▲" scroll marker, the given footer.
MenuStyle GeminiStyle(const char* footer) {
  MenuStyle s;
  s.cursor_glyphs = {"●"};
  s.footer = std::make_shared<const Regex>(std::move(Regex::Compile(footer)).value());
  s.scroll_marker = "▲";
  return s;
}

// Gemini's ask_user list: three options at a time under a "▲" marker.
TEST(Menu, ScrolledListSaysWhereItsWindowStarts) {
  MenuStyle s = GeminiStyle("Enter to select");
  std::vector<std::string> top = {"│ Which checks should the CI job run?",
                                  "│",
                                  "│ ▲",
                                  "│ ● 1. [ ] Unit tests",
                                  "│   2. [ ] Lint",
                                  "│   3. [ ] Type check",
                                  "│ ▼",
                                  "│ Enter to select · Esc to cancel"};
  std::vector<std::string_view> tv(top.begin(), top.end());
  auto a = FindMenu(tv, s);
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->scrolled);
  EXPECT_EQ(a->first_number, 1);
  std::vector<std::string> down = {"│ Which checks should the CI job run?",
                                   "│",
                                   "│ ▲",
                                   "│   2. [x] Lint",
                                   "│   3. [ ] Type check",
                                   "│ ● 4. [ ] All of the above",
                                   "│ ▼",
                                   "│ Enter to select · Esc to cancel"};
  std::vector<std::string_view> dv(down.begin(), down.end());
  auto b = FindMenu(dv, s);
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(b->scrolled);
  EXPECT_EQ(b->first_number, 2);
  EXPECT_EQ(b->cursor_position, 4);
  EXPECT_EQ(b->choices,
            (std::vector<std::string>{"Lint", "Type check", "All of the above"}));
  // Without the marker a list is not scrolled.
  std::vector<std::string> plain = {"Do you want to proceed?", "● 1. Yes", "  2. No",
                                    "Enter to select"};
  std::vector<std::string_view> pv(plain.begin(), plain.end());
  auto c = FindMenu(pv, s);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->scrolled);
}


// Gemini's multi-select ends with an unnumbered "Done" row; the cursor can
// rest there. With cursor_off_list the options are still a menu, cursor 0.
TEST(Menu, CursorOffTheListNeedsTheStyleAndARowBeforeTheFooter) {
  MenuStyle s = GeminiStyle("Enter to submit");
  std::vector<std::string> done = {"│ Which checks should the CI job run?",
                                   "│ ▲",
                                   "│   4. [ ] All of the above",
                                   "│          Select all options",
                                   "│   5. [ ] Enter a custom value",
                                   "│ ●  Done",
                                   "│    Finish selection",
                                   "│ ▼",
                                   "│ Enter to submit · Esc to cancel"};
  std::vector<std::string_view> dv(done.begin(), done.end());
  std::string why;
  EXPECT_FALSE(FindMenu(dv, s, &why).has_value());  // the style does not allow it
  EXPECT_NE(why.find("0 cursor glyphs"), std::string::npos) << why;
  s.cursor_off_list = true;
  auto m = FindMenu(dv, s, &why);
  ASSERT_TRUE(m.has_value()) << why;
  EXPECT_EQ(m->cursor_position, 0);
  EXPECT_EQ(m->first_number, 4);
  EXPECT_TRUE(m->multi_select);
  EXPECT_EQ(m->choices,
            (std::vector<std::string>{"All of the above", "Enter a custom value"}));
  // A glyph below the footer, or no glyph at all, is still no menu.
  std::vector<std::string> after = {"│ Which?", "│ ▲", "│   1. [ ] A", "│   2. [ ] B",
                                    "│ Enter to submit", "│ ●  Done"};
  std::vector<std::string_view> av(after.begin(), after.end());
  EXPECT_FALSE(FindMenu(av, s, &why).has_value());
  EXPECT_NE(why.find("no row between them and the footer"), std::string::npos) << why;
  std::vector<std::string> none = {"│ Which?", "│   1. [ ] A", "│   2. [ ] B", "│    Done",
                                   "│ Enter to submit"};
  std::vector<std::string_view> nv(none.begin(), none.end());
  EXPECT_FALSE(FindMenu(nv, s).has_value());
}

}  // namespace
}  // namespace agt::detect

namespace agt::detect {
namespace {

// Claude Code 2.1.330 draws some dialogs' options without numbers: the
// cursor row "❯ No" and the rows in its label column next to it.
TEST(Menu, OptionsWithoutNumbersNeedTheStyle) {
  std::vector<std::string> rows = {
      " Auto mode can't check actions in this session, so this one needs your approval",
      "",
      " Do you want to proceed?",
      " ❯ No",
      "   Yes",
      "",
      " Esc to cancel · Tab to amend",
  };
  MenuStyle s = Style({"❯"}, "Esc to cancel");
  std::string why;
  EXPECT_FALSE(FindMenu(View(rows), s, &why).has_value());
  EXPECT_NE(why.find("no numbered option rows"), std::string::npos) << why;
  s.unnumbered = true;
  auto m = FindMenu(View(rows), s, &why);
  ASSERT_TRUE(m.has_value()) << why;
  EXPECT_FALSE(m->numbered);
  EXPECT_EQ(m->choices, (std::vector<std::string>{"No", "Yes"}));
  EXPECT_EQ(m->cursor_position, 1);
  EXPECT_EQ(m->question, "Do you want to proceed?");
  // the cursor on the second row
  rows[3] = "   No";
  rows[4] = " ❯ Yes";
  m = FindMenu(View(rows), s, &why);
  ASSERT_TRUE(m.has_value()) << why;
  EXPECT_EQ(m->choices, (std::vector<std::string>{"No", "Yes"}));
  EXPECT_EQ(m->cursor_position, 2);
}

TEST(Menu, OptionsWithoutNumbersAreNotAPromptOrAPopup) {
  MenuStyle s = Style({"❯"}, "Esc to cancel|Enter to confirm");
  s.unnumbered = true;
  std::string why;
  // the prompt box: one cursor row, a rule below
  std::vector<std::string> prompt = {"────────────────", "❯ make the build", "────────────────",
                                     "  ? for shortcuts"};
  EXPECT_FALSE(FindMenu(View(prompt), s, &why).has_value());
  EXPECT_NE(why.find("no option rows next to it"), std::string::npos) << why;
  // the slash-command popup has options in its column, but no footer
  std::vector<std::string> popup = {"  ❯ /exit       Exit the CLI", "    /context    Show context",
                                    "────────────────", "❯ /exit"};
  EXPECT_FALSE(FindMenu(View(popup), s, &why).has_value());
  // a numbered menu is found first, and wins
  std::vector<std::string> numbered = {"Proceed?", "❯ 1. Yes", "  2. No", "Esc to cancel"};
  auto m = FindMenu(View(numbered), s, &why);
  ASSERT_TRUE(m.has_value()) << why;
  EXPECT_TRUE(m->numbered);
}

// A dialog without a footer row (Claude's "Make auto mode your default
// permission mode?") is found with a style whose footer is null.
TEST(Menu, OptionsWithoutNumbersOrFooter) {
  std::vector<std::string> rows = {
      "  Make auto mode your default permission mode?",
      "",
      "  Auto mode lets Claude handle permission prompts automatically.",
      "",
      "  ❯ Yes, set auto mode as my default permission mode",
      "    No, keep manual mode",
  };
  MenuStyle s = Style({"❯"}, nullptr);
  s.unnumbered = true;
  auto m = FindMenu(View(rows), s);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->choices, (std::vector<std::string>{
                            "Yes, set auto mode as my default permission mode",
                            "No, keep manual mode"}));
  EXPECT_EQ(m->cursor_position, 1);
}

}  // namespace
}  // namespace agt::detect
