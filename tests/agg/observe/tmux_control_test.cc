// The control-mode protocol parser on canned and odd output.
#include "aggregator/observe/tmux_control.h"

#include <gtest/gtest.h>

namespace agt::agg {
namespace {

TEST(ControlParser, RepliesAndNotificationsInOrder) {
  ControlParser p;
  p.Feed("%begin 100 1 0\n%end 100 1 0\n%session-changed $1 work\n");
  p.Feed("%begin 100 2 1\nline one\nline two\n%end 100 2 1\n");
  p.Feed("%output %7 hello\\015\\012\n%window-add @3\n");
  p.Feed("%begin 100 3 1\nbad target\n%error 100 3 1\n");
  auto replies = p.TakeReplies();
  ASSERT_EQ(replies.size(), 2u);  // the flags-0 attach block is not a reply
  EXPECT_TRUE(replies[0].ok);
  EXPECT_EQ(replies[0].text, "line one\nline two");
  EXPECT_FALSE(replies[1].ok);
  EXPECT_EQ(replies[1].text, "bad target");
  auto notes = p.TakeNotifications();
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0].name, "session-changed");
  EXPECT_EQ(notes[0].args, "$1 work");
  EXPECT_EQ(notes[1].name, "output");
  EXPECT_EQ(notes[1].pane_id, "%7");
  EXPECT_EQ(notes[2].name, "window-add");
  EXPECT_TRUE(p.TakeReplies().empty());
  // Where each reply stands among the notifications (byte screens need the
  // order: docs/observe.md, "Byte screens").
  EXPECT_EQ(replies[0].notes_before, 1u);
  EXPECT_EQ(replies[1].notes_before, 3u);
}

TEST(ControlParser, LinesSplitAcrossReads) {
  ControlParser p;
  std::string all = "%begin 5 9 1\nab\xe2\x9c";
  p.Feed(all);
  EXPECT_TRUE(p.InBlock());
  p.Feed("\xb3 cd\n%en");
  p.Feed("d 5 9 1\n");
  auto r = p.TakeReplies();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].text, "ab\xe2\x9c\xb3 cd");
}

TEST(ControlParser, ForeignEndLineInsideABlockIsData) {
  ControlParser p;
  p.Feed("%begin 7 3 1\n%end 1 1 1\n%error 7 2 1\n%output %1 x\n%end 7 3 1\n");
  auto r = p.TakeReplies();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].text, "%end 1 1 1\n%error 7 2 1\n%output %1 x");
  EXPECT_TRUE(p.TakeNotifications().empty());
}

TEST(ControlParser, EmptyReplyAndCrlfAndNoise) {
  ControlParser p;
  p.Feed("junk without percent\n%\n%begin 1 1 1\r\n%end 1 1 1\r\n%exit\n");
  auto r = p.TakeReplies();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].text, "");
  auto n = p.TakeNotifications();
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].name, "exit");
}

TEST(ControlParser, MalformedBeginIsIgnored) {
  ControlParser p;
  p.Feed("%begin\n%begin x\n%window-close @1\n");
  EXPECT_FALSE(p.InBlock());
  EXPECT_EQ(p.TakeNotifications().size(), 1u);
}

TEST(ControlParser, AFlagsFieldOfAnyLengthOnlyMattersByItsLastBit) {
  // Found by tests/fuzz (fuzz_tmux): a long flags field overflowed an int
  // (undefined behaviour, caught by UBSan).
  ControlParser p;
  p.Feed("%begin 1 7 340000000123456789012345678901\nodd\n%end 1 7 340000000123456789012345678901\n");
  p.Feed("%begin 1 8 340000000123456789012345678900\neven\n%end 1 8 340000000123456789012345678900\n");
  auto r = p.TakeReplies();
  ASSERT_EQ(r.size(), 1u);  // the even one came from another client
  EXPECT_EQ(r[0].text, "odd");
}

TEST(UnescapeOutput, Octal) {
  EXPECT_EQ(UnescapeOutput("a\\134b\\015\\012"), "a\\b\r\n");
  EXPECT_EQ(UnescapeOutput("\\1"), "\\1");   // truncated escape kept as is
  EXPECT_EQ(UnescapeOutput("\\9xx"), "\\9xx");
}

}  // namespace
}  // namespace agt::agg
