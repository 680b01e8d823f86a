"""An agent's TUI: a full-screen redraw 20 times a second, by cursor addressing and SGR.

    agent.py [--unicode] [TALLY_DIR]

Each frame moves the cursor to every row of its terminal (CUP), writes the row in a few colours
(SGR) and clears the rest of it (EL), as coding agents and `top` redraw themselves; a spinner, a
clock and a scrolling transcript change from frame to frame. Like them, it draws at its terminal's
size, read before each frame (a resize shows in the next one); 120x40 when it has no terminal.
One frame is one write() (a "chunk"). The tally (TALLY_DIR/<pid> on SIGHUP or SIGTERM) is
e2e/programs/tally.py's. With --unicode it draws as most agents do, with one-cell characters beyond
ASCII (a box corner, a bar between columns, dotted rules, a prompt arrow), in the same columns.
"""

from __future__ import annotations

import os
import sys
import time

from tally import Tally  # (e2e/programs/, beside this script)

COLS, ROWS = 120, 40
PERIOD = 0.05
SPINNER = "|/-\\"
WORDS = "reading file planning edit running tests applying patch searching symbols thinking".split()
# (corner, bar, rule, prompt): each one cell wide
ASCII = (" ", " ", ".", ">")
UNICODE = ("╭", "│", "·", "❯")


def frame(n: int, cols: int = COLS, rows: int = ROWS, glyphs: tuple[str, str, str, str] = ASCII) -> bytes:
    corner, bar, dot, prompt = glyphs
    out = [f"\x1b[1;1H\x1b[1;37;44m{corner}agent {SPINNER[n % 4]} step {n:6d} ".ljust(cols) + "\x1b[m"]
    dots = max(0, cols - 31)  # (a row fits its terminal: 30 columns besides the dots, and one free)
    for row in range(2, rows):
        k = n + row
        word = WORDS[k % len(WORDS)]
        rule = dot * min(k % 60, dots)
        text = f"{k:6d}{bar}\x1b[33m{word:<16}\x1b[m \x1b[2m{rule}\x1b[m \x1b[32m{k * 7919 % 100000:05d}\x1b[m"
        out.append(f"\x1b[{row};1H{text}\x1b[K")
    out.append(f"\x1b[{rows};1H\x1b[7m {prompt} {'typing ' * (n % 9)}\x1b[m\x1b[K")
    return "".join(out).encode()


def size() -> tuple[int, int]:
    try:
        cols, rows = os.get_terminal_size(1)
    except OSError:
        return COLS, ROWS
    return cols, rows


def main() -> int:
    args = sys.argv[1:]
    glyphs = UNICODE if "--unicode" in args else ASCII
    rest = [arg for arg in args if arg != "--unicode"]
    tally = Tally(rest[0] if rest else None)
    os.write(1, b"\x1b[?1049h\x1b[2J")
    try:
        while True:
            data = frame(tally.chunks, *size(), glyphs=glyphs)
            view = memoryview(data)
            while view:
                view = view[os.write(1, view) :]
            tally.add(len(data))
            time.sleep(PERIOD)
    except OSError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
