// Benchmarks of agtmuxd through its socket (figures, not assertions):
//  1. GET /v1/panes with 1,000 agent panes: p50/p95 (goal p95 < 20 ms),
//     against GET /v1/health measured in the same run as the baseline
//     (the cost of a round trip with no view to build).
//  2. State change to visible, PTY-sourced: POST a state_changed event and
//     time until (a) GET /v1/panes shows it and (b) an open watch stream
//     delivers its delta (goal p95 <= 150 ms).
//  3. Daemon RSS with 1,000 panes (VmRSS from /proc).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench/agg/bench_util.h"
#include "tests/agg/daemon_harness.h"

namespace {

using agt::test::Daemon;
using agt::test::RawConn;
using agt::test::TestEnv;
using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

void Print(const char* name, std::vector<double> v) { agt::bench::PrintLatencies(name, std::move(v)); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

long RssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

std::string RuntimeId(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "rt-bench-%08d", i);
  return buf;
}

std::string EventId(int i, int k) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "01JZ%08d%014d", i, k);
  return buf;
}

}  // namespace

int main() {
  TestEnv env;
  Daemon d(env, {"--no-observe"});
  if (!d.WaitReady()) {
    std::fprintf(stderr, "agtmuxd did not start\n");
    return 1;
  }
  long rss0 = RssKb(d.pid());
  const int kPanes = 1000;
  for (int base = 0; base < kPanes; base += 100) {
    std::string body = "{\"events\":[";
    for (int i = base; i < base + 100; ++i) {
      std::string pane = "%" + std::to_string(i);
      if (i != base) body += ",";
      body += agt::test::Started(EventId(i, 0), RuntimeId(i), pane) + "," +
              agt::test::StateEvent(EventId(i, 1), RuntimeId(i), pane, i % 3 ? "running" : "waiting_input", 1);
    }
    body += "]}";
    auto r = d.Call("POST", "/v1/events", body);
    if (!r.ok() || r->status != 200) {
      std::fprintf(stderr, "ingest failed\n");
      return 1;
    }
  }
  std::printf("agtmuxd with %d agent panes\n", kPanes);
  std::printf("%-34s %ld kB (idle daemon: %ld kB)\n", "RSS", RssKb(d.pid()), rss0);

  std::vector<double> panes, health;
  for (int i = 0; i < 10; ++i) (void)d.Call("GET", "/v1/panes");  // warm-up
  for (int i = 0; i < 100; ++i) {
    auto t0 = Clock::now();
    auto r = d.Call("GET", "/v1/panes");
    panes.push_back(Ms(Clock::now() - t0));
    auto t1 = Clock::now();
    auto h = d.Call("GET", "/v1/health");
    health.push_back(Ms(Clock::now() - t1));
    if (!r.ok() || r->status != 200) return 1;
  }
  Print("GET /v1/panes (1000 panes)", panes);
  Print("GET /v1/health (baseline)", health);
  std::printf("%-34s %.1fx\n", "panes/health median ratio", Median(panes) / Median(health));

  // State change to visible: API polling and watch delta.
  RawConn watch(env.socket());
  watch.Send("GET /v1/watch?scope=panes&state=error HTTP/1.1\r\nHost: x\r\n\r\n");
  watch.ReadUntil("\"snapshot\"");
  std::vector<double> api, stream;
  for (int k = 0; k < 50; ++k) {
    int i = k / 2;  // each pane goes to error (upsert in the filtered view), then back (delete)
    std::string pane = "%" + std::to_string(i);
    std::string state = k % 2 ? "running" : "error";
    watch.Clear();
    auto t0 = Clock::now();
    auto r = d.Call("POST", "/v1/events", agt::test::StateEvent(EventId(i, 100 + k), RuntimeId(i), pane, state, 2 + k));
    if (!r.ok() || r->status != 200) return 1;
    // (a) the API shows it
    bool seen = agt::test::PollUntil([&] {
      auto p = d.Call("GET", "/v1/panes?state=" + state + "&target=host");
      return p.ok() && p->body.find("\"pane_id\":\"" + pane + "\"") != std::string::npos;
    }, 5000);
    api.push_back(seen ? Ms(Clock::now() - t0) : 5000.0);
    // (b) the watch stream (filtered on error) delivers the upsert or delete
    watch.ReadUntil("\"" + pane + "\"", 5000);
    stream.push_back(Ms(Clock::now() - t0));
  }
  Print("state change -> API (PTY)", api);
  Print("state change -> watch delta (PTY)", stream);
  return 0;
}
