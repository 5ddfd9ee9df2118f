// settings.json for `agtmux setup` (Claude Code, Gemini CLI), edited in
// place: the file is validated by RapidJSON (comments allowed: Gemini CLI
// reads JSON with comments), then scanned once more for the byte range of
// every value, and setup inserts or deletes only the ranges of agtmux's own
// entries. Every other byte of the file (key order, spacing, number and
// escape spellings, comments) stays as the user wrote it; docs/integrations.md
// says exactly what is inserted where.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "cli/setup/setup_config.h"

namespace agt::cli {
namespace {

using core::Err;

// A JSON value's place in the text. Objects carry their members' names and
// values, arrays their items.
struct Node {
  enum class Kind { kObject, kArray, kString, kScalar };
  Kind kind = Kind::kScalar;
  size_t begin = 0, end = 0;      // [begin, end) of the value
  std::vector<std::string> keys;  // objects: decoded member names
  std::vector<size_t> key_begin;  // objects: where each name's quote is
  std::vector<size_t> key_end;    // objects: just past each name
  std::vector<Node> children;     // member values, or items

  int Index(std::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == key) return static_cast<int>(i);
    return -1;
  }
  // Where child i starts: its name for a member, else the value.
  size_t Start(size_t i) const {
    return kind == Kind::kObject ? key_begin[i] : children[i].begin;
  }
};

// The text of one JSON string token, decoded.
std::string Decode(std::string_view token) {
  rapidjson::Document d;
  d.Parse(token.data(), token.size());
  if (d.HasParseError() || !d.IsString()) return std::string(token);
  return std::string(d.GetString(), d.GetStringLength());
}

// Scans text that RapidJSON has already accepted, so it trusts the grammar.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : t_(text) {}

  Node Value() {
    SkipBlank();
    Node n;
    n.begin = i_;
    if (i_ >= t_.size()) return n;
    const char c = t_[i_];
    if (c == '{' || c == '[') {
      n.kind = c == '{' ? Node::Kind::kObject : Node::Kind::kArray;
      const char close = c == '{' ? '}' : ']';
      ++i_;
      while (true) {
        SkipBlank();
        if (i_ >= t_.size() || t_[i_] == close) break;
        if (n.kind == Node::Kind::kObject) {
          n.key_begin.push_back(i_);
          SkipString();
          n.key_end.push_back(i_);
          n.keys.push_back(
              Decode(t_.substr(n.key_begin.back(), i_ - n.key_begin.back())));
          SkipBlank();
          ++i_;  // ':'
        }
        n.children.push_back(Value());
        SkipBlank();
        if (i_ < t_.size() && t_[i_] == ',') ++i_;
      }
      ++i_;
    } else if (c == '"') {
      n.kind = Node::Kind::kString;
      SkipString();
    } else {
      while (i_ < t_.size() &&
             std::string_view(",]} \t\r\n/").find(t_[i_]) == std::string_view::npos)
        ++i_;
    }
    n.end = i_;
    return n;
  }

 private:
  void SkipString() {
    ++i_;
    while (i_ < t_.size() && t_[i_] != '"') i_ += t_[i_] == '\\' ? 2 : 1;
    ++i_;
  }
  void SkipBlank() {
    while (i_ < t_.size()) {
      if (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\r' || t_[i_] == '\n') {
        ++i_;
      } else if (t_.substr(i_, 2) == "//") {
        size_t nl = t_.find('\n', i_);
        i_ = nl == std::string_view::npos ? t_.size() : nl;
      } else if (t_.substr(i_, 2) == "/*") {
        size_t e = t_.find("*/", i_ + 2);
        i_ = e == std::string_view::npos ? t_.size() : e + 2;
      } else {
        break;
      }
    }
  }

  std::string_view t_;
  size_t i_ = 0;
};

// "path:line:col" of a byte offset.
std::string Position(std::string_view text, size_t offset, std::string_view path) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::string(path) + ":" + std::to_string(line) + ":" + std::to_string(col);
}

bool Blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// An object whose name appears twice is ambiguous (agents keep the last
// one, RapidJSON the first): refused rather than guessed.
core::Status CheckUnique(const Node& obj, std::string_view text, std::string_view path) {
  for (size_t i = 0; i < obj.keys.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (obj.keys[i] == obj.keys[j])
        return core::MakeError(
            Err::kConfigInvalid,
            Position(text, obj.key_begin[i], path) + ": \"" + obj.keys[i] +
                "\" appears twice; keep one (the file was left untouched)");
  return core::Ok();
}

// The settings' top-level object, validated and scanned.
core::Result<Node> ScanSettings(std::string_view text, std::string_view path) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseCommentsFlag>(text.data(), text.size());
  if (doc.HasParseError())
    return core::MakeError(Err::kConfigInvalid,
                           Position(text, doc.GetErrorOffset(), path) + ": " +
                               rapidjson::GetParseError_En(doc.GetParseError()) +
                               " (the file was left untouched)");
  if (!doc.IsObject())
    return core::MakeError(Err::kConfigInvalid,
                           std::string(path) + ": the top level must be a JSON object");
  Node root = Scanner(text).Value();
  if (auto st = CheckUnique(root, text, path); !st.ok()) return st.error();
  int h = root.Index("hooks");
  if (h >= 0 && root.children[h].kind != Node::Kind::kObject)
    return core::MakeError(Err::kConfigInvalid, Position(text, root.key_begin[h], path) +
                                                    ": \"hooks\" is not an object");
  if (h >= 0)
    if (auto st = CheckUnique(root.children[h], text, path); !st.ok()) return st.error();
  return root;
}

// --- Layout: how the file is indented, so inserted text matches it ---------

struct Layout {
  char ch = ' ';
  unsigned unit = 2;
  std::string Unit() const { return std::string(unit, ch); }
};

// The indentation unit of the file: the leading blanks of its first indented line.
Layout DetectLayout(std::string_view text) {
  Layout l;
  size_t pos = 0;
  while ((pos = text.find('\n', pos)) != std::string_view::npos) {
    ++pos;
    size_t n = 0;
    while (pos + n < text.size() && (text[pos + n] == ' ' || text[pos + n] == '\t')) ++n;
    if (n > 0 && pos + n < text.size() && text[pos + n] != '\n' &&
        text[pos + n] != '\r') {
      l.ch = text[pos];
      l.unit = static_cast<unsigned>(n);
      return l;
    }
  }
  return l;
}

size_t LineStartOf(std::string_view text, size_t offset) {
  size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// The blanks that start the line holding `offset`.
std::string LineIndent(std::string_view text, size_t offset) {
  const size_t ls = LineStartOf(text, offset);
  size_t e = ls;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
  return std::string(text.substr(ls, e - ls));
}

// Is `offset` the first non-blank of its line?
bool FirstOnLine(std::string_view text, size_t offset) {
  const size_t ls = LineStartOf(text, offset);
  return text.substr(ls, offset - ls).find_first_not_of(" \t") == std::string_view::npos;
}

bool Multiline(std::string_view text, const Node& n) {
  return text.substr(n.begin, n.end - n.begin).find('\n') != std::string_view::npos;
}

std::string Quote(std::string_view s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(buf.GetString(), buf.GetSize());
}

// `value` as JSON: pretty with the file's unit, every line after the first
// indented by `indent`; or on one line.
std::string Render(const rapidjson::Value& value, bool pretty, const Layout& layout,
                   const std::string& indent) {
  rapidjson::StringBuffer buf;
  if (pretty) {
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
    w.SetIndent(layout.ch, layout.unit);
    value.Accept(w);
  } else {
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    value.Accept(w);
  }
  std::string out;
  for (size_t i = 0; i < buf.GetSize(); ++i) {
    out += buf.GetString()[i];
    if (buf.GetString()[i] == '\n') out += indent;
  }
  return out;
}

// Appends a member (`key` non-null) or an item to `container`.
std::string Append(std::string_view text, const Node& root, const Node& container,
                   const std::string* key, const rapidjson::Value& value) {
  const Layout layout = DetectLayout(text);
  const bool empty = container.children.empty();
  const bool pretty = Multiline(text, container) ||
                      (empty && (&container == &root || Multiline(text, root)));
  std::string inner_indent;
  if (!empty && FirstOnLine(text, container.Start(0)))
    inner_indent = LineIndent(text, container.Start(0));
  else
    inner_indent = LineIndent(text, container.begin) + layout.Unit();

  std::string colon = pretty ? ": " : ":";
  std::string sep = ",";
  if (!empty && container.kind == Node::Kind::kObject) {
    std::string_view c = text.substr(container.key_end[0],
                                     container.children[0].begin - container.key_end[0]);
    if (c.find_first_not_of(" \t:") == std::string_view::npos) colon = std::string(c);
  }
  if (!pretty && container.children.size() >= 2) {
    std::string_view s = text.substr(container.children[0].end,
                                     container.Start(1) - container.children[0].end);
    if (s.find_first_not_of(" \t,") == std::string_view::npos) sep = std::string(s);
  }
  std::string entry = key ? Quote(*key) + colon : "";
  entry += Render(value, pretty, layout, inner_indent);

  std::string out(text);
  if (!empty) {
    const size_t at = container.children.back().end;
    out.insert(at, pretty ? ",\n" + inner_indent + entry : sep + entry);
    return out;
  }
  const size_t open = container.begin + 1, close = container.end - 1;
  const std::string_view inside = text.substr(open, close - open);
  const std::string closing = LineIndent(text, container.begin);
  if (!pretty) {
    out.insert(open, entry);
  } else if (Blank(inside)) {
    out.replace(open, close - open, "\n" + inner_indent + entry + "\n" + closing);
  } else {  // only comments inside: keep them after the entry
    out.insert(open, "\n" + inner_indent + entry);
  }
  return out;
}

// Deletes child `i` of `container` with the separator that joined it.
std::string Erase(std::string_view text, const Node& container, size_t i) {
  std::string out(text);
  size_t b, e;
  if (container.children.size() == 1) {
    // The container is left empty: as {} or [] when nothing else is in it
    // (what Append filled), else only the child goes and comments stay.
    const size_t open = container.begin + 1, close = container.end - 1;
    const bool blank_before = Blank(text.substr(open, container.Start(0) - open));
    const bool blank_after = Blank(text.substr(container.children[0].end,
                                               close - container.children[0].end));
    b = blank_before ? open : container.Start(0);
    e = blank_before && blank_after ? close : container.children[0].end;
  } else if (i > 0) {
    b = container.children[i - 1].end;
    e = container.children[i].end;
  } else {
    b = container.Start(0);
    e = container.Start(1);
  }
  out.erase(b, e - b);
  return out;
}

std::string AgentWord(JsonAgent agent) {
  return agent == JsonAgent::kClaude ? "claude" : "gemini";
}

// Is `command` one that agtmux setup installed for `agent`? Any path to an
// executable named agtmux, then "hook <agent>".
bool IsOurCommand(std::string_view command, JsonAgent agent) {
  const std::string tail = " hook " + AgentWord(agent);
  if (command.size() < tail.size() ||
      command.substr(command.size() - tail.size()) != tail)
    return false;
  std::string_view prog = command.substr(0, command.size() - tail.size());
  if (prog.size() >= 2 && prog.front() == '\'' && prog.back() == '\'')
    prog = prog.substr(1, prog.size() - 2);
  size_t slash = prog.rfind('/');
  std::string_view base = slash == std::string_view::npos ? prog : prog.substr(slash + 1);
  return base == "agtmux";
}

bool NeedsMatcher(JsonAgent agent, const std::string& event) {
  if (agent == JsonAgent::kClaude)
    return event == "PreToolUse" || event == "PostToolUse" ||
           event == "PostToolUseFailure" || event == "PermissionRequest" ||
           event == "PermissionDenied";
  return event == "BeforeTool" || event == "AfterTool";
}

// The group setup adds to one event's list.
rapidjson::Value OurGroup(JsonAgent agent, const std::string& event,
                          const std::string& command,
                          rapidjson::Document::AllocatorType& alloc) {
  rapidjson::Value group(rapidjson::kObjectType);
  if (NeedsMatcher(agent, event)) group.AddMember("matcher", "*", alloc);
  rapidjson::Value entry(rapidjson::kObjectType);
  if (agent == JsonAgent::kGemini) entry.AddMember("name", "agtmux", alloc);
  entry.AddMember("type", "command", alloc);
  entry.AddMember("command", rapidjson::Value(command.c_str(), alloc), alloc);
  rapidjson::Value list(rapidjson::kArrayType);
  list.PushBack(entry, alloc);
  group.AddMember("hooks", list, alloc);
  return group;
}

const std::vector<std::string>& Events(JsonAgent agent) {
  return agent == JsonAgent::kClaude ? ClaudeHookEvents() : GeminiHookEvents();
}

// An agtmux entry in an event's list: group g, entry h of its "hooks".
struct Found {
  size_t group = 0, entry = 0;
  const Node* command = nullptr;  // the command string
};

std::vector<Found> OurEntries(std::string_view text, const Node& groups,
                              JsonAgent agent) {
  std::vector<Found> found;
  if (groups.kind != Node::Kind::kArray) return found;
  for (size_t g = 0; g < groups.children.size(); ++g) {
    const Node& group = groups.children[g];
    int l = group.kind == Node::Kind::kObject ? group.Index("hooks") : -1;
    if (l < 0 || group.children[l].kind != Node::Kind::kArray) continue;
    const Node& list = group.children[l];
    for (size_t h = 0; h < list.children.size(); ++h) {
      const Node& entry = list.children[h];
      int c = entry.kind == Node::Kind::kObject ? entry.Index("command") : -1;
      if (c < 0 || entry.children[c].kind != Node::Kind::kString) continue;
      const Node& cmd = entry.children[c];
      if (IsOurCommand(Decode(text.substr(cmd.begin, cmd.end - cmd.begin)), agent))
        found.push_back({g, h, &cmd});
    }
  }
  return found;
}

}  // namespace

const std::vector<std::string>& ClaudeHookEvents() {
  static const std::vector<std::string> events = {"SessionStart",
                                                  "UserPromptSubmit",
                                                  "PreToolUse",
                                                  "PermissionRequest",
                                                  "PermissionDenied",
                                                  "PostToolUse",
                                                  "PostToolUseFailure",
                                                  "Notification",
                                                  "PreCompact",
                                                  "SubagentStop",
                                                  "Stop",
                                                  "StopFailure",
                                                  "SessionEnd"};
  return events;
}

const std::vector<std::string>& GeminiHookEvents() {
  static const std::vector<std::string> events = {
      "SessionStart", "BeforeAgent", "BeforeTool", "AfterTool",
      "Notification", "PreCompress", "AfterAgent", "SessionEnd"};
  return events;
}

core::Result<std::string> MergeJsonHooks(JsonAgent agent, std::string_view text,
                                         std::string_view path,
                                         const std::string& command) {
  rapidjson::Document scratch;
  auto& alloc = scratch.GetAllocator();
  auto all_hooks = [&] {
    rapidjson::Value hooks(rapidjson::kObjectType);
    for (const std::string& event : Events(agent)) {
      rapidjson::Value list(rapidjson::kArrayType);
      list.PushBack(OurGroup(agent, event, command, alloc), alloc);
      hooks.AddMember(rapidjson::Value(event.c_str(), alloc), list, alloc);
    }
    return hooks;
  };
  if (Blank(text)) {  // a new (or empty) file, in the agents' own style
    rapidjson::Value doc(rapidjson::kObjectType);
    doc.AddMember("hooks", all_hooks(), alloc);
    return Render(doc, true, Layout{}, "") + "\n";
  }
  std::string out(text);
  // One edit per pass, then scan again: each edit sees fresh offsets. The
  // bound allows the hooks object, each event and a few stale agtmux
  // entries per event (a hand-copied duplicate).
  for (size_t pass = 0; pass < 8 * Events(agent).size() + 2; ++pass) {
    auto root = ScanSettings(out, path);
    if (!root.ok()) return root.error();
    int h = root->Index("hooks");
    if (h < 0) {
      const std::string key = "hooks";
      out = Append(out, *root, *root, &key, all_hooks());
      continue;
    }
    const Node& hooks = root->children[h];
    bool edited = false;
    for (const std::string& event : Events(agent)) {
      int e = hooks.Index(event);
      if (e < 0) {
        rapidjson::Value list(rapidjson::kArrayType);
        list.PushBack(OurGroup(agent, event, command, alloc), alloc);
        out = Append(out, *root, hooks, &event, list);
        edited = true;
        break;
      }
      const Node& groups = hooks.children[e];
      if (groups.kind != Node::Kind::kArray)
        return core::MakeError(Err::kConfigInvalid,
                               Position(out, hooks.key_begin[e], path) + ": \"hooks." +
                                   event + "\" is not an array");
      auto ours = OurEntries(out, groups, agent);
      if (ours.empty()) {
        out = Append(out, *root, groups, nullptr, OurGroup(agent, event, command, alloc));
        edited = true;
        break;
      }
      for (const Found& f : ours) {
        const Node& cmd = *f.command;
        if (Decode(std::string_view(out).substr(cmd.begin, cmd.end - cmd.begin)) ==
            command)
          continue;
        out.replace(cmd.begin, cmd.end - cmd.begin, Quote(command));  // agtmux moved
        edited = true;
        break;
      }
      if (edited) break;
    }
    if (!edited) return out;
  }
  return out;
}

core::Result<std::string> RemoveJsonHooks(JsonAgent agent, std::string_view text,
                                          std::string_view path) {
  if (Blank(text)) return std::string(text);
  std::string out(text);
  while (true) {
    auto root = ScanSettings(out, path);
    if (!root.ok()) return root.error();
    int h = root->Index("hooks");
    if (h < 0) return out;
    const Node& hooks = root->children[h];
    bool edited = false;
    for (size_t e = 0; e < hooks.children.size() && !edited; ++e) {
      const Node& groups = hooks.children[e];
      auto ours = OurEntries(out, groups, agent);
      if (ours.empty()) continue;
      // The innermost container that keeps something goes on; the ones
      // that would be left empty by this removal go with the entry.
      const Found& f = ours.front();
      const Node& group = groups.children[f.group];
      const Node& list = group.children[group.Index("hooks")];
      if (list.children.size() > 1)
        out = Erase(out, list, f.entry);
      else if (groups.children.size() > 1)
        out = Erase(out, groups, f.group);
      else if (hooks.children.size() > 1)
        out = Erase(out, hooks, e);
      else
        out = Erase(out, *root, static_cast<size_t>(h));
      edited = true;
    }
    if (!edited) return out;
  }
}

}  // namespace agt::cli
