#!/usr/bin/env python3
"""Self-tests of the recording lab (no agent CLI needed): python3 tests/agents/test_lab.py

- ptyrec.py: a glyph split across two writes is recorded whole, the output is byte-exact,
  input is recorded, the exit status passes through, the meta file has the clock origin;
- model_server.py: the three protocols stream what the scenario says (text, tool call,
  error with repeat), follow-ups and retries take the next item, side requests are
  answered, everything is logged;
- harness.derive: the ground-truth rules on a synthetic fixture;
- check_corpus.py on the recorded corpus (skipped when there is none).
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402


def read_cast(path):
    with open(path, encoding="utf-8") as f:
        hdr = json.loads(next(f))
        return hdr, [json.loads(line) for line in f]


class PtyRecTest(unittest.TestCase):
    def test_split_glyph_exact_bytes_and_status(self):
        with tempfile.TemporaryDirectory() as d:
            cast, meta = os.path.join(d, "s.cast"), os.path.join(d, "m.json")
            prog = ("import os,sys,time\n"
                    "b='❯\\u00a0✳ é'.encode()\n"
                    "os.write(1,b[:2]); time.sleep(0.2); os.write(1,b[2:]+b'\\n')\n"
                    "sys.exit(3)\n")
            r = subprocess.run([sys.executable, os.path.join(HERE, "ptyrec.py"), "--out", cast, "--meta", meta,
                                "--", sys.executable, "-c", prog], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=20)
            self.assertEqual(r.returncode, 3)
            hdr, evs = read_cast(cast)
            self.assertEqual(hdr["version"], 2)
            out = "".join(e[2] for e in evs if e[1] == "o")
            self.assertEqual(out.encode(), "❯\u00a0✳ é\r\n".encode())  # the PTY's onlcr adds the \r
            self.assertNotIn("\ufffd", out)
            self.assertEqual(evs[-1][1:], ["m", "exit 3"])
            times = [e[0] for e in evs]
            self.assertEqual(times, sorted(times))
            with open(meta) as f:
                m = json.load(f)
            self.assertEqual(m["exit_status"], 3)
            self.assertLess(m["start_mono"], m["exit_mono"])


class ModelServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        sc = {"name": "t", "turns": [
            [{"tool": {"name": "Bash", "input": {"command": "ls"}}}, {"text": "done one", "delay": 0}],
            [{"error": {"status": 529, "repeat": 2}}, {"text": "after retry", "delay": 0}],
        ]}
        cls.sc_path = os.path.join(d, "sc.json")
        with open(cls.sc_path, "w") as f:
            json.dump(sc, f)
        cls.log = os.path.join(d, "log.jsonl")
        port_file = os.path.join(d, "port")
        cls.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "model_server.py"), "--scenario",
                                     cls.sc_path, "--port-file", port_file, "--log", cls.log],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(port_file):
                break
            time.sleep(0.05)
        with open(port_file) as f:
            cls.base = "http://127.0.0.1:%d" % int(f.read())

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        cls.proc.wait(5)
        cls.tmp.cleanup()

    def post(self, path, body):
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def test_anthropic_flow(self):
        tools = [{"name": "Bash"}]
        user = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
        st, body = self.post("/v1/messages?beta=true", {"model": "m", "stream": True, "tools": tools, "messages": [user]})
        self.assertEqual(st, 200)
        self.assertIn('"type": "tool_use"', body)
        self.assertIn('"stop_reason": "tool_use"', body)
        self.assertIn("event: message_stop", body)
        follow = [user, {"role": "assistant", "content": []},
                  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "ok"}]}]
        st, body = self.post("/v1/messages?beta=true", {"model": "m", "stream": True, "tools": tools, "messages": follow})
        self.assertIn("done one", body)
        # side request (no tools): answered at once
        st, body = self.post("/v1/messages?beta=true", {"model": "m", "stream": True, "messages": [user],
                                                          "system": [{"type": "text", "text": "Return JSON with a title"}]})
        self.assertIn("Lab session", body)
        # turn 2: error twice (the same request = a retry), then the text
        user2 = [user, {"role": "user", "content": "again"}]
        self.assertEqual(self.post("/v1/messages", {"model": "m", "stream": True, "tools": tools, "messages": user2})[0], 529)
        self.assertEqual(self.post("/v1/messages", {"model": "m", "stream": True, "tools": tools, "messages": user2})[0], 529)
        st, body = self.post("/v1/messages", {"model": "m", "stream": True, "tools": tools, "messages": user2})
        self.assertEqual(st, 200)
        self.assertIn("after retry", body)
        with open(self.log) as f:
            evs = [json.loads(line) for line in f]
        kinds = [(e.get("kind"), e.get("how")) for e in evs if e["ev"] == "request"]
        self.assertEqual(kinds, [("main", "new_prompt"), ("main", "followup"), ("side", None),
                                 ("main", "new_prompt"), ("main", "retry"), ("main", "retry")])
        self.assertTrue(all("mono" in e and "wall" in e for e in evs))

    def test_openai_and_gemini_shapes(self):
        # a fresh server state is not needed: these only check the wire format
        st, body = self.post("/v1/responses", {"model": "m", "stream": True, "input": "x"})
        self.assertEqual(st, 200)
        self.assertIn("response.completed", body)
        # Codex 0.150.0's title request: a lone `skills` tool and a JSON schema: side, in JSON
        st, body = self.post("/v1/responses", {
            "model": "m", "stream": True, "tools": [{"type": "function", "name": "skills"}],
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "title?"}]}],
            "text": {"format": {"type": "json_schema", "name": "codex_output_schema",
                                "schema": {"type": "object", "properties": {"title": {"type": "string"}}}}}})
        self.assertEqual(st, 200)
        self.assertIn('{\\"title\\": \\"Lab session\\"}', body)
        st, body = self.post("/v1beta/models/g:generateContent", {"contents": [{"role": "user", "parts": [{"text": "x"}]}]})
        self.assertEqual(json.loads(json.loads(body)["candidates"][0]["content"]["parts"][0]["text"])["next_speaker"], "user")


class DeriveTest(unittest.TestCase):
    def test_rules(self):
        with tempfile.TemporaryDirectory() as d:
            exp = {"state": "waiting_approval", "approval_type": "shell", "details": "Q?", "choices": ["Yes", "No"],
                   "multi_select": False, "cursor_position": 1}
            sc = {"agent": "claude", "name": "x", "turns": [[{"tool": {"name": "Bash"}, "expect": exp}, {"text": "ok"}],
                                                          [{"tool": {"name": "Bash"}, "expect": exp}],
                                                          [{"error": {"status": 400}}]],
                  "recording": {"start_mono": 100.0, "exit_mono": 130.0, "exit_status": 0}}
            with open(os.path.join(d, "scenario.json"), "w") as f:
                json.dump(sc, f)
            model = [
                {"ev": "request", "kind": "main", "turn": 0, "item": 0, "mono": 102.1},
                {"ev": "response_end", "kind": "tool", "turn": 0, "item": 0, "mono": 102.5},
                {"ev": "request", "kind": "main", "turn": 0, "item": 1, "mono": 104.1},
                {"ev": "response_end", "kind": "text", "turn": 0, "item": 1, "mono": 104.5},
                {"ev": "request", "kind": "main", "turn": 1, "item": 0, "mono": 110.1},
                {"ev": "response_end", "kind": "tool", "turn": 1, "item": 0, "mono": 110.5},
                {"ev": "request", "kind": "main", "turn": 2, "item": 0, "mono": 120.1},
                {"ev": "response_end", "kind": "error", "status": 400, "turn": 2, "item": 0, "mono": 120.2},
            ]
            driver = [
                {"action": "ready", "mark": {"state": "idle"}, "mono": 100.5},
                {"action": "submit", "mono": 102.0},
                {"action": "keys", "keys": ["Down"], "update": {"cursor_position": 2}, "mono": 103.0},
                {"action": "keys", "keys": ["Enter"], "resolves": True, "mono": 104.0},
                {"action": "submit", "mono": 110.0},
                {"action": "keys", "keys": ["Escape"], "resolves": True, "mono": 111.0},
                {"action": "submit", "mono": 120.0},
                {"action": "exit_command", "mono": 125.0},
            ]
            for name, rows in (("model.log.jsonl", model), ("driver.jsonl", driver)):
                with open(os.path.join(d, name), "w") as f:
                    f.writelines(json.dumps(r) + "\n" for r in rows)
            got = [(r["t"], r["state"], r.get("cursor_position"), r.get("reason_code")) for r in harness.derive(d)]
            self.assertEqual(got, [
                (0.0, "unknown", None, "starting"), (0.5, "idle", None, None), (2.0, "running", None, None),
                (2.5, "waiting_approval", 1, None), (3.0, "waiting_approval", 2, None), (4.0, "running", None, None),
                (4.5, "completed", None, None), (10.0, "running", None, None), (10.5, "waiting_approval", 1, None),
                (11.0, "idle", None, "interrupted"), (20.0, "running", None, None), (20.2, "error", None, None),
                (30.0, "unknown", None, "no_agent")])


class ScreenChangeTest(unittest.TestCase):
    """driver_saw_screen records are placed at the last capture before the screen showed
    the awaited text, not at the driver's own (up to 0.1 s late) sighting."""

    def derive(self, snaps, driver):
        with tempfile.TemporaryDirectory() as d:
            sc = {"agent": "claude", "name": "x", "turns": [],
                  "recording": {"start_mono": 100.0, "snap_interval": 0.05}}
            with open(os.path.join(d, "scenario.json"), "w") as f:
                json.dump(sc, f)
            shots = [{"t": t, "lines": [""] * 3 if text is None else [text], "cursor": [0, 0]} for t, text in snaps]
            for name, rows in (("model.log.jsonl", []), ("driver.jsonl", driver), ("snapshots.jsonl", shots)):
                with open(os.path.join(d, name), "w") as f:
                    f.writelines(json.dumps(r) + "\n" for r in rows)
            return [(r["t"], r["state"], r.get("screen_t"), r.get("driver_t")) for r in harness.derive(d)][1:]

    def test_one_interval_before_the_first_snapshot_showing_it(self):
        got = self.derive([(0.1, None), (0.3, "? for shortcuts")],
                          [{"action": "ready", "mark": {"state": "idle"}, "mono": 100.5}])
        self.assertEqual(got, [(0.25, "idle", 0.3, 0.5)])

    def test_a_later_kept_snapshot_without_it_bounds_the_change(self):
        got = self.derive([(0.1, None), (0.28, "loading"), (0.3, "? for shortcuts")],
                          [{"action": "ready", "mark": {"state": "idle"}, "mono": 100.5}])
        self.assertEqual(got, [(0.28, "idle", 0.3, 0.5)])

    def test_the_driver_seeing_it_before_the_snapper(self):
        mark = {"state": "waiting_approval", "approval_type": "trust"}
        got = self.derive([(0.1, None), (0.52, "Trust this folder?")],
                          [{"action": "saw_screen", "regex": "Trust this folder\\?", "mark": mark, "mono": 100.5}])
        self.assertEqual(got, [(0.45, "waiting_approval", 0.5, 0.5)])

    def test_a_run_that_went_away_does_not_count(self):
        got = self.derive([(0.1, "? for shortcuts"), (0.2, None), (0.4, "? for shortcuts")],
                          [{"action": "ready", "mark": {"state": "idle"}, "mono": 100.5}])
        self.assertEqual(got, [(0.35, "idle", 0.4, 0.5)])


class CorpusTest(unittest.TestCase):
    def test_corpus(self):
        root = os.path.join(HERE, "..", "fixtures")
        if not any(f == "session.cast" for _, _, fs in os.walk(root) for f in fs):
            self.skipTest("no fixtures")
        r = subprocess.run([sys.executable, os.path.join(HERE, "check_corpus.py"), root], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout[-3000:])


if __name__ == "__main__":
    unittest.main()
