// Hook payloads of Claude Code, Gemini CLI and Codex notify mapped to
// events: states, evidence, detail, binding fields and dedupe identity.
#include "cli/hook_payload.h"

#include <gtest/gtest.h>

#include "libagtcore/event_codec.h"

namespace agt::cli {
namespace {

using core::State;

HookContext PaneCtx() {
  HookContext ctx;
  ctx.tmux_pane = "%7";
  ctx.now = 1'800'000'000LL * core::kNsPerSec;
  return ctx;
}

core::Event Must(HookKind kind, const std::string& json, const HookContext& ctx = PaneCtx()) {
  auto e = NormalizeHook(kind, json, ctx);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().ToString());
  return e.ok() ? *e : core::Event{};
}

std::string Claude(const std::string& event, const std::string& extra = "") {
  return R"({"session_id":"s-1","transcript_path":"/tmp/t.jsonl","cwd":"/w",)"
         R"("permission_mode":"default","hook_event_name":")" +
         event + "\"" + (extra.empty() ? "" : "," + extra) + "}";
}

TEST(HookPayloadTest, ClaudeLifecycleMapsToStates) {
  struct Case {
    std::string event, extra;
    State state;
  } cases[] = {
      {"UserPromptSubmit", R"("prompt":"hi")", State::kRunning},
      {"PreToolUse", R"("tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"})",
       State::kRunning},
      {"PostToolUse", R"("tool_name":"Bash","tool_use_id":"t1")", State::kRunning},
      {"PostToolUseFailure", R"("tool_name":"Bash","tool_use_id":"t1")", State::kRunning},
      {"Stop", R"("stop_hook_active":false)", State::kCompleted},
      {"SubagentStop", "", State::kRunning},
      {"StopFailure", R"("error":"overloaded")", State::kError},
      {"PreCompact", "", State::kRunning},
      {"SessionStart", R"("source":"startup")", State::kIdle},
      {"SessionStart", R"("source":"compact")", State::kRunning},
      {"Notification", R"("notification_type":"idle_prompt","message":"waiting")", State::kIdle},
  };
  for (const auto& c : cases) {
    core::Event e = Must(HookKind::kClaude, Claude(c.event, c.extra));
    ASSERT_TRUE(e.signal.has_value()) << c.event;
    EXPECT_EQ(e.signal->state, c.state) << c.event << " " << c.extra;
    EXPECT_EQ(e.source, core::Source::kHook);
    EXPECT_EQ(e.event_type, "claude." + c.event);
    EXPECT_EQ(e.pane_id, "%7");
    EXPECT_EQ(e.target_id, "host");
    EXPECT_TRUE(e.runtime_id.empty());
    EXPECT_FALSE(e.dedupe_key.empty());
  }
}

TEST(HookPayloadTest, ClaudePermissionRequestCarriesToolDetail) {
  core::Event e = Must(HookKind::kClaude,
                       Claude("PermissionRequest",
                              R"("tool_name":"Bash","tool_input":{"command":"rm -rf build\nls"})"));
  ASSERT_TRUE(e.signal);
  EXPECT_EQ(e.signal->state, State::kWaitingApproval);
  EXPECT_EQ(e.signal->confidence, core::Confidence::kHigh);
  EXPECT_EQ(e.signal->detail.approval_type, "shell");
  EXPECT_EQ(e.signal->detail.details, "rm -rf build …");
  EXPECT_EQ(e.signal->rule_id, "claude.PermissionRequest");

  core::Event edit = Must(HookKind::kClaude,
                          Claude("PermissionRequest",
                                 R"("tool_name":"Edit","tool_input":{"file_path":"/w/a.c"})"));
  EXPECT_EQ(edit.signal->detail.approval_type, "file_edit");
  EXPECT_EQ(edit.signal->detail.details, "/w/a.c");
}

TEST(HookPayloadTest, ClaudeNotificationTypes) {
  core::Event perm = Must(HookKind::kClaude,
                          Claude("Notification",
                                 R"("notification_type":"permission_prompt","message":"Claude needs your permission to use Bash")"));
  EXPECT_EQ(perm.signal->state, State::kWaitingApproval);
  core::Event elicit = Must(HookKind::kClaude,
                            Claude("Notification", R"("notification_type":"elicitation_dialog","message":"q")"));
  EXPECT_EQ(elicit.signal->state, State::kWaitingInput);
  core::Event other = Must(HookKind::kClaude,
                           Claude("Notification", R"("notification_type":"auth_success","message":"ok")"));
  EXPECT_FALSE(other.signal.has_value());  // recorded, but says nothing about the state
}

TEST(HookPayloadTest, SessionEndIsUnknownWithReason) {
  core::Event e = Must(HookKind::kClaude, Claude("SessionEnd", R"("reason":"exit")"));
  ASSERT_TRUE(e.signal);
  EXPECT_EQ(e.signal->state, State::kUnknown);
  EXPECT_EQ(e.signal->reason_code, "session_ended");
}

TEST(HookPayloadTest, DedupeKeyComesFromIdentityNotTheClock) {
  HookContext a = PaneCtx();
  HookContext b = PaneCtx();
  b.now += 5 * core::kNsPerSec;
  const std::string pre = Claude("PreToolUse", R"("tool_name":"Bash","tool_use_id":"t1")");
  core::Event e1 = Must(HookKind::kClaude, pre, a);
  core::Event e2 = Must(HookKind::kClaude, pre, b);
  EXPECT_EQ(e1.dedupe_key, e2.dedupe_key);  // a re-delivery is the same event
  EXPECT_NE(e1.event_id, e2.event_id);

  core::Event other_tool =
      Must(HookKind::kClaude, Claude("PreToolUse", R"("tool_name":"Bash","tool_use_id":"t2")"), a);
  EXPECT_NE(other_tool.dedupe_key, e1.dedupe_key);
  core::Event post =
      Must(HookKind::kClaude, Claude("PostToolUse", R"("tool_name":"Bash","tool_use_id":"t1")"), a);
  EXPECT_NE(post.dedupe_key, e1.dedupe_key);

  // Two Stops of one session have identical payloads; the transcript has
  // grown in between, which tells them apart.
  HookContext t1 = PaneCtx();
  t1.transcript_size = 1000;
  HookContext t2 = PaneCtx();
  t2.transcript_size = 2400;
  EXPECT_NE(Must(HookKind::kClaude, Claude("Stop"), t1).dedupe_key,
            Must(HookKind::kClaude, Claude("Stop"), t2).dedupe_key);
  EXPECT_EQ(Must(HookKind::kClaude, Claude("Stop"), t1).dedupe_key,
            Must(HookKind::kClaude, Claude("Stop"), t1).dedupe_key);
}

TEST(HookPayloadTest, WrappedRuntimeBindsDirectly) {
  HookContext ctx = PaneCtx();
  ctx.runtime_id = "0123456789abcdef0123456789abcdef";
  core::Event e = Must(HookKind::kClaude, Claude("Stop"), ctx);
  EXPECT_EQ(e.runtime_id, ctx.runtime_id);
  // The envelope codec accepts what the hook produces.
  auto round = core::DecodeEvent(core::EncodeEvent(e));
  ASSERT_TRUE(round.ok()) << round.error().ToString();
  EXPECT_EQ(*round, e);
}

TEST(HookPayloadTest, GeminiEvents) {
  auto g = [](const std::string& name, const std::string& extra = "") {
    return R"({"session_id":"g1","cwd":"/w","timestamp":"2026-11-22T03:00:00Z","hook_event_name":")" +
           name + "\"" + (extra.empty() ? "" : "," + extra) + "}";
  };
  EXPECT_EQ(Must(HookKind::kGemini, g("BeforeAgent")).signal->state, State::kRunning);
  EXPECT_EQ(Must(HookKind::kGemini, g("AfterAgent")).signal->state, State::kCompleted);
  EXPECT_EQ(Must(HookKind::kGemini, g("BeforeTool", R"("tool_name":"run_shell_command")")).signal->state,
            State::kRunning);
  EXPECT_EQ(Must(HookKind::kGemini, g("AfterTool", R"("tool_name":"run_shell_command")")).signal->state,
            State::kRunning);
  core::Event perm = Must(HookKind::kGemini,
                          g("Notification", R"("notification_type":"ToolPermission","message":"Allow execution of [Shell]?","details":{"type":"exec"})"));
  EXPECT_EQ(perm.signal->state, State::kWaitingApproval);
  EXPECT_EQ(perm.event_type, "gemini.Notification");
  EXPECT_EQ(Must(HookKind::kGemini, g("SessionStart")).signal->state, State::kIdle);
  EXPECT_EQ(Must(HookKind::kGemini, g("SessionEnd")).signal->state, State::kUnknown);
}

TEST(HookPayloadTest, CodexTurnComplete) {
  const std::string json =
      R"({"type":"agent-turn-complete","thread-id":"th1","turn-id":"12","cwd":"/w",)"
      R"("input-messages":["run tests"],"last-assistant-message":"All 12 tests pass.\nDone."})";
  core::Event e = Must(HookKind::kCodexNotify, json);
  EXPECT_EQ(e.source, core::Source::kNotify);
  EXPECT_EQ(e.event_type, "codex.agent-turn-complete");
  EXPECT_EQ(e.signal->state, State::kCompleted);
  EXPECT_EQ(e.signal->evidence, "All 12 tests pass. …");
  EXPECT_EQ(e.source_event_id, "th1:12:agent-turn-complete");
  const std::string next = R"({"type":"agent-turn-complete","thread-id":"th1","turn-id":"13"})";
  EXPECT_NE(Must(HookKind::kCodexNotify, next).dedupe_key, e.dedupe_key);
}

TEST(HookPayloadTest, BadPayloadsNameTheProblem) {
  auto bad_json = NormalizeHook(HookKind::kClaude, "{not json", PaneCtx());
  ASSERT_FALSE(bad_json.ok());
  EXPECT_EQ(bad_json.error().code, core::Err::kPayloadInvalid);
  auto no_event = NormalizeHook(HookKind::kClaude, R"({"session_id":"s"})", PaneCtx());
  ASSERT_FALSE(no_event.ok());
  EXPECT_NE(no_event.error().message.find("hook_event_name"), std::string::npos);
  auto no_session = NormalizeHook(HookKind::kGemini, R"({"hook_event_name":"AfterAgent"})", PaneCtx());
  ASSERT_FALSE(no_session.ok());
  EXPECT_NE(no_session.error().message.find("session_id"), std::string::npos);
  auto no_turn = NormalizeHook(HookKind::kCodexNotify, R"({"type":"agent-turn-complete"})", PaneCtx());
  ASSERT_FALSE(no_turn.ok());
  EXPECT_NE(no_turn.error().message.find("turn-id"), std::string::npos);
  auto array = NormalizeHook(HookKind::kCodexNotify, "[]", PaneCtx());
  ASSERT_FALSE(array.ok());

  HookContext nowhere;
  auto unbound = NormalizeHook(HookKind::kClaude, Claude("Stop"), nowhere);
  ASSERT_FALSE(unbound.ok());
  EXPECT_EQ(unbound.error().code, core::Err::kUnbound);
}

}  // namespace
}  // namespace agt::cli
