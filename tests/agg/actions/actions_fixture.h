// The fixture of the action tests against the real agtmuxd: a private tmux
// server registered as local target "lab", a fake agent (fake_agent.py) in
// its pane "work" that logs every submitted message and C-c, and a runtime
// in waiting_input on that pane. Shared by actions_test.cc and
// action_loop_test.cc.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "tests/agg/daemon_harness.h"

namespace agt::test {

inline rapidjson::Document Parse(const std::string& s) {
  rapidjson::Document d;
  d.Parse(s.c_str());
  return d;
}

inline std::string Code(const std::string& body) {
  auto d = Parse(body);
  return d.IsObject() && d.HasMember("error") ? d["error"]["code"].GetString() : "";
}

class ActionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_.vars.push_back("AGTMUX_ACTION_SNAPSHOT_TTL_MS=400");
    sock_ = env_.root + "/tmux/actions.sock";
    log_ = env_.root + "/agent.log";
    ASSERT_EQ(Tmux({"new-session", "-d", "-s", "work", "-x", "120", "-y", "30", std::string(FAKE_AGENT) + " " + log_})
                  .status, 0);
    server_pid_ = std::stoi(Trim(Tmux({"display-message", "-p", "#{pid}"}).out));
    pane_ = Trim(Tmux({"display-message", "-p", "-t", "work", "#{pane_id}"}).out);
    window_ = Trim(Tmux({"display-message", "-p", "-t", "work", "#{window_id}"}).out);
    agent_pid_ = Trim(Tmux({"display-message", "-p", "-t", "work", "#{pane_pid}"}).out);
    ASSERT_TRUE(PollUntil([&] { return Screen().find("agent ready") != std::string::npos; }));
    daemon_ = std::make_unique<Daemon>(env_);
    ASSERT_TRUE(daemon_->WaitReady());
    auto t = daemon_->Call("POST", "/v1/targets",
                           "{\"name\":\"lab\",\"kind\":\"local\",\"tmux_socket\":\"" + sock_ + "\"}");
    ASSERT_TRUE(t.ok());
    ASSERT_LT(t->status, 300) << t->body;
    StartRuntime(runtime_, 1);
    ref_ = "pane:lab/work/" + window_ + "/" + pane_;
    // Wait until the daemon's control client is attached before a test
    // creates sessions. This was added when the client was `tmux -C`, which
    // tmux 3.3a could crash on ("server exited unexpectedly") when a session
    // was created while the client was half identified; the daemon now
    // identifies in one write (docs/observe.md, "tmux 3.3a and control
    // clients"), and the wait keeps the tests starting from a followed server.
    ASSERT_TRUE(PollUntil([&] {
      return Tmux({"list-clients", "-F", "#{client_control_mode}"}).out.find('1') != std::string::npos;
    })) << "the daemon's control client never attached";
  }
  void TearDown() override {
    daemon_.reset();
    Tmux({"kill-server"});
    // The server this test started must not outlive it, even when
    // kill-server did not reach it.
    if (server_pid_ > 0 && kill(server_pid_, 0) == 0) kill(server_pid_, SIGKILL);
  }

  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  RunResult Tmux(std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/tmux", "-S", sock_, "-f", "/dev/null"};
    argv.insert(argv.end(), args.begin(), args.end());
    return env_.Run(argv);
  }
  std::string Screen() { return Tmux({"capture-pane", "-p", "-t", "work"}).out; }
  std::string Log() {
    std::ifstream f(log_);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::string Event(const std::string& id, const std::string& type, const std::string& rt, const std::string& extra) {
    return "{\"event_id\":\"" + id + "\",\"event_type\":\"" + type + "\",\"source\":\"wrapper\",\"dedupe_key\":\"dk-" +
           id + "\",\"event_time\":\"2026-11-22T04:00:00Z\",\"runtime_id\":\"" + rt +
           "\",\"target_id\":\"lab\",\"pane_id\":\"" + pane_ + "\"" + extra + "}";
  }
  void Ingest(const std::string& ev) {
    auto r = daemon_->Call("POST", "/v1/events", "{\"events\":[" + ev + "]}");
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  }
  void StartRuntime(const std::string& rt, int n) {
    Ingest(Event(Id(n), "wrapper_started", rt,
                 ",\"pid\":" + agent_pid_ + ",\"runtime\":{\"agent_type\":\"claude\",\"started_at\":\"2026-11-22T04:00:00Z\"}"));
    SetState(rt, "waiting_input", n + 1, 1);
  }
  void SetState(const std::string& rt, const std::string& state, int n, int seq) {
    Ingest(Event(Id(n), "state_changed", rt,
                 ",\"source_seq\":" + std::to_string(seq) + ",\"signal\":{\"state\":\"" + state +
                     "\",\"confidence\":\"high\",\"rule_id\":\"test." + state + "\",\"evidence\":\"x\"}"));
  }
  /// A waiting state whose detail lists `choices` (a JSON array).
  void SetWaiting(const std::string& state, int n, int seq, const std::string& choices) {
    Ingest(Event(Id(n), "state_changed", runtime_,
                 ",\"source_seq\":" + std::to_string(seq) + ",\"signal\":{\"state\":\"" + state +
                     "\",\"confidence\":\"high\",\"rule_id\":\"test." + state +
                     "\",\"evidence\":\"x\",\"detail\":{\"approval_type\":\"shell\",\"choices\":" + choices +
                     ",\"cursor_position\":1}}"));
  }
  /// Types `message` into the fake agent directly (not through agtmux) and
  /// waits for the menu it opens.
  void OpenMenu(const std::string& message, const std::string& question) {
    ASSERT_EQ(Tmux({"send-keys", "-t", "work", "-l", message}).status, 0);
    ASSERT_EQ(Tmux({"send-keys", "-t", "work", "Enter"}).status, 0);
    ASSERT_TRUE(PollUntil([&] { return Screen().find(question) != std::string::npos; })) << Screen();
  }
  static std::string Id(int n) {
    std::string s = std::to_string(n);
    return "01JA" + std::string(22 - s.size(), '0') + s;
  }
  net::HttpResponse Post(const std::string& type, const std::string& fields) {
    auto r = daemon_->Call("POST", "/v1/actions/" + type, "{\"ref\":\"" + ref_ + "\"" + fields + "}");
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : net::HttpResponse{};
  }
  RunResult Cli(std::vector<std::string> args, int timeout_ms = 20000) {
    std::vector<std::string> argv = {AGTMUX_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return env_.Run(argv, timeout_ms);
  }
  std::string SnapshotId() {
    auto r = Post("snapshot", "");
    EXPECT_EQ(r.status, 200) << r.body;
    return Parse(r.body)["snapshot_id"].GetString();
  }

  TestEnv env_;
  std::unique_ptr<Daemon> daemon_;
  std::string sock_, log_, pane_, window_, agent_pid_, ref_;
  std::string runtime_ = "rt-actions-aaaaaaaaaaaa";
  pid_t server_pid_ = -1;
};

}  // namespace agt::test
