// Screen dumps (tests/fixtures/screens/): single captured screens that the lab
// could not record as they were seen, each with the verdict it must get
// (<name>.expect: agent, state, rule_id). `agtmux patterns test <name>.txt`
// shows the same verdict.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>

#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/detect/pattern_library.h"

namespace agt::detect {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Rows(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

TEST(ScreenDumps, EachGetsItsVerdict) {
  const fs::path dir = fs::path(DefaultPatternsDir()).parent_path() / "tests/fixtures/screens";
  auto lib = PatternLibrary::Load({DefaultPatternsDir(), "", {}, {}});
  int checked = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".expect") continue;
    auto want_text = ReadTextFile(e.path().string());
    ASSERT_TRUE(want_text.ok()) << e.path();
    rapidjson::Document want;
    want.Parse(want_text->data(), want_text->size());
    ASSERT_TRUE(want.IsObject()) << e.path();
    auto screen_text = ReadTextFile(fs::path(e.path()).replace_extension(".txt").string());
    ASSERT_TRUE(screen_text.ok()) << e.path();
    Screen screen;
    screen.lines = Rows(*screen_text);
    screen.rows = static_cast<int>(screen.lines.size());
    screen.cols = 120;
    StreamSignals signals;
    AnalyzerInput in;
    in.screen = &screen;
    in.signals = &signals;
    in.captured = true;
    const PatternSet* set = lib->ForAgent(want["agent"].GetString());
    ASSERT_NE(set, nullptr) << e.path();
    ScreenReading r = ReadScreen(*set, in);
    ASSERT_TRUE(r.best.has_value()) << e.path() << ": no rule matched";
    EXPECT_EQ(core::StateName(r.best->rule->state), want["state"].GetString()) << e.path();
    EXPECT_EQ(r.best->rule->id, want["rule_id"].GetString()) << e.path();
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no screen dumps in " << dir;
}

}  // namespace
}  // namespace agt::detect
