"""A chatty session: short log lines at a moderate, steady rate, as builds, test runs and servers print.

    chatty.py [TALLY_DIR]

The loop is the one issue 13 measures: `print(..., flush=True)` then `sleep(0.02)`, so about 50
lines a second, each one write() of one short line (a "chunk"). With TALLY_DIR, on SIGHUP or
SIGTERM (a multiplexer closing the session) it writes "lines bytes seconds" to TALLY_DIR/<pid>
before exiting, so a benchmark knows how many chunks were printed without counting them itself
(e2e/programs/tally.py).
"""

from __future__ import annotations

import sys
import time

from tally import Tally  # (e2e/programs/, beside this script)

PAUSE = 0.02


def line(n: int) -> str:
    stamp = f"2026-12-01T12:{n // 60000 % 60:02d}:{n // 1000 % 60:02d}.{n % 1000:03d}"
    return f"{stamp} INFO worker-{n % 8} request #{n} ok"


def main() -> int:
    tally = Tally(sys.argv[1] if len(sys.argv) > 1 else None)
    try:
        while True:
            text = line(tally.chunks)
            print(text, flush=True)
            tally.add(len(text) + 2)  # the tty's CR LF
            time.sleep(PAUSE)
    except OSError:  # the terminal went away
        return 0


if __name__ == "__main__":
    sys.exit(main())
