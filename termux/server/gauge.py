"""How busy the server's event loop is, measured at the selector, plus opt-in debugging aids.

- `LoopGauge` — the loop's utilisation over the last few seconds, from the time spent outside the
  selector: `termux server` makes its loop with `metered_loop`, over a selector whose `select()`
  tells the gauge (`TimedSelector`), so the cost is two clock reads and a few additions per loop
  iteration, nothing per callback, and nothing at all while idle (no timer: the window is brought
  up to date when the loop wakes or when someone asks). `server.stats` reports it under `loop`.
- `SlowCallbackMonitor` — times every callback and logs the ones over a threshold. It costs
  something on every callback, so it exists only when `TERMUX_DEBUG_SLOW_MS` is set.
- `server.profile {action: "start"|"stop"}` — pyinstrument over a window chosen by a benchmark
  (`--profile`), so start-up is never in the profile. Refused unless `TERMUX_PROFILE` is set.
"""

from __future__ import annotations

import asyncio
import logging
import os
import selectors
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.messages import Args
from termux.server.handlers import Context

log = logging.getLogger(__name__)

Clock = Callable[[], float]

# The utilisation window: BUCKETS slots of BUCKET seconds; the oldest slot is reused as time moves.
BUCKET = 0.5
BUCKETS = 10
SLOW_ENV = "TERMUX_DEBUG_SLOW_MS"
PROFILE_ENV = "TERMUX_PROFILE"


class LoopGauge:
    """Busy time of a loop, bucketed by when each busy stretch ended (a pure state machine).

    The loop calls `idle()` as it enters select and `wake()` as select returns; everything between
    a wake and the next idle is one busy stretch (one loop iteration: I/O callbacks, ready handles).
    """

    def __init__(self, clock: Clock = time.perf_counter) -> None:
        self.clock = clock
        self.started = clock()
        self.busy_since: float | None = self.started  # None while in select
        self.busy_total = 0.0
        self.iterations = 0
        # Per slot: [bucket number, busy seconds, longest stretch, iterations].
        self._slots: list[list[float]] = [[-1, 0.0, 0.0, 0] for _ in range(BUCKETS)]

    def idle(self) -> None:
        now = self.clock()
        if self.busy_since is None:
            return
        busy = now - self.busy_since
        self.busy_since = None
        self.busy_total += busy
        self.iterations += 1
        number = int(now // BUCKET)
        slot = self._slots[number % BUCKETS]
        if slot[0] != number:
            slot[0], slot[1], slot[2], slot[3] = number, 0.0, 0.0, 0
        slot[1] += busy
        slot[3] += 1
        if busy > slot[2]:
            slot[2] = busy

    def wake(self) -> None:
        if self.busy_since is None:
            self.busy_since = self.clock()

    def report(self) -> dict[str, Any]:
        """Utilisation over the last BUCKETS * BUCKET seconds (less right after start-up)."""
        now = self.clock()
        current = int(now // BUCKET)
        oldest = current - BUCKETS + 1
        live = [s for s in self._slots if oldest <= s[0] <= current]
        ongoing = 0.0 if self.busy_since is None else now - self.busy_since
        busy = sum(s[1] for s in live) + ongoing
        window = min(now - self.started, now - oldest * BUCKET)
        return {
            "utilisation": round(min(1.0, busy / window), 4) if window > 0 else 0.0,
            "window": round(window, 3),
            "busy": round(busy, 6),
            "busy_max_ms": round(max([s[2] for s in live] + [ongoing]) * 1000, 3),
            "iterations": int(sum(s[3] for s in live)),
            "busy_total": round(self.busy_total + ongoing, 6),
            "iterations_total": self.iterations,
        }


class TimedSelector(selectors.BaseSelector):
    """A selector that tells a LoopGauge when the loop goes idle and wakes; all else is delegated."""

    def __init__(self, inner: selectors.BaseSelector, gauge: LoopGauge) -> None:
        self.inner = inner
        self.gauge = gauge

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        self.gauge.idle()
        try:
            return self.inner.select(timeout)
        finally:
            self.gauge.wake()

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self.inner.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.inner.modify(fileobj, events, data)

    def get_key(self, fileobj: Any) -> selectors.SelectorKey:
        return self.inner.get_key(fileobj)

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self.inner.get_map()

    def close(self) -> None:
        self.inner.close()


def metered_loop(gauge: LoopGauge, selector: selectors.BaseSelector | None = None) -> asyncio.SelectorEventLoop:
    """A selector event loop that tells `gauge` when it goes idle and wakes. asyncio's public
    constructor takes the selector, so nothing of the loop is replaced after the fact; a server
    running in a loop made otherwise (a test's, a host program's) has no gauge."""
    return asyncio.SelectorEventLoop(TimedSelector(selector or selectors.DefaultSelector(), gauge))


# -- slow callbacks (opt-in) -----------------------------------------------------------------------


class SlowCallbackMonitor:
    """Times each callback the loop runs (asyncio.Handle._run) and logs those over `threshold`."""

    def __init__(self, threshold: float, clock: Clock = time.perf_counter, keep: int = 20) -> None:
        self.threshold = threshold
        self.clock = clock
        self.keep = keep
        self.count = 0
        self.slowest: list[tuple[float, str]] = []  # at most `keep`, slowest first
        self._original: Callable[[asyncio.Handle], None] | None = None

    def enable(self) -> None:
        if self._original is not None:
            return
        original = asyncio.Handle._run
        monitor = self

        def timed_run(handle: asyncio.Handle) -> None:
            start = monitor.clock()
            try:
                original(handle)
            finally:
                elapsed = monitor.clock() - start
                if elapsed >= monitor.threshold:
                    monitor.record(handle, elapsed)

        self._original = original
        asyncio.Handle._run = timed_run  # type: ignore[method-assign,assignment]

    def disable(self) -> None:
        if self._original is not None:
            asyncio.Handle._run = self._original  # type: ignore[method-assign,assignment]
            self._original = None

    @property
    def enabled(self) -> bool:
        return self._original is not None

    def record(self, handle: asyncio.Handle, elapsed: float) -> None:
        self.count += 1
        what = _describe(handle)
        self.slowest.append((elapsed, what))
        self.slowest.sort(key=lambda item: -item[0])
        del self.slowest[self.keep :]
        log.warning("slow callback: %.1f ms in %s", elapsed * 1000, what)

    def report(self) -> dict[str, Any]:
        return {
            "threshold_ms": self.threshold * 1000,
            "count": self.count,
            "slowest": [{"ms": round(e * 1000, 3), "callback": w} for e, w in self.slowest[:5]],
        }


def _describe(handle: asyncio.Handle) -> str:
    callback = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        return f"task {owner.get_name()} ({getattr(coro, '__qualname__', coro)!s})"
    return getattr(callback, "__qualname__", None) or repr(callback)


def slow_monitor_from_env(environ: Mapping[str, str] = os.environ) -> SlowCallbackMonitor | None:
    """A started monitor when TERMUX_DEBUG_SLOW_MS is a positive number of milliseconds, else None."""
    value = environ.get(SLOW_ENV, "").strip()
    if not value:
        return None
    try:
        threshold_ms = float(value)
    except ValueError:
        log.warning("ignoring %s=%r: not a number of milliseconds", SLOW_ENV, value)
        return None
    if threshold_ms <= 0:
        return None
    monitor = SlowCallbackMonitor(threshold_ms / 1000)
    monitor.enable()
    log.info("slow-callback monitor on: callbacks over %g ms are logged", threshold_ms)
    return monitor


# -- the server's side -----------------------------------------------------------------------------


class Instruments:
    """What the server keeps: the loop gauge, and the slow-callback monitor when enabled."""

    def __init__(self, gauge: LoopGauge | None, slow: SlowCallbackMonitor | None) -> None:
        self.gauge = gauge
        self.slow = slow
        self.profiler: Any = None

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {"loop": self.gauge.report() if self.gauge else None}
        if self.slow is not None:
            out["slow_callbacks"] = self.slow.report()
        return out

    def close(self) -> None:
        if self.slow is not None:
            self.slow.disable()


def stream_queues(connections: Iterable[Any]) -> dict[str, int]:
    """Events each event-stream subscriber has not been sent yet, for those behind at all, keyed
    by peer pid (like `client_buffers`): a subscriber falling behind shows here before it is
    dropped. The subscriber's queue is a view of the log, so this is `behind` (events after its
    cursor, whatever its filter)."""
    out: dict[str, int] = {}
    for conn in connections:
        stream = getattr(conn, "stream", None)
        sub = getattr(stream, "sub", None)
        behind = getattr(sub, "behind", 0) if sub is not None else 0
        if behind:
            out[str(conn.peer_pid)] = int(behind)
    return out


class ProfileArgs(Args):
    action: Literal["start", "stop"]


def server_profile(ctx: Context, args: ProfileArgs) -> dict[str, Any]:
    """Start or stop profiling the server (benchmarks' --profile: only the measured window)."""
    if not os.environ.get(PROFILE_ENV):
        raise ProtocolError(ErrorCode.BAD_ARGS, f"profiling is off: start the server with {PROFILE_ENV}=1")
    instruments: Instruments = ctx.server.instruments
    if args.action == "start":
        if instruments.profiler is not None:
            raise ProtocolError(ErrorCode.BAD_ARGS, "a profile is already running")
        from pyinstrument import Profiler

        instruments.profiler = Profiler(async_mode="disabled")
        instruments.profiler.start()
        return {}
    if instruments.profiler is None:
        raise ProtocolError(ErrorCode.BAD_ARGS, "no profile is running")
    profiler, instruments.profiler = instruments.profiler, None
    profiler.stop()
    return {"text": profiler.output_text(unicode=True, color=False)}
