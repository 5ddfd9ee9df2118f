#include <gtest/gtest.h>

#include "libagtcore/detect/pattern_analyzer.h"

namespace agt::detect {
namespace {

using core::kNsPerMs;
using core::State;

constexpr const char* kSet = R"toml(
agent = "demo"
[menu]
cursor = ["❯"]
footer = 'Esc to cancel'

[[rule]]
id = "demo.approval"
state = "waiting_approval"
region = "bottom_lines(8)"
regex = 'Do you want to proceed\?'
menu = true
approval_type = "shell"
confidence = "high"

[[rule]]
id = "demo.working"
state = "running"
region = "bottom_lines(3)"
regex = 'esc to interrupt'
confidence = "high"

[[rule]]
id = "demo.idle"
state = "idle"
region = "bottom_lines(3)"
regex = '^❯ '
)toml";

class AnalyzerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto lib = std::make_shared<PatternLibrary>();
    auto set = ParsePatternSet(kSet, "demo.toml");
    ASSERT_TRUE(set.ok()) << set.error().message;
    lib->Put(std::move(set).value());
    lib_ = lib;
    analyzer_ = CreateAnalyzer(lib_, "demo");
  }

  Verdict At(int64_t ms, std::vector<std::string> lines, int64_t last_output_ms = 0,
             int64_t last_input_ms = 0) {
    screen_.lines = std::move(lines);
    AnalyzerInput in;
    in.screen = &screen_;
    in.signals = &signals_;
    in.agent_type = "demo";
    in.now = ms * kNsPerMs;
    in.last_output = last_output_ms * kNsPerMs;
    in.last_input = last_input_ms * kNsPerMs;
    return analyzer_->Analyze(in);
  }

  std::shared_ptr<const PatternLibrary> lib_;
  std::unique_ptr<Analyzer> analyzer_;
  Screen screen_;
  StreamSignals signals_;
};

const std::vector<std::string> kIdle = {"hello", "❯ "};
const std::vector<std::string> kWorking = {"✢ Working…", "❯ ", "esc to interrupt"};
const std::vector<std::string> kDialog = {"Do you want to proceed?", "❯ 1. Yes",
                                          "  2. No (esc)", "Esc to cancel"};

TEST_F(AnalyzerTest, UnrecognisedScreenIsUnknownWithAReason) {
  Verdict v = At(1000, {"lab$ ls", "a b c"});
  EXPECT_EQ(v.signal.state, State::kUnknown);
  EXPECT_EQ(v.signal.reason_code, "no_rule_matched");
}

TEST_F(AnalyzerTest, IdleThenRunningThenCompleted) {
  EXPECT_EQ(At(1000, kIdle).signal.state, State::kIdle);
  Verdict r = At(2000, kWorking, 1990);
  EXPECT_EQ(r.signal.state, State::kRunning);
  EXPECT_EQ(r.signal.rule_id, "demo.working");
  EXPECT_EQ(r.signal.evidence, "esc to interrupt");
  // The idle prompt right after running is a finished turn, after the debounce.
  Verdict d = At(3000, kIdle, 2500);
  EXPECT_EQ(d.signal.state, State::kRunning);
  EXPECT_EQ(d.recheck_at, 3300 * kNsPerMs);
  Verdict c = At(3300, kIdle, 2500);
  EXPECT_EQ(c.signal.state, State::kCompleted);
  EXPECT_EQ(c.signal.rule_id, "demo.idle");
  EXPECT_EQ(At(9000, kIdle, 2500).signal.state, State::kCompleted);
}

TEST_F(AnalyzerTest, ApprovalSettlesBeforeItIsBelieved) {
  At(1000, kIdle);
  Verdict first = At(2000, kDialog);
  EXPECT_EQ(first.signal.state, State::kIdle);
  EXPECT_EQ(first.recheck_at, 2500 * kNsPerMs);
  Verdict settled = At(2500, kDialog);
  ASSERT_EQ(settled.signal.state, State::kWaitingApproval);
  EXPECT_EQ(settled.signal.rule_id, "demo.approval");
  EXPECT_EQ(settled.signal.detail.approval_type, "shell");
  EXPECT_EQ(settled.signal.detail.choices, (std::vector<std::string>{"Yes", "No"}));
  EXPECT_EQ(settled.signal.detail.cursor_position, 1);
  EXPECT_EQ(settled.signal.detail.details, "Do you want to proceed?");
  EXPECT_EQ(settled.recheck_at, 0);
}

TEST_F(AnalyzerTest, ADialogThatVanishesBeforeSettlingNeverShows) {
  At(1000, kIdle);
  EXPECT_EQ(At(2000, kDialog).signal.state, State::kIdle);
  EXPECT_EQ(At(2200, kIdle).signal.state, State::kIdle);
  // It must settle afresh when it comes back.
  EXPECT_EQ(At(2600, kDialog).signal.state, State::kIdle);
  EXPECT_EQ(At(3100, kDialog).signal.state, State::kWaitingApproval);
}

TEST_F(AnalyzerTest, OutputActivityMeansRunningButEchoDoesNot) {
  EXPECT_EQ(At(1000, kIdle).signal.state, State::kIdle);
  // Output 100 ms after a keystroke is its echo.
  EXPECT_EQ(At(2150, kIdle, 2100, 2000).signal.state, State::kIdle);
  // Output long after the last keystroke is the agent writing.
  Verdict v = At(3050, kIdle, 3000, 2000);
  EXPECT_EQ(v.signal.state, State::kRunning);
  EXPECT_EQ(v.signal.rule_id, "activity.output");
  EXPECT_EQ(v.recheck_at, 3200 * kNsPerMs + 1);
  // Activity never hides a dialog.
  At(3100, kDialog, 3090);
  EXPECT_EQ(At(3700, kDialog, 3690).signal.state, State::kWaitingApproval);
}

// A redraw caught half-way (an Ink frame erased in one write, drawn in the
// next) is a screen no rule reads. It must not end a finished turn: the
// frame before and the one after both say `completed`.
TEST_F(AnalyzerTest, AHalfDrawnFrameDoesNotEndACompletedTurn) {
  At(1000, kIdle);
  At(2000, kWorking, 1990);
  At(3000, kIdle, 2500);
  EXPECT_EQ(At(3300, kIdle, 2500).signal.state, State::kCompleted);
  const std::vector<std::string> half = {"hello", "", ""};  // the prompt not drawn yet
  Verdict h = At(9000, half);
  EXPECT_EQ(h.signal.state, State::kCompleted);
  EXPECT_EQ(h.recheck_at, 9300 * kNsPerMs);
  Verdict after = At(9010, kIdle);
  EXPECT_EQ(after.signal.state, State::kCompleted);
  EXPECT_EQ(after.recheck_at, 0);
  // The same for an idle pane: a half frame is no `unknown`.
  EXPECT_EQ(At(20000, half).signal.state, State::kCompleted);
  EXPECT_EQ(At(20005, kIdle).signal.state, State::kCompleted);
}

// A screen that stays unreadable is reported once the debounce has passed,
// with its reason: what a changed UI looks like must still show.
TEST_F(AnalyzerTest, AnUnreadableScreenThatStaysIsUnknownAfterTheDebounce) {
  At(1000, kIdle);
  const std::vector<std::string> other = {"lab$ ls", "a b c"};
  EXPECT_EQ(At(2000, other).signal.state, State::kIdle);
  Verdict v = At(2300, other);
  EXPECT_EQ(v.signal.state, State::kUnknown);
  EXPECT_EQ(v.signal.reason_code, "no_rule_matched");
  // The next readable screen is believed at once, and a later unreadable
  // frame waits out a debounce of its own (not one that started long ago).
  EXPECT_EQ(At(5000, kIdle).signal.state, State::kIdle);
  EXPECT_EQ(At(9000, other).signal.state, State::kIdle);
  EXPECT_EQ(At(9300, other).signal.state, State::kUnknown);
}

// A wait is not kept over an unreadable frame: a dialog that is no longer
// drawn may have been answered, and a wait shown after it would be false.
TEST_F(AnalyzerTest, AnUnreadableFrameEndsAWaitAtOnce) {
  At(1000, kIdle);
  At(2000, kDialog);
  ASSERT_EQ(At(2500, kDialog).signal.state, State::kWaitingApproval);
  EXPECT_EQ(At(2600, {"", ""}).signal.state, State::kUnknown);
}

TEST_F(AnalyzerTest, SilenceIsNotCompletion) {
  At(1000, kWorking, 1000);
  // A long quiet tool run: the working line stays, so does running.
  EXPECT_EQ(At(60000, kWorking, 1000).signal.state, State::kRunning);
}

TEST(CreateAnalyzer, UnknownAgentUsesGenericAndNoLibraryIsUnsupported) {
  auto none = CreateAnalyzer(nullptr, "claude");
  Screen s;
  AnalyzerInput in;
  in.screen = &s;
  Verdict v = none->Analyze(in);
  EXPECT_EQ(v.signal.state, State::kUnknown);
  EXPECT_EQ(v.signal.reason_code, "unsupported_signal");

  auto lib = PatternLibrary::Load({DefaultPatternsDir(), "", {}, {}});
  auto generic = CreateAnalyzer(lib, "some-new-agent");
  s.lines = {"Overwrite config.yaml? (y/n)"};
  EXPECT_EQ(generic->Analyze(in).signal.state, State::kUnknown);  // settling
  in.now = 10 * core::kNsPerSec;
  EXPECT_EQ(generic->Analyze(in).signal.state, State::kWaitingInput);
}

}  // namespace
}  // namespace agt::detect

namespace agt::detect {
namespace {

TEST(AnalyzerRedaction, EvidenceIsRedacted) {
  auto lib = std::make_shared<PatternLibrary>();
  auto set = ParsePatternSet(
      "[[rule]]\nid = \"x.err\"\nstate = \"error\"\nreason = \"api_error\"\n"
      "region = \"bottom_lines(2)\"\nregex = 'API Error'\n",
      "x.toml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  set->name = "x";
  lib->Put(std::move(set).value());
  auto a = CreateAnalyzer(lib, "x");
  Screen s;
  s.lines = {"API Error: bad key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"};
  AnalyzerInput in;
  in.screen = &s;
  Verdict v = a->Analyze(in);
  ASSERT_EQ(v.signal.state, core::State::kError);
  EXPECT_EQ(v.signal.evidence.find("AAAAAAAAAAAAAAAAAAAA"), std::string::npos)
      << v.signal.evidence;
  EXPECT_NE(v.signal.evidence.find("API Error"), std::string::npos) << v.signal.evidence;
}

}  // namespace
}  // namespace agt::detect

namespace agt::detect {
namespace {

TEST(AnalyzerHold, AHoldScreenKeepsThePreviousVerdict) {
  auto lib = std::make_shared<PatternLibrary>();
  auto set = ParsePatternSet(
      "[[rule]]\nid = \"x.idle\"\nstate = \"idle\"\nregex = '^> '\n"
      "[[rule]]\nid = \"x.bye\"\nstate = \"hold\"\nregex = 'Goodbye!'\n",
      "x.toml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  set->name = "x";
  lib->Put(std::move(set).value());
  auto a = CreateAnalyzer(lib, "x");
  Screen s;
  AnalyzerInput in;
  in.screen = &s;
  s.lines = {"Goodbye!"};
  EXPECT_EQ(a->Analyze(in).signal.state, core::State::kUnknown);  // nothing to hold yet
  s.lines = {"> "};
  EXPECT_EQ(a->Analyze(in).signal.state, core::State::kIdle);
  s.lines = {"Goodbye!"};
  Verdict v = a->Analyze(in);
  EXPECT_EQ(v.signal.state, core::State::kIdle);
  EXPECT_EQ(v.signal.rule_id, "x.idle");
  EXPECT_EQ(v.signal.evidence, "Goodbye!");
}

}  // namespace
}  // namespace agt::detect

namespace agt::detect {
namespace {

// A rule with its own debounce_ms: a turn-end marker ends running at once,
// while a bare idle prompt still waits out the set's debounce.
TEST(AnalyzerDebounce, ARuleMayEndRunningWithoutTheDebounce) {
  auto lib = std::make_shared<PatternLibrary>();
  auto set = ParsePatternSet(
      "[[rule]]\nid = \"x.work\"\nstate = \"running\"\nregex = 'esc to interrupt'\n"
      "[[rule]]\nid = \"x.done\"\nstate = \"idle\"\nregex = '^Worked for '\n"
      "confidence = \"high\"\ndebounce_ms = 0\n"
      "[[rule]]\nid = \"x.idle\"\nstate = \"idle\"\nregex = '^> '\n",
      "x.toml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->FindRule("x.done")->debounce_ms, 0);
  EXPECT_EQ(set->FindRule("x.idle")->debounce_ms, -1);
  set->name = "x";
  lib->Put(std::move(set).value());
  auto a = CreateAnalyzer(lib, "x");
  Screen s;
  AnalyzerInput in;
  in.screen = &s;
  auto at = [&](int64_t ms, std::vector<std::string> lines) {
    s.lines = std::move(lines);
    in.now = ms * core::kNsPerMs;
    return a->Analyze(in);
  };
  EXPECT_EQ(at(1000, {"x", "esc to interrupt"}).signal.state, core::State::kRunning);
  Verdict done = at(1100, {"Worked for 3s", "> "});
  EXPECT_EQ(done.signal.state, core::State::kCompleted);
  EXPECT_EQ(done.signal.rule_id, "x.done");

  EXPECT_EQ(at(2000, {"x", "esc to interrupt"}).signal.state, core::State::kRunning);
  Verdict quiet = at(2100, {"x", "> "});
  EXPECT_EQ(quiet.signal.state, core::State::kRunning);  // the set's 300 ms debounce
  EXPECT_EQ(quiet.recheck_at, 2400 * core::kNsPerMs);
  EXPECT_EQ(at(2400, {"x", "> "}).signal.state, core::State::kCompleted);
}

TEST(AnalyzerDebounce, DebounceMsIsCheckedLikeSettleMs) {
  auto bad = ParsePatternSet(
      "[[rule]]\nid = \"x.done\"\nstate = \"idle\"\nregex = 'x'\ndebounce_ms = \"0\"\n",
      "x.toml");
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace agt::detect

namespace agt::detect {
namespace {

// An analyzer for the set "x": a question rule over a Gemini-style
// scrolling menu (the footer regex and `extra_menu` keys given), and an idle
// prompt "> ".
std::unique_ptr<Analyzer> ScrollingQuestionAnalyzer(const std::string& footer,
                                                    const std::string& extra_menu = "") {
  auto lib = std::make_shared<PatternLibrary>();
  auto set = ParsePatternSet(
      "[menu]\ncursor = [\"●\"]\nfooter = '" + footer + "'\nscroll_marker = \"▲\"\n" +
          extra_menu +
          "[[rule]]\nid = \"x.q\"\nstate = \"waiting_input\"\nregex = 'Answer Questions'\n"
          "menu = true\napproval_type = \"user_question\"\nsettle_ms = 0\n"
          "[[rule]]\nid = \"x.idle\"\nstate = \"idle\"\nregex = '^> '\n",
      "x.toml");
  EXPECT_TRUE(set.ok()) << set.error().message;
  if (!set.ok()) return nullptr;
  set->name = "x";
  lib->Put(std::move(set).value());
  return CreateAnalyzer(lib, "x");
}

// A frame of the question "Which?" in a scrolled list showing `rows`,
// above the footer row `footer`.
std::vector<std::string> WhichFrame(std::vector<std::string> rows, const std::string& footer) {
  std::vector<std::string> l = {"│ Answer Questions", "│ Which?", "│ ▲"};
  l.insert(l.end(), rows.begin(), rows.end());
  l.insert(l.end(), {"│ ▼", "│ " + footer});
  return l;
}

// A scrolling list's options are joined across frames while the question
// stays open, so choices run from option 1 and the cursor indexes them.
TEST(AnalyzerScrolledList, OptionsSeenInEarlierFramesAreJoined) {
  auto a = ScrollingQuestionAnalyzer("Enter to select");
  ASSERT_NE(a, nullptr);
  Screen s;
  AnalyzerInput in;
  in.screen = &s;
  auto frame = [](std::string question, std::vector<std::string> opts) {
    std::vector<std::string> l = {"│ Answer Questions", "│ " + question, "│ ▲"};
    l.insert(l.end(), opts.begin(), opts.end());
    l.insert(l.end(), {"│ ▼", "│ Enter to select · Esc to cancel"});
    return l;
  };
  s.lines = frame("Which?", {"│ ● 1. A", "│   2. B", "│   3. C"});
  Verdict v = a->Analyze(in);
  EXPECT_EQ(v.signal.detail.choices, (std::vector<std::string>{"A", "B", "C"}));
  s.lines = frame("Which?", {"│   2. B", "│   3. C", "│ ● 4. D"});
  v = a->Analyze(in);
  EXPECT_EQ(v.signal.detail.choices, (std::vector<std::string>{"A", "B", "C", "D"}));
  EXPECT_EQ(v.signal.detail.cursor_position, 4);
  // Back up: the options below the window stay known.
  s.lines = frame("Which?", {"│ ● 1. A", "│   2. B", "│   3. C"});
  v = a->Analyze(in);
  EXPECT_EQ(v.signal.detail.choices, (std::vector<std::string>{"A", "B", "C", "D"}));
  EXPECT_EQ(v.signal.detail.cursor_position, 1);
  // The dialog closes; the next list starts from nothing.
  s.lines = {"> "};
  EXPECT_EQ(a->Analyze(in).signal.state, core::State::kIdle);
  s.lines = frame("Which?", {"│ ● 1. A", "│   2. B", "│   3. C"});
  EXPECT_EQ(a->Analyze(in).signal.detail.choices,
            (std::vector<std::string>{"A", "B", "C"}));
  // A window whose top was never seen is reported as it is.
  s.lines = {"> "};
  a->Analyze(in);
  s.lines = frame("Other?", {"│   2. Q", "│ ● 3. R", "│   4. S"});
  v = a->Analyze(in);
  EXPECT_EQ(v.signal.detail.choices, (std::vector<std::string>{"Q", "R", "S"}));
}

// A menu redrawn for a cursor move and caught half-way reads as no rule;
// the options joined so far stay, so the next full frame still reports the
// list from option 1.
TEST(AnalyzerScrolledList, AHalfDrawnFrameKeepsTheJoinedOptions) {
  auto a = ScrollingQuestionAnalyzer("Enter to select");
  ASSERT_NE(a, nullptr);
  Screen s;
  AnalyzerInput in;
  in.screen = &s;
  auto frame = [](std::vector<std::string> rows) {
    return WhichFrame(std::move(rows), "Enter to select · Esc to cancel");
  };
  s.lines = frame({"│ ● 1. A", "│   2. B", "│   3. C"});
  a->Analyze(in);
  s.lines = frame({"│   2. B", "│   3. C", "│ ● 4. D"});
  a->Analyze(in);
  s.lines = {"│ Answer Questions", "│ Which?", "│ ▲", "│   3. C"};  // the rest not drawn yet
  EXPECT_EQ(a->Analyze(in).signal.reason_code, "no_rule_matched");
  s.lines = frame({"│   3. C", "│   4. D", "│ ● 5. E"});
  Verdict v = a->Analyze(in);
  EXPECT_EQ(v.signal.detail.choices, (std::vector<std::string>{"A", "B", "C", "D", "E"}));
  EXPECT_EQ(v.signal.detail.cursor_position, 5);
}

// With the cursor on a row that is no option ("Done"), the joined list
// stays, and cursor_position says 0: not on any option.
TEST(AnalyzerScrolledList, CursorOffTheListKeepsTheJoinedOptions) {
  auto a = ScrollingQuestionAnalyzer("Enter to (select|submit)", "cursor_off_list = true\n");
  ASSERT_NE(a, nullptr);
  Screen s;
  AnalyzerInput in;
  in.screen = &s;
  auto frame = [](std::vector<std::string> rows) {
    return WhichFrame(std::move(rows), "Enter to submit · Esc to cancel");
  };
  s.lines = frame({"│ ● 1. [ ] A", "│   2. [ ] B", "│   3. [ ] C"});
  a->Analyze(in);
  s.lines = frame({"│   2. [ ] B", "│   3. [ ] C", "│ ● 4. [ ] D"});
  a->Analyze(in);
  s.lines = frame({"│   3. [ ] C", "│   4. [ ] D", "│ ●  Done"});
  Verdict v = a->Analyze(in);
  EXPECT_EQ(v.signal.state, core::State::kWaitingInput);
  EXPECT_EQ(v.signal.detail.choices, (std::vector<std::string>{"A", "B", "C", "D"}));
  EXPECT_EQ(v.signal.detail.cursor_position, 0);
  EXPECT_TRUE(v.signal.detail.multi_select);
}

}  // namespace
}  // namespace agt::detect
