#!/usr/bin/env python3
"""harness.py - record a real agent CLI session in a private tmux server.

    harness.py record SCENARIO.json... [--agent-version V] [--hooks] [--out DIR | --fixtures-root DIR]
                      [--recorder py|agtmux] [--keep]
    harness.py derive FIXTURE_DIR          # re-derive truth.jsonl from the logs

For one agent + scenario it:
  1. prepares a sandbox HOME and working dir (/tmp/agtmux-lab/<agent>-<scenario>/),
     with the config files that skip onboarding/login/trust/update screens;
  2. starts model_server.py (port 0, --port-file) with the scenario's model answers;
  3. starts a private tmux server `tmux -L agtmux-lab-<pid> -f /dev/null` (120x40,
     focus-events on, status off) running an interactive bash;
  4. types the agent's name + Enter (a shell function runs the agent under the recorder:
     ptyrec.py, or `$AGTMUX_BIN wrap --record FILE.cast --`), then drives the scenario's
     steps with send-keys (prompts, Enter/Esc/arrows, spaced >= 0.25 s);
  5. captures the pane every SNAP_INTERVAL (50 ms; capture-pane -p; a snapshot is kept
     when the screen or cursor changed);
  6. derives the ground-truth state timeline from the model-server log and the driver's
     actions (see README.md, "Ground truth"), and writes the fixture directory:
     session.cast snapshots.jsonl truth.jsonl model.log.jsonl driver.jsonl scenario.json
     (and hooks.jsonl with --hooks: the agent's hooks installed by `agtmux setup`, every
     event `agtmux hook` sent, received by a lab socket that stands in for agtmuxd).
A scenario names its permission mode ("mode"; README.md, "Permission modes"); the
agent version is the one installed in the cache dir (--agent-version V: the dir
install-agents.sh AGENT@V made).
Python 3 standard library only.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE_ROOT = os.environ.get("AGTMUX_CACHE_ROOT", os.path.expanduser("~/.cache/agtmux"))
CACHE = os.environ.get("AGTMUX_AGENT_CACHE", os.path.join(CACHE_ROOT, "agents"))
BIN = os.path.join(CACHE, "node_modules", ".bin")
FIXTURES = os.path.normpath(os.path.join(HERE, "..", "fixtures"))
COLS, ROWS = 120, 40
# How often the snapper captures the pane. agtmuxd's poller captures a pane 50 ms after
# the first %output of a burst (PollerOptions::burst_settle), so a 50 ms sampler gives the
# CAP replay the same bound on how late it sees a redraw. At 200 ms (the first corpus) the
# sampling alone took up to two thirds of the gate's 300 ms grace.
SNAP_INTERVAL = 0.05
FAKE_ANTHROPIC_KEY = "sk-ant-lab-0123456789abcdefghijklmnopqrstuv"
FAKE_OPENAI_KEY = "sk-lab-0123456789abcdefghijklmnop"
FAKE_GEMINI_KEY = "lab-gemini-key-0123456789"

PKG = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex", "gemini": "@google/gemini-cli"}


def version_cache(agent, version):
    """The cache dir `install-agents.sh AGENT@VERSION` installs into."""
    return os.path.join(CACHE_ROOT, "agents-%s-%s" % (agent, version))


def agent_version(agent, cache=None):
    try:
        with open(os.path.join(cache or CACHE, "node_modules", PKG[agent], "package.json")) as f:
            return json.load(f)["version"]
    except OSError:
        return "unknown"


def version_key(v):
    return tuple(int(x) if x.isdigit() else 0 for x in re.split(r"[.\-]", v))


def expectation(item, version):
    """An item's `expect` for this agent version: `expect`, updated by every
    `expect_since` entry whose version is <= the recorded one, oldest first (a dialog
    whose text changed in a release; a newer release inherits the newest change)."""
    exp = item.get("expect")
    if not exp:
        return None
    exp = dict(exp)
    for since, upd in sorted(item.get("expect_since", {}).items(), key=lambda kv: version_key(kv[0])):
        if version and version != "unknown" and version_key(version) >= version_key(since):
            exp.update(upd)
    return exp


# ---------------------------------------------------------------------------------------
# per-agent setup

# The permission modes a scenario can ask for ("mode"), per agent; the first is the
# agent's base mode, whose fixtures sit directly in <agent>/<version>/ (README.md,
# "Permission modes").
MODES = {
    # Claude Code's permissions.defaultMode values: "default" (2.1.330 calls it manual
    # mode), "auto" (2.1.330's default when nothing is configured), bypassPermissions
    # (--dangerously-skip-permissions), acceptEdits, plan.
    "claude": ("default", "auto", "bypass", "accept-edits", "plan"),
    # Codex: approval_policy on-request with a read-only sandbox (the lab's base), the
    # full-auto preset (on-request, workspace-write sandbox) and
    # --dangerously-bypass-approvals-and-sandbox.
    "codex": ("on-request", "full-auto", "bypass"),
    # Gemini CLI: its default approval mode, and --yolo.
    "gemini": ("default", "yolo"),
}


def scenario_mode(sc):
    mode = sc.get("mode", MODES[sc["agent"]][0])
    if mode not in MODES[sc["agent"]]:
        raise ValueError("%s/%s: unknown mode %r (one of %s)" % (sc["agent"], sc["name"], mode,
                                                                 ", ".join(MODES[sc["agent"]])))
    return mode


_HELP = {}


def cli_has_option(exe, option):
    """Whether `exe --help` mentions `option` (an option an older release lacks)."""
    if exe not in _HELP:
        try:
            _HELP[exe] = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            _HELP[exe] = ""
    return option in _HELP[exe]


def setup_claude(sc, home, work, port, bin_dir=None):
    key = FAKE_ANTHROPIC_KEY
    mode = scenario_mode(sc)
    cfg = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": agent_version("claude", os.path.dirname(os.path.dirname(bin_dir or BIN))),
        "numStartups": 3,
        "autoUpdates": False,
        "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
        "projects": {work: {"hasTrustDialogAccepted": not sc.get("trust_dialog", False),
                            "allowedTools": [], "hasCompletedProjectOnboarding": True}},
    }
    if sc.get("login"):  # no API key: the login screen
        del cfg["customApiKeyResponses"]
    cfg.update(sc.get("claude_json", {}))
    with open(os.path.join(home, ".claude.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    os.makedirs(os.path.join(home, ".claude"), exist_ok=True)
    settings = dict(sc.get("claude_settings", {}))
    perms = dict(settings.get("permissions", {}))
    argv = []
    env = {}
    if mode == "auto":
        pass  # nothing configured: the mode 2.1.330 starts in
    elif mode == "bypass":
        argv.append("--dangerously-skip-permissions")
        env["IS_SANDBOX"] = "1"  # Claude Code refuses the flag as root otherwise
        settings.setdefault("skipDangerousModePermissionPrompt", not sc.get("bypass_warning", False))
    else:
        perms.setdefault("defaultMode", {"default": "default", "accept-edits": "acceptEdits",
                                         "plan": "plan"}[mode])
        # A user who keeps manual mode is asked "Make auto mode your default permission
        # mode?" at every start unless auto mode is disabled (scenario auto_mode_prompt).
        if not sc.get("auto_mode_prompt", False):
            perms.setdefault("disableAutoMode", "disable")
    if perms:
        settings["permissions"] = perms
    if settings:
        with open(os.path.join(home, ".claude", "settings.json"), "w") as f:
            json.dump(settings, f, indent=1)
    env.update({"ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % port,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"})
    if not sc.get("login"):
        env["ANTHROPIC_API_KEY"] = key
    return env, [os.path.join(bin_dir or BIN, "claude")] + argv


def setup_codex(sc, home, work, port, bin_dir=None):
    ch = os.path.join(home, ".codex")
    os.makedirs(ch, exist_ok=True)
    mode = scenario_mode(sc)
    trust = "" if sc.get("trust_dialog", False) else '[projects."%s"]\ntrust_level = "trusted"\n' % work
    extra = sc.get("codex_config", "")
    # on-request: the lab's base; the two presets set approval and sandbox themselves
    policy = 'approval_policy = "on-request"\nsandbox_mode = "read-only"\n' if mode == "on-request" else ""
    update_check = "true" if sc.get("codex_version_json") else "false"
    # login: Codex's own provider (OpenAI), which wants a ChatGPT sign-in or a key
    provider = "" if sc.get("login") else 'model = "gpt-5.1-codex"\nmodel_provider = "lab"\n'
    cfg = """%s%scheck_for_update_on_startup = %s
%s
[model_providers.lab]
name = "lab"
base_url = "http://127.0.0.1:%d/v1"
env_key = "LAB_OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = %d
stream_max_retries = %d

%s""" % (provider, policy, update_check, extra, port, sc.get("retries", 0), sc.get("retries", 0), trust)
    version = agent_version("codex", os.path.dirname(os.path.dirname(bin_dir or BIN)))
    if not sc.get("login") and version != "unknown" and version_key(version) < version_key("0.130.0"):
        # 0.100.0 asks at every start "Codex just got an upgrade. Introducing
        # gpt-5.3-codex." (Try new model / Use existing model) for gpt-5.1-codex; this is
        # what it writes itself when the user keeps the model (0.130.0 no longer asks)
        cfg += '\n[notice.model_migrations]\n"gpt-5.1-codex" = "gpt-5.3-codex"\n'
    with open(os.path.join(ch, "config.toml"), "w") as f:
        f.write(cfg)
    if sc.get("codex_version_json"):
        # Codex's cached update check (what it last saw as the newest release): with a
        # newer version and a fresh check time it offers the update at start-up.
        vj = dict(sc["codex_version_json"])
        vj.setdefault("last_checked_at", time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime()))
        with open(os.path.join(ch, "version.json"), "w") as f:
            json.dump(vj, f)
    # Codex refuses to create its helper binaries (PATH aliases) when CODEX_HOME is under
    # the temp dir and prints a WARNING at startup; give it a private TMPDIR instead.
    tmpdir = os.path.join(os.path.dirname(home), "tmp")
    os.makedirs(tmpdir, exist_ok=True)
    env = {"CODEX_HOME": ch, "TMPDIR": tmpdir}
    if not sc.get("login"):
        env["LAB_OPENAI_API_KEY"] = FAKE_OPENAI_KEY
    codex = os.path.join(bin_dir or BIN, "codex")
    # no shared background server; 0.147.0 has no such option (and no server)
    argv = [codex] + (["--no-daemon"] if cli_has_option(codex, "--no-daemon") else [])
    # --full-auto was the preset "-a on-request -s workspace-write"; 0.169.0 no longer
    # takes the flag ("unexpected argument"), so the preset is spelled out
    argv += {"on-request": [], "full-auto": ["--sandbox", "workspace-write", "--ask-for-approval", "on-request"],
             "bypass": ["--dangerously-bypass-approvals-and-sandbox"]}[mode]
    return env, argv


def setup_gemini(sc, home, work, port, bin_dir=None):
    gd = os.path.join(home, ".gemini")
    os.makedirs(gd, exist_ok=True)
    mode = scenario_mode(sc)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"},
                     "folderTrust": {"enabled": bool(sc.get("trust_dialog", False))}},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True, "enableAutoUpdate": False,
                    "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "ide": {"enabled": False, "hasSeenNudge": True},
    }
    if sc.get("login"):  # no auth configured: the auth dialog
        del settings["security"]["auth"]
    for k, v in sc.get("gemini_settings", {}).items():
        if isinstance(v, dict) and isinstance(settings.get(k), dict):
            settings[k].update(v)
        else:
            settings[k] = v
    with open(os.path.join(gd, "settings.json"), "w") as f:
        json.dump(settings, f, indent=1)
    env = {"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:%d" % port}
    if not sc.get("login"):
        env["GEMINI_API_KEY"] = FAKE_GEMINI_KEY
    return env, [os.path.join(bin_dir or BIN, "gemini")] + (["--yolo"] if mode == "yolo" else [])


# Start-up dialogs some versions or modes show before the prompt, answered by wait_ready
# the way a user would (each: the screen, the truth while it shows, and the driver steps
# that answer it, whose marks give the truth after them). A scenario that is about one
# of them drives it with its own steps.
CLAUDE_STARTUP = [
    # 2.1.330, a user who keeps manual mode (permissions.defaultMode) without
    # disableAutoMode, at every start: they answer "No, keep manual mode".
    {"regex": r"Make auto mode your default permission mode\?",
     "mark": {"state": "waiting_input", "approval_type": "auto_mode_default",
              "details": "Make auto mode your default permission mode?",
              "choices": ["Yes, set auto mode as my default permission mode", "No, keep manual mode"],
              "multi_select": False, "cursor_position": 1},
     "answer": [{"do": "choose", "option": "No, keep manual mode", "mark": {"state": "idle"}}]},
    # --dangerously-skip-permissions until the user accepted it once
    # (skipDangerousModePermissionPrompt): they accept.
    {"regex": r"WARNING: Claude Code running in Bypass Permissions mode",
     "mark": {"state": "waiting_approval", "approval_type": "bypass_permissions",
              "details": "WARNING: Claude Code running in Bypass Permissions mode",
              "choices": ["No, exit", "Yes, I accept"], "multi_select": False, "cursor_position": 1},
     "answer": [{"do": "choose", "option": "Yes, I accept", "mark": {"state": "idle"}}]},
]
AGENTS = {
    # the prompt box ("❯" + U+00A0) is drawn once Claude Code takes input; 2.1.330's
    # auto and bypass footers have no "? for shortcuts"
    "claude": {"setup": setup_claude, "ready": r"^❯\u00a0|\? for shortcuts", "exit_cmd": "/exit",
               "startup": CLAUDE_STARTUP},
    # 0.147.0's idle footer is only the model line ("  gpt-5.1-codex default · <cwd>")
    "codex": {"setup": setup_codex, "ready": r"\? for shortcuts|context left|^  gpt-5\.1-codex \w+ · /",
              "exit_cmd": "/quit"},
    "gemini": {"setup": setup_gemini, "ready": r"Type your message", "exit_cmd": "/quit"},
}


# ---------------------------------------------------------------------------------------

class Tmux:
    def __init__(self, name):
        self.base = ["tmux", "-L", name, "-f", "/dev/null"]
        self.target = "lab:0.0"

    def run(self, *args, check=True):
        return subprocess.run(self.base + list(args), check=check, capture_output=True, text=True)

    def send(self, *keys, literal=False):
        args = ["send-keys", "-t", self.target] + (["-l"] if literal else []) + list(keys)
        self.run(*args)

    def capture(self):
        r = self.run("capture-pane", "-p", "-t", self.target, ";",
                     "display-message", "-p", "-t", self.target, "#{cursor_x} #{cursor_y}", check=False)
        out = r.stdout.split("\n")
        if out and out[-1] == "":
            out.pop()
        cur = None
        if out:
            m = re.match(r"^(\d+) (\d+)$", out[-1])
            if m:
                cur = [int(m.group(1)), int(m.group(2))]
                out.pop()
        return out, cur

    def kill(self):
        self.run("kill-server", check=False)


class Recorder:
    """The run: sandbox, model server, tmux, snapshots, driver."""

    def __init__(self, sc, args):
        self.sc = sc
        self.args = args
        self.agent = sc["agent"]
        self.name = sc["name"]
        self.root = os.path.join(args.tmp, "%s-%s" % (self.agent, self.name))
        self.home = os.path.join(self.root, "home")
        self.work = os.path.join(self.root, "work")
        self.run_dir = os.path.join(self.root, "run")
        self.tmux = Tmux("agtmux-lab-%d" % os.getpid())
        self.driver = []
        self.snaps = []
        self.stop_snap = threading.Event()
        self.srv = None
        self.warnings = []
        version = getattr(args, "agent_version", None)
        self.cache = version_cache(self.agent, version) if version else CACHE
        self.bin = os.path.join(self.cache, "node_modules", ".bin")
        self.version = agent_version(self.agent, self.cache)
        if version and self.version != version:
            raise RuntimeError("%s %s is not installed in %s (tests/agents/install-agents.sh %s@%s)"
                               % (self.agent, version, self.cache, self.agent, version))
        self.mode = scenario_mode(sc)
        self.hooks = None  # HookSink with --hooks

    # ---- logging --------------------------------------------------------------------
    def act(self, action, **kw):
        rec = {"mono": round(time.monotonic(), 6), "wall": round(time.time(), 6), "action": action}
        rec.update(kw)
        self.driver.append(rec)
        if self.args.verbose:
            print("  [%s] %s %s" % (time.strftime("%H:%M:%S"), action, json.dumps(kw, ensure_ascii=False)[:120]),
                  file=sys.stderr)
        return rec

    def warn(self, msg):
        self.warnings.append(msg)
        print("  WARNING: " + msg, file=sys.stderr)

    # ---- setup ----------------------------------------------------------------------
    def prepare(self):
        if os.path.exists(self.root):
            shutil.rmtree(self.root)
        for d in (self.home, self.work, self.run_dir):
            os.makedirs(d)
        # a small project to work in
        files = self.sc.get("files", {
            "README.md": "# lab project\n\nA tiny project for recording agent sessions.\n",
            "hello.py": "def greet(name):\n    return 'Hello, ' + name\n\n\nif __name__ == '__main__':\n    print(greet('lab'))\n",
        })
        for rel, content in files.items():
            p = os.path.join(self.work, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(content)
        if self.sc.get("git_init", True):
            subprocess.run(["git", "init", "-q", self.work], check=False)

    def start_server(self):
        port_file = os.path.join(self.run_dir, "port")
        self.model_log = os.path.join(self.run_dir, "model.log.jsonl")
        cmd = [sys.executable, os.path.join(HERE, "model_server.py"), "--scenario", self.scenario_path,
               "--port-file", port_file, "--log", self.model_log]
        if self.args.body_log:
            cmd += ["--body-log", os.path.join(self.run_dir, "bodies.jsonl")]
        self.srv = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.run_dir, "server.err"), "w"))
        for _ in range(100):
            if os.path.exists(port_file):
                return int(open(port_file).read())
            time.sleep(0.05)
        raise RuntimeError("model server did not start")

    def start_tmux(self, agent_env, agent_argv):
        self.cast = os.path.join(self.run_dir, "session.cast")
        self.meta = os.path.join(self.run_dir, "meta.json")
        if self.args.recorder == "py":
            rec = [sys.executable, os.path.join(HERE, "ptyrec.py"), "--out", self.cast, "--meta", self.meta, "--"]
        elif self.args.recorder == "none":
            rec = []  # the agent itself is the pane's foreground process (hooks_e2e; nothing recorded)
        else:
            # agtmux wrap [--record FILE.cast] [--agent TYPE] <agent> [args...]; the agent's own
            # options pass through. AGTMUX_WRAP_ARGS (default --no-events) is added before.
            ab = os.environ.get("AGTMUX_BIN", "agtmux")
            extra = shlex.split(os.environ.get("AGTMUX_WRAP_ARGS", "--no-events"))
            rec = [ab, "wrap"] + extra + ["--record", self.cast, "--agent", self.agent]
        rc = os.path.join(self.run_dir, "bashrc")
        env = dict(agent_env)
        env.update(self.sc.get("env", {}))
        with open(rc, "w") as f:
            f.write("# generated by harness.py\n")
            f.write("export HOME=%s\n" % shlex.quote(self.home))
            for k, v in sorted(env.items()):
                f.write("export %s=%s\n" % (k, shlex.quote(v)))
            f.write("export PATH=%s\n" % shlex.quote(os.path.dirname(shutil.which("node") or "/usr/bin/node")
                                                      + ":/usr/local/bin:/usr/bin:/bin"))
            f.write("PS1='lab$ '\n")
            f.write("cd %s\n" % shlex.quote(self.work))
            f.write("%s() { %s \"$@\"; }\n" % (self.agent, " ".join(shlex.quote(x) for x in rec + agent_argv)))
        shell_env = ["env", "-i", "TERM=tmux-256color", "LANG=C.UTF-8", "HOME=" + self.home,
                     "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/bash"]
        cmd = " ".join(shlex.quote(x) for x in shell_env + ["bash", "--noprofile", "--rcfile", rc, "-i"])
        if getattr(self, "keep_tmux_env", False) or self.hooks:
            # hooks need $TMUX_PANE (and $TMUX) like in a user's pane: tmux's shell expands
            # them before `env -i` clears everything else
            cmd = cmd.replace("env -i ", 'env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ', 1)
        self.tmux.run("-u", "new-session", "-d", "-s", "lab", "-x", str(COLS), "-y", str(ROWS), cmd)
        for opt in (("focus-events", "on"), ("status", "off"), ("default-terminal", "tmux-256color"),
                    ("history-limit", "5000")):
            self.tmux.run("set", "-g", *opt)
        self.tmux.run("set", "-s", "escape-time", "10")
        pid = self.tmux.run("display-message", "-p", "#{pid}", check=False).stdout.strip()
        self.tmux_pid = int(pid) if pid.isdigit() else None
        self.renice_tree()

    def renice_tree(self):
        """With sched_autogroup every session (tmux server, the pane's shell, the agent under
        the recorder's PTY) is its own CPU group, so plain nice values do not help against
        other sessions' work: set the autogroup nice of our own processes (harness, model
        server, tmux server and everything below it)."""
        if not self.args.nice:
            return
        pids = ["self"]
        if getattr(self, "tmux_pid", None):
            children = {}
            for d in os.listdir("/proc"):
                if d.isdigit():
                    try:
                        with open("/proc/%s/stat" % d) as f:
                            ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                        children.setdefault(ppid, []).append(int(d))
                    except (OSError, ValueError, IndexError):
                        pass
            todo = [self.tmux_pid]
            while todo:
                p = todo.pop()
                pids.append(str(p))
                todo.extend(children.get(p, []))
        for p in pids:
            try:
                with open("/proc/%s/autogroup" % p) as f:
                    if f.read().strip().endswith("nice %d" % self.args.nice):
                        continue
                with open("/proc/%s/autogroup" % p, "w") as f:
                    f.write(str(self.args.nice))
            except OSError:
                pass
        self.tmux.run("resize-window", "-t", "lab", "-x", str(COLS), "-y", str(ROWS), check=False)

    # ---- snapshots -------------------------------------------------------------------
    def snapper(self):
        last = None
        next_renice = 0.0
        while not self.stop_snap.is_set():
            t0 = time.monotonic()
            lines, cur = self.tmux.capture()
            if (lines, cur) != last:
                self.snaps.append({"mono": t0, "lines": lines, "cursor": cur})
                last = (lines, cur)
            self.latest = lines
            if t0 >= next_renice:  # new agent processes get the lab's priority within 0.6 s
                self.renice_tree()
                next_renice = t0 + 0.6
            dt = SNAP_INTERVAL - (time.monotonic() - t0)
            if dt > 0:
                self.stop_snap.wait(dt)

    def screen_text(self):
        lines, _ = self.tmux.capture()
        return "\n".join(lines)

    def wait_ready(self, regex, timeout):
        """Waits for the ready screen, answering the agent's start-up dialogs
        (AGENTS[agent]["startup"]) on the way like a user: each is marked in the truth
        when seen (driver_saw_screen), read for 1.5 s, answered."""
        rx = re.compile(regex, re.M)
        dialogs = [(re.compile(d["regex"], re.M), d) for d in AGENTS[self.agent].get("startup", [])]
        end = time.monotonic() + timeout
        answered = set()
        while time.monotonic() < end:
            text = self.screen_text()
            if rx.search(text):
                if not dialogs:
                    return True
                # Claude Code 2.1.330 draws its prompt for ~0.15 s before a start-up
                # dialog covers it: ready is a prompt that stays
                time.sleep(0.5)
                text = self.screen_text()
                if rx.search(text) and not any(drx.search(text) for drx, _ in dialogs):
                    return True
            for drx, d in dialogs:
                if d["regex"] not in answered and drx.search(text):
                    answered.add(d["regex"])
                    self.act("saw_screen", regex=d["regex"], ok=True, mark=d["mark"], startup=True)
                    time.sleep(1.5)
                    for st in d["answer"]:
                        self.step(st)
                    end = time.monotonic() + timeout
                    break
            else:
                time.sleep(0.1)
        self.warn("screen wait timed out (%s)" % regex)
        return False

    def wait_screen(self, regex, timeout=20.0, negate=False):
        rx = re.compile(regex, re.M)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = rx.search(self.screen_text()) is not None
            if found != negate:
                return True
            time.sleep(0.1)
        self.warn("screen wait timed out (%s%s)" % ("not " if negate else "", regex))
        return False

    # ---- model log helpers -----------------------------------------------------------
    def model_events(self):
        out = []
        try:
            with open(self.model_log) as f:
                for line in f:
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
        except OSError:
            pass
        return out

    def wait_model(self, pred, timeout=30.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for e in self.model_events():
                if pred(e):
                    return e
            time.sleep(0.05)
        return None

    # ---- driver ------------------------------------------------------------------------
    def keys(self, keys, **kw):
        """Sends the keys 0.3 s apart. The record's time is the moment the last key
        was sent (taken before send-keys: the agent may redraw before it returns)."""
        sent = None
        for i, k in enumerate(keys):
            if i:
                time.sleep(0.3)
            sent = (time.monotonic(), time.time())
            if isinstance(k, dict):  # {"text": "..."} types literally
                self.tmux.send(k["text"], literal=True)
            else:
                self.tmux.send(k)
        rec = self.act("keys", keys=keys, **kw)
        if sent:
            rec["mono"], rec["wall"] = round(sent[0], 6), round(sent[1], 6)

    def versioned_mark(self, st):
        """A step's mark for the recorded version: `mark` updated by every
        `mark_since` entry whose version is <= it (as expectation() does for expect)."""
        if not st.get("mark"):
            return st.get("mark")
        return expectation({"expect": st["mark"], "expect_since": st.get("mark_since", {})}, self.version)

    def choose(self, option, timeout=10.0, **kw):
        """Moves the menu's cursor to the row whose label is `option` and presses Enter,
        looking at the screen after every key like a user. Each arrow is logged as an
        update with `cursor_label` (derive() turns it into the position in the waiting
        state's choices); Enter carries the step's mark/resolves."""
        glyphs = ("❯", "›", "●", ">")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            lines = self.screen_text().split("\n")
            rows = [(i, ln.strip().lstrip("│").strip()) for i, ln in enumerate(lines)]
            # the menu is the last one on screen (old prompts "❯ ..." sit above it)
            cur = next(((i, t) for i, t in reversed(rows) if t[:1] in glyphs and len(t) > 2), None)
            want = next((i for i, t in reversed(rows)
                         if re.sub(r"^(?:[❯›●>]\s+)?(?:\d+\.\s+)?", "", t) == option), None)
            if cur is None or want is None:
                time.sleep(0.1)
                continue
            if cur[0] == want:
                time.sleep(0.3)
                self.keys(["Enter"], **kw)
                return True
            key = "Down" if want > cur[0] else "Up"
            sent = (time.monotonic(), time.time())
            self.tmux.send(key)
            time.sleep(0.4)
            after = self.screen_text().split("\n")
            lab = next((re.sub(r"^[❯›●>]\s+(?:\d+\.\s+)?", "", ln.strip().lstrip("│").strip())
                        for ln in reversed(after) if ln.strip().lstrip("│").strip()[:1] in glyphs), None)
            rec = self.act("keys", keys=[key], update={"cursor_label": lab})
            rec["mono"], rec["wall"] = round(sent[0], 6), round(sent[1], 6)
        self.warn("choose: no menu with the option %r" % option)
        return False

    def step(self, st):
        do = st["do"]
        if do == "sleep":
            time.sleep(float(st["s"]))
        elif do == "wait_ready":
            regex = st.get("regex", AGENTS[self.agent]["ready"])
            ok = self.wait_ready(regex, st.get("timeout", 30))
            mark = st.get("mark", {"state": "idle"})
            self.act("ready", regex=regex, ok=ok, mark=mark)
        elif do == "wait_screen":
            negate = st.get("negate", False)
            ok = self.wait_screen(st["regex"], st.get("timeout", 20), negate=negate)
            self.act("saw_screen", regex=st["regex"], negate=negate or None, ok=ok, mark=self.versioned_mark(st))
        elif do == "prompt":
            text = st["text"]
            if st.get("paste"):
                self.tmux.run("set-buffer", "-b", "labprompt", text)
                self.tmux.run("paste-buffer", "-p", "-d", "-b", "labprompt", "-t", self.tmux.target)
            else:
                self.tmux.send(text, literal=True)
            self.act("type", text=text)
            time.sleep(float(st.get("gap", 0.5)))
            sent = (time.monotonic(), time.time())
            self.tmux.send("Enter")
            rec = self.act("submit", text=text)
            rec["mono"], rec["wall"] = round(sent[0], 6), round(sent[1], 6)
        elif do == "keys":
            kw = {k: st[k] for k in ("resolves", "interrupts", "update", "note") if k in st}
            if st.get("mark"):
                kw["mark"] = self.versioned_mark(st)
            self.keys(st["keys"], **kw)
        elif do == "choose":
            kw = {k: st[k] for k in ("resolves", "note") if k in st}
            if st.get("mark"):
                kw["mark"] = self.versioned_mark(st)
            self.choose(st["option"], st.get("timeout", 10), **kw)
        elif do == "wait_response":
            turn, item = st.get("turn"), st.get("item")
            e = self.wait_model(lambda e: e.get("ev") == "response_end" and e.get("turn") == turn
                                and (item is None or e.get("item") == item), st.get("timeout", 60))
            if e is None:
                self.warn("no response_end for turn %s item %s" % (turn, item))
            self.act("saw_response_end", turn=turn, item=item, ok=e is not None)
        elif do == "wait_turn_end":
            # the model's final (text) answer of this turn has been sent, or an error that
            # is not retried within `quiet` seconds
            turn = st["turn"]
            quiet = float(st.get("quiet", 3.0))
            end = time.monotonic() + st.get("timeout", 90)
            ok = False
            while time.monotonic() < end and not ok:
                evs = self.model_events()
                mains = [e for e in evs if e.get("turn") == turn and e.get("ev") == "response_end"
                         and e.get("kind") in ("text", "error")]
                if mains:
                    lastm = mains[-1]
                    later = [e for e in evs if e.get("ev") == "request" and e.get("kind") == "main"
                             and e["mono"] > lastm["mono"]]
                    if lastm["kind"] == "text" and not later:
                        ok = True
                    elif lastm["kind"] == "error" and not later and time.monotonic() - lastm["mono"] > quiet:
                        ok = True
                if not ok:
                    time.sleep(0.1)
            if not ok:
                self.warn("turn %s did not end" % turn)
            self.act("saw_turn_end", turn=turn, ok=ok)
        elif do == "exit":
            method = st.get("method", "command")
            if method == "command":
                cmd = st.get("command", AGENTS[self.agent]["exit_cmd"])
                self.tmux.send(cmd, literal=True)
                self.act("type", text=cmd)
                time.sleep(0.6)
                self.tmux.send("Enter")
                self.act("exit_command", text=cmd)
            else:
                key = {"ctrl_d": "C-d", "ctrl_c": "C-c"}[method]
                for i in range(int(st.get("times", 2))):
                    if i:
                        time.sleep(float(st.get("gap", 0.5)))
                    self.tmux.send(key)
                    self.act("exit_key", key=key)
            if not self.wait_exit(st.get("timeout", 15)):
                self.warn("agent did not exit; sending C-c C-c")
                for _ in range(3):
                    self.tmux.send("C-c")
                    time.sleep(0.4)
                self.wait_exit(10)
        else:
            raise ValueError("unknown step " + do)

    def read_meta(self):
        try:
            with open(self.meta) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def wait_exit(self, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = self.read_meta()
            if m and "exit_mono" in m:
                return True
            if self.args.recorder == "none" and self.tmux.run(
                    "display-message", "-p", "-t", self.tmux.target, "#{pane_current_command}",
                    check=False).stdout.strip() == "bash":
                return True
            if self.args.recorder == "agtmux" and self.cast_closed():
                self.agtmux_exit_mono = time.monotonic()  # approximate: the shell prompt is back
                return True
            time.sleep(0.1)
        return False

    def cast_closed(self):
        # agtmux recorder: the shell prompt is back
        lines = [ln for ln in self.screen_text().split("\n") if ln.strip()]
        return bool(lines) and re.match(r"^lab\$\s*$", lines[-1]) is not None and os.path.exists(self.cast)

    # ---- hooks variant ---------------------------------------------------------------------
    def install_hooks(self, agent_env):
        """`agtmux setup <agent>` into the sandbox HOME (the configuration the harness
        wrote), with agtmux's directories in the sandbox and its socket pointing at the
        lab's HookSink. Returns the env the agent needs for `agtmux hook`."""
        import hook_sink
        agtmux = os.environ.get("AGTMUX_BIN") or shutil.which("agtmux")
        if not agtmux or not os.path.exists(agtmux):
            raise RuntimeError("--hooks needs AGTMUX_BIN (the build's cli/agtmux)")
        base = os.path.join(self.root, "agt")
        agt = {"AGTMUX_STATE_DIR": os.path.join(base, "state"),
               "AGTMUX_CONFIG_DIR": os.path.join(base, "config"),
               "AGTMUX_SOCKET": os.path.join(base, "agtmuxd.sock")}
        for d in (agt["AGTMUX_STATE_DIR"], agt["AGTMUX_CONFIG_DIR"]):
            os.makedirs(d, exist_ok=True)
        self.hooks = hook_sink.HookSink(agt["AGTMUX_SOCKET"])
        self.hooks.start()
        env = {"HOME": self.home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
        env.update(agent_env)
        env.update(agt)
        r = subprocess.run([agtmux, "setup", self.agent], env=env, capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise RuntimeError("agtmux setup %s failed: %s%s" % (self.agent, r.stdout, r.stderr))
        self.hooks_setup = {"agtmux": agtmux, "setup_output": (r.stdout + r.stderr).strip()}
        self.act("hooks_installed", agtmux=agtmux)
        return agt

    # ---- main ----------------------------------------------------------------------------
    def wait_for_quiet_machine(self):
        """Screens lag more on a loaded machine; wait (bounded) for the load to drop."""
        if not self.args.max_load:
            return
        end = time.monotonic() + self.args.load_wait
        while os.getloadavg()[0] > self.args.max_load and time.monotonic() < end:
            time.sleep(5)
        if os.getloadavg()[0] > self.args.max_load:
            print("  note: load average %.1f > %.1f, recording anyway" % (os.getloadavg()[0], self.args.max_load),
                  file=sys.stderr)

    def record(self):
        self.wait_for_quiet_machine()
        self.loadavg_start = os.getloadavg()
        self.prepare()
        self.scenario_path = os.path.join(self.run_dir, "scenario.json")
        with open(self.scenario_path, "w") as f:
            json.dump(self.sc, f, indent=1, ensure_ascii=False)
        port = self.start_server()
        env, argv = AGENTS[self.agent]["setup"](self.sc, self.home, self.work, port, bin_dir=self.bin)
        self.env_used = env
        self.argv = argv
        snap_thread = threading.Thread(target=self.snapper, daemon=True)
        try:
            if self.args.hooks:
                env = dict(env, **self.install_hooks(env))
            self.start_tmux(env, argv)
            time.sleep(0.5)
            snap_thread.start()
            self.tmux.send(self.agent, literal=True)
            time.sleep(0.3)
            self.tmux.send("Enter")
            self.act("launch", text=self.agent)
            # wait for the recorder to start (time zero of the cast)
            end = time.monotonic() + 10
            while time.monotonic() < end and not os.path.exists(self.cast):
                time.sleep(0.01)
            if self.args.recorder == "agtmux":
                self.cast_start_mono = time.monotonic()  # approximate: when the cast file appeared
            time.sleep(0.02)
            self.renice_tree()
            for st in self.sc["steps"]:
                self.step(st)
            time.sleep(1.0)  # the shell prompt after exit
        finally:
            self.stop_snap.set()
            if snap_thread.is_alive():
                snap_thread.join(2)
            self.tmux.kill()
            if self.hooks:
                time.sleep(0.3)  # a hook the exit fired (SessionEnd) may still be on its way
                self.hooks.stop()
            if self.srv:
                self.srv.send_signal(signal.SIGTERM)
                try:
                    self.srv.wait(5)
                except subprocess.TimeoutExpired:
                    self.srv.kill()
        with open(os.path.join(self.run_dir, "driver.jsonl"), "w") as f:
            for r in self.driver:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        return self.write_fixture()

    def write_fixture(self):
        meta = self.read_meta() or {}
        if "start_mono" not in meta:
            meta["start_mono"] = getattr(self, "cast_start_mono", self.driver[0]["mono"])
            meta["approximate_start"] = True
            if getattr(self, "agtmux_exit_mono", None):
                meta["exit_mono"] = self.agtmux_exit_mono
        start = meta["start_mono"]
        cast_end = cast_duration(self.cast)
        out = os.path.abspath(self.args.out or fixture_dir(getattr(self.args, "fixtures_root", None) or FIXTURES,
                                                         self.agent, self.version, self.mode,
                                                         self.name + ("+hooks" if self.hooks else "")))
        if os.path.exists(out):
            shutil.rmtree(out)
        os.makedirs(out)
        shutil.copy(self.cast, os.path.join(out, "session.cast"))
        with open(os.path.join(out, "snapshots.jsonl"), "w") as f:
            for s in self.snaps:
                t = s["mono"] - start
                if 0 <= t <= cast_end:
                    f.write(json.dumps({"t": round(t, 3), "lines": s["lines"], "cursor": s["cursor"]},
                                       ensure_ascii=False) + "\n")
        with open(os.path.join(out, "model.log.jsonl"), "w") as f:
            for e in self.model_events():
                e = dict({"t": round(e["mono"] - start, 6)}, **e)
                f.write(json.dumps(e, ensure_ascii=False) + "\n")
        with open(os.path.join(out, "driver.jsonl"), "w") as f:
            for r in self.driver:
                r = dict({"t": round(r["mono"] - start, 6)}, **r)
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        if self.hooks:
            with open(os.path.join(out, "hooks.jsonl"), "w") as f:
                for mono, ev in sorted(self.hooks.events, key=lambda x: x[0]):
                    f.write(json.dumps({"t": round(mono - start, 6), "mono": round(mono, 6), "event": ev},
                                       ensure_ascii=False) + "\n")
            for e in self.hooks.errors:
                self.warn("hook sink: " + e)
        sc = dict(self.sc)
        sc["mode"] = self.mode
        sc["recording"] = {
            "agent_version": self.version,
            "mode": self.mode,
            "agent_package": PKG[self.agent],
            "recorder": self.args.recorder,
            "argv": self.argv,
            "env": self.env_used,
            "extra_env": self.sc.get("env", {}),
            "tmux": subprocess.run(["tmux", "-V"], capture_output=True, text=True).stdout.strip(),
            "size": "%dx%d" % (COLS, ROWS),
            "snap_interval": SNAP_INTERVAL,
            "cwd": self.work,
            "home": self.home,
            "date": time.strftime("%Y-%m-%d"),
            "start_mono": start,
            "start_wall": meta.get("start_wall"),
            "exit_mono": meta.get("exit_mono"),
            "exit_status": meta.get("exit_status"),
            "approximate_start": meta.get("approximate_start", False),
            "warnings": self.warnings,
            "loadavg_start": [round(x, 2) for x in self.loadavg_start],
            "loadavg_end": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
        }
        if self.hooks:
            sc["recording"]["hooks"] = self.hooks_setup
        with open(os.path.join(out, "scenario.json"), "w") as f:
            json.dump(sc, f, indent=1, ensure_ascii=False)
        derive(out)
        if self.args.keep:
            print("  run dir kept: " + self.root, file=sys.stderr)
        else:
            shutil.rmtree(self.root, ignore_errors=True)
        return out


def fixture_dir(root, agent, version, mode, name):
    """<root>/<agent>/<version>/<name> in the agent's base mode, else
    <root>/<agent>/<version>/<mode>/<name> (README.md, "Fixture layout")."""
    parts = [root, agent, version] + ([] if mode == MODES[agent][0] else [mode]) + [name]
    return os.path.join(*parts)


def cast_duration(path):
    end = 0.0
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            try:
                end = max(end, float(json.loads(line)[0]))
            except (ValueError, IndexError):
                pass
    return end


# ---------------------------------------------------------------------------------------
# ground truth

def load_jsonl(path):
    out = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    out.append(json.loads(line))
    return out


def derive(fixture_dir):
    """Derive truth.jsonl from model.log.jsonl + driver.jsonl + scenario.json (see README)."""
    with open(os.path.join(fixture_dir, "scenario.json"), encoding="utf-8") as f:
        sc = json.load(f)
    rec = sc["recording"]
    start = rec["start_mono"]
    model = load_jsonl(os.path.join(fixture_dir, "model.log.jsonl"))
    driver = load_jsonl(os.path.join(fixture_dir, "driver.jsonl"))
    turns = sc.get("turns", [])

    def item_of(e):
        try:
            return turns[e["turn"]][e["item"]]
        except (TypeError, IndexError, KeyError):
            return None

    evs = []  # (mono, order, kind, payload)
    for e in model:
        if e.get("ev") == "request" and e.get("kind") == "main":
            evs.append((e["mono"], 1, "main_request", e))
        elif e.get("ev") == "response_end" and e.get("turn") is not None and e.get("kind") in ("text", "tool", "error"):
            evs.append((e["mono"], 2, "main_response_end", e))
    for d in driver:
        evs.append((d["mono"], 0, "driver", d))
    evs.sort(key=lambda x: (x[0], x[1]))
    driver_monos = sorted(d["mono"] for d in driver if d["action"] in (
        "submit", "keys", "exit_command", "exit_key"))
    main_req_monos = sorted(e["mono"] for e in model if e.get("ev") == "request" and e.get("kind") == "main")

    def main_request_before_next_driver(t):
        nxt = min([m for m in driver_monos if m > t] or [float("inf")])
        return any(t < m < nxt for m in main_req_monos)

    version = rec.get("agent_version")

    snaps = load_jsonl(os.path.join(fixture_dir, "snapshots.jsonl"))
    interval = rec.get("snap_interval", 0.2)

    def screen_changed(p):
        """The driver saw its screen at p["mono"], polling every 0.1 s. The snapper, every
        `interval`, tells sooner when the screen changed: after the last capture that did
        not show it yet. Captures equal to the one before were not kept, so that capture
        is one interval before the first sighting (or the last kept snapshot without it,
        if later). Returns (that mono, mono of the first sighting)."""
        rx = re.compile(p.get("regex") or AGENTS[sc["agent"]]["ready"], re.M)
        negate = bool(p.get("negate"))

        def shows(s_):
            return (rx.search("\n".join(s_["lines"])) is not None) != negate

        if not snaps:  # no snapshot thread: only the driver's sighting is known
            return p["mono"], p["mono"]
        first, last_not = None, start
        for s_ in snaps:
            mono = start + s_["t"]
            if mono > p["mono"]:
                # the driver's capture can beat the snapper's by a few ms
                if first is None and mono <= p["mono"] + interval and shows(s_):
                    first = mono
                break
            if shows(s_):
                first = mono if first is None else first
            else:
                first, last_not = None, mono
        seen = min(first, p["mono"]) if first is not None else p["mono"]
        return max(seen - interval, last_not), seen

    out = []
    cur = {}

    def emit(mono, state, source, **kw):
        nonlocal cur
        rec_ = {"t": round(mono - start, 3), "state": state}
        rec_.update({k: v for k, v in kw.items() if v is not None})
        rec_["source"] = source
        out.append(rec_)
        cur = rec_

    emit(start, "unknown", "agent_start", reason_code="starting")
    for mono, _, kind, p in evs:
        if mono < start:
            continue
        if kind == "driver":
            a = p["action"]
            if a in ("ready", "saw_screen") and p.get("mark"):
                changed, shown = screen_changed(p)
                changed = max(changed, start + cur.get("t", 0.0))
                kw = {k: v for k, v in p["mark"].items() if k != "state"}
                kw["screen_t"] = round(shown - start, 3)
                kw["driver_t"] = round(mono - start, 3)
                emit(changed, p["mark"]["state"], "driver_saw_screen", **kw)
            elif a == "submit":
                emit(mono, "running", "prompt_submitted")
            elif a == "keys":
                if p.get("update") and cur.get("state", "").startswith("waiting"):
                    upd = {k: v for k, v in cur.items() if k not in ("t", "state", "source")}
                    upd.update(p["update"])
                    if "cursor_label" in upd:  # a `choose` step: where the cursor went
                        label = upd.pop("cursor_label")
                        ch = upd.get("choices") or []
                        upd["cursor_position"] = ch.index(label) + 1 if label in ch else 0
                    emit(mono, cur["state"], "driver_key", **upd)
                if p.get("interrupts") and cur.get("state") == "running":
                    emit(mono, "idle", "driver_interrupted", reason_code="interrupted")
                elif p.get("mark"):
                    emit(mono, p["mark"]["state"], "driver_key",
                         **{k: v for k, v in p["mark"].items() if k != "state"})
                elif p.get("resolves"):
                    if main_request_before_next_driver(mono):
                        emit(mono, "running", "driver_answered")
                    else:
                        emit(mono, "idle", "driver_answered_turn_ended", reason_code="interrupted")
        elif kind == "main_response_end":
            item = item_of(p) or {}
            if p["kind"] == "text":
                if cur.get("state") == "running":
                    emit(mono, "completed", "model_final_response_end")
            elif p["kind"] == "tool":
                exp = expectation(item, version)
                # A tool call waits for the user only when the CLI asked: in a mode that
                # does not ask (bypass, yolo, auto for a low-risk call) the CLI runs the
                # tool and sends its result, a main request, before the driver does
                # anything; a dialog makes it wait for the driver's key.
                if exp and not main_request_before_next_driver(mono):
                    emit(mono, exp["state"], "model_tool_call_end",
                         **{k: v for k, v in exp.items() if k != "state"})
            elif p["kind"] == "error":
                if not main_request_before_next_driver(mono):
                    emit(mono, "error", "model_error_end", http_status=p.get("status"),
                         details=(item.get("error") or {}).get("message"))
    if rec.get("exit_mono"):
        emit(rec["exit_mono"], "unknown", "agent_exit", reason_code="no_agent",
             exit_status=rec.get("exit_status"))
    out = split_undrawn_options(out, snaps, interval)
    with open(os.path.join(fixture_dir, "truth.jsonl"), "w", encoding="utf-8") as f:
        for r in out:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return out


# a menu row without a number: box border, cursor glyph, label (check_corpus.py's rule)
UNNUMBERED_ROW = re.compile(r"^[\s│]*(?:[❯›●>]\s+)?")


def options_shown(lines, choices):
    """True when a screen shows every choice as a menu option: "k. <choice>" (or
    "k. [ ] <choice>"), or, for a menu without numbers, a row that is the choice."""
    norm = lambda x: re.sub(r"\s+", " ", x).strip()  # noqa: E731
    joined = norm(" ".join(lines))
    if all(re.search(r"(?<!\d)%d\. +(\[.\] )?%s" % (k + 1, re.escape(norm(c))), joined)
           for k, c in enumerate(choices)):
        return True
    rows = {norm(UNNUMBERED_ROW.sub("", ln)) for ln in lines}
    return all(norm(c) in rows for c in choices)


def split_undrawn_options(out, snaps, interval):
    """A waiting state starts when the model's tool call was streamed, but its options
    exist for a reader of the screen or the byte stream only once the CLI draws them
    (Codex draws its approval ~0.8 s after the call, having said state=blocked at
    once). As for a list that scrolls, the options enter the truth when they are
    drawn: until then the state has choices [] (cursor 0). When they appeared is taken
    from the snapshots like the driver_saw_screen records (the last capture that did
    not show them, so at most one interval early). Within one interval of the call
    nothing is split."""
    res = []
    for i, r in enumerate(out):
        if r.get("source") != "model_tool_call_end" or not r.get("choices") or not snaps:
            res.append(r)
            continue
        t0 = r["t"]
        t1 = out[i + 1]["t"] if i + 1 < len(out) else float("inf")
        last_not, shown = t0, None
        for s_ in snaps:
            if s_["t"] < t0:
                continue
            if s_["t"] >= t1:
                break
            if options_shown(s_["lines"], r["choices"]):
                shown = s_["t"]
                break
            last_not = s_["t"]
        if shown is None:  # never drawn as expected: check_corpus.py reports it
            res.append(r)
            continue
        drawn = max(shown - interval, last_not)
        if drawn - t0 <= interval:
            res.append(r)
            continue
        pending = {k: v for k, v in r.items() if k not in ("details", "choices", "cursor_position",
                                                            "multi_select", "selected", "source")}
        pending.update(details="", choices=[], cursor_position=0, multi_select=False,
                       note="the options are not drawn yet", source="model_tool_call_end")
        res.append(pending)
        res.append(dict(r, t=round(drawn, 3), screen_t=shown, source="screen_drew_options"))
    return res


def _terminate(signum, frame):
    # run the finally blocks (kill the private tmux server, stop the model server)
    raise KeyboardInterrupt("signal %d" % signum)


def main():
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _terminate)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("scenario", nargs="+")
    r.add_argument("--out", help="fixture dir (default <fixtures-root>/<agent>/<version>[/<mode>]/<name>)")
    r.add_argument("--fixtures-root", help="where fixtures go (default tests/fixtures)")
    r.add_argument("--agent-version", help="record the version installed by install-agents.sh AGENT@VERSION "
                                           "(default: the pinned set in $AGTMUX_AGENT_CACHE)")
    r.add_argument("--hooks", action="store_true",
                   help="install the agent's hooks with `$AGTMUX_BIN setup <agent>` and record what "
                        "`agtmux hook` sends into hooks.jsonl (fixture <name>+hooks)")
    r.add_argument("--recorder", choices=("py", "agtmux"), default="py")
    r.add_argument("--tmp", default="/tmp/agtmux-lab")
    r.add_argument("--keep", action="store_true", help="keep the sandbox/run dir")
    r.add_argument("--body-log", action="store_true", help="also log full request bodies in the run dir")
    r.add_argument("-v", "--verbose", action="store_true")
    r.add_argument("--max-load", type=float, default=0,
                   help="before each scenario wait until the 1-min load average is below this "
                        "(default 0 = do not wait; --nice is usually enough)")
    r.add_argument("--nice", type=int, default=-10 if os.geteuid() == 0 else 0,
                   help="nice value for the lab's own CPU groups (tmux server and agent, harness and "
                        "model server; /proc/<pid>/autogroup), so that other work on the machine adds "
                        "less lag (default -10 as root, else 0)")
    r.add_argument("--load-wait", type=float, default=600, help="wait at most this long (s) for --max-load")
    d = sub.add_parser("derive")
    d.add_argument("fixture", nargs="+")
    a = ap.parse_args()
    if a.cmd == "derive":
        for fx in a.fixture:
            for r_ in derive(fx):
                print(json.dumps(r_, ensure_ascii=False))
        return
    if len(a.scenario) > 1 and a.out:
        ap.error("--out needs a single scenario")
    rc = 0
    for path in a.scenario:
        with open(path, encoding="utf-8") as f:
            sc = json.load(f)
        print("recording %s/%s" % (sc["agent"], sc["name"]), file=sys.stderr)
        rec = Recorder(sc, a)
        out = rec.record()
        print(out)
        if rec.warnings:
            rc = 1
    sys.exit(rc)


if __name__ == "__main__":
    main()
