#!/usr/bin/env python3
"""ui_popup_test.py - `agtmux ui` in the tmux popup docs/ui.md binds to a key.

    ui_popup_test.py --agtmux PATH --agtmuxd PATH --fake-agent PATH

A private tmux server with a stand-in agent (tests/agg/actions/fake_agent.py) in
session "work", announced to the real agtmuxd as a wrapped claude, and a real client
on a pty showing session "home". `display-popup -E ... agtmux ui` opens the view on
that client; keys are typed into the client's terminal (a popup takes no send-keys).
Enter must switch the client to "work" and close the popup (the view exits). Python 3
stdlib; exit 0 pass, 1 fail.
"""
import argparse
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench", "cli"))
import bench_daemon  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agtmux", required=True)
    ap.add_argument("--agtmuxd", required=True)
    ap.add_argument("--fake-agent", required=True)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="agtmux-popup-")
    os.makedirs(root + "/tmux")
    env = {"HOME": root, "AGTMUX_STATE_DIR": root + "/state", "AGTMUX_CONFIG_DIR": root + "/config",
           "AGTMUX_SOCKET": root + "/d.sock", "TMUX_TMPDIR": root + "/tmux", "LANG": "C.UTF-8",
           "PATH": "/usr/bin:/bin", "TERM": "xterm-256color"}
    tsock = root + "/t.sock"
    tmux = ["tmux", "-S", tsock, "-f", "/dev/null"]

    def tm(*args):
        return subprocess.run(tmux + list(args), env=env, capture_output=True, text=True, timeout=10).stdout.strip()

    daemon, client, fd, failures = None, None, None, []
    try:
        tm("new-session", "-d", "-s", "work", "-x", "120", "-y", "30", a.fake_agent + " " + root + "/work.log")
        tm("new-session", "-d", "-s", "home", "-x", "120", "-y", "30", "sh")
        daemon = bench_daemon.start([a.agtmuxd, "--fast-durability"], env, env["AGTMUX_SOCKET"], root + "/d.log")
        bench_daemon.call(env["AGTMUX_SOCKET"], "POST", "/v1/targets",
             json.dumps({"name": "lab", "kind": "local", "tmux_socket": tsock}).encode())
        pane = tm("display-message", "-p", "-t", "work", "#{pane_id}")
        pid = int(tm("display-message", "-p", "-t", "work", "#{pane_pid}"))

        def ev(n, kind, extra):
            e = {"event_id": "01JE%022d" % n, "event_type": kind, "source": "wrapper", "dedupe_key": "dk%d" % n,
                 "event_time": "2026-11-24T04:00:00Z", "runtime_id": "rt-popup-aaaaaaaaaa", "target_id": "lab",
                 "pane_id": pane}
            e.update(extra)
            return e
        r = bench_daemon.call(env["AGTMUX_SOCKET"], "POST", "/v1/events", json.dumps({"events": [
            ev(1, "wrapper_started", {"pid": pid, "runtime": {"agent_type": "claude",
                                                              "started_at": "2026-11-24T04:00:00Z"}}),
            ev(2, "state_changed", {"source_seq": 1, "signal": {"state": "waiting_input", "confidence": "high",
                                                                "rule_id": "t", "evidence": "x"}})]}).encode())
        if not r.startswith(b"HTTP/1.1 200"):
            sys.exit("ingest failed: %r" % r[:200])

        client, fd = pty.fork()
        if client == 0:
            os.execvpe("tmux", tmux + ["attach-session", "-t", "home"], env)

        def pump(seconds, until=None):
            end = time.time() + seconds
            while time.time() < end:
                if select.select([fd], [], [], 0.05)[0]:
                    try:
                        os.read(fd, 65536)
                    except OSError:
                        return False
                if until and until():
                    return True
            return bool(until and until())

        def clients():
            return tm("list-clients", "-F", "#{?client_control_mode,,#{client_name} #{client_session}}").split()

        if not pump(10, lambda: len(clients()) == 2 and clients()[1] == "home"):
            sys.exit("no client on home: %r" % clients())
        name = clients()[0]
        env_with_path = dict(env, PATH=os.path.dirname(a.agtmux) + ":" + env["PATH"])
        subprocess.Popen(tmux + ["display-popup", "-c", name, "-E", "-w", "90%", "-h", "80%",
                                 a.agtmux + " ui; echo ui-exit=$? > " + root + "/popup.exit"],
                         env=env_with_path)
        # The view is up once it asked the daemon for the pane's screen.
        pump(3)
        os.write(fd, b"\r")
        if not pump(10, lambda: clients()[1:] == ["work"]):
            failures.append("Enter in the popup did not switch the client to work: %r" % clients())
        if not pump(5, lambda: os.path.exists(root + "/popup.exit")):
            failures.append("the popup's view did not exit after the jump")
        elif open(root + "/popup.exit").read().strip() != "ui-exit=0":
            failures.append("the view exited with %r" % open(root + "/popup.exit").read())
    finally:
        if client:
            os.kill(client, signal.SIGKILL)
            os.waitpid(client, 0)
        if fd is not None:
            os.close(fd)
        subprocess.run(tmux + ["kill-server"], env=env, capture_output=True)
        bench_daemon.stop(daemon)
        shutil.rmtree(root, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print("ui_popup: %s" % ("FAILED" if failures else "passed"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
