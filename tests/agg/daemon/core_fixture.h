// A DaemonCore over the fake engine and persistence (fake_backend.h), on a
// private libuv loop and a FakeClock, with a decorator that records what it
// was asked to show. Shared by the DaemonCore and Api unit tests.
#pragma once

#include <gtest/gtest.h>
#include <uv.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "aggregator/ingest/daemon_core.h"
#include "libagtcore/base/clock.h"
#include "tests/agg/daemon/fake_backend.h"
#include "tests/base/fake_clock.h"

namespace agt::agg::testing {

struct RecordingDecorator final : PaneDecorator {
  std::vector<std::tuple<std::string, std::string, core::State, core::Source>> shown;
  void Decorate(const std::string& target_id, const std::string& pane_id, core::State state,
                core::Source source) override {
    shown.emplace_back(target_id, pane_id, state, source);
  }
};

class CoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    uv_loop_init(&loop_);
    Open(std::make_shared<FakeDisk>());
  }
  void TearDown() override {
    core_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop_), 0);
  }

  /// (Re)creates the core over `disk`, as a daemon (re)start would.
  void Open(std::shared_ptr<FakeDisk> disk) {
    core_.reset();
    auto engine = std::make_unique<FakeEngineSeam>();
    auto store = std::make_unique<FakePersistence>(std::move(disk));
    engine_ = engine.get();
    store_ = store.get();
    CoreOptions o;
    o.host_socket = "/nonexistent/tmux-test/default";
    o.stream_id = "stream-test";
    auto c = DaemonCore::Create(&loop_, clock_, o, Backend{std::move(engine), std::move(store)});
    ASSERT_TRUE(c.ok()) << c.error().ToString();
    core_ = std::move(*c);
    core_->set_decorator(&decorator_);
  }

  uv_loop_t loop_{};
  core::FakeClock clock_;
  RecordingDecorator decorator_;
  std::unique_ptr<DaemonCore> core_;
  FakeEngineSeam* engine_ = nullptr;   // owned by core_
  FakePersistence* store_ = nullptr;  // owned by core_
};

}  // namespace agt::agg::testing
