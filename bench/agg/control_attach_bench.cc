// Control-client attach benchmark: the daemon's own protocol client
// (aggregator/observe/tmux_imsg.h) against the baseline it replaced, a
// `tmux -C attach-session` process, both through TmuxControlClient.
//
// 1. Attach latency: a private tmux server with one session is up (its
//    socket exists); the time from Start() to the first %session-changed
//    (on_connected). Medians and the ratio process / protocol.
// 2. The tmux 3.3a crash (docs/observe.md, "tmux 3.3a and control
//    clients"): runs of a few seconds in which two shells create, rename
//    and kill sessions in a tight loop while three read-only clients attach
//    and detach over and over; a run counts as a crash when the server
//    died. Crashes per runs for each way of attaching.
// Prints figures; asserts nothing. Arguments: [latency reps] [crash runs]
// [seconds per crash run] (default 30 10 4).
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "aggregator/observe/tmux_control_client.h"
#include "aggregator/targets/target_executor.h"
#include "bench/agg/bench_util.h"

extern char** environ;

namespace {

using namespace agt;
using agg::ControlClientOptions;
using agg::TmuxControlClient;
using Attach = ControlClientOptions::Attach;
using Clock = std::chrono::steady_clock;

struct Server {
  std::string sock;
  agg::LocalExecutor ex;
  std::string Run(std::vector<std::string> args) {
    std::vector<std::string> argv = {"tmux", "-S", sock, "-f", "/dev/null"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = ex.Run(argv, agg::ExecOptions{});
    std::string out = r.ok() ? r->out : std::string();
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  int64_t Pid() { return std::atoll(Run({"display-message", "-p", "#{pid}"}).c_str()); }
  /// Kills the server and waits until it has gone.
  void Kill() {
    const int64_t pid = Pid();
    Run({"kill-server"});
    for (int i = 0; i < 500 && pid > 0 && kill(pid_t(pid), 0) == 0; ++i) usleep(2000);
  }
};

ControlClientOptions Options(const std::string& sock, Attach attach) {
  ControlClientOptions o;
  o.socket_path = sock;
  o.watch_socket = false;
  o.reconnect_min = 20 * core::kNsPerMs;
  o.reconnect_max = 100 * core::kNsPerMs;
  o.settle_new_server = 0;
  o.attach = attach;
  return o;
}

/// Runs `loop` until `done()` or `ms`.
bool RunUntil(uv_loop_t* loop, const std::function<bool()>& done, int ms) {
  uv_timer_t tick;
  uv_timer_init(loop, &tick);
  uv_timer_start(&tick, [](uv_timer_t*) {}, 1, 1);
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  while (!done() && Clock::now() < end) uv_run(loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
  return done();
}

/// Lets closed clients' handles finish.
void Settle(uv_loop_t* loop) {
  for (int i = 0; i < 20; ++i) uv_run(loop, UV_RUN_NOWAIT);
}

double AttachMs(uv_loop_t* loop, const std::string& sock, Attach attach) {
  bool up = false;
  TmuxControlClient::Callbacks cb;
  cb.on_connected = [&] { up = true; };
  auto client = std::make_unique<TmuxControlClient>(loop, Options(sock, attach), cb);
  const auto t0 = Clock::now();
  client->Start();
  if (!RunUntil(loop, [&] { return up; }, 5000)) return -1;
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  client.reset();
  Settle(loop);
  return ms;
}

/// One crash run: true when the server died.
bool CrashRun(uv_loop_t* loop, Server& tmux, Attach attach, int seconds) {
  tmux.Run({"new-session", "-d", "-s", "base"});
  const std::string base = tmux.Run({"display-message", "-p", "-t", "base", "#{session_id}"});
  const int64_t server = tmux.Pid();
  std::vector<pid_t> churn;
  for (const char* tag : {"a", "b"}) {
    const std::string t = "tmux -S '" + tmux.sock + "' -f /dev/null ";
    const std::string script = std::string("i=0; while :; do i=$((i+1)); ") + t + "new-session -d -s " + tag +
                               "$i \\; rename-session -t " + tag + "$i " + tag + "r$i \\; kill-session -t " + tag +
                               "r$i 2>/dev/null; done";
    const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
    pid_t pid = -1;
    if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) == 0) churn.push_back(pid);
  }
  bool alive = true;
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  while (alive && Clock::now() < end) {
    ControlClientOptions o = Options(tmux.sock, attach);
    o.session = base;
    o.read_only = true;
    std::vector<std::unique_ptr<TmuxControlClient>> clients;
    for (int i = 0; i < 3; ++i) {
      clients.push_back(std::make_unique<TmuxControlClient>(loop, o, TmuxControlClient::Callbacks{}));
      clients.back()->Start();
    }
    RunUntil(loop, [&] {
      for (auto& c : clients)
        if (!c->connected()) return false;
      return true;
    }, 2000);
    clients.clear();
    Settle(loop);
    alive = kill(pid_t(server), 0) == 0;
  }
  for (pid_t p : churn) {
    kill(p, SIGKILL);
    waitpid(p, nullptr, 0);
  }
  if (alive) tmux.Kill();
  return !alive;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  unsetenv("TMUX");
  const int reps = argc > 1 ? std::atoi(argv[1]) : 30;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 10;
  const int seconds = argc > 3 ? std::atoi(argv[3]) : 4;
  char tmpl[] = "/tmp/agtmux-attachbench-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  Server tmux;
  tmux.sock = dir + "/tmux.sock";
  uv_loop_t loop;
  uv_loop_init(&loop);

  // 1. Latency, the two ways alternated on the same server.
  tmux.Run({"new-session", "-d", "-s", "work"});
  std::vector<double> process, protocol;
  for (int i = 0; i < 3; ++i) {  // warm-up
    AttachMs(&loop, tmux.sock, Attach::kProcess);
    AttachMs(&loop, tmux.sock, Attach::kProtocol);
  }
  for (int i = 0; i < reps; ++i) {
    const double a = AttachMs(&loop, tmux.sock, Attach::kProcess);
    const double b = AttachMs(&loop, tmux.sock, Attach::kProtocol);
    if (a >= 0) process.push_back(a);
    if (b >= 0) protocol.push_back(b);
  }
  tmux.Kill();
  if (process.empty() || protocol.empty()) {
    std::fprintf(stderr, "no attach measured\n");
    return 1;
  }
  std::printf("attach latency (Start -> first %%session-changed), %d reps each\n", reps);
  bench::PrintLatencies("  tmux -C process (baseline)", process);
  bench::PrintLatencies("  protocol client", protocol);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("  median ratio process / protocol: %.1fx\n", median(process) / median(protocol));

  // 2. Crashes under session churn.
  std::printf("tmux 3.3a crash: %d runs of %d s each, sessions churned by two shells, 3 clients attaching\n", runs,
              seconds);
  for (Attach attach : {Attach::kProcess, Attach::kProtocol}) {
    int crashes = 0;
    for (int r = 0; r < runs; ++r) crashes += CrashRun(&loop, tmux, attach, seconds) ? 1 : 0;
    std::printf("  %-28s crashes %d / %d runs\n",
                attach == Attach::kProcess ? "tmux -C process (baseline)" : "protocol client", crashes, runs);
  }
  Settle(&loop);
  uv_loop_close(&loop);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
