// The respond action: answer the approval or question a pane is waiting
// on. The menu is read from the pane's screen at the moment of acting (not
// from the state, which may come from a hook that carries no options), and
// the action fails closed when the pane is not waiting, when no menu is on
// screen, or when the options differ from the ones the caller saw.
#include <cstdlib>
#include <optional>

#include "aggregator/actions/action_run.h"
#include "aggregator/actions/action_service.h"
#include "aggregator/actions/respond_plan.h"
#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/base/text.h"

namespace agt::agg {
namespace {

core::Error Refuse(core::Err code, std::string msg) { return core::MakeError(code, std::move(msg)); }

std::string JoinKeys(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : " ") + k;
  return out;
}

bool SameMenu(const detect::Menu& a, const detect::Menu& b) {
  return a.question == b.question && a.choices == b.choices && a.cursor_position == b.cursor_position;
}

}  // namespace

core::Result<detect::Menu> ActionService::ReadMenu(const Run& run, const PaneRow& row, TargetExecutor& ex) const {
  const std::vector<std::string>& tmux = run.tmux;
  std::string screen, width_text;
  if (auto st = RunTmux(ex, tmux, {"capture-pane", "-p", "-t", row.pane_id}, &screen); !st) return st.error();
  if (auto st = RunTmux(ex, tmux, {"display-message", "-p", "-t", row.pane_id, "#{pane_width}"}, &width_text); !st)
    return st.error();
  int width = std::atoi(width_text.c_str());
  std::vector<std::string_view> lines = core::SplitLines(screen);
  auto library = options_.patterns ? options_.patterns : detect::DefaultLibrary();
  const detect::PatternSet* set = library ? library->ForAgent(row.agent_type) : nullptr;
  detect::MenuStyle style = set ? set->menu : detect::MenuStyle{};
  std::string why;
  auto menu = detect::FindMenu(lines, style, &why, width);
  if (!menu)
    return Refuse(core::Err::kPreconditionFailed,
                  "no menu on the pane's screen" + (why.empty() ? std::string() : " (" + why + ")") +
                      "; nothing was sent");
  return *menu;
}

core::Status ActionService::SendKeys(Run& run, const PaneRow& row, TargetExecutor& ex,
                                     const std::vector<std::string>& keys) {
  const std::vector<std::string>& tmux = run.tmux;
  for (const auto& k : keys) {
    // One key per send-keys, each after a gap: ink reads keys that arrive
    // in one chunk as a paste and drops the arrows.
    if (run.req.key_delay_ms > 0) world_->Sleep(run.req.key_delay_ms * core::kNsPerMs);
    if (auto st = RunTmux(ex, tmux, {"send-keys", "-t", row.pane_id, k}); !st) return st;
  }
  return core::Ok();
}

core::Status ActionService::MoveCursor(Run& run, const PaneRow& row, TargetExecutor& ex, const detect::Menu& menu,
                                       int number, int* cursor, std::vector<std::string>* sent) {
  // An agent under load may lose an arrow (observed: "no" confirmed "Yes,
  // and don't ask again" once): each move is read back from the screen, and
  // a lost arrow is sent again from where the cursor is.
  // At most 36 reads in all (about 2 s), however the cursor moves.
  int reads_left = 36;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::vector<std::string> arrows = ArrowsTo(*cursor, number);
    if (arrows.empty() && attempt == 0) return core::Ok();  // the screen just read says so
    if (auto st = SendKeys(run, row, ex, arrows); !st) return st;
    sent->insert(sent->end(), arrows.begin(), arrows.end());
    for (int i = 0; i < 12 && reads_left > 0; ++i, --reads_left) {
      world_->Sleep(60 * core::kNsPerMs);
      auto now = ReadMenu(run, row, ex);
      if (!now) {
        if (now.error().code == core::Err::kPreconditionFailed)
          return Refuse(core::Err::kIo, "the menu went while its cursor was moved (" + JoinKeys(*sent) +
                                            "); nothing was confirmed, the pane needs a look");
        continue;  // a failing tmux proves nothing; read again
      }
      if (!SameChoices(menu.choices, *now))
        return Refuse(core::Err::kIo, "the menu changed while its cursor was moved (" + JoinKeys(*sent) +
                                          "); nothing was confirmed, the pane needs a look");
      const bool moved = now->cursor_position != *cursor;
      *cursor = now->cursor_position;
      if (*cursor == number) return core::Ok();
      if (moved) i = 0;  // on its way: give the rest of the arrows their time
    }
  }
  return Refuse(core::Err::kIo, "the cursor did not reach option " + std::to_string(number) + " (it is on " +
                                    std::to_string(*cursor) + " after " + JoinKeys(*sent) +
                                    "); nothing was confirmed, the pane needs a look");
}

core::Status ActionService::DoRespond(Run& run, const PaneRow& row, TargetExecutor& ex) {
  const ActionRequest& q = run.req;
  core::State s = row.agent ? row.st.signal.state : core::State::kUnknown;
  if (!row.agent || (s != core::State::kWaitingApproval && s != core::State::kWaitingInput))
    return Refuse(core::Err::kPreconditionFailed,
                  "respond: the pane is " + std::string(row.agent ? core::StateName(s) : "without an agent") +
                      ", not waiting_approval or waiting_input; nothing was sent");
  auto menu = ReadMenu(run, row, ex);
  if (!menu) return menu.error();
  if (!q.expect_choices.empty() && !SameChoices(q.expect_choices, *menu))
    return Refuse(core::Err::kPreconditionFailed,
                  "the options on screen are not the ones seen (" + std::to_string(q.expect_choices.size()) +
                      " seen, " + std::to_string(menu->choices.size()) + " on screen, first '" +
                      (menu->choices.empty() ? "" : menu->choices[0]) + "'); nothing was sent");
  if (menu->cursor_position < 1)
    return Refuse(core::Err::kPreconditionFailed, "the menu's cursor is not visible; nothing was sent");
  auto numbers = ResolveChoices(*menu, q.choices);
  if (!numbers) return numbers.error();
  if (menu->multi_select && row.agent_type != "claude")
    return Refuse(core::Err::kUnsupported, "multi-select menus of " + row.agent_type +
                                               " are not supported yet (only Claude Code's); nothing was sent");

  // Each option is confirmed (Enter) or toggled (Space) only once the screen
  // shows the cursor on it.
  std::vector<std::string> keys;
  int cursor = menu->cursor_position;
  for (int n : *numbers) {
    if (auto st = MoveCursor(run, row, ex, *menu, n, &cursor, &keys); !st) return st;
    std::vector<std::string> press = {menu->multi_select ? "Space" : "Enter"};
    if (auto st = SendKeys(run, row, ex, press); !st) return st;
    keys.push_back(press[0]);
  }
  if (menu->multi_select) {
    if (auto st = SendKeys(run, row, ex, {"Right"}); !st) return st;  // to the review page
    keys.emplace_back("Right");
  }

  if (menu->multi_select) {
    // Claude's review page ("Ready to submit your answers?"): confirm its
    // "Submit answers" option once it is drawn.
    std::optional<detect::Menu> review;
    for (int i = 0; i < 25 && !review; ++i) {
      world_->Sleep(80 * core::kNsPerMs);
      auto m = ReadMenu(run, row, ex);
      if (m && !SameChoices(menu->choices, *m)) review = *m;
    }
    int submit = 0;
    for (size_t i = 0; review && i < review->choices.size() && !submit; ++i)
      if (review->choices[i].rfind("Submit", 0) == 0) submit = review->first_number + static_cast<int>(i);
    if (!submit)
      return Refuse(core::Err::kIo, "the options were toggled (" + JoinKeys(keys) +
                                        ") but the review page with 'Submit' did not appear; the pane needs a look");
    int review_cursor = review->cursor_position;
    if (auto st = MoveCursor(run, row, ex, *review, submit, &review_cursor, &keys); !st) return st;
    if (auto st = SendKeys(run, row, ex, {"Enter"}); !st) return st;
    keys.emplace_back("Enter");
  }

  // Verified when the menu is gone or has changed (the agent took the answer).
  std::string delivery = "unverified";
  for (int i = 0; i < 10 && delivery != "verified"; ++i) {
    world_->Sleep(60 * core::kNsPerMs);
    auto after = ReadMenu(run, row, ex);
    // Gone (no menu on screen) or changed; a failing tmux proves nothing.
    bool gone = !after && after.error().code == core::Err::kPreconditionFailed;
    if (gone || (after && !SameMenu(*after, *menu))) delivery = "verified";
  }

  run.extra.Key("choices").BeginArray();
  for (int n : *numbers) {
    run.extra.BeginObject().Key("number").Int(n).Key("label").Str(ChoiceLabel(*menu, n)).EndObject();
  }
  run.extra.EndArray();
  run.extra.Key("question").Str(menu->question).Key("multi_select").Bool(menu->multi_select);
  run.extra.Key("keys").BeginArray();
  for (const auto& k : keys) run.extra.Str(k);
  run.extra.EndArray().Key("delivery").Str(delivery);
  std::string chosen;
  for (int n : *numbers) chosen += (chosen.empty() ? "" : ",") + std::to_string(n);
  Audit(run, "action_responded", "choices=" + chosen + " keys=" + JoinKeys(keys) + " delivery=" + delivery);
  return core::Ok();
}

}  // namespace agt::agg
