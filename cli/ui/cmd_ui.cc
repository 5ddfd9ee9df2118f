// `agtmux ui` (and `agtmux` alone on a terminal): the interactive view of
// every agent pane (cli/ui/app.h, docs/ui.md).
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/ui/app.h"

namespace agt::cli {

CommandSpec UiCommand() {
  return {"ui", "The interactive view: every agent pane live; jump, approve, deny, prompt (the default on a terminal)",
          [](CLI::App*) -> Runner { return [] { return ui::RunUi({}); }; }};
}

}  // namespace agt::cli
