// The output-analysis pipeline shared by the live proxy and replay (see
// screen_pipeline.h). Analysis is lazy: the screen is rendered only when an
// analysis is due and something was drawn since the last render.
#include "libagtcore/screen/screen_pipeline.h"

#include <algorithm>
#include <cstring>

namespace agt::screen {

ScreenPipeline::ScreenPipeline(ScreenPipelineOptions opts,
                               std::unique_ptr<detect::Analyzer> analyzer)
    : opts_(std::move(opts)),
      analyzer_(std::move(analyzer)),
      screen_(std::make_unique<VtermScreen>(opts_.rows, opts_.cols)) {}

void ScreenPipeline::OnOutput(std::string_view bytes, core::TimeNs now) {
  if (bytes.empty()) return;
  scanner_.Feed(bytes, now);
  if (!flooding_) {
    // Draw up to the line budget of this analysis window; the rest floods.
    const int budget = opts_.rows * opts_.flood_screens - window_lines_;
    size_t cut = 0;
    int lines = 0;
    while (lines < budget) {
      const void* nl = std::memchr(bytes.data() + cut, '\n', bytes.size() - cut);
      if (nl == nullptr) {
        cut = bytes.size();
        break;
      }
      cut = static_cast<size_t>(static_cast<const char*>(nl) - bytes.data()) + 1;
      ++lines;
    }
    if (lines >= budget && budget >= 0 && cut < bytes.size()) {
      screen_->Feed(bytes.substr(0, cut));
      window_lines_ += lines;
      flooding_ = true;
      bytes.remove_prefix(cut);
    } else {
      screen_->Feed(bytes);
      window_lines_ += lines;
      bytes = {};
    }
  }
  if (flooding_ && !bytes.empty()) KeepTail(bytes);
  last_output_ = now;
  if (pending_ == 0) pending_ = now + opts_.analysis_delay;
}

void ScreenPipeline::KeepTail(std::string_view bytes) {
  // A ring of the last flood_tail bytes: each byte of a flood is copied
  // once, never moved again (this runs for every read of a bulk output).
  const size_t cap = opts_.flood_tail;
  if (cap == 0) return;
  if (flood_ring_.size() != cap) {
    flood_ring_.assign(cap, '\0');
    ring_head_ = 0;
    ring_len_ = 0;
  }
  if (bytes.size() >= cap) {
    bytes.remove_prefix(bytes.size() - cap);
    std::memcpy(flood_ring_.data(), bytes.data(), cap);
    ring_head_ = 0;
    ring_len_ = cap;
    return;
  }
  const size_t end = (ring_head_ + ring_len_) % cap;
  const size_t first = std::min(bytes.size(), cap - end);
  std::memcpy(flood_ring_.data() + end, bytes.data(), first);
  std::memcpy(flood_ring_.data(), bytes.data() + first, bytes.size() - first);
  ring_len_ += bytes.size();
  if (ring_len_ > cap) {
    ring_head_ = (ring_head_ + ring_len_ - cap) % cap;
    ring_len_ = cap;
  }
}

void ScreenPipeline::OnInput(core::TimeNs now) {
  last_input_ = now;
}

void ScreenPipeline::OnResize(int rows, int cols) {
  screen_->Resize(rows, cols);
  opts_.rows = rows;
  opts_.cols = cols;
}

bool ScreenPipeline::Seed(std::string_view seed, int rows, int cols, core::TimeNs now) {
  CatchUp();
  auto fresh = std::make_unique<VtermScreen>(rows, cols);
  fresh->Feed(seed);
  const detect::Screen next = fresh->Snapshot();
  const detect::Screen cur = screen_->Snapshot();
  const bool same = cur.rows == next.rows && cur.cols == next.cols && cur.lines == next.lines &&
                    cur.cursor_row == next.cursor_row && cur.cursor_col == next.cursor_col &&
                    cur.alt_screen == next.alt_screen;
  if (!same) {
    screen_ = std::move(fresh);
    opts_.rows = rows;
    opts_.cols = cols;
  }
  cached_ = same ? cur : next;  // both Snapshot()s cleared the dirty mark
  have_cached_ = true;
  pending_ = now;
  return !same;
}

core::TimeNs ScreenPipeline::next_analysis() const {
  if (pending_ != 0 && recheck_ != 0) return std::min(pending_, recheck_);
  return pending_ != 0 ? pending_ : recheck_;
}

void ScreenPipeline::CatchUp() {
  window_lines_ = 0;
  if (!flooding_) return;
  flooding_ = false;
  flood_tail_.clear();
  const size_t first = std::min(ring_len_, flood_ring_.size() - ring_head_);
  flood_tail_.append(flood_ring_, ring_head_, first);
  flood_tail_.append(flood_ring_, 0, ring_len_ - first);
  ring_head_ = 0;
  ring_len_ = 0;
  // Start at a line start, so the tail does not begin inside an escape
  // sequence or a glyph; a tail with no newline is fed as it is.
  std::string_view tail = flood_tail_;
  // Only the lines that can still be on screen: every earlier line would
  // cost a whole-screen scroll for nothing.
  size_t start = tail.size();
  for (int lines = 0; lines <= opts_.rows && start > 0; ++lines) {
    const size_t nl = tail.rfind('\n', start - 1);
    if (nl == std::string_view::npos) {
      start = std::string_view::npos;
      break;
    }
    start = nl;
  }
  if (start == std::string_view::npos) {
    const size_t nl = tail.find('\n');  // fewer lines than rows: from the first line start
    if (nl != std::string_view::npos) tail.remove_prefix(nl + 1);
  } else {
    tail.remove_prefix(start + 1);
  }
  screen_->Feed(tail);
  flood_tail_.clear();
}

std::optional<core::Signal> ScreenPipeline::Analyze(core::TimeNs now) {
  pending_ = 0;
  recheck_ = 0;
  CatchUp();
  if (!have_cached_ || screen_->dirty()) {
    cached_ = screen_->Snapshot();
    have_cached_ = true;
  }
  detect::AnalyzerInput in;
  in.screen = &cached_;
  in.signals = &scanner_.signals();
  in.agent_type = opts_.agent_type;
  in.recent_output = scanner_.recent_output();
  in.now = now;
  in.last_output = last_output_;
  in.last_input = last_input_;
  in.captured = false;
  detect::Verdict v = analyzer_->Analyze(in);
  if (v.recheck_at > now) recheck_ = v.recheck_at;
  const core::Signal& s = v.signal;
  const bool changed = !reported_ || s.state != last_.state ||
                       s.reason_code != last_.reason_code || s.rule_id != last_.rule_id ||
                       s.confidence != last_.confidence || s.detail != last_.detail;
  if (!changed) return std::nullopt;
  reported_ = true;
  last_ = s;
  return s;
}

}  // namespace agt::screen
