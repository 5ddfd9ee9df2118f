// FakeActionWorld (fake_world.h) against the daemon's world
// (aggregator/actions/daemon_action_world.h, over a DaemonCore): the same
// expectations on both, so the fake the ActionService tests use cannot
// drift from the world the daemon gives the service.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <memory>

#include "aggregator/actions/daemon_action_world.h"
#include "tests/agg/actions/fake_world.h"
#include "tests/agg/daemon/fake_backend.h"
#include "tests/state/event_builder.h"
#include "tests/base/fake_clock.h"

namespace agt::agg {
namespace {

/// One world with: target `host` (local), target `vm1` (ssh), and an agent
/// (runtime w1, pid `pid`) in host's pane %1 waiting for input.
struct World {
  virtual ~World() = default;
  virtual ActionWorld& get() = 0;
};

struct FakeWorld final : World {
  explicit FakeWorld(int64_t pid) {
    TargetStatus vm;
    vm.spec = TargetSpec{"vm1", "ssh", "", "vm1"};
    w.targets.push_back(vm);
    PaneRow r;
    r.target = "host";
    r.pane_id = "%1";
    r.agent = true;
    r.runtime_id = "w1";
    r.runtime_pid = pid;
    r.st.signal.state = core::State::kWaitingInput;
    w.panes.push_back(r);
    w.live_pids.insert(pid);
  }
  ActionWorld& get() override { return w; }
  testing::FakeActionWorld w;
};

struct RealWorld final : World {
  explicit RealWorld(int64_t pid) {
    uv_loop_init(&loop);
    CoreOptions o;
    o.host_socket = "/nonexistent/tmux-test/default";
    auto c = DaemonCore::Create(&loop, clock, o,
                                Backend{std::make_unique<testing::FakeEngineSeam>(),
                                        std::make_unique<testing::FakePersistence>()});
    EXPECT_TRUE(c.ok());
    core = std::move(*c);
    EXPECT_TRUE(core->targets().Add({"vm1", "ssh", "", "vm1"}).ok());
    core::Event start = state::testing::WrapperStart("w1", "%1", pid, clock.Now());
    core::Event waiting = state::testing::StateEv("s1", core::Source::kHook, "w1", core::State::kWaitingInput,
                                                  clock.Now());
    start.ingested_at = waiting.ingested_at = 0;
    EXPECT_TRUE(core->Ingest({start, waiting}).ok());
    world = MakeDaemonWorld(core.get());
  }
  ~RealWorld() override {
    world.reset();
    core.reset();
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
  }
  ActionWorld& get() override { return *world; }
  uv_loop_t loop{};
  core::FakeClock clock;
  std::unique_ptr<DaemonCore> core;
  std::unique_ptr<ActionWorld> world;
};

struct Maker {
  const char* name;
  std::function<std::unique_ptr<World>(int64_t pid)> make;
};

class WorldContract : public ::testing::TestWithParam<Maker> {
 protected:
  void SetUp() override {
    child_ = fork();
    ASSERT_GE(child_, 0);
    if (child_ == 0) {
      pause();
      _exit(0);
    }
    world_ = GetParam().make(child_);
  }
  void TearDown() override {
    world_.reset();
    if (child_ > 0) {
      kill(child_, SIGKILL);
      waitpid(child_, nullptr, 0);
    }
  }
  pid_t child_ = -1;
  std::unique_ptr<World> world_;
};

TEST_P(WorldContract, TargetsAndTheirExecutors) {
  ActionWorld& w = world_->get();
  const TargetStatus* host = w.FindTarget("host");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->spec.kind, "local");
  EXPECT_EQ(w.FindTarget("nope"), nullptr);
  TargetExecutor* ex = w.Executor(*host);
  ASSERT_NE(ex, nullptr);
  auto r = ex->Run({"true"}, ExecOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0);
  const TargetStatus* vm = w.FindTarget("vm1");
  ASSERT_NE(vm, nullptr);
  EXPECT_EQ(w.Executor(*vm), nullptr);  // no actions over ssh from here
}

TEST_P(WorldContract, PanesShowTheAgent) {
  std::vector<PaneRow> panes = world_->get().Panes();
  ASSERT_EQ(panes.size(), 1u);
  EXPECT_EQ(panes[0].target, "host");
  EXPECT_EQ(panes[0].pane_id, "%1");
  EXPECT_TRUE(panes[0].agent);
  EXPECT_EQ(panes[0].runtime_id, "w1");
  EXPECT_EQ(panes[0].runtime_pid, child_);
  EXPECT_EQ(panes[0].st.signal.state, core::State::kWaitingInput);
}

TEST_P(WorldContract, SignalsGoOnlyToProcessesThatExist) {
  ActionWorld& w = world_->get();
  for (int64_t pid : {int64_t{0}, int64_t{1}, int64_t{-4}}) {
    auto st = w.Signal(pid, SIGTERM);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, core::Err::kPidUnavailable);
  }
  EXPECT_TRUE(w.Signal(child_, SIGTERM).ok());
  // A pid no process has: E_IO (the real one asks kill(2); the fake knows).
  pid_t gone = fork();
  ASSERT_GE(gone, 0);
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  auto st = w.Signal(gone, SIGTERM);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, core::Err::kIo);
  w.Sleep(core::kNsPerMs);
}

INSTANTIATE_TEST_SUITE_P(
    RealAndFake, WorldContract,
    ::testing::Values(Maker{"daemon", [](int64_t pid) -> std::unique_ptr<World> { return std::make_unique<RealWorld>(pid); }},
                      Maker{"fake", [](int64_t pid) -> std::unique_ptr<World> { return std::make_unique<FakeWorld>(pid); }}),
    [](const ::testing::TestParamInfo<Maker>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace agt::agg
