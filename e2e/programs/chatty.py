"""A chatty session: short log lines at a moderate, steady rate, as builds, test runs and servers print.

    chatty.py [TALLY_DIR]

The loop is the one issue 13 measures: `print(..., flush=True)` then `sleep(0.02)`, so about 50
lines a second, each one write() of one short line (a "chunk"). With TALLY_DIR, on SIGHUP or
SIGTERM (a multiplexer closing the session) it writes "lines bytes seconds" to TALLY_DIR/<pid>
before exiting, so a benchmark knows how many chunks were printed without counting them itself.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from types import FrameType

PAUSE = 0.02


def line(n: int) -> str:
    stamp = f"2026-12-01T12:{n // 60000 % 60:02d}:{n // 1000 % 60:02d}.{n % 1000:03d}"
    return f"{stamp} INFO worker-{n % 8} request #{n} ok"


def main() -> int:
    tally = sys.argv[1] if len(sys.argv) > 1 else None
    started = time.monotonic()
    lines = written = 0

    def stop(signum: int, frame: FrameType | None) -> None:
        if tally is not None:
            with open(os.path.join(tally, str(os.getpid())), "w") as f:
                f.write(f"{lines} {written} {time.monotonic() - started:.6f}\n")
        os._exit(0)

    for sig in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, stop)
    try:
        while True:
            text = line(lines)
            print(text, flush=True)
            lines += 1
            written += len(text) + 2  # the tty's CR LF
            time.sleep(PAUSE)
    except OSError:  # the terminal went away
        return 0


if __name__ == "__main__":
    sys.exit(main())
