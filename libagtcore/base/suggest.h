// "Did you mean": the closest of a few known names to a mistyped one, by
// edit distance (insertions, deletions, substitutions and swaps of two
// neighbouring characters each count 1). Used for config keys
// (libagtcore/config.cc); small lists only, it compares with every name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agt::core {

/// Optimal-string-alignment distance between `a` and `b`.
size_t EditDistance(std::string_view a, std::string_view b);

/// The name in `known` closest to `typed`, when it is close enough to be a
/// typo (at most 2 edits, and fewer than half of `typed`'s length); the
/// first in `known` wins a tie.
std::optional<std::string> ClosestName(std::string_view typed, const std::vector<std::string_view>& known);

}  // namespace agt::core
