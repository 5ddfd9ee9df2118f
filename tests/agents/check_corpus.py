#!/usr/bin/env python3
"""check_corpus.py - validate the recorded agent fixtures.

    check_corpus.py [FIXTURES_ROOT or FIXTURE_DIR ...]   (default: tests/fixtures)

For every fixture dir (a dir holding session.cast) it checks:
  * all files exist: session.cast snapshots.jsonl truth.jsonl model.log.jsonl scenario.json
  * the cast parses as asciicast v2: header (version 2, width, height), events
    [t, code, data] with t non-decreasing, code in o/i/r/m, "r" data like 120x40
  * truth.jsonl: known states, t non-decreasing and within the cast duration, waiting
    states carry approval_type, details, choices, multi_select, and a cursor_position
    inside the choices (a dialog without options, such as a notice answered by a key
    named in its footer, has choices [] and cursor_position 0); unknown carries reason_code
  * snapshots.jsonl: t non-decreasing and within the cast duration, lines fit the screen
  * every waiting state's details and choices are visible on screen: the snapshots between
    the transition and the next one (+1 s grace) show the details and, for the k-th
    choice, "k. <choice>" (or "k. [ ] <choice>"), whitespace-normalised, or for a menu
    without numbers (Claude 2.1.330's "❯ No" / "  Yes") a row that is the choice after an
    optional cursor glyph (each item in some snapshot: long lists scroll)
  * hooks.jsonl (the hooks variant), when present: one {"t", "mono", "event"} per line,
    t non-decreasing, every event with an event_type
  * sizes: a fixture under 2 MB, the whole corpus under 30 MB (warnings)
Exit status 1 when any error was found. Standard library only.
"""
import json
import os
import re
import sys

STATES = {"running", "waiting_approval", "waiting_input", "completed", "idle", "error", "unknown"}
FILES = ("session.cast", "snapshots.jsonl", "truth.jsonl", "model.log.jsonl", "scenario.json")
HERE = os.path.dirname(os.path.abspath(__file__))


# a menu row without a number: box border, cursor glyph, label
UNNUMBERED = re.compile(r"^[\s│]*(?:[❯›●>]\s+)?")


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def check_fixture(d):
    errs, warns = [], []
    for f in FILES:
        if not os.path.exists(os.path.join(d, f)):
            errs.append("missing " + f)
    if errs:
        return errs, warns
    # cast
    dur = 0.0
    width = height = None
    with open(os.path.join(d, "session.cast"), encoding="utf-8") as f:
        try:
            hdr = json.loads(next(f))
            if hdr.get("version") != 2:
                errs.append("cast: version is not 2")
            width, height = hdr.get("width"), hdr.get("height")
            if not isinstance(width, int) or not isinstance(height, int):
                errs.append("cast: width/height missing")
        except (StopIteration, ValueError) as e:
            errs.append("cast: bad header: %s" % e)
            return errs, warns
        last = -1.0
        n = 0
        for i, line in enumerate(f, 2):
            try:
                ev = json.loads(line)
            except ValueError as e:
                errs.append("cast line %d: %s" % (i, e))
                break
            if not (isinstance(ev, list) and len(ev) == 3 and isinstance(ev[0], (int, float))
                    and isinstance(ev[1], str) and isinstance(ev[2], str)):
                errs.append("cast line %d: not [t, code, data]" % i)
                break
            if ev[0] < last:
                errs.append("cast line %d: time goes back" % i)
                break
            if ev[1] not in ("o", "i", "r", "m"):
                errs.append("cast line %d: unknown code %r" % (i, ev[1]))
            if ev[1] == "r" and not re.match(r"^\d+x\d+$", ev[2]):
                errs.append("cast line %d: bad resize %r" % (i, ev[2]))
            last = ev[0]
            n += 1
        dur = max(last, 0.0)
        if n == 0:
            errs.append("cast: no events")
    # truth
    truth = []
    with open(os.path.join(d, "truth.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try:
                truth.append(json.loads(line))
            except ValueError as e:
                errs.append("truth line %d: %s" % (i, e))
    if not truth:
        errs.append("truth: empty")
    last = -1.0
    for i, r in enumerate(truth, 1):
        t, st = r.get("t"), r.get("state")
        if not isinstance(t, (int, float)):
            errs.append("truth %d: no t" % i)
            continue
        if t < last:
            errs.append("truth %d: t goes back (%s < %s)" % (i, t, last))
        last = t
        if t < 0 or t > dur + 0.5:
            errs.append("truth %d: t=%s outside the cast (0..%.3f)" % (i, t, dur))
        if st not in STATES:
            errs.append("truth %d: unknown state %r" % (i, st))
        if st == "unknown" and not r.get("reason_code"):
            errs.append("truth %d: unknown without reason_code" % i)
        if st in ("waiting_approval", "waiting_input"):
            for k in ("approval_type", "details", "choices", "multi_select", "cursor_position"):
                if k not in r:
                    errs.append("truth %d: %s without %s" % (i, st, k))
            ch = r.get("choices")
            if not isinstance(ch, list) or not all(isinstance(c, str) and c for c in ch):
                errs.append("truth %d: choices must be a list of strings" % i)
            elif not ch and r.get("cursor_position") != 0:
                errs.append("truth %d: a dialog without options has cursor_position 0" % i)
            elif not (isinstance(r.get("cursor_position"), int) and 0 <= r["cursor_position"] <= len(ch)):
                # 0: the highlight is on a row that is no option (Gemini's "Done")
                errs.append("truth %d: cursor_position outside the choices" % i)
            if not isinstance(r.get("multi_select"), bool):
                errs.append("truth %d: multi_select must be a bool" % i)
    # snapshots
    snaps = []
    with open(os.path.join(d, "snapshots.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try:
                snaps.append(json.loads(line))
            except ValueError as e:
                errs.append("snapshots line %d: %s" % (i, e))
    if not snaps:
        errs.append("snapshots: empty")
    last = -1.0
    for i, s in enumerate(snaps, 1):
        t = s.get("t")
        if not isinstance(t, (int, float)) or t < last:
            errs.append("snapshot %d: t missing or going back" % i)
            break
        last = t
        if t < 0 or t > dur + 1e-3:
            errs.append("snapshot %d: t=%s outside the cast (0..%.3f)" % (i, t, dur))
        lines = s.get("lines")
        if not isinstance(lines, list) or (height and len(lines) > height):
            errs.append("snapshot %d: lines missing or taller than the screen" % i)
    # choices visible on screen
    for i, r in enumerate(truth):
        if r.get("state") not in ("waiting_approval", "waiting_input") or not isinstance(r.get("choices"), list):
            continue
        t0 = r["t"]
        # the dialog lasts over following records that only move the cursor / selection
        j = i + 1
        while j < len(truth) and all(truth[j].get(k) == r.get(k) for k in ("state", "details", "choices")):
            j += 1
        t1 = truth[j]["t"] if j < len(truth) else dur
        # a scrolled list drew its earlier options since the dialog opened
        b = i
        while b > 0 and all(truth[b - 1].get(k) == r.get(k) for k in ("state", "details")):
            b -= 1
        t0 = truth[b]["t"]
        window = [s for s in snaps if t0 - 0.3 <= s["t"] <= t1 + 1.0]
        prev = [s for s in snaps if s["t"] < t0]
        if prev:
            window.insert(0, prev[-1])
        # each item must be seen in some snapshot of the window (lists may scroll)
        screens = [norm(" ".join(s["lines"])) for s in window]
        rows = [{norm(UNNUMBERED.sub("", ln)) for ln in s["lines"]} for s in window]
        need = [re.compile(re.escape(norm(r["details"])))] if r.get("details") else []
        ok = all(any(rx.search(sc) for sc in screens) for rx in need)
        numbered = [re.compile(r"(?<!\d)%d\. +(\[.\] )?%s" % (k + 1, re.escape(norm(c))))
                    for k, c in enumerate(r["choices"])]
        ok = ok and (all(any(rx.search(sc) for sc in screens) for rx in numbered) or
                     all(any(norm(c) in rs for rs in rows) for c in r["choices"]))
        if not ok:
            errs.append("truth %d (t=%s %s): choices/details %r not seen on screen" % (
                i + 1, t0, r["state"], [r.get("details")] + r["choices"]))
    # hooks variant
    hp = os.path.join(d, "hooks.jsonl")
    if os.path.exists(hp):
        last = -1e9
        with open(hp, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                try:
                    h = json.loads(line)
                except ValueError as e:
                    errs.append("hooks line %d: %s" % (i, e))
                    break
                if not isinstance(h.get("t"), (int, float)) or h["t"] < last:
                    errs.append("hooks line %d: t missing or going back" % i)
                    break
                last = h["t"]
                if not isinstance(h.get("event"), dict) or not h["event"].get("event_type"):
                    errs.append("hooks line %d: no event with an event_type" % i)
    # model log + scenario
    with open(os.path.join(d, "model.log.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try:
                json.loads(line)
            except ValueError as e:
                errs.append("model.log line %d: %s" % (i, e))
                break
    try:
        sc = json.load(open(os.path.join(d, "scenario.json"), encoding="utf-8"))
        if "recording" not in sc:
            errs.append("scenario.json: no recording section")
        for w in sc.get("recording", {}).get("warnings", []):
            warns.append("recorded with warning: " + w)
    except ValueError as e:
        errs.append("scenario.json: %s" % e)
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    if size > 2 * 1024 * 1024:
        warns.append("fixture is %.1f MB (> 2 MB)" % (size / 1048576))
    return errs, warns


def find_fixtures(paths):
    out = []
    for p in paths:
        if os.path.exists(os.path.join(p, "session.cast")):
            out.append(p)
            continue
        for root, dirs, files in os.walk(p):
            dirs.sort()
            if "session.cast" in files:
                out.append(root)
    return out


def main():
    paths = sys.argv[1:] or [os.path.join(HERE, "..", "fixtures")]
    fixtures = find_fixtures(paths)
    if not fixtures:
        print("no fixtures found under " + " ".join(paths))
        return 1
    bad = 0
    total = 0
    for d in fixtures:
        errs, warns = check_fixture(d)
        total += sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
        name = os.path.relpath(d)
        print("%s %s" % ("FAIL" if errs else "ok  ", name))
        for e in errs:
            print("     error: " + e)
        for w in warns:
            print("     warning: " + w)
        bad += bool(errs)
    print("%d fixtures, %d failed, %.1f MB" % (len(fixtures), bad, total / 1048576))
    if total > 30 * 1024 * 1024:
        print("warning: corpus is larger than 30 MB")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
