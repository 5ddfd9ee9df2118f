// Unit tests of the interactive view's model and layout (cli/ui/model.h,
// cli/ui/frame.h): watch-stream lines and keys in, rows, intents and
// frame lines out, with no terminal and no daemon.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "cli/table.h"
#include "cli/ui/ansi_line.h"
#include "cli/ui/frame.h"
#include "cli/ui/model.h"

namespace agt::cli::ui {
namespace {

std::string Item(const std::string& target, const std::string& session, int window, const std::string& pane,
                 const std::string& agent, const std::string& state, const std::string& extra = "") {
  return "{\"identity\":{\"target\":\"" + target + "\",\"session_name\":\"" + session + "\",\"window_id\":\"@" +
         std::to_string(window) + "\",\"pane_id\":\"" + pane + "\"},\"ref\":\"pane:" + target + "/" + session + "/@" +
         std::to_string(window) + "/" + pane + "\",\"window_index\":" + std::to_string(window) +
         ",\"window_name\":\"w\",\"pane_index\":0,\"agent\":true,\"state\":\"" + state +
         "\",\"source\":\"PTY\",\"agent_type\":\"" + agent + "\",\"runtime_id\":\"rt-" + pane.substr(1) +
         "\",\"updated_at\":\"2026-11-24T10:00:00Z\"" + extra + "}";
}

void Feed(Model* m, const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  ASSERT_FALSE(d.HasParseError()) << json;
  m->Apply(d);
  m->Rebuild();
}

std::string Snapshot(const std::vector<std::string>& items) {
  std::string s = "{\"type\":\"snapshot\",\"cursor\":\"s:1\",\"summary\":{\"agent_panes\":" +
                  std::to_string(items.size()) + ",\"by_state\":{}},\"items\":[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? "," : "") + items[i];
  return s + "]}";
}

const std::string kWaiting =
    ",\"waiting\":{\"approval_type\":\"shell\",\"details\":\"rm -rf build\",\"choices\":[\"Yes\",\"No\"]}";

class UiModel : public ::testing::Test {
 protected:
  void SetUp() override {
    Feed(&m_, Snapshot({Item("host", "work", 1, "%1", "claude", "running"),
                        Item("host", "work", 2, "%2", "codex", "waiting_approval", kWaiting),
                        Item("vm1", "api", 0, "%3", "gemini", "idle")}));
  }
  Model m_;
};

TEST_F(UiModel, GroupsPanesByTargetAndSession) {
  ASSERT_EQ(m_.lines().size(), 5u);
  EXPECT_TRUE(m_.lines()[0].header);
  EXPECT_EQ(m_.lines()[0].label, "host / work (2)");
  EXPECT_EQ(m_.rows()[static_cast<size_t>(m_.lines()[1].row)].ref, "pane:host/work/@1/%1");
  EXPECT_EQ(m_.lines()[3].label, "vm1 / api (1)");
  // The first pane, not the header, is selected.
  ASSERT_NE(m_.Selected(), nullptr);
  EXPECT_EQ(m_.Selected()->ref, "pane:host/work/@1/%1");
}

TEST_F(UiModel, MovesOverHeadersAndKeepsTheSelectionAcrossUpdates) {
  m_.HandleKey('j');
  EXPECT_EQ(m_.Selected()->ref, "pane:host/work/@2/%2");
  m_.HandleKey('j');  // over "vm1 / api"
  EXPECT_EQ(m_.Selected()->ref, "pane:vm1/api/@0/%3");
  m_.HandleKey('j');  // at the end: stays
  EXPECT_EQ(m_.Selected()->ref, "pane:vm1/api/@0/%3");
  m_.HandleKey(kKeyUp);
  EXPECT_EQ(m_.Selected()->ref, "pane:host/work/@2/%2");
  // A new pane sorted before the selected one does not move the selection.
  Feed(&m_, "{\"type\":\"delta\",\"changes\":[{\"op\":\"upsert\",\"identity\":{\"target\":\"host\",\"session_name\":"
            "\"aaa\",\"window_id\":\"@0\",\"pane_id\":\"%9\"},\"item\":" +
                Item("host", "aaa", 0, "%9", "claude", "running") + "}]}");
  EXPECT_EQ(m_.Selected()->ref, "pane:host/work/@2/%2");
  // When the selected pane goes away, the selection stays near.
  Feed(&m_, "{\"type\":\"delta\",\"changes\":[{\"op\":\"delete\",\"identity\":{\"target\":\"host\",\"session_name\":"
            "\"work\",\"window_id\":\"@2\",\"pane_id\":\"%2\"}}]}");
  ASSERT_NE(m_.Selected(), nullptr);
  EXPECT_NE(m_.Selected()->ref, "pane:host/work/@2/%2");
}

TEST_F(UiModel, WaitingOnlyAgentAndTargetFilters) {
  m_.HandleKey('w');
  ASSERT_EQ(m_.rows().size(), 1u);
  EXPECT_EQ(m_.rows()[0].state, "waiting_approval");
  m_.HandleKey('w');
  EXPECT_EQ(m_.rows().size(), 3u);
  m_.HandleKey('A');  // agents cycle in order: claude, codex, gemini, all
  EXPECT_EQ(m_.filters().agent, "claude");
  ASSERT_EQ(m_.rows().size(), 1u);
  m_.HandleKey('A');
  m_.HandleKey('A');
  EXPECT_EQ(m_.filters().agent, "gemini");
  m_.HandleKey('A');
  EXPECT_EQ(m_.filters().agent, "");
  EXPECT_EQ(m_.rows().size(), 3u);
  m_.HandleKey('T');
  EXPECT_EQ(m_.filters().target, "host");
  EXPECT_EQ(m_.rows().size(), 2u);
  m_.HandleKey('x');
  EXPECT_EQ(m_.rows().size(), 3u);
}

TEST_F(UiModel, KeysBecomeGuardedIntents) {
  // A running pane has nothing to answer: refused here, nothing sent.
  Intent none = m_.HandleKey('a');
  EXPECT_EQ(none.kind, Intent::kNone);
  EXPECT_TRUE(m_.status_error());
  m_.HandleKey('j');
  Intent yes = m_.HandleKey('a');
  EXPECT_EQ(yes.kind, Intent::kRespond);
  EXPECT_EQ(yes.ref, "pane:host/work/@2/%2");
  EXPECT_EQ(yes.runtime_id, "rt-2");
  EXPECT_EQ(yes.choices, std::vector<std::string>{"yes"});
  EXPECT_EQ(m_.HandleKey('d').choices, std::vector<std::string>{"no"});
  EXPECT_EQ(m_.HandleKey('2').choices, std::vector<std::string>{"2"});
  EXPECT_EQ(m_.HandleKey(kKeyEnter).kind, Intent::kJump);
  EXPECT_EQ(m_.HandleKey('q').kind, Intent::kQuit);
  EXPECT_EQ(m_.HandleKey(kKeyEscape).kind, Intent::kQuit);
}

TEST_F(UiModel, TypingAPromptSendsItOnEnter) {
  m_.HandleKey('p');
  ASSERT_TRUE(m_.prompting());
  // Keys while typing are text, not commands ('q' does not quit).
  for (int k : std::vector<int>{'f', 'i', 'x', ' ', 'q', 0x00E9}) EXPECT_EQ(m_.HandleKey(k).kind, Intent::kNone);
  m_.HandleKey(kKeyBackspace);  // drops the two-byte é whole
  EXPECT_EQ(m_.prompt_text(), "fix q");
  Intent send = m_.HandleKey(kKeyEnter);
  EXPECT_EQ(send.kind, Intent::kSend);
  EXPECT_EQ(send.text, "fix q");
  EXPECT_EQ(send.ref, "pane:host/work/@1/%1");
  EXPECT_FALSE(m_.prompting());
  m_.HandleKey('p');
  m_.HandleKey('z');
  EXPECT_EQ(m_.HandleKey(kKeyEscape).kind, Intent::kNone);  // cancels, does not quit
  EXPECT_FALSE(m_.prompting());
}

// `/` opens a typed filter: the rows follow each key; words match agent,
// target, session, state or what waits, `field:` limits a word; Enter
// keeps the filter, Esc clears it (and only then quits).
TEST_F(UiModel, SlashFiltersByTypedText) {
  auto type = [&](const std::string& text) {
    for (char c : text) EXPECT_EQ(m_.HandleKey(static_cast<unsigned char>(c)).kind, Intent::kNone);
  };
  m_.HandleKey('/');
  ASSERT_TRUE(m_.filtering());
  type("cod");
  ASSERT_EQ(m_.rows().size(), 1u);
  EXPECT_EQ(m_.rows()[0].agent, "codex");
  m_.HandleKey(kKeyBackspace);
  m_.HandleKey(kKeyBackspace);
  m_.HandleKey(kKeyBackspace);
  EXPECT_EQ(m_.rows().size(), 3u);
  type("RM -RF");  // what the pane waits on, case-insensitive
  ASSERT_EQ(m_.rows().size(), 1u);
  EXPECT_EQ(m_.rows()[0].agent, "codex");
  EXPECT_EQ(m_.HandleKey(kKeyEnter).kind, Intent::kNone);
  EXPECT_FALSE(m_.filtering());
  EXPECT_EQ(m_.filters().text, "RM -RF");
  std::string title;
  const std::vector<FrameLine> frame = BuildFrame(&m_, 80, 24, 0);
  for (const auto& seg : frame[0].segments) title += seg.text;
  EXPECT_NE(title.find("[/RM -RF]"), std::string::npos) << title;
  // Esc in the list clears the typed filter; it does not quit.
  EXPECT_EQ(m_.HandleKey(kKeyEscape).kind, Intent::kNone);
  EXPECT_EQ(m_.filters().text, "");
  EXPECT_EQ(m_.rows().size(), 3u);
  // Words narrow together; a field limits a word.
  m_.HandleKey('/');
  type("host w");
  EXPECT_EQ(m_.rows().size(), 2u);  // target host, session work
  for (int i = 0; i < 6; ++i) m_.HandleKey(kKeyBackspace);
  type("target:vm1");
  ASSERT_EQ(m_.rows().size(), 1u);
  EXPECT_EQ(m_.rows()[0].agent, "gemini");
  for (int i = 0; i < 10; ++i) m_.HandleKey(kKeyBackspace);
  type("agent:vm1");
  EXPECT_EQ(m_.rows().size(), 0u);
  EXPECT_EQ(m_.HandleKey(kKeyEscape).kind, Intent::kNone);  // clears while typing
  EXPECT_FALSE(m_.filtering());
  EXPECT_EQ(m_.rows().size(), 3u);
  EXPECT_EQ(m_.HandleKey(kKeyEscape).kind, Intent::kQuit);  // nothing to clear: quits
}

// The preview keeps the pane's colours: SGR sequences become segment
// colours and attributes; other escapes are dropped.
TEST(AnsiLine, SgrBecomesColoursAndOtherEscapesGo) {
  FrameLine l = AnsiLine("plain \x1b[1;31mred bold\x1b[0m \x1b[38;5;208;48;2;0;0;255mtone\x1b[39;49m"
                         "\x1b]0;title\x07\x1b[2Kend\tx");
  EXPECT_EQ(LineText(l), "plain red bold toneend    x");
  ASSERT_EQ(l.segments.size(), 5u);
  EXPECT_EQ(l.segments[0].fg, -1);
  EXPECT_EQ(l.segments[1].text, "red bold");
  EXPECT_EQ(l.segments[1].fg, 1);
  EXPECT_EQ(l.segments[1].attrs, kAttrBold);
  EXPECT_EQ(l.segments[2].text, " ");
  EXPECT_EQ(l.segments[2].fg, -1);
  EXPECT_EQ(l.segments[2].attrs, 0);
  EXPECT_EQ(l.segments[3].text, "tone");
  EXPECT_EQ(l.segments[3].fg, 208);
  EXPECT_EQ(l.segments[3].bg, 21);  // rgb(0,0,255) -> the 256-colour cube's blue
  EXPECT_EQ(l.segments[4].fg, -1);
  EXPECT_EQ(l.segments[4].bg, -1);
  // Bright colours and an unterminated escape at the end.
  FrameLine b = AnsiLine("\x1b[92mok\x1b[");
  ASSERT_EQ(b.segments.size(), 1u);
  EXPECT_EQ(b.segments[0].fg, 10);
  EXPECT_EQ(LineText(b), "ok");
}

TEST_F(UiModel, ResetClearsUntilTheNextSnapshot) {
  Feed(&m_, "{\"type\":\"reset\",\"reason\":\"stream_changed\"}");
  EXPECT_TRUE(m_.rows().empty());
  EXPECT_EQ(m_.Selected(), nullptr);
  EXPECT_EQ(m_.HandleKey('a').kind, Intent::kNone);
}

TEST_F(UiModel, FrameFitsTheTerminalAndShowsStateSourceAndWhatWaits) {
  m_.set_connection(Connection::kLive);
  m_.HandleKey('j');
  m_.SetPreview(m_.Selected()->key, "line one\n\tDo you want to proceed? 開発 🚀 " + std::string(200, 'x') + "\n\n");
  for (int cols : {80, 40, 120}) {
    for (int rows : {24, 8, 3}) {
      auto frame = BuildFrame(&m_, cols, rows, 0);
      ASSERT_EQ(static_cast<int>(frame.size()), rows);
      for (const auto& l : frame) EXPECT_LE(LineWidth(l), cols) << LineText(l);
    }
  }
  auto frame = BuildFrame(&m_, 80, 24, 0);
  std::string all;
  for (const auto& l : frame) all += LineText(l) + "\n";
  EXPECT_NE(all.find("waiting_approval PTY  codex"), std::string::npos) << all;
  EXPECT_NE(all.find("rm -rf build | 1.Yes 2.No"), std::string::npos) << all;
  EXPECT_NE(all.find("host / work (2)"), std::string::npos) << all;
  EXPECT_NE(all.find("Do you want to proceed?"), std::string::npos) << all;  // the preview
  EXPECT_NE(all.find("3 agent panes"), std::string::npos) << all;
  m_.set_connection(Connection::kNotAnswering);
  EXPECT_NE(LineText(BuildFrame(&m_, 80, 24, 0)[0]).find("daemon not answering"), std::string::npos);
}

TEST_F(UiModel, ScrollsToKeepTheSelectionInView) {
  std::vector<std::string> many;
  for (int i = 0; i < 60; ++i) many.push_back(Item("host", "s", i, "%" + std::to_string(i + 10), "claude", "idle"));
  Feed(&m_, Snapshot(many));
  for (int i = 0; i < 59; ++i) m_.HandleKey('j');
  auto frame = BuildFrame(&m_, 80, 24, 0);
  bool seen = false;
  for (const auto& l : frame) seen = seen || LineText(l).rfind("> ", 0) == 0;
  EXPECT_TRUE(seen) << "the selected row is not on screen";
  EXPECT_NE(LineText(frame[1]).find("%"), std::string::npos);
}

}  // namespace
}  // namespace agt::cli::ui
