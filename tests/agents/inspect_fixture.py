#!/usr/bin/env python3
"""inspect_fixture.py - print what a recorded fixture shows, for humans.

    inspect_fixture.py FIXTURE_DIR [--osc] [--screens] [--truth] [--at T ...]

--osc      OSC sequences (titles 0/2, notifications 9/777, progress 9;4) and BEL
           found in the raw output stream, with their cast time (deduplicated runs)
--screens  every snapshot (non-empty lines only)
--truth    the ground-truth timeline
--at T     the snapshot shown at time T (last one with t <= T)
Standard library only.
"""
import argparse
import json
import os
import re

OSC_RE = re.compile(r"\x1b\](\d+)(?:;([^\x07\x1b]*))?(?:\x07|\x1b\\)")


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def oscs(cast_path):
    out = []
    with open(cast_path, encoding="utf-8") as f:
        next(f)
        buf = ""
        for line in f:
            t, kind, data = json.loads(line)
            if kind != "o":
                continue
            buf += data
            # keep a possibly incomplete OSC at the end for the next event
            cut = buf.rfind("\x1b]")
            done, rest = (buf, "") if cut < 0 or OSC_RE.search(buf, cut) else (buf[:cut], buf[cut:])
            for m in OSC_RE.finditer(done):
                out.append((t, m.group(1), m.group(2) or ""))
            for _ in range(done.count("\x07") - len([1 for m in OSC_RE.finditer(done) if m.group(0).endswith("\x07")])):
                out.append((t, "BEL", ""))
            buf = rest[-4096:]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fixture")
    ap.add_argument("--osc", action="store_true")
    ap.add_argument("--screens", action="store_true")
    ap.add_argument("--truth", action="store_true")
    ap.add_argument("--at", type=float, action="append", default=[])
    a = ap.parse_args()
    fx = a.fixture
    if a.truth:
        for r in load(os.path.join(fx, "truth.jsonl")):
            print(json.dumps(r, ensure_ascii=False))
    if a.osc:
        last = None
        for t, code, val in oscs(os.path.join(fx, "session.cast")):
            key = (code, val)
            if key != last:
                print("%8.3f OSC %s %r" % (t, code, val))
            last = key
    snaps = load(os.path.join(fx, "snapshots.jsonl"))
    if a.screens:
        for s in snaps:
            print("=== t=%.3f cursor=%s" % (s["t"], s.get("cursor")))
            for ln in s["lines"]:
                if ln.strip():
                    print("  |" + ln)
    for T in a.at:
        cand = [s for s in snaps if s["t"] <= T]
        if cand:
            s = cand[-1]
            print("=== at %.3f (snapshot t=%.3f cursor=%s)" % (T, s["t"], s.get("cursor")))
            for ln in s["lines"]:
                print("  |" + ln)


if __name__ == "__main__":
    main()
