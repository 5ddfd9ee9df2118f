#!/usr/bin/env python3
"""gen_scenarios.py - writes the scenario JSON files of this directory.

The JSON files are what the harness reads (and what is committed); this script is only a
convenient way to keep the common parts (prompts, steps, the long answer) consistent.
Edit it and run `python3 tests/agents/scenarios/gen_scenarios.py`, or edit the JSON
directly. The expected dialog strings (details, choices) were taken from the real CLIs'
screens (see tests/fixtures/README.md).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

LONG = ("Here is a detailed walk-through of the project. " 
        "The repository contains a tiny Python module, hello.py, with a single function greet(name) that "
        "returns a greeting string, and a README that describes the purpose of the lab project. "
        "When the module is run as a script it prints the greeting for the name lab. "
        "There are no dependencies beyond the Python standard library, no tests yet, and no packaging metadata. "
        "A sensible next step would be to add a small test that checks the greeting, then a pyproject.toml "
        "so that the module can be installed, and finally a continuous-integration job that runs the test "
        "on every push. Each of these steps is small and independent, so they can be reviewed separately. "
        "That is all there is to it: a minimal, well-understood starting point for further work.")


def saver(agent, mode=None):
    """save(scenario) writes scenarios/<agent>/[<mode>/]<name>.json; a mode's
    scenarios carry "mode"."""
    D = os.path.join(HERE, agent, mode) if mode else os.path.join(HERE, agent)
    os.makedirs(D, exist_ok=True)

    def save(sc):
        if mode:
            sc = dict(sc, mode=mode)
        with open(os.path.join(D, sc["name"] + ".json"), "w") as f:
            json.dump(sc, f, indent=1, ensure_ascii=False); f.write("\n")
    return save


def gen_claude():
    W = "/tmp/agtmux-lab/claude-%s/work"
    def ready(): return [{"do": "wait_ready"}, {"do": "sleep", "s": 1.0}]
    def end(turn, extra=3.0): return [{"do": "wait_turn_end", "turn": turn}, {"do": "sleep", "s": extra}, {"do": "exit"}]
    def dialog(turn, item, regex, dwell=2.0):
        return [{"do": "wait_response", "turn": turn, "item": item}, {"do": "wait_screen", "regex": regex}, {"do": "sleep", "s": dwell}]
    base_save = saver("claude")
    # expect_since "2.1.250" below: what 2.1.250 and 2.1.330 on show.
    # 2.0.76 draws these dialogs differently: a free-text third option instead of "No",
    # "don't ask again for <command> commands in <cwd>" for every command, no "Chat about
    # this". Its strings are the base (releases before 2.1.85); what 2.1.85 and 2.1.197
    # show moves to expect_since "2.1.85", so every release from 2.1.85 on keeps its own.
    TYPE_HERE = "Type here to tell Claude what to do differently"
    BEFORE_2185 = {
        ("shell_approved", 0): ["Yes", "Yes, and don't ask again for mkdir -p build/out and touch build/out/lab.txt commands in " + W % "shell_approved", TYPE_HERE],
        ("shell_denied", 0): ["Yes", "Yes, and don't ask again for rm -rf build commands in " + W % "shell_denied", TYPE_HERE],
        ("long_tool_run", 0): ["Yes", "Yes, and don't ask again for touch build.stamp commands in " + W % "long_tool_run", TYPE_HERE],
        ("file_edit", 1): ["Yes", "Yes, allow all edits during this session (shift+tab)", TYPE_HERE],
        ("file_edit", 2): ["Yes", "Yes, allow all edits during this session (shift+tab)", TYPE_HERE],
        ("question_single", 0): ["pytest", "unittest", "doctest", "Type something."],
    }

    # 2.0.60 (recorded to write rules from, 2026-11-29) offers "similar commands"
    # for a compound command; 2.0.76 names each one (BEFORE_2185).
    BEFORE_2076 = {
        ("shell_approved", 0): ["Yes", "Yes, and don't ask again for similar commands in " + W % "shell_approved", TYPE_HERE],
    }

    def save(sc):
        for (name, i), choices in BEFORE_2185.items():
            if sc["name"] == name:
                item = sc["turns"][0][i]
                item["expect_since"] = dict({"2.1.85": {"choices": item["expect"]["choices"]}}, **item.get("expect_since", {}))
                item["expect"]["choices"] = choices
        for (name, i), choices in BEFORE_2076.items():
            if sc["name"] == name:
                item = sc["turns"][0][i]
                item["expect_since"] = dict({"2.0.76": {"choices": item["expect"]["choices"]}}, **item.get("expect_since", {}))
                item["expect"]["choices"] = choices
        base_save(sc)


    save({"agent": "claude", "name": "long_answer",
          "description": "A long answer streamed slowly (about 12 s of text deltas); the turn completes; /exit.",
          "turns": [[{"text": LONG, "chunk": 8, "delay": 0.12, "first_delay": 1.0}]],
          "steps": ready() + [{"do": "prompt", "text": "explain this project in detail"}] + end(0)})

    save({"agent": "claude", "name": "shell_approved",
          "description": "The model runs a shell command (Bash tool); the permission dialog shows; the user approves with Enter; the command runs; the model answers; the turn completes; /exit.",
          "turns": [[
              {"text": "I'll create the output directory.",
               "tool": {"name": "Bash", "input": {"command": "mkdir -p build/out && touch build/out/lab.txt", "description": "Create the build output directory"}},
               "expect": {"state": "waiting_approval", "approval_type": "shell", "details": "Do you want to proceed?", "subject": "mkdir -p build/out && touch build/out/lab.txt",
                          "choices": ["Yes", "Yes, and don't ask again for mkdir -p build/out and touch build/out/lab.txt commands in " + W % "shell_approved", "No"],
                          "multi_select": False, "cursor_position": 1}},
              {"text": "Created `build/out/lab.txt`. The output directory is ready.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "create the build output directory"}]
                   + dialog(0, 0, r"Do you want to proceed\?") + [{"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})

    save({"agent": "claude", "name": "shell_denied",
          "description": "The model runs a shell command; the permission dialog shows; the user denies with Esc; Claude Code interrupts the turn (no follow-up request); /exit.",
          "turns": [[
              {"text": "I'll remove the build directory.",
               "tool": {"name": "Bash", "input": {"command": "rm -rf build", "description": "Remove the build directory"}},
               "expect": {"state": "waiting_approval", "approval_type": "shell", "details": "Do you want to proceed?", "subject": "rm -rf build",
                          "choices": ["Yes", "Yes, and always allow access to work/ from this project", "No"], "multi_select": False, "cursor_position": 1},
               "expect_since": {"2.1.250": {"choices": ["Yes", "Yes, and always allow access to %s from this project" % (W % "shell_denied"), "No"]}}},
              {"text": "OK, I will not remove it."}]],
          "steps": ready() + [{"do": "prompt", "text": "clean the build directory"}]
                   + dialog(0, 0, r"Do you want to proceed\?") + [{"do": "keys", "keys": ["Escape"], "resolves": True},
                                                                  {"do": "sleep", "s": 3.0}, {"do": "exit"}]})

    save({"agent": "claude", "name": "file_edit",
          "description": "The model reads hello.py (allowed without asking), edits it (edit dialog, approved with Enter), creates NOTES.md (create dialog, approved with Enter), answers; the turn completes; /exit.",
          "turns": [[
              {"text": "Let me look at the file first.", "tool": {"name": "Read", "input": {"file_path": W % "file_edit" + "/hello.py"}}},
              {"text": "I'll make the greeting friendlier.",
               "tool": {"name": "Edit", "input": {"file_path": W % "file_edit" + "/hello.py", "old_string": "return 'Hello, ' + name", "new_string": "return 'Hello there, ' + name + '!'"}},
               "expect": {"state": "waiting_approval", "approval_type": "file_edit", "details": "Do you want to make this edit to hello.py?", "subject": "hello.py",
                          "choices": ["Yes", "Yes, allow all edits during this session (shift+tab)", "No"], "multi_select": False, "cursor_position": 1},
               "expect_since": {"2.1.250": {"choices": ["Yes", "Yes, and switch to accept edits (auto-approve file edits and common file commands) for this session (shift+tab)", "No"]}}},
              {"text": "Now the notes file.",
               "tool": {"name": "Write", "input": {"file_path": W % "file_edit" + "/NOTES.md", "content": "# Notes\n\nThe greeting is now friendlier.\n"}},
               "expect": {"state": "waiting_approval", "approval_type": "file_edit", "details": "Do you want to create NOTES.md?", "subject": "NOTES.md",
                          "choices": ["Yes", "Yes, allow all edits during this session (shift+tab)", "No"], "multi_select": False, "cursor_position": 1},
               "expect_since": {"2.1.250": {"choices": ["Yes", "Yes, and switch to accept edits (auto-approve file edits and common file commands) for this session (shift+tab)", "No"]}}},
              {"text": "Done: `hello.py` now says *Hello there* and `NOTES.md` records the change.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "make the greeting friendlier and write a note"}]
                   + dialog(0, 1, r"Do you want to make this edit to hello\.py\?") + [{"do": "keys", "keys": ["Enter"], "resolves": True}]
                   + dialog(0, 2, r"Do you want to create NOTES\.md\?") + [{"do": "keys", "keys": ["Enter"], "resolves": True}]
                   + end(0)})

    Q1 = {"question": "Which test framework should I use?", "header": "Tests",
          "options": [{"label": "pytest", "description": "The de-facto standard, plain asserts"},
                      {"label": "unittest", "description": "In the standard library"},
                      {"label": "doctest", "description": "Examples in docstrings"}], "multiSelect": False}
    save({"agent": "claude", "name": "question_single",
          "description": "AskUserQuestion with one single-select question: the question dialog shows; the user moves down once and selects with Enter; the model answers; the turn completes; /exit.",
          "turns": [[
              {"tool": {"name": "AskUserQuestion", "input": {"questions": [Q1]}},
               "expect": {"state": "waiting_input", "approval_type": "user_question", "details": Q1["question"],
                          "choices": ["pytest", "unittest", "doctest", "Type something.", "Chat about this"], "multi_select": False, "cursor_position": 1}},
              {"text": "Great, I'll set up the tests with that framework.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "add tests, ask me which framework"}]
                   + dialog(0, 0, r"Which test framework should I use\?")
                   + [{"do": "keys", "keys": ["Down"], "update": {"cursor_position": 2}}, {"do": "sleep", "s": 1.0},
                      {"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})

    Q2 = {"question": "Which checks should the CI job run?", "header": "CI checks",
          "options": [{"label": "Unit tests", "description": "Run the test suite"},
                      {"label": "Lint", "description": "Run the linter"},
                      {"label": "Type check", "description": "Run the type checker"}], "multiSelect": True}
    MCH = ["Unit tests", "Lint", "Type check", "Type something", "Chat about this"]
    save({"agent": "claude", "name": "question_multi",
          "description": "AskUserQuestion with one multi-select question: the user toggles 'Unit tests' (Space), moves down, toggles 'Lint' (Space), presses Right to reach the Submit tab ('Review your answers'), and submits with Enter; the model answers; the turn completes; /exit.",
          "turns": [[
              {"tool": {"name": "AskUserQuestion", "input": {"questions": [Q2]}},
               "expect": {"state": "waiting_input", "approval_type": "user_question", "details": Q2["question"],
                          "choices": MCH, "multi_select": True, "cursor_position": 1, "selected": []}},
              {"text": "Great, the CI job will run those checks.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "set up CI, ask me which checks"}]
                   + dialog(0, 0, r"Which checks should the CI job run\?")
                   + [{"do": "keys", "keys": ["Space"], "update": {"selected": ["Unit tests"]}}, {"do": "sleep", "s": 1.0},
                      {"do": "keys", "keys": ["Down"], "update": {"cursor_position": 2}}, {"do": "sleep", "s": 1.0},
                      {"do": "keys", "keys": ["Space"], "update": {"selected": ["Unit tests", "Lint"]}}, {"do": "sleep", "s": 1.0},
                      {"do": "keys", "keys": ["Right"], "update": {"details": "Review your answers", "choices": ["Submit answers", "Cancel"],
                                                                  "multi_select": False, "cursor_position": 1, "selected": None}},
                      {"do": "wait_screen", "regex": "Review your answers", "timeout": 5}, {"do": "sleep", "s": 1.5},
                      {"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})

    save({"agent": "claude", "name": "api_error",
          "description": "The model server answers HTTP 400 (invalid_request_error) to every request of the turn (2.1.197 does not retry it, 2.1.330 tries it again at once, up to three times, the last time with another tool list): the turn ends with an API error; /exit.",
          "turns": [[{"error": {"status": 400, "repeat": 8, "message": "lab: the request was rejected (scripted 400)"}}]],
          "steps": ready() + [{"do": "prompt", "text": "summarize the readme"}] + end(0)})

    save({"agent": "claude", "name": "api_overloaded_retry",
          "description": "HTTP 529 overloaded: Claude Code retries (CLAUDE_CODE_MAX_RETRIES=2, visible), gets 529 again three times and gives up: the turn ends with an API error; /exit.",
          "env": {"CLAUDE_CODE_MAX_RETRIES": "2"},
          "turns": [[{"error": {"status": 529, "repeat": 3, "message": "Overloaded"}}]],
          "steps": ready() + [{"do": "prompt", "text": "summarize the readme"}] + end(0, 3.0)})

    save({"agent": "claude", "name": "turns_completed",
          "description": "Two quick turns that complete (text answers), with an idle pause between; /exit.",
          "turns": [[{"text": "The README describes a tiny lab project with one module, hello.py.", "chunk": 8, "delay": 0.05}],
                    [{"text": "hello.py defines greet(name), which returns 'Hello, ' + name.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "what is in the readme?"}, {"do": "wait_turn_end", "turn": 0}, {"do": "sleep", "s": 4.0},
                              {"do": "prompt", "text": "and what does hello.py do?"}] + end(1)})

    save({"agent": "claude", "name": "exit_ctrl_d",
          "description": "Startup to the idle prompt, then Ctrl-D twice: Claude Code exits back to the shell.",
          "turns": [],
          "steps": ready() + [{"do": "sleep", "s": 2.0}, {"do": "exit", "method": "ctrl_d", "times": 2, "gap": 0.5}]})

    save({"agent": "claude", "name": "trust_dialog",
          "description": "Startup in a folder that is not trusted yet: the trust dialog shows; the user accepts with Enter; the idle prompt appears; /exit.",
          "trust_dialog": True,
          "turns": [],
          "steps": [{"do": "wait_screen", "regex": "Yes, I trust this folder", "timeout": 20,
                     "mark": {"state": "waiting_approval", "approval_type": "trust",
                              "details": "Is this a project you created or one you trust?", "choices": ["Yes, I trust this folder", "No, exit"], "multi_select": False, "cursor_position": 1},
                     # 2.1.330 lists "No, exit" first, without numbers, the cursor on it
                     "mark_since": {"2.1.330": {"choices": ["No, exit", "Yes, I trust this folder"]}}},
                    {"do": "sleep", "s": 2.0},
                    {"do": "choose", "option": "Yes, I trust this folder", "mark": {"state": "idle"}},
                    {"do": "wait_ready", "mark": None}, {"do": "sleep", "s": 2.0}, {"do": "exit"}]})

    save({"agent": "claude", "name": "long_tool_run",
          "description": "An approved shell command that runs silently for 6 s (sleep): the agent is running while nothing is printed; then the model answers; the turn completes; /exit.",
          "turns": [[
              {"text": "I'll run the slow build step.",
               "tool": {"name": "Bash", "input": {"command": "sleep 6 && touch build.stamp", "description": "Run the slow build step"}},
               "expect": {"state": "waiting_approval", "approval_type": "shell", "details": "Do you want to proceed?", "subject": "sleep 6 && touch build.stamp",
                          "choices": ["Yes", "Yes, and always allow access to work/ from this project", "No"],
                          "multi_select": False, "cursor_position": 1},
               "expect_since": {"2.1.250": {"choices": ["Yes", "Yes, and always allow access to %s from this project" % (W % "long_tool_run"), "No"]}}},
              {"text": "The build step finished and wrote `build.stamp`.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "run the slow build step"}]
                   + dialog(0, 0, r"Do you want to proceed\?") + [{"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})

    save({"agent": "claude", "name": "interrupt_running",
          "description": "A long answer is streaming; after about 4 s the user presses Esc: Claude Code aborts the request (the server sees the client disconnect) and returns to the prompt; /exit.",
          "turns": [[{"text": LONG, "chunk": 8, "delay": 0.12, "first_delay": 1.0}]],
          "steps": ready() + [{"do": "prompt", "text": "explain this project in detail"}, {"do": "sleep", "s": 4.0},
                              {"do": "keys", "keys": ["Escape"], "interrupts": True}, {"do": "sleep", "s": 3.0}, {"do": "exit"}]})

    save({"agent": "claude", "name": "shell_approved_notif",
          "description": "Like shell_approved, with preferredNotifChannel = iterm2 in ~/.claude.json so that Claude Code writes its desktop notifications as OSC 9 into the PTY.",
          "claude_json": {"preferredNotifChannel": "iterm2"},
          "turns": [[
              {"text": "I'll create the output directory.",
               "tool": {"name": "Bash", "input": {"command": "mkdir -p build/out && touch build/out/lab.txt", "description": "Create the build output directory"}},
               "expect": {"state": "waiting_approval", "approval_type": "shell", "details": "Do you want to proceed?", "subject": "mkdir -p build/out && touch build/out/lab.txt",
                          "choices": ["Yes", "Yes, and don't ask again for mkdir -p build/out and touch build/out/lab.txt commands in " + W % "shell_approved_notif", "No"],
                          "multi_select": False, "cursor_position": 1}},
              {"text": "Created `build/out/lab.txt`. The output directory is ready.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "create the build output directory"}]
                   + dialog(0, 0, r"Do you want to proceed\?", dwell=8.0) + [{"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0, 5.0)})


def gen_codex():
    W = "/tmp/agtmux-lab/codex-%s/work"
    def ready(): return [{"do": "wait_ready"}, {"do": "sleep", "s": 1.0}]
    def end(turn, extra=3.0): return [{"do": "wait_turn_end", "turn": turn}, {"do": "sleep", "s": extra}, {"do": "exit"}]
    def dialog(turn, item, regex, dwell=2.0):
        return [{"do": "wait_response", "turn": turn, "item": item}, {"do": "wait_screen", "regex": regex}, {"do": "sleep", "s": dwell}]
    save = saver("codex")
    def choices_shell(prefix):
        return ["Yes, proceed", "Yes, and don't ask again for commands that start with `%s`" % prefix, "No, and tell Codex what to do differently"]

    save({"agent": "codex", "name": "long_answer",
          "description": "A long answer streamed slowly (about 12 s of text deltas); the turn completes; /quit.",
          "turns": [[{"text": LONG, "chunk": 8, "delay": 0.12, "first_delay": 1.0}]],
          "steps": ready() + [{"do": "prompt", "text": "explain this project in detail"}] + end(0)})

    def shell_item(cmd, just, prefix):
        return {"tool": {"name": "exec_command", "input": {"cmd": cmd, "sandbox_permissions": "require_escalated", "justification": just}},
                "expect": {"state": "waiting_approval", "approval_type": "shell", "details": "Would you like to run the following command?",
                           "subject": cmd, "reason": just, "choices": choices_shell(prefix), "multi_select": False, "cursor_position": 1}}

    save({"agent": "codex", "name": "shell_approved",
          "description": "exec_command asking for require_escalated + justification: the approval dialog shows; the user approves with y; the command runs; the model answers; the turn completes; /quit.",
          "turns": [[shell_item("mkdir -p build/out && touch build/out/lab.txt", "Create the build output directory outside the sandbox?", "mkdir -p build/out"),
                     {"text": "Created `build/out/lab.txt`. The output directory is ready.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "create the build output directory"}]
                   + dialog(0, 0, r"Would you like to run the following command\?") + [{"do": "keys", "keys": ["y"], "resolves": True}] + end(0)})

    save({"agent": "codex", "name": "shell_denied",
          "description": "exec_command asking for require_escalated: the approval dialog shows; the user denies with Esc; /quit.",
          "turns": [[shell_item("rm -rf build", "Remove the build directory?", "rm -rf build"),
                     {"text": "OK, I will leave the build directory alone.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "clean the build directory"}]
                   + dialog(0, 0, r"Would you like to run the following command\?") + [{"do": "keys", "keys": ["Escape"], "resolves": True},
                                                                                      {"do": "sleep", "s": 3.0}, {"do": "exit"}]})

    PATCH = "*** Begin Patch\n*** Update File: hello.py\n@@\n def greet(name):\n-    return 'Hello, ' + name\n+    return 'Hello there, ' + name + '!'\n*** End Patch\n"
    save({"agent": "codex", "name": "file_edit",
          "description": "A file edit: the model calls exec_command with an apply_patch heredoc (this model/provider gets no apply_patch tool; Codex intercepts the apply_patch invocation); the sandbox is read-only so the edit dialog shows; the user approves with y; the model answers; the turn completes; /quit.",
          "turns": [[{"tool": {"name": "exec_command", "input": {"cmd": "apply_patch <<'EOF'\n" + PATCH + "EOF\n", "workdir": W % "file_edit"}},
                      "expect": {"state": "waiting_approval", "approval_type": "file_edit", "details": "Would you like to make the following edits?", "subject": W % "file_edit" + "/hello.py",
                                 "choices": ["Yes, proceed", "Yes, and don't ask again for these files", "No, and tell Codex what to do differently"], "multi_select": False, "cursor_position": 1}},
                     {"text": "Updated `hello.py`: the greeting is friendlier now.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "make the greeting friendlier"}]
                   + dialog(0, 0, r"Would you like to (make|apply)") + [{"do": "keys", "keys": ["y"], "resolves": True}] + end(0)})

    Q = {"id": "test_framework", "header": "Tests", "question": "Which test framework should I use?",
         "options": [{"label": "pytest (Recommended)", "description": "The de-facto standard, plain asserts"},
                     {"label": "unittest", "description": "In the standard library"},
                     {"label": "doctest", "description": "Examples in docstrings"}]}
    save({"agent": "codex", "name": "question",
          "description": "request_user_input (needs [features] default_mode_request_user_input = true): the question shows; the user moves down once and submits with Enter; the model answers; the turn completes; /quit.",
          "codex_config": "[features]\ndefault_mode_request_user_input = true\n",
          "turns": [[{"tool": {"name": "request_user_input", "input": {"questions": [Q]}},
                      "expect": {"state": "waiting_input", "approval_type": "user_question", "details": Q["question"],
                                 "choices": ["pytest (Recommended)", "unittest", "doctest", "None of the above"], "multi_select": False, "cursor_position": 1}},
                     {"text": "Great, I'll set up the tests with that framework.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "add tests, ask me which framework"}]
                   + dialog(0, 0, r"Which test framework") + [{"do": "keys", "keys": ["Down"], "update": {"cursor_position": 2}}, {"do": "sleep", "s": 1.0},
                                                             {"do": "keys", "keys": ["Enter"], "resolves": True}, {"do": "sleep", "s": 1.5}] + end(0)})

    save({"agent": "codex", "name": "api_error",
          "description": "The model server answers HTTP 400; request_max_retries = 0: the turn ends with an error; /quit.",
          "turns": [[{"error": {"status": 400, "message": "lab: the request was rejected (scripted 400)"}}]],
          "steps": ready() + [{"do": "prompt", "text": "summarize the readme"}] + end(0)})

    save({"agent": "codex", "name": "api_error_retry",
          "description": "HTTP 500 with request_max_retries = 2 and stream_max_retries = 2: Codex retries (3 requests per attempt, then \"Reconnecting... n/2\"), gets 500 every time and gives up: the turn ends with an error; /quit.",
          "retries": 2,
          "turns": [[{"error": {"status": 500, "repeat": 20, "message": "lab: internal error (scripted 500)"}}]],
          "steps": ready() + [{"do": "prompt", "text": "summarize the readme"}, {"do": "wait_turn_end", "turn": 0, "quiet": 8.0, "timeout": 120}, {"do": "sleep", "s": 3.0}, {"do": "exit"}]})

    save({"agent": "codex", "name": "turns_completed",
          "description": "Two quick turns that complete (text answers), with an idle pause between; /quit.",
          "turns": [[{"text": "The README describes a tiny lab project with one module, hello.py.", "chunk": 8, "delay": 0.05}],
                    [{"text": "hello.py defines greet(name), which returns 'Hello, ' + name.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "what is in the readme?"}, {"do": "wait_turn_end", "turn": 0}, {"do": "sleep", "s": 4.0},
                              {"do": "prompt", "text": "and what does hello.py do?"}] + end(1)})

    save({"agent": "codex", "name": "exit_ctrl_c",
          "description": "Startup to the idle prompt, then Ctrl-C twice: Codex exits back to the shell.",
          "turns": [],
          "steps": ready() + [{"do": "sleep", "s": 2.0}, {"do": "exit", "method": "ctrl_c", "times": 2, "gap": 0.5}]})

    save({"agent": "codex", "name": "trust_dialog",
          "description": "Startup in a folder that is not trusted yet (no [projects] trust_level): the 'Folder access' trust dialog shows; the user accepts with Enter; the idle prompt appears; /quit.",
          "trust_dialog": True,
          "turns": [],
          "steps": [{"do": "wait_screen", "regex": "Trust this folder\\?", "timeout": 20,
                     "mark": {"state": "waiting_approval", "approval_type": "trust", "details": "Trust this folder?",
                              "choices": ["Trust and continue", "Back to Agent Command Center"], "multi_select": False, "cursor_position": 1}},
                    {"do": "sleep", "s": 2.0},
                    {"do": "keys", "keys": ["Enter"], "mark": {"state": "idle"}},
                    {"do": "wait_ready", "mark": None}, {"do": "sleep", "s": 2.0}, {"do": "exit"}]})

    save({"agent": "codex", "name": "long_tool_run",
          "description": "An approved command (require_escalated) that runs silently for 6 s (sleep): the agent is running while nothing is printed; then the model answers; the turn completes; /quit.",
          "turns": [[shell_item("sleep 6 && touch build.stamp", "Run the slow build step outside the sandbox?", "sleep 6"),
                     {"text": "The build step finished and wrote `build.stamp`.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "run the slow build step"}]
                   + dialog(0, 0, r"Would you like to run the following command\?") + [{"do": "keys", "keys": ["y"], "resolves": True}] + end(0)})

    save({"agent": "codex", "name": "interrupt_running",
          "description": "A long answer is streaming; after about 4 s the user presses Esc: Codex interrupts the turn and returns to the prompt; /quit.",
          "turns": [[{"text": LONG, "chunk": 8, "delay": 0.12, "first_delay": 1.0}]],
          "steps": ready() + [{"do": "prompt", "text": "explain this project in detail"}, {"do": "sleep", "s": 4.0},
                              {"do": "keys", "keys": ["Escape"], "interrupts": True}, {"do": "sleep", "s": 3.0}, {"do": "exit"}]})

    save({"agent": "codex", "name": "shell_approved_osc9",
          "description": "Like shell_approved, with [tui] notifications = [\"agent-turn-complete\", \"approval-requested\"] and notification_method = \"osc9\", so that Codex writes OSC 9 notifications into the PTY.",
          "codex_config": "[tui]\nnotifications = [\"agent-turn-complete\", \"approval-requested\"]\nnotification_method = \"osc9\"\n",
          "turns": [[shell_item("mkdir -p build/out && touch build/out/lab.txt", "Create the build output directory outside the sandbox?", "mkdir -p build/out"),
                     {"text": "Created `build/out/lab.txt`. The output directory is ready.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "create the build output directory"}]
                   + dialog(0, 0, r"Would you like to run the following command\?") + [{"do": "keys", "keys": ["y"], "resolves": True}] + end(0)})


def gen_gemini():
    W = "/tmp/agtmux-lab/gemini-%s/work"
    def ready(): return [{"do": "wait_ready"}, {"do": "sleep", "s": 1.5}]
    def end(turn, extra=3.0): return [{"do": "wait_turn_end", "turn": turn}, {"do": "sleep", "s": extra}, {"do": "exit"}]
    def dialog(turn, item, regex, dwell=2.0):
        return [{"do": "wait_response", "turn": turn, "item": item}, {"do": "wait_screen", "regex": regex}, {"do": "sleep", "s": dwell}]
    save = saver("gemini")
    SHELL_CH = ["Allow once", "Allow for this session", "No, suggest changes (esc)"]
    EDIT_CH = ["Allow once", "Allow for this session", "Modify with external editor", "No, suggest changes (esc)"]

    save({"agent": "gemini", "name": "long_answer",
          "description": "A long answer streamed slowly (about 12 s of text chunks); the turn completes; /quit.",
          "turns": [[{"text": LONG, "chunk": 8, "delay": 0.12, "first_delay": 1.0}]],
          "steps": ready() + [{"do": "prompt", "text": "explain this project in detail"}] + end(0)})

    def shell_item(cmd, desc):
        # The question line names the command differently per release: 0.28.2 and 0.30.1
        # every root command ("Allow execution of: 'mkdir, touch'?"), 0.40.1 the first
        # word in brackets ("Allow execution of [mkdir]?"), 0.51.0 and 0.61.0 the tool.
        roots = ", ".join(dict.fromkeys(part.split()[0] for part in cmd.split("&&")))
        return {"tool": {"name": "run_shell_command", "input": {"command": cmd, "description": desc}},
                "expect": {"state": "waiting_approval", "approval_type": "shell", "details": "Allow execution of: '%s'?" % roots,
                           "subject": cmd, "choices": SHELL_CH, "multi_select": False, "cursor_position": 1},
                "expect_since": {"0.40.1": {"details": "Allow execution of [%s]?" % cmd.split()[0]},
                                 "0.51.0": {"details": "Allow execution of [Shell]?"}}}

    save({"agent": "gemini", "name": "shell_approved",
          "description": "run_shell_command: the confirmation shows; the user approves with Enter; the command runs; the model answers; the turn completes; /quit.",
          "turns": [[shell_item("mkdir -p build/out && touch build/out/lab.txt", "Create the build output directory."),
                     {"text": "Created `build/out/lab.txt`. The output directory is ready.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "create the build output directory"}]
                   + dialog(0, 0, r"Allow execution") + [{"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})

    save({"agent": "gemini", "name": "shell_denied",
          "description": "run_shell_command: the confirmation shows; the user denies with Esc; /quit.",
          "turns": [[shell_item("rm -rf build", "Remove the build directory."),
                     {"text": "OK, I will leave the build directory alone.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "clean the build directory"}]
                   + dialog(0, 0, r"Allow execution") + [{"do": "keys", "keys": ["Escape"], "resolves": True},
                                                        {"do": "sleep", "s": 3.0}, {"do": "exit"}]})

    save({"agent": "gemini", "name": "file_edit",
          "description": "The model edits hello.py (replace: 'Apply this change?', approved with Enter), then creates NOTES.md (write_file: 'Apply this change?', approved with Enter), answers; the turn completes; /quit.",
          "turns": [[{"tool": {"name": "replace", "input": {"file_path": W % "file_edit" + "/hello.py", "instruction": "Make the greeting friendlier.",
                                                              "old_string": "    return 'Hello, ' + name", "new_string": "    return 'Hello there, ' + name + '!'"}},
                      "expect": {"state": "waiting_approval", "approval_type": "file_edit", "details": "Apply this change?", "subject": "hello.py",
                                 "choices": EDIT_CH, "multi_select": False, "cursor_position": 1}},
                     {"tool": {"name": "write_file", "input": {"file_path": W % "file_edit" + "/NOTES.md", "content": "# Notes\n\nThe greeting is now friendlier.\n"}},
                      "expect": {"state": "waiting_approval", "approval_type": "file_edit", "details": "Apply this change?", "subject": "NOTES.md",
                                 "choices": EDIT_CH, "multi_select": False, "cursor_position": 1}},
                     {"text": "Done: `hello.py` now says *Hello there* and `NOTES.md` records the change.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "make the greeting friendlier and write a note"}]
                   + dialog(0, 0, r"Apply this change|Allow") + [{"do": "keys", "keys": ["Enter"], "resolves": True}]
                   + dialog(0, 1, r"Apply this change|Allow") + [{"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})

    Q = {"question": "Which test framework should I use?", "header": "Tests", "type": "choice",
         "options": [{"label": "pytest", "description": "The de-facto standard, plain asserts"},
                     {"label": "unittest", "description": "In the standard library"},
                     {"label": "doctest", "description": "Examples in docstrings"}], "multiSelect": False}
    save({"agent": "gemini", "name": "question",
          "description": "ask_user with one single-choice question: the 'Answer Questions' box shows; the user moves down once and selects with Enter (which submits); the model answers; the turn completes; /quit.",
          "turns": [[{"tool": {"name": "ask_user", "input": {"questions": [Q]}},
                      "expect": {"state": "waiting_input", "approval_type": "user_question", "details": Q["question"],
                                 "choices": ["pytest", "unittest"], "multi_select": False, "cursor_position": 1,
                                 "note": "the list scrolls (▲/▼ markers); only these two options are visible"},
                      # 0.28.2 and 0.30.1 (a taller banner) draw two options, 0.40.1 on three
                      "expect_since": {"0.40.1": {"choices": ["pytest", "unittest", "doctest"],
                                                  "note": "the list scrolls (▲/▼ markers); only these three options are visible"}}},
                     {"text": "Great, I'll set up the tests with that framework.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "add tests, ask me which framework"}]
                   + dialog(0, 0, r"Which test framework") + [{"do": "keys", "keys": ["Down"], "update": {"cursor_position": 2}}, {"do": "sleep", "s": 1.0},
                                                             {"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})

    save({"agent": "gemini", "name": "api_error",
          "description": "The model server answers HTTP 400 (INVALID_ARGUMENT), which Gemini CLI does not retry: the turn ends with an error; /quit.",
          "turns": [[{"error": {"status": 400, "message": "lab: the request was rejected (scripted 400)"}}]],
          "steps": ready() + [{"do": "prompt", "text": "summarize the readme"}] + end(0)})

    save({"agent": "gemini", "name": "turns_completed",
          "description": "Two quick turns that complete (text answers), with an idle pause between; /quit.",
          "turns": [[{"text": "The README describes a tiny lab project with one module, hello.py.", "chunk": 8, "delay": 0.05}],
                    [{"text": "hello.py defines greet(name), which returns 'Hello, ' + name.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "what is in the readme?"}, {"do": "wait_turn_end", "turn": 0}, {"do": "sleep", "s": 4.0},
                              {"do": "prompt", "text": "and what does hello.py do?"}] + end(1)})

    save({"agent": "gemini", "name": "exit_ctrl_c",
          "description": "Startup to the idle prompt, then Ctrl-C twice: Gemini CLI exits back to the shell.",
          "turns": [],
          "steps": ready() + [{"do": "sleep", "s": 2.0}, {"do": "exit", "method": "ctrl_c", "times": 2, "gap": 0.5}]})

    save({"agent": "gemini", "name": "trust_dialog",
          "description": "Startup with folder trust enabled: the 'Do you trust the files in this folder?' dialog shows; the user accepts with Enter; Gemini CLI restarts itself ('Gemini CLI is restarting to apply the trust changes...'), the idle prompt appears; /quit.",
          "trust_dialog": True,
          "turns": [],
          "steps": [{"do": "wait_screen", "regex": "Do you trust the files in this folder\\?", "timeout": 25,
                     "mark": {"state": "waiting_approval", "approval_type": "trust", "details": "Do you trust the files in this folder?",
                              "choices": ["Trust folder (work)", "Trust parent folder (gemini-trust_dialog)", "Don't trust"], "multi_select": False, "cursor_position": 1}},
                    {"do": "sleep", "s": 2.0},
                    {"do": "keys", "keys": ["Enter"], "mark": {"state": "unknown", "reason_code": "starting", "note": "Gemini CLI restarts itself to apply the trust change"}},
                    {"do": "wait_screen", "regex": "restarting to apply the trust changes", "timeout": 10},
                    {"do": "wait_ready"}, {"do": "sleep", "s": 2.0}, {"do": "exit"}]})

    save({"agent": "gemini", "name": "long_tool_run",
          "description": "An approved run_shell_command that runs silently for 6 s (sleep): the agent is running while nothing is printed; then the model answers; the turn completes; /quit.",
          "turns": [[shell_item("sleep 6 && touch build.stamp", "Run the slow build step."),
                     {"text": "The build step finished and wrote `build.stamp`.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "run the slow build step"}]
                   + dialog(0, 0, r"Allow execution") + [{"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})

    save({"agent": "gemini", "name": "interrupt_running",
          "description": "A long answer is streaming; after about 4 s the user presses Esc: Gemini CLI cancels the request and returns to the prompt; /quit.",
          "turns": [[{"text": LONG, "chunk": 8, "delay": 0.12, "first_delay": 1.0}]],
          "steps": ready() + [{"do": "prompt", "text": "explain this project in detail"}, {"do": "sleep", "s": 4.0},
                              {"do": "keys", "keys": ["Escape"], "interrupts": True}, {"do": "sleep", "s": 3.0}, {"do": "exit"}]})

    QM = {"question": "Which checks should the CI job run?", "header": "CI checks", "type": "choice",
          "options": [{"label": "Unit tests", "description": "Run the test suite"},
                      {"label": "Lint", "description": "Run the linter"},
                      {"label": "Type check", "description": "Run the type checker"}], "multiSelect": True}
    MCH4 = ["Unit tests", "Lint", "Type check", "All of the above"]
    save({"agent": "gemini", "name": "question_multi",
          "description": "ask_user with one multi-select question: Enter toggles the option under the cursor (a printable key would go into the free-text option), so the user presses Enter on 'Unit tests', Down, Enter on 'Lint', Down x4 to 'Done' and Enter; the model answers; the turn completes; /quit.",
          "turns": [[{"tool": {"name": "ask_user", "input": {"questions": [QM]}},
                      "expect": {"state": "waiting_input", "approval_type": "user_question", "details": QM["question"],
                                 "choices": ["Unit tests", "Lint", "Type check"], "multi_select": True,
                                 "cursor_position": 1, "selected": [],
                                 "note": "the list scrolls, three options at a time (▲/▼): choices are the numbered rows drawn so far; option 4 'All of the above' and the free-text option 5 'Enter a custom value' are added by Gemini CLI; the unnumbered 'Done' row is no option (cursor 0)"}},
                     {"text": "Great, the CI job will run those checks.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "set up CI, ask me which checks"}]
                   + dialog(0, 0, r"Which checks should the CI job run")
                   + [{"do": "keys", "keys": ["Enter"], "update": {"selected": ["Unit tests"]}}, {"do": "sleep", "s": 1.0},
                      {"do": "keys", "keys": ["Down"], "update": {"cursor_position": 2}}, {"do": "sleep", "s": 1.0},
                      {"do": "keys", "keys": ["Enter"], "update": {"selected": ["Unit tests", "Lint"]}}, {"do": "sleep", "s": 1.0},
                      {"do": "keys", "keys": ["Down"], "update": {"cursor_position": 3}}, {"do": "sleep", "s": 0.6},
                      {"do": "keys", "keys": ["Down"], "update": {"cursor_position": 4, "choices": MCH4}, "note": "option 4 scrolls into view"},
                      {"do": "sleep", "s": 0.6},
                      {"do": "keys", "keys": ["Down"], "note": "cursor on the free-text option 5, which scrolls into view",
                       "update": {"cursor_position": 5, "choices": MCH4 + ["Enter a custom value"]}},
                      {"do": "sleep", "s": 0.6},
                      {"do": "keys", "keys": ["Down"], "note": "cursor on Done, which is no option", "update": {"cursor_position": 0}},
                      {"do": "sleep", "s": 1.5},
                      {"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})


# ---------------------------------------------------------------------------------------
# Permission modes (tests/agents/README.md, "Permission modes"). A mode's scenarios are in
# <agent>/<mode>/; the base mode's are the files above. A tool call keeps its `expect`
# in every mode: the truth derivation gives the waiting state only when the CLI did wait
# (no tool result reached the model server before the driver's next key), so a mode
# that runs the tool without asking shows running there. The steps are those of a user
# in that mode: they answer only the dialogs the mode shows.

def load(agent, name):
    with open(os.path.join(HERE, agent, name + ".json")) as f:
        return json.load(f)


def no_dialog_steps(sc):
    """The base scenario's steps without its dialog handling (wait for the dialog, dwell,
    the answering key): a user in a mode that does not ask just waits for the turn."""
    out, skip = [], False
    for st in sc["steps"]:
        if st["do"] == "wait_response":
            skip = True
            continue
        if skip and (st["do"] in ("wait_screen", "sleep") or (st["do"] == "keys" and st.get("resolves"))):
            continue
        skip = False
        out.append(st)
    return out


def gen_claude_modes():
    W = "/tmp/agtmux-lab/claude-%s/work"
    def ready(): return [{"do": "wait_ready"}, {"do": "sleep", "s": 1.0}]
    def end(turn, extra=3.0): return [{"do": "wait_turn_end", "turn": turn}, {"do": "sleep", "s": extra}, {"do": "exit"}]
    def dialog(turn, item, regex, dwell=2.0):
        return [{"do": "wait_response", "turn": turn, "item": item}, {"do": "wait_screen", "regex": regex}, {"do": "sleep", "s": dwell}]
    SAFE = "mkdir -p build/out && touch build/out/lab.txt"
    RISKY = "curl -fsSL http://127.0.0.1:9/install.sh | sudo bash"

    def shell_ran(name, desc):
        return {"agent": "claude", "name": name, "description": desc,
                "turns": [[{"text": "I'll create the output directory.",
                            "tool": {"name": "Bash", "input": {"command": SAFE, "description": "Create the build output directory"}},
                            "expect": {"state": "waiting_approval", "approval_type": "shell", "details": "Do you want to proceed?",
                                       "subject": SAFE, "choices": ["Yes", "No"], "multi_select": False, "cursor_position": 1,
                                       "note": "not expected to ask in this mode: the truth shows it only if the CLI waited"}},
                           {"text": "Created `build/out/lab.txt`. The output directory is ready.", "chunk": 8, "delay": 0.05}]],
                "steps": ready() + [{"do": "prompt", "text": "create the build output directory"}] + end(0)}

    # ---- every mode shares these: they do not depend on permissions
    def common(save, names):
        for n in names:
            save(load("claude", n))

    # ---- auto: 2.1.330's default (nothing configured). Its safety check runs on
    # Anthropic's servers; behind the lab's model server (like any gateway that does not
    # pass it through) a call the local pre-screen does not clear brings up "Auto mode
    # can't check actions in this session" once, and then a No/Yes dialog per call.
    save = saver("claude", "auto")
    common(save, ["long_answer", "turns_completed", "api_error", "interrupt_running", "question_single",
                  "question_multi", "exit_ctrl_d"])
    save(shell_ran("shell_ran", "Auto mode: a low-risk shell command (mkdir/touch in the work dir) runs without a dialog; the model answers; the turn completes; /exit."))
    NOTICE = {"state": "waiting_approval", "approval_type": "auto_mode_unavailable",
              "details": "Auto mode can't check actions in this session", "choices": [], "multi_select": False,
              "cursor_position": 0,
              "note": "a notice without options: Enter stays in auto mode, shift+Tab leaves for accept-edits mode, Esc cancels"}
    RISKY_DIALOG = {"details": "Do you want to proceed?", "choices": ["No", "Yes"], "multi_select": False,
                    "cursor_position": 1, "approval_type": "shell",
                    "note": "options without numbers, the cursor starts on No"}
    def risky(name, desc, answer):
        return {"agent": "claude", "name": name, "description": desc,
                "turns": [[{"text": "I'll install the tool.",
                            "tool": {"name": "Bash", "input": {"command": RISKY, "description": "Install the tool from the internet"}},
                            "expect": dict(NOTICE, subject=RISKY)},
                           {"text": "The installer ran.", "chunk": 8, "delay": 0.05}]],
                "steps": ready() + [{"do": "prompt", "text": "install the tool"}]
                         + dialog(0, 0, r"Auto mode can't check actions in this session")
                         + [{"do": "keys", "keys": ["Enter"], "update": RISKY_DIALOG},
                            {"do": "wait_screen", "regex": r"Do you want to proceed\?", "timeout": 10}, {"do": "sleep", "s": 1.5}]
                         + answer}
    save(risky("shell_risky_approved",
               "Auto mode, a command the local pre-screen does not clear (curl | sudo bash): the notice 'Auto mode can't check actions in this session' (no options; Enter stays in auto mode), then the dialog 'Do you want to proceed?' with the options No / Yes (no numbers, cursor on No); the user moves to Yes and approves; the turn completes; /exit.",
               [{"do": "keys", "keys": ["Down"], "update": {"cursor_position": 2}}, {"do": "sleep", "s": 1.0},
                {"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)))
    save(risky("shell_risky_denied",
               "Auto mode, a risky command: the notice (Enter stays in auto mode), then the No / Yes dialog; the user denies with Esc; the turn ends without a follow-up request; /exit.",
               [{"do": "keys", "keys": ["Escape"], "resolves": True}, {"do": "sleep", "s": 3.0}, {"do": "exit"}]))
    fe = load("claude", "file_edit")
    fe["description"] = "Auto mode: the model reads hello.py, edits it and creates NOTES.md in the work dir; auto mode lets file edits in the work dir run without a dialog; the turn completes; /exit."
    fe["steps"] = no_dialog_steps(fe)
    save(fe)
    lt = load("claude", "long_tool_run")
    lt["description"] = "Auto mode: a shell command that runs silently for 6 s (sleep && touch); the turn completes; /exit."
    lt["steps"] = no_dialog_steps(lt)
    save(lt)

    # ---- bypass: --dangerously-skip-permissions (IS_SANDBOX=1 as root), the warning
    # accepted before (skipDangerousModePermissionPrompt), except in bypass_warning.
    save = saver("claude", "bypass")
    common(save, ["long_answer", "turns_completed", "api_error", "interrupt_running", "question_single",
                  "question_multi", "exit_ctrl_d"])
    save(shell_ran("shell_ran", "Bypass mode: the shell command runs without a dialog; the model answers; the turn completes; /exit."))
    for n in ("file_edit", "long_tool_run"):
        sc = load("claude", n)
        sc["description"] = "Bypass mode: " + sc["description"].replace("(edit dialog, approved with Enter)", "").replace(
            "(create dialog, approved with Enter)", "") + " No dialog shows."
        sc["steps"] = no_dialog_steps(sc)
        save(sc)
    bw = shell_ran("bypass_warning", "Bypass mode at its first start: the warning 'Claude Code running in Bypass Permissions mode' (No, exit / Yes, I accept; no numbers) is answered with Yes; then a shell command runs without a dialog; the turn completes; /exit.")
    bw["bypass_warning"] = True
    save(bw)

    # ---- accept edits: file edits in the work dir run without asking, shell commands ask
    save = saver("claude", "accept-edits")
    fe = load("claude", "file_edit")
    fe["description"] = "Accept-edits mode: the model reads hello.py, edits it and creates NOTES.md without a dialog; the turn completes; /exit."
    fe["steps"] = no_dialog_steps(fe)
    save(fe)
    PUSH = "git push --force origin main"
    save({"agent": "claude", "name": "shell_approved",
          "description": "Accept-edits mode: a command that is no file edit (git push --force) still asks; the user approves with Enter; the turn completes; /exit.",
          "turns": [[{"text": "I'll push the branch.",
                      "tool": {"name": "Bash", "input": {"command": PUSH, "description": "Force push the branch"}},
                      "expect": {"state": "waiting_approval", "approval_type": "shell", "details": "Do you want to proceed?", "subject": PUSH,
                                 "choices": ["Yes", "Yes, and don\u2019t ask again for: git push *", "No"],
                                 "multi_select": False, "cursor_position": 1}},
                     {"text": "Pushed.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "push the branch"}]
                   + dialog(0, 0, r"Do you want to proceed\?") + [{"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})
    save(load("claude", "turns_completed"))

    # ---- plan: the model presents its plan with ExitPlanMode ("Exit plan mode?")
    save = saver("claude", "plan")
    save({"agent": "claude", "name": "plan_approved",
          "description": "Plan mode: the model calls ExitPlanMode with its plan; the 'Exit plan mode?' dialog shows; the user approves with Enter (option 1); the model answers; the turn completes; /exit.",
          "turns": [[{"text": "Here is my plan.",
                      "tool": {"name": "ExitPlanMode", "input": {"plan": "1. Create build/out\n2. Touch build/out/lab.txt"}},
                      "expect": {"state": "waiting_approval", "approval_type": "plan", "details": "Claude wants to exit plan mode",
                                 "choices": ["Yes, and switch to default (ask each time) for this session", "No"],
                                 "multi_select": False, "cursor_position": 1}},
                     {"text": "The plan is approved; I will create the directory next.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "plan the build output directory"}]
                   + dialog(0, 0, r"Exit plan mode\?") + [{"do": "keys", "keys": ["Enter"], "resolves": True}] + end(0)})
    save(load("claude", "turns_completed"))


def gen_claude_extra():
    """Base-mode scenarios for screens that block the user outside a tool call."""
    def ready(): return [{"do": "wait_ready"}, {"do": "sleep", "s": 1.0}]
    save = saver("claude")
    tc = load("claude", "turns_completed")
    save({"agent": "claude", "name": "auto_mode_prompt",
          "description": "Manual mode kept in the settings (permissions.defaultMode) without disableAutoMode: 2.1.330 asks 'Make auto mode your default permission mode?' at start-up (no numbers); the user keeps manual mode (Down, Enter); two turns complete; /exit.",
          "auto_mode_prompt": True, "turns": tc["turns"], "steps": tc["steps"]})
    save({"agent": "claude", "name": "login",
          "description": "The user types /login: the 'Select login method' dialog (Claude account with subscription / Anthropic Console account / 3rd-party platform) waits for a choice; the user cancels with Esc; /exit.",
          "turns": [],
          "steps": ready() + [{"do": "keys", "keys": [{"text": "/login"}]}, {"do": "sleep", "s": 0.6},
                              {"do": "keys", "keys": ["Enter"]},
                              {"do": "wait_screen", "regex": r"Select login method:", "timeout": 10,
                               "mark": {"state": "waiting_input", "approval_type": "login", "details": "Select login method:",
                                        "choices": ["Claude account with subscription · Pro, Max, Team, or Enterprise",
                                                    "Anthropic Console account · API usage billing",
                                                    "3rd-party platform · Amazon Bedrock, Microsoft Foundry, or Vertex AI"],
                                        "multi_select": False, "cursor_position": 1},
                               "mark_since": {"2.1.330": {"choices": [
                                   "Claude account with subscription · Individual, Team, or Enterprise",
                                   "Anthropic Console account · API usage billing",
                                   "3rd-party platform · Bedrock, Microsoft Foundry, Google Vertex AI"]}}},
                              {"do": "sleep", "s": 2.0},
                              {"do": "keys", "keys": ["Escape"], "mark": {"state": "idle"}},
                              {"do": "sleep", "s": 2.0}, {"do": "exit"}]})
    save({"agent": "claude", "name": "rate_limit",
          "description": "HTTP 429 rate_limit_error on every request (CLAUDE_CODE_MAX_RETRIES=1): Claude Code retries once and gives up: the turn ends with an API error; /exit.",
          "env": {"CLAUDE_CODE_MAX_RETRIES": "1"},
          "turns": [[{"error": {"status": 429, "repeat": 2,
                                "message": "This request would exceed your organization's rate limit of 50,000 input tokens per minute. Please try again later."}}]],
          "steps": ready() + [{"do": "prompt", "text": "summarize the readme"},
                              {"do": "wait_turn_end", "turn": 0}, {"do": "sleep", "s": 3.0}, {"do": "exit"}]})


def gen_codex_modes():
    def ready(): return [{"do": "wait_ready"}, {"do": "sleep", "s": 1.0}]
    def end(turn, extra=3.0): return [{"do": "wait_turn_end", "turn": turn}, {"do": "sleep", "s": extra}, {"do": "exit"}]
    def plain_shell(name, desc):
        cmd = "mkdir -p build/out && touch build/out/lab.txt"
        return {"agent": "codex", "name": name, "description": desc,
                "turns": [[{"tool": {"name": "exec_command", "input": {"cmd": cmd}},
                            "expect": {"state": "waiting_approval", "approval_type": "shell",
                                       "details": "Would you like to run the following command?", "subject": cmd,
                                       "choices": ["Yes, proceed", "No, and tell Codex what to do differently"],
                                       "multi_select": False, "cursor_position": 1,
                                       "note": "not expected to ask in this mode: the truth shows it only if the CLI waited"}},
                           {"text": "Created `build/out/lab.txt`. The output directory is ready.", "chunk": 8, "delay": 0.05}]],
                "steps": ready() + [{"do": "prompt", "text": "create the build output directory"}] + end(0)}
    # bypass: --dangerously-bypass-approvals-and-sandbox: nothing asks but a question
    save = saver("codex", "bypass")
    for n in ("long_answer", "turns_completed", "api_error", "interrupt_running", "question", "exit_ctrl_c"):
        save(load("codex", n))
    save(plain_shell("shell_ran", "Bypass mode: exec_command runs without a dialog (no sandbox); the model answers; the turn completes; /quit."))
    for n in ("file_edit", "long_tool_run"):
        sc = load("codex", n)
        sc["description"] = "Bypass mode: " + sc["description"] + " No dialog shows."
        sc["steps"] = no_dialog_steps(sc)
        save(sc)
    # full-auto: on-request approvals, workspace-write sandbox: work in the workspace runs,
    # a command that asks for escalation still asks
    save = saver("codex", "full-auto")
    for n in ("turns_completed", "question", "shell_approved"):
        save(load("codex", n))
    save(plain_shell("shell_ran", "Full-auto mode: exec_command in the workspace runs in the sandbox without a dialog; the turn completes; /quit."))
    sc = load("codex", "file_edit")
    sc["description"] = "Full-auto mode: the apply_patch edit of hello.py in the workspace runs without a dialog; the turn completes; /quit."
    sc["steps"] = no_dialog_steps(sc)
    save(sc)


def gen_codex_extra():
    def ready(): return [{"do": "wait_ready"}, {"do": "sleep", "s": 1.0}]
    save = saver("codex")
    # a long command: the preview pushes the question far above the bottom rows
    lines = ["python3 - <<'EOF'", "import os, json"] + ["print('step %02d', os.getcwd())" % i for i in range(1, 25)] + ["EOF"]
    cmd = "\n".join(lines)
    save({"agent": "codex", "name": "long_preview",
          "description": "exec_command with a 27-line command and require_escalated: the approval's command preview is long, so 'Would you like to run the following command?' sits far above the bottom rows; the user approves with y; the turn completes; /quit.",
          "turns": [[{"tool": {"name": "exec_command", "input": {"cmd": cmd, "sandbox_permissions": "require_escalated",
                                                                 "justification": "Run the build script outside the sandbox?"}},
                      "expect": {"state": "waiting_approval", "approval_type": "shell", "details": "Would you like to run the following command?",
                                 "subject": "python3 - <<'EOF' ...", "choices": ["Yes, proceed", "No, and tell Codex what to do differently"],
                                 "multi_select": False, "cursor_position": 1}},
                     {"text": "The build script ran.", "chunk": 8, "delay": 0.05}]],
          "steps": ready() + [{"do": "prompt", "text": "run the build script"},
                              {"do": "wait_response", "turn": 0, "item": 0},
                              {"do": "wait_screen", "regex": r"Press enter to confirm"}, {"do": "sleep", "s": 2.0},
                              {"do": "keys", "keys": ["y"], "resolves": True},
                              {"do": "wait_turn_end", "turn": 0}, {"do": "sleep", "s": 3.0}, {"do": "exit"}]})
    # the update notice at start-up, from Codex's own cache of its last update check
    save({"agent": "codex", "name": "update_prompt",
          "description": "Codex's update check says a newer release exists ($CODEX_HOME/version.json, check_for_update_on_startup = true): 'Update available!' shows at start-up and blocks input; the user skips it; a turn completes; /quit.",
          "codex_version_json": {"latest_version": "0.999.0"},
          "turns": [[{"text": "The README describes a tiny lab project with one module, hello.py.", "chunk": 8, "delay": 0.05}]],
          "steps": [{"do": "wait_screen", "regex": r"Update available", "timeout": 20,
                     "mark": {"state": "waiting_input", "approval_type": "update_prompt", "details": "Update available",
                              "choices": ["Update now (runs `npm install -g @openai/codex`)", "Skip", "Skip until next version"],
                              "multi_select": False, "cursor_position": 1}},
                    {"do": "sleep", "s": 2.0},
                    {"do": "keys", "keys": ["Down"], "update": {"cursor_position": 2}}, {"do": "sleep", "s": 0.8},
                    {"do": "keys", "keys": ["Enter"], "mark": {"state": "idle"}},
                    {"do": "wait_ready", "mark": None}, {"do": "sleep", "s": 1.0},
                    {"do": "prompt", "text": "what is in the readme?"},
                    {"do": "wait_turn_end", "turn": 0}, {"do": "sleep", "s": 3.0}, {"do": "exit"}]})
    save({"agent": "codex", "name": "login",
          "description": "Codex with its own provider (OpenAI) and no credentials: 'Choose how you want to use Codex' (Sign in with ChatGPT / Device Code / another way) waits at start-up; the user gives up with Ctrl-C twice.",
          "login": True, "turns": [],
          "steps": [{"do": "wait_screen", "regex": r"Choose how you want to use Codex", "timeout": 20,
                     "mark": {"state": "waiting_input", "approval_type": "login", "details": "Choose how you want to use Codex.",
                              "choices": ["Sign in with ChatGPT", "Sign in with Device Code", "Sign in another way"],
                              "multi_select": False, "cursor_position": 1}},
                    {"do": "sleep", "s": 3.0}, {"do": "exit", "method": "ctrl_c", "times": 2, "gap": 0.5}]})
    # usage limit: 429 with the error body a ChatGPT plan's limit gives
    save({"agent": "codex", "name": "usage_limit",
          "description": "HTTP 429 usage_limit_reached (the error body Codex gets when a plan's usage limit is reached): the turn ends with the usage-limit message; /quit.",
          "turns": [[{"error": {"status": 429, "repeat": 1,
                                "body": {"error": {"type": "usage_limit_reached", "message": "The usage limit has been reached",
                                                   "plan_type": "plus", "resets_in_seconds": 7200}}}}]],
          "steps": ready() + [{"do": "prompt", "text": "summarize the readme"},
                              {"do": "wait_turn_end", "turn": 0}, {"do": "sleep", "s": 3.0}, {"do": "exit"}]})


def gen_gemini_extra():
    save = saver("gemini")
    save({"agent": "gemini", "name": "login",
          "description": "Gemini CLI without an auth method: 'Get started / How would you like to authenticate for this project?' (Sign in with Google / Use Gemini API Key / Vertex AI) waits at start-up; the user gives up with Ctrl-C twice.",
          "login": True, "turns": [],
          "steps": [{"do": "wait_screen", "regex": r"How would you like to authenticate", "timeout": 25,
                     "mark": {"state": "waiting_input", "approval_type": "login",
                              "details": "How would you like to authenticate for this project?",
                              "choices": ["Sign in with Google", "Use Gemini API Key", "Vertex AI"],
                              "multi_select": False, "cursor_position": 1}},
                    {"do": "sleep", "s": 3.0}, {"do": "exit", "method": "ctrl_c", "times": 2, "gap": 0.5}]})


def gen_gemini_modes():
    def ready(): return [{"do": "wait_ready"}, {"do": "sleep", "s": 1.5}]
    def end(turn, extra=3.0): return [{"do": "wait_turn_end", "turn": turn}, {"do": "sleep", "s": extra}, {"do": "exit"}]
    save = saver("gemini", "yolo")
    for n in ("long_answer", "turns_completed", "api_error", "interrupt_running", "question", "exit_ctrl_c"):
        save(load("gemini", n))
    sa = load("gemini", "shell_approved")
    sa["name"] = "shell_ran"
    sa["description"] = "YOLO mode: run_shell_command runs without a confirmation; the model answers; the turn completes; /quit."
    sa["steps"] = no_dialog_steps(sa)
    save(sa)
    for n in ("file_edit", "long_tool_run"):
        sc = load("gemini", n)
        sc["description"] = "YOLO mode: " + sc["description"] + " No confirmation shows."
        sc["steps"] = no_dialog_steps(sc)
        save(sc)


if __name__ == "__main__":
    gen_claude()
    gen_codex()
    gen_gemini()
    gen_claude_extra()
    gen_codex_extra()
    gen_gemini_extra()
    gen_claude_modes()
    gen_codex_modes()
    gen_gemini_modes()
