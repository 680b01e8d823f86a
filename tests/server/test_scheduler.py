"""The server's priorities: slice order, bounded slices with yields, and PTY flow control."""

from __future__ import annotations

import asyncio
from pathlib import Path

from termux.protocol.messages import NewArgs
from termux.server.scheduler import (
    BACKGROUND_BUDGET,
    FOCUSED_BUDGET,
    PARSE_CHUNK,
    SLICE_BYTES,
    ForwardBudget,
    OutputPump,
    SliceOrder,
)
from termux.server.server import Server
from termux.server.session import HIGH_WATERMARK, LOW_WATERMARK, READ_SIZE, Session


def test_focused_sessions_go_first_and_the_rest_take_turns() -> None:
    order = SliceOrder()
    for sid in ("%0", "%1", "%2"):
        order.add(sid)
    assert [order.next() for _ in range(4)] == ["%0", "%1", "%2", "%0"]
    order.focused = {"%2"}
    assert [order.next() for _ in range(3)] == ["%2", "%2", "%2"]
    order.discard("%2")
    assert [order.next() for _ in range(3)] == ["%1", "%0", "%1"]
    order.add("%1")  # adding a waiting session again does not give it a second turn
    assert len(order) == 2


def _reading(session: Session) -> bool:
    selector = asyncio.get_running_loop()._selector  # type: ignore[attr-defined]
    try:
        return bool(selector.get_key(session.fd).events & 1)
    except KeyError:
        return False


async def _flooding_session(server: Server) -> Session:
    return server.new_session(NewArgs(name="flood", command=["yes", "x" * 200]))


async def test_a_flood_pauses_reads_above_the_high_watermark_and_resumes_below_the_low(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path / "sock")  # the output pump is not running: nothing parses
    session = await _flooding_session(server)
    full = asyncio.Event()

    def ready(s: Session) -> None:
        server.pump.notify(s.id)
        if s.backlog.size >= HIGH_WATERMARK:
            full.set()

    session.hooks.output_ready = ready
    await full.wait()
    await asyncio.sleep(0)
    assert session.reading_paused and not _reading(session)
    assert HIGH_WATERMARK <= session.backlog.size < HIGH_WATERMARK + READ_SIZE
    held = session.backlog.size
    for _ in range(20):  # the loop goes on; the paused PTY is not read
        await asyncio.sleep(0)
    assert session.backlog.size == held
    # parse slice by slice: reads stay paused until the backlog is at the low watermark
    while session.backlog.size > LOW_WATERMARK:
        assert session.reading_paused and not _reading(session)
        assert server.pump.step()
    assert not session.reading_paused and _reading(session)
    assert session.bytes_parsed == held - session.backlog.size
    await server.kill_session(session)


async def test_the_pump_yields_to_the_loop_after_every_slice(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    floods = [server.new_session(NewArgs(name=f"f{i}", command=["yes"])) for i in range(3)]
    full = asyncio.Event()
    for session in floods:
        session.hooks.output_ready = lambda s: (server.pump.notify(s.id), full.set())  # type: ignore[func-returns-value]
    await full.wait()
    pump = asyncio.create_task(server.pump.run())
    seen: list[int] = []
    try:
        for _ in range(50):
            before = server.pump.slices
            await asyncio.sleep(0)  # this coroutine is "a request": it must get a turn every slice
            seen.append(server.pump.slices - before)
    finally:
        pump.cancel()
    assert max(seen) <= 1
    assert sum(seen) > 0  # the pump did run in between
    for session in floods:
        await server.kill_session(session)


async def test_with_nothing_to_parse_the_pump_sleeps_without_a_timer(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    loop = asyncio.get_running_loop()
    pump = asyncio.create_task(server.pump.run())
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    timers = [h for h in loop._scheduled if not h.cancelled()]  # type: ignore[attr-defined]
    assert timers == []
    assert not loop._ready  # type: ignore[attr-defined]  # nothing is scheduled to run again
    pump.cancel()


class _Backlog:
    """A session stand-in with a plain byte backlog (the pump only needs the Parseable protocol)."""

    def __init__(self, session_id: str, size: int) -> None:
        self.id = session_id
        self.left = size
        self.parsed = 0
        self.calls: list[int] = []

    @property
    def has_backlog(self) -> bool:
        return self.left > 0

    def parse_slice(self, budget: int) -> tuple[int, bytes]:
        take = min(budget, self.left)
        offset = self.parsed
        self.left -= take
        self.parsed += take
        self.calls.append(take)
        return offset, b"x" * take

    def drained(self) -> None:
        pass


def _pump_with_clock(sessions: dict[str, _Backlog], tick: float) -> tuple[OutputPump, list[tuple[str, int, int]]]:
    """A pump whose clock advances `tick` seconds each time it is read (parsing "takes" time)."""
    now = [0.0]

    def clock() -> float:
        now[0] += tick
        return now[0]

    forwarded: list[tuple[str, int, int]] = []
    pump = OutputPump(sessions.get, lambda s, off, data: forwarded.append((s.id, off, len(data))), clock=clock)
    return pump, forwarded


def test_a_slice_ends_when_its_time_budget_is_spent() -> None:
    slow = _Backlog("%0", 1 << 20)
    pump, forwarded = _pump_with_clock({"%0": slow}, tick=BACKGROUND_BUDGET / 3)
    pump.notify("%0")
    assert pump.step()
    # three clock reads fit in the background budget: the first chunk plus two more
    assert slow.calls == [PARSE_CHUNK] * 3
    assert forwarded == [("%0", 0, 3 * PARSE_CHUNK)]  # one push for the whole slice


def test_a_slice_ends_at_its_byte_bound_when_parsing_is_fast_and_focus_gets_a_larger_budget() -> None:
    fast, focused = _Backlog("%0", 1 << 20), _Backlog("%1", 1 << 20)
    pump, forwarded = _pump_with_clock({"%0": fast, "%1": focused}, tick=0.0)
    pump.notify("%0")
    pump.step()
    assert sum(fast.calls) == SLICE_BYTES
    pump, forwarded = _pump_with_clock({"%1": focused}, tick=BACKGROUND_BUDGET / 3)
    pump.order.focused = {"%1"}
    pump.notify("%1")
    pump.step()
    assert len(focused.calls) == round(FOCUSED_BUDGET / (BACKGROUND_BUDGET / 3))


def test_forward_budget_lets_a_burst_through_then_the_rate() -> None:
    budget = ForwardBudget(rate=1000, burst=4000)
    assert budget.take("a", 3000, now=0.0)  # within the burst
    assert budget.take("a", 3000, now=0.0)  # not in debt yet: goes, and the bucket is now -2000
    assert not budget.take("a", 1, now=0.0)
    assert not budget.take("a", 1, now=1.9)  # refilled to -100: still in debt
    assert budget.take("a", 500, now=2.0)  # back to 0: goes
    assert budget.take("b", 4000, now=2.0)  # every session has its own bucket
    budget.empty("b", now=2.0)  # a snapshot was sent: nothing banked
    assert budget.take("b", 10, now=2.0)
    assert not budget.take("b", 1, now=2.0)
    assert budget.take("b", 1, now=10_000.0)  # a long quiet refills to the burst, no more:
    assert budget.take("b", 4000, now=10_000.0)
    assert not budget.take("b", 1, now=10_000.0)
    budget.forget("b")
    assert budget.take("b", 4000, now=10_000.0)  # a forgotten session starts with a full bucket
