"""The tally that e2e/programs/chatty.py and agent.py leave when a multiplexer closes their session.

With a TALLY_DIR (their first argument), on SIGHUP or SIGTERM the program writes "chunks bytes
seconds" to TALLY_DIR/<pid> and exits at once, so that a benchmark (benchmarks/chatty.py
`read_tally`) knows how much was printed without counting it itself.
"""

from __future__ import annotations

import os
import signal
import time
from types import FrameType


class Tally:
    """Chunks and bytes written since the program started; installs the signal handlers."""

    def __init__(self, directory: str | None) -> None:
        self.directory = directory  # None: nothing is written
        self.chunks = 0
        self.bytes = 0
        self.started = time.monotonic()
        for sig in (signal.SIGHUP, signal.SIGTERM):
            signal.signal(sig, self._closed)

    def add(self, written: int) -> None:
        """One chunk of `written` bytes went out."""
        self.chunks += 1
        self.bytes += written

    def _closed(self, signum: int, frame: FrameType | None) -> None:
        if self.directory is not None:
            with open(os.path.join(self.directory, str(os.getpid())), "w") as f:
                f.write(f"{self.chunks} {self.bytes} {time.monotonic() - self.started:.6f}\n")
        os._exit(0)
