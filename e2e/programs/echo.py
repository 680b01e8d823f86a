"""Echo program for the latency benchmark: raw mode, each byte received redraws one marker line.

For the Nth byte it draws `echo #N C` on a cleared line, so a reader can tell exactly when the
echo of a given keystroke became visible (the counter makes repeated characters unambiguous).
Ctrl-C or Ctrl-D ends it.
"""

from __future__ import annotations

import os
import sys
import termios
import tty


def main() -> int:
    saved = termios.tcgetattr(0)
    tty.setraw(0)  # every byte arrives alone and the tty itself echoes nothing
    try:
        os.write(1, b"\x1b[H\x1b[2Jecho ready\r\n")
        count = 0
        while data := os.read(0, 1024):
            out = []
            for byte in data:
                if byte in (3, 4):
                    return 0
                count += 1
                char = chr(byte) if 32 < byte < 127 else "?"
                out.append(f"\r\x1b[Kecho #{count} {char}")
            os.write(1, "".join(out).encode())
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
