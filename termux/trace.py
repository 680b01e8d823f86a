"""Where a keystroke's time goes: a stamp at each stage of its way, off unless asked for.

With `TERMUX_TRACE=FILE` in its environment, a termux process (the server, the TUI) appends one
line per stage a keystroke passes, `<CLOCK_MONOTONIC ns> <stage>`, to FILE (opened O_APPEND, so
both processes may share it). Off (the default), every hook is one attribute test: `if TRACE.on`.

A keystroke's way, in order (`STAGES`): the TUI reads it from its terminal and sends it; the
server receives it, writes it to the session's PTY, reads the echo, parses it and pushes it; the
TUI receives the push, parses it into its shadow screen, asks for the view to be drawn, and
composes and writes the frame to its terminal. Each process stamps only its own stages, each
stage once per keystroke, and only after the stage before it (`Tracer.stamp`), so what a
process stamps while a key is on its way is that key's path, whatever else is happening.
`benchmarks/stages.py` lines the stamps up with the keys a benchmark typed.
"""

from __future__ import annotations

import os
import time

TUI_INPUT = ("tui.read", "tui.sent")
SERVER = ("server.received", "server.pty_written", "server.echo_read", "server.parsed", "server.pushed")
TUI_OUTPUT = ("tui.received", "tui.parsed", "tui.drawn", "tui.composed", "tui.written")
STAGES = TUI_INPUT + SERVER + TUI_OUTPUT

# Each process's stages, in order. The TUI's output half is a sequence of its own, armed by
# `tui.sent` (a push counts as a key's echo only once the key was sent): the next key read while
# this one's frame is still being written does not cut this one's record short.
_SEQUENCES = (TUI_INPUT, TUI_OUTPUT, SERVER)
_PLACE = {stage: (n, sequence.index(stage)) for n, sequence in enumerate(_SEQUENCES) for stage in sequence}
_ARMS = {"tui.sent": 1}  # stage -> the sequence it arms
_ARMED_ONLY = set(_ARMS.values())


class Tracer:
    """Stamps stages to a file; `on` is False (and nothing happens) without one."""

    def __init__(self, path: str | None) -> None:
        self.on = bool(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600) if path else -1
        # Per sequence: the index of the stage awaited next (-1: an armed-only one, not armed).
        self._next = [-1 if n in _ARMED_ONLY else 0 for n in range(len(_SEQUENCES))]
        self._session: list[str | None] = [None] * len(_SEQUENCES)  # the session the key went to

    def stamp(self, stage: str, session: str | None = None) -> None:
        """`stage` happened (for `session`, when the caller knows it). A sequence's first stage
        starts a keystroke's record (an armed-only sequence's, only once armed); a later stage
        counts only right after the one before it and, once the session is known, only for it."""
        now = time.monotonic_ns()
        sequence, index = _PLACE[stage]
        if index == 0 and sequence not in _ARMED_ONLY:
            self._session[sequence] = session
        elif index != self._next[sequence]:
            return
        elif session is not None:
            if self._session[sequence] is None:
                self._session[sequence] = session
            elif session != self._session[sequence]:
                return
        self._next[sequence] = index + 1
        if (armed := _ARMS.get(stage)) is not None:
            self._next[armed] = 0
            self._session[armed] = self._session[sequence]
        os.write(self._fd, f"{now} {stage}\n".encode())

    def mark(self, stage: str) -> None:
        """A stage of an attach (`ATTACH`), stamped each time it happens."""
        os.write(self._fd, f"{time.monotonic_ns()} {stage} {os.getpid()}\n".encode())


TRACE = Tracer(os.environ.get("TERMUX_TRACE"))
