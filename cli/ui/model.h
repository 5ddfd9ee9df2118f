// The interactive view's model (`agtmux ui`): the agent panes of the
// daemon's watch stream, grouped by target and session, the filters, the
// selection, the preview text, what the daemon connection is doing and the
// line of status. Keys come in as ui::Key values and go out as Intents
// (jump, respond, send, quit) that the app (cli/ui/app.cc) carries out.
// Nothing here touches a terminal, a socket or a clock: `now` is passed in.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/client/watch_items.h"
#include "libagtcore/vocabulary.h"

namespace agt::cli::ui {

/// A key press: a Unicode code point, or one of these.
enum Key : int {
  kKeyUp = 0x110001,
  kKeyDown,
  kKeyPageUp,
  kKeyPageDown,
  kKeyHome,
  kKeyEnd,
  kKeyEnter,
  kKeyEscape,
  kKeyBackspace,
};

/// One agent pane as the list shows it.
struct PaneRow {
  const rapidjson::Value* item = nullptr;  // owned by the model's WatchItems
  std::string key;                         // the item's identity (JSON)
  std::string ref, runtime_id, target, session, agent, state;
  int64_t window_index = 0, pane_index = 0, pane_number = 0;  // pane_number: N of "%N"
  std::vector<std::string> choices;  // what a waiting pane offers
  bool waiting() const { return state == "waiting_approval" || state == "waiting_input"; }
};

/// A line of the list: a "target / session" header or a pane (an index
/// into rows()).
struct ListLine {
  bool header = false;
  std::string label;  // header: "target / session (n)"
  int row = -1;
};

struct Filters {
  bool waiting_only = false;
  std::string agent;   // "" = every agent
  std::string target;  // "" = every target
  std::string text;    // typed after `/`: every word must match (see MatchesText)
  bool any() const { return waiting_only || !agent.empty() || !target.empty() || !text.empty(); }
};

/// The typed filter: each whitespace-separated word must occur
/// (case-insensitively) in one of the pane's agent, target, session, state,
/// ref, window name, title, or what it waits on; `agent:`, `target:`,
/// `session:` and `state:` before a word limit it to that field.
bool MatchesText(const rapidjson::Value& item, const std::string& text);

enum class Connection { kConnecting, kLive, kNotAnswering };

/// What a key asks the app to do.
struct Intent {
  enum Kind { kNone, kQuit, kJump, kRespond, kSend, kPreview } kind = kNone;
  std::string ref, runtime_id;
  std::vector<std::string> choices;  // kRespond
  std::string text;                  // kSend
};

class Model {
 public:
  /// Applies one line of the watch stream.
  void Apply(const rapidjson::Value& line);
  /// Recomputes the rows after Apply or a filter change (cheap when
  /// nothing changed).
  void Rebuild();

  /// A key; what the app must do for it.
  Intent HandleKey(int key);

  const std::vector<PaneRow>& rows() const { return rows_; }
  const std::vector<ListLine>& lines() const { return lines_; }
  /// The selected pane (nullptr when the list is empty).
  const PaneRow* Selected() const;
  /// Index into lines() of the selection (-1 when none).
  int selected_line() const { return selected_line_; }
  const Filters& filters() const { return filters_; }
  const WatchItems& items() const { return items_; }

  void set_connection(Connection c) { connection_ = c; }
  Connection connection() const { return connection_; }
  /// The status line: an action's result, or its error (`error` true).
  void SetStatus(std::string text, bool error) {
    status_ = std::move(text);
    status_error_ = error;
  }
  const std::string& status() const { return status_; }
  bool status_error() const { return status_error_; }

  /// The selected pane's screen, as last fetched, and whose it is.
  void SetPreview(std::string key, std::string text) {
    preview_key_ = std::move(key);
    preview_ = std::move(text);
  }
  const std::string& preview() const { return preview_; }
  const std::string& preview_key() const { return preview_key_; }

  bool help() const { return help_; }
  /// True while the `/` filter is typed (the text is filters().text).
  bool filtering() const { return filtering_; }
  /// True while a prompt is typed (the text so far in prompt_text()).
  bool prompting() const { return prompting_; }
  const std::string& prompt_text() const { return prompt_; }

  /// The pane rows' first line shown (scroll), kept by the frame builder.
  int scroll = 0;

 private:
  void Move(int delta);
  void Select(int line);
  std::string CycleValue(const std::string& current, bool by_agent) const;
  void EditFilter(int key);
  void FiltersChanged();

  WatchItems items_;
  uint64_t built_generation_ = UINT64_MAX;
  bool filters_changed_ = true;
  std::vector<PaneRow> rows_;
  std::vector<ListLine> lines_;
  std::string selected_key_;
  int selected_line_ = -1;
  Filters filters_;
  Connection connection_ = Connection::kConnecting;
  std::string status_;
  bool status_error_ = false;
  std::string preview_, preview_key_;
  bool help_ = false, prompting_ = false, filtering_ = false;
  std::string prompt_;
};

}  // namespace agt::cli::ui
