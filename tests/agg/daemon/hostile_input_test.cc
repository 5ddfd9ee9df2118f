// Hostile input against the real agtmuxd and the real `agtmux hook`
// (issue 14): JSON nested deep enough to overflow a recursive parser's
// stack, sent to every route that parses a body, planted in a spool file
// the daemon drains at start-up, and handed to the hook on its stdin or
// argv; spool files with broken lines, files a drain died in, old .bad
// files, a full spool; and files planted where the daemon and the CLI
// write (the lock, the socket, hook.log, a directory of another user).
// Each must be refused with an error naming the problem while the daemon
// keeps serving; no input may crash a start twice; no loss is silent.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <sys/stat.h>
#include <utime.h>

#include <filesystem>
#include <fstream>

#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

namespace fs = std::filesystem;

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

rapidjson::Document Json(const std::string& s) {
  rapidjson::Document d;
  d.Parse(s.c_str());
  return d;
}

/// The integer at `a`.`b` of a health answer, -1 when it is not there.
int64_t Field(const rapidjson::Document& d, const char* a, const char* b = nullptr) {
  if (!d.IsObject() || !d.HasMember(a)) return -1;
  const rapidjson::Value* v = &d[a];
  if (b != nullptr) {
    if (!v->IsObject() || !v->HasMember(b)) return -1;
    v = &(*v)[b];
  }
  return v->IsInt64() ? v->GetInt64() : -1;
}

size_t Items(const rapidjson::Document& d) {
  return d.IsObject() && d.HasMember("items") && d["items"].IsArray() ? d["items"].Size() : 0;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}


class HostileInputTest : public ::testing::Test {
 protected:
  // The body cap is set far above the bodies sent here, so that the parser,
  // not the HTTP limit, meets them.
  void StartDaemon() {
    daemon_ = std::make_unique<Daemon>(env_, std::vector<std::string>{"--no-observe", "--max-body", "16777216"});
    ASSERT_TRUE(daemon_->WaitReady()) << "agtmuxd did not answer /v1/health";
  }
  bool Alive() {
    auto r = daemon_->Call("GET", "/v1/health");
    return r.ok() && r->status == 200 && kill(daemon_->pid(), 0) == 0;
  }
  std::string SpoolDir() const { return env_.state_dir() + "/spool"; }
  TestEnv env_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(HostileInputTest, DeeplyNestedBodiesAreRefusedAndTheDaemonServes) {
  StartDaemon();
  const std::string deep = Nested(1 << 20);  // 2 MB of brackets
  struct Case {
    const char* path;
    std::string body;
  };
  const std::vector<Case> cases = {
      {"/v1/events", deep},
      {"/v1/events", "{\"events\":" + deep + "}"},
      {"/v1/targets", "{\"name\":" + deep + "}"},
      {"/v1/actions/send", "{\"ref\":\"host:%1\",\"text\":" + deep + "}"},
  };
  for (const Case& c : cases) {
    auto r = daemon_->Call("POST", c.path, c.body);
    ASSERT_TRUE(r.ok()) << c.path << ": " << r.error().ToString();
    EXPECT_EQ(r->status, 400) << c.path << ": " << r->body.substr(0, 300);
    EXPECT_NE(r->body.find("nested deeper than"), std::string::npos) << c.path << ": " << r->body.substr(0, 300);
    ASSERT_TRUE(Alive()) << "agtmuxd died on " << c.path;
  }
  // An ordinary event is still ingested afterwards.
  auto ok = daemon_->Call("POST", "/v1/events",
                          Started("01JA0000000000000000000001", "rt-aaaaaaaaaaaaaaaa", "%1"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->status, 200) << ok->body;
}

TEST_F(HostileInputTest, ANestedSpoolLineCostsOnlyItselfAndNoStartCrashes) {
  fs::create_directories(SpoolDir());
  // A producer that is gone (pid far above pid_max) left a good event, the
  // hostile line, and another good event.
  const std::string file = SpoolDir() + "/hook-999999999-01JA0000000000000000000099.jsonl";
  {
    std::ofstream f(file, std::ios::binary);
    f << Started("01JA0000000000000000000011", "rt-bbbbbbbbbbbbbbbb", "%2") << "\n"
      << Nested(1 << 20) << "\n"
      << StateEvent("01JA0000000000000000000012", "rt-bbbbbbbbbbbbbbbb", "%2", "running", 1) << "\n";
  }
  for (int start = 1; start <= 3; ++start) {
    StartDaemon();
    ASSERT_TRUE(PollUntil([&] { return !fs::exists(file); }, 10000)) << "start " << start << ": the file was not drained";
    ASSERT_TRUE(Alive()) << "start " << start;
    EXPECT_EQ(daemon_->Stop(SIGTERM), 0) << "start " << start;
  }
  StartDaemon();
  auto panes = daemon_->Call("GET", "/v1/panes");
  ASSERT_TRUE(panes.ok());
  rapidjson::Document d;
  d.Parse(panes->body.c_str());
  ASSERT_EQ(Items(d), 1u) << panes->body;
  EXPECT_STREQ(d["items"][0]["state"].GetString(), "running") << "the good lines on either side were delivered";
}

TEST_F(HostileInputTest, HookWithDeeplyNestedPayloadExitsZero) {
  StartDaemon();
  const std::string payload_file = env_.root + "/payload.json";
  {
    std::ofstream f(payload_file, std::ios::binary);
    f << "{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"s1\",\"tool_name\":\"Bash\",\"tool_input\":"
      << Nested(400000) << "}";
  }
  TestEnv& env = env_;
  env.vars.push_back("TMUX_PANE=%7");
  auto hook = env.Run({"/bin/sh", "-c", std::string(AGTMUX_BIN) + " hook claude < " + payload_file});
  EXPECT_EQ(hook.status, 0) << hook.err;
  // Codex passes its JSON as an argument (at most 128 KiB on Linux).
  auto notify = env.Run({AGTMUX_BIN, "hook", "codex-notify", "{\"type\":\"agent-turn-complete\",\"x\":" + Nested(60000) + "}"});
  EXPECT_EQ(notify.status, 0) << notify.err;
  std::ifstream log(env_.state_dir() + "/hook.log");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("nested deeper than"), std::string::npos) << "hook.log: " << text;
  EXPECT_TRUE(Alive());
}

TEST_F(HostileInputTest, ABrokenLineCostsOnlyItselfAndIsCounted) {
  fs::create_directories(SpoolDir());
  const std::string file = SpoolDir() + "/wrapper-999999998-01JA0000000000000000000098.jsonl";
  WriteFile(file, Started("01JA0000000000000000000021", "rt-cccccccccccccccc", "%3") + "\n" +
                      "{\"not\":\"an event\"}\n" +
                      StateEvent("01JA0000000000000000000022", "rt-cccccccccccccccc", "%3", "running", 1) +
                      "\n{\"event_id\":\"torn");
  StartDaemon();
  ASSERT_TRUE(PollUntil([&] { return !fs::exists(file); }, 10000));
  auto panes = Json(daemon_->Call("GET", "/v1/panes")->body);
  ASSERT_EQ(Items(panes), 1u);
  EXPECT_STREQ(panes["items"][0]["state"].GetString(), "running");
  EXPECT_EQ(ReadFile(file + ".bad"), "{\"not\":\"an event\"}\n") << "only the broken line is set aside";
  auto health = Json(daemon_->Call("GET", "/v1/health")->body);
  EXPECT_EQ(Field(health, "events_dropped"), 2) << "the broken line and the torn tail";
  EXPECT_EQ(Field(health, "dropped", "spool_undecodable"), 2);
  // The count outlives the daemon, and `agtmux daemon status` says it.
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  StartDaemon();
  auto status = env_.Run({AGTMUX_BIN, "daemon", "status"});
  EXPECT_EQ(status.status, 0) << status.err;
  EXPECT_NE(status.out.find("2 dropped (spool_undecodable 2)"), std::string::npos) << status.out;
}

TEST_F(HostileInputTest, AFileADrainDiedInIsSetAsideUnread) {
  fs::create_directories(SpoolDir());
  // The name a file has while a drain reads it: found at start-up, it is
  // what the last daemon died in.
  const std::string file = SpoolDir() + "/hook-999999997-01JA0000000000000000000097.jsonl.draining";
  WriteFile(file, Started("01JA0000000000000000000031", "rt-dddddddddddddddd", "%4") + "\n" +
                      StateEvent("01JA0000000000000000000032", "rt-dddddddddddddddd", "%4", "running", 1) + "\n");
  StartDaemon();
  EXPECT_FALSE(fs::exists(file));
  EXPECT_TRUE(fs::exists(file + ".bad"));
  EXPECT_EQ(Items(Json(daemon_->Call("GET", "/v1/panes")->body)), 0u) << "it was not parsed";
  auto health = Json(daemon_->Call("GET", "/v1/health")->body);
  EXPECT_EQ(Field(health, "dropped", "spool_quarantined"), 2);
}

TEST_F(HostileInputTest, OldBadFilesExpire) {
  fs::create_directories(SpoolDir());
  const std::string old_bad = SpoolDir() + "/hook-1-01JA0000000000000000000001.jsonl.bad";
  const std::string new_bad = SpoolDir() + "/hook-2-01JA0000000000000000000002.jsonl.bad";
  WriteFile(old_bad, "x\n");
  WriteFile(new_bad, "y\n");
  const time_t eight_days_ago = time(nullptr) - 8 * 24 * 3600;
  struct utimbuf t {eight_days_ago, eight_days_ago};
  ASSERT_EQ(utime(old_bad.c_str(), &t), 0);
  StartDaemon();
  EXPECT_FALSE(fs::exists(old_bad)) << "older than retention_payloads (7 days)";
  EXPECT_TRUE(fs::exists(new_bad));
}

TEST_F(HostileInputTest, TheHookSpoolsRedactedStopsAtTheCapAndCountsWhatDidNotFit) {
  // No daemon: every hook goes to the spool, which may hold 3000 bytes.
  env_.vars.push_back("AGTMUX_SPOOL_MAX_BYTES=3000");
  env_.vars.push_back("TMUX_PANE=%9");
  const std::string key =
      "sk-ant-api03-nFIGLj5M7YYpHCOTHUtuJvbipRdkJAWZ4moUxm_yI5B_KGnplJJpdu0ol29vX6N_631mG8YE5_is_I4cZ2cSV8HTMyf8GAA";
  const std::string payload_file = env_.root + "/payload.json";
  constexpr int kHooks = 12;
  for (int i = 0; i < kHooks; ++i) {
    WriteFile(payload_file, "{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"s" + std::to_string(i) +
                                "\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ANTHROPIC_API_KEY=" + key +
                                " claude -p hi\"}}");
    auto r = env_.Run({"/bin/sh", "-c", std::string(AGTMUX_BIN) + " hook claude < " + payload_file});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  int spooled = 0;
  int64_t bytes = 0;
  for (const auto& e : fs::directory_iterator(SpoolDir())) {
    const std::string name = e.path().filename();
    const std::string text = ReadFile(e.path());
    EXPECT_EQ(text.find(key.substr(10)), std::string::npos) << name << " holds the key";
    if (name.ends_with(".jsonl")) {
      ++spooled;
      bytes += static_cast<int64_t>(text.size());
      EXPECT_NE(text.find("[REDACTED:anthropic_api_key]"), std::string::npos) << text;
    }
  }
  EXPECT_GT(spooled, 0);
  EXPECT_LT(spooled, kHooks) << "the cap let everything in";
  EXPECT_LE(bytes, 3000);
  StartDaemon();
  ASSERT_TRUE(PollUntil([&] {
    return Field(Json(daemon_->Call("GET", "/v1/health")->body), "events_ingested") == spooled;
  }));
  auto health = Json(daemon_->Call("GET", "/v1/health")->body);
  EXPECT_EQ(Field(health, "dropped", "producer"), kHooks - spooled);
}

TEST_F(HostileInputTest, ALockPlantedAsASymlinkIsNotFollowed) {
  const std::string dir = env_.root + "/run/agtmux";
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  const std::string victim = env_.root + "/victim";
  WriteFile(victim, "precious\n");
  fs::create_symlink(victim, dir + "/agtmuxd.lock");
  auto r = env_.Run({AGTMUXD_BIN, "--no-observe"}, 10000);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(victim), "precious\n") << "the link's target was written";
}

TEST_F(HostileInputTest, ASymlinkAtTheSocketPathIsNamedForWhatItIs) {
  const std::string dir = env_.root + "/run/agtmux";
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  fs::create_symlink(env_.root + "/elsewhere", env_.socket());
  auto r = env_.Run({AGTMUXD_BIN, "--no-observe"}, 10000);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("is a symbolic link, not agtmuxd's socket"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("address already in use"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_symlink(env_.socket())) << "it is not ours to remove";
}

TEST_F(HostileInputTest, ADirectoryOfAnotherUserIsRefused) {
  const std::string dir = env_.root + "/run/agtmux";
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  ASSERT_EQ(::chown(dir.c_str(), 4242, 4242), 0) << "the test needs to run as root";
  auto r = env_.Run({AGTMUXD_BIN, "--no-observe"}, 10000);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("belongs to uid 4242, not to us"), std::string::npos) << r.err;
}

TEST_F(HostileInputTest, HookLogPlantedAsASymlinkIsNotFollowed) {
  fs::create_directories(env_.state_dir());
  const std::string victim = env_.root + "/victim";
  WriteFile(victim, "precious\n");
  fs::create_symlink(victim, env_.state_dir() + "/hook.log");
  env_.vars.push_back("TMUX_PANE=%1");
  auto r = env_.Run({"/bin/sh", "-c", std::string(AGTMUX_BIN) + " hook claude < /dev/null"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(ReadFile(victim), "precious\n");
}

}  // namespace
}  // namespace agt::test
