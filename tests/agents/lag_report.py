#!/usr/bin/env python3
"""lag_report.py - how far the screen and the byte stream lag the ground truth.

    lag_report.py [AGENT_VERSION_DIR ...]     (default: every tests/fixtures/<agent>/<version>)

For every recording it measures, against truth.jsonl:
  dialog   a waiting state opens (approval or question; not the startup dialogs, whose
           truth is read from the screen): time until the first snapshot
           that shows the truth's `details` line;
  signal   the same, until the agent's waiting signal in the raw output stream
           (Claude: a title starting "✳", Codex: OSC 7501 state=blocked,
           Gemini: a title with "Action Required");
  answer   a final answer was streamed (truth `completed`): time until the next output.
and prints the median and the maximum per agent. The snapshot figures include the
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
    for rec in truth:
        t = rec["t"]
        opens = rec["state"] in WAITING and (prev is None or prev["state"] not in WAITING)
        # a startup dialog's truth comes from the screen itself (driver_saw_screen)
        if opens and rec.get("source") != "driver_saw_screen":
            probe = (rec.get("details") or "")[:24]
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
    dirs = sys.argv[1:]
    if not dirs:
        for agent in sorted(os.listdir(FIXTURES)):
            base = os.path.join(FIXTURES, agent)
            if os.path.isdir(base):
                dirs += [os.path.join(base, v) for v in sorted(os.listdir(base))]
    for d in dirs:
        agent = os.path.basename(os.path.dirname(os.path.abspath(d)))
        lags = {"dialog": [], "signal": [], "answer": []}
        for name in sorted(os.listdir(d)):
            fx = os.path.join(d, name)
            if os.path.exists(os.path.join(fx, "truth.jsonl")):
                measure(agent, fx, lags)
        print("%s %s" % (agent, os.path.basename(os.path.abspath(d))))
        for k in ("dialog", "signal", "answer"):
            print("  %-7s %s" % (k, fmt(lags[k])))


if __name__ == "__main__":
    main()
