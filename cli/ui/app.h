// `agtmux ui`: the interactive view's loop (see docs/ui.md).
#pragma once

#include <string>

namespace agt::cli::ui {

struct UiOptions {
  bool autostart = true;  // start agtmuxd when nothing answers at start-up
};

/// Runs the view until the user quits; the process's exit status.
int RunUi(const UiOptions& options);

}  // namespace agt::cli::ui
