"""Keeping the cycle collector's pauses short in the long-running processes (server and TUI)."""

from __future__ import annotations

import gc


def freeze_startup_objects() -> None:
    """Move everything alive now (modules, classes, functions: tens of thousands of objects that
    live as long as the process) out of the collector's sight, so a full collection walks only
    what was made since. Called once by a process's entry point as it starts, never by library
    code. No collection first: imports leave next to no garbage cycles (the young generations'
    own collections free what they make), while a full collection walks every object there is,
    on the way to the first paint (benchmarks/attach.py, the cold start)."""
    gc.freeze()


def freeze_survivors() -> None:
    """`freeze_startup_objects` in a process that has worked before (a TUI host, forked from a
    TUI that ran): its garbage is freed first, not frozen."""
    gc.collect()
    gc.freeze()
