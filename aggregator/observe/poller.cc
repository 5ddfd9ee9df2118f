// The CAP poller's scheduling and change detection (see poller.h).
#include "aggregator/observe/poller.h"

#include <algorithm>

#include "libagtcore/ids.h"

namespace agt::agg {

Poller::Poller(std::string target_id, std::string instance, PollerOptions options,
               AnalyzerFactory factory, CollectorSink& sink)
    : target_id_(std::move(target_id)),
      instance_(std::move(instance)),
      options_(options),
      factory_(std::move(factory)),
      sink_(sink) {}

bool VerdictChanged(const core::Signal& a, const core::Signal& b) {
  return a.state != b.state || a.reason_code != b.reason_code || a.rule_id != b.rule_id ||
         a.confidence != b.confidence || !(a.detail == b.detail);
}

namespace {

enum class Kind { kWait, kWork, kRest, kOther };

Kind KindOf(core::State s) {
  if (core::NeedsAction(s)) return Kind::kWait;
  if (s == core::State::kRunning) return Kind::kWork;
  if (s == core::State::kIdle || s == core::State::kCompleted) return Kind::kRest;
  return Kind::kOther;
}

}  // namespace

bool ContradictsHooks(const core::Signal& hook, const core::Signal& screen) {
  const Kind h = KindOf(hook.state);
  const Kind s = KindOf(screen.state);
  return h != Kind::kOther && s != Kind::kOther && h != s;
}

void Poller::SetPanes(const std::vector<PolledPane>& panes, TimeNs now) {
  std::map<std::string, Pane> next;
  for (const auto& info : panes) {
    auto it = panes_.find(info.pane_id);
    if (it != panes_.end() && it->second.info.agent_type == info.agent_type &&
        it->second.info.agent_pid == info.agent_pid) {
      Pane p = std::move(it->second);
      bool title_changed = p.info.title != info.title;
      if (p.pipe && (p.info.rows != info.rows || p.info.cols != info.cols)) {
        // tmux reflowed the pane its own way; the program redraws for the
        // new size on top of that: seed again from tmux's screen.
        p.pipe->OnResize(info.rows, info.cols);
        p.force_seed = true;
        p.marked = true;
        p.marked_at = now;
      }
      p.info = info;
      if (title_changed && p.have_screen) p.recheck_at = now;  // the title is a signal too
      next.emplace(info.pane_id, std::move(p));
      continue;
    }
    Pane p;
    p.info = info;
    p.unreadable = detect::StuckUnknownWatch(options_.keep_after);
    p.analyzer = factory_ ? factory_(info.agent_type) : nullptr;
    p.interval = options_.active_interval;
    next.emplace(info.pane_id, std::move(p));
  }
  panes_ = std::move(next);
}

void Poller::MarkChanged(const std::string& pane_id, TimeNs now) {
  auto it = panes_.find(pane_id);
  if (it == panes_.end() || it->second.marked) return;
  it->second.marked = true;
  it->second.marked_at = now;
}

void Poller::SetBytePanes(const std::set<std::string>& panes, TimeNs now) {
  for (auto& [id, p] : panes_) {
    const bool ok = options_.byte_screens && panes.count(id) != 0;
    if (ok == p.bytes_ok) continue;
    p.bytes_ok = ok;
    p.pipe.reset();
    p.force_seed = false;
    p.seed_forced = false;
    if (ok) {  // seed it now
      p.marked = true;
      p.marked_at = now;
    }
    p.interval = ok ? options_.check_interval : options_.active_interval;
  }
}

void Poller::OnOutput(const std::string& pane_id, std::string_view bytes, TimeNs now) {
  auto it = panes_.find(pane_id);
  if (it == panes_.end()) return;
  Pane& p = it->second;
  if (p.pipe && p.bytes_ok) p.pipe->OnOutput(bytes, now);
  MarkChanged(pane_id, now);
}

void Poller::Resync(const std::string& pane_id, TimeNs now) {
  auto it = panes_.find(pane_id);
  if (it == panes_.end() || !it->second.bytes_ok) return;
  it->second.force_seed = true;
  it->second.marked = true;
  it->second.marked_at = now;
}

bool Poller::WantsSeed(const std::string& pane_id) const {
  auto it = panes_.find(pane_id);
  return it != panes_.end() && it->second.bytes_ok;
}

TimeNs Poller::DueAt(const Pane& p) const {
  if (p.bytes_ok) {
    // A seed is due at once; a check, its interval after the last capture.
    const TimeNs at = (!p.pipe || p.force_seed || p.last_capture == 0) ? std::max<TimeNs>(p.marked_at, 1)
                                                                       : p.last_capture + p.interval;
    return std::max(at, p.owned_until);
  }
  const TimeNs after_interval = p.last_capture == 0 ? 1 : p.last_capture + p.interval;
  return std::max({after_interval, p.marked_at + options_.burst_settle, p.owned_until});
}

std::vector<std::string> Poller::TakeDueCaptures(TimeNs now) {
  std::vector<std::string> due;
  for (auto& [id, p] : panes_) {
    if (!p.marked || p.in_flight) continue;
    if (now < DueAt(p)) continue;
    if (sink_.OwnerOf(target_id_, id) == PaneOwner::kWrapper) {
      p.emitted.reset();  // when ownership ends, the next verdict is sent
      p.pipe.reset();     // and a byte screen is seeded again
      p.owned_until = now + options_.owned_recheck;  // asked again then, not at every turn
      continue;
    }
    p.in_flight = true;
    p.marked = false;
    p.last_capture = now;
    // A loss or resize from here on needs a seed taken after it: the flag
    // is spent now, not when the reply comes.
    p.seed_forced = p.force_seed;
    p.force_seed = false;
    ++captures_;
    due.push_back(id);
  }
  return due;
}

void Poller::CaptureFailed(const std::string& pane_id) {
  auto it = panes_.find(pane_id);
  if (it == panes_.end()) return;
  Pane& p = it->second;
  p.in_flight = false;
  p.marked = true;
  if (p.seed_forced) p.force_seed = true;
  p.seed_forced = false;
}

void Poller::OnCapture(const std::string& pane_id, std::string_view text, TimeNs now) {
  auto it = panes_.find(pane_id);
  if (it == panes_.end()) return;
  Pane& p = it->second;
  p.in_flight = false;
  if (p.have_screen && text == p.text) {
    p.interval = std::min(p.interval * 2, options_.idle_interval_max);
  } else {
    p.interval = options_.active_interval;
    p.last_change = now;
    p.text = std::string(text);
    p.have_screen = true;
  }
  detect::Screen& s = p.screen;
  s.lines.clear();
  std::string_view t = p.text;
  while (!t.empty() && t.back() == '\n') t.remove_suffix(1);
  size_t st = 0;
  while (st <= t.size()) {
    size_t nl = t.find('\n', st);
    if (nl == std::string_view::npos) nl = t.size();
    std::string_view line = t.substr(st, nl - st);
    while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
    s.lines.emplace_back(line);
    st = nl + 1;
  }
  s.rows = p.info.rows > 0 ? p.info.rows : int(s.lines.size());
  s.cols = p.info.cols;
  s.cursor_row = p.info.cursor_row;
  s.cursor_col = p.info.cursor_col;
  s.alt_screen = p.info.alt_screen;
  Analyze(pane_id, p, now);
}

void Poller::OnSeed(const std::string& pane_id, const PaneSeed& seed, TimeNs now) {
  auto it = panes_.find(pane_id);
  if (it == panes_.end()) return;
  Pane& p = it->second;
  p.in_flight = false;
  const bool first = p.pipe == nullptr;
  if (first) {
    std::unique_ptr<detect::Analyzer> analyzer = factory_ ? factory_(p.info.agent_type) : nullptr;
    if (!analyzer) return;
    screen::ScreenPipelineOptions o;
    o.rows = seed.height;
    o.cols = seed.width;
    o.agent_type = p.info.agent_type;
    p.pipe = std::make_unique<screen::ScreenPipeline>(std::move(o), std::move(analyzer));
    p.pipe->SeedTitle(p.info.title, now);
  }
  const bool replaced = p.pipe->Seed(SeedBytes(seed), seed.height, seed.width, now);
  if (first) ++seeds_;
  else if (replaced && !p.seed_forced) ++resyncs_;  // the bytes had drawn something else
  p.seed_forced = false;
  p.interval = (first || replaced) ? options_.check_interval
                                   : std::min(p.interval * 2, options_.idle_interval_max);
  if (!p.bytes_ok) {
    // Its bytes stopped reaching us while the seed was under way: read
    // the seed as a plain capture.
    detect::Screen screen = p.pipe->Snapshot();
    p.pipe.reset();
    std::string text;
    for (const auto& line : screen.lines) text += line + "\n";
    OnCapture(pane_id, text, now);
    return;
  }
  Analyze(pane_id, p, now);
}

void Poller::Analyze(const std::string& pane_id, Pane& p, TimeNs now) {
  p.recheck_at = 0;
  if (p.pipe) {
    p.pipe->Analyze(now);
    ++byte_analyses_;
    ++analyses_;
    detect::Verdict v;
    v.signal = p.pipe->last_signal();
    Judge(pane_id, p, v, now);
    return;
  }
  AnalyzeCapture(pane_id, p, now);
}

void Poller::AnalyzeCapture(const std::string& pane_id, Pane& p, TimeNs now) {
  if (!p.analyzer || !p.have_screen) return;
  detect::StreamSignals signals;
  signals.title = p.info.title;
  signals.title_at = p.last_change;
  detect::AnalyzerInput in;
  in.screen = &p.screen;
  in.signals = &signals;
  in.agent_type = p.info.agent_type;
  in.now = now;
  in.last_output = p.last_change;
  in.captured = true;
  detect::Verdict v = p.analyzer->Analyze(in);
  ++analyses_;
  p.recheck_at = v.recheck_at > now ? v.recheck_at : 0;
  Judge(pane_id, p, v, now);
}

void Poller::Judge(const std::string& pane_id, Pane& p, const detect::Verdict& v, TimeNs now) {
  const PaneOwner owner = sink_.OwnerOf(target_id_, pane_id);
  if (owner == PaneOwner::kWrapper) {
    // No capture while the wrapper owns it: the last screen is not now's,
    // so it is judged neither unreadable nor contradicting.
    p.unreadable = detect::StuckUnknownWatch(options_.keep_after);
    p.contra_since = 0;
    p.contra_key.clear();
    p.emitted.reset();
    p.pipe.reset();  // seeded again when the wrapper is gone
    return;
  }
  if (const TimeNs again = Diagnose(pane_id, p, v.signal, now); again > now)
    p.recheck_at = p.recheck_at == 0 ? again : std::min(p.recheck_at, again);
  if (p.emitted && !VerdictChanged(*p.emitted, v.signal)) return;
  if (owner == PaneOwner::kHooks && !core::NeedsAction(v.signal.state) && !p.dialog_open) {
    p.emitted.reset();  // the hooks' to report; when they stop owning, it is sent
    return;
  }
  p.emitted = v.signal;
  if (core::NeedsAction(v.signal.state))
    p.dialog_open = true;
  else if (v.signal.state != core::State::kUnknown)
    p.dialog_open = false;  // a readable screen after the dialog: it went
  core::Event e;
  e.event_id = core::NewUlid(now);
  e.event_type = std::string(core::event_type::kStateChanged);
  e.source = core::Source::kPoller;
  e.source_event_id = "poller:" + instance_ + ":" + std::to_string(++seq_);
  std::string shown;  // what the verdict was read from, for the payload hash
  if (p.pipe) {
    for (const auto& line : p.pipe->analysed().lines) shown += line + "\n";
  }
  e.dedupe_key = core::DeriveDedupeKey(core::Source::kPoller, *e.source_event_id,
                                       core::Sha256Hex(p.pipe ? shown : p.text), e.event_type);
  e.event_time = now;
  e.target_id = target_id_;
  e.pane_id = pane_id;
  if (p.info.agent_pid > 0) e.pid = p.info.agent_pid;
  e.signal = v.signal;
  sink_.OnEvent(std::move(e));
}

detect::KeptScreen Poller::Kept(const std::string& pane_id, const Pane& p, const core::Signal& verdict,
                                std::string_view reason, TimeNs now) const {
  detect::KeptScreen k;
  k.kept_at = now;
  k.reason = std::string(reason);
  k.mode = "CAP";
  k.agent_type = p.info.agent_type;
  k.target_id = target_id_;
  k.pane_id = pane_id;
  k.state = verdict.state;
  k.reason_code = verdict.reason_code;
  k.rule_id = verdict.rule_id;
  k.title = p.info.title;  // the analyzer saw it too (tmux's pane_title)
  k.screen = p.pipe ? p.pipe->analysed() : p.screen;
  return k;
}

TimeNs Poller::Diagnose(const std::string& pane_id, Pane& p, const core::Signal& verdict, TimeNs now) {
  if (p.unreadable.Observe(verdict, now))
    sink_.KeepScreen(Kept(pane_id, p, verdict, detect::kKeptNoRule, now));
  TimeNs again = p.unreadable.deadline();
  const std::optional<core::Signal> hook = sink_.HookOpinion(target_id_, pane_id);
  if (!hook || !ContradictsHooks(*hook, verdict)) {
    p.contra_since = 0;
    p.contra_key.clear();
    p.contra_kept = false;
    return again;
  }
  const std::string key = std::string(core::StateName(hook->state)) + "/" + hook->rule_id + "/" +
                          std::string(core::StateName(verdict.state));
  if (key != p.contra_key) {
    p.contra_key = key;
    p.contra_since = now;
    p.contra_kept = false;
  }
  if (p.contra_kept) return again;
  if (now - p.contra_since >= options_.keep_after) {
    detect::KeptScreen k = Kept(pane_id, p, verdict, detect::kKeptContradiction, now);
    k.hook_state = hook->state;
    k.hook_rule_id = hook->rule_id;
    sink_.KeepScreen(std::move(k));
    p.contra_kept = true;
    return again;
  }
  const TimeNs due = p.contra_since + options_.keep_after;
  return again == 0 ? due : std::min(again, due);
}

void Poller::Tick(TimeNs now) {
  for (auto& [id, p] : panes_) {
    if (p.in_flight && !p.pipe) continue;
    const TimeNs bytes_due = p.pipe ? p.pipe->next_analysis() : 0;
    if ((p.recheck_at != 0 && now >= p.recheck_at) || (bytes_due != 0 && now >= bytes_due))
      Analyze(id, p, now);
  }
}

TimeNs Poller::NextDeadline() const {
  TimeNs best = 0;
  auto take = [&](TimeNs t) {
    if (t != 0 && (best == 0 || t < best)) best = t;
  };
  // Only what TakeDueCaptures and Tick act on when it is due: a deadline
  // that nothing consumes would be due again at once, forever.
  for (const auto& [id, p] : panes_) {
    if (p.pipe) take(p.pipe->next_analysis());  // a byte screen reads on while a check is out
    if (p.in_flight) continue;
    take(p.recheck_at);
    if (p.marked) take(DueAt(p));
  }
  return best;
}

}  // namespace agt::agg
