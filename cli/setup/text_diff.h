// A unified diff of two texts, as `diff -u` prints it, for `agtmux setup
// --dry-run`. Written here rather than run from diffutils so that the
// user's settings (which may hold tokens) never go to temporary files and
// the output does not depend on PATH; settings files are small.
#pragma once

#include <string>
#include <string_view>

namespace agt::cli {

/// The unified diff turning `before` into `after` with 3 lines of context,
/// headed `--- before_name` / `+++ after_name` (use "/dev/null" for a file
/// that does not exist). Empty when the texts are equal. A last line
/// without a newline is marked `\ No newline at end of file`; patch(1)
/// applies the result.
std::string UnifiedDiff(std::string_view before, std::string_view after,
                        std::string_view before_name, std::string_view after_name);

}  // namespace agt::cli
