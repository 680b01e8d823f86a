"""A full-screen program that redraws everything on each SIGWINCH, as vim does.

It draws `size COLSxROWS winches N` (N: the resizes it has seen), a rule of `=` exactly as wide as
its terminal, and `keys ...` (what it read, in raw mode). Ctrl-C or Ctrl-D ends it.
"""

from __future__ import annotations

import os
import signal
import sys
import termios
import tty
from types import FrameType

winches = 0
keys = ""


def draw() -> None:
    cols, rows = os.get_terminal_size(1)
    screen = f"\x1b[H\x1b[2Jsize {cols}x{rows} winches {winches}\r\n{'=' * cols}\r\nkeys {keys}"
    os.write(1, screen.encode())


def on_winch(signum: int, frame: FrameType | None) -> None:
    global winches
    winches += 1
    draw()


def main() -> int:
    global keys
    saved = termios.tcgetattr(0)
    tty.setraw(0)
    signal.signal(signal.SIGWINCH, on_winch)
    try:
        draw()
        while data := os.read(0, 1024):  # a SIGWINCH interrupts the read, redraws, and it resumes
            if b"\x03" in data or b"\x04" in data:
                return 0
            keys += data.decode(errors="replace")
            draw()
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
