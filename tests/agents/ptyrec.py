#!/usr/bin/env python3
"""ptyrec.py - a tiny PTY proxy that records an asciicast v2 file.

Stand-in for `agtmux wrap --record FILE.cast -- <cmd>` until that exists.
Python 3 standard library only.

    ptyrec.py --out session.cast [--meta meta.json] -- cmd [args...]

* spawns cmd on a new PTY sized like our own terminal (stdin), puts our terminal
  in raw mode (restored on exit), forwards SIGWINCH, passes bytes through unchanged;
* writes asciicast v2: header {"version":2,"width","height","timestamp","env"},
  then [t,"o",data] for output, [t,"i",data] for input, [t,"r","COLSxROWS"] for
  resizes, and a final marker [t,"m","exit <status>"] when the child has exited;
* output/input bytes are decoded incrementally as UTF-8 (an incomplete trailing
  sequence is kept for the next event, as asciinema does), so a glyph split across
  two reads is never mangled; only truly invalid bytes become U+FFFD;
* times are seconds (float) since the start, measured with time.monotonic()
  (CLOCK_MONOTONIC, comparable across processes on Linux); --meta writes
  {"start_mono","start_wall","pid","exit_mono","exit_status"} so that other logs
  (model server, driver) can be put on the cast's time axis;
* exits with the child's exit status (128+signal when killed).
"""
import argparse
import codecs
import errno
import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
import tty


def get_winsize(fd):
    try:
        rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
        if rows and cols:
            return cols, rows
    except OSError:
        pass
    return 80, 24


def set_winsize(fd, cols, rows):
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    except OSError:
        pass


class CastWriter:
    def __init__(self, path, cols, rows, start_mono, env):
        self.f = open(path, "w", encoding="utf-8")
        self.start = start_mono
        self.dec = {"o": codecs.getincrementaldecoder("utf-8")("replace"),
                    "i": codecs.getincrementaldecoder("utf-8")("replace")}
        hdr = {"version": 2, "width": cols, "height": rows,
               "timestamp": int(time.time()), "env": env}
        self.f.write(json.dumps(hdr, ensure_ascii=False) + "\n")
        self.f.flush()

    def event(self, kind, data, now=None):
        t = (time.monotonic() if now is None else now) - self.start
        self.f.write(json.dumps([round(t, 6), kind, data], ensure_ascii=False) + "\n")
        self.f.flush()

    def data(self, kind, raw, now=None):
        s = self.dec[kind].decode(raw, False)
        if s:
            self.event(kind, s, now)

    def close(self):
        for k, d in self.dec.items():
            rest = d.decode(b"", True)
            if rest:
                self.event(k, rest)
        self.f.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--meta")
    ap.add_argument("--no-input", action="store_true", help="do not record input events")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("missing command")

    in_fd, out_fd = sys.stdin.fileno(), sys.stdout.fileno()
    is_tty = os.isatty(in_fd)
    cols, rows = get_winsize(in_fd) if is_tty else (80, 24)
    start_mono = time.monotonic()
    start_wall = time.time()
    env = {k: os.environ[k] for k in ("SHELL", "TERM") if k in os.environ}
    cast = CastWriter(a.out, cols, rows, start_mono, env)

    meta = {"start_mono": start_mono, "start_wall": start_wall, "argv": cmd,
            "width": cols, "height": rows}

    def write_meta():
        if a.meta:
            with open(a.meta + ".tmp", "w") as f:
                json.dump(meta, f)
            os.replace(a.meta + ".tmp", a.meta)

    pid, master = pty.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        except OSError as e:
            os.write(2, ("ptyrec: cannot exec %s: %s\n" % (cmd[0], e)).encode())
        os._exit(127)

    meta["pid"] = pid
    write_meta()
    set_winsize(master, cols, rows)

    old_attr = None
    if is_tty:
        old_attr = termios.tcgetattr(in_fd)
        tty.setraw(in_fd)

    # self-pipe for SIGWINCH
    rpipe, wpipe = os.pipe()
    os.set_blocking(wpipe, False)

    def on_winch(signum, frame):
        try:
            os.write(wpipe, b"w")
        except OSError:
            pass

    signal.signal(signal.SIGWINCH, on_winch)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, f: os.kill(pid, s))

    stdin_open = True
    status = None
    try:
        while True:
            fds = [master, rpipe] + ([in_fd] if stdin_open else [])
            try:
                r, _, _ = select.select(fds, [], [], 0.5)
            except InterruptedError:
                continue
            if not r and status is None:
                # the child may have exited while a grandchild keeps the PTY open
                wp, st = os.waitpid(pid, os.WNOHANG)
                if wp == pid:
                    status = st
                    break
            if rpipe in r:
                os.read(rpipe, 64)
                if is_tty:
                    c2, r2 = get_winsize(in_fd)
                    if (c2, r2) != (cols, rows):
                        cols, rows = c2, r2
                        set_winsize(master, cols, rows)
                        cast.event("r", "%dx%d" % (cols, rows))
                        try:
                            os.kill(pid, signal.SIGWINCH)
                        except ProcessLookupError:
                            pass
            if master in r:
                try:
                    data = os.read(master, 65536)
                except OSError as e:
                    if e.errno == errno.EIO:
                        data = b""
                    else:
                        raise
                if not data:
                    break
                now = time.monotonic()
                view = memoryview(data)
                while view:
                    try:
                        n = os.write(out_fd, view)
                    except BlockingIOError:
                        select.select([], [out_fd], [])
                        continue
                    view = view[n:]
                cast.data("o", data, now)
            if stdin_open and in_fd in r:
                data = os.read(in_fd, 65536)
                if not data:
                    stdin_open = False
                else:
                    now = time.monotonic()
                    os.write(master, data)
                    if not a.no_input:
                        cast.data("i", data, now)
    finally:
        if old_attr is not None:
            termios.tcsetattr(in_fd, termios.TCSAFLUSH, old_attr)
    if status is None:
        _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        code = 128 + os.WTERMSIG(status)
    else:
        code = os.WEXITSTATUS(status)
    exit_mono = time.monotonic()
    cast.event("m", "exit %d" % code, exit_mono)
    cast.close()
    meta["exit_mono"] = exit_mono
    meta["exit_status"] = code
    write_meta()
    sys.exit(code)


if __name__ == "__main__":
    main()
