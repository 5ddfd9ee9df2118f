// `agtmux status-line`: a compact summary for tmux `status-right`, e.g.
// "⚠2 claude work:1 ▶3 ✓1": panes waiting (approval or input) with the one
// that has waited longest named (agent session:window), running,
// completed, and errors ("✗") when there are any. Prints nothing when no
// agent runs. Run by tmux (`#(agtmux status-line)`: $TMUX set, stdout not
// a terminal) each part gets a tmux style (#[fg=...]); in a terminal, or
// with --plain, the text is plain. `--ascii` uses W/R/D/E for terminals
// without those glyphs.
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/command.h"
#include "cli/client/daemon_client.h"
#include "cli/json_fields.h"
#include "cli/cmd/status_line.h"

namespace agt::cli {
namespace {

/// `name` cut to `max` characters (UTF-8 aware), "…" marking the cut.
std::string Cut(const std::string& name, size_t max) {
  size_t chars = 0, i = 0;
  for (; i < name.size(); ++i) {
    if ((static_cast<unsigned char>(name[i]) & 0xC0) == 0x80) continue;
    if (chars == max) return name.substr(0, i) + "…";
    ++chars;
  }
  return name;
}

/// A '#' in a name would start a tmux format or style: doubled, it is a '#'.
std::string TmuxEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '#') out += '#';
  }
  return out;
}

}  // namespace

std::string StatusLineText(const rapidjson::Value& answer, const StatusLineStyle& style) {
  const auto& by = JsonObj(JsonObj(answer, "summary"), "by_state");
  auto n = [&](const char* s) { return JsonInt(by, s); };
  const int64_t waiting = n("waiting_approval") + n("waiting_input");
  // The pane that has waited longest (the one to answer first).
  std::string who;
  const auto& items = JsonObj(answer, "items");
  if (waiting > 0 && items.IsArray()) {
    int64_t oldest = -1;
    for (const auto& it : items.GetArray()) {
      const std::string state = JsonStr(it, "state");
      if (state != "waiting_approval" && state != "waiting_input") continue;
      const int64_t age = JsonInt(it, "age_seconds");
      if (age <= oldest) continue;
      oldest = age;
      const std::string session = Cut(JsonStr(JsonObj(it, "identity"), "session_name"), 12);
      who = JsonStr(it, "agent_type");
      // A runtime not yet placed in a pane has no session.
      if (!session.empty()) who += " " + session + ":" + std::to_string(JsonInt(it, "window_index"));
    }
  }
  std::string out;
  auto add = [&](const char* glyph, const char* letter, const char* colour, int64_t count, const std::string& what) {
    if (count == 0) return;
    if (!out.empty()) out += ' ';
    std::string part = (style.ascii ? letter : glyph) + std::to_string(count);
    if (!what.empty()) part += " " + what;
    if (style.tmux)
      out += std::string("#[") + colour + "]" + TmuxEscape(part) + "#[default]";
    else
      out += part;
  };
  add("✗", "E", "fg=red,bold", n("error"), "");
  add("⚠", "W", "fg=yellow,bold", waiting, who);
  add("▶", "R", "fg=green", n("running"), "");
  add("✓", "D", "fg=cyan", n("completed"), "");
  return out;
}

namespace {

int RunStatusLine(bool ascii, bool plain, bool tmux) {
  StatusLineStyle style;
  style.ascii = ascii;
  const char* tmux_env = std::getenv("TMUX");
  // In status-right tmux runs the command with $TMUX set and reads its
  // output through a pipe; a person at a shell inside tmux gets plain text.
  style.tmux = tmux || (!plain && tmux_env && *tmux_env && !::isatty(STDOUT_FILENO));
  // tmux runs this every status-interval: it never starts the daemon, so a
  // daemon the user stopped stays stopped (issue 24).
  ClientOptions no_start;
  no_start.autostart = false;
  auto client = DaemonClient::Open(no_start);
  if (!client) {
    std::printf("agtmux: off\n");
    return ReportError(client.error());
  }
  auto body = client->Call("GET", "/v1/panes");
  if (!body) {
    std::printf("agtmux: off\n");
    return ReportError(body.error());
  }
  auto d = ParseAnswer(*body, {"summary"});
  if (!d) return ReportError(d.error());
  std::string text = StatusLineText(*d, style);
  if (!text.empty()) std::printf("%s\n", text.c_str());
  return 0;
}

}  // namespace

CommandSpec StatusLineCommand() {
  return {"status-line", "Print a compact agent summary for tmux status-right",
          [](CLI::App* sub) -> Runner {
            auto ascii = std::make_shared<bool>(false), plain = std::make_shared<bool>(false),
                 tmux = std::make_shared<bool>(false);
            sub->add_flag("--ascii", *ascii, "letters instead of symbols (E W R D)");
            auto* p = sub->add_flag("--plain", *plain, "no tmux styles, even when run by tmux");
            sub->add_flag("--tmux", *tmux, "tmux styles (#[fg=...]) even outside status-right")->excludes(p);
            return [ascii, plain, tmux] { return RunStatusLine(*ascii, *plain, *tmux); };
          }};
}

}  // namespace agt::cli
