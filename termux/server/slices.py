"""Long work for one request, in slices: the loop gets a turn between them, so a capture or a grep
of a long history never holds up other requests or keystrokes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

CHECK_ROWS = 16  # rows worked on between checks of the clock


async def in_slices(count: int, work: Callable[[int, int], None], budget: float, batch: int = CHECK_ROWS) -> None:
    """Call `work(start, stop)` on consecutive batches of `range(count)`, yielding to the loop each
    time `budget` seconds have been spent (at least one batch a slice, however small the budget)."""
    done = 0
    while True:
        deadline = time.perf_counter() + budget
        while True:
            stop = min(count, done + batch)
            work(done, stop)
            done = stop
            if done >= count:
                return
            if time.perf_counter() >= deadline:
                break
        await asyncio.sleep(0)
