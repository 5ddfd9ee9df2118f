// How `respond` answers a menu (docs/spec.md §14, "answered in one command"):
// which options the user meant, and the keys that select them. Pure
// functions of the menu read from the pane's screen; the action service
// (aggregator/actions/action_service.cc) sends the keys.
//
// ink and ratatui select lists ignore digits, so an option is reached with
// arrow keys from the cursor and confirmed with Enter. A multi-select list
// (Claude's AskUserQuestion with multiSelect) toggles each option with
// Space and then moves to its review page with Right.
#pragma once

#include <string>
#include <vector>

#include "libagtcore/detect/menu.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

/// The option numbers (as shown on screen) that `wanted` names, in the
/// order given. Each entry is:
///   - a number shown on screen ("2");
///   - "yes" / "no" (or "y" / "n"): the first option whose first word is yes/allow/approve/
///     proceed, or no/deny/reject;
///   - the text of an option: equal ignoring case and spacing, or else the
///     start of exactly one option ("pytest" for "pytest (Recommended)").
/// E_REQUEST_INVALID naming the entry when it matches nothing, or more than
/// one option, or when several are given for a single-select menu.
core::Result<std::vector<int>> ResolveChoices(const detect::Menu& menu, const std::vector<std::string>& wanted);

/// The label of option `number`, "" when it is scrolled out of view.
std::string ChoiceLabel(const detect::Menu& menu, int number);

/// Arrow keys from the cursor's option to `number` (Up or Down, repeated).
std::vector<std::string> ArrowsTo(int cursor, int number);

/// True when the labels the caller saw still describe `menu`: the same
/// number of options, and each seen label equal to the one on screen or a
/// prefix of it (either way round), ignoring case and runs of spaces. A
/// label wrapped or cut differently by the two readers still matches; a
/// different dialog does not.
bool SameChoices(const std::vector<std::string>& seen, const detect::Menu& menu);

}  // namespace agt::agg
