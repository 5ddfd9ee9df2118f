// Runtime tracking across topologies: appear, pid change, re-created pane,
// boot id change, wrapped panes, server gone.
#include "aggregator/observe/collector_runtimes.h"

#include <gtest/gtest.h>

namespace agt::agg {
namespace {

PaneInfo Pane(std::string id, int64_t pid, std::string agent, int64_t agent_pid) {
  PaneInfo p;
  p.target_id = "host";
  p.pane_id = std::move(id);
  p.pid = pid;
  p.agent_type = std::move(agent);
  p.agent_pid = agent_pid;
  return p;
}

Topology Topo(std::string boot, std::vector<PaneInfo> panes) {
  Topology t;
  t.target_id = "host";
  t.server_running = true;
  t.boot_id = std::move(boot);
  t.socket_path = "/tmp/s";
  t.panes = std::move(panes);
  return t;
}

std::vector<std::string> Types(const std::vector<core::Event>& ev) {
  std::vector<std::string> r;
  for (const auto& e : ev) r.push_back(e.event_type + " " + e.pane_id + " " + std::to_string(e.pid.value_or(0)));
  return r;
}

TEST(RuntimeTracker, AppearsOnceThenStaysQuiet) {
  RuntimeTracker rt("host", "I1");
  auto ev = rt.Update(Topo("10-5", {Pane("%1", 100, "claude", 101), Pane("%2", 200, "", 0)}), {},
                      {{101, 42}}, 1000);
  ASSERT_EQ(ev.size(), 1u);
  const core::Event& e = ev[0];
  EXPECT_EQ(e.event_type, "runtime_observed");
  EXPECT_EQ(e.source, core::Source::kPoller);
  EXPECT_EQ(e.target_id, "host");
  EXPECT_EQ(e.pane_id, "%1");
  EXPECT_EQ(e.pid, 101);
  ASSERT_TRUE(e.runtime.has_value());
  EXPECT_EQ(e.runtime->agent_type, "claude");
  EXPECT_EQ(e.runtime->boot_id, "10-5");
  EXPECT_EQ(e.runtime->started_at, 42);
  EXPECT_EQ(e.runtime->tmux_socket, "/tmp/s");
  EXPECT_FALSE(e.dedupe_key.empty());
  EXPECT_TRUE(e.runtime_id.empty());
  auto again = rt.Update(Topo("10-5", {Pane("%1", 100, "claude", 101), Pane("%2", 200, "", 0)}), {},
                         {{101, 42}}, 2000);
  EXPECT_TRUE(again.empty());
}

TEST(RuntimeTracker, AnObservedRuntimeCarriesTheVersionFoundForItsProcess) {
  RuntimeTracker rt("host", "I1");
  std::vector<int64_t> asked;
  rt.set_version_finder([&](int64_t pid) -> std::string {
    asked.push_back(pid);
    return pid == 101 ? "2.1.330" : "";
  });
  auto ev = rt.Update(Topo("10-5", {Pane("%1", 100, "claude", 101), Pane("%2", 200, "codex", 201)}), {}, {}, 1);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].runtime->agent_version, "2.1.330");
  EXPECT_EQ(ev[1].runtime->agent_version, "");
  (void)rt.Update(Topo("10-5", {Pane("%1", 100, "claude", 101), Pane("%2", 200, "codex", 201)}), {}, {}, 2);
  EXPECT_EQ(asked, (std::vector<int64_t>{101, 201})) << "asked once per runtime, not per scan";
}

TEST(RuntimeTracker, PidChangeRecreatedPaneAndBootChangeAreNewRuntimes) {
  RuntimeTracker rt("host", "I1");
  (void)rt.Update(Topo("10-5", {Pane("%1", 100, "claude", 101)}), {}, {}, 1);
  EXPECT_EQ(Types(rt.Update(Topo("10-5", {Pane("%1", 100, "claude", 150)}), {}, {}, 2)),
            (std::vector<std::string>{"runtime_ended %1 101", "runtime_observed %1 150"}));
  // Re-created pane: same id, new first process, same agent pid (reuse).
  EXPECT_EQ(Types(rt.Update(Topo("10-5", {Pane("%1", 300, "claude", 150)}), {}, {}, 3)),
            (std::vector<std::string>{"runtime_ended %1 150", "runtime_observed %1 150"}));
  auto boot = rt.Update(Topo("11-9", {Pane("%1", 300, "claude", 150)}), {}, {}, 4);
  ASSERT_EQ(boot.size(), 2u);
  EXPECT_EQ(boot[1].runtime->boot_id, "11-9");
  EXPECT_NE(boot[0].dedupe_key, boot[1].dedupe_key);
}

TEST(RuntimeTracker, AgentGoneWrappedAndServerDown) {
  RuntimeTracker rt("host", "I1");
  (void)rt.Update(Topo("1-1", {Pane("%1", 1, "codex", 2), Pane("%2", 3, "gemini", 4)}), {}, {}, 1);
  EXPECT_EQ(Types(rt.Update(Topo("1-1", {Pane("%1", 1, "", 0), Pane("%2", 3, "gemini", 4)}), {}, {}, 2)),
            (std::vector<std::string>{"runtime_ended %1 2"}));
  // A wrapped pane is the wrapper's business: end ours, observe nothing.
  EXPECT_EQ(Types(rt.Update(Topo("1-1", {Pane("%2", 3, "gemini", 4)}), {"%2"}, {}, 3)),
            (std::vector<std::string>{"runtime_ended %2 4"}));
  (void)rt.Update(Topo("1-1", {Pane("%5", 9, "claude", 10)}), {}, {}, 4);
  Topology down;
  down.target_id = "host";
  EXPECT_EQ(Types(rt.Update(down, {}, {}, 5)), (std::vector<std::string>{"runtime_ended %5 10"}));
  EXPECT_TRUE(rt.tracked().empty());
}

}  // namespace
}  // namespace agt::agg
