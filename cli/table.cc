// Display-width tables (see table.h). Width comes from utf8proc's
// charwidth, the same East Asian Width data terminals use, so a session
// named "開発" or "🚀 deploy" pads to the same column as an ASCII one.
#include "cli/table.h"

#include <unistd.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>

#include "libagtcore/timefmt.h"

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

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)), max_(headers_.size(), 0) {}

void Table::AddRow(std::vector<std::string> cells, std::vector<std::string> colors) {
  cells.resize(headers_.size());
  colors.resize(headers_.size());
  rows_.push_back(std::move(cells));
  colors_.push_back(std::move(colors));
}

void Table::SetMaxWidth(size_t column, int width) {
  if (column < max_.size()) max_[column] = width;
}

std::string Table::Render(bool color) const {
  size_t ncol = headers_.size();
  std::vector<std::vector<std::string>> cells = rows_;
  for (auto& row : cells)
    for (size_t c = 0; c < ncol; ++c)
      if (max_[c] > 0) row[c] = TruncateToWidth(row[c], max_[c]);
  std::vector<int> width(ncol, 0);
  for (size_t c = 0; c < ncol; ++c) width[c] = DisplayWidth(headers_[c]);
  for (const auto& row : cells)
    for (size_t c = 0; c < ncol; ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
  auto line = [&](const std::vector<std::string>& row, const std::vector<std::string>* colors, bool bold) {
    std::string out;
    for (size_t c = 0; c < ncol; ++c) {
      const std::string& cell = row[c];
      std::string sgr = bold ? "1" : (colors ? (*colors)[c] : "");
      if (color && !sgr.empty()) out += "\x1b[" + sgr + "m";
      out += cell;
      if (color && !sgr.empty()) out += "\x1b[0m";
      if (c + 1 < ncol) out.append(static_cast<size_t>(width[c] - DisplayWidth(cell) + 2), ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_, nullptr, true);
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

std::string Str(const rapidjson::Value& o, const char* key) {
  if (!o.IsObject()) return "";
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsString()) return "";
  return it->value.GetString();
}

int64_t Int(const rapidjson::Value& o, const char* key) {
  if (!o.IsObject()) return 0;
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsInt64()) return 0;
  return it->value.GetInt64();
}

const rapidjson::Value& Obj(const rapidjson::Value& o, const char* key) {
  static const rapidjson::Value null_value;
  if (!o.IsObject()) return null_value;
  auto it = o.FindMember(key);
  return it == o.MemberEnd() ? null_value : it->value;
}

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
  const auto& id = Obj(it, "identity");
  c.target = Str(id, "target");
  c.session = Str(id, "session_name");
  c.pane = Str(id, "pane_id");
  c.state = Str(it, "state");
  c.window = Str(id, "window_id");
  if (!Str(it, "window_name").empty()) c.window = std::to_string(Int(it, "window_index")) + ":" + Str(it, "window_name");
  const auto& waiting = Obj(it, "waiting");
  if (waiting.IsObject()) c.detail = Str(waiting, "details");
  // A question has no command: what the screen showed is the evidence.
  if (c.detail.empty() && waiting.IsObject()) c.detail = Str(it, "evidence");
  if (c.detail.empty() && c.state == "unknown") c.detail = Str(it, "reason_code");
  if (c.detail.empty()) c.detail = Str(it, "title");
  c.source = Str(it, "source").empty() ? "-" : Str(it, "source");
  c.agent = Str(it, "agent_type").empty() ? "-" : Str(it, "agent_type");
  c.age = Age(Str(it, "updated_at"), now);
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
    c.unverified_note = "! " + c.pane + " " + Str(it, "agent_type") + " " + Str(it, "agent_version") +
                        ": not a version its pattern set was verified on (" + (list.empty() ? "none" : list) + ")\n";
  }
  return c;
}

std::string RenderItemsTable(std::string_view scope, const rapidjson::Value& items, core::TimeNs now,
                             bool color, bool agent_summary) {
  if (!items.IsArray()) return "";
  if (scope == "panes") {
    Table t({"TARGET", "SESSION", "WINDOW", "PANE", "AGENT", "STATE", "SOURCE", "AGE", "DETAIL"});
    t.SetMaxWidth(1, 24);
    t.SetMaxWidth(2, 20);
    t.SetMaxWidth(8, 48);
    std::string notes;
    for (const auto& it : items.GetArray()) {
      PaneCells c = PaneCellsOf(it, now);
      notes += c.unverified_note;
      t.AddRow({c.target, c.session, c.window, c.pane, c.agent, c.state, c.source, c.age, c.detail},
               {"", "", "", "", "", StateColor(c.state), "", "", ""});
    }
    if (!notes.empty())
      notes = "\n" + notes + "  states are read with rules not checked on these versions; "
              "agtmux patterns doctor shows screens they could not read\n";
    return t.Render(color) + notes;
  }
  if (scope == "windows") {
    Table t({"TARGET", "SESSION", "WINDOW", "NAME", "PANES", "AGENTS", "TOP", "WAITING", "RUNNING"});
    for (const auto& it : items.GetArray()) {
      const auto& id = Obj(it, "identity");
      std::string top = Str(it, "top_state");
      t.AddRow({Str(id, "target"), Str(id, "session_name"), Str(id, "window_id"), Str(it, "window_name"),
                std::to_string(Int(it, "pane_count")), std::to_string(Int(it, "agent_pane_count")),
                top.empty() ? "-" : top, std::to_string(Int(it, "waiting_count")),
                std::to_string(Int(it, "running_count"))},
               {"", "", "", "", "", "", StateColor(top), "", ""});
    }
    return t.Render(color);
  }
  std::vector<std::string> headers = {"TARGET", "SESSION", "WINDOWS", "PANES", "AGENTS", "TOP", "STATES"};
  if (agent_summary) headers.push_back("BY AGENT");
  Table t(headers);
  for (const auto& it : items.GetArray()) {
    const auto& id = Obj(it, "identity");
    std::string target = Str(id, "target");
    if (target.empty()) {
      const auto& targets = Obj(it, "targets");
      if (targets.IsArray())
        for (const auto& x : targets.GetArray()) target += (target.empty() ? "" : ",") + std::string(x.GetString());
    }
    std::string top = Str(it, "top_state");
    std::vector<std::string> row = {target, Str(id, "session_name"), std::to_string(Int(it, "window_count")),
                                    std::to_string(Int(it, "pane_count")),
                                    std::to_string(Int(it, "agent_pane_count")), top.empty() ? "-" : top,
                                    StateCounts(Obj(it, "by_state"))};
    if (agent_summary) row.push_back(StateCounts(Obj(it, "by_agent")));
    t.AddRow(row, {"", "", "", "", "", StateColor(top), ""});
  }
  return t.Render(color);
}

std::string SummaryLine(const rapidjson::Value& summary) {
  int64_t n = Int(summary, "agent_panes");
  std::string out = std::to_string(n) + (n == 1 ? " agent pane" : " agent panes");
  if (n > 0) out += ": " + StateCounts(Obj(summary, "by_state"));
  return out;
}

}  // namespace agt::cli
