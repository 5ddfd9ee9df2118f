// Benchmark: how many events per second Engine::Apply sustains in memory
// (goal >= 1,000,000/s). The stream is generated up front and looks like a
// busy daemon: 600 agent panes on three targets, wrapped and unwrapped,
// wrapper events with sequence numbers, hooks (bound by runtime_id and by
// pane+pid), poller captures, 1 % duplicates, runtimes replaced now and
// then, a health flap. Each repetition applies the whole stream to a fresh
// engine; min/median/max are printed, with the ratio to a baseline measured
// in the same run: the floor any engine pays per event (one hash lookup of
// the runtime and copying the event into an Effects). Apply (a fresh Effects
// per event) and ApplyInto (one Effects reused across calls, its rows
// overwritten in place; what agtmuxd's ingest calls, into a batch it keeps)
// are measured separately.
//
// Usage: engine_apply_bench [events [repetitions]] (defaults 400000 and 7);
// a smaller run is what callgrind is pointed at.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "state/engine.h"

namespace {

using agt::core::Event;
using agt::core::kNsPerSec;
using agt::core::Source;
using agt::core::State;
using agt::core::TimeNs;
namespace et = agt::core::event_type;

constexpr TimeNs kT0 = 1'700'000'000LL * kNsPerSec;
constexpr int kPanes = 600;
int g_events = 400'000;  // set from argv in main
int g_reps = 7;

std::string Hex(uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = d[v & 15];
  return s;
}

struct PaneGen {
  std::string target, pane, runtime;
  int64_t pid = 0;
  int64_t seq = 0;
  bool wrapped = false;
};

std::vector<Event> Generate() {
  std::mt19937_64 rng(42);
  std::vector<PaneGen> panes(kPanes);
  std::vector<Event> out;
  out.reserve(g_events + kPanes * 2);
  TimeNs now = kT0;
  uint64_t n = 0;
  auto base = [&](std::string_view type, Source src) {
    Event e;
    e.event_type = type;
    e.source = src;
    e.event_id = "01J" + Hex(++n) + "XXXXXXX";
    e.dedupe_key = Hex(rng()) + Hex(rng()) + Hex(rng()) + Hex(rng());
    now += 1000;  // 1 µs apart
    e.event_time = now - 20'000;
    e.ingested_at = now;
    return e;
  };
  auto start = [&](PaneGen& p) {
    p.pid = 1000 + static_cast<int64_t>(rng() % 1'000'000);
    p.seq = 0;
    Event e = base(p.wrapped ? et::kWrapperStarted : et::kRuntimeObserved, p.wrapped ? Source::kWrapper : Source::kPoller);
    e.target_id = p.target;
    e.pane_id = p.pane;
    e.pid = p.pid;
    agt::core::RuntimeInfo info;
    info.agent_type = "claude";
    info.boot_id = "boot-" + p.target;
    info.started_at = now - 1000;
    e.runtime = info;
    if (p.wrapped) e.runtime_id = p.runtime = Hex(rng()) + Hex(rng()) + Hex(rng()) + Hex(rng());
    out.push_back(std::move(e));
  };
  for (int i = 0; i < kPanes; ++i) {
    panes[i].target = i % 3 == 0 ? "host" : (i % 3 == 1 ? "vm-a" : "vm-b");
    panes[i].pane = "%" + std::to_string(i);
    panes[i].wrapped = i % 2 == 0;
    start(panes[i]);
  }
  // Observed runtimes' ids come from the engine (the poller asks it).
  agt::state::Engine probe;
  for (const Event& e : out) probe.Apply(e, e.ingested_at);
  for (PaneGen& p : panes) {
    if (!p.wrapped) p.runtime = probe.ActiveRuntime(p.target, p.pane)->runtime_id;
  }
  static const State kStates[] = {State::kRunning, State::kRunning, State::kWaitingApproval,
                                  State::kWaitingInput, State::kCompleted, State::kIdle};
  while (static_cast<int>(out.size()) < g_events) {
    PaneGen& p = panes[rng() % kPanes];
    uint64_t r = rng() % 1000;
    if (r < 10 && !out.empty()) {  // 1 % exact duplicates (spool re-sends)
      out.push_back(out[rng() % out.size()]);
      continue;
    }
    if (r < 12) {  // a runtime replaced
      if (!p.wrapped) {
        // the collector's view: a new pid
      }
      start(p);
      if (!p.wrapped) {
        probe.Apply(out.back(), out.back().ingested_at);
        p.runtime = probe.ActiveRuntime(p.target, p.pane)->runtime_id;
      }
      continue;
    }
    if (r < 13) {
      Event e = base(et::kTargetHealthChanged, Source::kPoller);
      e.target_id = "vm-b";
      e.health = (rng() & 1) ? "down" : "ok";
      out.push_back(std::move(e));
      continue;
    }
    Source src = p.wrapped ? (r < 600 ? Source::kWrapper : Source::kHook) : (r < 500 ? Source::kPoller : Source::kHook);
    Event e = base(et::kStateChanged, src);
    agt::core::Signal sig;
    sig.state = kStates[rng() % 6];
    sig.confidence = agt::core::Confidence::kHigh;
    sig.rule_id = "claude.rule";
    sig.evidence = "Do you want to proceed?";
    e.signal = std::move(sig);
    if (src == Source::kWrapper) e.source_seq = ++p.seq;
    if (src == Source::kHook && !p.wrapped && r % 2 == 0) {
      e.target_id = p.target;  // unbound hook: bound by pane + pid
      e.pane_id = p.pane;
      e.pid = p.pid;
    } else {
      e.runtime_id = p.runtime;
    }
    out.push_back(std::move(e));
  }
  return out;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// CPU time of this thread: on a shared machine the wall clock also counts
// the time other processes held the core.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void Print(const char* name, const char* unit, std::vector<double> rates) {
  std::sort(rates.begin(), rates.end());
  std::printf("%-36s %-15s min %11.0f  median %11.0f  max %11.0f\n", name, unit, rates.front(),
              rates[rates.size() / 2], rates.back());
}

// Returns the median events per CPU-second.
template <typename F>
double Measure(const char* name, const std::vector<Event>& events, F&& run) {
  run();  // warm-up
  std::vector<double> wall, cpu;
  for (int i = 0; i < g_reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    double c0 = ThreadCpuSeconds();
    run();
    double c = ThreadCpuSeconds() - c0;
    double s = Seconds(std::chrono::steady_clock::now() - t0);
    wall.push_back(static_cast<double>(events.size()) / s);
    cpu.push_back(static_cast<double>(events.size()) / c);
  }
  Print(name, "events/wall-s", wall);
  Print(name, "events/cpu-s", cpu);
  std::sort(cpu.begin(), cpu.end());
  return cpu[cpu.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_events = std::max(kPanes * 2, std::atoi(argv[1]));
  if (argc > 2) g_reps = std::max(1, std::atoi(argv[2]));
  const std::vector<Event> events = Generate();
  std::printf("engine apply: %zu events, %d panes, %d repetitions after 1 warm-up\n", events.size(), kPanes, g_reps);
  size_t sink = 0;
  auto baseline = Measure("baseline (lookup + copy to Effects)", events, [&] {
    std::unordered_map<std::string, int> rts;
    for (const Event& e : events) {
      agt::state::Effects fx;
      fx.stored_event = e;
      sink += rts[e.runtime_id]++;
      sink += fx.stored_event->dedupe_key.size();
    }
  });
  auto engine = Measure("Engine::Apply", events, [&] {
    agt::state::Engine eng;
    for (const Event& e : events) {
      agt::state::Effects fx = eng.Apply(e, e.ingested_at);
      sink += fx.states.size();
    }
  });
  // One Effects reused across calls (Engine::ApplyInto).
  auto into = Measure("Engine::ApplyInto (reused Effects)", events, [&] {
    agt::state::Engine eng;
    agt::state::Effects fx;
    for (const Event& e : events) {
      eng.ApplyInto(e, e.ingested_at, &fx);
      sink += fx.states.size();
    }
  });
  std::printf("ratio Apply/baseline (median, cpu): %.3f   ApplyInto/baseline: %.3f   (goal: >= 1,000,000 events/s)\n",
              engine / baseline, into / baseline);
  std::printf("checksum %zu\n", sink);
  return 0;
}
