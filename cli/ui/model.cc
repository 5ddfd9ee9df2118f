// The `agtmux ui` model (see model.h): rows from the watch stream's items,
// filtered and grouped; keys turned into intents. Pure: its unit tests
// (tests/cli/ui/model_test.cc) feed it stream lines and keys.
#include "cli/ui/model.h"

#include "cli/json_fields.h"
#include "libagtcore/base/utf8.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <tuple>

namespace agt::cli::ui {
namespace {

PaneRow RowOf(const std::string& key, const rapidjson::Value& item) {
  PaneRow r;
  r.item = &item;
  r.key = key;
  r.ref = JsonStr(item, "ref");
  r.runtime_id = JsonStr(item, "runtime_id");
  r.state = JsonStr(item, "state");
  r.agent = JsonStr(item, "agent_type");
  r.window_index = JsonInt(item, "window_index");
  r.pane_index = JsonInt(item, "pane_index");
  auto id = item.FindMember("identity");
  if (id != item.MemberEnd()) {
    r.target = JsonStr(id->value, "target");
    r.session = JsonStr(id->value, "session_name");
    const std::string pane = JsonStr(id->value, "pane_id");
    if (pane.size() > 1 && pane[0] == '%') r.pane_number = std::atoll(pane.c_str() + 1);
  }
  auto w = item.FindMember("waiting");
  if (w != item.MemberEnd() && w->value.IsObject()) {
    auto c = w->value.FindMember("choices");
    if (c != w->value.MemberEnd() && c->value.IsArray())
      for (const auto& x : c->value.GetArray())
        if (x.IsString()) r.choices.emplace_back(x.GetString());
  }
  return r;
}

std::string Lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool Contains(const std::string& haystack, const std::string& lower_needle) {
  return Lower(haystack).find(lower_needle) != std::string::npos;
}

}  // namespace

bool MatchesText(const rapidjson::Value& item, const std::string& text) {
  const auto& id = JsonObj(item, "identity");
  const auto& waiting = JsonObj(item, "waiting");
  const std::string agent = JsonStr(item, "agent_type"), target = JsonStr(id, "target"),
                    session = JsonStr(id, "session_name"), state = JsonStr(item, "state");
  const std::string any[] = {agent, target, session, state, JsonStr(item, "ref"), JsonStr(item, "window_name"),
                             JsonStr(item, "title"), JsonStr(waiting, "details"), JsonStr(waiting, "question")};
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    std::string word = Lower(text.substr(at, end - at));
    at = end + 1;
    if (word.empty()) continue;
    const size_t colon = word.find(':');
    const std::string field = colon == std::string::npos ? "" : word.substr(0, colon);
    const std::string value = word.substr(colon + 1);
    bool hit = false;
    if (field == "agent") hit = Contains(agent, value);
    else if (field == "target") hit = Contains(target, value);
    else if (field == "session") hit = Contains(session, value);
    else if (field == "state") hit = Contains(state, value);
    else
      for (const std::string& f : any) hit = hit || Contains(f, word);
    if (!hit) return false;
  }
  return true;
}

void Model::Apply(const rapidjson::Value& line) { items_.Apply(line); }

void Model::Rebuild() {
  if (built_generation_ == items_.generation() && !filters_changed_) return;
  built_generation_ = items_.generation();
  filters_changed_ = false;
  rows_.clear();
  for (const auto& [key, item] : items_.items()) {
    PaneRow r = RowOf(key, *item);
    if (filters_.waiting_only && !r.waiting()) continue;
    if (!filters_.agent.empty() && r.agent != filters_.agent) continue;
    if (!filters_.target.empty() && r.target != filters_.target) continue;
    if (!filters_.text.empty() && !MatchesText(*item, filters_.text)) continue;
    rows_.push_back(std::move(r));
  }
  std::sort(rows_.begin(), rows_.end(), [](const PaneRow& a, const PaneRow& b) {
    return std::tie(a.target, a.session, a.window_index, a.pane_index, a.pane_number, a.key) <
           std::tie(b.target, b.session, b.window_index, b.pane_index, b.pane_number, b.key);
  });
  lines_.clear();
  for (size_t i = 0; i < rows_.size(); ++i) {
    const PaneRow& r = rows_[i];
    if (i == 0 || r.target != rows_[i - 1].target || r.session != rows_[i - 1].session) {
      size_t n = 0;
      while (i + n < rows_.size() && rows_[i + n].target == r.target && rows_[i + n].session == r.session) ++n;
      ListLine h;
      h.header = true;
      h.label = r.target + " / " + (r.session.empty() ? "(no session yet)" : r.session) + " (" + std::to_string(n) + ")";
      lines_.push_back(h);
    }
    ListLine l;
    l.row = static_cast<int>(i);
    lines_.push_back(l);
  }
  // Keep the selected pane selected; when it went away, stay near where it was.
  int keep = -1;
  for (size_t i = 0; i < lines_.size(); ++i)
    if (!lines_[i].header && rows_[static_cast<size_t>(lines_[i].row)].key == selected_key_) keep = static_cast<int>(i);
  if (keep < 0) keep = std::min(std::max(selected_line_, 0), static_cast<int>(lines_.size()) - 1);
  Select(keep);
}

void Model::Select(int line) {
  selected_line_ = -1;
  if (lines_.empty()) return;
  line = std::clamp(line, 0, static_cast<int>(lines_.size()) - 1);
  // A header is not selectable: take the pane under it (or above the end).
  while (line < static_cast<int>(lines_.size()) && lines_[static_cast<size_t>(line)].header) ++line;
  if (line >= static_cast<int>(lines_.size())) line = static_cast<int>(lines_.size()) - 1;
  while (line >= 0 && lines_[static_cast<size_t>(line)].header) --line;
  if (line < 0) return;
  selected_line_ = line;
  selected_key_ = rows_[static_cast<size_t>(lines_[static_cast<size_t>(line)].row)].key;
}

void Model::Move(int delta) {
  if (lines_.empty()) return;
  int line = selected_line_;
  int step = delta > 0 ? 1 : -1;
  for (int moved = 0; moved < std::abs(delta);) {
    int next = line + step;
    while (next >= 0 && next < static_cast<int>(lines_.size()) && lines_[static_cast<size_t>(next)].header) next += step;
    if (next < 0 || next >= static_cast<int>(lines_.size())) break;
    line = next;
    ++moved;
  }
  Select(line);
}

const PaneRow* Model::Selected() const {
  if (selected_line_ < 0 || selected_line_ >= static_cast<int>(lines_.size())) return nullptr;
  return &rows_[static_cast<size_t>(lines_[static_cast<size_t>(selected_line_)].row)];
}

std::string Model::CycleValue(const std::string& current, bool by_agent) const {
  // Every value present among all agent panes (not only the shown ones).
  std::set<std::string> values;
  for (const auto& [key, item] : items_.items()) {
    PaneRow r = RowOf(key, *item);
    values.insert(by_agent ? r.agent : r.target);
  }
  values.erase("");
  if (values.empty()) return "";
  if (current.empty()) return *values.begin();
  auto it = values.upper_bound(current);
  return it == values.end() ? "" : *it;
}

void Model::FiltersChanged() {
  filters_changed_ = true;
  Rebuild();
}

// While `/` is typed: the rows follow each key; Enter keeps the filter,
// Esc clears it.
void Model::EditFilter(int key) {
  std::string& t = filters_.text;
  if (key == kKeyEnter) {
    filtering_ = false;
    return;
  }
  if (key == kKeyEscape) {
    filtering_ = false;
    t.clear();
  } else if (key == kKeyBackspace) {
    while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80) t.pop_back();
    if (!t.empty()) t.pop_back();
  } else if (key >= 0x20 && key < 0x110000 && key != 0x7F) {
    core::AppendUtf8(&t, static_cast<uint32_t>(key));
  } else {
    return;
  }
  FiltersChanged();
}

Intent Model::HandleKey(int key) {
  Intent none;
  if (help_) {
    help_ = false;  // any key closes the help; q still quits from the list
    return none;
  }
  if (filtering_) {
    EditFilter(key);
    return none;
  }
  if (prompting_) {
    if (key == kKeyEscape) {
      prompting_ = false;
      SetStatus("prompt cancelled", false);
    } else if (key == kKeyEnter) {
      prompting_ = false;
      const PaneRow* r = Selected();
      if (r == nullptr || prompt_.empty()) return none;
      Intent send;
      send.kind = Intent::kSend;
      send.ref = r->ref;
      send.runtime_id = r->runtime_id;
      send.text = prompt_;
      return send;
    } else if (key == kKeyBackspace) {
      while (!prompt_.empty() && (static_cast<unsigned char>(prompt_.back()) & 0xC0) == 0x80) prompt_.pop_back();
      if (!prompt_.empty()) prompt_.pop_back();
    } else if (key >= 0x20 && key < 0x110000 && key != 0x7F) {
      core::AppendUtf8(&prompt_, static_cast<uint32_t>(key));
    }
    return none;
  }
  const PaneRow* sel = Selected();
  auto respond = [&](std::vector<std::string> choices) {
    if (sel == nullptr) return none;
    if (!sel->waiting()) {
      SetStatus(sel->ref + " is " + sel->state + ", not waiting for an answer", true);
      return none;
    }
    Intent i;
    i.kind = Intent::kRespond;
    i.ref = sel->ref;
    i.runtime_id = sel->runtime_id;
    i.choices = std::move(choices);
    return i;
  };
  switch (key) {
    case kKeyEscape:
      // Esc clears a typed filter first; with none, it quits as q does.
      if (!filters_.text.empty()) {
        filters_.text.clear();
        FiltersChanged();
        return none;
      }
      [[fallthrough]];
    case 'q': {
      Intent q;
      q.kind = Intent::kQuit;
      return q;
    }
    case 'j':
    case kKeyDown: Move(1); return none;
    case 'k':
    case kKeyUp: Move(-1); return none;
    case kKeyPageDown: Move(10); return none;
    case kKeyPageUp: Move(-10); return none;
    case 'g':
    case kKeyHome: Select(0); return none;
    case 'G':
    case kKeyEnd: Select(static_cast<int>(lines_.size()) - 1); return none;
    case '?': help_ = true; return none;
    case '/': filtering_ = true; return none;
    case 'w':
      filters_.waiting_only = !filters_.waiting_only;
      filters_changed_ = true;
      Rebuild();
      return none;
    case 'A':
      filters_.agent = CycleValue(filters_.agent, true);
      filters_changed_ = true;
      Rebuild();
      return none;
    case 'T':
      filters_.target = CycleValue(filters_.target, false);
      filters_changed_ = true;
      Rebuild();
      return none;
    case 'x':
      filters_ = Filters{};
      filters_changed_ = true;
      Rebuild();
      return none;
    case 'a':
    case 'y': return respond({"yes"});
    case 'd':
    case 'n': return respond({"no"});
    case 'p':
    case 'i':
      if (sel == nullptr) return none;
      prompting_ = true;
      prompt_.clear();
      return none;
    case 'r': {
      if (sel == nullptr) return none;
      Intent p;
      p.kind = Intent::kPreview;
      p.ref = sel->ref;
      return p;
    }
    case kKeyEnter: {
      if (sel == nullptr) return none;
      Intent j;
      j.kind = Intent::kJump;
      j.ref = sel->ref;
      j.runtime_id = sel->runtime_id;
      return j;
    }
    default:
      if (key >= '1' && key <= '9') return respond({std::string(1, static_cast<char>(key))});
      return none;
  }
}

}  // namespace agt::cli::ui
