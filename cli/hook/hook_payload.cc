// Maps hook payloads of Claude Code and Gemini CLI, and Codex's notify JSON,
// to canonical states (docs/precedence.md explains how the engine fuses
// them with what the screen shows).
//
// The mapping is deliberately about lifecycle facts only: hooks are blind
// to the choices a dialog shows, so a waiting state from a hook carries the
// tool and its input as detail, and the screen adds the choices.
//
// Identity: the dedupe key comes from the payload's own identity (session,
// event, tool-use id, turn id) plus a hash of the payload and, for Claude,
// the transcript size; never the clock, so a re-delivered spool line and
// the original are the same event.
#include "cli/hook/hook_payload.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "cli/json_fields.h"
#include "libagtcore/ids.h"
#include "libagtcore/base/json.h"

namespace agt::cli {
namespace {

using core::Confidence;
using core::Err;
using core::Signal;
using core::State;

std::string Truncate(std::string s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
  s.resize(cut);
  s += "…";
  return s;
}

std::string FirstLine(const std::string& s) {
  size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl) + " …";
}

// The approval type of a tool, as the state model names it.
std::string ApprovalTypeForTool(const std::string& tool) {
  if (tool == "Bash" || tool == "run_shell_command" || tool == "BashOutput" ||
      tool == "shell" || tool == "exec_command")
    return "shell";
  if (tool == "Edit" || tool == "MultiEdit" || tool == "Write" || tool == "NotebookEdit" ||
      tool == "write_file" || tool == "replace" || tool == "apply_patch")
    return "file_edit";
  if (tool.rfind("mcp__", 0) == 0 || tool.find("mcp") != std::string::npos) return "mcp";
  if (tool == "WebFetch" || tool == "WebSearch" || tool == "web_fetch" ||
      tool == "google_web_search")
    return "network";
  if (tool == "ExitPlanMode" || tool == "exit_plan_mode") return "plan";
  if (tool == "AskUserQuestion" || tool == "ask_user") return "user_question";
  return "tool";
}

// What a tool call is about, for `details`: the command, else the file.
std::string ToolSubject(const rapidjson::Value& payload) {
  auto it = payload.FindMember("tool_input");
  if (it == payload.MemberEnd() || !it->value.IsObject()) return "";
  for (const char* key : {"command", "file_path", "path", "url", "notebook_path", "pattern"}) {
    std::string v = JsonStr(it->value, key);
    if (!v.empty()) return Truncate(FirstLine(v), 200);
  }
  return "";
}

// Claude's AskUserQuestion input: {"questions":[{"question","header",
// "options":[{"label","description"}],"multiSelect"}]}. The first question
// and its option labels become the waiting detail (the dialog adds its own
// rows, such as "Type something.", which only the screen sees).
void QuestionDetail(const rapidjson::Value& payload, core::WaitingDetail* d) {
  auto in = payload.FindMember("tool_input");
  if (in == payload.MemberEnd() || !in->value.IsObject()) return;
  auto qs = in->value.FindMember("questions");
  if (qs == in->value.MemberEnd() || !qs->value.IsArray() || qs->value.Empty()) return;
  const rapidjson::Value& q = qs->value[0];
  if (!q.IsObject()) return;
  d->details = Truncate(FirstLine(JsonStr(q, "question")), 200);
  auto multi = q.FindMember("multiSelect");
  d->multi_select = multi != q.MemberEnd() && multi->value.IsBool() && multi->value.GetBool();
  auto opts = q.FindMember("options");
  if (opts == q.MemberEnd() || !opts->value.IsArray()) return;
  for (const auto& o : opts->value.GetArray()) {
    std::string label = JsonStr(o, "label");
    if (!label.empty()) d->choices.push_back(Truncate(FirstLine(label), 120));
  }
}

Signal Make(State state, Confidence c, std::string rule_id, std::string evidence) {
  Signal s;
  s.state = state;
  s.confidence = c;
  s.rule_id = std::move(rule_id);
  s.evidence = Truncate(std::move(evidence), 300);
  return s;
}

std::optional<Signal> ClaudeSignal(const std::string& name, const rapidjson::Value& p) {
  const std::string rule = "claude." + name;
  const std::string tool = JsonStr(p, "tool_name");
  if (name == "UserPromptSubmit")
    return Make(State::kRunning, Confidence::kHigh, rule, "prompt submitted");
  if (name == "PreToolUse" || name == "PostToolUse" || name == "PostToolUseFailure") {
    std::string subject = ToolSubject(p);
    return Make(State::kRunning, Confidence::kHigh, rule,
                tool + (subject.empty() ? "" : ": " + subject));
  }
  if (name == "PermissionRequest" && tool == "AskUserQuestion") {
    // A question reaches the permission hook too (2.1.330): it waits for
    // an answer, not for an approval.
    Signal s = Make(State::kWaitingInput, Confidence::kHigh, rule, "question asked");
    s.detail.approval_type = "user_question";
    QuestionDetail(p, &s.detail);
    if (!s.detail.details.empty()) s.evidence = Truncate("question: " + s.detail.details, 300);
    return s;
  }
  if (name == "PermissionRequest") {
    Signal s = Make(State::kWaitingApproval, Confidence::kHigh, rule,
                    "permission requested for " + tool);
    s.detail.approval_type = ApprovalTypeForTool(tool);
    s.detail.details = ToolSubject(p);
    if (s.detail.details.empty()) s.detail.details = tool;
    return s;
  }
  if (name == "Notification") {
    const std::string type = JsonStr(p, "notification_type");
    const std::string msg = Truncate(JsonStr(p, "message"), 200);
    if (type == "permission_prompt") {
      Signal s = Make(State::kWaitingApproval, Confidence::kHigh, rule + ".permission_prompt", msg);
      s.detail.approval_type = "tool";
      s.detail.details = msg;
      return s;
    }
    if (type == "elicitation_dialog") {
      Signal s = Make(State::kWaitingInput, Confidence::kHigh, rule + ".elicitation_dialog", msg);
      s.detail.approval_type = "user_question";
      s.detail.details = msg;
      return s;
    }
    if (type == "idle_prompt")
      return Make(State::kIdle, Confidence::kHigh, rule + ".idle_prompt", msg);
    return std::nullopt;  // auth_success and future types: recorded, no state
  }
  if (name == "Stop") {
    // Claude 2.1.197 sends the answer's text as last_assistant_message.
    std::string last = FirstLine(JsonStr(p, "last_assistant_message"));
    return Make(State::kCompleted, Confidence::kHigh, rule,
                last.empty() ? "turn ended" : Truncate(last, 200));
  }
  if (name == "SubagentStop")
    return Make(State::kRunning, Confidence::kMedium, rule, "subagent finished");
  if (name == "StopFailure") {
    std::string err = JsonStr(p, "error");
    if (err.empty()) err = JsonStr(p, "message");
    return Make(State::kError, Confidence::kHigh, rule,
                err.empty() ? "turn ended by an error" : Truncate(err, 200));
  }
  if (name == "PreCompact") return Make(State::kRunning, Confidence::kMedium, rule, "compacting");
  if (name == "SessionStart") {
    const std::string source = JsonStr(p, "source");
    if (source == "compact")
      return Make(State::kRunning, Confidence::kMedium, rule, "session resumed after compaction");
    // At start-up it fires before the prompt (or a start-up dialog) is
    // drawn: the session began, the agent is not waiting for a prompt yet.
    // The screen says when it is (docs/integrations.md).
    if (source == "startup") return std::nullopt;
    return Make(State::kIdle, Confidence::kHigh, rule,
                "session started" + (source.empty() ? "" : " (" + source + ")"));
  }
  if (name == "SessionEnd") {
    Signal s = Make(State::kUnknown, Confidence::kLow, rule, "session ended");
    s.reason_code = "session_ended";
    return s;
  }
  return std::nullopt;
}

// The approval type of a Gemini confirmation, from its details.type (or a
// tool name, as older builds sent).
std::string GeminiConfirmationType(const std::string& type, const std::string& tool) {
  if (type == "exec") return "shell";
  if (type == "edit") return "file_edit";
  if (type == "mcp") return "mcp";
  if (type == "info") return "network";
  if (type == "exit_plan_mode") return "plan";
  if (type == "ask_user") return "user_question";
  if (!tool.empty()) return ApprovalTypeForTool(tool);
  return "tool";
}

// Codex 0.169.0 also calls notify when its internal session-title request
// (a separate thread whose only input is the title instruction) completes,
// about half a second before the user's turn ends: that is not the turn.
bool IsCodexTitleTurn(const rapidjson::Value& doc) {
  auto it = doc.FindMember("input-messages");
  if (it == doc.MemberEnd() || !it->value.IsArray() || it->value.Size() != 1 ||
      !it->value[0].IsString())
    return false;
  std::string_view first(it->value[0].GetString(), it->value[0].GetStringLength());
  return first.starts_with("Generate a concise, single-line task title");
}

std::optional<Signal> GeminiSignal(const std::string& name, const rapidjson::Value& p) {
  const std::string rule = "gemini." + name;
  const std::string tool = JsonStr(p, "tool_name");
  if (name == "BeforeAgent" || name == "BeforeModel" || name == "AfterModel")
    return Make(State::kRunning, Confidence::kHigh, rule, "agent turn running");
  if (name == "AfterAgent") {
    std::string answer = FirstLine(JsonStr(p, "prompt_response"));
    return Make(State::kCompleted, Confidence::kHigh, rule,
                answer.empty() ? "turn ended" : Truncate(answer, 200));
  }
  if (name == "BeforeTool" || name == "AfterTool") {
    std::string subject = ToolSubject(p);
    return Make(State::kRunning, Confidence::kHigh, rule,
                tool + (subject.empty() ? "" : ": " + subject));
  }
  if (name == "PreCompress") return Make(State::kRunning, Confidence::kMedium, rule, "compressing");
  if (name == "Notification") {
    const std::string type = JsonStr(p, "notification_type");
    const std::string msg = Truncate(JsonStr(p, "message"), 200);
    if (type == "ToolPermission") {
      // Gemini 0.61.0: details is the confirmation's own object, e.g.
      // {"type":"exec","title":"Confirm Shell Command","command":"…","rootCommand":"…"};
      // `type` is exec | edit | mcp | info (web fetch).
      Signal s = Make(State::kWaitingApproval, Confidence::kHigh, rule + ".ToolPermission", msg);
      auto d = p.FindMember("details");
      const rapidjson::Value empty(rapidjson::kObjectType);
      const rapidjson::Value& det = d != p.MemberEnd() && d->value.IsObject() ? d->value : empty;
      s.detail.approval_type = GeminiConfirmationType(JsonStr(det, "type"), JsonStr(det, "toolName"));
      // ask_user's confirmation is a question (0.61.0 sends only its type
      // and title, not the questions): the agent waits for an answer.
      if (s.detail.approval_type == "user_question") s.state = State::kWaitingInput;
      for (const char* key : {"command", "fileName", "filePath", "url", "serverName"}) {
        std::string v = JsonStr(det, key);
        if (!v.empty()) {
          s.detail.details = Truncate(FirstLine(v), 200);
          break;
        }
      }
      if (s.detail.details.empty()) s.detail.details = msg;
      return s;
    }
    return std::nullopt;
  }
  if (name == "SessionStart")
    return Make(State::kIdle, Confidence::kHigh, rule, "session started");
  if (name == "SessionEnd") {
    Signal s = Make(State::kUnknown, Confidence::kLow, rule, "session ended");
    s.reason_code = "session_ended";
    return s;
  }
  return std::nullopt;
}

core::Error Invalid(const std::string& what) {
  return core::MakeError(Err::kPayloadInvalid, what);
}

}  // namespace

std::optional<HookKind> ParseHookKind(std::string_view name) {
  if (name == "claude") return HookKind::kClaude;
  if (name == "gemini") return HookKind::kGemini;
  if (name == "codex-notify") return HookKind::kCodexNotify;
  return std::nullopt;
}

std::string TranscriptPath(std::string_view payload) {
  rapidjson::Document doc;
  if (!core::ParseJson(payload, &doc) || !doc.IsObject()) return "";
  return JsonStr(doc, "transcript_path");
}

core::Result<core::Event> NormalizeHook(HookKind kind, std::string_view payload,
                                        const HookContext& ctx) {
  rapidjson::Document doc;
  if (auto parsed = core::ParseJson(payload, &doc); !parsed)
    return Invalid("hook payload: " + parsed.error().message);
  if (!doc.IsObject()) return Invalid("hook payload must be a JSON object");

  if (ctx.runtime_id.empty() && ctx.tmux_pane.empty())
    return core::MakeError(Err::kUnbound,
                           "neither AGTMUX_RUNTIME_ID nor TMUX_PANE is set: no pane to report for");

  core::Event e;
  e.event_time = ctx.now;
  e.event_id = core::NewUlid(ctx.now);
  e.runtime_id = ctx.runtime_id;
  e.target_id = ctx.target_id;
  e.pane_id = ctx.tmux_pane;
  e.raw_payload = std::string(payload);  // the caller redacts and caps it (core::RedactEvent)

  std::string identity;
  std::string payload_hash = core::Sha256Hex(payload);
  std::optional<Signal> signal;

  switch (kind) {
    case HookKind::kClaude:
    case HookKind::kGemini: {
      const std::string name = JsonStr(doc, "hook_event_name");
      const std::string session = JsonStr(doc, "session_id");
      if (name.empty()) return Invalid("hook payload has no string field \"hook_event_name\"");
      if (session.empty()) return Invalid("hook payload has no string field \"session_id\"");
      const bool claude = kind == HookKind::kClaude;
      e.source = core::Source::kHook;
      e.event_type = std::string(claude ? "claude." : "gemini.") + name;
      identity = session + ":" + name;
      std::string tool_use = JsonStr(doc, "tool_use_id");
      if (!tool_use.empty()) identity += ":" + tool_use;
      if (claude && ctx.transcript_size)
        payload_hash = core::Sha256Hex(payload_hash + ":" + std::to_string(*ctx.transcript_size));
      signal = claude ? ClaudeSignal(name, doc) : GeminiSignal(name, doc);
      break;
    }
    case HookKind::kCodexNotify: {
      const std::string type = JsonStr(doc, "type");
      if (type.empty()) return Invalid("codex notify payload has no string field \"type\"");
      const std::string turn = JsonStr(doc, "turn-id");
      const std::string thread = JsonStr(doc, "thread-id");
      e.source = core::Source::kNotify;
      e.event_type = "codex." + type;
      identity = thread + ":" + turn + ":" + type;
      if (type == "agent-turn-complete" && IsCodexTitleTurn(doc)) {
        if (turn.empty()) return Invalid("codex notify payload has no string field \"turn-id\"");
        e.event_type = "codex.title-turn-complete";  // recorded, no state
      } else if (type == "agent-turn-complete") {
        if (turn.empty()) return Invalid("codex notify payload has no string field \"turn-id\"");
        std::string last = FirstLine(JsonStr(doc, "last-assistant-message"));
        signal = Make(State::kCompleted, Confidence::kHigh, "codex.agent-turn-complete",
                      last.empty() ? "turn complete" : Truncate(last, 200));
      } else if (type == "approval-requested") {
        signal = Make(State::kWaitingApproval, Confidence::kHigh, "codex.approval-requested",
                      "approval requested");
        signal->detail.approval_type = "tool";
      }
      break;
    }
  }
  // The hook's firing time orders one hook stream: a spooled event arrives
  // late, and the engine's skew clamp (event_time replaced by ingested_at
  // beyond skew_budget) would otherwise rank a drained SessionStart above
  // the Stop that followed it. Hooks fire one after another, so the wall
  // clock at firing is a sequence; it is not part of the dedupe key.
  if (ctx.now > 0) e.source_seq = ctx.now;
  e.source_event_id = identity;
  e.dedupe_key = core::DeriveDedupeKey(e.source, identity, payload_hash, e.event_type);
  e.signal = signal;
  if (!ctx.tmux_socket.empty()) {
    // Which tmux server the pane is on: the event names target "host", and
    // the daemon moves it to the target that observes this socket.
    core::RuntimeInfo where;
    where.agent_type = kind == HookKind::kClaude ? "claude" : kind == HookKind::kGemini ? "gemini" : "codex";
    where.tmux_socket = ctx.tmux_socket;
    e.runtime = where;
  }
  return e;
}

}  // namespace agt::cli
