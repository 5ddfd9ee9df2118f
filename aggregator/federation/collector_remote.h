// The loop half of federation (docs/architecture.md, "Federation"): a
// federated target's collector. It applies the RemoteLink's watch lines to
// the target's RemoteMirror and hands the mirror's rows to the sink
// (CollectorSink::OnRemotePanes), turns the link's ups and downs into the
// target's health (the same tracker and target_health_changed events as
// every collector), and keeps the mirror in
// <state_dir>/federation/<target>.json so a restarted daemon resumes from
// its cursor with the panes it had.
#pragma once

#include <uv.h>

#include <functional>
#include <memory>
#include <string>

#include "aggregator/federation/remote_link.h"
#include "aggregator/federation/remote_mirror.h"
#include "aggregator/observe/collector.h"
#include "aggregator/observe/collector_health.h"
#include "libagtcore/base/clock.h"

namespace agt::agg {

struct RemoteCollectorOptions {
  RemoteLinkOptions link;
  std::string mirror_file;  // "" = the mirror is not kept
};

class RemoteCollector {
 public:
  /// `on_absent` runs (on the loop) when the host has no agtmuxd and the
  /// target did not force federation: the caller observes it otherwise.
  RemoteCollector(uv_loop_t* loop, RemoteCollectorOptions options, CollectorSink& sink, const core::Clock& clock,
                  std::function<void(const std::string& why)> on_absent);
  ~RemoteCollector();
  void Start();

  const RemoteMirror& mirror() const { return mirror_; }
  int64_t bytes_read() const { return link_ ? link_->bytes_read() : 0; }

 private:
  void OnReport(LinkReport r);
  void Publish();
  void Health(std::optional<core::TargetHealth> changed, const std::string& why);
  void SaveSoon();

  uv_loop_t* loop_;
  RemoteCollectorOptions options_;
  CollectorSink& sink_;
  const core::Clock& clock_;
  std::function<void(const std::string&)> on_absent_;
  RemoteMirror mirror_;
  HealthTracker health_;
  std::string instance_;
  int64_t health_seq_ = 0;
  uv_timer_t* save_timer_ = nullptr;
  bool save_pending_ = false;
  bool refresh_pending_ = false;  // up again: publish with the next line
  std::unique_ptr<RemoteLink> link_;
};

}  // namespace agt::agg
