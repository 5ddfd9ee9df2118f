// The tmux test helpers (see tmux_fixture.h).
#include "tests/agg/observe/tmux_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace agt::agg::testing {

// The daemon ignores SIGPIPE (aggregator/daemon/lifecycle.cc); so must the tests, or a
// write to a control client whose server was just killed ends the process.
[[maybe_unused]] const bool kIgnoreSigpipe = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

TempDir::TempDir() {
  std::string tmpl = "/tmp/agtmux-obs-XXXXXX";
  char* p = mkdtemp(tmpl.data());
  AGT_CHECK(p != nullptr);
  path_ = p;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

PrivateTmux::PrivateTmux(const std::string& dir) : socket_(dir + "/tmux.sock") {}

PrivateTmux::~PrivateTmux() { Kill(); }

void PrivateTmux::Kill() {
  // tmux 3.3a waits for its clients before it exits, and a control client
  // whose ssh channel closed can stay (its sshd child gone, the client
  // alive): the server then outlives the test. What is still there a
  // second after kill-server is killed by pid.
  std::vector<pid_t> pids;
  auto collect = [&](const std::vector<std::string>& args) {
    ExecResult r = Run(args);
    if (r.exit_code != 0) return;
    std::istringstream in(r.out);
    long pid;
    while (in >> pid)
      if (pid > 1 && pid != getpid()) pids.push_back(pid_t(pid));  // a protocol client reports our pid
  };
  collect({"display-message", "-p", "#{pid}"});
  collect({"list-clients", "-F", "#{client_pid}"});
  (void)Run({"kill-server"});
  for (int i = 0; i < 100 && !pids.empty(); ++i) {
    std::erase_if(pids, [](pid_t p) { return kill(p, 0) != 0; });
    if (!pids.empty()) usleep(10 * 1000);
  }
  for (pid_t p : pids) kill(p, SIGKILL);
}

ExecResult PrivateTmux::Run(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"tmux", "-S", socket_, "-f", "/dev/null"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = exec_.Run(argv, ExecOptions{});
  if (!r.ok()) return ExecResult{255, "", r.error().ToString()};
  return *r;
}

std::string PrivateTmux::Must(const std::vector<std::string>& args) {
  ExecResult r = Run(args);
  std::string cmd;
  for (const auto& a : args) cmd += a + " ";
  EXPECT_EQ(r.exit_code, 0) << "tmux " << cmd << ": " << r.err;
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

Loop::Loop() { uv_loop_init(&loop_); }

Loop::~Loop() {
  // Let every handle's close callback run before the loop goes.
  for (int i = 0; i < 200 && uv_loop_alive(&loop_); ++i) {
    uv_run(&loop_, UV_RUN_NOWAIT);
    timespec ts{0, 5'000'000};
    nanosleep(&ts, nullptr);
  }
  uv_walk(
      &loop_, [](uv_handle_t* h, void*) {
        if (!uv_is_closing(h)) uv_close(h, nullptr);
      },
      nullptr);
  uv_run(&loop_, UV_RUN_NOWAIT);
  uv_loop_close(&loop_);
}

bool Loop::RunUntil(const std::function<bool()>& done, int timeout_ms) {
  uv_timer_t tick;
  uv_timer_init(&loop_, &tick);
  uv_timer_start(&tick, [](uv_timer_t*) {}, 10, 10);  // wakes the loop to re-check
  // uv_now is the time of the loop's last turn: after the test slept (a
  // stalled daemon), a deadline from it would already be over.
  uv_update_time(&loop_);
  const uint64_t deadline = uv_now(&loop_) + uint64_t(timeout_ms);
  bool ok = done();
  while (!ok && uv_now(&loop_) < deadline) {
    uv_run(&loop_, UV_RUN_ONCE);
    ok = done();
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
  uv_run(&loop_, UV_RUN_NOWAIT);
  return ok;
}

void Loop::RunFor(int ms) {
  (void)RunUntil([] { return false; }, ms);
}

std::string SourceDir() { return OBSERVE_TEST_SOURCE_DIR; }

void WriteScreen(const std::string& dir, int n, const std::vector<std::string>& lines) {
  std::ofstream f(dir + "/screen" + std::to_string(n) + ".ans", std::ios::binary);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) f << "\r\n";
    f << lines[i];
  }
}

int FirstSnapshotWith(const std::string& snapshots_jsonl, const std::string& text) {
  std::ifstream in(snapshots_jsonl);
  std::string line;
  for (int i = 0; std::getline(in, line); ++i)
    if (line.find(text) != std::string::npos) return i;
  return -1;
}

int PrepareReplay(const std::string& snapshots_jsonl, const std::string& dir,
                  const std::string& agent) {
  std::ifstream in(snapshots_jsonl);
  EXPECT_TRUE(in.good()) << snapshots_jsonl;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("lines")) continue;
    std::vector<std::string> lines;
    for (const auto& l : d["lines"].GetArray()) lines.emplace_back(l.GetString(), l.GetStringLength());
    // Trailing blank rows are not written (no scroll); the cursor goes
    // where the recording had it.
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    std::ostringstream s;
    for (size_t i = 0; i < lines.size(); ++i) s << (i ? "\r\n" : "") << lines[i];
    if (d.HasMember("cursor") && d["cursor"].IsArray() && d["cursor"].Size() == 2)
      s << "\033[" << d["cursor"][1].GetInt() + 1 << ";" << d["cursor"][0].GetInt() + 1 << "H";
    std::ofstream f(dir + "/screen" + std::to_string(n) + ".ans", std::ios::binary);
    f << s.str();
    ++n;
  }
  std::filesystem::path link = dir + "/" + agent;
  std::error_code ec;
  std::filesystem::remove(link, ec);
  std::filesystem::create_symlink(SourceDir() + "/replay_screen.sh", link);
  mkfifo((dir + "/ctl").c_str(), 0600);
  return n;
}

void ShowScreen(const std::string& dir, int n) {
  const std::string path = dir + "/ctl";
  // The replayer holds the FIFO open from its start; a non-blocking open
  // fails with ENXIO until then.
  for (int i = 0; i < 500; ++i) {
    int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      std::string s = std::to_string(n) + "\n";
      ssize_t w = write(fd, s.data(), s.size());
      close(fd);
      ASSERT_EQ(w, ssize_t(s.size()));
      return;
    }
    timespec ts{0, 10'000'000};
    nanosleep(&ts, nullptr);
  }
  FAIL() << "replayer in " << dir << " never opened its FIFO";
}

}  // namespace agt::agg::testing
