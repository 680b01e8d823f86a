"""A rest that output can cut short: the server's pump and the TUI's feeder both rest after
background work (termux/slicing.py: `rest_after`), and output for what a person looks at ends the
rest at once."""

from __future__ import annotations

import asyncio


class Rest:
    """One rest at a time. `take` waits on a single future that either the timer or `end`
    settles, so the resting task runs in the loop's next pass after `end` (an Event waited on
    through wait_for would take three passes: the waiting task, its done callback, then the task)."""

    def __init__(self) -> None:
        self._end: asyncio.Future[None] | None = None

    @property
    def resting(self) -> bool:
        return self._end is not None

    async def take(self, seconds: float) -> None:
        """Rest `seconds`, or until `end`."""
        loop = asyncio.get_running_loop()
        ended = self._end = loop.create_future()
        timer = loop.call_later(seconds, _settle, ended)
        try:
            await ended
        finally:
            timer.cancel()
            self._end = None

    def end(self) -> None:
        """End the rest being taken, if one is."""
        if self._end is not None:
            _settle(self._end)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
