// The live CAP gate (issue 15 item 6; docs/patterns.md, "Verifying a rule
// on recordings"): a stratified sample of the corpus (tests/fixtures, found
// as the replayed gates find them; Stratified below) played in real time into the panes of
// private tmux servers, each watched by one real agtmuxd with byte screens
// on (the default), unwrapped, so every state is CAP. The recordings are
// played in batches (kBatch panes per server and daemon, one batch after
// the other), and split into shards by agent (Claude Code's groups over two
// shards), one test each, so that meson can run two beside each other.
// Each group (agent/version/mode) is held to the CAP gate's bars, scored as
// the replayed gate scores (tests/detect/corpus.h): time-weighted agreement
// >= 97 % with 300 ms grace, no missed wait, no false waiting_approval,
// right choices and cursor. A shard judges whole groups only.
//
// With and without hooks: the shards play every recording's screen without
// its hooks (a "+hooks" recording's screen too, as the replayed CAP gate
// does), printed as LIVE; the hooks variant (the recordings with a
// hooks.jsonl) is played again with its hook events sent to the daemon at
// their recorded times (live_cap_hooks.h), and the state the daemon fuses
// from both is held to the same bars, printed as F-LIVE.
//
// The daemons read their patterns from $AGTMUX_PATTERNS_DIR, so the gate
// can be run against an edited pattern set; the last test shows it fails
// on a set without Claude Code's approval rules.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/agg/observe/live_cap.h"
#include "tests/agg/observe/live_cap_hooks.h"

namespace {

using namespace agt::detect::corpus;
using agt::test::Daemon;
using agt::test::TestEnv;
namespace live = agt::test::live_cap;

/// Panes played at once by one daemon. The recordings are sorted by length
/// before they are cut into batches, so a batch lasts about as long as its
/// longest recording and the short ones do not wait behind a long one.
constexpr size_t kBatch = 12;

/// The agents whose recordings the shards below play (a recording of any
/// other agent fails EveryRecordingHasAShard).
constexpr const char* kAgents[] = {"claude", "codex", "gemini"};

/// Plays `recs` live in batches, each to a daemon of its own reading the
/// patterns in `patterns_dir` (none: the daemon's default), with their hook
/// events when `hooks` (live_cap_hooks.h), and returns each group's verdict
/// against the CAP bars, printing the figures under `label` (scripts/test.sh
/// repeats the group lines).
std::vector<GroupVerdict> PlayLive(const char* label, std::vector<live::Recording> recs,
                                   const std::string& patterns_dir, bool hooks = false) {
  std::stable_sort(recs.begin(), recs.end(),
                   [](const live::Recording& a, const live::Recording& b) { return a.duration > b.duration; });
  std::map<std::string, Score> groups;
  std::map<std::string, int> counts;
  for (size_t first = 0; first < recs.size(); first += kBatch) {
    std::vector<live::Recording> batch(recs.begin() + first,
                                       recs.begin() + std::min(recs.size(), first + kBatch));
    std::vector<std::vector<HookRecord>> events(batch.size());
    size_t to_send = 0;
    std::vector<std::set<std::string>> hook_rules(batch.size());  // the rules the hooks' signals name
    if (hooks)
      for (size_t i = 0; i < batch.size(); ++i) {
        auto h = LoadHooks(batch[i].fixture.dir);
        EXPECT_TRUE(h.ok()) << batch[i].fixture.dir << ": " << h.error().message;
        if (h.ok()) events[i] = std::move(h).value();
        to_send += events[i].size();
        for (const auto& e : events[i])
          if (e.event.signal) hook_rules[i].insert(e.event.signal->rule_id);
      }
    TestEnv env;
    if (!patterns_dir.empty()) env.vars.push_back("AGTMUX_PATTERNS_DIR=" + patterns_dir);
    live::Lab lab(env);
    lab.CreatePanes(batch);
    for (const auto& r : batch) EXPECT_FALSE(r.pane.empty()) << "no pane for " << r.fixture.dir;
    Daemon daemon(env);
    EXPECT_TRUE(daemon.WaitReady());
    live::HookPlayer player(daemon, lab, std::move(events));
    std::vector<std::vector<Timeline>> timelines;
    const bool listed = lab.PlayAndWatch(batch, {&daemon}, &timelines, 2000, 1.0, [&] {
      if (hooks) player.Start(batch);
    });
    EXPECT_TRUE(listed) << "the daemon never listed every pane of a batch as an agent";
    if (!listed) return {};
    player.Join();
    for (const auto& p : player.problems()) ADD_FAILURE() << p;
    EXPECT_EQ(size_t(player.sent()), to_send) << "hook events the daemon took";
    for (size_t i = 0; i < batch.size(); ++i) {
      const Fixture& f = batch[i].fixture;
      EXPECT_NE(batch[i].start, 0) << f.dir << " never started playing";
      if (hooks) {
        // The daemon bound the hooks to the live pane: its state came from
        // them at least once.
        const bool shown = std::any_of(timelines[0][i].begin(), timelines[0][i].end(),
                                       [&](const Point& p) { return hook_rules[i].count(p.signal.rule_id) > 0; });
        EXPECT_TRUE(shown) << f.dir << ": the pane's state never came from its hooks";
      }
      Score s = live::ScoreLive(batch[i], timelines[0][i]);
      std::printf("%s %-48s agree %6.2f%% of %6.1fs  false_approval %.2fs  waits %d missed %d  "
                  "detail_wrong %.2fs\n",
                  label, (f.Group() + "/" + f.scenario).c_str(), 100 * s.Agreement(), s.counted,
                  s.false_approval, s.waits, s.missed_waits, s.detail_wrong);
      groups[f.Group()].Add(s);
      ++counts[f.Group()];
    }
    std::fflush(stdout);
  }
  auto verdicts = JudgeGroups(groups, counts, kCapBar);
  std::printf("\n");
  for (const auto& v : verdicts) std::printf("%s\n", FormatVerdict(label, v).c_str());
  for (const auto& v : verdicts) {
    if (!v.score.problems.empty()) std::printf("\n-- %s %s\n", label, v.group.c_str());
    for (const auto& p : v.score.problems) std::printf("     %s\n", p.c_str());
  }
  return verdicts;
}

/// Every recording of the corpus, loaded (with `hooks`: only those with a
/// hooks.jsonl).
std::vector<live::Recording> Corpus(bool hooks = false) {
  std::vector<live::Recording> out;
  for (const auto& dir : FindFixtures(FixturesRoot())) {
    if (hooks && !HasHooks(dir)) continue;
    auto r = live::LoadRecording(dir);
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (r.ok()) out.push_back(std::move(r).value());
  }
  return out;
}

/// The stratified sample the shards play (docs/patterns.md, "The live
/// gate"): from each agent/version/mode group, recordings taken greedily
/// (the one adding the most states of the truth not yet covered, the shorter
/// on a tie) while one adds a state no recording taken so far has, so every group
/// and every state it goes through is played live at least once. The replayed
/// gates read every recording; this gate checks that the live path (tmux,
/// the daemon's byte screens and captures, fusion) agrees on each kind of
/// moment, without replaying an hour of recordings in real time.
/// AGTMUX_LIVE_ALL=1 plays every recording.
std::vector<live::Recording> Stratified(std::vector<live::Recording> recs) {
  const char* all = std::getenv("AGTMUX_LIVE_ALL");
  if (all != nullptr && std::string(all) == "1") return recs;
  std::map<std::string, std::vector<live::Recording*>> groups;
  for (auto& r : recs) groups[r.fixture.Group()].push_back(&r);
  std::set<const live::Recording*> keep;
  for (auto& [g, members] : groups) {
    auto states = [](const live::Recording* r) {
      std::set<int> s;
      for (const auto& e : r->fixture.truth) s.insert(int(e.state));
      return s;
    };
    std::set<int> covered;
    bool took = false;
    for (;;) {
      live::Recording* best = nullptr;
      size_t best_new = 0;
      for (auto* r : members) {
        if (keep.count(r) > 0) continue;
        size_t added = 0;
        for (int s : states(r)) added += covered.count(s) == 0 ? 1 : 0;
        if (best == nullptr || added > best_new || (added == best_new && r->duration < best->duration)) {
          best = r;
          best_new = added;
        }
      }
      if (best == nullptr || (best_new == 0 && took)) break;
      keep.insert(best);
      took = true;
      for (int s : states(best)) covered.insert(s);
    }
  }
  std::vector<live::Recording> out;
  for (auto& r : recs)
    if (keep.count(&r) > 0) out.push_back(std::move(r));
  return out;
}

/// Shard `k` of `n` of `agent`'s recordings: its groups dealt to the shards
/// by length (the longest group first, each to the shard with the least
/// playing time so far), so the shards last about as long and each group
/// is judged whole in one of them.
std::vector<live::Recording> Shard(const std::string& agent, int k, int n) {
  std::map<std::string, double> length;
  std::vector<live::Recording> mine;
  auto corpus = Corpus();
  double all_s = 0, played_s = 0;
  size_t all_n = 0;
  for (const auto& r : corpus)
    if (r.fixture.agent == agent) all_s += r.duration, ++all_n;
  auto sample = Stratified(std::move(corpus));
  size_t played_n = 0;
  for (const auto& r : sample)
    if (r.fixture.agent == agent) played_s += r.duration, ++played_n;
  std::printf("LIVE sample of %s: %zu of %zu recordings, %.0f s of %.0f s\n", agent.c_str(), played_n, all_n,
              played_s, all_s);
  for (auto& r : sample) {
    if (r.fixture.agent != agent) continue;
    length[r.fixture.Group()] += r.duration;
    mine.push_back(std::move(r));
  }
  std::vector<std::pair<double, std::string>> by_length;
  for (const auto& [g, l] : length) by_length.push_back({l, g});
  std::sort(by_length.rbegin(), by_length.rend());
  std::vector<double> load(size_t(n), 0.0);
  std::set<std::string> picked;
  for (const auto& [l, g] : by_length) {
    const size_t to = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    load[to] += l;
    if (int(to) == k) picked.insert(g);
  }
  std::vector<live::Recording> out;
  for (auto& r : mine)
    if (picked.count(r.fixture.Group()) > 0) out.push_back(std::move(r));
  return out;
}

std::string PatternsDir() {
  const char* p = std::getenv("AGTMUX_PATTERNS_DIR");
  return p != nullptr ? p : "";
}

void RunShard(const std::string& agent, int k, int n) {
  auto recs = Shard(agent, k, n);
  ASSERT_FALSE(recs.empty()) << "no " << agent << " recordings under " << FixturesRoot();
  std::set<std::string> expected;
  for (const auto& r : recs) expected.insert(r.fixture.Group());
  auto verdicts = PlayLive("LIVE", std::move(recs), PatternsDir());
  ASSERT_EQ(verdicts.size(), expected.size()) << "one verdict per agent/version/mode group";
  for (const auto& v : verdicts) EXPECT_TRUE(v.failures.empty()) << FormatVerdict("LIVE", v);
}

TEST(LiveCapGate, Claude1of2) { RunShard("claude", 0, 2); }
TEST(LiveCapGate, Claude2of2) { RunShard("claude", 1, 2); }
TEST(LiveCapGate, Codex) { RunShard("codex", 0, 1); }
TEST(LiveCapGate, Gemini) { RunShard("gemini", 0, 1); }

// Every recording is played by one of the shards above.
TEST(LiveCapGate, EveryRecordingHasAShard) {
  auto dirs = FindFixtures(FixturesRoot());
  ASSERT_FALSE(dirs.empty()) << "no fixtures under " << FixturesRoot();
  for (const auto& dir : dirs) {
    auto f = LoadFixture(dir);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_NE(std::find(std::begin(kAgents), std::end(kAgents), f->agent), std::end(kAgents))
        << dir << ": no live shard plays " << f->agent << "'s recordings (add one to live_cap_gate_test.cc "
        << "and tests/agg/observe/meson.build)";
  }
}

// With the hooks installed: the hooks variant with its hook events sent
// live, the daemon fusing them with what it reads on the screen.
TEST(LiveCapGate, WithHooks) {
  auto recs = Corpus(true);
  ASSERT_FALSE(recs.empty()) << "no recording with hooks.jsonl under " << FixturesRoot();
  std::set<std::string> expected;
  for (const auto& r : recs) expected.insert(r.fixture.Group());
  auto verdicts = PlayLive("F-LIVE", std::move(recs), PatternsDir(), true);
  ASSERT_EQ(verdicts.size(), expected.size()) << "one verdict per agent/version/mode group";
  for (const auto& v : verdicts) EXPECT_TRUE(v.failures.empty()) << FormatVerdict("F-LIVE", v);
}

// The gate can fail: with Claude Code's approval rules (and the generic
// set's dialog rules under them) taken out of a copy of the pattern sets,
// its approval is missed live and the group fails.
TEST(LiveCapGate, FailsWithoutClaudesApprovalRules) {
  const std::string src = PatternsDir();
  ASSERT_FALSE(src.empty()) << "AGTMUX_PATTERNS_DIR is not set (meson sets it)";
  TestEnv scratch;
  const std::string dir = scratch.root + "/patterns";
  std::filesystem::copy(src, dir, std::filesystem::copy_options::recursive);
  // Drops every [[rule]] block of `file` whose id starts with `prefix`;
  // returns how many.
  auto drop = [&dir](const std::string& file, const std::string& prefix) {
    std::ifstream in(dir + "/" + file);
    std::stringstream text;
    text << in.rdbuf();
    std::string kept, block;
    bool hit = false;
    std::string line;
    int dropped = 0;
    auto flush = [&] {
      if (hit) ++dropped;
      else kept += block;
      block.clear();
      hit = false;
    };
    while (std::getline(text, line)) {
      if (line.rfind("[[rule]]", 0) == 0 || (line.rfind("[", 0) == 0 && line.rfind("[[rule.", 0) != 0 &&
                                             line.rfind("[rule.", 0) != 0))
        flush();
      if (line.rfind("id = \"" + prefix, 0) == 0) hit = true;
      block += line + "\n";
    }
    flush();
    std::ofstream(dir + "/" + file, std::ios::trunc) << kept;
    return dropped;
  };
  ASSERT_GE(drop("claude.toml", "claude.approval."), 2)
      << "no claude.approval.* rules found in " << src << "/claude.toml";
  // The generic set's structural dialog rules run under Claude's and would
  // read the dialog (docs/patterns.md, "Generic evidence"): they go too.
  ASSERT_GE(drop("generic.toml", "generic.dialog."), 1)
      << "no generic.dialog.* rules found in " << src << "/generic.toml";
  auto rec = live::LoadRecording(FixturesRoot() + "/claude/2.1.330/shell_approved");
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  auto verdicts = PlayLive("LIVE-BROKEN", {std::move(rec).value()}, dir);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_FALSE(verdicts[0].failures.empty()) << "the gate passed without Claude's approval rules";
  EXPECT_GE(verdicts[0].score.missed_waits, 1);
}

}  // namespace
