// What the observe benchmarks share: CPU time (this process's or its reaped
// children's from getrusage, another process's from /proc/<pid>/stat), and
// running a loop idle for a while.
#pragma once

#include <sys/resource.h>
#include <uv.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace agt::bench {

/// Seconds of CPU (user + system) of RUSAGE_SELF or RUSAGE_CHILDREN.
inline double CpuSeconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// Seconds of CPU (user + system) of process `pid`; 0 when it cannot be read.
inline double ProcCpuSeconds(int64_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), {});
  size_t p = s.rfind(')');
  if (p == std::string::npos) return 0;
  std::istringstream in(s.substr(p + 2));
  std::string tok;
  double ut = 0, st = 0;
  for (int field = 3; in >> tok; ++field) {
    if (field == 14) ut = std::stod(tok);
    if (field == 15) {
      st = std::stod(tok);
      break;
    }
  }
  return (ut + st) / double(sysconf(_SC_CLK_TCK));
}

/// Prints "name n= min= p50= p95= max=" of latencies in milliseconds,
/// the name padded to `width`.
inline void PrintLatencies(const char* name, std::vector<double> v, int width = 34) {
  std::sort(v.begin(), v.end());
  auto pct = [&](double p) { return v[std::min(v.size() - 1, static_cast<size_t>(p * double(v.size() - 1) + 0.5))]; };
  std::printf("%-*s n=%zu min=%.2fms p50=%.2fms p95=%.2fms max=%.2fms\n", width, name, v.size(), v.front(), pct(0.5),
              pct(0.95), v.back());
}

/// Runs `loop` for `ms` with no timer of our own beyond the stop: the loop
/// sleeps until its handles (the collector's timers, tmux) wake it, as in
/// the daemon.
inline void RunIdle(uv_loop_t* loop, int ms) {
  uv_timer_t stop;
  uv_timer_init(loop, &stop);
  uv_timer_start(&stop, [](uv_timer_t* t) { uv_stop(t->loop); }, uint64_t(ms), 0);
  uv_run(loop, UV_RUN_DEFAULT);
  uv_close(reinterpret_cast<uv_handle_t*>(&stop), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
}

}  // namespace agt::bench
