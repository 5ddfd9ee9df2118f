// Region parsing and cutting. The screen layout facts every agent shares
// (horizontal rules around an input box, a footer below it) are computed
// once per screen here; the pattern sets then say which part they read.
#include "libagtcore/detect/region.h"

#include <algorithm>
#include <charconv>

#include "libagtcore/base/utf8.h"

namespace agt::detect {
namespace {

const std::vector<std::string> kNoLines;

bool ParseCount(std::string_view text, std::string_view name, int* n) {
  if (text.size() < name.size() + 3 || text.substr(0, name.size()) != name ||
      text[name.size()] != '(' || text.back() != ')')
    return false;
  std::string_view num = text.substr(name.size() + 1, text.size() - name.size() - 2);
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), *n);
  return ec == std::errc() && p == num.data() + num.size() && *n > 0 && *n <= 1000;
}


}  // namespace

core::Result<Region> ParseRegion(std::string_view text) {
  static const std::pair<std::string_view, RegionKind> kPlain[] = {
      {"title", RegionKind::kTitle},
      {"osc_progress", RegionKind::kOscProgress},
      {"notification", RegionKind::kNotification},
      {"program_status", RegionKind::kProgramStatus},
      {"after_last_rule", RegionKind::kAfterLastRule},
      {"prompt_box", RegionKind::kPromptBox},
      {"whole_screen", RegionKind::kWholeScreen},
      {"raw_stream", RegionKind::kRawStream},
      {"dialog", RegionKind::kDialog},
      {"transcript", RegionKind::kTranscript},
      {"input", RegionKind::kInput},
  };
  for (auto& [name, kind] : kPlain)
    if (text == name) return Region{kind, 0};
  int n = 0;
  if (ParseCount(text, "bottom_lines", &n)) return Region{RegionKind::kBottomLines, n};
  if (ParseCount(text, "above_prompt_box", &n))
    return Region{RegionKind::kAbovePromptBox, n};
  if (ParseCount(text, "above_last_rule", &n))
    return Region{RegionKind::kAboveLastRule, n};
  if (ParseCount(text, "above_bottom_lines", &n))
    return Region{RegionKind::kAboveBottomLines, n};
  return core::MakeError(
      core::Err::kPatternInvalid,
      "unknown region '" + std::string(text) +
          "' (expected title, osc_progress, notification, program_status, bottom_lines(N), "
          "after_last_rule, prompt_box, above_prompt_box(N), above_last_rule(N), "
          "above_bottom_lines(N), dialog, transcript, input, whole_screen or raw_stream; N in "
          "1..1000)");
}

std::string RegionName(const Region& r) {
  switch (r.kind) {
    case RegionKind::kTitle:
      return "title";
    case RegionKind::kOscProgress:
      return "osc_progress";
    case RegionKind::kNotification:
      return "notification";
    case RegionKind::kProgramStatus:
      return "program_status";
    case RegionKind::kBottomLines:
      return "bottom_lines(" + std::to_string(r.lines) + ")";
    case RegionKind::kAfterLastRule:
      return "after_last_rule";
    case RegionKind::kPromptBox:
      return "prompt_box";
    case RegionKind::kAbovePromptBox:
      return "above_prompt_box(" + std::to_string(r.lines) + ")";
    case RegionKind::kAboveLastRule:
      return "above_last_rule(" + std::to_string(r.lines) + ")";
    case RegionKind::kAboveBottomLines:
      return "above_bottom_lines(" + std::to_string(r.lines) + ")";
    case RegionKind::kWholeScreen:
      return "whole_screen";
    case RegionKind::kRawStream:
      return "raw_stream";
    case RegionKind::kDialog:
      return "dialog";
    case RegionKind::kTranscript:
      return "transcript";
    case RegionKind::kInput:
      return "input";
  }
  return "?";
}

bool IsRuleLine(std::string_view line) {
  size_t i = 0;
  int horizontals = 0;
  int others = 0;
  while (i < line.size()) {
    char32_t cp = core::NextCodePoint(line, &i);
    switch (cp) {
      case U' ':
        break;
      case U'─':
      case U'━':
      case U'═':
      case U'╌':
      case U'┄':
      case U'-':
      case U'▔':
      case U'▁':
        ++horizontals;
        break;
      case U'╭':
      case U'╮':
      case U'╰':
      case U'╯':
      case U'├':
      case U'┤':
      case U'┌':
      case U'┐':
      case U'└':
      case U'┘':
        break;
      default:
        ++others;
    }
  }
  return horizontals >= 8 && others == 0;
}

std::string_view RegionText::LineAt(size_t offset) const {
  std::string_view t(text);
  if (offset > t.size()) return {};
  size_t nl = offset == 0 ? std::string_view::npos : t.rfind('\n', offset - 1);
  size_t b = nl == std::string_view::npos ? 0 : nl + 1;
  size_t e = t.find('\n', offset);
  if (e == std::string_view::npos) e = t.size();
  return t.substr(b, e - b);
}

int RegionText::RowAt(size_t offset) const {
  if (starts.empty()) return -1;
  auto it = std::upper_bound(starts.begin(), starts.end(), offset);
  size_t idx = static_cast<size_t>(it - starts.begin()) - (it == starts.begin() ? 0 : 1);
  return rows[idx];
}

RegionCutter::RegionCutter(const AnalyzerInput& in)
    : in_(in), lines_(in.screen != nullptr ? in.screen->lines : kNoLines) {
  for (int r = static_cast<int>(lines_.size()) - 1; r >= 0; --r) {
    if (lines_[static_cast<size_t>(r)].find_first_not_of(' ') != std::string::npos) {
      last_nonblank_ = r;
      break;
    }
  }
  for (int r = 0; r <= last_nonblank_; ++r)
    if (IsRuleLine(lines_[static_cast<size_t>(r)])) rule_rows_.push_back(r);
}

void RegionCutter::Rows(const Region& r, int* first, int* last) const {
  *first = 0;
  *last = -1;
  int nrules = static_cast<int>(rule_rows_.size());
  switch (r.kind) {
    case RegionKind::kBottomLines:
      *last = last_nonblank_;
      *first = std::max(0, last_nonblank_ - r.lines + 1);
      break;
    case RegionKind::kAfterLastRule:
      if (nrules >= 1) {
        *first = rule_rows_.back() + 1;
        *last = last_nonblank_;
      }
      break;
    case RegionKind::kPromptBox:
      if (nrules >= 2) {
        *first = rule_rows_[static_cast<size_t>(nrules - 2)] + 1;
        *last = rule_rows_.back() - 1;
      }
      break;
    case RegionKind::kAbovePromptBox:
    case RegionKind::kAboveLastRule: {
      int need = r.kind == RegionKind::kAbovePromptBox ? 2 : 1;
      if (nrules >= need) {
        *last = rule_rows_[static_cast<size_t>(nrules - need)] - 1;
        int want = r.lines;
        int f = *last + 1;
        while (f > 0 && want > 0) {
          --f;
          if (lines_[static_cast<size_t>(f)].find_first_not_of(' ') != std::string::npos)
            --want;
        }
        *first = f;
      }
      break;
    }
    case RegionKind::kAboveBottomLines:
      *last = last_nonblank_ - r.lines;
      break;
    case RegionKind::kWholeScreen:
      *last = last_nonblank_;
      break;
    case RegionKind::kDialog:
      *first = dialog_first_;
      *last = dialog_last_;
      break;
    case RegionKind::kTranscript:
      if (prompt_row_ >= 0) *last = prompt_row_ - 1;
      break;
    case RegionKind::kInput:
      if (prompt_row_ >= 0) {
        *first = prompt_row_;
        *last = last_nonblank_;
      }
      break;
    default:
      break;
  }
}

RegionText RegionCutter::Cut(const Region& r) const {
  RegionText out;
  auto single = [&out](std::string_view s) {
    out.starts.push_back(0);
    out.rows.push_back(-1);
    out.text.assign(s);
  };
  switch (r.kind) {
    case RegionKind::kTitle:
      if (in_.signals != nullptr) single(in_.signals->title);
      return out;
    case RegionKind::kNotification:
      if (in_.signals != nullptr) single(in_.signals->notification);
      return out;
    case RegionKind::kProgramStatus:
      if (in_.signals != nullptr) single(in_.signals->program_status);
      return out;
    case RegionKind::kOscProgress:
      if (in_.signals != nullptr && in_.signals->progress_state >= 0) {
        std::string s = std::to_string(in_.signals->progress_state);
        if (in_.signals->progress_value >= 0)
          s += ";" + std::to_string(in_.signals->progress_value);
        single(s);
      }
      return out;
    case RegionKind::kRawStream:
      single(in_.recent_output);
      return out;
    default:
      break;
  }
  int first = 0;
  int last = -1;
  Rows(r, &first, &last);
  for (int row = first; row <= last; ++row) {
    if (!out.starts.empty()) out.text.push_back('\n');
    out.starts.push_back(out.text.size());
    out.rows.push_back(row);
    out.text += lines_[static_cast<size_t>(row)];
  }
  return out;
}

}  // namespace agt::detect
