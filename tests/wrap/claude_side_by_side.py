#!/usr/bin/env python3
"""claude_side_by_side.py - the real Claude Code looks the same under `agtmux wrap`.

    claude_side_by_side.py --agtmux PATH [--keep]

Two windows of the same size in one private tmux server (`tmux -L agtmux-lab-<pid>`),
the same sandbox HOME and project: window 0 runs `claude` directly, window 1 runs
`agtmux wrap --no-events -- claude`. Each talks to its own copy of the agent lab's
scripted model server (tests/agents/model_server.py), so both get the same answers.
The same keystrokes go to both; at each stable point (ready; the Bash permission
dialog; the end of the approved turn) `capture-pane -e -p` of the two windows must
look identical: every cell's character, and its colours and attributes as far as
they can be seen.

Two things differ between any two Claude sessions, wrapped or not, and are masked
before comparing:
- the turn-end line `✻ <random past-tense verb> for <wall time>`;
- the invisible attributes of blank cells (foreground colour, bold, dim, italic,
  blink on a space). Claude's renderer redraws only the cells that changed since its
  previous frame, so whether a space keeps the bold of an earlier frame depends on
  which frames were drawn, which depends on timing. Background, reverse, underline
  and strike-through are visible on a space and are compared.

Exit status 77 when the agent CLIs are not installed (tests/agents/install-agents.sh).
Python 3 standard library only.
"""
import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.join(HERE, "..", "agents")
sys.path.insert(0, LAB)
import harness  # noqa: E402

TURN_END = re.compile(r"(✻(?:\x1b\[[0-9;]*m)*\s*(?:\x1b\[[0-9;]*m)*)[A-Z][a-zé]+ for [0-9hms ]+")


SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def cells(screen):
    """The screen as rows of (character, visible attributes) from capture-pane -e."""
    attrs = {}
    rows = []
    for line in screen.split("\n"):
        row, pos = [], 0
        for m in list(SGR.finditer(line)) + [None]:
            text = line[pos:m.start()] if m else line[pos:]
            for ch in text:
                if ch == " ":
                    seen = tuple(sorted((k, v) for k, v in attrs.items() if k in ("bg", "reverse", "underline",
                                                                                  "strike")))
                else:
                    seen = tuple(sorted(attrs.items()))
                row.append((ch, seen))
            if not m:
                break
            pos = m.end()
            params = [p for p in re.split("[;:]", m.group(1))] or ["0"]
            i = 0
            while i < len(params):
                p = params[i] or "0"
                if p == "0":
                    attrs = {}
                elif p in ("38", "48") and i + 1 < len(params):
                    n = 3 if params[i + 1] == "5" else 5
                    attrs["fg" if p == "38" else "bg"] = ";".join(params[i:i + n])
                    i += n - 1
                elif p == "39":
                    attrs.pop("fg", None)
                elif p == "49":
                    attrs.pop("bg", None)
                elif p in ("1", "2", "3", "4", "5", "7", "9"):
                    attrs[{"1": "bold", "2": "dim", "3": "italic", "4": "underline", "5": "blink",
                           "7": "reverse", "9": "strike"}[p]] = True
                elif p == "22":
                    attrs.pop("bold", None)
                    attrs.pop("dim", None)
                elif p in ("23", "24", "25", "27", "29"):
                    attrs.pop({"23": "italic", "24": "underline", "25": "blink", "27": "reverse",
                               "29": "strike"}[p], None)
                else:
                    attrs["sgr" + p] = True  # anything else: compared as it is
                i += 1
        while row and row[-1] == (" ", ()):
            row.pop()
        rows.append(row)
    return rows


def masked(screen):
    return cells(TURN_END.sub(r"\1<verb> for <time>", screen))


class SideBySide:
    def __init__(self, agtmux, root):
        self.agtmux = agtmux
        sc = json.load(open(os.path.join(LAB, "scenarios", "claude", "shell_approved.json")))
        sc["name"] = "side_by_side"
        args = types.SimpleNamespace(recorder="none", tmp=root, body_log=False, verbose=False, nice=0,
                                     max_load=0, load_wait=0, out=None)
        self.lab = harness.Recorder(sc, args)
        self.sc = sc
        self.servers = []

    def start(self):
        lab = self.lab
        lab.prepare()
        lab.scenario_path = os.path.join(lab.run_dir, "scenario.json")
        with open(lab.scenario_path, "w") as f:
            json.dump(self.sc, f)
        port = lab.start_server()
        self.servers.append(lab.srv)
        env, argv = harness.AGENTS["claude"]["setup"](self.sc, lab.home, lab.work, port)
        lab.start_tmux(env, argv)  # window 0: `claude` runs the CLI directly
        self.log0 = lab.model_log
        # Window 1: the same shell set-up, its own model server, and `wclaude` = the same
        # command under agtmux wrap.
        srv_dir = os.path.join(lab.run_dir, "server1")
        os.makedirs(srv_dir)
        self.log1 = os.path.join(srv_dir, "model.log.jsonl")
        srv = subprocess.Popen([sys.executable, os.path.join(LAB, "model_server.py"), "--scenario",
                                lab.scenario_path, "--port-file", os.path.join(srv_dir, "port"), "--log",
                                self.log1], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.servers.append(srv)
        for _ in range(200):
            if os.path.exists(os.path.join(srv_dir, "port")) and open(os.path.join(srv_dir, "port")).read():
                break
            time.sleep(0.05)
        port1 = int(open(os.path.join(srv_dir, "port")).read())
        rc0 = os.path.join(lab.run_dir, "bashrc")
        rc1 = os.path.join(lab.run_dir, "bashrc1")
        text = open(rc0).read().replace("127.0.0.1:%d" % port, "127.0.0.1:%d" % port1)
        text += "wclaude() { %s wrap --no-events -- %s \"$@\"; }\n" % (
            shlex.quote(self.agtmux), " ".join(shlex.quote(x) for x in argv))
        with open(rc1, "w") as f:
            f.write(text)
        shell = ["env", "-i", "TERM=tmux-256color", "LANG=C.UTF-8", "HOME=" + lab.home,
                 "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/bash", "bash", "--noprofile", "--rcfile", rc1, "-i"]
        lab.tmux.run("new-window", "-d", "-t", "lab:1", " ".join(shlex.quote(x) for x in shell))
        time.sleep(0.8)
        # `clear` first, so that the typed command line (which differs) is gone
        self.both(lambda w: self.type(w, "clear; " + ("claude" if w == 0 else "wclaude")))

    def stop(self):
        self.lab.tmux.run("kill-server", check=False)
        for s in self.servers:
            s.terminate()
            try:
                s.wait(5)
            except subprocess.TimeoutExpired:
                s.kill()

    def both(self, fn):
        return [fn(0), fn(1)]

    def type(self, w, text):
        self.lab.tmux.run("send-keys", "-t", "lab:%d" % w, "-l", text)
        time.sleep(0.4)
        self.lab.tmux.run("send-keys", "-t", "lab:%d" % w, "Enter")

    def key(self, w, key):
        self.lab.tmux.run("send-keys", "-t", "lab:%d" % w, key)

    def capture(self, w, escapes=True):
        args = ["capture-pane", "-p", "-t", "lab:%d" % w] + (["-e"] if escapes else [])
        return self.lab.tmux.run(*args).stdout

    def wait_text(self, regex, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if all(re.search(regex, self.capture(w, False)) for w in (0, 1)):
                return True
            time.sleep(0.2)
        return False

    def turn_ended(self, log, turn):
        try:
            with open(log) as f:
                evs = [json.loads(line) for line in f if line.strip()]
        except OSError:
            return False
        return any(e.get("ev") == "response_end" and e.get("turn") == turn and e.get("kind") == "text" for e in evs)

    def same(self, timeout=15):
        """The two screens once they settle (an animation frame may be mid-way)."""
        end = time.monotonic() + timeout
        while True:
            a, b = masked(self.capture(0)), masked(self.capture(1))
            if a == b or time.monotonic() > end:
                return a, b
            time.sleep(0.3)


def diff(a, b):
    def render(rows):
        return ["".join(ch for ch, _ in r) + "  " + repr(sorted({at for _, at in r if at})) for r in rows]
    return "\n".join(difflib.unified_diff(render(a), render(b), "direct", "wrapped", lineterm="", n=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agtmux", required=True)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(harness.BIN, "claude")):
        print("agent CLIs not installed in %s (run tests/agents/install-agents.sh)" % harness.BIN)
        sys.exit(77)
    root = tempfile.mkdtemp(prefix="asbs-")
    t = SideBySide(os.path.abspath(a.agtmux), root)
    failures = []

    def check(point):
        x, y = t.same()
        if x != y:
            failures.append("%s: the screens differ:\n%s" % (point, diff(x, y)))
        else:
            print("identical at %s (%d rows)" % (point, len(x)))

    try:
        t.start()
        if not t.wait_text(r"\? for shortcuts"):
            raise AssertionError("claude did not start in both windows:\n%s\n---\n%s" % (t.capture(0, False),
                                                                                      t.capture(1, False)))
        check("ready")
        t.both(lambda w: t.type(w, "create the build output directory"))
        if not t.wait_text(r"Do you want to proceed\?"):
            raise AssertionError("no permission dialog in both windows")
        check("the permission dialog")
        t.both(lambda w: t.key(w, "Enter"))
        end = time.monotonic() + 60
        while time.monotonic() < end and not (t.turn_ended(t.log0, 0) and t.turn_ended(t.log1, 0)):
            time.sleep(0.2)
        if not (t.turn_ended(t.log0, 0) and t.turn_ended(t.log1, 0)):
            raise AssertionError("the approved turn did not end in both windows")
        check("the end of the approved turn")
        if not os.path.exists(os.path.join(t.lab.work, "build", "out", "lab.txt")):
            failures.append("the approved command did not run")
    finally:
        t.stop()
        if a.keep:
            print("kept %s" % root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    print("side by side: %s" % ("identical" if not failures else "%d difference(s)" % len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
