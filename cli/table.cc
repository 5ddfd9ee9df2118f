// Display-width tables (see table.h). Width comes from utf8proc's
// charwidth, the same East Asian Width data terminals use, so a session
// named "開発" or "🚀 deploy" pads to the same column as an ASCII one.
#include "cli/table.h"

#include <sys/ioctl.h>
#include <unistd.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>

#include "cli/json_fields.h"
#include "libagtcore/base/timefmt.h"
#include "libagtcore/base/visible_text.h"

namespace agt::cli {

int DisplayWidth(std::string_view s) {
  int width = 0;
  size_t i = 0;
  while (i < s.size()) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                                          static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
    if (n <= 0) {
      ++width;
      ++i;
      continue;
    }
    int w = utf8proc_charwidth(cp);
    // Emoji presentation (U+1F300..) is wide in terminals even where the
    // table says otherwise for older utf8proc data.
    if (cp >= 0x1F300 && cp <= 0x1FAFF) w = 2;
    width += std::max(w, 0);
    i += static_cast<size_t>(n);
  }
  return width;
}

std::string TruncateToWidth(std::string_view s, int width) {
  if (DisplayWidth(s) <= width) return std::string(s);
  std::string out;
  int used = 0;
  size_t i = 0;
  while (i < s.size()) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                                          static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
    size_t len = n <= 0 ? 1 : static_cast<size_t>(n);
    int w = DisplayWidth(s.substr(i, len));
    if (used + w > width - 1) break;
    out.append(s.substr(i, len));
    used += w;
    i += len;
  }
  return out + "…";
}

bool ColorEnabled() {
  const char* nc = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && !(nc && *nc);
}

int TerminalWidth() {
  if (const char* cols = std::getenv("COLUMNS"); cols != nullptr && *cols != '\0') {
    char* end = nullptr;
    long n = std::strtol(cols, &end, 10);
    if (*end == '\0' && n > 0 && n < 100000) return static_cast<int>(n);
  }
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 0;
}

Table::Table(std::vector<std::string> headers)
    : headers_(std::move(headers)), max_(headers_.size(), 0), min_(headers_.size(), -1) {}

void Table::AddRow(std::vector<std::string> cells, std::vector<std::string> colors) {
  // Cells carry agent text (titles, questions, hook fields): shown, never sent.
  for (auto& c : cells) c = core::VisibleText(c);
  cells.resize(headers_.size());
  colors.resize(headers_.size());
  rows_.push_back(std::move(cells));
  colors_.push_back(std::move(colors));
}

void Table::SetMaxWidth(size_t column, int width) {
  if (column < max_.size()) max_[column] = width;
}

void Table::SetShrinkable(size_t column, int min) {
  if (column < min_.size()) min_[column] = std::max(min, 2);  // room for one cell and "…"
}

std::string Table::Render(bool color, int limit) const {
  size_t ncol = headers_.size();
  std::vector<std::vector<std::string>> cells = rows_;
  for (auto& row : cells)
    for (size_t c = 0; c < ncol; ++c)
      if (max_[c] > 0) row[c] = TruncateToWidth(row[c], max_[c]);
  std::vector<std::string> heads = headers_;
  std::vector<int> width(ncol, 0);
  for (size_t c = 0; c < ncol; ++c) width[c] = DisplayWidth(heads[c]);
  for (const auto& row : cells)
    for (size_t c = 0; c < ncol; ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
  if (limit > 0) {
    int total = 2 * static_cast<int>(ncol - 1);
    for (int w : width) total += w;
    while (total > limit) {
      size_t widest = ncol;  // the shrinkable column furthest above its minimum
      for (size_t c = 0; c < ncol; ++c)
        if (min_[c] >= 0 && width[c] > min_[c] && (widest == ncol || width[c] - min_[c] > width[widest] - min_[widest]))
          widest = c;
      if (widest == ncol) break;  // all at their minimum: as narrow as it gets
      --width[widest];
      --total;
    }
    for (auto& row : cells)
      for (size_t c = 0; c < ncol; ++c) row[c] = TruncateToWidth(row[c], width[c]);
    for (size_t c = 0; c < ncol; ++c) heads[c] = TruncateToWidth(heads[c], width[c]);
  }
  auto line = [&](const std::vector<std::string>& row, const std::vector<std::string>* colors, bool bold) {
    std::string out;
    for (size_t c = 0; c < ncol; ++c) {
      const std::string& cell = row[c];
      std::string sgr = bold ? "1" : (colors ? (*colors)[c] : "");
      if (color && !sgr.empty()) out += "\x1b[" + sgr + "m";
      out += cell;
      if (color && !sgr.empty()) out += "\x1b[0m";
      if (c + 1 < ncol) out.append(static_cast<size_t>(std::max(width[c] - DisplayWidth(cell), 0) + 2), ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(heads, nullptr, true);
  for (size_t r = 0; r < cells.size(); ++r) out += line(cells[r], &colors_[r], false);
  return out;
}

std::string StateColor(std::string_view s) {
  if (s == "error") return "31";
  if (s == "waiting_approval" || s == "waiting_input") return "33";
  if (s == "running") return "32";
  if (s == "completed") return "36";
  if (s == "idle" || s == "unknown") return "2";
  return "";
}

namespace {

std::string Age(const std::string& updated_at, core::TimeNs now) {
  if (updated_at.empty()) return "-";
  auto t = core::ParseRfc3339(updated_at);
  if (!t) return "-";
  return core::FormatAge(std::max<core::TimeNs>(0, now - *t));
}

std::string StateCounts(const rapidjson::Value& by_state) {
  std::string out;
  if (!by_state.IsObject()) return out;
  for (auto it = by_state.MemberBegin(); it != by_state.MemberEnd(); ++it) {
    if (!it->value.IsInt64() || it->value.GetInt64() == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(it->value.GetInt64()) + " " + it->name.GetString();
  }
  return out.empty() ? "-" : out;
}

}  // namespace

PaneCells PaneCellsOf(const rapidjson::Value& it, core::TimeNs now) {
  PaneCells c;
  const auto& id = JsonObj(it, "identity");
  c.target = JsonStr(id, "target");
  c.session = JsonStr(id, "session_name");
  c.pane = JsonStr(id, "pane_id");
  c.tmux_pane = c.session + ":" + std::to_string(JsonInt(it, "window_index")) + "." + std::to_string(JsonInt(it, "pane_index"));
  c.state = JsonStr(it, "state");
  c.window = JsonStr(id, "window_id");
  if (!JsonStr(it, "window_name").empty()) c.window = std::to_string(JsonInt(it, "window_index")) + ":" + JsonStr(it, "window_name");
  const auto& waiting = JsonObj(it, "waiting");
  if (waiting.IsObject()) c.detail = JsonStr(waiting, "details");
  // A question has no command: what the screen showed is the evidence.
  if (c.detail.empty() && waiting.IsObject()) c.detail = JsonStr(it, "evidence");
  if (c.detail.empty() && c.state == "unknown") c.detail = JsonStr(it, "reason_code");
  if (c.detail.empty()) c.detail = JsonStr(it, "title");
  c.source = JsonStr(it, "source").empty() ? "-" : JsonStr(it, "source");
  c.agent = JsonStr(it, "agent_type").empty() ? "-" : JsonStr(it, "agent_type");
  c.age = Age(JsonStr(it, "updated_at"), now);
  // An agent version its pattern set was not verified on: the state is
  // shown as read, with a mark and a note under the table.
  const auto v = it.IsObject() ? it.FindMember("verified") : it.MemberEnd();
  if (it.IsObject() && v != it.MemberEnd() && v->value.IsBool() && !v->value.GetBool()) {
    c.agent += "!";
    std::string list;
    const auto vo = it.FindMember("verified_on");
    if (vo != it.MemberEnd() && vo->value.IsArray())
      for (const auto& x : vo->value.GetArray())
        if (x.IsString()) list += (list.empty() ? "" : ", ") + std::string(x.GetString());
    c.unverified_note = "! " + c.pane + " " + JsonStr(it, "agent_type") + " " + JsonStr(it, "agent_version") +
                        ": not a version its pattern set was verified on (" + (list.empty() ? "none" : list) + ")\n";
  }
  return c;
}

std::string RenderItemsTable(std::string_view scope, const rapidjson::Value& items, core::TimeNs now,
                             bool color, bool agent_summary, int width) {
  if (!items.IsArray()) return "";
  if (scope == "panes") {
    // TARGET only when a pane is not on this machine (kHostTarget). PANE is
    // what tmux users type
    // (session:window.pane), ID the pane id: both are refs the action
    // commands accept.
    bool remote = false;
    for (const auto& it : items.GetArray())
      if (JsonStr(JsonObj(it, "identity"), "target") != kHostTarget) remote = true;
    std::vector<std::string> headers = {"PANE", "ID", "AGENT", "STATE", "SOURCE", "AGE", "DETAIL"};
    if (remote) headers.insert(headers.begin(), "TARGET");
    const size_t first = remote ? 1 : 0;
    Table t(headers);
    if (remote) t.SetShrinkable(0, 5);
    t.SetMaxWidth(first, 32);
    t.SetShrinkable(first, 10);
    t.SetMaxWidth(first + 6, 48);
    t.SetShrinkable(first + 6, 6);
    std::string notes;
    for (const auto& it : items.GetArray()) {
      PaneCells c = PaneCellsOf(it, now);
      notes += c.unverified_note;
      std::vector<std::string> row = {c.tmux_pane, c.pane, c.agent, c.state, c.source, c.age, c.detail};
      std::vector<std::string> colors = {"", "", "", StateColor(c.state), "", "", ""};
      if (remote) {
        row.insert(row.begin(), c.target);
        colors.insert(colors.begin(), "");
      }
      t.AddRow(std::move(row), std::move(colors));
    }
    if (!notes.empty())
      notes = "\n" + notes + "  states are read with rules not checked on these versions; "
              "agtmux patterns doctor shows screens they could not read\n";
    return t.Render(color, width) + notes;
  }
  if (scope == "windows") {
    Table t({"TARGET", "SESSION", "WINDOW", "NAME", "PANES", "AGENTS", "TOP", "WAITING", "RUNNING"});
    t.SetShrinkable(0, 5);
    t.SetShrinkable(1, 8);
    t.SetShrinkable(3, 6);
    for (const auto& it : items.GetArray()) {
      const auto& id = JsonObj(it, "identity");
      std::string top = JsonStr(it, "top_state");
      t.AddRow({JsonStr(id, "target"), JsonStr(id, "session_name"), JsonStr(id, "window_id"), JsonStr(it, "window_name"),
                std::to_string(JsonInt(it, "pane_count")), std::to_string(JsonInt(it, "agent_pane_count")),
                top.empty() ? "-" : top, std::to_string(JsonInt(it, "waiting_count")),
                std::to_string(JsonInt(it, "running_count"))},
               {"", "", "", "", "", "", StateColor(top), "", ""});
    }
    return t.Render(color, width);
  }
  std::vector<std::string> headers = {"TARGET", "SESSION", "WINDOWS", "PANES", "AGENTS", "TOP", "STATES"};
  if (agent_summary) headers.push_back("BY AGENT");
  Table t(headers);
  t.SetShrinkable(0, 5);
  t.SetShrinkable(1, 8);
  t.SetShrinkable(6, 8);
  if (agent_summary) t.SetShrinkable(7, 8);
  for (const auto& it : items.GetArray()) {
    const auto& id = JsonObj(it, "identity");
    std::string target = JsonStr(id, "target");
    if (target.empty()) {
      const auto& targets = JsonObj(it, "targets");
      if (targets.IsArray())
        for (const auto& x : targets.GetArray()) target += (target.empty() ? "" : ",") + std::string(x.GetString());
    }
    std::string top = JsonStr(it, "top_state");
    std::vector<std::string> row = {target, JsonStr(id, "session_name"), std::to_string(JsonInt(it, "window_count")),
                                    std::to_string(JsonInt(it, "pane_count")),
                                    std::to_string(JsonInt(it, "agent_pane_count")), top.empty() ? "-" : top,
                                    StateCounts(JsonObj(it, "by_state"))};
    if (agent_summary) row.push_back(StateCounts(JsonObj(it, "by_agent")));
    t.AddRow(row, {"", "", "", "", "", StateColor(top), ""});
  }
  return t.Render(color, width);
}

std::string SummaryLine(const rapidjson::Value& summary) {
  int64_t n = JsonInt(summary, "agent_panes");
  std::string out = std::to_string(n) + (n == 1 ? " agent pane" : " agent panes");
  if (n > 0) out += ": " + StateCounts(JsonObj(summary, "by_state"));
  return out;
}

}  // namespace agt::cli
