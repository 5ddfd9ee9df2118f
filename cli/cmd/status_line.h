// The text of `agtmux status-line` (cli/cmd/cmd_status_line.cc), apart from
// the call that reads it, so its exact output is unit-tested.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace agt::cli {

struct StatusLineStyle {
  bool ascii = false;  // E W R D instead of ✗ ⚠ ▶ ✓
  bool tmux = false;   // #[fg=...] styles for status-right
};

/// The status text for a GET /v1/panes answer (its `summary` and `items`).
std::string StatusLineText(const rapidjson::Value& answer, const StatusLineStyle& style);

}  // namespace agt::cli
