#!/usr/bin/env python3
# A stand-in agent for the action tests: raw tty, bracketed paste on (like
# ink), echoes what it is typed, and logs every submitted message (Enter
# outside a paste) and every C-c to the file given as argv[1], one per line.
import os, sys, termios, tty
log = open(sys.argv[1], "a", buffering=1)
fd = sys.stdin.fileno()
tty.setraw(fd)
out = sys.stdout
out.write("\x1b[?2004hagent ready\r\n"); out.flush()
buf, line, pasting = b"", b"", False
while True:
    data = os.read(fd, 4096)
    if not data:
        break
    buf += data
    while buf:
        if buf.startswith(b"\x1b[200~"): pasting, buf = True, buf[6:]; continue
        if buf.startswith(b"\x1b[201~"): pasting, buf = False, buf[6:]; continue
        if buf.startswith(b"\x1b") and len(buf) < 6: break
        c, buf = buf[:1], buf[1:]
        if c == b"\x03":
            log.write("INTERRUPT\n"); out.write("^C\r\n"); out.flush(); continue
        if c in (b"\r", b"\n") and not pasting:
            text = line.decode("utf-8", "replace")
            log.write("MSG " + text.replace("\n", "\\n") + "\n")
            out.write("\r\nGOT " + text.replace("\n", " / ") + "\r\n")
            if "finish" in text: out.write("DONE\r\n")
            if "explode" in text: out.write("FAIL\r\n")
            out.flush(); line = b""; continue
        line += b"\n" if c == b"\r" else c
        out.write(c.decode("utf-8", "replace")); out.flush()
