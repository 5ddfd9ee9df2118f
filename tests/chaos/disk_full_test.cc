// Chaos: a full disk under the database and under the spool (issue 14, the
// chaos suite). A small tmpfs is mounted on the test's state directory (and
// another on its spool directory) and filled. The daemon must keep
// answering, refuse what it cannot store with an error that names the
// problem (never acknowledge it), lose nothing it acknowledged, and take
// events again once space comes back; a hook that can neither deliver nor
// spool says so, and what it did spool is drained later. Mounting needs
// root (CAP_SYS_ADMIN): without it the tests are skipped, and say why.
#include <gtest/gtest.h>

#include <thread>

#include "tests/chaos/chaos_util.h"

namespace agt::chaos {
namespace {

using test::Daemon;
using test::PollUntil;
using test::TestEnv;

/// Acknowledged ids missing from agtmux.db.
size_t Lost(const TestEnv& env, const std::set<std::string>& acked, const std::vector<std::string>& runtimes) {
  std::string error;
  const auto stored = StoredIds(env, runtimes, &error);
  EXPECT_EQ(error, "");
  return Missing(acked, stored);
}

std::vector<std::string> SpoolFiles(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec))
    if (f.path().extension() == ext) out.push_back(f.path().filename());
  return out;
}

/// `agtmux hook codex-notify` for runtime `rt` in pane `pane`, as a wrapped
/// Codex runs it.
test::RunResult Hook(TestEnv& env, const std::string& rt, const std::string& pane, const std::string& turn) {
  env.vars.push_back("AGTMUX_RUNTIME_ID=" + rt);
  env.vars.push_back("TMUX_PANE=" + pane);
  auto r = env.Run({AGTMUX_BIN, "hook", "codex-notify",
                    R"({"type":"agent-turn-complete","thread-id":"th-1","turn-id":")" + turn +
                        R"(","last-assistant-message":"done"})"});
  env.vars.resize(env.vars.size() - 2);
  return r;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

TEST(ChaosDiskFull, DatabaseDiskFullRefusesAndRecoversWithoutLosingAcknowledged) {
  TestEnv env;
  Tmpfs state_fs(env.state_dir(), "16m");
  if (!state_fs.mounted()) GTEST_SKIP() << state_fs.error();
  // The spool has room: a hook the daemon cannot serve spools its event.
  Tmpfs spool_fs(env.state_dir() + "/spool", "1m");
  ASSERT_TRUE(spool_fs.mounted()) << spool_fs.error();

  auto d = std::make_unique<Daemon>(env, std::vector<std::string>{"--no-observe"});
  ASSERT_TRUE(d->WaitReady());
  // Runtime 2 is the hook's (its pane %2).
  auto r = d->Call("POST", "/v1/events", Batch({Started(Id("01JF", 2, 0), 2)}));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;

  Acked acked;
  std::atomic<bool> stop{false};
  StreamEvents(*d, 1, "01JF", 8, 20, stop, &acked, 1000);
  ASSERT_EQ(acked.batches, 20);

  state_fs.Fill();
  // Writes go on until the store meets the full disk: SQLite's WAL may
  // still have room for a few commits.
  std::string refused_body;
  int refused_status = 0;
  std::string refused_batch;
  for (int b = 0; b < 2000 && refused_status == 0; ++b) {
    std::vector<std::string> events;
    for (int k = 0; k < 8; ++k) {
      std::string ev = test::StateEvent(Id("01JG", 1, b * 8 + k), Runtime(1), Pane(1), "running", 1000 + b * 8 + k);
      ev.replace(ev.find("\"evidence\":\"line\""), 17, "\"evidence\":\"" + std::string(1000, 'f') + "\"");
      events.push_back(ev);
    }
    const std::string body = Batch(events);
    auto p = d->Call("POST", "/v1/events", body);
    ASSERT_TRUE(p.ok()) << "the daemon stopped answering on a full disk: " << p.error().ToString();
    if (p->status == 200) {
      std::lock_guard<std::mutex> l(acked.mu);
      for (int k = 0; k < 8; ++k) acked.ids.insert(Id("01JG", 1, b * 8 + k));
      continue;
    }
    refused_status = p->status;
    refused_body = p->body;
    refused_batch = body;
  }
  ASSERT_NE(refused_status, 0) << "2000 batches were stored on a full disk";
  std::printf("full disk: %zu events acknowledged; the first batch refused got %d %s", acked.ids.size(),
              refused_status, refused_body.c_str());
  EXPECT_EQ(refused_status, 500) << refused_body;
  EXPECT_NE(refused_body.find("E_STORE"), std::string::npos) << refused_body;
  EXPECT_NE(refused_body.find("full"), std::string::npos) << "the error does not name the full disk: " << refused_body;

  // The daemon keeps answering reads while the disk is full, and its health
  // says why events are refused.
  for (const char* path : {"/v1/health", "/v1/panes", "/v1/targets"}) {
    auto g = d->Call("GET", path);
    ASSERT_TRUE(g.ok()) << path;
    EXPECT_EQ(g->status, 200) << path << ": " << g->body;
  }
  auto store_error = [&] {
    auto h = d->Call("GET", "/v1/health");
    rapidjson::Document doc;
    if (h.ok()) doc.Parse(h->body.c_str());
    if (!doc.IsObject() || !doc.HasMember("store_error")) return std::string("(no store_error in /v1/health)");
    return doc["store_error"].IsNull() ? std::string("null") : std::string(doc["store_error"].GetString());
  };
  EXPECT_NE(store_error().find("database or disk is full"), std::string::npos) << store_error();
  // A hook the daemon cannot store for spools its event (the spool has room).
  auto hook = Hook(env, Runtime(2), Pane(2), "tu-full");
  EXPECT_EQ(hook.status, 0) << hook.err;
  EXPECT_EQ(SpoolFiles(env.state_dir() + "/spool", ".jsonl").size(), 1u) << "the hook's event was not spooled";

  // Space comes back: the refused batch is taken, the spooled event drained.
  state_fs.Free();
  auto again = d->Call("POST", "/v1/events", refused_batch);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status, 200) << again->body;
  if (again->status == 200) {
    std::lock_guard<std::mutex> l(acked.mu);
    rapidjson::Document doc;
    doc.Parse(refused_batch.c_str());
    for (const auto& e : doc["events"].GetArray()) acked.ids.insert(e["event_id"].GetString());
  }
  EXPECT_EQ(store_error(), "null") << "the store works again";
  EXPECT_TRUE(PollUntil([&] { return SpoolFiles(env.state_dir() + "/spool", ".jsonl").empty(); }, 15000))
      << "the spool was not drained after space came back";
  EXPECT_TRUE(PollUntil([&] { return PanesView(*d)[Pane(2)] == "completed"; }, 5000))
      << "the spooled hook event did not reach the pane";

  // Nothing acknowledged is missing, before and after a restart.
  EXPECT_EQ(Lost(env, acked.ids, {Runtime(1), Runtime(2)}), 0u) << "of " << acked.ids.size() << " acknowledged events";
  EXPECT_EQ(d->Stop(SIGTERM), 0);
  d = std::make_unique<Daemon>(env, std::vector<std::string>{"--no-observe"});
  ASSERT_TRUE(d->WaitReady());
  EXPECT_EQ(PanesView(*d)[Pane(2)], "completed");
  EXPECT_EQ(Lost(env, acked.ids, {Runtime(1), Runtime(2)}), 0u) << "after a restart, of " << acked.ids.size() << " acknowledged events";
}

TEST(ChaosDiskFull, SpoolDiskFullLosesOnlyWhatTheHookReportedLost) {
  TestEnv env;
  std::filesystem::create_directories(env.state_dir());
  Tmpfs spool_fs(env.state_dir() + "/spool", "1m");
  if (!spool_fs.mounted()) GTEST_SKIP() << spool_fs.error();
  const std::string spool = env.state_dir() + "/spool";
  {
    Daemon d(env, {"--no-observe"});
    ASSERT_TRUE(d.WaitReady());
    auto r = d.Call("POST", "/v1/events", Batch({Started(Id("01JH", 3, 0), 3)}));
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
    ASSERT_EQ(d.Stop(SIGTERM), 0);
  }
  // The daemon is down: the hook spools.
  auto first = Hook(env, Runtime(3), Pane(3), "tu-1");
  EXPECT_EQ(first.status, 0) << first.err;
  ASSERT_EQ(SpoolFiles(spool, ".jsonl").size(), 1u);

  // The spool's disk is full: the hook says the event is lost, and why.
  spool_fs.Fill();
  auto lost = Hook(env, Runtime(3), Pane(3), "tu-2");
  const std::string said = lost.err + ReadFile(env.state_dir() + "/hook.log");
  EXPECT_NE(said.find("spooling failed"), std::string::npos) << said;
  EXPECT_NE(said.find("No space left on device"), std::string::npos) << said;
  EXPECT_NE(said.find("the event is lost"), std::string::npos) << said;
  EXPECT_EQ(SpoolFiles(spool, ".jsonl").size(), 1u) << "a spool file was left behind or the first one was lost";

  spool_fs.Free();
  auto third = Hook(env, Runtime(3), Pane(3), "tu-3");
  EXPECT_EQ(third.status, 0) << third.err;
  ASSERT_EQ(SpoolFiles(spool, ".jsonl").size(), 2u);

  // The daemon drains both spooled events at start.
  Daemon d(env, {"--no-observe"});
  ASSERT_TRUE(d.WaitReady());
  EXPECT_TRUE(PollUntil([&] { return SpoolFiles(spool, ".jsonl").empty(); }, 10000)) << "the spool was not drained";
  EXPECT_TRUE(SpoolFiles(spool, ".bad").empty());
  EXPECT_EQ(PanesView(d)[Pane(3)], "completed");
  // Started + the two spooled hook events.
  std::string error;
  EXPECT_EQ(StoredIds(env, {Runtime(3)}, &error).size(), 3u) << error;
}

}  // namespace
}  // namespace agt::chaos
