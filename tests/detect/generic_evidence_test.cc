// Generic evidence under the pattern sets (docs/patterns.md, "Generic
// evidence"): screen motion (a ticking row, a still screen), the transcript
// and input regions split at the agent's prompt row, dialogs that are live
// only as the last thing on screen, and the generic set's structural dialog
// rules under an agent's own set.
#include <gtest/gtest.h>

#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/detect/screen_motion.h"

namespace agt::detect {
namespace {

using core::kNsPerMs;
using core::State;

// An agent whose transcript rules know one layout: a prompt "› ", an entry
// "• ..." newer than the last "Done" is a turn still open (medium), "Done"
// as the newest entry is the turn's end.
constexpr const char* kAgent = R"toml(
agent = "demo"
[menu]
cursor = ["›"]
footer = 'esc to cancel'
prompt = '^› (?!\d+\. )'

[[rule]]
id = "demo.approval"
state = "waiting_approval"
region = "dialog"
regex = 'Run this\?'
menu = true
confidence = "high"
settle_ms = 0

[[rule]]
id = "demo.turn.open"
state = "running"
region = "transcript"
regex = '^• (?![\s\S]*^Done)'
confidence = "medium"

[[rule]]
id = "demo.turn.done"
state = "idle"
region = "transcript"
regex = '^Done(?![\s\S]*^• )'
confidence = "high"
debounce_ms = 0

[[rule]]
id = "demo.prompt"
state = "idle"
region = "input"
regex = '\A› '
confidence = "medium"
)toml";

constexpr const char* kGeneric = R"toml(
agent = "generic"
[menu]
cursor = ["❯", "›"]
footer = '(?i)\besc\b|\benter\b'
question = '[?:]\s*$'
question_required = true

[[rule]]
id = "generic.dialog.approval"
state = "waiting_approval"
region = "bottom_lines(24)"
regex = '(?i)\b(?:allow|run)\b[^\n]*\?\s*$'
menu = true
confidence = "low"
)toml";

class GenericEvidence : public ::testing::Test {
 protected:
  void SetUp() override {
    auto lib = std::make_shared<PatternLibrary>();
    for (const char* text : {kAgent, kGeneric}) {
      auto set = ParsePatternSet(text, "test.toml");
      ASSERT_TRUE(set.ok()) << set.error().message;
      lib->Put(std::move(set).value());
    }
    lib_ = lib;
    analyzer_ = CreateAnalyzer(lib_, "demo");
  }
  Verdict At(int64_t ms, std::vector<std::string> lines) {
    screen_.lines = std::move(lines);
    screen_.rows = static_cast<int>(screen_.lines.size());
    screen_.cols = 80;
    screen_.cursor_row = screen_.rows - 1;
    AnalyzerInput in;
    in.screen = &screen_;
    in.signals = &signals_;
    in.agent_type = "demo";
    in.now = ms * kNsPerMs;
    return analyzer_->Analyze(in);
  }
  std::shared_ptr<const PatternLibrary> lib_;
  std::unique_ptr<Analyzer> analyzer_;
  Screen screen_;
  StreamSignals signals_;
};

std::vector<std::string> Screen3(std::string status,
                                 std::vector<std::string> below = {}) {
  std::vector<std::string> s = {"› fix it", "• reading the code", status, "", "› Ask"};
  s.insert(s.end(), below.begin(), below.end());
  s.emplace_back("");
  return s;
}

TEST_F(GenericEvidence, TheTranscriptEndsAtThePromptHoweverManyRowsFollow) {
  // A release that draws three footer rows instead of one: the turn's end is
  // still the last entry above the prompt.
  Verdict v = At(0, {"› fix it", "• fixed", "Done", "", "› Ask", "model line",
                     "  wrapped title", "← hints"});
  EXPECT_EQ(v.signal.state, State::kIdle);
  EXPECT_EQ(v.signal.rule_id, "demo.turn.done");
}

TEST_F(GenericEvidence, ATickingTimerIsRunningWhateverTheRulesSay) {
  // No running rule knows "⠋ Thinking (3s)"; the rules read the prompt as
  // idle, the timer that ticks says running while it stays on screen.
  At(0, {"⠋ Thinking (3s)", "", "› Ask"});
  Verdict v = At(1000, {"⠙ Thinking (4s)", "", "› Ask"});
  EXPECT_EQ(v.signal.state, State::kRunning);
  EXPECT_EQ(v.signal.rule_id, "evidence.ticking");
  EXPECT_EQ(v.signal.evidence, "⠙ Thinking (4s)");
  EXPECT_GT(v.recheck_at, 1000 * kNsPerMs);
  // Gone from the screen: the evidence ends at once, not when its window does.
  v = At(1200, {"Done", "", "› Ask"});
  EXPECT_EQ(v.signal.state, State::kIdle)
      << "ticking alone is evidence of work, not of a turn";
  // A timer that stopped ticking (a frozen agent) is no evidence.
  At(2000, {"⠋ Thinking (9s)", "", "› Ask"});
  At(2500, {"⠙ Thinking (10s)", "", "› Ask"});
  At(6000, {"⠙ Thinking (10s)", "", "› Ask"});
  v = At(6400, {"⠙ Thinking (10s)", "", "› Ask"});  // past the running -> idle debounce
  EXPECT_NE(v.signal.rule_id, "evidence.ticking");
}

TEST_F(GenericEvidence, NothingTicksBeforeTheAgentsInputIsDrawn) {
  // A start-up animation: the set knows its prompt row and it is not there.
  At(0, {"⠋ Loading", ""});
  Verdict v = At(500, {"⠙ Loading", ""});
  EXPECT_NE(v.signal.rule_id, "evidence.ticking");
}

TEST_F(GenericEvidence, AScrolledLineNumberOrTheUsersTypingIsNoTick) {
  At(0, {"      3", "› Ask", ""});
  Verdict v = At(500, {"      4", "› Ask", ""});
  EXPECT_NE(v.signal.rule_id, "evidence.ticking");
  // The cursor's row: digits the user types are no tick.
  ScreenMotion m;
  Screen s;
  s.lines = {"⠋ typed 3s", "› Ask"};
  s.cursor_row = 0;
  m.Observe(s, 1, -1);
  s.lines = {"⠙ typed 4s", "› Ask"};
  m.Observe(s, 2, -1);
  EXPECT_EQ(m.tick().at, 0);
  s.cursor_row = 1;
  s.lines = {"⠋ typed 5s", "› Ask"};
  m.Observe(s, 3, -1);
  EXPECT_EQ(m.tick().at, 3);
  EXPECT_EQ(FoldTicking("⠋ Thinking (3s)"), FoldTicking("⠙ Thinking (14s)"));
  EXPECT_NE(FoldTicking("• one (3s)"), FoldTicking("• two (3s)"));
}

TEST_F(GenericEvidence, AStillScreenContradictsAMediumRunningRule) {
  // "• ..." newer than any "Done" reads running (medium): answer text that
  // streams. While the screen moves it stands; once it has stood still for
  // 3 s it gives way to the idle rule that also matched (the release drew
  // no "Done").
  Verdict v = At(0, Screen3("  text"));
  EXPECT_EQ(v.signal.state, State::kRunning);
  EXPECT_EQ(v.signal.rule_id, "demo.turn.open");
  v = At(1000, Screen3("  more text"));
  EXPECT_EQ(v.signal.state, State::kRunning);
  v = At(3500, Screen3("  more text"));
  EXPECT_EQ(v.signal.state, State::kRunning) << "still for 2.5 s only";
  EXPECT_EQ(v.recheck_at, 4000 * kNsPerMs + 1);
  v = At(4001, Screen3("  more text"));
  v = At(4400, Screen3("  more text"));
  EXPECT_EQ(v.signal.state, State::kCompleted);
  EXPECT_EQ(v.signal.rule_id, "demo.prompt");
  EXPECT_NE(v.signal.evidence.find("demo.turn.open contradicted"), std::string::npos)
      << v.signal.evidence;
}

TEST(GenericEvidenceStill, AStillScreenWithNoIdleRuleIsUnknownNotRunning) {
  auto lib = std::make_shared<PatternLibrary>();
  auto set = ParsePatternSet(R"toml(
agent = "demo"
[[rule]]
id = "demo.open"
state = "running"
region = "bottom_lines(3)"
regex = '^• '
confidence = "medium"
)toml",
                             "demo.toml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  lib->Put(std::move(set).value());
  auto analyzer = CreateAnalyzer(lib, "demo");
  Screen screen;
  screen.lines = {"• reading the code"};
  StreamSignals signals;
  AnalyzerInput in;
  in.screen = &screen;
  in.signals = &signals;
  in.now = 0;
  EXPECT_EQ(analyzer->Analyze(in).signal.state, State::kRunning);
  in.now = 3001 * kNsPerMs;
  Verdict v = analyzer->Analyze(in);
  in.now = 4000 * kNsPerMs;
  v = analyzer->Analyze(in);
  EXPECT_EQ(v.signal.state, State::kUnknown);
  EXPECT_EQ(v.signal.reason_code, "still_screen");
  EXPECT_EQ(v.signal.rule_id, "evidence.still");
}

TEST_F(GenericEvidence, ADialogInTheScrollbackIsNotLive) {
  const std::vector<std::string> dialog = {"• reading", "",        "Run this?",
                                           "› 1. Yes",  "  2. No", "esc to cancel"};
  Verdict v = At(0, dialog);
  EXPECT_EQ(v.signal.state, State::kWaitingApproval);
  // Answered: the agent drew its prompt below it.
  std::vector<std::string> after = dialog;
  after.insert(after.end(), {"", "Done", "", "› Ask"});
  v = At(1000, after);
  EXPECT_EQ(v.signal.state, State::kIdle);
  // Or an input box (two horizontal rules) below it.
  std::string rule;
  for (int i = 0; i < 30; ++i) rule += "─";
  after = dialog;
  after.insert(after.end(), {"", rule, "  typed text", rule});
  v = At(2000, after);
  EXPECT_NE(v.signal.state, State::kWaitingApproval);
  // One rule above a footer is a separator: the dialog is live.
  after = dialog;
  after.insert(after.end(), {"", rule, " shift+tab to accept edits"});
  v = At(3000, after);
  EXPECT_EQ(v.signal.state, State::kWaitingApproval);
}

TEST_F(GenericEvidence, TheGenericSetReadsADialogTheAgentsRulesDoNotKnow) {
  const std::vector<std::string> browser = {
      "› fix it",        "",          "Allow the browser to open example.com?",
      "› 1. Allow",      "  2. Deny", "",
      "enter to confirm"};
  At(0, browser);
  Verdict v = At(600, browser);  // after the default approval settle time
  EXPECT_EQ(v.signal.state, State::kWaitingApproval);
  EXPECT_EQ(v.signal.rule_id, "generic.dialog.approval");
  EXPECT_EQ(v.signal.detail.choices, (std::vector<std::string>{"Allow", "Deny"}));
  // The agent's own dialog rule outranks it.
  v = At(1000, {"• reading", "", "Run this?", "› 1. Yes", "  2. No", "esc to cancel"});
  EXPECT_EQ(v.signal.rule_id, "demo.approval");
  // A numbered list with a cursor but no question above it is no dialog.
  v = At(2000, {"Steps", "› 1. Build", "  2. Test", "enter to continue"});
  EXPECT_NE(v.signal.state, State::kWaitingApproval);
}

}  // namespace
}  // namespace agt::detect
