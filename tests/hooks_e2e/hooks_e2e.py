#!/usr/bin/env python3
"""hooks_e2e.py - the agent integrations on the REAL agent CLIs.

    hooks_e2e.py --agtmux PATH --agtmuxd PATH [-k PATTERN] [--keep]

Each test runs a real CLI (installed by tests/agents/install-agents.sh) against the
scripted model server of the agent lab (tests/agents/model_server.py), in a private tmux
server (`tmux -L agtmux-lab-<pid> -f /dev/null`) with a sandbox HOME and private
AGTMUX_* directories, after `agtmux setup <agent>` merged agtmux's hooks into the
configuration the harness prepared:

- claude_unwrapped: the hooks of a Bash-approval turn go to the spool while agtmuxd is
  down (right sequence, states, tool detail, distinct dedupe keys); agtmuxd drains the
  spool once (a re-post is refused as duplicate) and `agtmux list panes --json` shows
  the pane `completed` with source HOOK.
- claude_wrapped: the same turn under `agtmux wrap claude` with agtmuxd up: the hooks
  carry AGTMUX_RUNTIME_ID, and the pane shows waiting_approval while the dialog is up,
  then completed from HOOK (though the PTY reports the end of the turn too).
- codex_notify: Codex calls `agtmux hook codex-notify` at turn end -> a completed
  NOTIFY event for the pane.
- gemini_hooks: Gemini fires the hooks `agtmux setup gemini` installed.

The daemon's default target ("host") is the tmux server named by $TMUX, so agtmuxd is
started with $TMUX pointing at the private server: hook events, which name target "host",
land on the private server's panes. Exit status 77 when the agent CLIs are not
installed (tests/agents/install-agents.sh installs them).
Python 3 standard library only.
"""
import argparse
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.join(HERE, "..", "agents")
sys.path.insert(0, LAB)
import harness  # noqa: E402

OPTS = types.SimpleNamespace(agtmux=None, agtmuxd=None, keep=False, verbose=False)
SAVE_PAYLOADS = None  # dir to copy the real payloads to (fixtures), when given


def load_scenario(agent, name):
    with open(os.path.join(LAB, "scenarios", agent, name + ".json")) as f:
        return json.load(f)


def poll(pred, timeout, what, interval=0.2, on_fail=None):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(interval)
    raise AssertionError("timed out after %ss waiting for %s%s" % (timeout, what,
                                                                 "; last: " + on_fail() if on_fail else ""))


def http_unix(sock_path, method, path, body=None, timeout=5.0):
    """One HTTP/1.1 request on the daemon's Unix socket; returns (status, parsed JSON)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(sock_path)
    data = body.encode() if body is not None else b""
    req = "%s %s HTTP/1.1\r\nHost: agtmuxd\r\nConnection: close\r\n" % (method, path)
    if body is not None:
        req += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(data)
    s.sendall(req.encode() + b"\r\n" + data)
    chunks = []
    while True:
        c = s.recv(65536)
        if not c:
            break
        chunks.append(c)
    s.close()
    raw = b"".join(chunks)
    head, _, payload = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    if b"transfer-encoding: chunked" in head.lower():
        out, rest = b"", payload
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            n = int(size_line, 16)
            if n == 0:
                break
            out += rest[:n]
            rest = rest[n + 2:]
        payload = out
    return status, json.loads(payload) if payload.strip() else None


class Lab(harness.Recorder):
    """A harness run driven step by step, with agtmux's own directories."""

    def __init__(self, sc, root, recorder="none"):
        args = types.SimpleNamespace(recorder=recorder, tmp=root, body_log=False, verbose=OPTS.verbose,
                                     nice=0, max_load=0, load_wait=0, out=None)
        super().__init__(sc, args)
        self.keep_tmux_env = True
        base = os.path.join(root, "agt")
        self.agt = {"AGTMUX_STATE_DIR": os.path.join(base, "state"),
                    "AGTMUX_CONFIG_DIR": os.path.join(base, "config"),
                    "AGTMUX_SOCKET": os.path.join(base, "d.sock")}
        self.daemon = None

    def agt_env(self, extra=None):
        env = {"HOME": self.home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
        env.update(self.agt)
        env.update(extra or {})
        return env

    def start(self, setup_agent):
        os.makedirs(self.root, exist_ok=True)
        self.prepare()
        os.makedirs(os.path.join(self.root, "agt", "state"))
        self.scenario_path = os.path.join(self.run_dir, "scenario.json")
        with open(self.scenario_path, "w") as f:
            json.dump(self.sc, f)
        port = self.start_server()
        env, argv = harness.AGENTS[self.agent]["setup"](self.sc, self.home, self.work, port)
        # `agtmux setup` into the configuration the harness wrote
        r = subprocess.run([OPTS.agtmux, "setup", setup_agent], env=self.agt_env(env),
                           capture_output=True, text=True, timeout=30)
        self.setup_out = r
        if r.returncode != 0:
            raise AssertionError("agtmux setup %s failed: %s%s" % (setup_agent, r.stdout, r.stderr))
        env = dict(env)
        env.update(self.agt)
        if self.args.recorder == "agtmux":
            os.environ["AGTMUX_BIN"] = OPTS.agtmux
            os.environ["AGTMUX_WRAP_ARGS"] = ""
        self.start_tmux(env, argv)
        time.sleep(0.5)
        self.tmux.send(self.agent, literal=True)
        time.sleep(0.3)
        self.tmux.send("Enter")

    def tmux_socket(self):
        return self.tmux.run("display-message", "-p", "#{socket_path}").stdout.strip()

    def pane_id(self):
        return self.tmux.run("display-message", "-p", "-t", self.tmux.target, "#{pane_id}").stdout.strip()

    def start_daemon(self):
        env = self.agt_env({"TMUX": "%s,%d,0" % (self.tmux_socket(), self.tmux_pid or 0)})
        self.daemon_log = open(os.path.join(self.run_dir, "agtmuxd.log"), "w")
        self.daemon = subprocess.Popen([OPTS.agtmuxd], env=env, stdout=self.daemon_log,
                                       stderr=subprocess.STDOUT)
        poll(lambda: self.daemon.poll() is not None or self.health_ok(), 30, "agtmuxd to answer /v1/health")
        if self.daemon.poll() is not None:
            raise AssertionError("agtmuxd exited with %s (log %s)" % (self.daemon.returncode, self.daemon_log.name))

    def health_ok(self):
        try:
            return http_unix(self.agt["AGTMUX_SOCKET"], "GET", "/v1/health", timeout=1)[0] == 200
        except OSError:
            return False

    def list_panes(self):
        r = subprocess.run([OPTS.agtmux, "list", "panes", "--json"], env=self.agt_env(),
                           capture_output=True, text=True, timeout=15)
        self.last_list = r.stdout + r.stderr
        if r.returncode != 0:
            return None
        return json.loads(r.stdout)

    def explain(self, pane_id):
        r = subprocess.run([OPTS.agtmux, "explain", "pane:host/lab/@0/" + pane_id, "--json"], env=self.agt_env(),
                           capture_output=True, text=True, timeout=15)
        return r.stdout + r.stderr

    def pane_row(self, pane_id):
        doc = self.list_panes()
        if not doc:
            return None
        for row in doc.get("items", []):
            if row.get("identity", {}).get("pane_id") == pane_id:
                return row
        return None

    def spool_events(self):
        out = []
        for path in sorted(glob.glob(os.path.join(self.agt["AGTMUX_STATE_DIR"], "spool", "*.jsonl"))):
            with open(path) as f:
                for line in f:
                    if line.endswith("\n") and line.strip():
                        out.append(json.loads(line))
        # one file per hook call, named hook-<pid>-<ulid>: order by the firing time
        return sorted(out, key=lambda e: (e.get("source_seq", 0), e["event_time"]))

    def hook_log(self):
        try:
            with open(os.path.join(self.agt["AGTMUX_STATE_DIR"], "hook.log")) as f:
                return f.read()
        except OSError:
            return ""

    def run_steps(self, steps):
        for st in steps:
            self.step(st)
        if self.warnings:
            raise AssertionError("the scenario did not go as scripted: %s" % "; ".join(self.warnings))

    def stop(self):
        self.tmux.kill()
        if self.srv:
            self.srv.send_signal(signal.SIGTERM)
            try:
                self.srv.wait(5)
            except subprocess.TimeoutExpired:
                self.srv.kill()
        if self.daemon and self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            try:
                self.daemon.wait(10)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
                self.daemon.wait()


def signal_state(ev):
    return (ev.get("signal") or {}).get("state")


def save_payloads(agent, events, key, root):
    """Keeps the real payloads (already redacted by the hook) as fixtures, with the
    random sandbox directory replaced by a fixed one."""
    if not SAVE_PAYLOADS:
        return
    d = os.path.join(SAVE_PAYLOADS, agent, harness.agent_version(agent), "hooks")
    os.makedirs(d, exist_ok=True)
    seen = set()
    for ev in events:
        name = ev["event_type"].split(".", 1)[1]
        if name in seen:
            continue
        seen.add(name)
        with open(os.path.join(d, "%s-%s.json" % (key, name)), "w") as f:
            text = ev["raw_payload"].replace(root, "/tmp/ahe-sandbox")
            f.write(text.replace(root.replace("/", "-").replace("_", "-"), "-tmp-ahe-sandbox"))
            f.write("\n")


class LabCase(unittest.TestCase):
    """A test case with its own sandbox directory, whose labs are stopped and
    whose sandbox is removed (unless --keep) after each test."""
    PREFIX = "ahe-"

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix=self.PREFIX)
        self.labs = []

    def tearDown(self):
        for lab in self.labs:
            lab.stop()
        if OPTS.keep:
            print("kept sandbox %s" % self.root, file=sys.stderr)
        else:
            shutil.rmtree(self.root, ignore_errors=True)

    def lab(self, sc, recorder="none"):
        lab = Lab(sc, self.root, recorder)
        self.labs.append(lab)
        return lab


class HooksE2E(LabCase):

    # ---------------------------------------------------------------------------------
    def claude_scenario(self, name):
        sc = load_scenario("claude", "shell_approved")
        sc["name"] = name
        # a user's own settings and hook, which setup must keep (and which must still run)
        self.user_hook_out = os.path.join(self.root, "user-stop-hook.txt")
        sc["claude_settings"] = {
            "env": {"LAB_USER_SETTING": "1"},
            "hooks": {"Stop": [{"hooks": [{"type": "command",
                                           "command": "echo user-stop >> " + self.user_hook_out}]}]}}
        steps = [s for s in sc["steps"] if s["do"] != "exit"]
        # a second turn, answered with text only
        sc["turns"].append([{"text": "Nothing else to do here.", "chunk": 8, "delay": 0.05}])
        self.second_turn = [{"do": "prompt", "text": "anything else?"}, {"do": "wait_turn_end", "turn": 1}]
        return sc, steps

    def test_claude_unwrapped_spool_then_daemon(self):
        sc, steps = self.claude_scenario("hooks_unwrapped")
        lab = self.lab(sc)
        lab.start("claude")
        with open(os.path.join(lab.home, ".claude", "settings.json")) as f:
            settings = json.load(f)
        self.assertEqual(settings["env"], {"LAB_USER_SETTING": "1"})
        stop_cmds = [h["command"] for g in settings["hooks"]["Stop"] for h in g["hooks"]]
        self.assertIn("echo user-stop >> " + self.user_hook_out, stop_cmds)
        self.assertTrue(any(c.endswith(" hook claude") for c in stop_cmds), stop_cmds)

        pane = lab.pane_id()
        lab.run_steps(steps[:1])  # wait_ready
        # Claude accepted the settings setup wrote (it shows a "Settings Error" dialog
        # for an invalid one, e.g. an unknown hook event name)
        screen = lab.screen_text()
        for bad in ("Settings Error", "Invalid settings", "settings errors"):
            self.assertNotIn(bad, screen)
        lab.run_steps(steps[1:])
        # the daemon is down: every hook went to the spool
        events = poll(lambda: (lambda evs: evs if any(e["event_type"] == "claude.Stop" for e in evs) else None)(
            lab.spool_events()), 20, "claude.Stop in the spool")
        names = [e["event_type"] for e in events]
        self.assertEqual(lab.hook_log().count("spooling failed"), 0, lab.hook_log())
        # order of the lifecycle: start, prompt, tool, permission, tool done, stop
        want = ["claude.SessionStart", "claude.UserPromptSubmit", "claude.PreToolUse",
                "claude.PermissionRequest", "claude.PostToolUse", "claude.Stop"]
        pos = [names.index(w) if w in names else -1 for w in want]
        self.assertNotIn(-1, pos, "spooled hook events: %s" % names)
        self.assertEqual(pos, sorted(pos), "spooled hook events out of order: %s" % names)
        by = {e["event_type"]: e for e in events}
        for e in events:
            self.assertEqual(e["source"], "hook")
            self.assertEqual(e["pane_id"], pane)
            self.assertEqual(e.get("runtime_id", ""), "")
        self.assertIsNone(signal_state(by["claude.SessionStart"]))  # startup: no state
        self.assertEqual(signal_state(by["claude.UserPromptSubmit"]), "running")
        self.assertEqual(signal_state(by["claude.PreToolUse"]), "running")
        perm = by["claude.PermissionRequest"]["signal"]
        self.assertEqual(perm["state"], "waiting_approval")
        self.assertEqual(perm["detail"]["approval_type"], "shell")
        self.assertEqual(perm["detail"]["details"], "mkdir -p build/out && touch build/out/lab.txt")
        self.assertEqual(signal_state(by["claude.PostToolUse"]), "running")
        self.assertEqual(signal_state(by["claude.Stop"]), "completed")
        keys = [e["dedupe_key"] for e in events]
        self.assertEqual(len(keys), len(set(keys)), "dedupe keys repeat: %s" % keys)
        # the user's own Stop hook ran too
        poll(lambda: os.path.exists(self.user_hook_out), 10, "the user's Stop hook")
        save_payloads("claude", events, "shell_approved", self.root)

        # agtmuxd starts: it drains the spool, exactly once
        lab.start_daemon()
        poll(lambda: not lab.spool_events(), 30, "the spool to be drained")
        status, resp = http_unix(lab.agt["AGTMUX_SOCKET"], "POST", "/v1/events",
                                 json.dumps({"events": events}))
        self.assertEqual(status, 200, resp)
        disp = [r["disposition"] for r in resp["results"]]
        self.assertEqual(set(disp), {"duplicate"}, "re-posted spool events: %s" % disp)
        with self.subTest("the drained hooks decide the pane"):
            row = poll(lambda: (lambda r: r if r and r.get("state") == "completed" else None)(lab.pane_row(pane)),
                       30, "pane %s completed in list panes after the drain" % pane,
                       on_fail=lambda: lab.last_list + "\nexplain: " + lab.explain(pane))
            self.assertEqual(row["source"], "HOOK", row)
        # a second turn with the daemon up: the hooks deliver directly, nothing is spooled
        lab.step(self.second_turn[0])
        poll(lambda: (lambda r: r if r and r.get("rule_id") in ("claude.UserPromptSubmit", "claude.Stop")
                      else None)(lab.pane_row(pane)), 30, "the live UserPromptSubmit/Stop hook",
             on_fail=lambda: lab.explain(pane))
        lab.run_steps(self.second_turn[1:])
        row = poll(lambda: (lambda r: r if r and r.get("rule_id") == "claude.Stop" else None)(lab.pane_row(pane)),
                   30, "pane %s completed by the live Stop hook" % pane, on_fail=lambda: lab.explain(pane))
        self.assertEqual((row["state"], row["source"]), ("completed", "HOOK"), row)
        self.assertEqual(lab.spool_events(), [])
        lab.step({"do": "exit"})

    def test_claude_wrapped_daemon_up(self):
        sc, steps = self.claude_scenario("hooks_wrapped")
        lab = self.lab(sc, recorder="agtmux")
        lab.start("claude")
        lab.start_daemon()  # before the first prompt: the hooks deliver directly
        pane = lab.pane_id()
        seen = []

        def state_is(want):
            row = lab.pane_row(pane)
            if row:
                seen.append((row.get("state"), row.get("source")))
            return row if row and row.get("state") == want else None

        for st in steps:
            lab.step(st)
            if st["do"] == "wait_screen":
                row = poll(lambda: state_is("waiting_approval"), 20, "waiting_approval (seen %s)" % seen[-5:])
                self.assertIn(row["source"], ("HOOK", "PTY"), row)
                self.check_lagging_running_hook(lab, pane, row)
        self.assertFalse(lab.warnings, lab.warnings)
        row = poll(lambda: state_is("completed"), 30, "completed (seen %s)" % seen[-5:])
        self.assertTrue(row.get("runtime_id"), row)
        # Both sources report the turn's end; a tied lifecycle state goes to the hook
        # (docs/precedence.md row 5), so the pane shows HOOK, wrapped as unwrapped. The
        # hook's opinion is bound to the wrapper's runtime (AGTMUX_RUNTIME_ID).
        row = poll(lambda: (lambda r: r if r and r.get("source") == "HOOK" else None)(state_is("completed")),
                   30, "completed from HOOK (seen %s)" % seen[-5:], on_fail=lambda: lab.explain(pane))
        ex = json.loads(lab.explain(pane))
        self.assertEqual(ex["runtime"]["runtime_id"], row["runtime_id"])
        hook = [c for c in ex["candidates"] if c["source"] == "hook"]
        self.assertEqual(len(hook), 1, ex)
        self.assertEqual((hook[0]["state"], hook[0]["rule_id"]), ("completed", "claude.Stop"), ex)
        self.assertTrue(any(c["source"] == "wrapper" for c in ex["candidates"]), ex)
        self.assertEqual(lab.spool_events(), [])
        self.assertNotIn("refused", lab.hook_log())
        lab.step({"do": "exit"})

    def check_lagging_running_hook(self, lab, pane, row):
        """While the dialog is on screen, a hook that says running (hooks lag the dialog:
        a PreToolUse after it) must not clear the screen's waiting_approval
        (docs/precedence.md row 3)."""
        # Claude's own hooks for this dialog (PermissionRequest) may come after the
        # screen shows it, on a loaded machine well after: the lagging PreToolUse is
        # sent once they are in, so that it is the newest hook opinion.
        def hook_waits():
            ex = json.loads(lab.explain(pane))
            return any(c["source"] == "hook" and c["state"] == "waiting_approval" for c in ex["candidates"])
        poll(hook_waits, 20, "Claude's permission hook for the dialog", on_fail=lambda: lab.explain(pane))
        late = {"session_id": "e2e-lagging-hook", "transcript_path": "", "cwd": lab.work,
                "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "toolu_e2e_late",
                "tool_input": {"command": "true"}}
        r = subprocess.run([OPTS.agtmux, "hook", "claude"], input=json.dumps(late), text=True,
                           env=lab.agt_env({"AGTMUX_RUNTIME_ID": row["runtime_id"], "TMUX_PANE": pane}),
                           capture_output=True, timeout=30)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))

        def hook_running():
            ex = json.loads(lab.explain(pane))
            return ex if any(c["source"] == "hook" and c["rule_id"] == "claude.PreToolUse"
                             and c["state"] == "running" for c in ex["candidates"]) else None
        ex = poll(hook_running, 20, "the lagging PreToolUse in explain", on_fail=lambda: lab.explain(pane))
        self.assertEqual((ex["state"], ex["source"]), ("waiting_approval", "PTY"), ex)

    def test_codex_notify_turn_complete(self):
        sc = load_scenario("codex", "turns_completed")
        sc["name"] = "hooks_notify"
        lab = self.lab(sc)
        lab.start("codex")
        with open(os.path.join(lab.home, ".codex", "config.toml")) as f:
            cfg = f.read()
        self.assertIn('model_provider = "lab"', cfg)
        self.assertIn("codex-notify", cfg)
        pane = lab.pane_id()
        lab.run_steps([s for s in sc["steps"] if s["do"] != "exit"])
        events = poll(lambda: (lambda evs: evs if any(e["event_type"] == "codex.agent-turn-complete"
                                                      for e in evs) else None)(lab.spool_events()),
                      30, "codex.agent-turn-complete in the spool (hook.log: %s)" % lab.hook_log())
        ev = next(e for e in events if e["event_type"] == "codex.agent-turn-complete")
        self.assertEqual(ev["source"], "notify")
        self.assertEqual(ev["pane_id"], pane)
        self.assertEqual(signal_state(ev), "completed")
        # Codex also notifies when its session-title request completes (a separate
        # thread, before the turn ends): recorded without a state
        for e in events:
            if e["event_type"] == "codex.title-turn-complete":
                self.assertIsNone(e.get("signal"), e)
        self.assertIn("README", ev["signal"]["evidence"], ev)
        save_payloads("codex", events, "turns_completed", self.root)
        lab.start_daemon()
        poll(lambda: not lab.spool_events(), 30, "the spool to be drained")
        row = poll(lambda: (lambda r: r if r and r.get("state") == "completed" else None)(lab.pane_row(pane)),
                   30, "pane %s completed" % pane)
        self.assertIn(row["source"], ("HOOK", "NOTIFY"), row)
        lab.step({"do": "exit"})

    def test_gemini_hooks(self):
        sc = load_scenario("gemini", "shell_approved")
        sc["name"] = "hooks_gemini"
        lab = self.lab(sc)
        lab.start("gemini")
        with open(os.path.join(lab.home, ".gemini", "settings.json")) as f:
            settings = json.load(f)
        self.assertEqual(settings["security"]["auth"]["selectedType"], "gemini-api-key")
        self.assertIn("BeforeTool", settings["hooks"])
        pane = lab.pane_id()
        steps = [s for s in sc["steps"] if s["do"] != "exit"]
        lab.run_steps(steps[:1])  # wait_ready
        # Gemini warns on screen about an event name it does not know ("Invalid hook
        # event name: … Skipping.")
        self.assertNotIn("Invalid hook", lab.screen_text())
        lab.run_steps(steps[1:])
        events = poll(lambda: (lambda evs: evs if any(e["event_type"] == "gemini.AfterAgent" for e in evs)
                               else None)(lab.spool_events()),
                      30, "gemini.AfterAgent in the spool (hook.log: %s)" % lab.hook_log())
        names = [e["event_type"] for e in events]
        for want in ("gemini.SessionStart", "gemini.BeforeAgent", "gemini.BeforeTool", "gemini.AfterTool",
                     "gemini.AfterAgent"):
            self.assertIn(want, names)
        for e in events:
            self.assertEqual(e["pane_id"], pane)
        by = {e["event_type"]: e for e in events}
        self.assertEqual(signal_state(by["gemini.BeforeAgent"]), "running")
        self.assertEqual(signal_state(by["gemini.AfterAgent"]), "completed")
        # the approval: Notification(ToolPermission) with the confirmation's details
        perm = by["gemini.Notification"]["signal"]
        self.assertEqual(perm["state"], "waiting_approval", perm)
        self.assertEqual(perm["detail"]["approval_type"], "shell", perm)
        self.assertEqual(perm["detail"]["details"], "mkdir -p build/out && touch build/out/lab.txt", perm)
        keys = [e["dedupe_key"] for e in events]
        self.assertEqual(len(keys), len(set(keys)), keys)
        save_payloads("gemini", events, "shell_approved", self.root)
        self.names_seen = names
        print("gemini hook events: %s" % names, file=sys.stderr)
        lab.step({"do": "exit"})


def run_tests(case, doc, agents=("claude", "codex", "gemini"), add_args=None, configure=None):
    """The command line every agent e2e script shares: --agtmux, --agtmuxd, --keep,
    -v, -k (plus what `add_args` adds, handed to `configure`); exits 77 when the
    agent CLIs are not installed, else runs `case`."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agtmux", required=True)
    ap.add_argument("--agtmuxd", required=True)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("-k", action="append", default=[], help="only tests whose name contains this")
    if add_args:
        add_args(ap)
    a = ap.parse_args()
    OPTS.agtmux, OPTS.agtmuxd = os.path.abspath(a.agtmux), os.path.abspath(a.agtmuxd)
    OPTS.keep, OPTS.verbose = a.keep, a.verbose
    if configure:
        configure(a)
    if not all(os.path.exists(os.path.join(harness.BIN, x)) for x in agents):
        print("agent CLIs not installed in %s (run tests/agents/install-agents.sh)" % harness.BIN)
        sys.exit(77)
    loader = unittest.TestLoader()
    if a.k:
        loader.testNamePatterns = ["*%s*" % k for k in a.k]
    res = unittest.TextTestRunner(verbosity=2).run(loader.loadTestsFromTestCase(case))
    sys.exit(0 if res.wasSuccessful() else 1)


def main():
    def payloads(ap):
        ap.add_argument("--save-payloads", help="copy the real hook payloads under DIR/<agent>/<version>/hooks/")

    def keep_payloads(a):
        global SAVE_PAYLOADS
        SAVE_PAYLOADS = a.save_payloads

    run_tests(HooksE2E, __doc__, add_args=payloads, configure=keep_payloads)


if __name__ == "__main__":
    main()
