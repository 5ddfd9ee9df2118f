// Unit tests of the CLI's display-width tables and status-line text.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <sstream>

#include "cli/cmd/status_line.h"
#include "cli/table.h"

namespace agt::cli {
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

TEST(PanesTable, MarksAnAgentVersionItsSetWasNotVerifiedOn) {
  rapidjson::Document d;
  d.Parse(R"([
    {"identity":{"target":"host","session_name":"w","window_id":"@1","pane_id":"%1"},"agent_type":"claude",
     "state":"unknown","reason_code":"no_rule_matched","source":"PTY","updated_at":null,
     "agent_version":"2.1.330","verified":false,"verified_on":["2.1.197"]},
    {"identity":{"target":"host","session_name":"w","window_id":"@1","pane_id":"%2"},"agent_type":"claude",
     "state":"running","source":"HOOK","updated_at":null,
     "agent_version":"2.1.197","verified":true,"verified_on":["2.1.197"]},
    {"identity":{"target":"host","session_name":"w","window_id":"@1","pane_id":"%3"},"agent_type":"codex",
     "state":"idle","source":"CAP","updated_at":null,"agent_version":null,"verified":null,"verified_on":[]}
  ])");
  ASSERT_TRUE(d.IsArray());
  const std::string out = RenderItemsTable("panes", d, 0, false, false, 0);
  std::istringstream in(out);
  std::string header, p1, p2, p3, blank, note;
  std::getline(in, header);
  std::getline(in, p1);
  std::getline(in, p2);
  std::getline(in, p3);
  EXPECT_NE(p1.find("claude!"), std::string::npos) << out;
  EXPECT_EQ(p2.find("claude!"), std::string::npos) << out;
  EXPECT_EQ(p3.find("codex!"), std::string::npos) << "an unknown version is not flagged\n" << out;
  EXPECT_NE(out.find("! %1 claude 2.1.330: not a version its pattern set was verified on (2.1.197)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("agtmux patterns doctor"), std::string::npos) << out;
}

TEST(Table, NarrowsShrinkableColumnsToFitTheWidth) {
  Table t({"NAME", "STATE", "DETAIL"});
  t.SetShrinkable(0, 6);
  t.SetShrinkable(2, 6);
  t.AddRow({"a-very-long-session-name:0.1", "waiting_approval", "Bash(rm -rf build && make -j8 all test)"});
  const std::string wide = t.Render(false);
  EXPECT_GT(DisplayWidth(wide.substr(wide.find('\n') + 1)), 40);
  const std::string out = t.Render(false, 40);
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) EXPECT_LE(DisplayWidth(line), 40) << out;
  EXPECT_NE(out.find("waiting_approval"), std::string::npos) << "a column that is not shrinkable stays whole\n" << out;
  EXPECT_NE(out.find("…"), std::string::npos) << out;
}

TEST(PanesTable, FitsEightyColumnsAndShowsRefsUsersType) {
  rapidjson::Document d;
  d.Parse(R"json([
    {"identity":{"target":"host","session_name":"a-rather-long-project-session","window_id":"@3","pane_id":"%14"},
     "window_index":2,"pane_index":1,"agent_type":"claude","state":"waiting_approval","source":"PTY","updated_at":null,
     "waiting":{"details":"Bash(npm run build && npm test -- --coverage --reporters=default)"}},
    {"identity":{"target":"host","session_name":"w","window_id":"@1","pane_id":"%2"},
     "window_index":0,"pane_index":0,"agent_type":"codex","state":"running","source":"HOOK","updated_at":null}
  ])json");
  ASSERT_TRUE(d.IsArray());
  const std::string out = RenderItemsTable("panes", d, 0, false, false, 80);
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) EXPECT_LE(DisplayWidth(line), 80) << out;
  EXPECT_EQ(out.find("TARGET"), std::string::npos) << "panes on this machine only: no TARGET column\n" << out;
  EXPECT_NE(out.find("w:0.0"), std::string::npos) << out;
  EXPECT_NE(out.find("%14"), std::string::npos) << out;
  EXPECT_NE(out.find("waiting_approval"), std::string::npos) << out;
  d[1]["identity"]["target"].SetString("vm1");
  const std::string two = RenderItemsTable("panes", d, 0, false, false, 0);
  EXPECT_NE(two.find("TARGET"), std::string::npos) << two;
  EXPECT_NE(two.find("vm1"), std::string::npos) << two;
}

TEST(Explain, SaysWhetherTheVersionWasVerified) {
  rapidjson::Document no, yes, unknown, old;
  no.Parse(R"({"runtime":{"agent_version":"2.1.330"},"verified":false,"verified_on":["2.1.197","2.1.168"]})");
  EXPECT_EQ(VerifiedLine(no),
            "verified no: 2.1.330 is not a version the pattern set was verified on (2.1.197, 2.1.168); "
            "the state is read with unchecked rules (agtmux patterns doctor)\n");
  yes.Parse(R"({"runtime":{"agent_version":"2.1.197"},"verified":true,"verified_on":["2.1.197"]})");
  EXPECT_EQ(VerifiedLine(yes), "verified yes: 2.1.197 (the set is verified on 2.1.197)\n");
  unknown.Parse(R"({"runtime":{"agent_version":null},"verified":null,"verified_on":["2.1.197"]})");
  EXPECT_NE(VerifiedLine(unknown).find("verified unknown"), std::string::npos);
  old.Parse(R"({"runtime":{}})");
  EXPECT_EQ(VerifiedLine(old), "");
}

TEST(StatusLine, CompactCounts) {
  rapidjson::Document d;
  d.Parse(R"({"summary":{"by_state":{"error":0,"waiting_approval":0,"waiting_input":0,"running":3,"completed":1,"idle":2,"unknown":0}},"items":[]})");
  EXPECT_EQ(StatusLineText(d, {}), "▶3 ✓1");
  EXPECT_EQ(StatusLineText(d, {.ascii = true}), "R3 D1");
  d.Parse(R"({"summary":{"by_state":{"error":0,"waiting_approval":0,"waiting_input":0,"running":0,"completed":0,"idle":1,"unknown":0}},"items":[]})");
  EXPECT_EQ(StatusLineText(d, {}), "");
  EXPECT_EQ(StatusLineText(d, {.tmux = true}), "");
}

// What waits is named: the agent and session:window of the pane that has
// waited longest; in status-right each part has its tmux colour, and a '#'
// in a session name cannot start a style.
TEST(StatusLine, NamesWhatWaitsAndColoursForTmux) {
  rapidjson::Document d;
  d.Parse(R"({"summary":{"by_state":{"error":1,"waiting_approval":1,"waiting_input":1,"running":2,"completed":0}},
    "items":[
     {"identity":{"session_name":"api"},"window_index":2,"agent_type":"codex","state":"waiting_input","age_seconds":5},
     {"identity":{"session_name":"w#[fg=red]"},"window_index":1,"agent_type":"claude","state":"waiting_approval","age_seconds":40},
     {"identity":{"session_name":"x"},"window_index":0,"agent_type":"gemini","state":"running","age_seconds":90}]})");
  EXPECT_EQ(StatusLineText(d, {}), "✗1 ⚠2 claude w#[fg=red]:1 ▶2");
  EXPECT_EQ(StatusLineText(d, {.ascii = true}), "E1 W2 claude w#[fg=red]:1 R2");
  EXPECT_EQ(StatusLineText(d, {.tmux = true}),
            "#[fg=red,bold]✗1#[default] #[fg=yellow,bold]⚠2 claude w##[fg=red]:1#[default] "
            "#[fg=green]▶2#[default]");
  // A long session name is cut to 12 characters.
  d.Parse(R"({"summary":{"by_state":{"waiting_input":1}},
    "items":[{"identity":{"session_name":"a-very-long-session-name"},"window_index":3,"agent_type":"claude",
              "state":"waiting_input","age_seconds":1}]})");
  EXPECT_EQ(StatusLineText(d, {}), "⚠1 claude a-very-long-…:3");
}

}  // namespace
}  // namespace agt::cli
