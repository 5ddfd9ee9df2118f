// Health transitions with a fake clock, and the reconciler's synthetic
// events (stale wrappers, health, demotions) through a fake sink.
#include "aggregator/observe/reconciler.h"

#include <gtest/gtest.h>

#include "libagtcore/clock.h"
#include "tests/agg/observe/fake_sink.h"

namespace agt::agg {
namespace {

using core::kNsPerSec;

TEST(HealthTracker, OkDegradedDownAndBack) {
  core::FakeClock clock;
  HealthTracker h;
  EXPECT_EQ(h.Failure(clock.Now()), Health::kDegraded);
  clock.Advance(10 * kNsPerSec);
  EXPECT_EQ(h.Failure(clock.Now()), std::nullopt);  // 2 failures in 30 s
  clock.Advance(10 * kNsPerSec);
  EXPECT_EQ(h.Failure(clock.Now()), Health::kDown);  // the 3rd within 30 s
  EXPECT_EQ(h.Failure(clock.Now()), std::nullopt);
  // Recovery needs 2 probes in a row plus a topology read.
  EXPECT_EQ(h.ProbeOk(clock.Now()), std::nullopt);
  EXPECT_EQ(h.TopologyOk(clock.Now()), std::nullopt);
  EXPECT_EQ(h.ProbeOk(clock.Now()), Health::kOk);
  EXPECT_EQ(h.health(), Health::kOk);
}

TEST(HealthTracker, SpreadOutFailuresStayDegraded) {
  core::FakeClock clock;
  HealthTracker h;
  EXPECT_EQ(h.Failure(clock.Now()), Health::kDegraded);
  for (int i = 0; i < 5; ++i) {
    clock.Advance(16 * kNsPerSec);  // never 3 within 30 s
    EXPECT_EQ(h.Failure(clock.Now()), std::nullopt);
  }
  EXPECT_EQ(h.health(), Health::kDegraded);
  // A failure between the probes restarts the count.
  clock.Advance(16 * kNsPerSec);
  EXPECT_EQ(h.ProbeOk(clock.Now()), std::nullopt);
  EXPECT_EQ(h.Failure(clock.Now()), std::nullopt);
  EXPECT_EQ(h.ProbeOk(clock.Now()), std::nullopt);
  EXPECT_EQ(h.TopologyOk(clock.Now()), std::nullopt);
  EXPECT_EQ(h.ProbeOk(clock.Now()), Health::kOk);
}

class ReconcilerTest : public ::testing::Test {
 protected:
  testing::FakeSink sink;
  core::FakeClock clock;
  std::vector<WrappedRuntime> wrapped;
  std::set<int64_t> alive;
  std::vector<Demotion> due;
  bool probe_ok = true;
  bool topo_ok = true;
  Reconciler rec{"I", ReconcilerDeps{[this] { return wrapped; },
                                     [this](TimeNs) { return due; },
                                     [this](int64_t pid) { return alive.count(pid) != 0; }},
                 sink};
  void SetUp() override {
    rec.AddTarget(TargetProbe{"vm1",
                              [this]() -> core::Status {
                                if (probe_ok) return core::Ok();
                                return core::MakeError(core::Err::kTargetUnreachable, "ssh: refused");
                              },
                              [this]() -> core::Status {
                                if (topo_ok) return core::Ok();
                                return core::MakeError(core::Err::kTimeout, "list-panes timed out");
                              }});
  }
  std::vector<std::string> Health() {
    std::vector<std::string> r;
    for (auto& e : sink.OfType("target_health_changed")) r.push_back(e.target_id + ":" + e.health);
    return r;
  }
};

TEST_F(ReconcilerTest, HealthTransitionsBecomeEvents) {
  rec.Tick(clock.Now());
  EXPECT_TRUE(sink.events.empty());  // healthy: nothing to say
  probe_ok = false;
  for (int i = 0; i < 3; ++i) {
    rec.Tick(clock.Now());
    clock.Advance(5 * kNsPerSec);
  }
  EXPECT_EQ(Health(), (std::vector<std::string>{"vm1:degraded", "vm1:down"}));
  EXPECT_EQ(rec.health("vm1"), agg::Health::kDown);
  probe_ok = true;
  topo_ok = false;
  rec.Tick(clock.Now());  // probe ok, topology fails: still down
  rec.Tick(clock.Now());
  EXPECT_EQ(rec.health("vm1"), agg::Health::kDown);
  topo_ok = true;
  rec.Tick(clock.Now());
  EXPECT_EQ(rec.health("vm1"), agg::Health::kDown);  // one good probe since the last failure
  rec.Tick(clock.Now());
  EXPECT_EQ(Health(), (std::vector<std::string>{"vm1:degraded", "vm1:down", "vm1:ok"}));
  auto ev = sink.OfType("target_health_changed");
  EXPECT_EQ(ev[0].source, core::Source::kPoller);
  EXPECT_NE(ev[0].dedupe_key, ev[2].dedupe_key);
  EXPECT_NE(ev[1].raw_payload.find("ssh: refused"), std::string::npos);
}

TEST_F(ReconcilerTest, GoneWrapperIsStaleThenEndedOnce) {
  wrapped = {{"rt1", "host", "%1", 100}, {"rt2", "host", "%2", 200}};
  alive = {100, 200};
  rec.Tick(clock.Now());
  EXPECT_TRUE(sink.events.empty());
  alive = {100};
  rec.Tick(clock.Now());
  rec.Tick(clock.Now());  // not again
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.events[0].event_type, "stale_detected");
  EXPECT_EQ(sink.events[1].event_type, "runtime_ended");
  for (const auto& e : sink.events) {
    EXPECT_EQ(e.runtime_id, "rt2");
    EXPECT_EQ(e.pane_id, "%2");
    EXPECT_EQ(e.pid, 200);
    EXPECT_EQ(e.source, core::Source::kPoller);
  }
  EXPECT_NE(sink.events[0].dedupe_key, sink.events[1].dedupe_key);
}

TEST_F(ReconcilerTest, DemotionsCarryTheGuardedVersionOnce) {
  due = {{"host", "%3", "rt3", 7}};
  rec.Tick(clock.Now());
  rec.Tick(clock.Now());  // still due (not yet applied): not sent twice
  auto d = sink.OfType("demotion_due");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].runtime_id, "rt3");
  EXPECT_EQ(d[0].target_id, "host");
  EXPECT_EQ(d[0].pane_id, "%3");
  EXPECT_EQ(d[0].source_seq, 7);
  due.clear();
  rec.Tick(clock.Now());
  due = {{"host", "%3", "rt3", 9}};
  rec.Tick(clock.Now());
  EXPECT_EQ(sink.OfType("demotion_due").size(), 2u);
}

TEST_F(ReconcilerTest, RealPidCheckSeesThisProcess) {
  Reconciler real("I", ReconcilerDeps{[] {
                                        return std::vector<WrappedRuntime>{
                                            {"me", "host", "%1", int64_t(getpid())},
                                            {"nobody", "host", "%2", 0x3ffffff0}};
                                      },
                                      nullptr, nullptr},
                  sink);
  real.Tick(clock.Now());
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.events[0].runtime_id, "nobody");
}

}  // namespace
}  // namespace agt::agg
