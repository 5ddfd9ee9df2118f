#!/usr/bin/env python3
"""hook_bench.py - latency of `agtmux hook claude` as an agent sees it.

    hook_bench.py --agtmux PATH --agtmuxd PATH [--runs N]

An agent's hook blocks the agent until the hook process exits, so what counts is the
wall time of one whole `agtmux hook claude < payload` process: exec, parse, POST
/v1/events to agtmuxd (or write a spool file when the daemon is down), exit. Measured
in three settings, each after 20 warm-up runs, with a realistic PreToolUse payload and a
distinct tool_use_id per run (so that the daemon applies every event instead of
refusing duplicates):

  baseline  /bin/true with the same stdin (the cost of fork+exec from this harness)
  up        agtmuxd running on a private socket (goal: p95 < 20 ms)
  down      no daemon: the event is spooled

Prints min/p50/p95/max wall ms, the hook's own CPU time per call (user+sys, which a
loaded machine does not inflate), each setting's p50 ratio to the baseline, and the load
average (wall figures on a machine with a load far above its CPU count measure the
scheduler more than the hook). Private
HOME, AGTMUX_* and tmux-less environment (TMUX_PANE is set to a fake pane id so that
the hook has a pane to report); nothing of the user's is touched. Python 3 stdlib.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time

import bench_daemon


def payload(i):
    return json.dumps({
        "session_id": "5f0c1d2e-bench-4a7b-9c3d-000000000001",
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": "/home/dev/project", "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "pytest -q tests/unit", "description": "Run the unit tests"},
        "tool_use_id": "toolu_bench_%06d" % i}).encode()


CPU = {}  # name -> CPU ms (user+sys) per call, from the children's rusage


def measure(argv, env, n, start, name=None):
    out = []
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    for i in range(n):
        data = payload(start + i)
        t0 = time.perf_counter()
        subprocess.run(argv, input=data, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append((time.perf_counter() - t0) * 1000.0)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if name:
        CPU[name] = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000.0 / n
    return out


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def report(name, xs, base=None):
    line = "%-9s n=%d  min %.2f  p50 %.2f  p95 %.2f  max %.2f ms" % (
        name, len(xs), min(xs), statistics.median(xs), pct(xs, 95), max(xs))
    if name in CPU:
        line += "  cpu %.2f ms/call" % CPU[name]
    if base:
        line += "  (p50 x%.1f baseline)" % (statistics.median(xs) / statistics.median(base))
    print(line, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agtmux", required=True)
    ap.add_argument("--agtmuxd", required=True)
    ap.add_argument("--runs", type=int, default=200)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="ahb-")
    env = {"HOME": root, "PATH": "/usr/bin:/bin", "TMUX_PANE": "%1",
           "AGTMUX_STATE_DIR": os.path.join(root, "state"), "AGTMUX_CONFIG_DIR": os.path.join(root, "config"),
           "AGTMUX_SOCKET": os.path.join(root, "d.sock"), "TMUX_TMPDIR": root}
    hook = [a.agtmux, "hook", "claude"]
    daemon = None
    try:
        measure(["/bin/true"], env, 20, 0)
        base = measure(["/bin/true"], env, a.runs, 0, "baseline")
        report("baseline", base)

        measure(hook, env, 20, 100000)  # warm-up (page cache), daemon down
        down = measure(hook, env, a.runs, 200000, "down")
        spooled = len(os.listdir(os.path.join(root, "state", "spool")))

        daemon = bench_daemon.start([a.agtmuxd], env, env["AGTMUX_SOCKET"], os.path.join(root, "agtmuxd.out"))
        measure(hook, env, 20, 300000)
        up = measure(hook, env, a.runs, 400000, "up")
        report("up", up, base)
        report("down", down, base)
        print("spool files written while down: %d of %d runs (+20 warm-up)" % (spooled, a.runs))
        print("goal p95(up) < 20 ms: %s (1-min load average %.1f on %d CPUs)"
              % ("met" if pct(up, 95) < 20 else "NOT met", os.getloadavg()[0], os.cpu_count()))
    finally:
        bench_daemon.stop(daemon)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
