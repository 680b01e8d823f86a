"""Keeping the cycle collector's pauses short in the long-running processes (server and TUI)."""

from __future__ import annotations

import gc


def freeze_startup_objects() -> None:
    """Move everything alive now (modules, classes, functions: tens of thousands of objects that
    live as long as the process) out of the collector's sight, so a full collection walks only
    what was made since. Called once by a process's entry point, never by library code."""
    gc.collect()  # garbage made so far is freed, not frozen
    gc.freeze()
