// The fusion faults seen with Claude Code 2.1.330 and its hooks installed
// (issue 15), replayed through the real state engine: hook events made by
// NormalizeHook from the recorded 2.1.197 payloads (the hooks did not change
// between the two), and screen events shaped as the wrapper (PTY) and the
// poller (CAP) send them, with the rule ids and confidences of
// patterns/claude.toml and the analyzer's unknown/no_rule_matched.
#include <gtest/gtest.h>

#include <string>

#include "cli/hook/hook_payload.h"
#include "state/engine.h"
#include "tests/cli/hook/hook_fixtures.h"

namespace agt::cli {
namespace {

using core::Confidence;
using core::Source;
using core::State;
using core::TimeNs;
using testing::kClaudeHooks;
using testing::ReadFixture;

constexpr TimeNs kT0 = 1'800'000'000LL * core::kNsPerSec;
constexpr TimeNs T(double s) { return kT0 + static_cast<TimeNs>(s * 1e9); }

constexpr const char* kRuntime = "0123456789abcdef0123456789abcdef";
constexpr const char* kPane = "%1";

class Pane {
 public:
  /// wrapped: `agtmux wrap claude` (runtime announced by the wrapper, hooks
  /// carry AGTMUX_RUNTIME_ID); else an unwrapped pane the collector found
  /// (hooks carry only TMUX_PANE and bind by pane).
  explicit Pane(bool wrapped) : wrapped_(wrapped) {
    core::Event e;
    e.event_id = "start";
    e.dedupe_key = "start";
    e.event_time = e.ingested_at = T(0);
    e.target_id = "host";
    e.pane_id = kPane;
    e.pid = 4242;
    core::RuntimeInfo info;
    info.agent_type = "claude";
    info.boot_id = "boot";
    info.started_at = T(0);
    e.runtime = info;
    if (wrapped) {
      e.event_type = core::event_type::kWrapperStarted;
      e.source = Source::kWrapper;
      e.runtime_id = kRuntime;
    } else {
      e.event_type = core::event_type::kRuntimeObserved;
      e.source = Source::kPoller;
    }
    Apply(e);
  }

  /// The hook `name` of the recorded approval turn fired at `t`, or `payload`.
  void Hook(double t, const std::string& name, std::string payload = "") {
    if (payload.empty()) payload = ReadFixture(std::string(kClaudeHooks) + name + ".json");
    HookContext ctx;
    ctx.tmux_pane = kPane;
    if (wrapped_) ctx.runtime_id = kRuntime;
    ctx.now = T(t);
    ctx.transcript_size = ++hooks_;  // two Stops of one session differ by the transcript
    auto e = NormalizeHook(HookKind::kClaude, payload, ctx);
    ASSERT_TRUE(e.ok()) << e.error().ToString();
    e->ingested_at = T(t) + 2 * core::kNsPerMs;  // the hook's HTTP round trip
    Apply(*e);
  }

  /// What the screen source reads at `t` (wrapper when wrapped, else poller).
  void Screen(double t, State s, const std::string& rule, Confidence c = Confidence::kHigh) {
    core::Event e;
    e.event_type = core::event_type::kStateChanged;
    e.event_id = "screen-" + std::to_string(++screens_);
    e.dedupe_key = e.event_id;
    e.event_time = T(t);
    e.ingested_at = T(t) + core::kNsPerMs;
    core::Signal sig;
    sig.state = s;
    sig.confidence = c;
    sig.rule_id = rule;
    if (s == State::kUnknown) sig.reason_code = "no_rule_matched";
    if (core::NeedsAction(s)) {
      sig.detail.approval_type = "shell";
      sig.detail.details = "Do you want to proceed?";
      sig.detail.choices = {"Yes", "Yes, and don't ask again", "No"};
      sig.detail.cursor_position = 1;
    }
    e.signal = sig;
    if (wrapped_) {
      e.source = Source::kWrapper;
      e.runtime_id = kRuntime;
      e.source_seq = screens_;
    } else {
      e.source = Source::kPoller;
      e.target_id = "host";
      e.pane_id = kPane;
      e.pid = 4242;
    }
    Apply(e);
  }
  void Unknown(double t) { Screen(t, State::kUnknown, "", Confidence::kLow); }

  /// The pane as `agtmux list` shows it at `t`.
  const state::PaneState& At(double t) {
    now_ = T(t);
    const state::PaneState* p = engine_.FindPane("host", kPane);
    EXPECT_NE(p, nullptr);
    static const state::PaneState none;
    return p != nullptr ? *p : none;
  }

 private:
  void Apply(const core::Event& e) {
    now_ = std::max(now_, e.ingested_at);
    state::Effects fx = engine_.Apply(e, now_);
    EXPECT_TRUE(fx.disposition == state::Disposition::kApplied) << e.event_type << " " << fx.error_code
                                                                << " " << fx.error_message;
  }

  bool wrapped_;
  state::Engine engine_;
  TimeNs now_ = 0;
  int screens_ = 0;
  int hooks_ = 0;
};

// The 2.1.330 turn up to its approval dialog: the working screen matches no
// rule, the dialog does.
void UpToTheDialog(Pane& p) {
  p.Screen(0.5, State::kIdle, "claude.prompt.idle", Confidence::kMedium);
  p.Hook(1.0, "UserPromptSubmit");
  p.Unknown(1.1);
  p.Hook(2.0, "PreToolUse");
  p.Hook(2.05, "PermissionRequest");
  p.Screen(2.1, State::kWaitingApproval, "claude.approval.shell");
}

TEST(HookFusionTest, ApprovedWrappedTheSilentToolRunIsRunningNotUnknown) {
  // Fault 3: the screen reads unknown for the 8 s the approved tool runs.
  Pane p(/*wrapped=*/true);
  UpToTheDialog(p);
  EXPECT_EQ(p.At(2.2).signal.state, State::kWaitingApproval);
  EXPECT_EQ(p.At(2.2).source, Source::kWrapper) << "a wait is the screen's: it has the options";
  p.Unknown(4.0);  // approved with Enter; the dialog is gone, the tool runs silently
  const state::PaneState& s = p.At(6.0);
  EXPECT_EQ(s.signal.state, State::kRunning);
  EXPECT_EQ(s.source, Source::kHook);
  EXPECT_EQ(s.signal.rule_id, "fusion.1b.answered_wait");  // docs/precedence.md row 1b
  EXPECT_TRUE(s.signal.detail.empty());
  p.Hook(12.0, "PostToolUse");
  EXPECT_EQ(p.At(12.1).signal.state, State::kRunning);
  EXPECT_EQ(p.At(12.1).signal.rule_id, "claude.PostToolUse");
  p.Hook(13.0, "Stop");
  EXPECT_EQ(p.At(13.1).signal.state, State::kCompleted);
}

TEST(HookFusionTest, ApprovedUnwrappedTheHookWaitEndsWhenTheCaptureSawTheDialogGo) {
  // Fault 1 (engine side): CAP saw the dialog and then a screen it cannot
  // read; the hooks' waiting_approval must not outlive the dialog.
  Pane p(/*wrapped=*/false);
  UpToTheDialog(p);
  EXPECT_EQ(p.At(2.2).signal.state, State::kWaitingApproval);
  p.Unknown(4.0);
  EXPECT_EQ(p.At(4.1).signal.state, State::kRunning);
  EXPECT_EQ(p.At(4.1).source, Source::kHook);
}

TEST(HookFusionTest, ApprovedAndReadableTheScreenDecides) {
  // A pattern set that reads the working footer: the screen's running.
  Pane p(/*wrapped=*/true);
  UpToTheDialog(p);
  p.Screen(4.0, State::kRunning, "claude.footer.interrupt");
  EXPECT_EQ(p.At(4.1).signal.state, State::kRunning);
  EXPECT_EQ(p.At(4.1).signal.rule_id, "claude.footer.interrupt");
}

TEST(HookFusionTest, DeniedWithEscTheTurnEndsWithoutAStopHook) {
  // Fault 1, deny: no hook fires at all after the dialog; the screen shows
  // "⎿ Interrupted" above the prompt.
  for (bool wrapped : {true, false}) {
    SCOPED_TRACE(wrapped ? "wrapped" : "unwrapped");
    Pane p(wrapped);
    UpToTheDialog(p);
    p.Screen(4.0, State::kIdle, "claude.interrupted");
    EXPECT_EQ(p.At(4.1).signal.state, State::kIdle);
    EXPECT_NE(p.At(6.8).signal.state, State::kWaitingApproval);
  }
}

TEST(HookFusionTest, ADialogTheScreenCannotReadKeepsTheHookWait) {
  // A release whose dialog no rule reads: the screen goes from unknown to a
  // spinner-title running while the dialog is up. Only the hook knows.
  Pane p(/*wrapped=*/true);
  p.Hook(1.0, "UserPromptSubmit");
  p.Unknown(1.1);
  p.Hook(2.0, "PreToolUse");
  p.Hook(2.05, "PermissionRequest");
  p.Screen(2.3, State::kRunning, "claude.title.spinner");
  EXPECT_EQ(p.At(2.4).signal.state, State::kWaitingApproval);
  EXPECT_EQ(p.At(2.4).source, Source::kHook);
  p.Unknown(3.0);
  EXPECT_EQ(p.At(3.1).signal.state, State::kWaitingApproval);
  p.Hook(5.0, "PostToolUse");  // approved: the next hook shows it
  EXPECT_EQ(p.At(5.1).signal.state, State::kRunning);
}

TEST(HookFusionTest, AnEarlierDialogOfTheTurnDoesNotVouchForTheNextOne) {
  Pane p(/*wrapped=*/true);
  UpToTheDialog(p);
  p.Unknown(4.0);                                 // first dialog approved
  p.Hook(5.0, "PostToolUse");
  p.Hook(6.0, "PreToolUse");
  p.Hook(6.05, "PermissionRequest");             // second dialog, unreadable
  p.Screen(6.3, State::kRunning, "claude.title.spinner");
  EXPECT_EQ(p.At(6.4).signal.state, State::kWaitingApproval);
}

TEST(HookFusionTest, AnUnknownScreenDoesNotOutrankTheHooksRunning) {
  // Fault 3 in its plain form: the 2.1.330 working screen reads unknown
  // after UserPromptSubmit, and after PostToolUse.
  for (bool wrapped : {true, false}) {
    SCOPED_TRACE(wrapped ? "wrapped" : "unwrapped");
    Pane p(wrapped);
    p.Hook(1.0, "UserPromptSubmit");
    p.Unknown(1.1);
    EXPECT_EQ(p.At(1.2).signal.state, State::kRunning);
    EXPECT_EQ(p.At(1.2).source, Source::kHook);
    p.Hook(3.0, "PostToolUse");
    p.Unknown(3.5);
    EXPECT_EQ(p.At(9.0).signal.state, State::kRunning);
  }
}

// Claude Code 2.1.330 in auto mode (tests/fixtures/claude/2.1.330/auto/
// shell_risky_*+hooks, times as recorded): a command the pre-screen does not
// clear shows the notice "Auto mode can't check actions in this session" and
// then a No/Yes dialog. No hook reports either: the hooks' last word is
// PreToolUse's running.
void UpToTheAutoModeDialogs(Pane& p) {
  p.Screen(0.675, State::kIdle, "claude.prompt.idle", Confidence::kMedium);
  p.Hook(2.817, "UserPromptSubmit");
  p.Screen(2.879, State::kRunning, "claude.footer.interrupt");
  p.Hook(3.224, "PreToolUse");
  p.Screen(3.420, State::kWaitingApproval, "claude.auto_mode_unavailable");
  p.Screen(5.567, State::kWaitingApproval, "claude.approval.shell");
}

TEST(HookFusionTest, AutoModeDeniedTheScreensTurnEndBeatsTheHooksLaggingRunning) {
  // Denied with Esc: the prompt is back (idle, the prompt rule's medium
  // confidence) and no hook fires until SessionEnd 3.6 s later. The screen
  // saw a dialog after the hooks' last report and then the turn end: its
  // newer knowledge wins (docs/precedence.md row 1c).
  for (bool wrapped : {true, false}) {
    SCOPED_TRACE(wrapped ? "wrapped" : "unwrapped");
    Pane p(wrapped);
    UpToTheAutoModeDialogs(p);
    EXPECT_EQ(p.At(3.5).signal.state, State::kWaitingApproval);
    EXPECT_EQ(p.At(5.6).signal.rule_id, "claude.approval.shell");
    p.Screen(7.257, State::kIdle, "claude.prompt.idle", Confidence::kMedium);
    const state::PaneState& s = p.At(10.7);
    EXPECT_EQ(s.signal.state, State::kIdle);
    EXPECT_EQ(s.signal.rule_id, "claude.prompt.idle");
    EXPECT_EQ(s.source, wrapped ? Source::kWrapper : Source::kPoller);
  }
}

TEST(HookFusionTest, AutoModeApprovedTheHooksTakeTheTurnBack) {
  for (bool wrapped : {true, false}) {
    SCOPED_TRACE(wrapped ? "wrapped" : "unwrapped");
    Pane p(wrapped);
    UpToTheAutoModeDialogs(p);
    p.Screen(7.2, State::kRunning, "claude.footer.interrupt");  // Yes: the command runs
    EXPECT_EQ(p.At(7.3).signal.state, State::kRunning);
    p.Hook(8.102, "PostToolUse");
    p.Hook(8.460, "Stop");
    p.Screen(8.5, State::kIdle, "claude.prompt.idle", Confidence::kMedium);
    EXPECT_EQ(p.At(8.6).signal.state, State::kCompleted);
    EXPECT_EQ(p.At(8.6).source, Source::kHook);
  }
}

TEST(HookFusionTest, AScreenIdleWithoutADialogDoesNotEndTheHooksTurn) {
  // Between tool calls the prompt may show for a moment; without a dialog
  // the screen saw after the hooks' last report, the hooks' running stands.
  Pane p(/*wrapped=*/true);
  p.Hook(1.0, "UserPromptSubmit");
  p.Screen(1.1, State::kRunning, "claude.footer.interrupt");
  p.Hook(2.0, "PreToolUse");
  p.Screen(2.5, State::kIdle, "claude.prompt.idle", Confidence::kMedium);
  EXPECT_EQ(p.At(2.6).signal.state, State::kRunning);
  EXPECT_EQ(p.At(2.6).source, Source::kHook);
}

TEST(HookFusionTest, AQuestionThroughThePermissionHookIsWaitingInput) {
  // Fault 2: AskUserQuestion arrives through PermissionRequest.
  for (bool wrapped : {true, false}) {
    SCOPED_TRACE(wrapped ? "wrapped" : "unwrapped");
    Pane p(wrapped);
    p.Hook(1.0, "UserPromptSubmit");
    p.Unknown(1.1);
    p.Hook(2.0, "PreToolUse");
    p.Hook(2.05, "PermissionRequest", testing::ClaudeQuestionPermissionRequest());
    const state::PaneState& s = p.At(2.1);
    EXPECT_EQ(s.signal.state, State::kWaitingInput);
    EXPECT_EQ(s.signal.detail.approval_type, "user_question");
    EXPECT_EQ(s.signal.detail.details, "Which test framework should I use?");
  }
}

}  // namespace
}  // namespace agt::cli
