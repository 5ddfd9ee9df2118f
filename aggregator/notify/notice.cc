// The wording of a notification, one place for every channel (see
// notice.h). Titles say who waits and where, so that a phone's lock screen
// is enough to know which pane to go to; the message carries what the
// agent asks, which the state alone does not.
#include "aggregator/notify/notice.h"

#include <cstdint>

#include "libagtcore/base/visible_text.h"

namespace agt::agg {
namespace {

std::string_view Verb(core::State s) {
  switch (s) {
    case core::State::kWaitingApproval: return "needs approval";
    case core::State::kWaitingInput: return "waits for input";
    case core::State::kError: return "hit an error";
    case core::State::kCompleted: return "completed";
    default: return "changed state";
  }
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

}  // namespace

std::string Notice::Location() const {
  if (session.empty()) return pane_id;
  return session + ":" + std::to_string(window_index) + "." + std::to_string(pane_index);
}

// Every text leaving through a channel (the command's environment,
// notify-send, display-message, the webhook) is made visible with
// core::VisibleText: the question, choices and evidence are the agent's
// text, and an ESC, BEL or CR in them must not reach a terminal or a
// phone's renderer raw. Line breaks stay (a question can span lines).
std::string Notice::Title() const {
  std::string who = agent.empty() ? "agent" : agent;
  std::string where = Location();
  if (target != "host" && !target.empty()) where = target + "/" + where;
  return core::VisibleText(who + " " + std::string(Verb(state)) + " in " + where);
}

std::string Notice::Message() const {
  std::string text = detail.details.empty() ? evidence : detail.details;
  if (!detail.choices.empty()) {
    if (!text.empty()) text += "\n";
    text += Join(detail.choices, " / ");
  }
  if (text.empty()) return Title();
  return core::VisibleText(text, {.keep_newlines = true});
}

std::vector<std::pair<std::string, std::string>> Notice::Environment() const {
  std::vector<std::pair<std::string, std::string>> env = {
      {"AGTMUX_PANE", pane_id},
      {"AGTMUX_TARGET", target},
      {"AGTMUX_SESSION", session},
      {"AGTMUX_WINDOW", std::to_string(window_index)},
      {"AGTMUX_STATE", std::string(core::StateName(state))},
      {"AGTMUX_AGENT", agent},
      {"AGTMUX_SOURCE", source},
      {"AGTMUX_RUNTIME", runtime_id},
      {"AGTMUX_APPROVAL_TYPE", detail.approval_type},
      {"AGTMUX_QUESTION", detail.details.empty() ? evidence : detail.details},
      {"AGTMUX_CHOICES", Join(detail.choices, "\n")},
      {"AGTMUX_TITLE", Title()},
      {"AGTMUX_MESSAGE", Message()},
  };
  for (auto& [name, value] : env) value = core::VisibleText(value, {.keep_newlines = true});
  return env;
}

std::string Notice::Tags() const {
  std::string tags(core::StateName(state));
  if (!agent.empty()) tags += "," + OneLine(agent, 64);
  return tags;
}

std::string OneLine(std::string_view text, size_t max) {
  std::string out;
  for (char c : text) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  if (out.size() > max) {
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    out.resize(cut);
  }
  return out;
}

std::string HeaderValue(std::string_view text, size_t max) {
  std::string line = OneLine(text, max);
  bool ascii = true;
  for (char c : line) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) return line;
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out = "=?UTF-8?B?";
  for (size_t i = 0; i < line.size(); i += 3) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(line[i])) << 16;
    if (i + 1 < line.size()) n |= static_cast<uint32_t>(static_cast<unsigned char>(line[i + 1])) << 8;
    if (i + 2 < line.size()) n |= static_cast<unsigned char>(line[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < line.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < line.size() ? kAlphabet[n & 63] : '=';
  }
  return out + "?=";
}

std::string TmuxLiteral(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '#') out += "##";
    else if (c == '\n') out += " | ";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace agt::agg
