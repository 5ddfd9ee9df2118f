// Recording replay (see replay.h). Analyses that the live proxy would have
// run on a timer between two recorded events run here at the same virtual
// times, so the timeline does not depend on how fast the replay goes.
#include "wrap/replay.h"

#include <cstdio>

#include "wrap/analyzer_factory.h"
#include "libagtcore/screen/screen_pipeline.h"

namespace agt::wrap {

ReplayResult Replay(const Cast& cast, std::string_view agent_type) {
  const std::string agent = agent_type.empty() ? "generic" : std::string(agent_type);
  return Replay(cast, agent, MakeAnalyzer(agent));
}

ReplayResult Replay(const Cast& cast, std::string_view agent_type,
                    std::unique_ptr<detect::Analyzer> analyzer) {
  screen::ScreenPipelineOptions opts;
  opts.rows = cast.header.height;
  opts.cols = cast.header.width;
  opts.agent_type = agent_type.empty() ? "generic" : std::string(agent_type);
  screen::ScreenPipeline pipe(opts, std::move(analyzer));
  ReplayResult out;

  // Times start at 1 so that "0 = never" in the analyzer input stays true.
  constexpr core::TimeNs kEpoch = 1;
  auto run_due = [&](core::TimeNs until) {
    for (core::TimeNs due = pipe.next_analysis(); due != 0 && due <= until;
         due = pipe.next_analysis()) {
      if (auto s = pipe.Analyze(due)) out.timeline.push_back({due - kEpoch, *s});
    }
  };
  for (const CastEvent& ev : cast.events) {
    const core::TimeNs t = ev.at + kEpoch;
    run_due(t);
    if (ev.code == 'o') {
      pipe.OnOutput(ev.data, t);
    } else if (ev.code == 'i') {
      pipe.OnInput(t);
    } else if (ev.code == 'r') {
      int cols = 0, rows = 0;
      if (ParseCastSize(ev.data, &cols, &rows)) pipe.OnResize(rows, cols);
    }
  }
  // Let every pending analysis and recheck run (they stop by themselves).
  for (int i = 0; i < 1000 && pipe.next_analysis() != 0; ++i) {
    const core::TimeNs due = pipe.next_analysis();
    if (auto s = pipe.Analyze(due)) out.timeline.push_back({due - kEpoch, *s});
  }
  out.final_screen = pipe.Snapshot();
  out.signals = pipe.scanner().signals();
  return out;
}

std::string FormatTimeline(const std::vector<TimelineEntry>& timeline) {
  std::string out;
  for (const TimelineEntry& e : timeline) {
    char t[32];
    std::snprintf(t, sizeof t, "%9.3fs", static_cast<double>(e.at) / 1e9);
    out += t;
    out += "  ";
    out += core::StateName(e.signal.state);
    out += "  ";
    out += core::ConfidenceName(e.signal.confidence);
    out += "  ";
    out += e.signal.rule_id.empty() ? "-" : e.signal.rule_id;
    if (!e.signal.reason_code.empty()) out += "  reason=" + e.signal.reason_code;
    if (!e.signal.detail.approval_type.empty())
      out += "  approval=" + e.signal.detail.approval_type;
    if (!e.signal.evidence.empty()) out += "  | " + e.signal.evidence;
    out += '\n';
  }
  return out;
}

}  // namespace agt::wrap
