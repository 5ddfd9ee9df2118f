// config.toml's [daemon] to the state engine's options (EngineOptionsFor):
// each key lands in its field, and the defaults of both agree, so a config
// that sets nothing runs the engine as before. completed_to_idle is also
// driven end to end (config_e2e_test.cc).
#include <gtest/gtest.h>

#include "aggregator/daemon/daemon_config.h"

namespace agt::agg {
namespace {

using core::kNsPerMs;
using core::kNsPerSec;

TEST(DaemonConfigTest, EachDaemonKeyReachesTheEngineOptions) {
  core::Result<core::Config> c = core::ParseConfig(
      "[daemon]\ncompleted_to_idle = \"1s\"\nskew_budget = \"2s\"\nbind_window = \"750ms\"\n"
      "pending_bind_ttl = \"30s\"\n[daemon.signal_ttl]\nhook = \"5s\"\npoller = \"9s\"\n",
      "config.toml");
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  state::EngineOptions o = EngineOptionsFor(c->daemon);
  EXPECT_EQ(o.completed_to_idle, kNsPerSec);
  EXPECT_EQ(o.skew_budget, 2 * kNsPerSec);
  EXPECT_EQ(o.bind_window, 750 * kNsPerMs);
  EXPECT_EQ(o.pending_bind_ttl, 30 * kNsPerSec);
  EXPECT_EQ(o.signal_ttl[static_cast<size_t>(core::Source::kHook)], 5 * kNsPerSec);
  EXPECT_EQ(o.signal_ttl[static_cast<size_t>(core::Source::kPoller)], 9 * kNsPerSec);
  EXPECT_EQ(o.signal_ttl[static_cast<size_t>(core::Source::kWrapper)], 0);
}

TEST(DaemonConfigTest, DefaultsAgreeWithTheEngines) {
  state::EngineOptions mapped = EngineOptionsFor(core::DaemonConfig{});
  state::EngineOptions engine;
  EXPECT_EQ(mapped.completed_to_idle, engine.completed_to_idle);
  EXPECT_EQ(mapped.skew_budget, engine.skew_budget);
  EXPECT_EQ(mapped.bind_window, engine.bind_window);
  EXPECT_EQ(mapped.pending_bind_ttl, engine.pending_bind_ttl);
  EXPECT_EQ(mapped.signal_ttl, engine.signal_ttl);
}

}  // namespace
}  // namespace agt::agg
