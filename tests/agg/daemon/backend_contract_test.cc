// The fakes of tests/agg/daemon/fake_backend.h against the real engine
// (EngineSeam over state::Engine) and the real persistence (the SQLite store
// in a temporary directory): the same expectations run on both, so a fake
// that drifts from what it stands for fails here.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "aggregator/ingest/persistence.h"
#include "aggregator/view/engine_seam.h"
#include "tests/agg/daemon/fake_backend.h"
#include "tests/state/event_builder.h"

namespace agt::agg {
namespace {

using namespace state::testing;  // NOLINT: the event builders
using state::Disposition;

// ---- EngineSeam -----------------------------------------------------------

struct CoreMaker {
  const char* name;
  std::function<std::unique_ptr<EngineSeam>()> make;
};

class StateCoreContract : public ::testing::TestWithParam<CoreMaker> {
 protected:
  void SetUp() override { core_ = GetParam().make(); }
  state::Effects Apply(const core::Event& e) {
    state::Effects fx;
    core_->ApplyInto(e, e.ingested_at, &fx);
    return fx;
  }
  std::unique_ptr<EngineSeam> core_;
};

TEST_P(StateCoreContract, AStartedRuntimeThenItsSignal) {
  state::Effects fx = Apply(WrapperStart("w1", "%1", 100, T(0)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  ASSERT_EQ(fx.runtimes.size(), 1u);
  ASSERT_NE(core_->ActiveRuntime("host", "%1"), nullptr);
  EXPECT_EQ(core_->ActiveRuntime("host", "%1")->runtime_id, "w1");
  EXPECT_EQ(core_->FindRuntime("w1")->owner, core::Source::kWrapper);
  ASSERT_NE(core_->FindPane("host", "%1"), nullptr);
  EXPECT_EQ(core_->FindPane("host", "%1")->signal.state, core::State::kUnknown);
  EXPECT_EQ(core_->FindPane("host", "%1")->signal.reason_code, "no_signal");

  fx = Apply(StateEv("s1", core::Source::kHook, "w1", core::State::kWaitingInput, T(1)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  ASSERT_FALSE(fx.states.empty());
  EXPECT_EQ(fx.states.back().signal.state, core::State::kWaitingInput);
  ASSERT_TRUE(fx.stored_event);
  EXPECT_EQ(core_->FindPane("host", "%1")->signal.state, core::State::kWaitingInput);
  EXPECT_EQ(core_->FindPane("host", "%1")->runtime_id, "w1");
  EXPECT_EQ(core_->AllPanes().size(), 1u);
  EXPECT_EQ(core_->FindPane("host", "%2"), nullptr);
  state::FusionResult why = core_->Explain("host", "%1", T(1));
  EXPECT_TRUE(why.has_winner);
  EXPECT_EQ(why.winner, core::Source::kHook);
}

TEST_P(StateCoreContract, ADuplicateChangesNothingAndReusedEffectsAreOverwritten) {
  Apply(WrapperStart("w1", "%1", 100, T(0)));
  Apply(StateEv("s1", core::Source::kHook, "w1", core::State::kRunning, T(1)));
  const state::PaneState before = *core_->FindPane("host", "%1");
  // An Effects still holding rows from an earlier call (the daemon reuses them).
  state::Effects fx = Apply(StateEv("s2", core::Source::kHook, "w1", core::State::kIdle, T(2)));
  ASSERT_FALSE(fx.states.empty());
  core::Event again = StateEv("s2", core::Source::kHook, "w1", core::State::kError, T(3));
  core_->ApplyInto(again, again.ingested_at, &fx);
  EXPECT_EQ(fx.disposition, Disposition::kDuplicate);
  EXPECT_TRUE(fx.states.empty());
  EXPECT_TRUE(fx.runtimes.empty());
  EXPECT_FALSE(fx.stored_event);
  EXPECT_EQ(core_->FindPane("host", "%1")->signal.state, core::State::kIdle);
  EXPECT_NE(*core_->FindPane("host", "%1"), before);
}

TEST_P(StateCoreContract, TargetHealthIsReported) {
  state::Effects fx = Apply(Ev(et::kTargetHealthChanged, core::Source::kPoller, "h1").Pane("host", "")
                                .Health("down").At(T(1)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  ASSERT_EQ(fx.target_health.size(), 1u);
  EXPECT_EQ(fx.target_health[0], std::make_pair(std::string("host"), core::TargetHealth::kDown));
}

TEST_P(StateCoreContract, RestoreReplacesEverything) {
  Apply(WrapperStart("w1", "%1", 100, T(0)));
  state::EngineSnapshot snap;
  state::Runtime rt;
  rt.runtime_id = "w9";
  rt.target_id = "host";
  rt.pane_id = "%9";
  rt.agent_type = "codex";
  rt.started_at = T(5);
  rt.owner = core::Source::kWrapper;
  snap.runtimes.push_back(rt);
  state::PaneState ps;
  ps.target_id = "host";
  ps.pane_id = "%9";
  ps.runtime_id = "w9";
  ps.signal.state = core::State::kRunning;
  ps.signal.confidence = core::Confidence::kHigh;
  ps.signal.rule_id = "r";
  ps.source = core::Source::kWrapper;
  ps.has_source = true;
  ps.state_version = T(6);
  ps.last_seen_at = ps.updated_at = T(6);
  snap.states.push_back(ps);
  core_->Restore(snap);
  EXPECT_EQ(core_->FindPane("host", "%1"), nullptr);
  ASSERT_NE(core_->FindPane("host", "%9"), nullptr);
  EXPECT_EQ(core_->FindPane("host", "%9")->signal.state, core::State::kRunning);
  ASSERT_NE(core_->ActiveRuntime("host", "%9"), nullptr);
  EXPECT_EQ(core_->ActiveRuntime("host", "%9")->runtime_id, "w9");
}

TEST_P(StateCoreContract, NothingDueWhenNothingWaits) {
  Apply(WrapperStart("w1", "%1", 100, T(0)));
  state::Effects fx = core_->Tick(T(1));
  EXPECT_TRUE(fx.states.empty() && fx.inbox.empty() && fx.runtimes.empty());
  EXPECT_TRUE(core_->DueDemotions(T(1000)).empty());
}

INSTANTIATE_TEST_SUITE_P(
    RealAndFake, StateCoreContract,
    ::testing::Values(CoreMaker{"engine", [] { return CreateEngineSeam(state::EngineOptions{}); }},
                      CoreMaker{"fake", [] { return std::make_unique<testing::FakeEngineSeam>(); }}),
    [](const ::testing::TestParamInfo<CoreMaker>& i) { return std::string(i.param.name); });

// ---- Persistence ---------------------------------------------------------

/// Opens "the same database" again each time it is called.
struct PersistenceMaker {
  const char* name;
  std::function<std::function<std::unique_ptr<Persistence>()>(const std::string& dir)> opener;
};

class PersistenceContract : public ::testing::TestWithParam<PersistenceMaker> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agtmux-persist-XXXXXX";
    dir_ = mkdtemp(tmpl);
    open_ = GetParam().opener(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
  std::function<std::unique_ptr<Persistence>()> open_;
};

TEST_P(PersistenceContract, WhatWasCommittedIsRestoredAfterAReopen) {
  core::TimeNs last = 0;
  {
    std::unique_ptr<Persistence> p = open_();
    std::unique_ptr<EngineSeam> core = CreateEngineSeam(state::EngineOptions{});
    ASSERT_TRUE(p->Restore(*core).ok());
    std::vector<Applied> batch(2);
    batch[0].event = WrapperStart("w1", "%1", 100, T(0));
    batch[1].event = StateEv("s1", core::Source::kWrapper, "w1", core::State::kWaitingApproval, T(1));
    for (Applied& a : batch) core->ApplyInto(a.event, a.event.ingested_at, &a.effects);
    last = batch[1].event.ingested_at;
    ASSERT_TRUE(p->Commit(batch, T(1)).ok());
    ASSERT_TRUE(p->Flush().ok());
  }
  std::unique_ptr<Persistence> p = open_();
  std::unique_ptr<EngineSeam> core = CreateEngineSeam(state::EngineOptions{});
  auto newest = p->Restore(*core);
  ASSERT_TRUE(newest.ok()) << newest.error().ToString();
  EXPECT_EQ(*newest, last);
  ASSERT_NE(core->FindPane("host", "%1"), nullptr);
  EXPECT_EQ(core->FindPane("host", "%1")->signal.state, core::State::kWaitingApproval);
  ASSERT_NE(core->ActiveRuntime("host", "%1"), nullptr);
  EXPECT_EQ(core->ActiveRuntime("host", "%1")->runtime_id, "w1");
  auto report = p->RunRetention(T(2), state::RetentionOptions{});
  EXPECT_TRUE(report.ok());
}

TEST_P(PersistenceContract, AnEmptyStoreRestoresNothing) {
  std::unique_ptr<Persistence> p = open_();
  std::unique_ptr<EngineSeam> core = CreateEngineSeam(state::EngineOptions{});
  auto newest = p->Restore(*core);
  ASSERT_TRUE(newest.ok());
  EXPECT_EQ(*newest, 0);
  EXPECT_TRUE(core->AllPanes().empty());
}

INSTANTIATE_TEST_SUITE_P(
    RealAndFake, PersistenceContract,
    ::testing::Values(
        PersistenceMaker{"sqlite",
                         [](const std::string& dir) -> std::function<std::unique_ptr<Persistence>()> {
                           return [dir] {
                             BackendOptions o;
                             o.state_dir = dir;
                             o.fast_durability = true;
                             auto b = CreateBackend(o);
                             EXPECT_TRUE(b.ok()) << b.error().ToString();
                             return std::move(b->persistence);
                           };
                         }},
        PersistenceMaker{"fake",
                         [](const std::string&) -> std::function<std::unique_ptr<Persistence>()> {
                           auto disk = std::make_shared<testing::FakeDisk>();
                           return [disk] { return std::make_unique<testing::FakePersistence>(disk); };
                         }}),
    [](const ::testing::TestParamInfo<PersistenceMaker>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace agt::agg
