// Federation benchmarks (docs/architecture.md, "Federation"; figures, not
// assertions). Loopback "hosts" are tests/agg/federation/remote_host.h:
// sshd + own agtmuxd (+ private tmux for the latency host).
//  1. A remote wrapped state change -> the local watch stream: p50/p95
//     (goal p95 <= 250 ms), against the same change on the remote's own
//     watch stream in the same run (the baseline: what federation adds).
//  2. GET /v1/panes on the local daemon with 10 federated targets x 100
//     agent panes: p50/p95 (goal p95 < 30 ms), against GET /v1/health;
//     quiet, then with the remotes busy (100 state changes a second spread
//     over the 10 hosts, and one local watch client reading the stream, as
//     `agtmux ui` would).
//  3. The local daemon's CPU with those 10 targets idle (goal < 2 % of one
//     core), against the same daemon idle before the targets were added.
//  4. Bytes per second on the wire (TCP payload received by the local
//     daemon from one sshd: the SSH transport, encryption included) for an
//     idle remote with 100 panes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/agg/bench_util.h"
#include "tests/agg/federation/remote_host.h"

namespace {

using agt::test::Daemon;
using agt::test::PollUntil;
using agt::test::RawConn;
using agt::test::RemoteHost;
using agt::test::TestEnv;
using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

void Print(const char* name, std::vector<double> v) { agt::bench::PrintLatencies(name, std::move(v), 44); }

std::string Id(int host, int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "01JH%02d%020d", host, n);
  return buf;
}

std::string Runtime(int host, int pane) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "rt-b%02dp%013d", host, pane);
  return buf;
}

void AddTarget(const TestEnv& local, RemoteHost& host, const std::string& name) {
  host.Trust(local);
  auto add = local.Run({AGTMUX_BIN, "target", "add", name, "--kind", "ssh", "--ssh-target", host.SshTarget(), "--via",
                        "agtmuxd"});
  if (add.status != 0) std::fprintf(stderr, "target add %s: %s\n", name.c_str(), add.err.c_str());
}

/// Bytes the local side received on TCP connections to 127.0.0.1:port (ss -ti bytes_received).
int64_t BytesReceived(int port) {
  TestEnv probe;
  auto r = probe.Run({"/usr/bin/ss", "-tinH", "dst", "127.0.0.1:" + std::to_string(port)});
  int64_t total = 0;
  for (size_t at = 0; (at = r.out.find("bytes_received:", at)) != std::string::npos;) {
    at += 15;
    total += std::stoll(r.out.substr(at));
  }
  return total;
}

void Latency() {
  RemoteHost host(1);
  host.StartDaemon();
  const std::string pane = host.NewPane("work");
  PollUntil([&] {
    auto r = host.daemon->Call("GET", "/v1/panes?all=1&target=host");
    return r.ok() && r->body.find("\"session_name\":\"work\"") != std::string::npos;
  }, 10000);
  const std::string rt = Runtime(1, 0);
  host.Post({host.WrapperStarted(Id(1, 0), rt, pane), agt::test::StateEvent(Id(1, 1), rt, pane, "running", 1)});
  TestEnv local;
  Daemon d(local);
  d.WaitReady();
  AddTarget(local, host, "vm");
  PollUntil([&] {
    auto r = d.Call("GET", "/v1/panes?target=vm");
    return r.ok() && r->body.find("\"state\":\"running\"") != std::string::npos;
  }, 15000);
  RawConn local_watch(local.socket()), remote_watch(host.env.socket());
  local_watch.Send("GET /v1/watch?target=vm&interval=10s HTTP/1.1\r\nHost: x\r\n\r\n");
  remote_watch.Send("GET /v1/watch?target=host&interval=10s HTTP/1.1\r\nHost: x\r\n\r\n");
  local_watch.ReadUntil("\"snapshot\"");
  remote_watch.ReadUntil("\"snapshot\"");
  std::vector<double> fed, base;
  for (int i = 0; i < 40; ++i) {
    const std::string state = i % 2 ? "running" : "waiting_input";
    const std::string want = "\"state\":\"" + state + "\"";
    local_watch.Clear();
    remote_watch.Clear();
    const auto t0 = Clock::now();
    host.Post({agt::test::StateEvent(Id(1, 100 + i), rt, pane, state, 2 + i)});
    remote_watch.ReadUntil(want);
    base.push_back(Ms(Clock::now() - t0));
    local_watch.ReadUntil(want);
    fed.push_back(Ms(Clock::now() - t0));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  // A read that timed out (5 s) counts as 5 s: it is shown, not dropped.
  auto slow = [](const std::vector<double>& v) { return std::count_if(v.begin(), v.end(), [](double ms) { return ms >= 5000; }); };
  std::printf("samples that waited 5 s (no delta seen): baseline %ld, federated %ld\n", long(slow(base)), long(slow(fed)));
  Print("remote change -> remote watch (baseline)", base);
  Print("remote change -> local watch (federated)", fed);
}

void Scale(bool panes_only) {
  constexpr int kHosts = 10, kPanes = 100;
  std::vector<std::unique_ptr<RemoteHost>> hosts;
  for (int h = 0; h < kHosts; ++h) {
    hosts.push_back(std::make_unique<RemoteHost>(10 + h));
    hosts.back()->StartDaemon();
    std::vector<std::string> events;
    for (int p = 0; p < kPanes; ++p) {
      const std::string pane = "%" + std::to_string(p), rt = Runtime(h, p);
      // The bench's own pid: a live "agent", so the runtime is not ended.
      std::string started = agt::test::Started(Id(h, 2 * p), rt, pane);
      started.replace(started.find("4242"), 4, std::to_string(getpid()));
      events.push_back(started);
      events.push_back(agt::test::StateEvent(Id(h, 2 * p + 1), rt, pane, p % 3 ? "running" : "idle", 1));
    }
    hosts.back()->Post(events);
  }
  TestEnv local;
  Daemon d(local);
  d.WaitReady();
  const int64_t pid = [&] {
    auto r = d.Call("GET", "/v1/health");
    auto at = r->body.find("\"pid\":");
    return std::stoll(r->body.substr(at + 6));
  }();
  const double idle0 = agt::bench::ProcCpuSeconds(pid);
  if (!panes_only) std::this_thread::sleep_for(std::chrono::seconds(10));
  const double idle_base = (agt::bench::ProcCpuSeconds(pid) - idle0) / 10.0;

  for (int h = 0; h < kHosts; ++h) AddTarget(local, *hosts[h], "vm" + std::to_string(h));
  const bool all = PollUntil([&] {
    auto r = d.Call("GET", "/v1/panes");
    if (!r.ok()) return false;
    return r->body.find("\"agent_panes\":" + std::to_string(kHosts * kPanes) + ",") != std::string::npos;
  }, 60000);
  if (!all) std::printf("warning: not every remote pane arrived\n");

  auto sample = [&](const char* health_name, const char* panes_name) {
    std::vector<double> panes, health;
    for (int i = 0; i < 200; ++i) {
      auto t0 = Clock::now();
      (void)d.Call("GET", "/v1/health");
      health.push_back(Ms(Clock::now() - t0));
      t0 = Clock::now();
      auto r = d.Call("GET", "/v1/panes");
      panes.push_back(Ms(Clock::now() - t0));
      if (i == 0) std::printf("GET /v1/panes answer: %zu bytes\n", r.ok() ? r->body.size() : 0);
    }
    Print(health_name, health);
    Print(panes_name, panes);
  };
  sample("GET /v1/health (baseline)", "GET /v1/panes, 10 targets x 100 panes");

  // Busy: one poster cycles over the hosts (a change every 10 ms, each to
  // the next host's next pane), one local watch client drains its stream.
  std::atomic<bool> busy{true};
  std::atomic<int64_t> changes{0};
  std::thread poster([&] {
    std::vector<int64_t> seq(kHosts * kPanes, 1);
    for (int n = 0; busy; ++n) {
      const int h = n % kHosts, p = (n / kHosts) % kPanes;
      const std::string rt = Runtime(h, p);
      const char* state = (++seq[h * kPanes + p]) % 2 ? "running" : "waiting_input";
      hosts[h]->Post({agt::test::StateEvent(Id(h, 1000 + n), rt, "%" + std::to_string(p), state, seq[h * kPanes + p])});
      ++changes;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  std::atomic<int64_t> watched{0}, watched_lines{0};
  RawConn watch(local.socket());
  watch.Send("GET /v1/watch?interval=10s HTTP/1.1\r\nHost: x\r\n\r\n");
  std::thread reader([&] {
    while (busy) {
      const std::string got = watch.ReadUntil("\n", 200);
      watched += int64_t(got.size());
      watched_lines += std::count(got.begin(), got.end(), '\n');
      watch.Clear();
    }
  });
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the changes flow
  const auto busy0 = Clock::now();
  const int64_t changes0 = changes, watched0 = watched, lines0 = watched_lines;
  sample("GET /v1/health, remotes busy", "GET /v1/panes, remotes busy");
  const double busy_s = std::chrono::duration<double>(Clock::now() - busy0).count();
  std::printf("busy: %.0f remote changes/s posted, local watch read %.0f lines/s, %.0f KB/s\n",
              double(changes - changes0) / busy_s, double(watched_lines - lines0) / busy_s,
              double(watched - watched0) / 1024.0 / busy_s);
  busy = false;
  poster.join();
  reader.join();
  if (panes_only) return;

  // Idle: let the mirrors' first writes settle, then sample.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const int port = hosts[0]->sshd->port();
  const int64_t bytes0 = BytesReceived(port);
  const double cpu0 = agt::bench::ProcCpuSeconds(pid);
  constexpr int kIdleSeconds = 20;
  std::this_thread::sleep_for(std::chrono::seconds(kIdleSeconds));
  const double cpu = (agt::bench::ProcCpuSeconds(pid) - cpu0) / kIdleSeconds;
  const int64_t bytes = BytesReceived(port) - bytes0;
  std::printf("local agtmuxd CPU, idle, no targets (baseline): %.2f%% of one core\n", 100.0 * idle_base);
  std::printf("local agtmuxd CPU, 10 idle federated targets:  %.2f%% of one core (%d s)\n", 100.0 * cpu,
              kIdleSeconds);
  std::printf("ssh wire, one idle remote with 100 panes:      %.0f bytes/s received (%d s)\n",
              double(bytes) / kIdleSeconds, kIdleSeconds);
}

}  // namespace

// `federation_bench --panes-only`: only the GET /v1/panes figures (2).
int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const bool panes_only = argc > 1 && std::string(argv[1]) == "--panes-only";
  if (!panes_only) Latency();
  Scale(panes_only);
  return 0;
}
