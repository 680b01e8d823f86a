"""Cycle-collector pauses: how long one full collection stops a process that holds N sessions'
scrollback, with the scrollback stored as termux stores it and as it was stored before.

    python -m benchmarks.gc_pause                     # 16 sessions x 10,000 lines
    python -m benchmarks.gc_pause --sessions 100

A full (generation 2) collection walks every object the collector tracks; while it runs, the
server's loop (or the TUI's) does nothing else, so its length is a keystroke's worst wait. Each
row runs in a fresh interpreter that imports the server, builds N 80x24 screens and fills their
scrollback with a mix of plain and coloured lines, then times `gc.collect()` (median of 5):

- *cell styles*: each run of a history line styled by a cell namedtuple (termux before this
  benchmark existed): every line stays tracked;
- *run styles*: the style is a `RunStyle` made with gc=False (termux now): lines are untracked;
- *run styles + frozen start-up*: as the server and the TUI run, after `gc.freeze()` of what the
  imports made (termux.heap.freeze_startup_objects).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import markdown_table

MODES = {
    "cells": "cell styles (before)",
    "runs": "run styles",
    "frozen": "run styles + frozen start-up",
}
PLAIN = b"y\r\n"
COLOURED = b"\x1b[32m12:00:01\x1b[0m \x1b[1mINFO\x1b[0m request served in 3 ms\r\n"


def fill(sessions: int, lines: int) -> list[Any]:
    from termux.emulator import ByteStream, Screen

    screens = []
    for _ in range(sessions):
        screen = Screen(80, 24, history=lines)
        stream = ByteStream(screen)
        stream.feed(PLAIN * (lines // 2) + COLOURED * (lines // 2 + 24))
        screens.append(screen)
    return screens


def use_cell_styles(screens: list[Any]) -> None:
    """Store the same scrollback with every run's style a cell namedtuple, as termux did before."""
    import msgspec

    from termux.emulator.screen import Char

    cells: dict[Any, Any] = {}

    def cell(style: Any) -> Any:
        if style not in cells:
            fields = msgspec.structs.astuple(style)
            cells[style] = Char(" ", *fields[:-1]).with_ext(fields[-1])
        return cells[style]

    for screen in screens:
        lines = [tuple((text, cell(style)) for text, style in line) for line in screen.history]
        screen.history.clear()
        screen.history.extend(lines)


def measure(mode: str, sessions: int, lines: int) -> dict[str, float]:
    import termux.server.server  # noqa: F401  (what the server imports)
    from termux.heap import freeze_startup_objects

    if mode == "frozen":
        freeze_startup_objects()
    screens = fill(sessions, lines)
    if mode == "cells":
        use_cell_styles(screens)
    gc.collect()
    pauses = []
    for _ in range(5):
        started = time.perf_counter()
        gc.collect()
        pauses.append(time.perf_counter() - started)
    tracked = len(gc.get_objects())
    del screens
    return {"tracked": tracked, "pause_ms": statistics.median(pauses) * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="full-collection pause with many sessions of scrollback")
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--lines", type=int, default=10_000, help="scrollback lines per session")
    parser.add_argument("--mode", choices=list(MODES), help=argparse.SUPPRESS)  # one row, in this process
    args = parser.parse_args(argv)
    if args.mode:
        print(json.dumps(measure(args.mode, args.sessions, args.lines)))
        return 0
    rows = []
    for mode, label in MODES.items():
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.gc_pause",
                "--mode",
                mode,
                "--sessions",
                str(args.sessions),
                "--lines",
                str(args.lines),
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        result = json.loads(out.stdout)
        rows.append([label, f"{result['tracked']:,}", f"{result['pause_ms']:.1f}"])
    print(f"## Full collection with {args.sessions} sessions x {args.lines:,} lines of scrollback\n")
    print(markdown_table(["scrollback stored with", "objects tracked", "gc.collect() ms"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
