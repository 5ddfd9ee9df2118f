// Kept screens on disk (see kept_screen.h): redacted before they are
// written, bounded in size per file and in number per directory, written
// atomically so a reader (`patterns doctor`) never sees half a file.
#include "libagtcore/detect/kept_screen.h"

#include <dirent.h>
#include <unistd.h>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "libagtcore/os/file.h"
#include "libagtcore/ids.h"
#include "libagtcore/base/json.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/base/timefmt.h"

namespace agt::detect {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr size_t kMaxLine = 1000;  // bytes per row kept

void Str(Writer& w, const char* key, std::string_view v) {
  w.Key(key);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

std::string CutUtf8(std::string s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  return s;
}

core::Error Bad(std::string_view field) {
  return core::MakeError(core::Err::kPayloadInvalid,
                         "kept screen: field \"" + std::string(field) + "\" missing or of the wrong type");
}

bool GetStr(const rapidjson::Value& o, const char* k, std::string* out, bool required = true) {
  auto it = o.FindMember(k);
  if (it == o.MemberEnd()) return !required;
  if (!it->value.IsString()) return false;
  out->assign(it->value.GetString(), it->value.GetStringLength());
  return true;
}

bool GetInt(const rapidjson::Value& o, const char* k, int* out) {
  auto it = o.FindMember(k);
  if (it == o.MemberEnd() || !it->value.IsInt()) return false;
  *out = it->value.GetInt();
  return true;
}

bool IsJsonName(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
}

// The *.json files of `dir`, by name (ULIDs sort by time).
std::vector<std::string> JsonFiles(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (IsJsonName(n)) names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::string EncodeKeptScreen(const KeptScreen& s) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("format");
  w.Int(1);
  Str(w, "kept_at", core::FormatRfc3339(s.kept_at));
  Str(w, "reason", s.reason);
  Str(w, "mode", s.mode);
  Str(w, "agent_type", s.agent_type);
  Str(w, "agent_version", s.agent_version);
  Str(w, "pattern_set_version", s.pattern_set_version);
  Str(w, "target_id", s.target_id);
  Str(w, "pane_id", s.pane_id);
  w.Key("verdict");
  w.StartObject();
  Str(w, "state", core::StateName(s.state));
  Str(w, "reason_code", s.reason_code);
  Str(w, "rule_id", s.rule_id);
  w.EndObject();
  if (s.hook_state) {
    w.Key("hook");
    w.StartObject();
    Str(w, "state", core::StateName(*s.hook_state));
    Str(w, "rule_id", s.hook_rule_id);
    w.EndObject();
  }
  Str(w, "title", s.title);
  w.Key("rows");
  w.Int(s.screen.rows);
  w.Key("cols");
  w.Int(s.screen.cols);
  w.Key("cursor_row");
  w.Int(s.screen.cursor_row);
  w.Key("cursor_col");
  w.Int(s.screen.cursor_col);
  w.Key("alt_screen");
  w.Bool(s.screen.alt_screen);
  w.Key("lines");
  w.StartArray();
  for (const auto& l : s.screen.lines) w.String(l.data(), static_cast<rapidjson::SizeType>(l.size()));
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

core::Result<KeptScreen> DecodeKeptScreen(std::string_view json) {
  rapidjson::Document d;
  if (!core::ParseJson(json, &d) || !d.IsObject())
    return core::MakeError(core::Err::kPayloadInvalid, "kept screen: not a JSON object");
  KeptScreen s;
  int format = 0;
  if (!GetInt(d, "format", &format) || format != 1) return Bad("format");
  std::string t;
  if (!GetStr(d, "kept_at", &t)) return Bad("kept_at");
  auto at = core::ParseRfc3339(t);
  if (!at.ok()) return Bad("kept_at");
  s.kept_at = *at;
  if (!GetStr(d, "reason", &s.reason)) return Bad("reason");
  if (!GetStr(d, "mode", &s.mode)) return Bad("mode");
  if (!GetStr(d, "agent_type", &s.agent_type)) return Bad("agent_type");
  if (!GetStr(d, "agent_version", &s.agent_version, false)) return Bad("agent_version");
  if (!GetStr(d, "pattern_set_version", &s.pattern_set_version, false))
    return Bad("pattern_set_version");
  if (!GetStr(d, "target_id", &s.target_id, false)) return Bad("target_id");
  if (!GetStr(d, "pane_id", &s.pane_id, false)) return Bad("pane_id");
  auto v = d.FindMember("verdict");
  if (v == d.MemberEnd() || !v->value.IsObject()) return Bad("verdict");
  std::string st;
  if (!GetStr(v->value, "state", &st) || !core::ParseState(st)) return Bad("verdict.state");
  s.state = *core::ParseState(st);
  if (!GetStr(v->value, "reason_code", &s.reason_code, false)) return Bad("verdict.reason_code");
  if (!GetStr(v->value, "rule_id", &s.rule_id, false)) return Bad("verdict.rule_id");
  auto h = d.FindMember("hook");
  if (h != d.MemberEnd()) {
    if (!h->value.IsObject() || !GetStr(h->value, "state", &st) || !core::ParseState(st))
      return Bad("hook.state");
    s.hook_state = *core::ParseState(st);
    if (!GetStr(h->value, "rule_id", &s.hook_rule_id, false)) return Bad("hook.rule_id");
  }
  if (!GetStr(d, "title", &s.title, false)) return Bad("title");
  if (!GetInt(d, "rows", &s.screen.rows)) return Bad("rows");
  if (!GetInt(d, "cols", &s.screen.cols)) return Bad("cols");
  if (!GetInt(d, "cursor_row", &s.screen.cursor_row)) return Bad("cursor_row");
  if (!GetInt(d, "cursor_col", &s.screen.cursor_col)) return Bad("cursor_col");
  auto alt = d.FindMember("alt_screen");
  if (alt == d.MemberEnd() || !alt->value.IsBool()) return Bad("alt_screen");
  s.screen.alt_screen = alt->value.GetBool();
  auto lines = d.FindMember("lines");
  if (lines == d.MemberEnd() || !lines->value.IsArray()) return Bad("lines");
  for (const auto& l : lines->value.GetArray()) {
    if (!l.IsString()) return Bad("lines");
    s.screen.lines.emplace_back(l.GetString(), l.GetStringLength());
  }
  return s;
}

namespace {

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

/// A row of a PEM block's body: base64, its header lines (Proc-Type,
/// DEK-Info), its END line; what a terminal pads it with (spaces, a box).
bool LooksLikeKeyBody(std::string_view row) {
  if (row.find("-----END ") != std::string_view::npos) return true;
  size_t n = 0;
  for (char c : row) {
    const bool body = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                      c == '/' || c == '=' || c == ':' || c == ',' || c == '.' || c == '-' || c == ' ';
    if (!body) return false;
    n += c != ' ' ? 1 : 0;
  }
  return n >= 8;
}

}  // namespace

void RedactScreen(Screen* screen, const core::Redactor& redactor) {
  auto& lines = screen->lines;
  // 1. A private key block over several rows (PEM): the rows from its BEGIN
  // line to its END line (or, cut off by the screen's edge, as far as the
  // rows look like its body) are replaced, whatever they hold; row by row
  // only the BEGIN line would be recognised.
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t begin = lines[i].find("-----BEGIN ");
    if (begin == std::string::npos || lines[i].find("PRIVATE KEY", begin) == std::string::npos) continue;
    size_t end = i;
    bool closed = lines[i].find("-----END ", begin) != std::string::npos;
    while (!closed && end + 1 < lines.size() && LooksLikeKeyBody(lines[end + 1])) {
      ++end;
      closed = lines[end].find("-----END ") != std::string::npos;
    }
    std::string after_end;
    if (const size_t at = lines[end].find("-----END "); at != std::string::npos) {
      const size_t stop = lines[end].find("-----", at + 9);
      after_end = stop == std::string::npos ? "" : lines[end].substr(stop + 5);
    }
    lines[i] = lines[i].substr(0, begin) + "[REDACTED:private_key]" + (end == i ? after_end : "");
    for (size_t k = i + 1; k <= end; ++k) lines[k] = k == end ? after_end : "";
    i = end;
  }
  // 2. Soft-wrapped runs: a row that fills every column continues on the next.
  const size_t cols = screen->cols > 0 ? size_t(screen->cols) : 0;
  for (size_t i = 0; i < lines.size();) {
    size_t end = i + 1;
    while (cols > 0 && end < lines.size() && CodePoints(lines[end - 1]) >= cols) ++end;
    // A single row is left to step 3. For a run: only when the rows together
    // hide more than each row alone does the run's first row carry the whole
    // redacted run, the rows it continued on emptied (the count stays;
    // nothing shifts into a row the secret did not reach).
    if (end - i > 1) {
      std::string joined, apart;
      for (size_t k = i; k < end; ++k) joined += lines[k], apart += redactor.Redact(lines[k]);
      if (std::string red = redactor.Redact(joined); red != apart)
        for (size_t k = i; k < end; ++k) lines[k] = k == i ? std::move(red) : std::string();
    }
    i = end;
  }
  // 3. Each row on its own (what the rows' neighbours hid).
  for (auto& l : lines) l = redactor.Redact(l);
}

core::Result<std::string> KeepScreen(const std::string& dir, KeptScreen s,
                                     const core::Redactor& redactor, const KeepLimits& limits) {
  RedactScreen(&s.screen, redactor);
  for (auto& l : s.screen.lines) l = CutUtf8(l, kMaxLine);
  s.title = CutUtf8(redactor.Redact(s.title), kMaxLine);
  if (s.id.empty()) s.id = core::NewUlid(s.kept_at);
  std::string json = EncodeKeptScreen(s);
  // Over the size bound: drop rows from the top, where a pattern set looks last.
  while (json.size() > limits.max_bytes && !s.screen.lines.empty()) {
    const size_t drop = std::max<size_t>(1, s.screen.lines.size() / 8);
    s.screen.lines.erase(s.screen.lines.begin(),
                         s.screen.lines.begin() + static_cast<ptrdiff_t>(std::min(drop, s.screen.lines.size())));
    json = EncodeKeptScreen(s);
  }
  if (auto st = core::EnsureDir(dir, 0700); !st.ok()) return st.error();
  const std::string path = dir + "/" + s.id + ".json";
  if (auto st = core::WriteFileAtomic(path, json, 0600, limits.sync); !st.ok()) return st.error();
  std::vector<std::string> files = JsonFiles(dir);
  for (size_t i = 0; i + limits.max_files < files.size(); ++i) ::unlink((dir + "/" + files[i]).c_str());
  return path;
}

std::vector<KeptScreen> ListKeptScreens(const std::string& dir, std::vector<std::string>* problems) {
  std::vector<KeptScreen> out;
  std::vector<std::string> files = JsonFiles(dir);
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    const std::string path = dir + "/" + *it;
    auto text = core::ReadWholeFile(path);
    if (!text.ok()) {
      if (problems != nullptr) problems->push_back(text.error().message);
      continue;
    }
    auto s = DecodeKeptScreen(*text);
    if (!s.ok()) {
      if (problems != nullptr) problems->push_back(path + ": " + s.error().message);
      continue;
    }
    s->id = it->substr(0, it->size() - 5);
    s->path = path;
    out.push_back(std::move(*s));
  }
  return out;
}

void MakeKeptInput(const KeptScreen& s, KeptInput* out) {
  out->signals = StreamSignals{};
  out->signals.title = s.title;
  out->input = AnalyzerInput{};
  out->input.screen = &s.screen;
  out->input.signals = &out->signals;
  out->input.agent_type = s.agent_type;
  out->input.now = s.kept_at;
  out->input.captured = s.mode == "CAP";
}

bool StuckUnknownWatch::Observe(const core::Signal& verdict, core::TimeNs now) {
  const bool unreadable =
      verdict.state == core::State::kUnknown && verdict.reason_code == kKeptNoRule;
  if (!unreadable) {
    since_ = 0;
    kept_ = false;
    return false;
  }
  if (since_ == 0) since_ = now;
  if (kept_ || now - since_ < after_) return false;
  kept_ = true;
  return true;
}

}  // namespace agt::detect
