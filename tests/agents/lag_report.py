#!/usr/bin/env python3
"""lag_report.py - how far the screen and the byte stream lag the ground truth.

    lag_report.py [AGENT_VERSION_DIR ...]     (default: every tests/fixtures/<agent>/<version>;
                                               figures per agent/version/mode)

For every recording it measures, against truth.jsonl:
  dialog   a waiting state opens (approval or question; not the startup dialogs, whose
           truth is read from the screen): time until the first snapshot
           that shows the truth's `details` line;
  signal   the same, until the agent's waiting signal in the raw output stream
           (Claude: a title starting "✳", Codex: OSC 7501 state=blocked,
           Gemini: a title with "Action Required");
  answer   a final answer was streamed (truth `completed`): time until the next output.
and prints the median and the maximum per agent, version and mode. The snapshot figures include the
recording's sampling delay (scenario.json recording.snap_interval). These are the numbers
in tests/fixtures/README.md. Standard library only.
"""
import json
import os
import statistics
import sys

from inspect_fixture import load, oscs

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
WAITING = ("waiting_approval", "waiting_input")


def waiting_signal(agent, num, text):
    if agent == "claude":
        return num in ("0", "2") and text.startswith("✳")
    if agent == "codex":
        return num == "7501" and "state=blocked" in text
    if agent == "gemini":
        return num in ("0", "2") and "Action Required" in text
    return False


def outputs(cast_path):
    """The times of the cast's output events."""
    with open(cast_path, encoding="utf-8") as f:
        next(f)
        events = (json.loads(line) for line in f)
        return [t for t, kind, _ in events if kind == "o"]


def measure(agent, fx, lags):
    truth = load(os.path.join(fx, "truth.jsonl"))
    snaps = load(os.path.join(fx, "snapshots.jsonl"))
    cast = os.path.join(fx, "session.cast")
    signals = [t for t, num, text in oscs(cast) if waiting_signal(agent, num, text)]
    outs = outputs(cast)
    prev = None
    for i, rec in enumerate(truth):
        t = rec["t"]
        opens = rec["state"] in WAITING and (prev is None or prev["state"] not in WAITING)
        # a startup dialog's truth comes from the screen itself (driver_saw_screen)
        if opens and rec.get("source") != "driver_saw_screen":
            # options not drawn yet: the question is that of the record that has them
            drawn = next((r for r in truth[i:] if r.get("details") and r["state"] == rec["state"]), rec)
            probe = (drawn.get("details") or "")[:24]
            seen = next((s["t"] for s in snaps if s["t"] >= t and any(probe in ln for ln in s["lines"])), None)
            if probe and seen is not None:
                lags["dialog"].append(seen - t)
            sig = [s for s in signals if s >= t]
            if sig:
                lags["signal"].append(sig[0] - t)
        if rec["state"] == "completed" and rec.get("source") == "model_final_response_end":
            nxt = [o for o in outs if o >= t]
            if nxt:
                lags["answer"].append(nxt[0] - t)
        prev = rec


def fmt(xs):
    if not xs:
        return "-"
    return "median %.2f s, max %.2f s (n=%d)" % (statistics.median(xs), max(xs), len(xs))


def main():
    """Per agent/version/mode (the fixtures under each dir given, default every
    <agent>/<version> of the corpus, modes included)."""
    dirs = sys.argv[1:]
    if not dirs:
        for agent in sorted(os.listdir(FIXTURES)):
            base = os.path.join(FIXTURES, agent)
            if os.path.isdir(base) and agent != "screens":
                dirs += [os.path.join(base, v) for v in sorted(os.listdir(base))
                         if os.path.isdir(os.path.join(base, v))]
    groups = {}
    for d in dirs:
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            if "truth.jsonl" not in files:
                continue
            with open(os.path.join(root, "scenario.json")) as f:
                sc = json.load(f)
            agent = sc["agent"]
            key = "%s %s %s" % (agent, sc["recording"].get("agent_version", "?"),
                                sc.get("mode") or ("on-request" if agent == "codex" else "default"))
            lags = groups.setdefault(key, {"dialog": [], "signal": [], "answer": []})
            measure(agent, root, lags)
    for key in sorted(groups):
        print(key)
        for k in ("dialog", "signal", "answer"):
            print("  %-7s %s" % (k, fmt(groups[key][k])))


if __name__ == "__main__":
    main()
