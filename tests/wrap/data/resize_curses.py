#!/usr/bin/env python3
"""A small curses program for the transparency test: draws a box around the
whole window with its size in the middle and a line of wide glyphs, redraws
on every resize (KEY_RESIZE), echoes typed keys, quits on 'q'."""
import curses


def draw(scr, keys):
    scr.erase()
    rows, cols = scr.getmaxyx()
    scr.border()
    msg = "size %dx%d" % (cols, rows)
    scr.addstr(rows // 2, max(1, (cols - len(msg)) // 2), msg, curses.A_BOLD)
    if rows > 4 and cols > 20:
        scr.addstr(1, 2, "keys: " + keys[-(cols - 10):])
        scr.addstr(2, 2, "\u2733 \u6f22\u5b57 \u2714", curses.color_pair(1))
    scr.refresh()


def main(scr):
    curses.start_color()
    curses.use_default_colors()
    curses.init_pair(1, curses.COLOR_GREEN, -1)
    curses.curs_set(0)
    keys = ""
    draw(scr, keys)
    while True:
        ch = scr.get_wch()
        if ch == curses.KEY_RESIZE:
            curses.update_lines_cols()
        elif ch == "q":
            return
        elif isinstance(ch, str):
            keys += ch
        draw(scr, keys)


curses.wrapper(main)
