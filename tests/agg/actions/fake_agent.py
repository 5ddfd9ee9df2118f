#!/usr/bin/env python3
# A stand-in agent for the action tests: raw tty, bracketed paste on (like
# ink), echoes what it is typed, and logs every submitted message (Enter
# outside a paste) and every C-c to the file given as argv[1], one per line.
#
# The message "ask" opens an approval dialog drawn the way Claude Code draws
# one (numbered options, a "❯" cursor, "Esc to cancel"), "askmulti" a
# multi-select question with "[ ]" boxes and a review page. Like ink, the
# menus move with the arrow keys and ignore digits; Enter logs
# "CHOSE <label>", and submitting the review page logs "SUBMIT <a>,<b>".
# A key that arrives in the same read as another is a paste to ink: the menu
# ignores such reads and logs "DROPPED" (so a test sees keys sent too fast).
# "asklossy" opens the approval dialog but loses its first Down key (logs
# "LOST down"), as a busy agent may: respond must not confirm another option.
import os, sys, tty

log = open(sys.argv[1], "a", buffering=1)
fd = sys.stdin.fileno()
tty.setraw(fd)
out = sys.stdout

APPROVAL = ("Do you want to proceed?",
            ["Yes", "Yes, and don't ask again for mkdir commands in this project",
             "No, and tell Claude what to do differently (esc)"], False)
QUESTION = ("Which checks should the CI job run?", ["Unit tests", "Lint", "Type check"], True)
REVIEW = ("Ready to submit your answers?", ["Submit answers", "Cancel"], False)


def write(s):
    out.write(s)
    out.flush()


class Menu:
    def __init__(self, spec):
        self.question, self.options, self.multi = spec
        self.cursor, self.checked = 0, set()
        self.lose_down = False

    def draw(self):
        rows = ["\x1b[2J\x1b[H", " " + "─" * 60, " " + self.question, ""]
        for i, label in enumerate(self.options):
            mark = "❯" if i == self.cursor else " "
            box = ("[x] " if i in self.checked else "[ ] ") if self.multi else ""
            rows.append(" %s %d. %s%s" % (mark, i + 1, box, label))
        rows += ["", " Enter to select · ↑/↓ to navigate · Esc to cancel"]
        write("\r\n".join(rows) + "\r\n")


menu, answers = None, []


def menu_key(data):
    """Handles one read while a menu is open; returns False when it closed."""
    global menu, answers
    keys = {b"\x1b[A": "up", b"\x1b[B": "down", b"\x1b[C": "right", b" ": "space", b"\r": "enter",
            b"\x1b": "esc"}
    key = keys.get(data)
    if key is None:
        log.write("DROPPED %r\n" % data)
        return True
    if key == "esc":
        log.write("CANCELLED\n")
        menu = None
        write("\x1b[2J\x1b[Hcancelled\r\n")
        return False
    if key == "down" and menu.lose_down:
        menu.lose_down = False
        log.write("LOST down\n")
        return True
    if key == "up":
        menu.cursor = max(0, menu.cursor - 1)
    elif key == "down":
        menu.cursor = min(len(menu.options) - 1, menu.cursor + 1)
    elif key == "space" and menu.multi:
        menu.checked ^= {menu.cursor}
    elif key == "right" and menu.multi:
        answers = [menu.options[i] for i in sorted(menu.checked)]
        menu = Menu(REVIEW)
    elif key == "enter":
        label = menu.options[menu.cursor]
        if menu.question == REVIEW[0]:
            log.write(("SUBMIT " + ",".join(answers) if label == "Submit answers" else "CANCELLED") + "\n")
        elif not menu.multi:
            log.write("CHOSE " + label + "\n")
        menu = None
        write("\x1b[2J\x1b[Hanswered\r\n")
        return False
    menu.draw()
    return True


write("\x1b[?2004hagent ready\r\n")
buf, line, pasting = b"", b"", False
while True:
    data = os.read(fd, 4096)
    if not data:
        break
    if menu is not None:
        menu_key(data)
        continue
    buf += data
    while buf:
        if buf.startswith(b"\x1b[200~"): pasting, buf = True, buf[6:]; continue
        if buf.startswith(b"\x1b[201~"): pasting, buf = False, buf[6:]; continue
        if buf.startswith(b"\x1b") and len(buf) < 6: break
        c, buf = buf[:1], buf[1:]
        if c == b"\x03":
            log.write("INTERRUPT\n"); write("^C\r\n"); continue
        if c in (b"\r", b"\n") and not pasting:
            text = line.decode("utf-8", "replace")
            log.write("MSG " + text.replace("\n", "\\n") + "\n")
            write("\r\nGOT " + text.replace("\n", " / ") + "\r\n")
            if "finish" in text: write("DONE\r\n")
            if "explode" in text: write("FAIL\r\n")
            line = b""
            if text in ("ask", "asklossy", "askmulti"):
                menu = Menu(QUESTION if text == "askmulti" else APPROVAL)
                menu.lose_down = text == "asklossy"
                menu.draw()
                buf = b""
                break
            continue
        line += b"\n" if c == b"\r" else c
        write(c.decode("utf-8", "replace"))
