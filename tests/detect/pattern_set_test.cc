#include "libagtcore/detect/pattern_set.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "libagtcore/detect/pattern_library.h"
#include "libagtcore/detect/rule_eval.h"

namespace agt::detect {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGood = R"toml(
format = 1
agent = "demo"
version = "1"
verified_on = ["9.9.9"]

[menu]
cursor = ["❯"]
footer = 'Esc to cancel'

[[rule]]
id = "demo.working"
state = "running"
region = "bottom_lines(2)"
regex = 'esc to interrupt'
confidence = "high"

[[rule]]
id = "demo.combo"
state = "idle"
region = "prompt_box"
regex = '^❯'
all = [{ region = "after_last_rule", regex = 'for shortcuts' }]
any = [{ region = "title", regex = '^✳' }, { region = "osc_progress", regex = '^0' }]
not = [{ region = "whole_screen", regex = 'Error' }]
)toml";

Screen MakeScreen(std::vector<std::string> lines) {
  Screen s;
  s.rows = static_cast<int>(lines.size());
  s.cols = 120;
  s.lines = std::move(lines);
  return s;
}

std::string HRule() {
  std::string r;
  for (int i = 0; i < 40; ++i) r += "─";
  return r;
}

TEST(PatternSet, ParsesRulesRegionsAndMenu) {
  auto set = ParsePatternSet(kGood, "demo.toml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->name, "demo");
  EXPECT_EQ(set->verified_on, std::vector<std::string>{"9.9.9"});
  ASSERT_EQ(set->rules.size(), 2u);
  EXPECT_EQ(set->rules[0].region, (Region{RegionKind::kBottomLines, 2}));
  EXPECT_EQ(set->rules[0].confidence, core::Confidence::kHigh);
  EXPECT_EQ(set->rules[1].cond.all.size(), 1u);
  EXPECT_EQ(set->rules[1].cond.any.size(), 2u);
  EXPECT_EQ(set->rules[1].cond.none.size(), 1u);
  EXPECT_EQ(set->menu.cursor_glyphs, std::vector<std::string>{"❯"});
}

struct Case {
  const char* text;
  std::vector<const char*> needles;
};

TEST(PatternSet, BrokenFilesNameTheFileLineRuleAndField) {
  const Case cases[] = {
      {"[[rule]]\nid = \"x.bad\"\nstate = \"idle\"\nregex = 'a(b'\n",
       {"/p/x.toml:4", "rule 'x.bad'", "field 'regex'", "missing closing parenthesis",
        "at offset 3"}},
      {"[[rule]]\nid = \"x.r\"\nstate = \"idle\"\nregion = \"bottom(3)\"\nregex = 'a'\n",
       {"rule 'x.r'", "unknown region 'bottom(3)'"}},
      {"[[rule]]\nid = \"x.s\"\nstate = \"busy\"\nregex = 'a'\n",
       {"rule 'x.s'", "unknown state 'busy'"}},
      {"[[rule]]\nid = \"x.k\"\nstate = \"idle\"\nregx = 'a'\n",
       {"rule 'x.k'", "unknown key 'regx'"}},
      {"[[rule]]\nstate = \"idle\"\nregex = 'a'\n", {"missing field 'id'"}},
      {"[[rule]]\nid = \"x.e\"\nstate = \"idle\"\n", {"rule 'x.e'", "has no test"}},
      {"[[rule]]\nid = \"x.u\"\nstate = \"unknown\"\nregex='a'\n", {"needs a 'reason'"}},
      {"[[rule]]\nid = \"x.n\"\nstate = \"idle\"\nregex = 'a'\nnot = [{ regex = '[z' "
       "}]\n",
       {"rule 'x.n'", "missing terminating ]", "not[0]"}},
      {"[[rule]]\nid = \"d\"\nstate = \"idle\"\nregex = 'a'\n[[rule]]\nid = \"d\"\nstate "
       "= \"idle\"\nregex = 'b'\n",
       {"rule 'd'", "duplicate rule id"}},
      {"this is = = not toml", {"/p/x.toml:1", "TOML syntax error"}},
  };
  for (const auto& c : cases) {
    auto set = ParsePatternSet(c.text, "/p/x.toml");
    ASSERT_FALSE(set.ok()) << c.text;
    EXPECT_EQ(set.error().code, core::Err::kPatternInvalid);
    for (const char* n : c.needles)
      EXPECT_NE(set.error().message.find(n), std::string::npos)
          << "want '" << n << "' in: " << set.error().message;
  }
}

TEST(PatternSet, AllAnyNotCombine) {
  auto set = ParsePatternSet(kGood, "demo.toml");
  ASSERT_TRUE(set.ok());
  const Rule& combo = set->rules[1];
  Screen screen = MakeScreen({"hello", HRule(), "❯ ", HRule(), "  ? for shortcuts"});
  StreamSignals sig;
  sig.title = "✳ Lab";
  AnalyzerInput in;
  in.screen = &screen;
  in.signals = &sig;
  {
    ScreenView v(in, &set->menu);
    EXPECT_TRUE(MatchRule(combo, set->menu, v).has_value());
  }
  sig.title = "⠂ Lab";  // any: title fails ...
  {
    ScreenView v(in, &set->menu);
    EXPECT_FALSE(MatchRule(combo, set->menu, v).has_value());
  }
  sig.progress_state = 0;  // ... but osc_progress holds
  {
    ScreenView v(in, &set->menu);
    EXPECT_TRUE(MatchRule(combo, set->menu, v).has_value());
  }
  screen.lines[0] = "API Error: 500";  // not: fires
  {
    ScreenView v(in, &set->menu);
    std::vector<std::string> trace;
    EXPECT_FALSE(MatchRule(combo, set->menu, v, &trace).has_value());
    ASSERT_FALSE(trace.empty());
    EXPECT_NE(trace.back().find("FAIL not[0] held"), std::string::npos) << trace.back();
  }
  screen.lines[0] = "hello";
  screen.lines[4] = "  esc to interrupt";  // all: fails
  {
    ScreenView v(in, &set->menu);
    EXPECT_FALSE(MatchRule(combo, set->menu, v).has_value());
  }
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/agtmux-detect-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(PatternLibrary, BrokenUserFileIsRejectedAndBuiltinStays) {
  TempDir builtin, user;
  builtin.Write("demo.toml", kGood);
  builtin.Write("identify.toml", "this file is not an agent set");
  user.Write("demo.toml",
             "[[rule]]\nid = \"demo.mine\"\nstate = \"idle\"\nregex = '(?<n'\n");
  auto lib = PatternLibrary::Load({builtin.path(), user.path(), {}, {}});
  const PatternSet* demo = lib->Find("demo");
  ASSERT_NE(demo, nullptr);
  EXPECT_EQ(demo->rules.size(), 2u);
  EXPECT_EQ(demo->FindRule("demo.mine"), nullptr);
  ASSERT_EQ(lib->problems().size(), 1u);
  const std::string& p = lib->problems()[0];
  EXPECT_NE(p.find(user.path() + "/demo.toml:4"), std::string::npos) << p;
  EXPECT_NE(p.find("rule 'demo.mine'"), std::string::npos) << p;
  EXPECT_NE(p.find("at offset"), std::string::npos) << p;
  EXPECT_NE(p.find("built-in set stays in force"), std::string::npos) << p;
}

TEST(PatternLibrary, UserFileExtendsOrReplaces) {
  TempDir builtin, user;
  builtin.Write("demo.toml", kGood);
  user.Write("demo.toml",
             "[[rule]]\nid = \"demo.working\"\nstate = \"running\"\nregex = 'busy'\n"
             "[[rule]]\nid = \"demo.extra\"\nstate = \"error\"\nreason = \"x\"\nregex = "
             "'boom'\n");
  auto lib = PatternLibrary::Load({builtin.path(), user.path(), {}, {}});
  const PatternSet* demo = lib->Find("demo");
  ASSERT_NE(demo, nullptr);
  ASSERT_EQ(demo->rules.size(), 3u);
  EXPECT_EQ(demo->rules[0].id, "demo.working");
  EXPECT_EQ(demo->rules[0].cond.regex->pattern(), "busy");  // the user's version
  EXPECT_EQ(demo->rules[1].id, "demo.extra");
  EXPECT_EQ(demo->rules[2].id, "demo.combo");
  EXPECT_TRUE(lib->problems().empty());

  user.Write(
      "demo.toml",
      "mode = \"replace\"\n[[rule]]\nid = \"only\"\nstate = \"idle\"\nregex = 'x'\n");
  auto lib2 = PatternLibrary::Load({builtin.path(), user.path(), {}, {}});
  ASSERT_EQ(lib2->Find("demo")->rules.size(), 1u);
  EXPECT_EQ(lib2->Find("demo")->rules[0].id, "only");
}

// `only` compiles the named sets alone, merged with the user's files as the
// whole library would be; a file of another set is not compiled, so its
// broken regex goes unreported, while a file that is not TOML is.
TEST(PatternLibrary, OnlyCompilesTheNamedSetsWithTheUserMerge) {
  TempDir builtin, user;
  builtin.Write("demo.toml", kGood);
  builtin.Write("other.toml",
                "[[rule]]\nid = \"other.bad\"\nstate = \"idle\"\nregex = '(?<n'\n");
  builtin.Write("named.toml", "agent = \"third\"\n[[rule]]\nid = \"t\"\nstate = "
                              "\"idle\"\nregex = 'x'\n");
  user.Write("demo.toml",
             "[[rule]]\nid = \"demo.extra\"\nstate = \"error\"\nreason = \"x\"\nregex = "
             "'boom'\n");
  LibraryOptions o{builtin.path(), user.path(), {}, {"demo"}};
  auto lib = PatternLibrary::Load(o);
  EXPECT_EQ(lib->Names(), (std::vector<std::string>{"demo"}));
  ASSERT_NE(lib->Find("demo"), nullptr);
  EXPECT_EQ(lib->Find("demo")->rules.size(), 3u);  // the user's rule merged in
  EXPECT_TRUE(lib->problems().empty());
  // The set name comes from `agent`, not the file name.
  o.only = {"third"};
  EXPECT_EQ(PatternLibrary::Load(o)->Names(), (std::vector<std::string>{"third"}));
  o.only = {"named"};
  EXPECT_TRUE(PatternLibrary::Load(o)->Names().empty());
  // Without the filter, other.toml's broken regex is reported.
  o.only.clear();
  EXPECT_EQ(PatternLibrary::Load(o)->problems().size(), 1u);
  // A file that is no TOML cannot be named: it is parsed and reported.
  user.Write("broken.toml", "[[rule]\n");
  o.only = {"demo"};
  auto lib2 = PatternLibrary::Load(o);
  ASSERT_EQ(lib2->problems().size(), 1u);
  EXPECT_NE(lib2->problems()[0].find("broken.toml"), std::string::npos);
}

TEST(PatternLibrary, BuiltinSetsAllLoadCleanly) {
  auto lib = PatternLibrary::Load({DefaultPatternsDir(), "", {}, {}});
  for (const auto& p : lib->problems()) ADD_FAILURE() << p;
  for (const char* name : {"claude", "generic"})
    EXPECT_NE(lib->Find(name), nullptr) << name;
}

TEST(Region, ParseAndName) {
  for (const char* r :
       {"title", "osc_progress", "bottom_lines(12)", "after_last_rule", "prompt_box",
        "above_prompt_box(3)", "whole_screen", "raw_stream", "notification", "dialog",
        "program_status"}) {
    auto p = ParseRegion(r);
    ASSERT_TRUE(p.ok()) << r;
    EXPECT_EQ(RegionName(*p), r);
  }
  for (const char* bad :
       {"bottom_lines(0)", "bottom_lines(x)", "bottom_lines(", "screen", ""})
    EXPECT_FALSE(ParseRegion(bad).ok()) << bad;
}

TEST(Region, CutsTheLayoutRegions) {
  Screen screen = MakeScreen({"old ❯ prompt", "● answer", "✢ Working…", "", HRule(),
                              "❯ typed", HRule(), "  ? for shortcuts", "", ""});
  StreamSignals sig;
  sig.title = "✳ Lab";
  sig.progress_state = 1;
  sig.progress_value = 40;
  sig.program_status = "state=blocked:app=codex:kind=permission";
  AnalyzerInput in;
  in.screen = &screen;
  in.signals = &sig;
  in.recent_output = "bytes\nmore";
  RegionCutter c(in);
  auto cut = [&](const char* r) { return c.Cut(*ParseRegion(r)).text; };
  EXPECT_EQ(cut("bottom_lines(2)"), HRule() + "\n  ? for shortcuts");
  EXPECT_EQ(cut("after_last_rule"), "  ? for shortcuts");
  EXPECT_EQ(cut("prompt_box"), "❯ typed");
  EXPECT_EQ(cut("above_prompt_box(2)"), "● answer\n✢ Working…\n");
  EXPECT_EQ(cut("title"), "✳ Lab");
  EXPECT_EQ(cut("osc_progress"), "1;40");
  EXPECT_EQ(cut("program_status"), "state=blocked:app=codex:kind=permission");
  EXPECT_EQ(cut("raw_stream"), "bytes\nmore");
  EXPECT_EQ(c.Cut(*ParseRegion("whole_screen")).rows.size(), 8u);
  RegionText t = c.Cut(*ParseRegion("whole_screen"));
  size_t at = t.text.find("Working");
  EXPECT_EQ(t.LineAt(at), "✢ Working…");
  EXPECT_EQ(t.RowAt(at), 2);
}

// The dialog region: the last menu and the rows above it up to the row that
// [menu] dialog_top says is no longer the dialog, wherever the question sits.
constexpr const char* kDialogSet = R"toml(
format = 1
agent = "demo"
[menu]
cursor = ["›"]
footer = 'Press enter to confirm'
dialog_top = '^(?:[•■]|› (?!\d+\. ))'

[[rule]]
id = "demo.approval"
state = "waiting_approval"
region = "dialog"
regex = '^\s*Would you like to run the following command\?'
menu = true
approval_type = "shell"
)toml";

TEST(Region, TheDialogRegionReachesItsQuestionAboveALongPreview) {
  auto set = ParsePatternSet(kDialogSet, "demo.toml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  std::vector<std::string> rows = {"› run the build script", "",
                                   "• Running python3 - <<'EOF'", "",
                                   "  Would you like to run the following command?", "",
                                   "  $ python3 - <<'EOF'"};
  for (int i = 0; i < 24; ++i) rows.push_back("  print('step " + std::to_string(i) + "')");
  for (const char* r : {"  EOF", "", "› 1. Yes, proceed (y)",
                        "  2. No, and tell Codex what to do differently (esc)", "",
                        "  Press enter to confirm or esc to cancel"})
    rows.emplace_back(r);
  Screen screen = MakeScreen(rows);
  AnalyzerInput in;
  in.screen = &screen;
  {
    ScreenView v(in, &set->menu);
    auto m = MatchRule(set->rules[0], set->menu, v);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->detail.choices, (std::vector<std::string>{
                                     "Yes, proceed", "No, and tell Codex what to do differently"}));
    RegionText t = v.Get(*ParseRegion("dialog"));
    EXPECT_EQ(t.rows.front(), 3);  // below "• Running ...", the dialog's top
  }
  // The same question above a transcript entry belongs to an older dialog:
  // the dialog ends at the entry, and the rule does not match.
  rows.insert(rows.begin() + 8, "• Ran something else");
  screen = MakeScreen(rows);
  {
    ScreenView v(in, &set->menu);
    EXPECT_FALSE(MatchRule(set->rules[0], set->menu, v).has_value());
  }
  // No menu on screen: the region is empty.
  screen = MakeScreen({"› hello", "• Working (0s • esc to interrupt)"});
  {
    ScreenView v(in, &set->menu);
    EXPECT_TRUE(v.Get(*ParseRegion("dialog")).text.empty());
  }
}

TEST(Region, RuleLines) {
  EXPECT_TRUE(IsRuleLine(HRule()));
  EXPECT_TRUE(IsRuleLine("╭" + HRule() + "╮"));
  EXPECT_FALSE(IsRuleLine("── title ──────────────"));
  EXPECT_FALSE(IsRuleLine("───"));
}

}  // namespace
}  // namespace agt::detect
