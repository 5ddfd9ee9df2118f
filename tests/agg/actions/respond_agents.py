#!/usr/bin/env python3
"""respond_agents.py - `agtmux respond` on the REAL agent CLIs (issue 7).

    respond_agents.py --agtmux PATH --agtmuxd PATH [-k PATTERN] [--keep]

Each test runs a real CLI under `agtmux wrap` (installed by
tests/agents/install-agents.sh) against the scripted model server of the agent lab, in
a private tmux server with agtmuxd up, waits until the pane shows the dialog and
agtmuxd reports it waiting, then answers it with `agtmux respond` instead of the
scenario's own keys, and checks what the agent did with the answer:

- claude_approval_yes: Claude Code's Bash approval, "yes" -> the command ran (its file
  exists) and the model got the tool's result.
- claude_approval_no: the same dialog, "no" -> the command did not run.
- claude_question: AskUserQuestion with three frameworks, "unittest" (option 2, so the
  cursor has to move) -> the model got "unittest" as the answer.
- codex_approval_yes: Codex's command approval, "yes" -> the command ran.

Exit status 77 when the agent CLIs are not installed. Python 3 standard library only.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "hooks_e2e"))
import hooks_e2e as e2e  # noqa: E402  (the agent lab driven step by step, with agtmuxd)

OPTS = e2e.OPTS


class RespondAgents(e2e.LabCase):
    PREFIX = "ara-"

    def open_dialog(self, agent, scenario, before=None):
        """Runs `scenario` wrapped, with agtmuxd up, until its dialog is on screen and
        agtmuxd says the pane waits. Returns (lab, ref, the steps after the scenario's
        own answer)."""
        sc = e2e.load_scenario(agent, scenario)
        sc["name"] = "respond_" + scenario
        lab = self.lab(sc, recorder="agtmux")
        lab.start(agent)
        lab.start_daemon()
        if before:
            before(lab)
        steps = [s for s in sc["steps"] if s["do"] != "exit"]
        answer = [i for i, s in enumerate(steps) if s["do"] == "keys"]
        first, last = answer[0], answer[-1]
        lab.run_steps(steps[:first])
        pane = lab.pane_id()
        window = lab.tmux.run("display-message", "-p", "-t", lab.tmux.target, "#{window_id}").stdout.strip()
        seen = []

        def waiting():
            row = lab.pane_row(pane)
            if row:
                seen.append(row.get("state"))
            return row if row and row.get("state") in ("waiting_approval", "waiting_input") else None
        e2e.poll(waiting, 30, "agtmuxd to show the pane waiting (seen %s)" % seen[-5:],
                 on_fail=lambda: lab.explain(pane))
        return lab, "pane:host/lab/%s/%s" % (window, pane), steps[last + 1:]

    def respond(self, lab, ref, *choices):
        r = subprocess.run([OPTS.agtmux, "respond", ref] + list(choices) + ["--json"], env=lab.agt_env(),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, "respond failed: %s\nscreen:\n%s" % (r.stderr, lab.screen_text()))
        out = json.loads(r.stdout)
        self.assertEqual(out["result_code"], "ok", out)
        return out["result"]

    def tool_results(self, lab):
        return [e for e in lab.model_events() if e.get("ev") == "request" and e.get("tool_result")]

    # ---------------------------------------------------------------------------------
    def test_claude_approval_yes(self):
        lab, ref, rest = self.open_dialog("claude", "shell_approved")
        result = self.respond(lab, ref, "yes")
        self.assertEqual([c["label"] for c in result["choices"]], ["Yes"], result)
        self.assertEqual(result["delivery"], "verified", result)
        lab.run_steps(rest)
        self.assertTrue(os.path.exists(os.path.join(lab.work, "build", "out", "lab.txt")),
                        "the approved command did not run; screen:\n" + lab.screen_text())
        res = self.tool_results(lab)
        self.assertTrue(res, "the model got no tool result")
        self.assertFalse(res[-1].get("tool_result_is_error"), res[-1])
        lab.step({"do": "exit"})

    def test_claude_approval_no(self):
        def keep(lab):
            os.makedirs(os.path.join(lab.work, "build"), exist_ok=True)
            with open(os.path.join(lab.work, "build", "keep.txt"), "w") as f:
                f.write("still here\n")
        lab, ref, rest = self.open_dialog("claude", "shell_denied", before=keep)
        result = self.respond(lab, ref, "no")
        self.assertEqual(result["choices"][0]["number"], 3, result)
        self.assertTrue(result["choices"][0]["label"].startswith("No"), result)
        self.assertEqual(result["keys"], ["Down", "Down", "Enter"], result)
        lab.run_steps(rest)
        self.assertTrue(os.path.exists(os.path.join(lab.work, "build", "keep.txt")),
                        "the denied command ran anyway")
        self.assertNotIn("Do you want to proceed?", lab.screen_text())
        lab.step({"do": "exit"})

    def test_claude_question(self):
        lab, ref, rest = self.open_dialog("claude", "question_single")
        result = self.respond(lab, ref, "unittest")
        self.assertEqual(result["choices"], [{"number": 2, "label": "unittest"}], result)
        self.assertEqual(result["keys"], ["Down", "Enter"], result)
        lab.run_steps(rest)
        res = self.tool_results(lab)
        self.assertTrue(res, "the model got no answer")
        answer = " ".join(res[-1].get("tool_results", []))
        self.assertIn("unittest", answer, res[-1])
        self.assertNotIn("pytest", answer.replace("Which test framework", ""), res[-1])
        lab.step({"do": "exit"})

    def test_codex_approval_yes(self):
        lab, ref, rest = self.open_dialog("codex", "shell_approved")
        result = self.respond(lab, ref, "yes")
        self.assertEqual(result["choices"][0]["number"], 1, result)
        self.assertTrue(result["choices"][0]["label"].startswith("Yes, proceed"), result)
        lab.run_steps(rest)
        self.assertTrue(os.path.exists(os.path.join(lab.work, "build", "out", "lab.txt")),
                        "the approved command did not run; screen:\n" + lab.screen_text())
        lab.step({"do": "exit"})


if __name__ == "__main__":
    e2e.run_tests(RespondAgents, __doc__, agents=("claude", "codex"))
