"""The one slicing policy termux applies in two places (sans-I/O, no asyncio).

The server's `OutputPump` (termux/server/scheduler.py) parses each session's PTY output into its
screen; the TUI's `Feeder` (termux/tui/feed.py) parses pushed output into its shadow screens. Both
work the same way and use these names for it:

- a **slice** is one bounded piece of work on one session (`Slice`): it ends at a byte bound or
  when its time budget is spent, and the loop yields after it, so a keystroke or a request waits
  for at most one slice;
- **focused** sessions (what a view shows) go first (`SliceOrder`), with the larger
  `FOCUSED_BUDGET`; then the **visible** ones (shown in a pane beside a focus); the others take
  turns, round robin, with `BACKGROUND_BUDGET`;
- after a background slice the loop may **rest** so that background work takes at most a share
  of the time (`rest_after`); output for a focused session ends a rest at once.
"""

from __future__ import annotations

from dataclasses import dataclass

# A slice's time budget: it bounds how long input waits behind a slice whatever the emulator's
# speed on that output. A focused session's output is what the person is waiting for, so its
# slices are longer.
FOCUSED_BUDGET = 0.008
BACKGROUND_BUDGET = 0.002
# Within a slice, output is fed in pieces sized to the time left at the speed the session's output
# last parsed (`ParseRate`); a session's first piece, its speed unknown, is PARSE_CHUNK.
PARSE_CHUNK = 1024


class SliceOrder:
    """Sessions waiting for a slice, in the order they will be served: a focused one first, then
    one shown in a pane beside a focus (`visible`), else the head of the round-robin queue; the
    chosen one moves to the back (round robin within each tier)."""

    def __init__(self) -> None:
        self._waiting: dict[str, None] = {}  # insertion-ordered set: the round-robin queue
        self.focused: set[str] = set()
        self.visible: set[str] = set()  # on view beside a focus, focused by none

    def __len__(self) -> int:
        return len(self._waiting)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._waiting

    def add(self, session_id: str) -> None:
        self._waiting.setdefault(session_id, None)

    def discard(self, session_id: str) -> None:
        self._waiting.pop(session_id, None)

    def next(self) -> str | None:
        """The session to serve next; it moves to the back of the queue (round robin)."""
        if not self._waiting:
            return None
        chosen = next((sid for sid in self._waiting if sid in self.focused), None)
        if chosen is None and self.visible:
            chosen = next((sid for sid in self._waiting if sid in self.visible), None)
        if chosen is None:
            chosen = next(iter(self._waiting))
        del self._waiting[chosen]
        self._waiting[chosen] = None
        return chosen


@dataclass(frozen=True)
class Slice:
    """What one slice did: it worked on `session` (a focused one or not) for `seconds`."""

    session: str
    focused: bool
    seconds: float


def rest_after(seconds: float, share: float) -> float:
    """The rest after a background slice of `seconds` that keeps background work to `share` of
    the time."""
    return seconds * (1 / share - 1)


class ParseRate:
    """Bytes per second each session's output parsed at lately (sans-I/O: the caller times)."""

    def __init__(self, chunk: int = PARSE_CHUNK) -> None:
        self.chunk = chunk  # the first piece, the speed unknown, and the smallest
        self._rates: dict[str, float] = {}

    def piece(self, session_id: str, seconds_left: float, room: int) -> int:
        """How many bytes to feed next: what parses in `seconds_left`, at least `chunk`."""
        rate = self._rates.get(session_id)
        if rate is None:
            return min(self.chunk, room)
        return min(room, max(self.chunk, round(rate * seconds_left)))  # (int() would cut a float error)

    def parsed(self, session_id: str, nbytes: int, seconds: float, budget: float) -> None:
        """`nbytes` took `seconds` in a slice of `budget` seconds. A feed costs a fixed part plus a
        part per byte, so a small piece (the last of a slice, cut short by the time left)
        understates the speed: only pieces of at least a quarter of a slice's worth teach it."""
        if nbytes < self.chunk or seconds <= 0:
            return  # too small to say anything
        old = self._rates.get(session_id)
        if old is not None and nbytes < old * budget / 4:
            return
        rate = nbytes / seconds
        self._rates[session_id] = rate if old is None else (old + rate) / 2

    def forget(self, session_id: str) -> None:
        self._rates.pop(session_id, None)
