// The ssh target's collector (see collector_ssh.h): a timer or a control
// notification starts one scan at a time on the libuv thread pool; its
// results are applied on the loop.
#include "aggregator/observe/collector_ssh.h"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "aggregator/observe/tmux_format.h"
#include "aggregator/targets/base64.h"
#include "libagtcore/os/file_reader.h"
#include "libagtcore/ids.h"
#include "libagtcore/base/shell.h"
#include "libagtcore/base/text.h"

namespace agt::agg {
namespace {

std::string CaptureMark(const std::string& nonce) { return "==agtmux-capture-" + nonce + " "; }

uint64_t Ms(TimeNs ns) { return ns <= 0 ? 0 : uint64_t((ns + core::kNsPerMs - 1) / core::kNsPerMs); }

}  // namespace

std::string ProcSnapshotScript(const std::vector<int64_t>& pids) {
  std::string list;
  for (int64_t p : pids) list += (list.empty() ? "" : " ") + std::to_string(p);
  // tpgid is field 8 of stat; after the ") " that ends the command name,
  // the fields start at 3, so it is the sixth.
  return "d() { [ -r \"$1\" ] && { printf '==%s\\n' \"$1\"; base64 -w0 < \"$1\"; printf '\\n'; }; }\n"
         "d /proc/stat\n"
         "for p in " + list + "; do\n"
         "  d /proc/$p/stat; d /proc/$p/comm\n"
         "  t=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -d' ' -f6)\n"
         "  case \"$t\" in ''|*[!0-9]*) continue;; esac\n"
         "  [ \"$t\" -gt 0 ] || continue\n"
         "  d /proc/$t/stat; d /proc/$t/comm; d /proc/$t/cmdline\n"
         "done\n";
}

core::Result<std::map<std::string, std::string>> ParseProcSnapshot(std::string_view out) {
  std::map<std::string, std::string> files;
  std::vector<std::string_view> lines = core::SplitLines(out);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].substr(0, 2) != "==") continue;
    std::string path(lines[i].substr(2));
    std::string_view data = i + 1 < lines.size() ? lines[i + 1] : std::string_view();
    auto bytes = Base64Decode(data);
    if (!bytes) return core::MakeError(core::Err::kPayloadInvalid, path + ": " + bytes.error().message);
    files[path] = std::move(*bytes);
    ++i;
  }
  return files;
}

std::string CaptureScript(const std::vector<std::string>& tmux, const std::vector<std::string>& panes,
                          const std::string& nonce) {
  // The text goes out as capture-pane wrote it (every row, blank ones
  // included: rules look at the bottom rows), between a start line and an
  // end line carrying the exit status.
  const std::string mark = core::ShellQuote(CaptureMark(nonce));
  std::string script;
  for (const auto& p : panes) {
    std::vector<std::string> argv = tmux;
    argv.insert(argv.end(), {"capture-pane", "-p", "-t", p});
    const std::string pane = core::ShellQuote(p);
    script += "printf '%sbegin %s\\n' " + mark + " " + pane + "; " + core::ShellJoin(argv) +
              " 2>/dev/null; printf '\\n%send %s %s\\n' " + mark + " " + pane + " $?\n";
  }
  return script;
}

std::map<std::string, std::string> ParseCaptures(std::string_view out, const std::string& nonce) {
  const std::string begin = CaptureMark(nonce) + "begin ";
  const std::string end = CaptureMark(nonce) + "end ";
  std::map<std::string, std::string> captures;
  std::string pane, text;
  bool open = false;
  for (std::string_view line : core::SplitLines(out)) {
    if (line.substr(0, begin.size()) == begin) {
      pane = std::string(line.substr(begin.size()));
      text.clear();
      open = true;
      continue;
    }
    if (open && line.substr(0, end.size()) == end) {
      std::string_view rest = line.substr(end.size());
      size_t sp = rest.rfind(' ');
      // The script put a newline before the end line: drop it, and the one
      // capture-pane ended its last row with.
      if (!text.empty() && text.back() == '\n') text.pop_back();
      if (!text.empty() && text.back() == '\n') text.pop_back();
      if (sp != std::string_view::npos && rest.substr(0, sp) == pane && rest.substr(sp + 1) == "0")
        captures[pane] = text;
      open = false;
      continue;
    }
    if (open) {
      text.append(line);
      text += '\n';
    }
  }
  return captures;
}

// One round trip, filled on a pool thread. It owns copies of everything it
// reads there; the collector may be stopped meanwhile.
struct SshCollector::Scan {
  uv_work_t req;
  SshCollector* owner = nullptr;  // null once the collector stopped
  std::shared_ptr<int> works;     // the collector's count of queued scans
  std::shared_ptr<TargetExecutor> executor;
  std::vector<std::string> tmux;           // remote tmux argv prefix
  std::vector<std::string> capture_panes;  // due before the scan started
  std::string nonce;                       // frames this scan's captures
  bool notified = false;                   // a control notification started it
  // results
  core::Status status = core::Ok();
  bool server_running = true;
  std::vector<PaneRecord> records;
  std::map<std::string, std::string> proc;
  std::map<std::string, std::string> captures;
  std::string failure;  // a partial failure worth logging

  void Run() {
    ExecOptions o;
    std::vector<std::string> argv = tmux;
    argv.insert(argv.end(), {"list-panes", "-a", "-F", ListPanesFormat()});
    auto list = executor->Run(argv, o);
    if (!list) {
      status = list.error();
      return;
    }
    if (list->exit_code != 0) {
      // No server (or no sessions): not an error, an empty target.
      server_running = false;
      return;
    }
    auto parsed = ParseListPanes(list->out);
    if (!parsed) {
      status = parsed.error();
      return;
    }
    records = std::move(*parsed);
    std::vector<int64_t> pids;
    for (const auto& r : records) pids.push_back(r.info.pid);
    if (!records.empty()) pids.push_back(records.front().server_pid);
    auto snap = executor->Run({"sh", "-c", ProcSnapshotScript(pids)}, o);
    if (snap && snap->exit_code == 0) {
      auto files = ParseProcSnapshot(snap->out);
      if (files) proc = std::move(*files);
      else failure = files.error().message;
    } else {
      failure = snap ? "proc snapshot exited " + std::to_string(snap->exit_code) : snap.error().message;
    }
    if (!capture_panes.empty()) {
      auto cap = executor->Run({"sh", "-c", CaptureScript(tmux, capture_panes, nonce)}, o);
      if (cap) captures = ParseCaptures(cap->out, nonce);
    }
  }
};

SshCollector::SshCollector(uv_loop_t* loop, SshCollectorOptions options, std::unique_ptr<TargetExecutor> executor,
                           CollectorSink& sink, const core::Clock& clock, AnalyzerFactory analyzers)
    : loop_(loop),
      options_(std::move(options)),
      executor_(std::move(executor)),
      sink_(sink),
      clock_(clock),
      instance_(core::NewUlid(clock.Now())),
      step_(options_.target_id, options_.socket_path, instance_, options_.poller, std::move(analyzers), sink) {
  timer_ = new uv_timer_t;
  uv_timer_init(loop_, timer_);
  timer_->data = this;
  due_ = new uv_timer_t;
  uv_timer_init(loop_, due_);
  due_->data = this;
}

SshCollector::~SshCollector() {
  Stop();
  for (uv_timer_t* t : {timer_, due_})
    uv_close(reinterpret_cast<uv_handle_t*>(t), [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
}

std::vector<std::string> SshCollector::TmuxArgv() const {
  // -u: an ssh session seldom has a UTF-8 locale, and tmux would print
  // non-ASCII names and screen text as '_'.
  std::vector<std::string> tmux = {"tmux", "-u"};
  if (!options_.socket_path.empty()) tmux.insert(tmux.end(), {"-S", options_.socket_path});
  return tmux;
}

void SshCollector::SetTimer(TimeNs first, TimeNs every) {
  uv_timer_start(
      timer_, [](uv_timer_t* t) { static_cast<SshCollector*>(t->data)->StartScan(false); }, Ms(first), Ms(every));
}

void SshCollector::Start() {
  SetTimer(0, options_.scan_interval);
  if (options_.control) {
    SshControlFeedOptions o;
    o.tmux = TmuxArgv();
    o.retry = options_.control_retry;
    feed_ = std::make_unique<SshControlFeed>(loop_, *options_.control, o,
                                             [this](FeedReport r) { OnFeed(std::move(r)); });
    feed_->Start();
  }
}

void SshCollector::Stop() {
  uv_timer_stop(timer_);
  uv_timer_stop(due_);
  feed_.reset();  // joins its thread
  feed_up_ = false;
  feed_whole_ = false;
  if (in_flight_) in_flight_->owner = nullptr;  // its completion frees it
  in_flight_ = nullptr;
}

void SshCollector::OnFeed(FeedReport report) {
  const TimeNs now = clock_.Now();
  if (report.up != feed_up_) {
    feed_up_ = report.up;
    if (feed_up_) {
      spdlog::info("{}: following the remote tmux through control clients", options_.target_id);
    } else {
      spdlog::info("{}: control clients lost ({}); scanning every {} ms", options_.target_id, report.why,
                   Ms(options_.scan_interval));
    }
    report.changed = true;
  }
  // Sessions the feed does not follow yet (waiting for the remote to
  // settle) are polled like a feed that is down: the timer scans every
  // scan_interval until every session has its client.
  const bool whole = feed_up_ && report.waiting.empty();
  if (whole != feed_whole_) {
    feed_whole_ = whole;
    if (whole) {
      SetTimer(options_.safety_interval, options_.safety_interval);
    } else {
      if (feed_up_)
        spdlog::debug("{}: {} remote session(s) not followed yet; scanning every {} ms", options_.target_id,
                      report.waiting.size(), Ms(options_.scan_interval));
      SetTimer(0, options_.scan_interval);
    }
  }
  if (!feed_up_) {
    uv_timer_stop(due_);
    connected_.clear();
    return;
  }
  connected_ = std::move(report.sessions);
  for (const auto& pane : report.output)
    if (step_.poller().Watching(pane)) step_.poller().MarkChanged(pane, now);
  if (report.changed || !report.output.empty()) StartScan(true);
}

std::set<std::string> SshCollector::HeardPanes(const Topology& topology) {
  // As the local collector's: a pane was heard whole since the previous
  // read only if the same client followed its session then too.
  std::map<std::string, int64_t> now = feed_up_ ? connected_ : std::map<std::string, int64_t>{};
  std::set<std::string> panes;
  for (const auto& p : topology.panes) {
    auto a = now.find(p.session_id);
    auto b = heard_.find(p.session_id);
    if (a != now.end() && b != heard_.end() && a->second == b->second) panes.insert(p.pane_id);
  }
  heard_ = std::move(now);
  return panes;
}

void SshCollector::StartScan(bool notified) {
  if (in_flight_) {
    // The host is slower than the interval: a timer beat is skipped; a
    // notification starts one more scan after this one.
    pending_ = pending_ || notified;
    return;
  }
  auto* scan = new Scan;
  scan->req.data = scan;
  scan->owner = this;
  scan->executor = executor_;
  scan->notified = notified;
  scan->tmux = TmuxArgv();
  const TimeNs now = clock_.Now();
  step_.poller().Tick(now);
  scan->capture_panes = step_.poller().TakeDueCaptures(now);
  scan->nonce = core::NewUlid(now);
  in_flight_ = scan;
  scan->works = works_;
  ++*works_;
  uv_queue_work(
      loop_, &scan->req, [](uv_work_t* r) { static_cast<Scan*>(r->data)->Run(); },
      [](uv_work_t* r, int) {
        std::unique_ptr<Scan> done(static_cast<Scan*>(r->data));
        --*done->works;
        if (done->owner) done->owner->Finish(*done);
      });
}

void SshCollector::Finish(Scan& scan) {
  in_flight_ = nullptr;
  ++scans_;
  if (scan.notified) ++notified_scans_;
  // Whatever the scan's outcome, a notification that came meanwhile gets
  // its own scan.
  struct Next {
    SshCollector* self;
    ~Next() {
      if (self->pending_) {
        self->pending_ = false;
        self->StartScan(true);
      }
    }
  } next{this};
  // While the feed is up the timer is slow: a pane marked but not yet due,
  // and an analyzer's recheck, get a scan at the poller's deadline.
  struct Due {
    SshCollector* self;
    ~Due() {
      const TimeNs at = self->step_.poller().NextDeadline();
      if (!self->feed_up_ || at <= 0) {
        uv_timer_stop(self->due_);
        return;
      }
      uv_timer_start(
          self->due_, [](uv_timer_t* t) { static_cast<SshCollector*>(t->data)->StartScan(true); },
          Ms(at - self->clock_.Now()), 0);
    }
  } due{this};
  const TimeNs now = clock_.Now();
  if (!scan.status) {
    for (const auto& p : scan.capture_panes) step_.poller().CaptureFailed(p);
    if (auto changed = health_.Failure(now)) {
      spdlog::warn("{}: {}: {}", options_.target_id, core::TargetHealthName(*changed), scan.status.error().ToString());
      sink_.OnEvent(MakeHealthEvent(options_.target_id, *changed, instance_, ++health_seq_, now,
                                    scan.status.error().message));
    }
    return;
  }
  // A scan is both a probe and a topology read (spec §9's recovery rule).
  auto probed = health_.ProbeOk(now);
  auto read = health_.TopologyOk(now);
  if (auto changed = read ? read : probed) {
    spdlog::info("{}: {} again", options_.target_id, core::TargetHealthName(*changed));
    sink_.OnEvent(MakeHealthEvent(options_.target_id, *changed, instance_, ++health_seq_, now, "scan ok"));
  }
  if (!scan.failure.empty()) spdlog::debug("{}: {}", options_.target_id, scan.failure);

  // The captures were taken before the scan: the poller gets them once it
  // watches the scan's panes (a pane no longer watched ignores its capture).
  ScanStep::Hooks hooks;
  hooks.heard = [this](const PaneScanner::Result& result) { return HeardPanes(result.topology); };
  hooks.before_publish = [&] {
    for (const auto& p : scan.capture_panes) {
      auto it = scan.captures.find(p);
      if (it != scan.captures.end()) step_.poller().OnCapture(p, it->second, now);
      else step_.poller().CaptureFailed(p);
    }
  };
  if (!scan.server_running) {
    step_.ApplyServerDown(now, hooks);
    return;
  }
  core::MemoryFileReader files;  // the remote /proc, as the snapshot read it
  files.files = std::move(scan.proc);
  step_.Apply(scan.records, files, now, hooks);
}

}  // namespace agt::agg
