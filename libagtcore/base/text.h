// Small text helpers shared by the readers of tmux output.
#pragma once

#include <string_view>
#include <vector>

namespace agt::core {

/// The lines of `text`, split at '\n' (views into it). A final newline does
/// not start another line; an empty text has none.
std::vector<std::string_view> SplitLines(std::string_view text);

}  // namespace agt::core
