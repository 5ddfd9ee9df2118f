// config.toml's [wrap] reaches the wrapper's analyzer: AnalyzerTimingFor
// maps each key to its timing field, the defaults of both agree, and an
// analyzer built with the mapped timing acts on it (a running_window of
// 1 s keeps output 500 ms old "running"; the 200 ms default does not).
#include <gtest/gtest.h>

#include "libagtcore/config.h"
#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/detect/pattern_library.h"
#include "wrap/analyzer_factory.h"

namespace agt::wrap {
namespace {

using core::kNsPerMs;

TEST(AnalyzerTimingTest, EachWrapKeyMapsToItsTimingField) {
  core::Result<core::Config> c = core::ParseConfig(
      "[wrap]\nrunning_window = \"1s\"\necho_grace = \"40ms\"\napproval_settle = \"2.5s\"\n"
      "idle_debounce = \"0s\"\n",
      "config.toml");
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  detect::AnalyzerOptions o = AnalyzerTimingFor(c->wrap);
  EXPECT_EQ(o.activity_ms, 1000);
  EXPECT_EQ(o.echo_grace_ms, 40);
  EXPECT_EQ(o.approval_settle_ms, 2500);
  EXPECT_EQ(o.debounce_ms, 0);
}

TEST(AnalyzerTimingTest, DefaultsAgreeWithTheAnalyzers) {
  detect::AnalyzerOptions mapped = AnalyzerTimingFor(core::WrapConfig{});
  detect::AnalyzerOptions analyzer;
  EXPECT_EQ(mapped.activity_ms, analyzer.activity_ms);
  EXPECT_EQ(mapped.echo_grace_ms, analyzer.echo_grace_ms);
  EXPECT_EQ(mapped.approval_settle_ms, analyzer.approval_settle_ms);
  EXPECT_EQ(mapped.debounce_ms, analyzer.debounce_ms);
}

// A pattern set with no rules and no [timing]: only the analyzer's timing
// speaks, so the running window decides.
TEST(AnalyzerTimingTest, AnAnalyzerBuiltWithTheMappedTimingUsesIt) {
  auto lib = std::make_shared<detect::PatternLibrary>();
  detect::PatternSet bare;
  bare.name = "bare";
  lib->Put(bare);
  detect::AnalyzerInput in;
  in.last_output = 1000 * kNsPerMs;
  in.now = 1500 * kNsPerMs;  // output 500 ms ago
  core::WrapConfig wide;
  wide.running_window = 1000 * kNsPerMs;
  auto with_config = detect::CreateAnalyzer(lib, "bare", AnalyzerTimingFor(wide));
  auto with_default = detect::CreateAnalyzer(lib, "bare", AnalyzerTimingFor(core::WrapConfig{}));
  EXPECT_EQ(with_config->Analyze(in).signal.state, core::State::kRunning);
  EXPECT_NE(with_default->Analyze(in).signal.state, core::State::kRunning);
}

}  // namespace
}  // namespace agt::wrap
