// Issue 16: `[notify]` was documented and parsed, and a pane entering
// waiting_approval fired nothing. Here the real agtmuxd, with a config.toml
// [notify] section, observes a private tmux server (`tmux -L
// agtmux-test-notify-<pid>`); a pane is driven to waiting_approval with
// the wrapper's protocol (events posted as a wrapper does); a loopback HTTP
// receiver written here records the webhook's POSTs; the command writes its
// AGTMUX_* environment to a file; a real tmux client on a pty shows what
// display-message put on its status line. Checked as a person would:
// one notification on entering, none for a prompt answered within the
// dwell, none again within the cooldown, none for the pane the attached
// client is looking at.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

/// One POST as the receiver got it.
struct Post {
  std::string path, title, priority, tags, body;
};

/// A loopback HTTP server that records each request and answers 200.
class Receiver {
 public:
  Receiver() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;  // the OS chooses
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    listen(fd_, 16);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~Receiver() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  std::vector<Post> posts() {
    std::lock_guard<std::mutex> g(mu_);
    return posts_;
  }
  size_t count() { return posts().size(); }

 private:
  static std::string Header(const std::string& head, const std::string& name) {
    std::istringstream lines(head);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.size() > name.size() && strncasecmp(line.c_str(), name.c_str(), name.size()) == 0 &&
          line[name.size()] == ':') {
        size_t v = line.find_first_not_of(' ', name.size() + 1);
        return v == std::string::npos ? "" : line.substr(v);
      }
    }
    return "";
  }
  void Serve() {
    while (!stop_) {
      int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      std::string data;
      char buf[4096];
      size_t want = std::string::npos;
      while (true) {
        ssize_t n = read(c, buf, sizeof buf);
        if (n <= 0) break;
        data.append(buf, static_cast<size_t>(n));
        size_t end = data.find("\r\n\r\n");
        if (end != std::string::npos && want == std::string::npos)
          want = end + 4 + std::stoul("0" + Header(data.substr(0, end), "Content-Length"));
        if (want != std::string::npos && data.size() >= want) break;
      }
      size_t end = data.find("\r\n\r\n");
      if (end != std::string::npos) {
        std::string head = data.substr(0, end);
        Post p;
        size_t sp = head.find(' ');
        p.path = head.substr(sp + 1, head.find(' ', sp + 1) - sp - 1);
        p.title = Header(head, "Title");
        p.priority = Header(head, "Priority");
        p.tags = Header(head, "Tags");
        p.body = data.substr(end + 4);
        std::lock_guard<std::mutex> g(mu_);
        posts_.push_back(p);
      }
      const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      (void)!write(c, ok, sizeof ok - 1);
      close(c);
    }
  }
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<Post> posts_;
};

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class NotifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = "agtmux-test-notify-" + std::to_string(getpid());
    socket_ = env_.root + "/tmux/tmux-" + std::to_string(getuid()) + "/" + name_;
    env_file_ = env_.root + "/command-env.txt";
    std::filesystem::create_directories(env_.root + "/config/agtmux");
    std::ofstream(env_.root + "/config/agtmux/config.toml") << NotifyConfig();
    env_.vars.push_back("TERM=xterm-256color");
    ASSERT_EQ(Tmux({"new-session", "-d", "-s", "home", "-x", "120", "-y", "30", "sh"}).status, 0);
    ASSERT_EQ(Tmux({"new-session", "-d", "-s", "work", "-x", "120", "-y", "30", "sh"}).status, 0);
    pane_ = Trim(Tmux({"display-message", "-p", "-t", "work", "#{pane_id}"}).out);
    pane_pid_ = Trim(Tmux({"display-message", "-p", "-t", "work", "#{pane_pid}"}).out);
    daemon_ = std::make_unique<Daemon>(env_, std::vector<std::string>{});
    ASSERT_TRUE(daemon_->WaitReady()) << ReadFile(env_.state_dir() + "/agtmuxd.log");
    auto add = daemon_->Call("POST", "/v1/targets",
                             "{\"name\":\"lab\",\"kind\":\"local\",\"tmux_socket\":\"" + socket_ + "\"}");
    ASSERT_TRUE(add.ok());
    ASSERT_EQ(add->status, 201) << add->body;
    // The pane is a wrapped claude (its runtime's pid is the pane's shell,
    // alive for the whole test).
    Post_({EventJson(Id(), "wrapper_started", kRuntime, pane_,
                     ",\"pid\":" + pane_pid_ + ",\"runtime\":{\"agent_type\":\"claude\",\"tmux_socket\":\"" +
                         socket_ + "\",\"started_at\":\"2026-11-22T04:00:00Z\"}"),
           State("running")});
  }
  /// The [notify] table of the test's config.toml.
  virtual std::string NotifyConfig() {
    return "[notify]\n"
           "dwell = \"1s\"\n"
           "cooldown = \"30s\"\n"
           "command = [\"/bin/sh\", \"-c\", \"env >> \\\"$0\\\"; echo --- >> \\\"$0\\\"\", \"" +
           env_file_ +
           "\"]\n"
           "tmux_message = true\n"
           "webhook = \"http://127.0.0.1:" +
           std::to_string(receiver_.port()) + "/agents\"\n";
  }
  void TearDown() override {
    if (client_ > 0) {
      kill(client_, SIGTERM);
      waitpid(client_, nullptr, 0);
    }
    daemon_.reset();
    Tmux({"kill-server"});
  }
  RunResult Tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/tmux", "-L", name_, "-f", "/dev/null"});
    return env_.Run(args);
  }
  std::string Id() {
    char buf[32];
    std::snprintf(buf, sizeof buf, "01JH%022d", ++events_);
    return buf;
  }
  std::string State(const std::string& state) {
    std::string detail = state == "waiting_approval"
                             ? ",\"detail\":{\"approval_type\":\"shell\",\"details\":\"Bash(rm -rf build)\","
                               "\"choices\":[\"Yes\",\"No\"]}"
                             : "";
    const std::string id = Id();
    return EventJson(id, "state_changed", kRuntime, pane_,
                     ",\"source_seq\":" + std::to_string(events_) + ",\"signal\":{\"state\":\"" + state +
                         "\",\"confidence\":\"high\",\"rule_id\":\"test." + state +
                         "\",\"evidence\":\"Do you want to proceed?\"" + detail + "}");
  }
  void Post_(const std::vector<std::string>& events) {
    std::string body = "{\"events\":[";
    for (size_t i = 0; i < events.size(); ++i) body += (i ? "," : "") + events[i];
    auto r = daemon_->Call("POST", "/v1/events", body + "]}");
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  }
  std::string PaneState() {
    auto r = daemon_->Call("GET", "/v1/panes?target=lab");
    return r.ok() ? r->body : "";
  }
  /// A real client on a pty of its own, attached to `session`; what it
  /// draws goes to `screen_file_`.
  void AttachClient(const std::string& session) {
    screen_file_ = env_.root + "/client-screen.txt";
    int out = open(screen_file_.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
    client_ = env_.Spawn({"/usr/bin/python3", "-c", "import pty, sys; pty.spawn(sys.argv[1:])", "/usr/bin/tmux",
                          "-S", socket_, "attach-session", "-t", session},
                         out);
    close(out);
    ASSERT_GT(client_, 0);
    ASSERT_TRUE(PollUntil([&] { return ClientSession() == session; }, 10000)) << ClientSession();
  }
  std::string ClientSession() {
    std::string out;
    std::istringstream lines(Tmux({"list-clients", "-F", "#{?client_control_mode,,#{client_session}}"}).out);
    for (std::string line; std::getline(lines, line);) out += line;
    return out;
  }
  std::string Log() { return ReadFile(env_.state_dir() + "/agtmuxd.log"); }

  static constexpr const char* kRuntime = "rt-nnnnnnnnnnnnnnnn";
  Receiver receiver_;
  TestEnv env_;
  std::string name_, socket_, pane_, pane_pid_, env_file_, screen_file_;
  std::unique_ptr<Daemon> daemon_;
  pid_t client_ = -1;
  int events_ = 0;
};

TEST_F(NotifyTest, EnteringWaitingApprovalFiresEveryChannelOnce) {
  ASSERT_NO_FATAL_FAILURE(AttachClient("home"));  // attached, looking at another session
  Post_({State("waiting_approval")});
  ASSERT_NE(PaneState().find("waiting_approval"), std::string::npos) << PaneState();
  ASSERT_TRUE(PollUntil([&] { return receiver_.count() >= 1; }, 10000))
      << "no webhook POST; the daemon's log:\n" << Log();
  std::vector<Post> posts = receiver_.posts();
  EXPECT_EQ(posts[0].path, "/agents");
  EXPECT_EQ(posts[0].title, "claude needs approval in lab/work:0.0");
  EXPECT_EQ(posts[0].priority, "default");
  EXPECT_EQ(posts[0].tags, "waiting_approval,claude");
  EXPECT_EQ(posts[0].body, "Bash(rm -rf build)\nYes / No");

  // The command got the pane, state, agent, source, question and choices.
  ASSERT_TRUE(PollUntil([&] { return ReadFile(env_file_).find("---") != std::string::npos; }, 5000)) << Log();
  const std::string env = ReadFile(env_file_);
  for (const std::string& want :
       {"AGTMUX_PANE=" + pane_, std::string("AGTMUX_TARGET=lab"), std::string("AGTMUX_SESSION=work"),
        std::string("AGTMUX_STATE=waiting_approval"), std::string("AGTMUX_AGENT=claude"),
        std::string("AGTMUX_SOURCE=PTY"), std::string("AGTMUX_QUESTION=Bash(rm -rf build)"),
        std::string("AGTMUX_CHOICES=Yes\nNo"), std::string("AGTMUX_APPROVAL_TYPE=shell")})
    EXPECT_NE(env.find(want + "\n"), std::string::npos) << "missing " << want << " in:\n" << env;

  // display-message reached the attached client: its status line shows it.
  EXPECT_TRUE(PollUntil([&] {
    return ReadFile(screen_file_).find("agtmux: claude needs approval in lab/work:0.0: Bash(rm -rf build) | Yes / No") != std::string::npos;
  }, 5000)) << "the client's screen:\n" << ReadFile(screen_file_);

  // Entered once, notified once: nothing more while the pane keeps waiting.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(receiver_.count(), 1u);
  EXPECT_EQ(ReadFile(env_file_).find("---"), ReadFile(env_file_).rfind("---")) << "the command ran twice";
}

TEST_F(NotifyTest, AnsweredWithinTheDwellAndWithinTheCooldownDoNotNotify) {
  // Answered at once: the dwell (1 s) never passes.
  Post_({State("waiting_approval")});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // seen by the notifier, well within the dwell
  Post_({State("running")});
  // Held: notified once, after the dwell.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  EXPECT_EQ(receiver_.count(), 0u) << "a prompt answered at once was notified";
  Post_({State("waiting_approval")});
  ASSERT_TRUE(PollUntil([&] { return receiver_.count() == 1; }, 10000)) << Log();
  // Answered, then a new approval held past the dwell: within the 30 s
  // cooldown, so not notified.
  Post_({State("running")});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Post_({State("waiting_approval")});
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(receiver_.count(), 1u) << "notified again within the cooldown";
}

TEST_F(NotifyTest, ThePaneAnAttachedClientShowsIsNotNotified) {
  ASSERT_NO_FATAL_FAILURE(AttachClient("work"));  // the agent's pane is on screen
  Post_({State("waiting_approval")});
  ASSERT_TRUE(PollUntil([&] { return Log().find("notify: not sent, " + pane_ + " is on screen") != std::string::npos; },
                        10000))
      << Log();
  EXPECT_EQ(receiver_.count(), 0u);
  // The user looks elsewhere: the next wait is notified.
  const std::string client = Trim(Tmux({"list-clients", "-F", "#{?client_control_mode,,#{client_name}}"}).out);
  ASSERT_EQ(Tmux({"switch-client", "-c", client.substr(client.find_first_not_of('\n')), "-t", "home"}).status, 0);
  ASSERT_TRUE(PollUntil([&] { return ClientSession() == "home"; }, 5000));
  Post_({State("running")});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Post_({State("waiting_approval")});
  EXPECT_TRUE(PollUntil([&] { return receiver_.count() == 1; }, 10000)) << Log();
}

// The channels that cannot deliver: a webhook whose server refuses the
// connection, a desktop channel with no notify-send on PATH. Each says so in
// the log with the reason, once: the second notification (no cooldown
// here) adds no line within the minute.
class NotifyFailureTest : public NotifyTest {
 protected:
  std::string NotifyConfig() override {
    // A port nothing listens on: bound, then closed.
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    for (std::string& v : env_.vars)  // the test machines have no notify-send there
      if (v.rfind("PATH=", 0) == 0) v = "PATH=/usr/bin:/bin";
    return "[notify]\ndwell = \"0s\"\ncooldown = \"0s\"\ndesktop = true\n"
           "webhook = \"http://127.0.0.1:" +
           std::to_string(ntohs(a.sin_port)) + "/x\"\nwebhook_timeout = \"2s\"\n";
  }
  size_t Count(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
  }
};

TEST_F(NotifyFailureTest, FailuresAreLoggedWithTheirReasonOnce) {
  ASSERT_NE(access("/usr/bin/notify-send", X_OK), 0) << "this test needs a machine without notify-send";
  Post_({State("waiting_approval")});
  ASSERT_TRUE(PollUntil([&] { return Log().find("notify: webhook failed: ") != std::string::npos; }, 10000))
      << Log();
  EXPECT_NE(Log().find("notify: webhook failed: Couldn't connect to server"), std::string::npos) << Log();
  EXPECT_NE(Log().find("notify-send is not on PATH"), std::string::npos) << Log();
  // A second entry: sent again (the log says so), failing again, not logged again.
  Post_({State("running")});
  Post_({State("waiting_input")});
  ASSERT_TRUE(PollUntil([&] { return Count(Log(), "notify: claude ") == 2; }, 10000)) << Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const std::string log = Log();
  EXPECT_EQ(Count(log, "notify: webhook failed"), 1u) << log;
  EXPECT_EQ(Count(log, "notify-send is not on PATH"), 1u) << log;
  // The daemon kept serving through it.
  EXPECT_NE(PaneState().find("waiting_input"), std::string::npos);
}

}  // namespace
}  // namespace agt::test
