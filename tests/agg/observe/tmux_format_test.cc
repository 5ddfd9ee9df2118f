// The list-panes format and parser against hostile names (no tmux needed).
#include "aggregator/observe/tmux_format.h"

#include <gtest/gtest.h>

namespace agt::agg {
namespace {

const std::string kR = std::string(kTokenStem) + "R~";
const std::string kE = std::string(kTokenStem) + "E~";
const std::string kF = std::string(kTokenStem) + "F~";

struct Rec {
  std::string session_id = "$1", session_name = "work", window_id = "@2",
              window_index = "0", window_name = "zsh", pane_id = "%3", pane_index = "1",
              pane_pid = "4242", tty = "/dev/pts/7", command = "claude", title = "✳ Task",
              path = "/home/u/p", width = "120", height = "40", active = "1", dead = "0",
              activity = "1700000000", pid = "99", cx = "4", cy = "38", alt = "0";
  std::string Text() const {
    std::vector<std::string> f = {session_id, session_name, window_id, window_index, window_name,
                                  pane_id,    pane_index,   pane_pid,  tty,          command,
                                  title,      path,         width,     height,       active,
                                  dead,       activity,     pid,       cx,           cy,
                                  alt};
    std::string s = kR;
    for (size_t i = 0; i < f.size(); ++i) s += (i ? kF : "") + f[i];
    return s + kE;
  }
};

TEST(TmuxFormat, ParsesOneRecord) {
  auto r = ParseListPanes(Rec{}.Text() + "\n");
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->size(), 1u);
  const PaneRecord& p = (*r)[0];
  EXPECT_EQ(p.info.session_id, "$1");
  EXPECT_EQ(p.info.session_name, "work");
  EXPECT_EQ(p.info.window_id, "@2");
  EXPECT_EQ(p.info.pane_id, "%3");
  EXPECT_EQ(p.info.pane_index, 1);
  EXPECT_EQ(p.info.pid, 4242);
  EXPECT_EQ(p.info.tty, "/dev/pts/7");
  EXPECT_EQ(p.info.current_command, "claude");
  EXPECT_EQ(p.info.title, "✳ Task");
  EXPECT_EQ(p.info.cwd, "/home/u/p");
  EXPECT_EQ(p.info.width, 120);
  EXPECT_EQ(p.info.height, 40);
  EXPECT_TRUE(p.info.active);
  EXPECT_FALSE(p.info.dead);
  EXPECT_EQ(p.window_activity, 1700000000);
  EXPECT_EQ(p.info.activity_at, 1700000000 * core::kNsPerSec);
  EXPECT_EQ(p.server_pid, 99);
  EXPECT_EQ(p.cursor_x, 4);
  EXPECT_EQ(p.cursor_y, 38);
}

TEST(TmuxFormat, HostileNamesKeepTheirBytes) {
  Rec a;
  a.session_name = "日本語 セッション 🚀\tx";
  a.window_name = "a \\t b | c ; d \" ' $HOME";
  a.title = "%end 1 2 1";
  a.path = "/tmp/dir with\nnewline";  // a raw newline inside a record
  Rec b;
  b.pane_id = "%4";
  b.session_name = " ";
  b.window_name = "";
  auto r = ParseListPanes(a.Text() + "\n" + b.Text() + "\n");
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].info.session_name, "日本語 セッション 🚀\tx");
  EXPECT_EQ((*r)[0].info.window_name, "a \\t b | c ; d \" ' $HOME");
  EXPECT_EQ((*r)[0].info.title, "%end 1 2 1");
  EXPECT_EQ((*r)[0].info.cwd, "/tmp/dir with\nnewline");
  EXPECT_EQ((*r)[1].info.session_name, " ");
  EXPECT_EQ((*r)[1].info.window_name, "");
  EXPECT_EQ((*r)[1].info.pane_id, "%4");
}

TEST(TmuxFormat, TheTokenInANameIsAnErrorNotAShift) {
  // tmux substitutes the stem away, so a record holding it is corrupt:
  // the parser must refuse it with a clear message, never shift fields.
  Rec a;
  a.session_name = "x" + kF + "y";
  auto r = ParseListPanes(a.Text());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kPayloadInvalid);
  EXPECT_NE(r.error().message.find("record 1"), std::string::npos);
  EXPECT_NE(r.error().message.find("22 fields, expected 21"), std::string::npos);
}

TEST(TmuxFormat, BadNumbersAndIdsNameTheField) {
  Rec a;
  a.pane_pid = "12x";
  auto r = ParseListPanes(a.Text());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("pane_pid"), std::string::npos);
  Rec b;
  b.pane_id = "7";
  auto r2 = ParseListPanes(b.Text());
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("pane_id"), std::string::npos);
  auto r3 = ParseListPanes(kR + "abc");
  ASSERT_FALSE(r3.ok());
  EXPECT_NE(r3.error().message.find("no end marker"), std::string::npos);
}

TEST(TmuxFormat, EmptyAndNoiseGiveNoPanes) {
  auto r = ParseListPanes("");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
  auto r2 = ParseListPanes("garbage\n\n%begin 1 2 3\n");
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2->empty());
}

TEST(TmuxFormat, FormatRoutesFreeTextThroughTheSubstitution) {
  const std::string& f = ListPanesFormat();
  EXPECT_NE(f.find("#{s/~7aGt|\n/_/:session_name}"), std::string::npos);
  EXPECT_NE(f.find("#{s/~7aGt|\n/_/:pane_current_path}"), std::string::npos);
  EXPECT_NE(f.find("#{pane_id}"), std::string::npos);
  EXPECT_EQ(f.find("#{s/~7aGt|\n/_/:pane_id}"), std::string::npos);
}

TEST(TmuxQuote, EscapesWhatTmuxsParserInterprets) {
  EXPECT_EQ(TmuxQuote("plain"), "\"plain\"");
  EXPECT_EQ(TmuxQuote("a\"b\\c$d~e"), "\"a\\\"b\\\\c\\$d\\~e\"");
  EXPECT_EQ(TmuxQuote("x\ny\tz"), "\"x\\ny\\tz\"");
  EXPECT_EQ(TmuxQuote(std::string("\x01", 1)), "\"\\001\"");
  EXPECT_EQ(TmuxQuote("#{pane_id} ;"), "\"#{pane_id} ;\"");
}

}  // namespace
}  // namespace agt::agg
