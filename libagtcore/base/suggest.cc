// ClosestName and EditDistance (see suggest.h): the classic dynamic
// programme over two rows plus the one before, for the swap.
#include "libagtcore/base/suggest.h"

#include <algorithm>

namespace agt::core {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    before.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

std::optional<std::string> ClosestName(std::string_view typed, const std::vector<std::string_view>& known) {
  std::optional<std::string> best;
  size_t best_d = 3;  // at most 2 edits
  for (std::string_view k : known) {
    size_t d = EditDistance(typed, k);
    if (d < best_d && d * 2 < typed.size()) {
      best_d = d;
      best = std::string(k);
    }
  }
  return best;
}

}  // namespace agt::core
