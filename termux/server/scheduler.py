"""The server's output scheduler: which session's unparsed output is parsed next, and how much.

Requests and input are handled by protocol callbacks as soon as their bytes arrive; output parsing
runs in one task that takes one bounded slice at a time and yields to the loop between slices, so a
request never waits behind more than one slice. Sessions that an attached client is looking at go
first; the rest take turns (round robin), so one flood cannot starve another.

`SliceOrder` is the pure decision; `OutputPump` is the thin asyncio loop around it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Protocol

SLICE_BYTES = 16 * 1024


class Parseable(Protocol):
    id: str

    def parse_slice(self, budget: int) -> tuple[int, bytes]: ...

    def drained(self) -> None: ...

    @property
    def has_backlog(self) -> bool: ...


class SliceOrder:
    """Sessions waiting to be parsed, in the order they will be served."""

    def __init__(self) -> None:
        self._waiting: dict[str, None] = {}  # insertion-ordered set: the round-robin queue
        self.focused: set[str] = set()

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, session_id: str) -> None:
        self._waiting.setdefault(session_id, None)

    def discard(self, session_id: str) -> None:
        self._waiting.pop(session_id, None)

    def next(self) -> str | None:
        """The session to parse next; it moves to the back of the queue (round robin)."""
        if not self._waiting:
            return None
        chosen = next((sid for sid in self._waiting if sid in self.focused), None)
        if chosen is None:
            chosen = next(iter(self._waiting))
        del self._waiting[chosen]
        self._waiting[chosen] = None
        return chosen

    def waiting(self) -> Iterable[str]:
        return iter(self._waiting)


class OutputPump:
    """Parses backlogs one slice at a time; sleeps on an asyncio.Event (no timer) when idle."""

    def __init__(
        self,
        lookup: Callable[[str], Parseable | None],
        on_parsed: Callable[[Parseable, int, bytes], None],
        slice_bytes: int = SLICE_BYTES,
    ) -> None:
        self.order = SliceOrder()
        self.slice_bytes = slice_bytes
        self._lookup = lookup
        self._on_parsed = on_parsed
        self._wake = asyncio.Event()
        self.slices = 0

    def notify(self, session_id: str) -> None:
        self.order.add(session_id)
        self._wake.set()

    def step(self) -> bool:
        """Parse one slice of the next session; False when nothing was waiting."""
        session_id = self.order.next()
        if session_id is None:
            return False
        session = self._lookup(session_id)
        if session is None:
            self.order.discard(session_id)
            return True
        offset, chunk = session.parse_slice(self.slice_bytes)
        self.slices += 1
        if not session.has_backlog:
            self.order.discard(session_id)
        if chunk:
            self._on_parsed(session, offset, chunk)
        if not session.has_backlog:
            session.drained()
        return True

    async def run(self) -> None:
        while True:
            if not self.step():
                self._wake.clear()
                await self._wake.wait()
                continue
            await asyncio.sleep(0)  # let requests and input in between slices
