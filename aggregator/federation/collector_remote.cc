// RemoteCollector (see collector_remote.h).
#include "aggregator/federation/collector_remote.h"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "libagtcore/os/file.h"
#include "libagtcore/ids.h"
#include "libagtcore/uv/handles.h"

namespace agt::agg {
namespace {

constexpr uint64_t kSaveDelayMs = 1000;  // at most one mirror write a second

}  // namespace

RemoteCollector::RemoteCollector(uv_loop_t* loop, RemoteCollectorOptions options, CollectorSink& sink,
                                 const core::Clock& clock, std::function<void(const std::string&)> on_absent)
    : loop_(loop),
      options_(std::move(options)),
      sink_(sink),
      clock_(clock),
      on_absent_(std::move(on_absent)),
      mirror_(options_.link.target_id),
      instance_(core::NewUlid(clock.Now())) {
  save_timer_ = new uv_timer_t;
  uv_timer_init(loop_, save_timer_);
  save_timer_->data = this;
  if (!options_.mirror_file.empty()) {
    if (auto text = core::ReadWholeFile(options_.mirror_file); text) {
      if (auto st = mirror_.Load(*text); !st)
        spdlog::warn("{}: {}: {}; starting from a snapshot", options_.link.target_id, options_.mirror_file,
                     st.error().message);
    }
  }
}

RemoteCollector::~RemoteCollector() {
  if (link_) sink_.OnRemoteCaller(options_.link.target_id, nullptr);
  link_.reset();  // joins the thread: no report arrives after this
  if (save_pending_ && !options_.mirror_file.empty())
    (void)core::WriteFileAtomic(options_.mirror_file, mirror_.Save());
  uv::CloseAndDelete(save_timer_);
}

void RemoteCollector::Start() {
  link_ = std::make_unique<RemoteLink>(loop_, options_.link, [this](LinkReport r) { OnReport(std::move(r)); });
  sink_.OnRemoteCaller(options_.link.target_id, [link = link_.get()](net::HttpRequest req, RemoteLink::CallDone done) {
    link->Call(std::move(req), std::move(done));
  });
  link_->SetCursor(mirror_.cursor());
  // Panes kept from the last run show (as unreachable) until the link is up.
  if (!mirror_.rows().empty()) Publish();
  link_->Start();
}

void RemoteCollector::OnReport(LinkReport r) {
  const core::TimeNs now = clock_.Now();
  switch (r.kind) {
    case LinkReport::Kind::kUp: {
      spdlog::info("{}: reading the host's agtmuxd ({})", options_.link.target_id, r.text);
      auto probed = health_.ProbeOk(now);
      auto read = health_.TopologyOk(now);
      Health(read ? read : probed, "agtmuxd stream up (" + r.text + ")");
      mirror_.SetReachable(true, now);
      // The rows are published with the first line: the resumed stream's
      // delta (or snapshot) says what changed meanwhile, and a delta with
      // nothing in it says the rows kept are current. Publishing them now
      // would show, for a moment, a state the host may have left.
      refresh_pending_ = true;
      return;
    }
    case LinkReport::Kind::kLine: {
      auto applied = mirror_.Apply(r.text);
      if (!applied) {
        spdlog::warn("{}: {}", options_.link.target_id, applied.error().message);
        link_->SetCursor("");
        link_->Reconnect();
        return;
      }
      link_->SetCursor(mirror_.cursor());
      SaveSoon();
      // Every line (a heartbeat at least once an interval) is a successful
      // probe and a topology read: health recovers as for any collector.
      if (health_.health() != core::TargetHealth::kOk) {
        auto probed = health_.ProbeOk(now);
        auto read = health_.TopologyOk(now);
        Health(read ? read : probed, "agtmuxd stream up");
      }
      if (*applied == RemoteMirror::Applied::kChanged || (refresh_pending_ && !mirror_.awaiting_snapshot())) {
        refresh_pending_ = false;
        Publish();
      }
      return;
    }
    case LinkReport::Kind::kDown: {
      spdlog::debug("{}: {}", options_.link.target_id, r.text);
      Health(health_.Failure(now), r.text);
      if (mirror_.reachable()) {
        mirror_.SetReachable(false, now);
        Publish();
      }
      return;
    }
    case LinkReport::Kind::kAbsent:
      spdlog::info("{}: {}; observing it over ssh instead", options_.link.target_id, r.text);
      if (on_absent_) on_absent_(r.text);  // may destroy this collector: nothing after
      return;
  }
}

void RemoteCollector::Publish() { sink_.OnRemotePanes(options_.link.target_id, mirror_.rows()); }

void RemoteCollector::Health(std::optional<core::TargetHealth> changed, const std::string& why) {
  if (!changed) return;
  spdlog::info("{}: {} ({})", options_.link.target_id, core::TargetHealthName(*changed), why);
  sink_.OnEvent(MakeHealthEvent(options_.link.target_id, *changed, instance_, ++health_seq_, clock_.Now(), why));
}

void RemoteCollector::SaveSoon() {
  if (options_.mirror_file.empty() || save_pending_) return;
  save_pending_ = true;
  uv_timer_start(
      save_timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<RemoteCollector*>(t->data);
        self->save_pending_ = false;
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(self->options_.mirror_file).parent_path(), ec);
        if (auto st = core::WriteFileAtomic(self->options_.mirror_file, self->mirror_.Save()); !st)
          spdlog::warn("{}: cannot keep the mirror: {}", self->options_.link.target_id, st.error().message);
      },
      kSaveDelayMs, 0);
}

}  // namespace agt::agg
