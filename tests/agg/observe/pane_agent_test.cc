// Agent identification from canned /proc files and process names.
#include "aggregator/observe/pane_agent.h"

#include <gtest/gtest.h>

namespace agt::agg {
namespace {

ProcessView Proc(std::string comm, std::vector<std::string> argv) {
  ProcessView v;
  v.pid = 10;
  v.comm = std::move(comm);
  v.argv = std::move(argv);
  return v;
}

TEST(IdentifyAgent, ProcessNames) {
  auto c = Proc("claude", {"claude", "--dangerously-skip-permissions"});
  EXPECT_EQ(IdentifyAgent("claude", &c).agent_type, "claude");
  auto v = Proc("2.1.197", {"claude"});
  EXPECT_EQ(IdentifyAgent("2.1.197", &v).agent_type, "claude");
  auto g = Proc("gemini", {"gemini"});
  EXPECT_EQ(IdentifyAgent("gemini", &g).agent_type, "gemini");
  EXPECT_EQ(IdentifyAgent("codex", nullptr).agent_type, "codex");  // ssh: name only
  EXPECT_EQ(IdentifyAgent("2.1", nullptr).agent_type, "");
  EXPECT_EQ(IdentifyAgent("1.2.3.4", nullptr).agent_type, "");
}

TEST(IdentifyAgent, NodeLaunchersNeedTheScript) {
  auto codex = Proc("node", {"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js", "--no-daemon"});
  EXPECT_EQ(IdentifyAgent("node", &codex).agent_type, "codex");
  auto gem = Proc("node", {"/usr/bin/node", "--no-warnings", "/x/@google/gemini-cli/dist/index.js"});
  EXPECT_EQ(IdentifyAgent("node", &gem).agent_type, "gemini");
  auto bin = Proc("node", {"node", "/home/u/.local/bin/codex"});
  EXPECT_EQ(IdentifyAgent("node", &bin).agent_type, "codex");
  auto other = Proc("node", {"node", "server.js"});
  EXPECT_EQ(IdentifyAgent("node", &other).agent_type, "");
}

TEST(IdentifyAgent, EditorsAndPagersAreExcluded) {
  auto vim = Proc("vim", {"vim", "codex.rs"});
  EXPECT_EQ(IdentifyAgent("vim", &vim).agent_type, "");
  auto less = Proc("less", {"less", "claude"});
  EXPECT_EQ(IdentifyAgent("less", &less).agent_type, "");
  auto sh = Proc("bash", {"-bash"});
  EXPECT_EQ(IdentifyAgent("bash", &sh).agent_type, "");
}

TEST(IdentifyAgent, RenamedArgv0) {
  auto r = Proc("sh", {"claude", "/tmp/replay.sh"});
  EXPECT_EQ(IdentifyAgent("sh", &r).agent_type, "claude");
}

TEST(IdentifyAgent, TitleIsTheWeakestEvidence) {
  auto py = Proc("python3", {"python3", "tool.py"});
  EXPECT_EQ(IdentifyAgent("python3", &py, "✳ Refactor").agent_type, "claude");
  auto sh = Proc("bash", {"bash"});
  EXPECT_EQ(IdentifyAgent("bash", &sh, "✳ stale title").agent_type, "");  // a shell is no agent
}

TEST(IdentifyAgent, WrappedPaneIsFlagged) {
  auto w = Proc("agtmux", {"/usr/bin/agtmux", "wrap", "claude", "--x"});
  PaneAgent id = IdentifyAgent("agtmux", &w);
  EXPECT_TRUE(id.wrapped);
  EXPECT_EQ(id.agent_type, "claude");
  // The wrapper shows as its agent to tmux (cli/process_title.h): argv[0]
  // is the agent's name, the rest NUL-padded; comm stays agtmux.
  auto shown = Proc("agtmux", {"claude", "wrap", "claude", "--x", "", ""});
  id = IdentifyAgent("claude", &shown);
  EXPECT_TRUE(id.wrapped);
  EXPECT_EQ(id.agent_type, "claude");
  // A name longer than `agtmux` cuts the arguments behind it: argv[0] names it.
  auto cut = Proc("agtmux", {"opencode", "wrap", "openc"});
  id = IdentifyAgent("opencode", &cut);
  EXPECT_TRUE(id.wrapped);
  EXPECT_EQ(id.agent_type, "opencode");
}

TEST(ForegroundProcess, ReadsTpgidThenTheLeader) {
  core::MemoryFileReader f;
  // comm with spaces and ')' must not shift the fields.
  f.files["/proc/100/stat"] = "100 (ba sh) x) S 1 100 100 34816 200 4194304 0 0 0 0 0 0 0 0 20 0 1 0 5000 0 0";
  f.files["/proc/200/stat"] = "200 (claude) S 100 200 100 34816 200 4194304 0 0 0 0 0 0 0 0 20 0 1 0 7000 0 0";
  f.files["/proc/200/comm"] = "claude\n";
  f.files["/proc/200/cmdline"] = std::string("claude\0--resume\0", 16);
  f.files["/proc/stat"] = "cpu 1 2 3\nbtime 1700000000\n";
  auto pg = ForegroundPgid(100, f);
  ASSERT_TRUE(pg.ok()) << pg.error().ToString();
  EXPECT_EQ(*pg, 200);
  auto v = ForegroundProcess(100, f);
  ASSERT_TRUE(v.ok()) << v.error().ToString();
  EXPECT_EQ(v->pid, 200);
  EXPECT_EQ(v->comm, "claude");
  ASSERT_EQ(v->argv.size(), 2u);
  EXPECT_EQ(v->argv[1], "--resume");
  EXPECT_GT(v->started_at, 1700000000 * core::kNsPerSec);
}

TEST(ForegroundProcess, MissingProcessIsNotFound) {
  core::MemoryFileReader f;
  auto v = ForegroundProcess(5, f);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, core::Err::kNotFound);
  f.files["/proc/6/stat"] = "6 (x) S 1";
  auto pg = ForegroundPgid(6, f);
  ASSERT_FALSE(pg.ok());
  EXPECT_NE(pg.error().message.find("fewer than 8 fields"), std::string::npos);
}

TEST(ForegroundProcess, RealProcSelf) {
  core::RealFileReader f;
  auto v = ForegroundProcess(getpid(), f);
  ASSERT_TRUE(v.ok()) << v.error().ToString();
  EXPECT_FALSE(v->comm.empty());
  EXPECT_GT(ProcessStartTime(getpid(), f), 0);
}

}  // namespace
}  // namespace agt::agg
