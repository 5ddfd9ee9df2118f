// `agtmux send <ref>`: types into an agent pane through the daemon's action
// path (POST /v1/actions/send) with the guard flags, and with --wait
// dispatches and waits for the pane to finish or a pattern to match
// (exit 0 success, 1 failure match, 124 timeout). A state counts only when
// the pane reached it after the send (its state_version moved).
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <thread>

#include "cli/client/action_client.h"
#include "cli/command.h"
#include "cli/client/ref_resolve.h"
#include "cli/client/daemon_client.h"
#include "cli/json_fields.h"
#include "libagtcore/detect/regex.h"
#include "libagtcore/base/timefmt.h"

namespace agt::cli {

namespace {

std::string ReadAll() {
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

struct PaneNow {
  std::string state;
  int64_t state_version = 0;  // grows with each state change of the runtime
};

core::Result<PaneNow> PaneState(const std::string& ref) {
  rapidjson::Document b = ActionBody(ref);
  auto d = PostAction("snapshot", b, {});
  if (!d) return d.error();
  return PaneNow{JsonStr(*d, "state"), JsonInt(*d, "state_version")};
}

core::Result<SendOutcome> Wait(const SendArgs& a, const std::string& before, SendOutcome out) {
  auto timeout = core::ParseDuration(a.timeout);
  if (!timeout) return core::MakeError(core::Err::kRequestInvalid, "--timeout: " + timeout.error().message);
  std::optional<detect::Regex> ok_re, fail_re;
  for (auto [pat, re_out, name] : {std::tuple{&a.match, &ok_re, "--match"}, std::tuple{&a.fail_match, &fail_re, "--fail-match"}}) {
    if (pat->empty()) continue;
    auto re = detect::Regex::Compile(*pat);
    if (!re) return core::MakeError(core::Err::kRequestInvalid, std::string(name) + ": " + re.error().message);
    re_out->emplace(std::move(*re));
  }
  std::vector<std::string> until;
  if (!a.until.empty()) until.push_back(a.until);
  else if (!ok_re) until = {"completed", "idle", "waiting_input", "waiting_approval"};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(*timeout);
  // Only a state the send caused counts: one reached by a change after the
  // send (a pane already waiting_input is not an answer to the message).
  const int64_t sent_at_version = JsonInt(JsonObj(out.answer, "snapshot"), "state_version");
  while (true) {
    auto full = ViewOutput(a.ref, 2000);
    if (!full) return full.error();
    out.output = NewOutput(before, *full);
    if (fail_re && fail_re->Search(out.output)) {
      out.exit = 1;
      return out;
    }
    if (ok_re && ok_re->Search(out.output)) return out;
    if (!until.empty()) {
      auto st = PaneState(a.ref);
      if (!st) return st.error();
      bool hit = std::find(until.begin(), until.end(), st->state) != until.end();
      if (hit && st->state_version > sent_at_version) {
        out.exit = st->state == "error" && a.until != "error" ? 1 : 0;
        return out;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  out.exit = 124;
  return out;
}

int RunSend(SendArgs a) {
  if (a.read_stdin) {
    a.text = ReadAll();
    while (!a.text.empty() && a.text.back() == '\n') a.text.pop_back();
    a.paste = a.paste || a.text.find('\n') != std::string::npos;
  }
  auto o = Send(a);
  if (!o) return ReportError(o.error());
  if (!o->policy_note.empty()) std::fprintf(stderr, "agtmux: %s\n", o->policy_note.c_str());
  if (a.json) {
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    o->answer.Accept(w);
    std::printf("%s\n", sb.GetString());
  } else if (!a.wait) {
    std::printf("sent (action %s, delivery %s)\n", o->answer["action_id"].GetString(),
                ResultString(o->answer, "delivery").c_str());
  }
  if (!a.wait) return 0;
  std::printf("%s\n", o->output.c_str());
  if (o->exit == 124) std::fprintf(stderr, "agtmux: E_TIMEOUT: nothing matched within %s\n", a.timeout.c_str());
  return o->exit;
}

}  // namespace

core::Result<SendOutcome> Send(const SendArgs& a) {
  std::string before;
  if (a.wait) {
    auto b = ViewOutput(a.ref, 2000);
    if (!b) return b.error();
    before = *b;
  }
  rapidjson::Document body = ActionBody(a.ref);
  auto& al = body.GetAllocator();
  if (!a.text.empty()) body.AddMember("text", rapidjson::Value(a.text.c_str(), al), al);
  if (a.paste) body.AddMember("paste", true, al);
  if (a.enter) body.AddMember("enter", true, al);
  if (a.allow_dangerous) body.AddMember("allow_dangerous", true, al);
  if (!a.keys.empty()) {
    rapidjson::Value keys(rapidjson::kArrayType);
    for (const auto& k : a.keys) keys.PushBack(rapidjson::Value(k.c_str(), al), al);
    body.AddMember("keys", keys, al);
  }
  auto d = PostAction("send", body, a.guards);
  if (!d) return d.error();
  SendOutcome out;
  if (d->HasMember("result") && (*d)["result"].HasMember("policy")) {
    const auto& p = (*d)["result"]["policy"];
    out.policy_note = std::string("send policy ") + p["level"].GetString() + ": " + p["rule"].GetString() + " (" +
                      p["pattern"].GetString() + ")";
  }
  out.answer = std::move(*d);
  if (!a.wait) return out;
  return Wait(a, before, std::move(out));
}

CommandSpec SendCommand() {
  return {"send", "Type into an agent pane (literal text, stdin, keys), guarded; --wait for the result",
          [](CLI::App* sub) -> Runner {
            auto a = std::make_shared<SendArgs>();
            sub->add_option("ref", a->ref, kRefHelp)->required();
            sub->add_option("--text", a->text, "literal text (\"Enter\" is typed as text, not as a key)");
            sub->add_flag("--stdin", a->read_stdin, "read the text from stdin (multi-line = one pasted message)");
            sub->add_option("--key", a->keys, "a tmux key name (repeatable): Enter, C-c, Up, ...");
            sub->add_flag("--enter", a->enter, "press Enter after the text (sent separately, after ~100 ms)");
            sub->add_flag("--paste", a->paste, "paste the text (load-buffer + paste-buffer -p)");
            sub->add_flag("--allow-dangerous", a->allow_dangerous, "send text the send policy blocks");
            sub->add_flag("--json", a->json, "print the daemon's JSON answer");
            sub->add_flag("--wait", a->wait, "wait for the agent to finish or a pattern to match");
            sub->add_option("--until", a->until, "with --wait: the state to wait for (completed, idle, waiting_input, ...)");
            sub->add_option("--match", a->match, "with --wait: success when the new output matches this regex");
            sub->add_option("--fail-match", a->fail_match, "with --wait: failure (exit 1) when it matches this regex");
            sub->add_option("--timeout", a->timeout, "with --wait: give up after this long (exit 124)");
            AddGuardFlags(sub, &a->guards);
            return [a] { return WithResolvedRef(&a->ref, [a] { return RunSend(*a); }); };
          }};
}

}  // namespace agt::cli
