"""A coloured log-line flood: SGR-coloured timestamped lines as fast as the terminal takes them.

    colorlog.py            # forever
    colorlog.py BYTES      # stop after about BYTES bytes (exit 0)

Lines are built from a small fixed set of parts so generating them costs far less than drawing
them; a running counter keeps consecutive lines different.
"""

from __future__ import annotations

import os
import sys

LEVELS = [
    b"\x1b[32mINFO \x1b[0m",
    b"\x1b[36mDEBUG\x1b[0m",
    b"\x1b[33mWARN \x1b[0m",
    b"\x1b[1;31mERROR\x1b[0m",
    b"\x1b[32mINFO \x1b[0m",
]
MESSAGES = [
    b"request handled path=/api/v1/items status=\x1b[32m200\x1b[0m",
    b"cache miss key=user:profile shard=\x1b[35m7\x1b[0m retrying",
    b"connection pool exhausted waiting=\x1b[33m12\x1b[0m",
    b"checksum mismatch block=\x1b[1;31m0x3fa2\x1b[0m requeued",
    b"worker started pid=\x1b[34m4242\x1b[0m queue=default",
]


def block(start: int, lines: int = 256) -> bytes:
    out = []
    for n in range(start, start + lines):
        ts = b"\x1b[2m2026-11-30T23:%02d:%02d.%03dZ\x1b[0m" % (n // 60000 % 60, n // 1000 % 60, n % 1000)
        who = b"\x1b[1m[svc.worker-%d]\x1b[0m" % (n % 16)
        level, message = LEVELS[n % len(LEVELS)], MESSAGES[n % len(MESSAGES)]
        out.append(b"%s %s %s %s seq=%d\n" % (ts, level, who, message, n))
    return b"".join(out)


def main() -> int:
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else None
    written = 0
    n = 0
    try:
        while limit is None or written < limit:
            chunk = block(n)
            n += 256
            view = memoryview(chunk)
            while view:
                view = view[os.write(1, view) :]
            written += len(chunk)
    except (BrokenPipeError, OSError):
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
