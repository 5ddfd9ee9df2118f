// The hooks of a recording played live (the live CAP gate's hooks variant,
// tests/agg/observe/live_cap_gate_test.cc): each event the recording's
// hooks sent (hooks.jsonl, tests/fixtures/README.md) is sent again to the
// live daemon at its recorded time on the recording's clock, as `agtmux
// hook` sends it (POST /v1/events). Its payload is mapped again by the
// hook's own code (cli/hook/hook_payload.h) with the live pane and tmux server as
// the hook's environment would give them ($TMUX_PANE, $TMUX), so the daemon
// binds it to the pane that plays the screen; its identity (source event id,
// dedupe key) stays the recorded one, as in the fused replay
// (tests/detect/corpus_fused.cc). What the hook process adds around that
// (redaction, the spool when the daemon is down) is not what is measured.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cli/hook/hook_payload.h"
#include "libagtcore/event_codec.h"
#include "tests/agg/observe/live_cap.h"
#include "tests/detect/corpus.h"

namespace agt::test::live_cap {

/// Sends the recordings' hook events to one daemon at their recorded times
/// from its own thread, from Start() (once the recordings were told to
/// start) until every event is sent or the player is destroyed.
class HookPlayer {
 public:
  /// `hooks[i]`: recording i's events (empty: it has none).
  HookPlayer(const Daemon& daemon, const Lab& lab, std::vector<std::vector<detect::corpus::HookRecord>> hooks)
      : daemon_(daemon), lab_(lab), hooks_(std::move(hooks)) {}
  ~HookPlayer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  HookPlayer(const HookPlayer&) = delete;
  HookPlayer& operator=(const HookPlayer&) = delete;

  /// Starts sending; `recs` must outlive the player (their panes are read).
  void Start(const std::vector<Recording>& recs) {
    thread_ = std::thread([this, &recs] { Run(recs); });
  }
  /// Waits for the thread; then sent() and problems() are final.
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  int sent() const { return sent_; }
  /// Events that could not be mapped or that the daemon did not take.
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  void Run(const std::vector<Recording>& recs) {
    // (when, recording, event) in the order they are due
    std::vector<std::tuple<int64_t, size_t, size_t>> due;
    for (size_t i = 0; i < hooks_.size() && i < recs.size(); ++i) {
      if (hooks_[i].empty()) continue;
      int64_t start = 0;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
      while (!stop_ && start == 0 && std::chrono::steady_clock::now() < deadline) {
        std::ifstream(lab_.start_file(i)) >> start;
        if (start == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (start == 0) {
        problems_.push_back(recs[i].fixture.dir + ": never started, its hooks were not sent");
        continue;
      }
      for (size_t j = 0; j < hooks_[i].size(); ++j)
        due.emplace_back(start + int64_t(hooks_[i][j].t * 1e9), i, j);
    }
    std::sort(due.begin(), due.end());
    for (const auto& [at, i, j] : due) {
      while (!stop_ && RealNs() < at) std::this_thread::sleep_for(std::chrono::microseconds(500));
      if (stop_) return;
      Send(recs[i], hooks_[i][j].event);
    }
  }

  void Send(const Recording& rec, const core::Event& recorded) {
    const std::string& type = recorded.event_type;
    const std::string agent = type.substr(0, type.find('.'));
    auto kind = cli::ParseHookKind(agent == "codex" ? "codex-notify" : agent);
    if (!kind) {
      problems_.push_back(rec.fixture.dir + ": no hook kind for " + type);
      return;
    }
    cli::HookContext ctx;
    ctx.tmux_pane = rec.pane;
    ctx.tmux_socket = lab_.socket();
    ctx.now = RealNs();
    auto e = cli::NormalizeHook(*kind, recorded.raw_payload, ctx);
    if (!e.ok()) {
      problems_.push_back(rec.fixture.dir + ": " + type + ": " + e.error().message);
      return;
    }
    e->source_event_id = recorded.source_event_id;
    e->dedupe_key = recorded.dedupe_key;
    auto resp = daemon_.Call("POST", "/v1/events", core::EncodeEvent(*e));
    if (!resp.ok() || resp->status != 200) {
      problems_.push_back(rec.fixture.dir + ": " + type + ": the daemon did not take it (" +
                          (resp.ok() ? "HTTP " + std::to_string(resp->status) + " " + resp->body
                                     : resp.error().message) +
                          ")");
      return;
    }
    ++sent_;
  }

  const Daemon& daemon_;
  const Lab& lab_;
  std::vector<std::vector<detect::corpus::HookRecord>> hooks_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  int sent_ = 0;
  std::vector<std::string> problems_;
};

}  // namespace agt::test::live_cap
