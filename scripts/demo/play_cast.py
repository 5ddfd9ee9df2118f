#!/usr/bin/env python3
"""Plays the output of an asciicast v2 recording to stdout with its timing.

The agtmux demo runs recordings of the real agent CLIs (tests/fixtures/)
through this player, so that `agtmux wrap` and the CAP poller see exactly
the bytes and screens the real agents produced, without an API key or a
network. Input events are not replayed (nothing is typed); resize events
are ignored (the pane keeps its size).

  play_cast.py FILE.cast [--speed 1.0] [--loop] [--pause SECONDS]
"""
import argparse
import json
import os
import sys
import time


def events(path):
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
        if header.get("version") != 2:
            raise SystemExit(f"{path}: not an asciicast v2 file")
        for line in f:
            line = line.strip()
            if not line:
                continue
            t, kind, data = json.loads(line)[:3]
            if kind == "o":
                yield float(t), data


def play(path, speed):
    out = sys.stdout.buffer
    start = time.monotonic()
    for t, data in events(path):
        delay = start + t / speed - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        out.write(data.encode("utf-8"))
        out.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cast")
    p.add_argument("--speed", type=float, default=1.0)
    p.add_argument("--loop", action="store_true")
    p.add_argument("--pause", type=float, default=3.0,
                   help="seconds between loops")
    args = p.parse_args()
    if args.speed <= 0:
        raise SystemExit("--speed must be positive")
    try:
        while True:
            play(args.cast, args.speed)
            if not args.loop:
                break
            time.sleep(args.pause)
            sys.stdout.buffer.write(b"\x1b[?1049l\x1b[H\x1b[2J")
            sys.stdout.buffer.flush()
    except (KeyboardInterrupt, BrokenPipeError):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
