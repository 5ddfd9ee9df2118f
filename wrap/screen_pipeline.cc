// The output-analysis pipeline shared by the live proxy and replay (see
// screen_pipeline.h). Analysis is lazy: the screen is rendered only when an
// analysis is due and something was drawn since the last render.
#include "wrap/screen_pipeline.h"

namespace agt::wrap {

ScreenPipeline::ScreenPipeline(ScreenPipelineOptions opts,
                               std::unique_ptr<detect::Analyzer> analyzer)
    : opts_(std::move(opts)),
      analyzer_(std::move(analyzer)),
      screen_(opts_.rows, opts_.cols) {}

void ScreenPipeline::OnOutput(std::string_view bytes, core::TimeNs now) {
  if (bytes.empty()) return;
  scanner_.Feed(bytes, now);
  screen_.Feed(bytes);
  last_output_ = now;
  if (pending_ == 0) pending_ = now + opts_.analysis_delay;
}

void ScreenPipeline::OnInput(core::TimeNs now) {
  last_input_ = now;
}

void ScreenPipeline::OnResize(int rows, int cols) {
  screen_.Resize(rows, cols);
  opts_.rows = rows;
  opts_.cols = cols;
}

core::TimeNs ScreenPipeline::next_analysis() const {
  if (pending_ != 0 && recheck_ != 0) return std::min(pending_, recheck_);
  return pending_ != 0 ? pending_ : recheck_;
}

std::optional<core::Signal> ScreenPipeline::Analyze(core::TimeNs now) {
  pending_ = 0;
  recheck_ = 0;
  if (!have_cached_ || screen_.dirty()) {
    cached_ = screen_.Snapshot();
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

}  // namespace agt::wrap
