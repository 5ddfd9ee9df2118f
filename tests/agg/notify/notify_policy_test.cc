// NotifyPolicy with time as data (a fake clock's readings): a pane entering
// a wait fires once after the dwell, not when answered within it, not
// again within the cooldown, not for a wait that began before the daemon
// started or a state left out of the configuration; and the wording and tmux client parsing the notifier
// uses (Notice, ParseClients).
#include "aggregator/notify/notify_policy.h"
#include "tests/base/fake_clock.h"

#include <gtest/gtest.h>

#include "aggregator/notify/notifier.h"
#include "libagtcore/base/clock.h"

namespace agt::agg {
namespace {

using core::kNsPerMs;
using core::kNsPerSec;
using core::State;

PaneObservation Pane(const std::string& pane, State s, core::TimeNs since, bool agent = true) {
  PaneObservation o;
  o.agent = agent;
  o.state = s;
  o.state_since = since;
  o.notice.target = "host";
  o.notice.pane_id = pane;
  o.notice.session = "work";
  o.notice.agent = "claude";
  o.notice.state = s;
  o.key = o.notice.Key();
  return o;
}

class PolicyTest : public ::testing::Test {
 protected:
  PolicyTest() : policy_(NotifyPolicyOptions{{State::kWaitingApproval, State::kWaitingInput}, 2 * kNsPerSec,
                                             30 * kNsPerSec}) {}
  void Observe(std::vector<PaneObservation> panes) { policy_.Observe(panes, clock_.Monotonic()); }
  std::vector<Notice> Due() { return policy_.TakeDue(clock_.Monotonic()); }
  core::FakeClock clock_;
  NotifyPolicy policy_;
};

TEST_F(PolicyTest, EnteringAWaitFiresOnceAfterTheDwell) {
  Observe({Pane("%1", State::kRunning, 1)});
  clock_.Advance(kNsPerSec);
  Observe({Pane("%1", State::kWaitingApproval, 2)});
  ASSERT_TRUE(policy_.NextDue());
  EXPECT_EQ(*policy_.NextDue(), clock_.Monotonic() + 2 * kNsPerSec);
  clock_.Advance(1999 * kNsPerMs);
  EXPECT_TRUE(Due().empty()) << "fired within the dwell";
  clock_.Advance(kNsPerMs);
  auto due = Due();
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].pane_id, "%1");
  EXPECT_EQ(due[0].state, State::kWaitingApproval);
  EXPECT_FALSE(policy_.NextDue());
  // The same wait observed again (another pane changed) is not a new entry.
  Observe({Pane("%1", State::kWaitingApproval, 2), Pane("%2", State::kRunning, 5)});
  clock_.Advance(10 * kNsPerSec);
  EXPECT_TRUE(Due().empty());
}

TEST_F(PolicyTest, APromptAnsweredWithinTheDwellDoesNotNotify) {
  Observe({Pane("%1", State::kRunning, 1)});
  Observe({Pane("%1", State::kWaitingApproval, 2)});
  clock_.Advance(500 * kNsPerMs);
  Observe({Pane("%1", State::kRunning, 3)});
  EXPECT_FALSE(policy_.NextDue());
  clock_.Advance(5 * kNsPerSec);
  EXPECT_TRUE(Due().empty());
}

TEST_F(PolicyTest, WaitingApprovalThenWaitingInputIsOneNewEntry) {
  Observe({Pane("%1", State::kRunning, 1)});
  Observe({Pane("%1", State::kWaitingApproval, 2)});
  clock_.Advance(kNsPerSec);
  Observe({Pane("%1", State::kWaitingInput, 3)});  // the dwell starts again
  clock_.Advance(1500 * kNsPerMs);
  EXPECT_TRUE(Due().empty());
  clock_.Advance(500 * kNsPerMs);
  auto due = Due();
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].state, State::kWaitingInput);
}

TEST_F(PolicyTest, TheCooldownHoldsBackASecondNoticeForThePane) {
  Observe({Pane("%1", State::kRunning, 1), Pane("%2", State::kRunning, 1)});
  Observe({Pane("%1", State::kWaitingApproval, 2)});
  clock_.Advance(2 * kNsPerSec);
  ASSERT_EQ(Due().size(), 1u);
  policy_.Sent("host\x1f%1", clock_.Monotonic());
  // Answered, and a new approval 5 s later: within the 30 s cooldown.
  clock_.Advance(3 * kNsPerSec);
  Observe({Pane("%1", State::kRunning, 3)});
  Observe({Pane("%1", State::kWaitingApproval, 4), Pane("%2", State::kWaitingInput, 4)});
  clock_.Advance(2 * kNsPerSec);
  auto due = Due();
  ASSERT_EQ(due.size(), 1u) << "the other pane has no cooldown";
  EXPECT_EQ(due[0].pane_id, "%2");
  EXPECT_EQ(policy_.suppressed_by_cooldown(), 1);
  // After the cooldown, the pane is notified again.
  clock_.Advance(30 * kNsPerSec);
  Observe({Pane("%1", State::kRunning, 5)});
  Observe({Pane("%1", State::kWaitingApproval, 6)});
  clock_.Advance(2 * kNsPerSec);
  EXPECT_EQ(Due().size(), 1u);
}

TEST(PolicyStartTest, AWaitThatBeganBeforeTheStartIsNotAnEntry) {
  // Started at wall-clock 1000: %1's wait (restored from the store) began
  // before; %9's began after, and is seen for the first time already
  // waiting, in the daemon's very first rows.
  NotifyPolicy p(NotifyPolicyOptions{{State::kWaitingApproval, State::kWaitingInput}, 0, 0, 1000});
  p.Observe({Pane("%1", State::kWaitingApproval, 400), Pane("%9", State::kWaitingInput, 1005)}, 50);
  auto due = p.TakeDue(50);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].pane_id, "%9");
  // %1 answered and waiting again: that entry is after the start.
  p.Observe({Pane("%1", State::kRunning, 1100), Pane("%9", State::kWaitingInput, 1005)}, 60);
  p.Observe({Pane("%1", State::kWaitingApproval, 1200), Pane("%9", State::kWaitingInput, 1005)}, 70);
  EXPECT_EQ(p.TakeDue(70).size(), 1u);
}

TEST_F(PolicyTest, LeftAndReEnteredBetweenObservationsIsANewEntry) {
  Observe({Pane("%1", State::kWaitingApproval, 1)});
  clock_.Advance(2 * kNsPerSec);
  ASSERT_EQ(Due().size(), 1u);
  policy_.Sent("host\x1f%1", clock_.Monotonic() - 60 * kNsPerSec);  // long ago: no cooldown
  Observe({Pane("%1", State::kWaitingApproval, 7)});  // updated_at moved: it left and came back
  clock_.Advance(2 * kNsPerSec);
  EXPECT_EQ(Due().size(), 1u);
}

TEST_F(PolicyTest, StatesNotConfiguredAndPanesThatGoDoNotNotify) {
  Observe({Pane("%1", State::kRunning, 1), Pane("%2", State::kRunning, 1)});
  Observe({Pane("%1", State::kError, 2), Pane("%2", State::kWaitingApproval, 2)});
  clock_.Advance(kNsPerSec);
  Observe({Pane("%1", State::kError, 2)});  // %2 closed within the dwell
  clock_.Advance(5 * kNsPerSec);
  EXPECT_TRUE(Due().empty());
  // The agent left the pane (no runtime): its pending notice goes too.
  Observe({Pane("%1", State::kRunning, 3)});
  Observe({Pane("%1", State::kWaitingInput, 4)});
  Observe({Pane("%1", State::kUnknown, 0, false)});
  clock_.Advance(5 * kNsPerSec);
  EXPECT_TRUE(Due().empty());
}

TEST(PolicyOptionsTest, ErrorAndCompletedWhenConfiguredAndAZeroDwell) {
  NotifyPolicy p(NotifyPolicyOptions{{State::kError, State::kCompleted}, 0, 0});
  p.Observe({Pane("%1", State::kRunning, 1)}, 100);
  p.Observe({Pane("%1", State::kCompleted, 2)}, 200);
  EXPECT_EQ(p.NextDue(), std::optional<core::TimeNs>(200));
  EXPECT_EQ(p.TakeDue(200).size(), 1u);
  p.Observe({Pane("%1", State::kWaitingApproval, 3)}, 300);
  EXPECT_TRUE(p.TakeDue(10'000).empty());
}

TEST(NoticeTest, WordingAndEnvironment) {
  Notice n;
  n.target = "host";
  n.session = "work";
  n.window_index = 1;
  n.pane_index = 2;
  n.pane_id = "%4";
  n.agent = "claude";
  n.runtime_id = "rt-1";
  n.state = State::kWaitingApproval;
  n.source = "PTY";
  n.detail.approval_type = "shell";
  n.detail.details = "Bash(rm -rf build)";
  n.detail.choices = {"Yes", "No"};
  EXPECT_EQ(n.Title(), "claude needs approval in work:1.2");
  EXPECT_EQ(n.Message(), "Bash(rm -rf build)\nYes / No");
  EXPECT_EQ(n.Tags(), "waiting_approval,claude");
  auto env = n.Environment();
  auto get = [&](const std::string& k) {
    for (const auto& [name, v] : env)
      if (name == k) return v;
    return std::string("<missing>");
  };
  EXPECT_EQ(get("AGTMUX_PANE"), "%4");
  EXPECT_EQ(get("AGTMUX_TARGET"), "host");
  EXPECT_EQ(get("AGTMUX_SESSION"), "work");
  EXPECT_EQ(get("AGTMUX_WINDOW"), "1");
  EXPECT_EQ(get("AGTMUX_STATE"), "waiting_approval");
  EXPECT_EQ(get("AGTMUX_AGENT"), "claude");
  EXPECT_EQ(get("AGTMUX_SOURCE"), "PTY");
  EXPECT_EQ(get("AGTMUX_RUNTIME"), "rt-1");
  EXPECT_EQ(get("AGTMUX_APPROVAL_TYPE"), "shell");
  EXPECT_EQ(get("AGTMUX_QUESTION"), "Bash(rm -rf build)");
  EXPECT_EQ(get("AGTMUX_CHOICES"), "Yes\nNo");
  n.target = "vm1";
  n.detail = {};
  n.evidence = "Do you want to proceed?";
  EXPECT_EQ(n.Title(), "claude needs approval in vm1/work:1.2");
  EXPECT_EQ(n.Message(), "Do you want to proceed?");
}

TEST(NoticeTest, HeaderAndTmuxTextsAreSafe) {
  EXPECT_EQ(OneLine("a\r\nb\tc", 100), "a  b c");
  EXPECT_EQ(OneLine("開発", 4), "開");  // cut at a character boundary (3-byte UTF-8)
  EXPECT_EQ(HeaderValue("claude needs approval in work:0.0", 250), "claude needs approval in work:0.0");
  // "開発" is E9 96 8B E7 99 BA in UTF-8.
  EXPECT_EQ(HeaderValue("開発", 250), "=?UTF-8?B?6ZaL55m6?=");
  EXPECT_EQ(HeaderValue("é", 250), "=?UTF-8?B?w6k=?=");
  EXPECT_EQ(TmuxLiteral("#{pane_id} 100#\nnext"), "##{pane_id} 100## | next");
}

TEST(ParseClientsTest, LeavesControlClientsOut) {
  auto clients = ParseClients("1\tclient-123\t%0\n0\t/dev/pts/7\t%4\n0\t/dev/pts/9\t%2\nbroken line\n");
  ASSERT_EQ(clients.size(), 2u);
  EXPECT_EQ(clients[0].name, "/dev/pts/7");
  EXPECT_EQ(clients[0].pane_id, "%4");
  EXPECT_EQ(clients[1].pane_id, "%2");
}

}  // namespace
}  // namespace agt::agg

namespace agt::agg {
namespace {

// Agent text is hostile (issue 25): a question holding an OSC 52 clipboard
// write, a CR overdraw and a bidi override reaches neither the command's
// environment nor the message (notify-send, display-message, the webhook
// body) raw.
TEST(NoticeTest, AgentTextLeavesThroughEveryChannelVisibleNotRaw) {
  Notice n;
  n.target = "host";
  n.session = "work";
  n.pane_id = "%7";
  n.agent = "claude\x1b[31m";
  n.state = core::State::kWaitingApproval;
  n.detail.details = "Write: /repo/\x1b]52;c;cHduZWQ=\x07notes.txt\rFAKE\u202Etxt";
  n.detail.choices = {"Yes\x1b[2J", "No"};
  n.evidence = "\x9b";
  auto raw = [](const std::string& s) {
    return s.find_first_of(std::string("\x1b\x07\r\b", 4)) != std::string::npos ||
           s.find("\u202E") != std::string::npos;
  };
  EXPECT_FALSE(raw(n.Title())) << n.Title();
  EXPECT_FALSE(raw(n.Message())) << n.Message();
  EXPECT_EQ(n.Message(), "Write: /repo/^[]52;c;cHduZWQ=^Gnotes.txt^MFAKE<U+202E>txt\nYes^[[2J / No");
  for (const auto& [name, value] : n.Environment()) EXPECT_FALSE(raw(value)) << name << "=" << value;
}

}  // namespace
}  // namespace agt::agg
