// Screen dumps (tests/fixtures/screens/): single captured screens that the lab
// could not record as they were seen (other releases, other people's
// captures), each with the verdict it must get (<name>.expect: agent, state,
// rule_id). Read as `agtmux patterns test <name>.txt` reads them, through the
// whole analyzer, so it shows the same verdict.
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
    ASSERT_NE(lib->ForAgent(want["agent"].GetString()), nullptr) << e.path();
    // As `agtmux patterns test` reads a screen: twice, the second time 99 s
    // later, so that settle times pass and the screen has stood still (a
    // kept screen has), then at each recheck the analyzer asks for (a
    // debounce); the generic set runs under the agent's own.
    auto analyzer = CreateAnalyzer(lib, want["agent"].GetString());
    in.agent_type = want["agent"].GetString();
    in.now = core::kNsPerSec;
    analyzer->Analyze(in);
    in.now = 100 * core::kNsPerSec;
    Verdict v = analyzer->Analyze(in);
    for (int i = 0; i < 10 && v.recheck_at > in.now; ++i) {
      in.now = v.recheck_at;
      v = analyzer->Analyze(in);
    }
    const core::Signal& got = v.signal;
    EXPECT_EQ(core::StateName(got.state), want["state"].GetString())
        << e.path() << ": rule " << got.rule_id << ", evidence " << got.evidence;
    EXPECT_EQ(got.rule_id, want["rule_id"].GetString()) << e.path();
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no screen dumps in " << dir;
}

}  // namespace
}  // namespace agt::detect
