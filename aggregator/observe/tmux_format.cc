// Building and parsing the topology format (see tmux_format.h for the
// framing and why free-text fields pass through the `s` modifier).
#include "aggregator/observe/tmux_format.h"

#include <charconv>
#include <cstdio>

namespace agt::agg {
namespace {

using core::Err;
using core::MakeError;

const std::string kRecStart = std::string(kTokenStem) + "R~";
const std::string kRecEnd = std::string(kTokenStem) + "E~";
const std::string kFieldSep = std::string(kTokenStem) + "F~";

struct Field {
  const char* name;
  bool free_text;  // may hold anything: pass through the `s` modifier
};

// Order matters: ParseListPanes reads them by index.
constexpr Field kFields[] = {
    {"session_id", false},      {"session_name", true},   {"window_id", false},
    {"window_index", false},    {"window_name", true},    {"pane_id", false},
    {"pane_index", false},      {"pane_pid", false},      {"pane_tty", true},
    {"pane_current_command", true}, {"pane_title", true}, {"pane_current_path", true},
    {"pane_width", false},      {"pane_height", false},   {"pane_active", false},
    {"pane_dead", false},       {"window_activity", false}, {"pid", false},
    {"cursor_x", false},        {"cursor_y", false},      {"alternate_on", false},
};
constexpr size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);

std::string BuildFormat() {
  std::string f = kRecStart;
  for (size_t i = 0; i < kFieldCount; ++i) {
    if (i) f += kFieldSep;
    if (kFields[i].free_text) {
      f += "#{s/";
      f += kTokenStem;
      f += "|\n/_/:";
      f += kFields[i].name;
      f += "}";
    } else {
      f += "#{";
      f += kFields[i].name;
      f += "}";
    }
  }
  f += kRecEnd;
  return f;
}

bool ToInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

const std::string& ListPanesFormat() {
  static const std::string format = BuildFormat();
  return format;
}

core::Result<std::vector<PaneRecord>> ParseListPanes(std::string_view text) {
  std::vector<PaneRecord> out;
  size_t pos = 0;
  int record = 0;
  while ((pos = text.find(kRecStart, pos)) != std::string_view::npos) {
    ++record;
    const size_t body = pos + kRecStart.size();
    const size_t end = text.find(kRecEnd, body);
    if (end == std::string_view::npos)
      return MakeError(Err::kPayloadInvalid,
                       "list-panes: record " + std::to_string(record) + ": no end marker");
    std::string_view rec = text.substr(body, end - body);
    pos = end + kRecEnd.size();
    if (rec.find(kRecStart) != std::string_view::npos)
      return MakeError(Err::kPayloadInvalid,
                       "list-panes: record " + std::to_string(record) + ": nested start marker");
    std::vector<std::string_view> f;
    size_t s = 0;
    while (true) {
      size_t e = rec.find(kFieldSep, s);
      f.push_back(rec.substr(s, e == std::string_view::npos ? std::string_view::npos : e - s));
      if (e == std::string_view::npos) break;
      s = e + kFieldSep.size();
    }
    if (f.size() != kFieldCount)
      return MakeError(Err::kPayloadInvalid,
                       "list-panes: record " + std::to_string(record) + ": " +
                           std::to_string(f.size()) + " fields, expected " +
                           std::to_string(kFieldCount));
    int64_t n[kFieldCount] = {};
    for (size_t i = 0; i < kFieldCount; ++i) {
      if (kFields[i].free_text || i == 0 || i == 2 || i == 5) continue;
      if (!ToInt(f[i], &n[i]))
        return MakeError(Err::kPayloadInvalid,
                         "list-panes: record " + std::to_string(record) + ": field " +
                             kFields[i].name + ": \"" + std::string(f[i]) +
                             "\" is not a number");
    }
    auto id_ok = [](std::string_view v, char sigil) {
      int64_t x = 0;
      return v.size() >= 2 && v[0] == sigil && ToInt(v.substr(1), &x) && x >= 0;
    };
    if (!id_ok(f[0], '$') || !id_ok(f[2], '@') || !id_ok(f[5], '%'))
      return MakeError(Err::kPayloadInvalid,
                       "list-panes: record " + std::to_string(record) +
                           ": field session_id/window_id/pane_id: malformed id");
    PaneRecord r;
    PaneInfo& p = r.info;
    p.session_id = std::string(f[0]);
    p.session_name = std::string(f[1]);
    p.window_id = std::string(f[2]);
    p.window_index = int(n[3]);
    p.window_name = std::string(f[4]);
    p.pane_id = std::string(f[5]);
    p.pane_index = int(n[6]);
    p.pid = n[7];
    p.tty = std::string(f[8]);
    p.current_command = std::string(f[9]);
    p.title = std::string(f[10]);
    p.cwd = std::string(f[11]);
    p.width = int(n[12]);
    p.height = int(n[13]);
    p.active = n[14] != 0;
    p.dead = n[15] != 0;
    r.window_activity = n[16];
    p.activity_at = n[16] * core::kNsPerSec;
    r.server_pid = n[17];
    r.cursor_x = int(n[18]);
    r.cursor_y = int(n[19]);
    r.alternate_on = n[20] != 0;
    out.push_back(std::move(r));
  }
  return out;
}

std::string TmuxQuote(std::string_view arg) {
  std::string q = "\"";
  for (unsigned char c : arg) {
    switch (c) {
      case '\\': q += "\\\\"; break;
      case '"': q += "\\\""; break;
      case '$': q += "\\$"; break;
      case '~': q += "\\~"; break;
      case '\n': q += "\\n"; break;
      case '\t': q += "\\t"; break;
      case '\r': q += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char b[8];
          std::snprintf(b, sizeof b, "\\%03o", c);
          q += b;
        } else {
          q += char(c);
        }
    }
  }
  q += "\"";
  return q;
}

}  // namespace agt::agg
