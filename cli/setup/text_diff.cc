// UnifiedDiff: lines are compared whole (with their newline); the common
// head and tail are trimmed, and the changed middle is aligned by a longest
// common subsequence. The middle of a settings edit is a few hundred lines
// at most; past kMaxCells the middle is shown as replaced whole, which is
// still a correct diff, only a longer one.
#include "cli/setup/text_diff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace agt::cli {
namespace {

constexpr size_t kContext = 3;
constexpr size_t kMaxCells = 4u << 20;  // LCS table cells: 16 MiB at most

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t i = 0;
  while (i < text.size()) {
    size_t nl = text.find('\n', i);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(i, end - i));
    i = end;
  }
  return lines;
}

enum class Op { kSame, kDel, kAdd };

struct Step {
  Op op;
  size_t a, b;  // line indexes in before / after (the one the op uses)
};

// The edit script of a[a0,a1) against b[b0,b1) by LCS.
void Align(const std::vector<std::string_view>& a, size_t a0, size_t a1,
           const std::vector<std::string_view>& b, size_t b0, size_t b1,
           std::vector<Step>* steps) {
  const size_t n = a1 - a0, m = b1 - b0;
  if (n == 0 || m == 0 || (n + 1) * (m + 1) > kMaxCells) {
    for (size_t i = a0; i < a1; ++i) steps->push_back({Op::kDel, i, b0});
    for (size_t j = b0; j < b1; ++j) steps->push_back({Op::kAdd, a1, j});
    return;
  }
  // lcs[i][j]: the LCS length of a[a0+i..a1) and b[b0+j..b1).
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) = a[a0 + i] == b[b0 + j] ? at(i + 1, j + 1) + 1
                                        : std::max(at(i + 1, j), at(i, j + 1));
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[a0 + i] == b[b0 + j]) {
      steps->push_back({Op::kSame, a0 + i, b0 + j});
      ++i, ++j;
    } else if (j == m || (i < n && at(i + 1, j) >= at(i, j + 1))) {
      steps->push_back({Op::kDel, a0 + i, b0 + j});  // deletions first, as diff -u
      ++i;
    } else {
      steps->push_back({Op::kAdd, a0 + i, b0 + j});
      ++j;
    }
  }
}

void EmitLine(std::string* out, char prefix, std::string_view line) {
  *out += prefix;
  if (!line.empty() && line.back() == '\n') {
    out->append(line);
  } else {
    out->append(line);
    *out += "\n\\ No newline at end of file\n";
  }
}

// "start,count" as diff -u writes a hunk range: the count is left out when
// it is 1, and an empty range starts at the line before it.
std::string Range(size_t first, size_t count) {
  size_t start = count == 0 ? first : first + 1;
  if (count == 1) return std::to_string(start);
  return std::to_string(start) + "," + std::to_string(count);
}

}  // namespace

std::string UnifiedDiff(std::string_view before, std::string_view after,
                        std::string_view before_name, std::string_view after_name) {
  if (before == after) return "";
  const auto a = Lines(before);
  const auto b = Lines(after);
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;

  std::vector<Step> steps;
  for (size_t i = 0; i < head; ++i) steps.push_back({Op::kSame, i, i});
  Align(a, head, a.size() - tail, b, head, b.size() - tail, &steps);
  for (size_t k = tail; k-- > 0;)
    steps.push_back({Op::kSame, a.size() - 1 - k, b.size() - 1 - k});

  std::string out =
      "--- " + std::string(before_name) + "\n+++ " + std::string(after_name) + "\n";
  size_t s = 0;
  while (s < steps.size()) {
    while (s < steps.size() && steps[s].op == Op::kSame) ++s;
    if (s == steps.size()) break;
    // A hunk: from kContext lines before this change to kContext lines after
    // the last change that is within 2*kContext same lines of the previous.
    size_t begin = s >= kContext ? s - kContext : 0;
    size_t end = s;
    while (true) {
      while (end < steps.size() && steps[end].op != Op::kSame) ++end;
      size_t same = end;
      while (same < steps.size() && steps[same].op == Op::kSame) ++same;
      if (same < steps.size() && same - end <= 2 * kContext) {
        end = same;
        continue;
      }
      end = std::min(end + kContext, steps.size());
      break;
    }
    size_t a_first = 0, a_count = 0, b_first = 0, b_count = 0;
    bool a_set = false, b_set = false;
    for (size_t k = begin; k < end; ++k) {
      const Step& st = steps[k];
      if (st.op != Op::kAdd) {
        if (!a_set) a_first = st.a, a_set = true;
        ++a_count;
      }
      if (st.op != Op::kDel) {
        if (!b_set) b_first = st.b, b_set = true;
        ++b_count;
      }
    }
    // An empty side starts where the hunk sits in that file.
    if (!a_set) a_first = steps[begin].a;
    if (!b_set) b_first = steps[begin].b;
    out += "@@ -" + Range(a_first, a_count) + " +" + Range(b_first, b_count) + " @@\n";
    for (size_t k = begin; k < end; ++k) {
      const Step& st = steps[k];
      if (st.op == Op::kSame) EmitLine(&out, ' ', a[st.a]);
      if (st.op == Op::kDel) EmitLine(&out, '-', a[st.a]);
      if (st.op == Op::kAdd) EmitLine(&out, '+', b[st.b]);
    }
    s = end;
  }
  return out;
}

}  // namespace agt::cli
