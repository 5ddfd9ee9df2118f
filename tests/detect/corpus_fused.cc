// The fused replay of a hooks-variant fixture (tests/fixtures/README.md,
// "hooks.jsonl"): the pane's state as agtmuxd decides it from the screen and
// the hooks together. The real parts do the work: the screen verdicts become
// events through the wrapper's own WrapperEvents (PTY: the cast through the
// wrapper's pipeline) or through the daemon's Poller and RuntimeTracker (CAP:
// the snapshots as captures, scheduled by the poller like live), the recorded
// hook events are decoded with the daemon's event codec and their payloads
// mapped again by the hook's own code (cli/hook_payload.h), and state::Engine
// resolves them, each stamped with the lab's clock as its ingested_at.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <set>

#include "aggregator/ingest/daemon_core.h"
#include "aggregator/observe/collector.h"
#include "aggregator/observe/collector_runtimes.h"
#include "aggregator/observe/poller.h"
#include "cli/hook/hook_payload.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/event_codec.h"
#include "libagtcore/vocabulary.h"
#include "state/engine.h"
#include "tests/detect/corpus.h"
#include "wrap/wrapper_events.h"
#include "tests/base/fake_clock.h"

namespace agt::detect::corpus {
namespace {

using core::TimeNs;

// Engine input in time order: what arrives at agtmuxd when.
struct Arrival {
  TimeNs at = 0;
  int order = 0;  // ties: runtime first, then screen, then hooks
  core::Event event;
};

TimeNs At(TimeNs base, double t) { return base + static_cast<TimeNs>(t * 1e9); }

core::Result<double> StartWall(const std::string& dir) {
  auto text = ReadTextFile(dir + "/scenario.json");
  if (!text.ok()) return text.error();
  rapidjson::Document d;
  d.Parse(text->data(), text->size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("recording") ||
      !d["recording"].IsObject() || !d["recording"].HasMember("start_wall") ||
      !d["recording"]["start_wall"].IsNumber())
    return core::MakeError(core::Err::kPayloadInvalid,
                           dir + "/scenario.json: no recording.start_wall");
  return d["recording"]["start_wall"].GetDouble();
}

// The poller's sink: the engine, and the daemon's own rule for who owns a
// pane (agg::FresherOwner, as DaemonCore asks it) with the daemon's default
// freshness (CoreOptions::fresh_owner).
class EngineSink final : public agg::CollectorSink {
 public:
  EngineSink(const state::Engine& engine, const TimeNs& now) : engine_(engine), now_(now) {}
  void OnTopology(const agg::Topology&) override {}
  void OnEvent(core::Event event) override { out.push_back(std::move(event)); }
  agg::PaneOwner OwnerOf(const std::string& target_id, const std::string& pane_id) const override {
    const state::Runtime* rt = engine_.ActiveRuntime(target_id, pane_id);
    if (rt == nullptr) return agg::PaneOwner::kNone;
    return agg::FresherOwner(*rt, engine_.Candidates(rt->runtime_id), now_, agg::CoreOptions{}.fresh_owner);
  }
  std::vector<core::Event> out;

 private:
  const state::Engine& engine_;
  const TimeNs& now_;
};

// The event today's `agtmux hook` would make of a recorded event's payload.
core::Result<core::Event> Remap(const core::Event& recorded) {
  const std::string& type = recorded.event_type;
  const std::string agent = type.substr(0, type.find('.'));
  auto kind = cli::ParseHookKind(agent == "codex" ? "codex-notify" : agent);
  if (!kind) return core::MakeError(core::Err::kPayloadInvalid, "no hook kind for " + type);
  cli::HookContext ctx;
  ctx.tmux_pane = recorded.pane_id;
  ctx.target_id = recorded.target_id;
  if (recorded.runtime) ctx.tmux_socket = recorded.runtime->tmux_socket;
  ctx.now = recorded.event_time;
  return cli::NormalizeHook(*kind, recorded.raw_payload, ctx);
}

}  // namespace


core::Result<std::vector<HookRecord>> LoadHooks(const std::string& dir) {
  std::vector<HookRecord> out;
  auto st = ForEachJsonLine(dir + "/hooks.jsonl", [&](const rapidjson::Document& d) {
    if (!d.HasMember("event") || !d["event"].IsObject())
      return core::Status(core::MakeError(core::Err::kPayloadInvalid, "no \"event\" object"));
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    d["event"].Accept(w);
    auto ev = core::DecodeEvent(std::string_view(sb.GetString(), sb.GetSize()));
    if (!ev.ok()) return core::Status(ev.error());
    out.push_back({d["t"].GetDouble(), std::move(ev).value()});
    return core::Ok();
  });
  if (!st.ok()) return st.error();
  return out;
}

core::Result<Timeline> ReplayFused(const Fixture& f, std::shared_ptr<const PatternLibrary> lib,
                                   bool pty, double* end) {
  auto hooks = LoadHooks(f.dir);
  if (!hooks.ok()) return hooks.error();
  auto wall = StartWall(f.dir);
  if (!wall.ok()) return wall.error();
  const TimeNs base = static_cast<TimeNs>(*wall * 1e9);
  std::string target_id = "host";
  std::string pane_id = "%0";
  for (const auto& h : *hooks) {
    target_id = h.event.target_id;
    pane_id = h.event.pane_id;
    break;
  }
  double exit_t = -1;
  for (const auto& e : f.truth)
    if (e.source == "agent_exit") exit_t = e.t;

  std::vector<Arrival> arrivals;
  state::Engine engine;
  TimeNs now = base;
  EngineSink sink(engine, now);

  // The screen's side.
  std::string runtime_id;
  if (pty) {
    auto screen = ReplayPty(f, lib, end);
    if (!screen.ok()) return screen.error();
    core::FakeClock clock(base);
    wrap::IdentityInputs in;
    in.agent_type = f.agent;
    in.argv = {f.agent};
    in.cwd = "/tmp/agtmux-lab";
    in.tmux_pane = pane_id;
    in.wrapper_pid = 1;
    in.started_at = base;
    wrap::WrapperEvents wrapper(wrap::MakeIdentity(in, ""), clock);
    runtime_id = wrapper.identity().runtime_id;
    arrivals.push_back({base, 0, wrapper.Started()});
    for (const Point& p : *screen) {
      if (p.signal.rule_id == "wrapper.exited") continue;  // the exit itself follows
      clock.Set(At(base, p.t));
      arrivals.push_back({clock.Now(), 1, wrapper.StateChanged(p.signal)});
    }
    if (exit_t >= 0) {
      clock.Set(At(base, exit_t));
      core::ExitInfo x;
      x.code = 0;
      arrivals.push_back({clock.Now(), 1, wrapper.Exited(x)});
    }
  }
  // Hook events as agtmuxd got them; wrapped, they carry the wrapper's
  // runtime (AGTMUX_RUNTIME_ID in the hook's environment). What each payload
  // means is decided again by today's mapping (cli/hook_payload.h), so a
  // change of it shows here without recording again; the event's identity
  // (ids, dedupe key, times) stays the recorded one.
  for (const auto& h : *hooks) {
    core::Event e = h.event;
    auto mapped = Remap(e);
    if (!mapped.ok())
      return core::MakeError(core::Err::kPayloadInvalid, f.dir + "/hooks.jsonl: " +
                                                             e.event_type + ": " +
                                                             mapped.error().message);
    e.event_type = mapped->event_type;
    e.signal = mapped->signal;
    if (pty) e.runtime_id = runtime_id;
    arrivals.push_back({At(base, h.t), 2, std::move(e)});
  }
  std::stable_sort(arrivals.begin(), arrivals.end(), [](const Arrival& a, const Arrival& b) {
    return a.at != b.at ? a.at < b.at : a.order < b.order;
  });

  Timeline out;
  auto record = [&](TimeNs t) {
    const state::PaneState* ps = engine.FindPane(target_id, pane_id);
    core::Signal s;
    if (ps != nullptr) s = ps->signal;
    if (ps == nullptr || ps->runtime_id.empty()) {
      s = core::Signal{};
      s.state = core::State::kUnknown;
      s.reason_code = "no_agent";
    }
    if (out.empty() || !(out.back().signal.state == s.state &&
                         out.back().signal.rule_id == s.rule_id &&
                         out.back().signal.detail == s.detail))
      out.push_back({static_cast<double>(t - base) / 1e9, s});
  };
  auto apply = [&](core::Event e, TimeNs t) {
    now = t;
    e.ingested_at = t;
    engine.Apply(e, t);
    engine.Tick(t);
    record(t);
  };

  if (pty) {
    for (auto& a : arrivals) apply(std::move(a.event), a.at);
    return out;
  }

  // CAP: the observer announces the agent pane, the poller captures it
  // 50 ms after each change (burst settle) and sends what it reads.
  agg::RuntimeTracker tracker(target_id, "fused");
  agg::Topology topo;
  topo.target_id = target_id;
  topo.server_running = true;
  topo.boot_id = "lab";
  agg::PaneInfo pane;
  pane.target_id = target_id;
  pane.pane_id = pane_id;
  pane.pid = 1;
  pane.agent_type = f.agent;
  pane.agent_pid = 2;
  topo.panes.push_back(pane);
  for (auto& e : tracker.Update(topo, {}, {}, base)) apply(std::move(e), base);
  agg::Poller poller(
      target_id, "fused", agg::PollerOptions{},
      [&](std::string_view agent) -> std::unique_ptr<Analyzer> {
        return CreateAnalyzer(lib, agent, AnalyzerOptions{});
      },
      sink);
  agg::PolledPane polled;
  polled.pane_id = pane_id;
  polled.agent_type = f.agent;
  polled.agent_pid = 2;
  polled.rows = 40;
  polled.cols = 120;
  poller.SetPanes({polled}, base);
  auto flush = [&](TimeNs t) {
    auto evs = std::move(sink.out);
    sink.out.clear();
    for (auto& e : evs) apply(std::move(e), t);
  };
  size_t next_hook = 0;
  // Snapshots drawn by now. Before the first one the pane shows nothing the
  // recorder kept (the screen from before the cast): a capture then reads a
  // blank pane, never a screen that is drawn later.
  size_t drawn = 0;
  auto screen_text = [&] {
    std::string s;
    if (drawn > 0)
      for (const auto& l : f.snapshots[drawn - 1].lines) s += l + "\n";
    return s;
  };
  const TimeNs stop = At(base, std::max(exit_t, f.snapshots.empty() ? 0.0 : f.snapshots.back().t));
  // From `base` on, as the daemon's loop: the new pane is captured at once
  // (the poller's first capture of a pane is due when it appears).
  for (TimeNs t = base;;) {
    now = t;
    while (drawn < f.snapshots.size() && At(base, f.snapshots[drawn].t) <= t) {
      ++drawn;
      poller.MarkChanged(pane_id, t);  // tmux's %output
    }
    while (next_hook < arrivals.size() && arrivals[next_hook].at <= t)
      apply(std::move(arrivals[next_hook++].event), t);
    for (const auto& id : poller.TakeDueCaptures(t)) poller.OnCapture(id, screen_text(), t);
    poller.Tick(t);
    flush(t);
    // what happens next: a screen change, a hook, a capture or recheck due
    TimeNs next = stop + 1;
    if (drawn < f.snapshots.size()) next = std::min(next, At(base, f.snapshots[drawn].t));
    if (next_hook < arrivals.size()) next = std::min(next, arrivals[next_hook].at);
    if (TimeNs d = poller.NextDeadline(); d != 0 && d > t) next = std::min(next, d);
    if (next > stop) break;
    t = next;
  }
  if (exit_t >= 0) {
    topo.panes.clear();
    for (auto& e : tracker.Update(topo, {}, {}, At(base, exit_t))) apply(std::move(e), At(base, exit_t));
  }
  double last = out.empty() ? 0 : out.back().t;
  *end = std::max({*end, last, f.truth.empty() ? 0.0 : f.truth.back().t});
  return out;
}

}  // namespace agt::detect::corpus
