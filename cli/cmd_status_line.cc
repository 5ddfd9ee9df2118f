// `agtmux status-line`: a compact summary for tmux `status-right`, e.g.
// "⚠2 ▶3 ✓1": panes waiting (approval or input), running, completed, and
// errors ("✗") when there are any. Prints nothing when no agent runs.
// `--ascii` uses W/R/D/E for terminals without those glyphs.
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>

#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/daemon_client.h"

namespace agt::cli {

/// The status text for a /v1/panes `summary` object.
std::string StatusLineText(const rapidjson::Value& summary, bool ascii) {
  const auto& by = summary["by_state"];
  auto n = [&](const char* s) { return by.HasMember(s) ? by[s].GetInt64() : 0; };
  int64_t waiting = n("waiting_approval") + n("waiting_input");
  std::string out;
  auto add = [&](const char* glyph, const char* letter, int64_t count) {
    if (count == 0) return;
    if (!out.empty()) out += ' ';
    out += (ascii ? letter : glyph) + std::to_string(count);
  };
  add("✗", "E", n("error"));
  add("⚠", "W", waiting);
  add("▶", "R", n("running"));
  add("✓", "D", n("completed"));
  return out;
}

namespace {

int RunStatusLine(bool ascii) {
  auto client = DaemonClient::Open({});
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
  std::string text = StatusLineText((*d)["summary"], ascii);
  if (!text.empty()) std::printf("%s\n", text.c_str());
  return 0;
}

}  // namespace

CommandSpec StatusLineCommand() {
  return {"status-line", "Print a compact agent summary for tmux status-right",
          [](CLI::App* sub) -> Runner {
            auto ascii = std::make_shared<bool>(false);
            sub->add_flag("--ascii", *ascii, "letters instead of symbols (E W R D)");
            return [ascii] { return RunStatusLine(*ascii); };
          }};
}

}  // namespace agt::cli
