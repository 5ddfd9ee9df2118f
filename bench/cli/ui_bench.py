#!/usr/bin/env python3
"""ui_bench.py - `agtmux ui`: time to the first frame, and the cost of a redraw.

    ui_bench.py --agtmux PATH --agtmuxd PATH [--panes 100,1000] [--runs 7] [--updates 40]

The panes are real to the daemon: a private agtmuxd (--no-observe, so no tmux server
of the user's is read) is fed each pane's `wrapper_started` and `state_changed` events
through POST /v1/events, the protocol `agtmux wrap` speaks, so the view gets them
through the same watch stream as in use (each names this script's pid as the agent's,
a live process, so the daemon keeps the runtimes). (The panes have no tmux session: they are
grouped under "host / (no session yet)".) A third of them wait for input.

For each pane count:
  first frame  process start (fork of `agtmux ui` on an 80x24 pty) until the terminal
               output holds the title with "<N> agent panes", i.e. the first frame that
               shows the daemon's panes (also: until the first paint of any frame);
  redraw       with the view open, one pane changes state per event (POSTed every
               50 ms); the view's own account (AGTMUX_UI_STATS: apply the stream line,
               rebuild the rows, lay out, paint) per update, and the bytes it wrote to
               the terminal per update.
Baseline in the same run: fork+exec of /bin/true on the same pty.
Prints min/median/max; the goal is a first frame under 100 ms with 100 panes.
Python 3 stdlib; the private HOME/AGTMUX_* environment touches nothing of the user's.
"""
import argparse
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time

import bench_daemon


def event(n, kind, rt, pane, extra):
    e = {"event_id": "01JC%022d" % n, "event_type": kind, "source": "wrapper", "dedupe_key": "dk-%d" % n,
         "event_time": "2026-11-24T04:00:00Z", "runtime_id": rt, "target_id": "host", "pane_id": pane}
    e.update(extra)
    return e


SEQ = {}


def state(n, i, st):
    SEQ[i] = SEQ.get(i, 0) + 1
    return event(n, "state_changed", "rt-uibench-%06d" % i, "%%%d" % i,
                 {"source_seq": SEQ[i], "signal": {"state": st, "confidence": "high", "rule_id": "bench." + st,
                                                    "evidence": "bench line %d" % i}})


def feed(sock, first, panes):
    """Announces panes first..panes-1 (wrapper_started + a state each)."""
    for base in range(first, panes, 100):
        evs = []
        for i in range(base, min(panes, base + 100)):
            evs.append(event(2 * i, "wrapper_started", "rt-uibench-%06d" % i, "%%%d" % i,
                             {"pid": os.getpid(), "runtime": {"agent_type": ["claude", "codex", "gemini"][i % 3],
                                                        "started_at": "2026-11-24T04:00:00Z"}}))
            evs.append(state(2 * i + 1, i, "waiting_input" if i % 3 == 0 else "running"))
        r = bench_daemon.call(sock, "POST", "/v1/events", json.dumps({"events": evs}).encode())
        if not r.startswith(b"HTTP/1.1 200"):
            sys.exit("ingest failed: %r" % r[:300])


def spawn(argv, env):
    """argv on a fresh 80x24 pty; (pid, master fd, fork time)."""
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.execve(argv[0], argv, env)
    return pid, fd, t0


def read_some(fd, wait):
    """What fd has within `wait` seconds (b"" when nothing), None at its end."""
    if not select.select([fd], [], [], wait)[0]:
        return b""
    try:
        return os.read(fd, 65536) or None
    except OSError:
        return None


def read_until(fd, needle, timeout):
    """Bytes read from fd until `needle` is in them; (data, time found or None)."""
    data, end = b"", time.monotonic() + timeout
    while time.monotonic() < end:
        chunk = read_some(fd, 0.05)
        if chunk is None:
            break
        data += chunk
        if needle in data:
            return data, time.perf_counter()
    return data, None


def drain(fd):
    """How many bytes fd had ready."""
    n = 0
    while True:
        chunk = read_some(fd, 0)
        if not chunk:
            return n
        n += len(chunk)


def stop(pid, fd):
    try:
        os.write(fd, b"q")
        end = time.monotonic() + 5
        while time.monotonic() < end:
            drain(fd)
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.02)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    finally:
        os.close(fd)


def show(name, xs, unit="ms"):
    print("%-40s n=%-3d min %8.2f  median %8.2f  max %8.2f %s" % (name, len(xs), min(xs), statistics.median(xs),
                                                                 max(xs), unit), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agtmux", required=True)
    ap.add_argument("--agtmuxd", required=True)
    ap.add_argument("--panes", default="100,1000")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--updates", type=int, default=40)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="aub-")
    env = {"HOME": root, "PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8",
           "AGTMUX_STATE_DIR": os.path.join(root, "state"), "AGTMUX_CONFIG_DIR": os.path.join(root, "config"),
           "AGTMUX_SOCKET": os.path.join(root, "d.sock"), "TMUX_TMPDIR": root}
    sock = env["AGTMUX_SOCKET"]
    daemon = None
    try:
        base = []
        for _ in range(a.runs):
            pid, fd, t0 = spawn(["/bin/true"], env)
            read_until(fd, b"\0never", 2)
            os.waitpid(pid, 0)
            os.close(fd)
        for _ in range(a.runs):
            pid, fd, t0 = spawn(["/bin/sh", "-c", "echo ready"], env)
            _, t = read_until(fd, b"ready", 5)
            os.waitpid(pid, 0)
            os.close(fd)
            base.append((t - t0) * 1000)
        show("baseline: sh -c 'echo ready'", base)
        daemon = bench_daemon.start([a.agtmuxd, "--no-observe", "--fast-durability"], env, sock,
                                    os.path.join(root, "agtmuxd.out"))
        fed = 0
        results = {}
        for panes in [int(x) for x in a.panes.split(",")]:
            feed(sock, fed, panes)
            fed = max(fed, panes)
            needle = ("%d agent panes" % panes).encode()
            first, paint = [], []
            for _ in range(a.runs):
                pid, fd, t0 = spawn([a.agtmux, "ui"], env)
                data, t_paint = read_until(fd, b"agtmux", 10)
                data2, t = read_until(fd, needle, 10) if needle not in data else (data, t_paint)
                stop(pid, fd)
                if t is None or t_paint is None:
                    sys.exit("no frame with %r within 10 s" % needle)
                paint.append((t_paint - t0) * 1000)
                first.append((t - t0) * 1000)
            # Redraw cost: the view open, one pane changes per event.
            stats = os.path.join(root, "stats-%d" % panes)
            env2 = dict(env, AGTMUX_UI_STATS=stats)
            pid, fd, t0 = spawn([a.agtmux, "ui"], env2)
            read_until(fd, needle, 10)
            time.sleep(0.3)
            drain(fd)
            open(stats, "w").close()
            sizes = []
            for u in range(a.updates):
                evs_n = 50000000 + panes * 10000 + u
                i = (u * 7) % panes
                st = ["completed", "running", "error", "idle"][u % 4]
                bench_daemon.call(sock, "POST", "/v1/events", json.dumps({"events": [state(evs_n, i, st)]}).encode())
                time.sleep(0.05)
                sizes.append(drain(fd))
            time.sleep(0.3)
            stop(pid, fd)
            costs = [int(l.split()[1]) / 1e6 for l in open(stats) if l.startswith("update ")]
            results[panes] = (paint, first, costs, sizes)
            show("%d panes: first paint" % panes, paint)
            show("%d panes: first frame with the panes" % panes, first)
            if costs:
                show("%d panes: redraw per update" % panes, costs)
            show("%d panes: bytes to the terminal/update" % panes, sizes, "B")
        if 100 in results:
            m = statistics.median(results[100][1])
            print("goal: first frame < 100 ms with 100 panes: %s (median %.1f ms, x%.1f the baseline; "
                  "1-min load average %.1f on %d CPUs)" % ("met" if m < 100 else "NOT met", m,
                                                           m / statistics.median(base), os.getloadavg()[0],
                                                           os.cpu_count()))
    finally:
        bench_daemon.stop(daemon)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
