// No secret reaches a file agtmux writes (issue 14 item 7). Every sample of
// tests/core/secret_samples.h (a real token shape of every family, in the
// text it usually comes in) goes through the real programs by every path:
// `agtmux hook` with the daemon away (the spool) and up, `agtmux wrap`
// showing them in a dialog's options with the daemon away (the wrapper's
// spool, drained later), POST /v1/events in every field that carries text,
// and a view-output action on a tmux pane that shows them (its answer is
// kept with the action's row in agtmux.db). Then the bytes of every file
// under the state directory (agtmux.db and its WAL, spool files, kept
// screens, logs) are searched
// for each secret: a grep of the files, not a question to the API. The
// markers of every rule must be in the databases, so that the search is
// not vacuous.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "libagtcore/os/process.h"
#include "tests/agg/daemon_harness.h"
#include "tests/core/secret_samples.h"

namespace agt::test {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::string JsonString(const std::string& s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(buf.GetString(), buf.GetSize());
}

/// The parts of a secret a file must not hold: split where storage may
/// escape or wrap it (newlines, quotes, spaces), kept when long enough to
/// be unmistakable.
std::vector<std::string> Fragments(const std::string& secret) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : secret + "\n") {
    if (c == '\n' || c == '"' || c == '\'' || c == ' ') {
      if (cur.size() >= 10) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  return out;
}

class SecretsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sock_ = env_.root + "/tmux/secrets.sock";
    env_.vars.push_back("TMUX_PANE=%77");
  }
  void TearDown() override {
    daemon_.reset();
    Tmux({"kill-server"});
  }
  RunResult Tmux(std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/tmux", "-S", sock_, "-f", "/dev/null"};
    argv.insert(argv.end(), args.begin(), args.end());
    return env_.Run(argv);
  }
  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  void RunHooks(const std::string& session) {
    const std::string payload = env_.root + "/payload.json";
    int i = 0;
    for (const SecretSample& s : SecretSamples()) {
      std::ofstream(payload) << "{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"" << session << "\","
                             << "\"tool_use_id\":\"t" << ++i << "\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":"
                             << JsonString(s.text) << "}}";
      auto r = env_.Run({"/bin/sh", "-c", std::string(AGTMUX_BIN) + " hook claude < " + payload});
      ASSERT_EQ(r.status, 0) << r.err;
    }
  }
  /// The files under the state directory that hold any secret, and which.
  std::vector<std::string> Leaks() {
    std::vector<std::string> leaks;
    for (const auto& e : fs::recursive_directory_iterator(env_.state_dir())) {
      if (!e.is_regular_file()) continue;
      const std::string bytes = ReadFile(e.path());
      for (const SecretSample& s : SecretSamples())
        for (const std::string& f : Fragments(s.secret))
          if (bytes.find(f) != std::string::npos)
            leaks.push_back(e.path().string() + " holds " + s.rule + " \"" + f + "\"");
    }
    return leaks;
  }
  /// The names left in the spool directory, for a failure message.
  std::string SpoolListing() {
    std::string names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(env_.state_dir() + "/spool", ec))
      names += e.path().filename().string() + " ";
    return names;
  }
  std::string DatabaseBytes() {
    std::string all;
    for (const char* f : {"agtmux.db", "agtmux.db-wal"}) all += ReadFile(env_.state_dir() + "/" + f);
    // One store: the action audit is in agtmux.db, no other database exists.
    EXPECT_FALSE(fs::exists(env_.state_dir() + "/actions.db"));
    return all;
  }
  TestEnv env_;
  std::string sock_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(SecretsTest, NoSecretReachesAnyFileByAnyPath) {
  // A pane that shows every sample, for view-output; a second window for
  // the wrapper.
  const std::string shown = env_.root + "/shown.txt";
  {
    std::ofstream f(shown);
    for (const SecretSample& s : SecretSamples()) f << s.text << "\n";
  }
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "work", "-x", "200", "-y", "50", "sh -c 'cat " + shown +
                                                                              "; exec sleep 600'"})
                .status,
            0);

  // 1. The daemon is away: hooks and a wrapper spool.
  ASSERT_NO_FATAL_FAILURE(RunHooks("away"));
  const std::string dialog = env_.root + "/dialog.sh";
  {
    // A Claude-style dialog whose options carry short samples: the wrapper
    // reads the options as the waiting state's choices.
    std::ofstream f(dialog);
    f << "#!/bin/sh\nprintf ' Bash command\\r\\n\\r\\n   make deploy\\r\\n\\r\\n Do you want to proceed?\\r\\n'\n"
         "printf ' \\342\\235\\257 1. Yes\\r\\n'\n";
    int n = 2;
    for (const SecretSample& s : SecretSamples()) {
      if (s.text.size() > 90 || s.text.find_first_of("\n'%\\") != std::string::npos || n > 9) continue;
      f << "printf '   " << n++ << ". Yes, with " << s.text << "\\r\\n'\n";
    }
    f << "printf '\\r\\n Esc to cancel\\r\\n'\nsleep 2\n";
  }
  ::chmod(dialog.c_str(), 0755);
  ASSERT_EQ(Tmux({"new-window", "-t", "work", std::string(AGTMUX_BIN) + " wrap --agent claude -- " + dialog}).status,
            0);
  ASSERT_TRUE(PollUntil([&] { return Tmux({"list-windows", "-t", "work"}).out.find("\n") ==
                                     Tmux({"list-windows", "-t", "work"}).out.rfind("\n"); },
                        15000))
      << "the wrapper did not end";
  bool wrapper_spooled = false;
  std::vector<pid_t> producers;
  for (const auto& e : fs::directory_iterator(env_.state_dir() + "/spool")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("wrapper-", 0) != 0) continue;
    wrapper_spooled = ReadFile(e.path()).find("[REDACTED:") != std::string::npos;
    producers.push_back(static_cast<pid_t>(std::stol(name.substr(8))));
  }
  EXPECT_TRUE(wrapper_spooled) << "the wrapper's dialog did not reach its spool";
  // The daemon drains only the files of producers that are gone (by the
  // same test); the window closes a moment before the wrapper's process
  // ends, and tmux may leave it a zombie for seconds.
  ASSERT_TRUE(PollUntil([&] {
    return std::none_of(producers.begin(), producers.end(), [](pid_t p) { return core::ProcessAlive(p); });
  }, 10000)) << "the wrapper's process did not end";
  {
    std::vector<std::string> leaks = Leaks();
    EXPECT_TRUE(leaks.empty()) << leaks.size() << " leaks, first: " << leaks.front();
  }

  // 2. The daemon comes up (it drains the spool) and observes the pane.
  daemon_ = std::make_unique<Daemon>(env_);
  ASSERT_TRUE(daemon_->WaitReady());
  auto t = daemon_->Call("POST", "/v1/targets", "{\"name\":\"lab\",\"kind\":\"local\",\"tmux_socket\":\"" + sock_ + "\"}");
  ASSERT_TRUE(t.ok());
  ASSERT_LT(t->status, 300) << t->body;
  ASSERT_TRUE(PollUntil([&] { return !fs::exists(env_.state_dir() + "/spool") ||
                                     fs::is_empty(env_.state_dir() + "/spool"); }, 10000))
      << "the spool was not drained: " << SpoolListing();

  // 3. Every sample in every text field of an event.
  const std::string pane = Trim(Tmux({"display-message", "-p", "-t", "work:0", "#{pane_id}"}).out);
  const std::string window = Trim(Tmux({"display-message", "-p", "-t", "work:0", "#{window_id}"}).out);
  const std::string pid = Trim(Tmux({"display-message", "-p", "-t", "work:0", "#{pane_pid}"}).out);
  const std::string rt = "rt-secrets-000000000000";
  auto post = [&](const std::string& ev) {
    auto r = daemon_->Call("POST", "/v1/events", "{\"events\":[" + ev + "]}");
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  };
  auto event = [&](int n, const std::string& type, const std::string& extra) {
    std::string id = std::to_string(n);
    id = "01JS" + std::string(22 - id.size(), '0') + id;
    return "{\"event_id\":\"" + id + "\",\"event_type\":\"" + type + "\",\"source\":\"wrapper\",\"dedupe_key\":\"dk-" +
           id + "\",\"event_time\":\"2026-11-22T04:00:00Z\",\"runtime_id\":\"" + rt +
           "\",\"target_id\":\"lab\",\"pane_id\":\"" + pane + "\"" + extra + "}";
  };
  ASSERT_NO_FATAL_FAILURE(post(event(1, "wrapper_started", ",\"pid\":" + pid +
                                                               ",\"runtime\":{\"agent_type\":\"claude\","
                                                               "\"started_at\":\"2026-11-22T04:00:00Z\"}")));
  int seq = 0;
  for (const SecretSample& s : SecretSamples()) {
    ++seq;
    const std::string text = JsonString(s.text);
    ASSERT_NO_FATAL_FAILURE(post(event(
        1 + seq, "state_changed",
        ",\"source_seq\":" + std::to_string(seq) + ",\"raw_payload\":" + text +
            ",\"signal\":{\"state\":\"waiting_approval\",\"confidence\":\"high\",\"rule_id\":\"test.secret\","
            "\"evidence\":" + text + ",\"detail\":{\"approval_type\":\"shell\",\"details\":" + text +
            ",\"choices\":[" + text + ",\"No\"]}}")));
  }

  // 4. Hooks with the daemon up.
  ASSERT_NO_FATAL_FAILURE(RunHooks("up"));

  // 5. view-output of the pane that shows them: its answer is kept with
  //    the action in agtmux.db.
  auto view = daemon_->Call("POST", "/v1/actions/view-output",
                            "{\"ref\":\"pane:lab/work/" + window + "/" + pane + "\",\"lines\":200,"
                            "\"request_ref\":\"secrets-view\"}");
  ASSERT_TRUE(view.ok());
  ASSERT_EQ(view->status, 200) << view->body;

  // The files, while the daemon runs (WAL files in place) and after it
  // stopped (checkpointed).
  {
    std::vector<std::string> leaks = Leaks();
    EXPECT_TRUE(leaks.empty()) << leaks.size() << " leaks, first: " << leaks.front();
  }
  const std::string db = DatabaseBytes();
  std::set<std::string> rules;
  for (const SecretSample& s : SecretSamples()) rules.insert(s.rule);
  for (const std::string& r : rules)
    EXPECT_NE(db.find("[REDACTED:" + r + "]"), std::string::npos) << "no " << r << " marker in the databases";
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  std::vector<std::string> leaks = Leaks();
  EXPECT_TRUE(leaks.empty()) << leaks.size() << " leaks, first: " << leaks.front();
}

}  // namespace
}  // namespace agt::test
