"""A loop that keeps account of what it does, through asyncio's public API only.

`WatchedLoop` is a selector event loop built with the public constructor over a selector the
test keeps (`loop.selector`: what is registered for reading), wrapped by the server's own
`TimedSelector` (`loop.passes`: one per select, that is per loop pass). `call_at` (which
`call_later`, `asyncio.sleep` and `wait_for` go through) and `call_soon` are overridden, both
public methods, to record each timer and each queued callback and whether it ran.

`@in_watched_loop` runs an async test in one (instead of pytest-asyncio's loop).
"""

from __future__ import annotations

import asyncio
import functools
import selectors
from collections.abc import Callable, Coroutine
from contextvars import Context
from typing import Any, ParamSpec

from termux.server.gauge import LoopGauge, TimedSelector

P = ParamSpec("P")


class Timer:
    """One `call_at`: its handle, what it calls, and whether it fired."""

    def __init__(self, loop: WatchedLoop, callback: Callable[..., object]) -> None:
        self.loop = loop
        self.callback = callback
        self.fired = False
        self.handle: asyncio.TimerHandle | None = None

    def fire(self, *args: Any) -> None:
        self.fired = True
        self.loop.fired += 1
        self.callback(*args)

    @property
    def pending(self) -> bool:
        return not self.fired and self.handle is not None and not self.handle.cancelled()


class WatchedLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self.gauge = LoopGauge()
        self.selector = selectors.DefaultSelector()
        super().__init__(TimedSelector(self.selector, self.gauge))
        self.timers: list[Timer] = []
        self.fired = 0  # timers that fired
        self._queued: dict[asyncio.Handle, None] = {}  # call_soon callbacks neither run nor cancelled

    @property
    def passes(self) -> int:
        return self.gauge.iterations

    def call_at(  # type: ignore[override]
        self, when: float, callback: Callable[..., object], *args: Any, context: Context | None = None
    ) -> asyncio.TimerHandle:
        timer = Timer(self, callback)
        timer.handle = super().call_at(when, timer.fire, *args, context=context)
        self.timers.append(timer)
        return timer.handle

    def call_soon(  # type: ignore[override]
        self, callback: Callable[..., object], *args: Any, context: Context | None = None
    ) -> asyncio.Handle:
        handle: asyncio.Handle | None = None

        def run(*args: Any) -> None:
            self._queued.pop(handle, None)  # type: ignore[arg-type]
            callback(*args)

        handle = super().call_soon(run, *args, context=context)
        self._queued[handle] = None
        return handle

    def pending_timers(self) -> list[Timer]:
        """Timers armed and neither cancelled nor fired."""
        return [t for t in self.timers if t.pending]

    def queued(self) -> list[asyncio.Handle]:
        """Callbacks queued to run on the next pass (call_soon), not run or cancelled yet."""
        return [h for h in self._queued if not h.cancelled()]

    def reading(self, fd: int) -> bool:
        """Whether the loop watches `fd` for reading (add_reader)."""
        try:
            return bool(self.selector.get_key(fd).events & selectors.EVENT_READ)
        except KeyError:
            return False


def watched() -> WatchedLoop:
    """The running loop, which `in_watched_loop` made."""
    loop = asyncio.get_running_loop()
    assert isinstance(loop, WatchedLoop), "run the test with @in_watched_loop"
    return loop


def in_watched_loop(test: Callable[P, Coroutine[Any, Any, None]]) -> Callable[P, None]:
    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        with asyncio.Runner(loop_factory=WatchedLoop) as runner:
            runner.run(test(*args, **kwargs))

    return run
