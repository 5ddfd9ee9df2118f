// The Codex side of `agtmux setup` (see setup_config.h): config.toml is
// edited as text. toml++ only locates the values, and setup replaces
// exactly those byte ranges or inserts whole lines, so comments and
// formatting elsewhere are untouched. What setup replaced is kept in a
// record (CodexSetupRecord) so that remove can put it back. settings.json
// (Claude, Gemini) is in setup_json.cc.
#include "cli/setup/setup_config.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <sstream>

#include "libagtcore/base/toml_parse.h"

namespace agt::cli {

using core::Err;

// --- Codex config.toml --------------------------------------------------

namespace {

const char* const kCodexNotifications[] = {"agent-turn-complete", "approval-requested"};

std::string TomlString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04X", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string TomlArray(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += TomlString(items[i]);
  }
  return out + "]";
}

// Byte offset of a toml++ (line, column) position; columns count code points.
size_t Offset(std::string_view text, const toml::source_position& pos) {
  size_t off = 0;
  for (toml::source_index line = 1; line < pos.line && off < text.size(); ++line) {
    size_t nl = text.find('\n', off);
    if (nl == std::string_view::npos) return text.size();
    off = nl + 1;
  }
  for (toml::source_index col = 1; col < pos.column && off < text.size(); ++col) {
    ++off;
    while (off < text.size() && (static_cast<unsigned char>(text[off]) & 0xC0) == 0x80) ++off;
  }
  return off;
}

size_t LineStart(std::string_view text, size_t off) {
  size_t nl = off == 0 ? std::string_view::npos : text.rfind('\n', off - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

size_t NextLine(std::string_view text, size_t off) {
  size_t nl = text.find('\n', off);
  return nl == std::string_view::npos ? text.size() : nl + 1;
}

// A file that does not parse is refused whole; nothing is written.
core::Result<toml::table> ParseAgentToml(std::string_view text, std::string_view path) {
  auto t = core::ParseToml(text, path, Err::kConfigInvalid);
  if (!t.ok()) return core::MakeError(Err::kConfigInvalid, t.error().message + " (the file was left untouched)");
  return t;
}

bool IsAgtmuxNotify(const toml::array& arr) {
  if (arr.size() < 3) return false;
  auto s0 = arr[0].value<std::string>();
  auto s1 = arr[1].value<std::string>();
  auto s2 = arr[2].value<std::string>();
  if (!s0 || !s1 || !s2) return false;
  size_t slash = s0->rfind('/');
  std::string base = slash == std::string::npos ? *s0 : s0->substr(slash + 1);
  return base == "agtmux" && *s1 == "hook" && *s2 == "codex-notify";
}

struct Edit {
  size_t begin, end;  // byte range replaced
  std::string text;
};

// Applies edits from the end of the text backwards, so offsets stay valid.
// Insertions at the same offset keep the order they were pushed in.
std::string ApplyEdits(std::string_view text, std::vector<Edit> edits) {
  std::vector<size_t> order(edits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&edits](size_t x, size_t y) {
    const Edit& a = edits[x];
    const Edit& b = edits[y];
    if (a.begin != b.begin) return a.begin > b.begin;
    if (a.end != b.end) return a.end > b.end;
    return x > y;
  });
  std::string out(text);
  for (size_t i : order) out.replace(edits[i].begin, edits[i].end - edits[i].begin, edits[i].text);
  return out;
}

const CodexSetupRecord::Key* FindKey(const CodexSetupRecord* r, const std::string& table,
                                     const std::string& key) {
  if (!r) return nullptr;
  for (const auto& k : r->keys)
    if (k.table == table && k.key == key) return &k;
  return nullptr;
}

}  // namespace

std::string CodexSetupRecord::ToJson() const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("added_tui_table");
  w.Bool(added_tui_table);
  w.Key("keys");
  w.StartArray();
  for (const Key& k : keys) {
    w.StartObject();
    w.Key("table");
    w.String(k.table.c_str(), static_cast<rapidjson::SizeType>(k.table.size()));
    w.Key("key");
    w.String(k.key.c_str(), static_cast<rapidjson::SizeType>(k.key.size()));
    w.Key("existed");
    w.Bool(k.existed);
    w.Key("before");
    w.String(k.before.c_str(), static_cast<rapidjson::SizeType>(k.before.size()));
    w.Key("after");
    w.String(k.after.c_str(), static_cast<rapidjson::SizeType>(k.after.size()));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

core::Result<CodexSetupRecord> CodexSetupRecord::FromJson(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("keys") || !doc["keys"].IsArray())
    return core::MakeError(Err::kConfigInvalid, "the codex setup record is malformed");
  CodexSetupRecord r;
  if (doc.HasMember("added_tui_table") && doc["added_tui_table"].IsBool())
    r.added_tui_table = doc["added_tui_table"].GetBool();
  for (const auto& v : doc["keys"].GetArray()) {
    if (!v.IsObject()) continue;
    Key k;
    auto str = [&v](const char* name) {
      return v.HasMember(name) && v[name].IsString()
                 ? std::string(v[name].GetString(), v[name].GetStringLength())
                 : std::string();
    };
    k.table = str("table");
    k.key = str("key");
    k.before = str("before");
    k.after = str("after");
    k.existed = v.HasMember("existed") && v["existed"].IsBool() && v["existed"].GetBool();
    r.keys.push_back(std::move(k));
  }
  return r;
}

std::string SetupRecord::ToJson() const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto str = [&w](const std::string& s) {
    w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("path");
  str(path);
  w.Key("restorable");
  w.Bool(restorable);
  w.Key("original_existed");
  w.Bool(original_existed);
  w.Key("original_sha256");
  str(original_sha256);
  w.Key("backup");
  str(backup);
  w.Key("written_sha256");
  str(written_sha256);
  w.Key("created_dirs");
  w.StartArray();
  for (const auto& d : created_dirs) str(d);
  w.EndArray();
  w.Key("codex");
  const std::string codex_json = codex.ToJson();
  w.RawValue(codex_json.c_str(), codex_json.size(), rapidjson::kObjectType);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

core::Result<SetupRecord> SetupRecord::FromJson(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject())
    return core::MakeError(Err::kConfigInvalid, "the setup record is malformed");
  SetupRecord r;
  if (doc.HasMember("keys")) {  // the Codex-only record of earlier versions
    auto codex = CodexSetupRecord::FromJson(json);
    if (!codex.ok()) return codex.error();
    r.codex = std::move(*codex);
    return r;
  }
  auto str = [&doc](const char* name) {
    return doc.HasMember(name) && doc[name].IsString()
               ? std::string(doc[name].GetString(), doc[name].GetStringLength())
               : std::string();
  };
  auto flag = [&doc](const char* name) {
    return doc.HasMember(name) && doc[name].IsBool() && doc[name].GetBool();
  };
  r.path = str("path");
  r.restorable = flag("restorable");
  r.original_existed = flag("original_existed");
  r.original_sha256 = str("original_sha256");
  r.backup = str("backup");
  r.written_sha256 = str("written_sha256");
  if (doc.HasMember("created_dirs") && doc["created_dirs"].IsArray())
    for (const auto& d : doc["created_dirs"].GetArray())
      if (d.IsString()) r.created_dirs.emplace_back(d.GetString(), d.GetStringLength());
  if (doc.HasMember("codex") && doc["codex"].IsObject()) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    doc["codex"].Accept(w);
    auto codex = CodexSetupRecord::FromJson(std::string_view(buf.GetString(), buf.GetSize()));
    if (!codex.ok()) return codex.error();
    r.codex = std::move(*codex);
  }
  return r;
}

core::Result<CodexMerge> MergeCodexConfig(std::string_view text, std::string_view path,
                                          const std::vector<std::string>& agtmux_argv,
                                          const CodexSetupRecord* previous) {
  auto parsed = ParseAgentToml(text, path);
  if (!parsed.ok()) return parsed.error();
  toml::table& root = *parsed;

  CodexMerge result;
  std::vector<Edit> edits;
  std::vector<std::string> top_inserts;  // whole lines for the top level
  std::vector<std::string> tui_inserts;  // whole lines for [tui]

  // Records a key: `current` is the node now in the file (or null).
  auto want = [&](const std::string& table, const std::string& key, toml::node* current,
                  const std::string& value_text) -> core::Status {
    CodexSetupRecord::Key rec;
    rec.table = table;
    rec.key = key;
    rec.after = value_text;
    const CodexSetupRecord::Key* prev = FindKey(previous, table, key);
    if (current) {
      size_t b = Offset(text, current->source().begin);
      size_t e = Offset(text, current->source().end);
      std::string now(text.substr(b, e - b));
      if (prev && now == prev->after) {
        rec.existed = prev->existed;  // ours from an earlier setup: keep its origin
        rec.before = prev->before;
      } else {
        rec.existed = true;
        rec.before = now;
      }
      if (now != value_text) edits.push_back({b, e, value_text});
    } else {
      rec.existed = false;
      (table.empty() ? top_inserts : tui_inserts).push_back(key + " = " + value_text + "\n");
    }
    result.record.keys.push_back(std::move(rec));
    return core::Ok();
  };

  // notify: ours, chaining any program the user had.
  toml::node* notify = root.get("notify");
  std::vector<std::string> argv = agtmux_argv;
  if (notify) {
    const toml::array* arr = notify->as_array();
    bool all_strings = arr != nullptr;
    if (arr)
      for (const auto& n : *arr) all_strings = all_strings && n.is_string();
    if (!all_strings)
      return core::MakeError(Err::kConfigInvalid,
                             std::string(path) + ":" + std::to_string(notify->source().begin.line) +
                                 ": notify must be an array of strings to be chained");
    if (IsAgtmuxNotify(*arr)) {
      // Already ours: keep its chain, refresh the agtmux argv.
      size_t chain_at = arr->size();
      for (size_t i = 3; i < arr->size(); ++i)
        if (arr->get(i)->value<std::string>() == std::string("--chain")) chain_at = i;
      for (size_t i = chain_at; i < arr->size(); ++i)
        argv.push_back(*arr->get(i)->value<std::string>());
    } else if (!arr->empty()) {
      argv.push_back("--chain");
      for (const auto& n : *arr) argv.push_back(*n.value<std::string>());
    }
  }
  if (auto st = want("", "notify", notify, TomlArray(argv)); !st.ok()) return st.error();

  // [tui] notification settings: OSC 9 into the PTY on approvals.
  toml::node* tui_node = root.get("tui");
  toml::table* tui = tui_node ? tui_node->as_table() : nullptr;
  if (tui_node && !tui)
    return core::MakeError(Err::kConfigInvalid, std::string(path) + ": tui is not a table");
  if (tui && tui->is_inline())
    return core::MakeError(Err::kConfigInvalid,
                           std::string(path) + ":" + std::to_string(tui->source().begin.line) +
                               ": tui is an inline table; add notifications, notification_method "
                               "and notification_condition to it by hand");
  toml::node* notes = tui ? tui->get("notifications") : nullptr;
  std::vector<std::string> wanted(std::begin(kCodexNotifications), std::end(kCodexNotifications));
  if (notes && notes->is_array()) {
    std::vector<std::string> merged;
    for (const auto& n : *notes->as_array())
      if (auto s = n.value<std::string>()) merged.push_back(*s);
    for (const auto& w : wanted)
      if (std::find(merged.begin(), merged.end(), w) == merged.end()) merged.push_back(w);
    wanted = merged;
  }
  if (notes && notes->is_boolean() && notes->as_boolean()->get()) {
    result.record.keys.push_back({"tui", "notifications", true, "true", "true"});  // all on already
  } else if (auto st = want("tui", "notifications", notes, TomlArray(wanted)); !st.ok()) {
    return st.error();
  }
  if (auto st = want("tui", "notification_method",
                     tui ? tui->get("notification_method") : nullptr, TomlString("osc9"));
      !st.ok())
    return st.error();
  if (auto st = want("tui", "notification_condition",
                     tui ? tui->get("notification_condition") : nullptr, TomlString("always"));
      !st.ok())
    return st.error();

  // Where whole lines go: top-level keys before the first table header,
  // [tui] keys right after its header, a new [tui] at the end.
  if (!top_inserts.empty()) {
    size_t at = text.size();
    for (auto&& [k, v] : root) {
      (void)k;
      if (v.is_table() && !v.as_table()->is_inline()) {
        size_t b = LineStart(text, Offset(text, v.source().begin));
        at = std::min(at, b);
      }
    }
    std::string lines;
    for (const auto& l : top_inserts) lines += l;
    if (at == text.size() && !text.empty() && text.back() != '\n') lines = "\n" + lines;
    edits.push_back({at, at, lines});
  }
  if (!tui_inserts.empty()) {
    std::string lines;
    for (const auto& l : tui_inserts) lines += l;
    if (tui) {
      size_t at = NextLine(text, Offset(text, tui->source().begin));
      if (at == text.size() && !text.empty() && text.back() != '\n') lines = "\n" + lines;
      edits.push_back({at, at, lines});
    } else {
      std::string block = "\n[tui]\n" + lines;
      if (!text.empty() && text.back() != '\n') block = "\n" + block;
      if (text.empty()) block = block.substr(1);
      edits.push_back({text.size(), text.size(), block});
      result.record.added_tui_table = true;
    }
  } else if (previous) {
    result.record.added_tui_table = previous->added_tui_table;
  }
  if (previous && previous->added_tui_table) result.record.added_tui_table = true;

  result.text = ApplyEdits(text, std::move(edits));
  return result;
}

core::Result<std::string> RemoveCodexConfig(std::string_view text, std::string_view path,
                                            const CodexSetupRecord& record) {
  auto parsed = ParseAgentToml(text, path);
  if (!parsed.ok()) return parsed.error();
  toml::table& root = *parsed;
  std::vector<Edit> edits;
  toml::table* tui = root.get("tui") ? root.get("tui")->as_table() : nullptr;
  size_t tui_keys_left = tui ? tui->size() : 0;

  for (const auto& k : record.keys) {
    toml::node* node = k.table.empty() ? root.get(k.key) : (tui ? tui->get(k.key) : nullptr);
    if (!node) continue;
    size_t b = Offset(text, node->source().begin);
    size_t e = Offset(text, node->source().end);
    if (text.substr(b, e - b) != k.after) continue;  // changed by the user since: leave it
    if (k.existed) {
      if (k.before != k.after) edits.push_back({b, e, k.before});
    } else {
      size_t ls = LineStart(text, b);
      edits.push_back({ls, NextLine(text, e), ""});
      if (!k.table.empty()) --tui_keys_left;
    }
  }
  if (record.added_tui_table && tui && tui_keys_left == 0) {
    size_t hb = LineStart(text, Offset(text, tui->source().begin));
    size_t he = NextLine(text, hb);
    if (hb >= 1 && text[hb - 1] == '\n' && (hb == 1 || text[hb - 2] == '\n')) --hb;  // the blank line setup added
    edits.push_back({hb, he, ""});
  }
  return ApplyEdits(text, std::move(edits));
}

}  // namespace agt::cli
