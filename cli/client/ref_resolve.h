// Refs as tmux users type them. The action commands and `explain` take a
// canonical ref (pane:<target>/<session>/@<window>/%<pane>, runtime:<id>),
// and also what the `list panes` table shows and tmux users type:
//   %4                      a tmux pane id
//   work:2.1                session:window.pane (window by index or name)
//   work:2  or  work        the window's (the session's) only agent pane
//   vm1/work:2.1, vm1/%4    the same on target vm1
//   a unique prefix         of a canonical ref or a runtime id
// A form that matches several panes is refused with the candidates; one
// that matches none with the agent panes there are ("did you mean").
// Table row numbers are not accepted: rows move as panes come and go, and
// an answer sent to the wrong pane is worse than typing %4.
#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <string>
#include <string_view>

#include "libagtcore/base/result.h"

namespace agt::cli {

/// The help of every command's ref argument.
inline constexpr const char* kRefHelp =
    "the pane: %4, session:window.pane, [target/]…, a unique prefix, or pane:…/runtime:… as list panes shows";

/// Resolves `typed` against `items` (the /v1/panes items array) to a
/// canonical ref. E_REF_INVALID when nothing or several panes match.
core::Result<std::string> ResolveRefIn(const rapidjson::Value& items, std::string_view typed);

/// A canonical ref is returned as it is (the daemon checks it); any other
/// form is resolved against the daemon's panes (GET /v1/panes?all=1).
core::Result<std::string> ResolveRef(std::string_view typed);

/// Resolves *ref in place and runs `run`; when it does not resolve, reports
/// the error (ReportError) and returns its exit code.
int WithResolvedRef(std::string* ref, const std::function<int()>& run);

}  // namespace agt::cli
