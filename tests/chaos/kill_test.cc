// Chaos: `kill -9` of agtmuxd while writers stream events, while watch
// clients are connected, and while an action runs (issue 14, the chaos
// suite). After each kill the daemon is started again on the same state and
// must hold every event it answered 200 for (read from agtmux.db and through
// the API), and a watch client that resumes from the last cursor it read
// gets what docs/api.md promises for a cursor of another run: `reset`
// ("stream_changed") then a `snapshot` that matches /v1/panes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

#include "tests/chaos/chaos_util.h"

namespace agt::chaos {
namespace {

using test::Daemon;
using test::PollUntil;
using test::TestEnv;

/// Acknowledged ids missing from agtmux.db; a database that cannot be read
/// or fails its integrity check fails the test.
size_t Lost(const TestEnv& env, const std::set<std::string>& acked, int writers) {
  std::string error;
  const auto stored = StoredIds(env, Runtimes(writers), &error);
  EXPECT_EQ(error, "");
  return Missing(acked, stored);
}

TEST(ChaosKill, Sigkill9DuringIngestAndWatchLosesNoAcknowledgedEvent) {
  TestEnv env;
  constexpr int kWriters = 8, kWatchers = 5;
  std::mt19937 rng(std::random_device{}());
  Acked acked;
  std::vector<std::string> cursors(kWatchers);  // the last cursor each watcher read
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    auto d = std::make_unique<Daemon>(env, std::vector<std::string>{"--no-observe"});
    ASSERT_TRUE(d->WaitReady()) << "agtmuxd did not start on the state of the previous round";
    // The watchers of the previous round resume from their cursors.
    std::vector<std::unique_ptr<WatchClient>> watchers;
    for (int i = 0; i < kWatchers; ++i) {
      const std::string query = cursors[i].empty() ? "?interval=200ms" : "?interval=200ms&cursor=" + cursors[i];
      watchers.push_back(std::make_unique<WatchClient>(env.socket(), query));
    }
    const auto panes_now = PanesView(*d);
    for (int i = 0; i < kWatchers; ++i) {
      auto& w = *watchers[i];
      auto has_snapshot = [&] { return std::find(w.types.begin(), w.types.end(), "snapshot") != w.types.end(); };
      ASSERT_TRUE(w.PumpUntil(has_snapshot, 10000)) << "watcher " << i << " got no snapshot";
      if (!cursors[i].empty()) {
        // docs/api.md: a cursor of another run gives reset, then snapshot.
        ASSERT_GE(w.types.size(), 2u) << "watcher " << i;
        EXPECT_EQ(w.types[0], "reset");
        EXPECT_EQ(w.types[1], "snapshot");
        EXPECT_EQ(w.reset_reasons, std::vector<std::string>{"stream_changed"});
        EXPECT_EQ(w.view, panes_now) << "watcher " << i << ": the snapshot after the restart";
      }
    }
    {
      std::lock_guard<std::mutex> l(acked.mu);
      for (const auto& [pane, state] : acked.last_state)
        EXPECT_TRUE(panes_now.count(pane)) << pane << " is gone after the restart";
    }

    // Writers stream; watchers read; kill -9 at a random moment.
    std::atomic<bool> stop{false};
    const long batches_before = acked.batches;
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w)
      writers.emplace_back([&, w] {
        // Each round's events have their own ids; writer w keeps its pane.
        StreamEvents(*d, w, round == 0 ? "01JA" : round == 1 ? "01JB" : "01JC", 4, 1 << 30, stop, &acked);
      });
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(400 + rng() % 600);
    while (std::chrono::steady_clock::now() < until) {
      for (auto& w : watchers) w->Pump();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    kill(d->pid(), SIGKILL);
    stop = true;
    for (auto& t : writers) t.join();
    EXPECT_EQ(d->Stop(SIGKILL), 128 + SIGKILL);
    ASSERT_GT(acked.batches, batches_before) << "nothing was acknowledged before the kill";
    EXPECT_EQ(acked.refused, 0) << "a batch was refused";
    for (int i = 0; i < kWatchers; ++i) {
      auto& w = *watchers[i];
      EXPECT_TRUE(w.PumpUntil([&] { return w.eof; }, 5000)) << "watcher " << i << "'s stream did not end";
      EXPECT_GT(w.lines, 1u) << "watcher " << i << " saw no delta before the kill";
      cursors[i] = w.cursor;
    }

    // Every acknowledged event is in agtmux.db.
    std::lock_guard<std::mutex> l(acked.mu);
    EXPECT_EQ(Lost(env, acked.ids, kWriters), 0u) << "of " << acked.ids.size() << " acknowledged events";
  }
}

// An action in flight (send, waiting its enter delay) when the daemon is
// killed: the daemon starts again, an action acknowledged before the kill
// is still answered by GET /v1/actions/{id}, and events acknowledged around
// it are kept.
TEST(ChaosKill, Sigkill9DuringAnActionKeepsWhatWasAcknowledged) {
  TestEnv env;
  const std::string name = "agtmux-chaos-" + std::to_string(getpid());
  const std::string socket = env.root + "/tmux/tmux-" + std::to_string(getuid()) + "/" + name;
  auto tmux = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/tmux", "-L", name, "-f", "/dev/null"});
    return env.Run(args);
  };
  struct KillServer {
    std::function<void()> f;
    ~KillServer() { f(); }
  } kill_server{[&] { tmux({"kill-server"}); }};
  ASSERT_EQ(tmux({"new-session", "-d", "-s", "work", "-x", "120", "-y", "30", "cat"}).status, 0);
  std::string window = tmux({"display-message", "-p", "-t", "work", "#{window_id}"}).out;
  std::string pane = tmux({"display-message", "-p", "-t", "work", "#{pane_id}"}).out;
  window.pop_back();
  pane.pop_back();
  const std::string ref = "pane:lab/work/" + window + "/" + pane;

  auto d = std::make_unique<Daemon>(env);
  ASSERT_TRUE(d->WaitReady());
  auto add = d->Call("POST", "/v1/targets", "{\"name\":\"lab\",\"kind\":\"local\",\"tmux_socket\":\"" + socket + "\"}");
  ASSERT_TRUE(add.ok());
  ASSERT_EQ(add->status, 201) << add->body;
  ASSERT_TRUE(PollUntil([&] { return PanesView(*d, "?all=1&target=lab").count(pane) == 1; }, 10000))
      << "the pane was not observed";

  auto first = d->Call("POST", "/v1/actions/send", "{\"ref\":\"" + ref + "\",\"text\":\"acknowledged-1\"}");
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->status, 200) << first->body;
  rapidjson::Document fd;
  fd.Parse(first->body.c_str());
  const std::string action_id = fd["action_id"].GetString();

  Acked acked;
  std::atomic<bool> stop{false};
  std::thread writer([&] { StreamEvents(*d, 1, "01JD", 2, 1 << 30, stop, &acked); });
  // The in-flight action: a send that waits 5 s before Enter.
  std::atomic<int> inflight_status{0};
  std::thread action([&] {
    auto r = d->Call("POST", "/v1/actions/send",
                     "{\"ref\":\"" + ref + "\",\"text\":\"in-flight\",\"enter\":true,\"enter_delay_ms\":5000}");
    inflight_status = r.ok() ? r->status : -1;
  });
  // Kill once the in-flight text is typed (the action is between its steps).
  EXPECT_TRUE(PollUntil([&] {
    return tmux({"capture-pane", "-p", "-t", pane}).out.find("in-flight") != std::string::npos;
  }, 10000)) << "the in-flight action never typed";
  kill(d->pid(), SIGKILL);
  stop = true;
  writer.join();
  action.join();
  EXPECT_EQ(d->Stop(SIGKILL), 128 + SIGKILL);
  EXPECT_NE(inflight_status, 200) << "the in-flight action was answered although the daemon was killed";
  ASSERT_GT(acked.batches, 0) << "nothing was acknowledged before the kill";

  d = std::make_unique<Daemon>(env);
  ASSERT_TRUE(d->WaitReady()) << "agtmuxd did not start after a kill during an action";
  auto again = d->Call("GET", "/v1/actions/" + action_id);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status, 200) << again->body;
  EXPECT_NE(again->body.find("\"result_code\":\"ok\""), std::string::npos) << again->body;
  EXPECT_EQ(Lost(env, acked.ids, 2), 0u) << "of " << acked.ids.size() << " acknowledged events";
  // The restarted daemon acts on the same pane again.
  ASSERT_TRUE(PollUntil([&] { return PanesView(*d, "?all=1&target=lab").count(pane) == 1; }, 10000));
  auto after = d->Call("POST", "/v1/actions/send", "{\"ref\":\"" + ref + "\",\"text\":\" after-restart\"}");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->status, 200) << after->body;
  EXPECT_TRUE(PollUntil([&] {
    return tmux({"capture-pane", "-p", "-t", pane}).out.find("after-restart") != std::string::npos;
  }, 5000));
}

}  // namespace
}  // namespace agt::chaos
