"""The server's priorities: slice order, bounded slices with yields, and PTY flow control."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from termux.protocol.messages import AttachArgs, NewArgs
from termux.server.scheduler import (
    BATCH_BUDGET,
    CATCH_UP_TYPING,
    ECHO_BYTES,
    FOCUSED_BUDGET,
    FORWARD_CATCH_UP,
    FRAME_REST,
    PARSE_CHUNK,
    PIECE_TIME,
    QUIET_BACKGROUND_BUDGET,
    READ_PASS_BUDGET,
    READ_REST,
    SLICE_BYTES,
    SMALL_READ,
    TYPING_BACKGROUND_BUDGET,
    TYPING_HOLD,
    TYPING_SHARE,
    UNSEEN_CATCH_UP,
    WAKE_BATCH,
    Batch,
    CatchUp,
    ForwardBudget,
    OutputPump,
    ParseRate,
    ReadPacer,
    Slice,
    SliceOrder,
)
from termux.server.server import Connection, InputWatch, Server
from termux.server.session import HIGH_WATERMARK, LOW_WATERMARK, READ_SIZE, Session
from tests.loops import in_watched_loop, watched


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
    return watched().reading(session.fd)


async def _flooding_session(server: Server) -> Session:
    return server.new_session(NewArgs(name="flood", command=["yes", "x" * 200]))


@in_watched_loop
async def test_a_flood_pauses_reads_above_the_high_watermark_and_resumes_below_the_low(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path / "sock")  # the output pump is not running: nothing parses
    session = await _flooding_session(server)
    full = asyncio.Event()

    def ready(s: Session, n: int) -> None:
        server.pump.notify(s.id, n)
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


async def test_the_pump_yields_to_the_loop_after_every_batch(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    floods = [server.new_session(NewArgs(name=f"f{i}", command=["yes"])) for i in range(3)]
    full = asyncio.Event()
    for session in floods:
        session.hooks.output_ready = lambda s, n: (server.pump.notify(s.id, n), full.set())  # type: ignore[func-returns-value]
    await full.wait()
    pump = asyncio.create_task(server.pump.run())
    seen: list[int] = []
    try:
        for _ in range(50):
            before = server.pump.batches
            await asyncio.sleep(0)  # this coroutine is "a request": it must get a turn every batch
            seen.append(server.pump.batches - before)
    finally:
        pump.cancel()
    assert max(seen) <= 1
    assert sum(seen) > 0  # the pump did run in between
    for session in floods:
        await server.kill_session(session)


@in_watched_loop
async def test_with_nothing_to_parse_the_pump_sleeps_without_a_timer(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    loop = watched()
    pump = asyncio.create_task(server.pump.run())
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    timers = loop.pending_timers()
    assert timers == []
    assert not loop.queued()  # nothing is scheduled to run again
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


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _TimedBacklog(_Backlog):
    """Parsing takes time in proportion to the bytes: `speed` bytes per second of `clock`."""

    def __init__(self, session_id: str, size: int, clock: _Clock, speed: float) -> None:
        super().__init__(session_id, size)
        self.clock, self.speed = clock, speed

    def parse_slice(self, budget: int) -> tuple[int, bytes]:
        offset, data = super().parse_slice(budget)
        self.clock.now += len(data) / self.speed
        return offset, data


def _timed_pump(*sessions: tuple[str, float], clock: _Clock) -> tuple[OutputPump, dict[str, _TimedBacklog]]:
    backlogs = {sid: _TimedBacklog(sid, 1 << 24, clock, speed) for sid, speed in sessions}
    forwarded: list[tuple[str, int, int]] = []
    return OutputPump(
        backlogs.get, lambda s, off, data: forwarded.append((s.id, off, len(data))), clock=clock
    ), backlogs


def test_a_slice_ends_when_its_time_budget_is_spent() -> None:
    clock = _Clock()
    speed = 3 * PARSE_CHUNK / TYPING_BACKGROUND_BUDGET  # the budget parses three PARSE_CHUNKs
    pump, backlogs = _timed_pump(("%0", speed), clock=clock)
    pump.typed()  # someone types: background slices are short
    pump.notify("%0", 1)
    done = pump.step()
    assert done == Slice("%0", False, pytest.approx(TYPING_BACKGROUND_BUDGET))
    calls = backlogs["%0"].calls
    assert calls[0] == PARSE_CHUNK  # its speed unknown: a small first piece
    assert calls == [PARSE_CHUNK, 2 * PARSE_CHUNK]  # then the rest of the budget at the speed measured


def test_a_focused_session_printing_past_an_echo_ends_the_typing_hold() -> None:
    """A key's echo is small: the focused sessions' output since the last key counts, and past
    ECHO_BYTES (a command the key started is printing) the typing hold ends, so the flood is read
    and parsed as output, not as echoes. Background output does not count; the next key starts a
    new hold."""
    clock = _Clock()
    pump, _ = _timed_pump(("%0", 1e12), ("%1", 1e12), clock=clock)
    pump.order.focused = {"%0"}
    pump.typed()
    pump.notify("%1", 10 * ECHO_BYTES)  # a background flood: not the echo
    pump.notify("%0", ECHO_BYTES // 2)
    pump.notify("%0", ECHO_BYTES // 2)  # an echo as large as ECHO_BYTES is still one
    assert pump.typing()
    pump.notify("%0", 1)
    assert not pump.typing()
    pump.typed()  # the next key
    assert pump.typing()
    pump.notify("%0", ECHO_BYTES)
    assert pump.typing()


def test_pieces_grow_to_what_the_budget_allows_and_focus_gets_more() -> None:
    clock = _Clock()
    pump, backlogs = _timed_pump(("%0", 1e12), clock=clock)  # parsing is (nearly) free
    pump.notify("%0", 1)
    pump.step()
    assert backlogs["%0"].calls == [PARSE_CHUNK, SLICE_BYTES - PARSE_CHUNK]  # the byte bound, in one feed
    speed = 3 * PARSE_CHUNK / TYPING_BACKGROUND_BUDGET
    pump, backlogs = _timed_pump(("%0", speed), ("%1", speed), clock=clock)
    pump.order.focused = {"%1"}
    pump.notify("%0", 1)
    pump.notify("%1", 1)
    assert pump.step() == Slice("%1", True, pytest.approx(FOCUSED_BUDGET))  # the focused session first
    pump.order.focused = set()
    pump.typed()
    assert pump.step() == Slice("%0", False, pytest.approx(TYPING_BACKGROUND_BUDGET))
    assert sum(backlogs["%1"].calls) == FOCUSED_BUDGET / TYPING_BACKGROUND_BUDGET * sum(backlogs["%0"].calls)
    clock.now += TYPING_HOLD  # nobody types any more: background slices are as long as focused ones
    pump.order.discard("%1")
    assert pump.step() == Slice("%0", False, pytest.approx(QUIET_BACKGROUND_BUDGET))


def test_a_request_waiting_ends_a_slice_after_its_piece_and_the_batch_with_it() -> None:
    clock = _Clock()
    speed = 64 * PARSE_CHUNK / FOCUSED_BUDGET
    waiting = [False]
    backlogs = {sid: _TimedBacklog(sid, 1 << 24, clock, speed) for sid in ("%0", "%1")}
    pump = OutputPump(backlogs.get, lambda s, off, data: None, clock=clock, interrupted=lambda: waiting[0])
    pump.notify("%0", 1)
    pump.notify("%1", 1)
    assert pump.step() == Slice("%0", False, pytest.approx(QUIET_BACKGROUND_BUDGET))  # nobody waits: whole
    assert len(backlogs["%0"].calls) > 2  # in pieces of at most PIECE_TIME
    assert all(n <= speed * PIECE_TIME + 1 for n in backlogs["%0"].calls)
    waiting[0] = True  # a request (a key) is unread on a client's socket
    before, first = len(backlogs["%1"].calls), len(backlogs["%0"].calls)
    done = pump.batch()
    assert done is not None and done.last.session == "%1" and len(backlogs["%1"].calls) == before + 1
    assert done.last.seconds <= PIECE_TIME + 1e-9  # one piece, then the loop reads the request
    assert len(backlogs["%0"].calls) == first  # the batch did not go on to %0


def test_the_input_watch_says_when_a_request_waits_unread() -> None:
    watch = InputWatch()
    ours, theirs = socket.socketpair()
    try:
        watch.add(ours.fileno())
        assert not watch.waiting()
        theirs.send(b"{}\n")
        assert watch.waiting()
        watch.discard(ours.fileno())  # a connection whose reading is paused is left out
        assert not watch.waiting()
        watch.add(ours.fileno())
        ours.recv(10)  # read by the loop: nothing waits
        assert not watch.waiting()
        watch.discard(ours.fileno())
        watch.discard(ours.fileno())  # twice: nothing happens
    finally:
        ours.close()
        theirs.close()
        watch.close()


async def test_background_draining_stops_while_a_request_waits(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    session = server.new_session(NewArgs(name="background", command=["cat"]))
    ours, theirs = await asyncio.get_running_loop().run_in_executor(None, socket.socketpair)
    assert server._drains(session, 1)
    server.input.add(ours.fileno())
    theirs.send(b"{}\n")
    assert not server._drains(session, 1)  # one read, then the loop reads the request
    ours.close()
    theirs.close()
    await server.kill_session(session)


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


def test_a_snapshot_does_not_wipe_out_the_debt_of_the_chunk_before_it() -> None:
    budget = ForwardBudget(rate=1000, burst=4000)
    assert budget.take("flood", 10_000, now=0.0)  # one big chunk goes: 6000 in debt
    assert not budget.take("flood", 1, now=0.0)  # skipped: stale, a snapshot follows
    budget.empty("flood", now=1.0)  # the snapshot, a second later: 5000 still owed
    assert not budget.take("flood", 1, now=1.0)  # so the next chunk waits too (another snapshot)
    assert not budget.take("flood", 1, now=5.9)
    assert budget.take("flood", 1, now=6.5)  # paid off at `rate`: forwarding resumes


def test_catch_ups_go_by_rank_then_to_the_session_caught_up_least_recently() -> None:
    catch_up = CatchUp()

    def rank(sid: str) -> tuple[bool, ...]:
        return (sid != "focus",)

    stale = {"a", "b", "c", "d", "focus"}
    assert catch_up.order(stale, rank) == ["focus", "a", "b", "c", "d"]  # never caught up: by name
    assert catch_up.order(stale, rank, limit=2) == ["focus", "a"]
    for sid in ("focus", "a"):
        catch_up.sent(sid, now=0.0)
    # The next catch-up goes to those still waiting, then the ones sent longest ago.
    assert catch_up.order(stale, rank, limit=2) == ["focus", "b"]
    assert catch_up.order({"a", "b", "c", "d"}, rank, limit=3) == ["b", "c", "d"]
    for sid in ("b", "c", "d"):
        catch_up.sent(sid, now=0.0)
    assert catch_up.order({"a", "b", "c", "d"}, rank, limit=2) == ["a", "b"]  # round robin
    catch_up.forget("d")
    assert catch_up.order({"a", "d"}, rank) == ["d", "a"]  # forgotten: as if never caught up


def test_a_session_the_client_does_not_show_is_caught_up_at_most_once_per_unseen_period() -> None:
    catch_up = CatchUp(period=0.25, unseen_period=1.0)
    catch_up.went_stale("pane", now=10.0)
    catch_up.went_stale("unseen", now=10.0)
    catch_up.went_stale("unseen", now=10.1)  # (skipped again: the first skip counts)
    # Never caught up: both a period after their output was first skipped.
    assert catch_up.due("pane", shown=True) == catch_up.due("unseen", shown=False) == 10.25
    for sid in ("pane", "unseen"):
        catch_up.sent(sid, now=10.25)
        catch_up.went_stale(sid, now=10.3)  # they go on printing past their budget
    assert catch_up.due("pane", shown=True) == pytest.approx(10.55)  # shown: a period later
    assert catch_up.due("unseen", shown=False) == 11.25  # not shown: a second after its last
    assert catch_up.due("unseen", shown=True) == pytest.approx(10.55)  # (shown now: at once)
    catch_up.forget("unseen")
    catch_up.went_stale("unseen", now=20.0)
    assert catch_up.due("unseen", shown=False) == 20.25  # forgotten: as if never caught up


def test_a_flooding_focus_is_caught_up_a_frame_after_its_output_was_first_skipped() -> None:
    """The focus's snapshot is due `focus_period` (a frame) after the first output skipped, where
    a pane's is due `period` after; each one's next counts from its next skip."""
    catch_up = CatchUp(period=0.25, unseen_period=1.0, focus_period=0.025)
    catch_up.went_stale("focus", now=10.0)
    catch_up.went_stale("pane", now=10.0)
    assert catch_up.due("focus", shown=True, focus=True) == pytest.approx(10.025)
    assert catch_up.due("pane", shown=True) == 10.25
    catch_up.sent("focus", now=10.025)
    catch_up.went_stale("focus", now=10.03)
    assert catch_up.due("focus", shown=True, focus=True) == pytest.approx(10.055)


async def test_a_batch_that_leaves_nothing_waiting_is_the_last_until_output_comes() -> None:
    """A batch that parsed everything waiting is followed by a wait for output, not by one more
    pass of the loop to find nothing (which each wake-up of a quiet server would pay)."""
    backlogs = {"%0": _Backlog("%0", 100)}
    forwarded: list[str] = []
    pump = OutputPump(backlogs.get, lambda s, off, data: forwarded.append(s.id), clock=_Clock())
    batches: list[bool] = []
    batch = pump.batch

    def counted() -> Batch | None:
        done = batch()
        batches.append(done is not None)
        return done

    pump.batch = counted  # type: ignore[method-assign]
    pump.notify("%0", 100)
    task = asyncio.create_task(pump.run())
    for _ in range(5):
        await asyncio.sleep(0)
    assert forwarded == ["%0"] and batches == [True]  # then it waits: no batch that finds nothing
    backlogs["%0"].left = 10
    pump.notify("%0", 10)
    for _ in range(5):
        await asyncio.sleep(0)
    assert forwarded == ["%0", "%0"] and batches == [True, True]
    task.cancel()


async def test_output_for_a_focused_session_ends_a_rest_in_the_loops_next_pass() -> None:
    clock = _Clock()
    background = _TimedBacklog("%0", 1 << 20, clock, PARSE_CHUNK / 10)  # a piece "takes" 10 s
    focused = _TimedBacklog("%1", 0, clock, 1e9)
    passes = 0
    parsed_at: list[tuple[str, int]] = []  # (session, loop passes since the focused output came)
    pump = OutputPump(
        {"%0": background, "%1": focused}.get, lambda s, *_: parsed_at.append((s.id, passes)), clock=clock
    )
    pump.order.focused = {"%1"}
    pump.typing_until = float("inf")  # someone types: after the background slice, a 30 s rest
    pump.notify("%0", 1)
    task = asyncio.create_task(pump.run())
    while not parsed_at:
        await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert parsed_at == [("%0", 0)]  # and the pump rests: the slice "took" 10 s
    loop = asyncio.get_running_loop()

    def count() -> None:
        nonlocal passes
        passes += 1
        if len(parsed_at) < 2:
            loop.call_soon(count)

    focused.left = 100  # the echo was read
    pump.notify("%1", 1)
    loop.call_soon(count)
    while len(parsed_at) < 2:
        await asyncio.sleep(0)
    assert parsed_at[1] == ("%1", 0)  # parsed in the very next pass, before any other
    task.cancel()


def test_background_batches_are_followed_by_a_rest_only_while_someone_types() -> None:
    now = [100.0]
    pump = OutputPump(lambda _: None, lambda *_: None, clock=lambda: now[0])
    background = Batch(Slice("%0", False, 0.002), 0.002)
    focused = Batch(Slice("%1", True, 0.002), 0.0)
    assert pump.rest_after(background) == 0  # nobody typing: flat out
    pump.typed()
    assert pump.rest_after(background) == 0.002 * (1 / TYPING_SHARE - 1)
    assert pump.rest_after(focused) == 0  # what a view shows never rests
    # A batch that ended on a focused slice rests for the background slices before it.
    assert pump.rest_after(Batch(Slice("%1", True, 0.001), 0.002)) == 0.002 * (1 / TYPING_SHARE - 1)
    now[0] += TYPING_HOLD
    assert pump.rest_after(background) == 0  # typing ended


@in_watched_loop
async def test_output_for_a_shown_session_ends_a_rest_at_once() -> None:
    loop = watched()
    flood, shown = _Backlog("%0", 1 << 30), _Backlog("%1", 0)
    # Each clock read is a second later: a background slice "takes" seconds, so its rest would
    # last many seconds of real time if nothing ended it.
    pump, _ = _pump_with_clock({"%0": flood, "%1": shown}, tick=1.0)
    pump.order.focused = {"%1"}
    pump.typing_until = float("inf")
    pump.notify("%0", 1)
    task = asyncio.create_task(pump.run())
    for _ in range(3):
        await asyncio.sleep(0)
    assert len(flood.calls) == 1  # one slice, then resting:
    assert loop.pending_timers()  # on a timer
    shown.left = 100
    pump.notify("%1", 1)
    for _ in range(10):
        await asyncio.sleep(0)
        if shown.calls:
            break
    assert shown.calls == [100]  # parsed within a few loop passes, not after the rest
    assert len(flood.calls) == 1
    task.cancel()


def test_parse_rate_sizes_pieces_and_is_not_taught_by_pieces_cut_short() -> None:
    rates = ParseRate()
    assert rates.piece("a", 0.008, 1 << 20) == PARSE_CHUNK  # unknown speed: a small first piece
    rates.parsed("a", 1000 * 1024 // 1000, 0.001, 0.008)  # 1 KiB in 1 ms
    assert rates.piece("a", 0.008, 1 << 20) == 8 * 1024  # what parses in the time left
    assert rates.piece("a", 0.008, 4096) == 4096  # never past the room
    assert rates.piece("a", 0.0001, 1 << 20) == PARSE_CHUNK  # never below a PARSE_CHUNK
    rates.parsed("a", 8 * 1024, 0.002, 0.008)  # a larger piece parses faster per byte
    faster = rates.piece("a", 0.008, 1 << 20)
    assert faster > 8 * 1024
    rates.parsed("a", 1024, 0.002, 0.008)  # the slice's last piece, cut short: slow per byte
    assert rates.piece("a", 0.008, 1 << 20) == faster  # ignored
    rates.forget("a")
    assert rates.piece("a", 0.008, 1 << 20) == PARSE_CHUNK


def test_a_batch_serves_every_waiting_session_that_fits_in_its_budget() -> None:
    clock = _Clock()
    speed = 1000 / (BATCH_BUDGET / 8)  # 1000 bytes "take" an eighth of a batch
    backlogs = {f"%{i}": _TimedBacklog(f"%{i}", 1000, clock, speed) for i in range(3)}
    forwarded: list[str] = []
    pump = OutputPump(backlogs.get, lambda s, off, data: forwarded.append(s.id), clock=clock)
    for sid in backlogs:
        pump.notify(sid, 1)
    assert pump.batch() is not None
    assert forwarded == ["%0", "%1", "%2"]  # one pass of the loop, three sessions
    assert (pump.batches, pump.slices) == (1, 3)
    assert pump.batch() is None  # nothing left


def test_a_batch_ends_when_its_budget_is_spent_and_its_last_slice_gets_what_is_left() -> None:
    clock = _Clock()
    speed = 1000 / (BATCH_BUDGET * 0.4)  # 1000 bytes "take" 40% of a batch
    backlogs = {f"%{i}": _TimedBacklog(f"%{i}", 1000 if i < 2 else 1 << 20, clock, speed) for i in range(4)}
    pump = OutputPump(backlogs.get, lambda *_: None, clock=clock)
    for sid in backlogs:
        pump.notify(sid, 1)
    pump.batch()
    assert [sum(b.calls) for b in backlogs.values()] == [1000, 1000, PARSE_CHUNK, 0]
    assert clock.now <= BATCH_BUDGET + PARSE_CHUNK / speed  # at most one piece past the budget


def test_while_someone_types_a_batch_serves_small_slices_within_the_typing_budget_then_rests() -> None:
    clock = _Clock()
    speed = 100 / (TYPING_BACKGROUND_BUDGET * 0.3)  # 100 bytes "take" 30% of the typing budget
    backlogs = {f"%{i}": _TimedBacklog(f"%{i}", 100, clock, speed) for i in range(5)}
    forwarded: list[str] = []
    pump = OutputPump(backlogs.get, lambda s, off, data: forwarded.append(s.id), clock=clock)
    for sid in backlogs:
        pump.notify(sid, 1)
    pump.typed()
    done = pump.batch()
    # Sessions that each printed a little share one pass (and one corked write), within the
    # typing budget: the fourth slice gets what is left of it, and the fifth waits.
    assert forwarded == ["%0", "%1", "%2", "%3"]
    assert [sum(b.calls) for b in backlogs.values()][:3] == [100, 100, 100]
    assert sum(backlogs["%4"].calls) == 0
    assert done is not None and done.background == pytest.approx(clock.now)
    assert clock.now <= TYPING_BACKGROUND_BUDGET + PARSE_CHUNK / speed  # at most a piece past it
    assert pump.rest_after(done) == pytest.approx(clock.now * (1 / TYPING_SHARE - 1))  # the batch's share


def test_while_someone_types_a_focused_slice_ends_the_batch() -> None:
    clock = _Clock()
    backlogs = {f"%{i}": _TimedBacklog(f"%{i}", 100, clock, 1e9) for i in range(3)}
    forwarded: list[str] = []
    pump = OutputPump(backlogs.get, lambda s, off, data: forwarded.append(s.id), clock=clock)
    pump.order.focused = {"%1"}
    for sid in backlogs:
        pump.notify(sid, 1)
    pump.typed()
    done = pump.batch()
    assert forwarded == ["%1"]  # the echo goes out alone, at once
    assert done is not None and done.last.focused and done.background == 0


class _RecordingTransport:
    """A connection's real transport, with each write() it is asked to do recorded."""

    def __init__(self, inner: asyncio.Transport) -> None:
        self.inner = inner
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)
        self.inner.write(data)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


async def _attached(server: Server) -> tuple[_RecordingTransport, socket.socket]:
    """A real client connection (a socket pair), attached to every session; its writes recorded."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    _, conn = await asyncio.get_running_loop().connect_accepted_socket(lambda: Connection(server), sock=ours)
    server.attach(conn, AttachArgs())
    assert conn.transport is not None
    recorder = _RecordingTransport(conn.transport)
    conn.transport = recorder  # type: ignore[assignment]
    return recorder, theirs


async def test_writes_to_a_client_during_a_batch_go_in_one_socket_write_in_order(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    a, b = (server.new_session(NewArgs(name=n, command=["cat"])) for n in ("a", "b"))
    recorder, peer = await _attached(server)
    with server.corking():
        server._on_parsed(a, 0, b"one")
        server._on_parsed(b, 0, b"two")
        server.rename(a, "renamed")  # an event push between output pushes keeps its place
        server._on_parsed(a, 3, b"three")
        assert recorder.writes == []
    assert len(recorder.writes) == 1
    lines = [json.loads(line) for line in recorder.writes[0].splitlines()]
    assert [(m.get("session"), m.get("offset")) for m in lines if m.get("push") == "output"] == [
        (a.id, 0), (b.id, 0), (a.id, 3),
    ]  # fmt: skip
    kinds = [m.get("event", {}).get("type", m["push"]) for m in lines]
    assert [k for k in kinds if k in ("output", "session.renamed")] == ["output", "output", "session.renamed", "output"]
    server._on_parsed(b, 3, b"four")  # outside a batch: written at once
    assert len(recorder.writes) == 2
    peer.close()
    for session in (a, b):
        await server.kill_session(session)


def _snapshotted(writes: list[bytes]) -> list[str]:
    return [m["session"] for w in writes for m in map(json.loads, w.splitlines()) if m.get("push") == "snapshot"]


async def test_while_someone_types_a_catch_up_sends_a_few_snapshots_and_the_next_ones_the_rest(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path / "sock")
    sessions = [server.new_session(NewArgs(name=f"s{i}", command=["cat"])) for i in range(5)]
    ids = {s.id for s in sessions}
    recorder, peer = await _attached(server)
    (conn,) = server.connections
    conn.stale = set(ids)
    server.pump.typed()
    sent: list[str] = []
    while conn.stale:
        before = len(recorder.writes)
        conn._caught_up()
        batch = _snapshotted(recorder.writes[before:])
        assert 0 < len(batch) <= CATCH_UP_TYPING and not set(batch) & set(sent)
        sent += batch
        assert (conn._catch_up is not None) == bool(conn.stale)  # the rest at the next catch-up
    assert sorted(sent) == sorted(ids)
    # With nobody typing, one catch-up sends every stale session's snapshot that is due: this
    # client shows none of them, so a session caught up less than UNSEEN_CATCH_UP ago waits.
    server.pump.typing_until = float("-inf")
    conn.stale = set(ids)
    before = len(recorder.writes)
    conn._caught_up()
    assert _snapshotted(recorder.writes[before:]) == []
    # The next catch-up is armed for when the first of them is due, not every FORWARD_CATCH_UP.
    assert conn._catch_up is not None and conn._catch_up.when() == min(map(conn._due, ids))
    assert conn._catch_up.when() > asyncio.get_running_loop().time() + FORWARD_CATCH_UP
    for sid in ids:  # their last snapshots, a while ago
        conn.catch_up.sent(sid, now=asyncio.get_running_loop().time() - UNSEEN_CATCH_UP)
    conn._caught_up()
    assert sorted(_snapshotted(recorder.writes[before:])) == sorted(ids)
    assert not conn.stale and conn._catch_up is None
    peer.close()
    for session in sessions:
        await server.kill_session(session)


async def test_a_chunk_is_encoded_once_for_every_client_that_takes_it(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    session = server.new_session(NewArgs(name="a", command=["cat"]))
    (first, peer1), (second, peer2) = await _attached(server), await _attached(server)
    server._on_parsed(session, 0, b"hello")
    assert first.writes[-1] is second.writes[-1]  # the same bytes object: one encode
    assert json.loads(first.writes[-1])["data"] == "aGVsbG8="
    peer1.close()
    peer2.close()
    await server.kill_session(session)


async def _first_output(*sessions: Session) -> None:
    """Until each of `sessions` (just created: no await since) has read its first output."""
    arrived = [asyncio.Event() for _ in sessions]
    for session, event in zip(sessions, arrived, strict=True):
        session.hooks.output_ready = lambda s, n, event=event: event.set()  # type: ignore[misc]
    for event in arrived:
        await event.wait()
    await asyncio.sleep(0)


def _rest_ticks(server: Server) -> list[asyncio.TimerHandle]:
    return [t.handle for t in watched().pending_timers() if t.callback == server._end_rests and t.handle]


def _tick(server: Server) -> None:
    """The rest clock's tick, now: as its timer would."""
    for handle in _rest_ticks(server):
        handle.cancel()
    server._end_rests()


@in_watched_loop
async def test_a_background_session_printing_a_little_rests_its_reads_and_a_focus_wakes_it(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    server.read_pacer = ReadPacer(period=3600.0)  # a slow clock: the tick comes only when the test says
    command = ["sh", "-c", "echo a line; exec cat"]
    sessions = [server.new_session(NewArgs(name=f"c{i}", command=command)) for i in range(2)]
    await _first_output(*sessions)
    assert all(s.resting and not _reading(s) for s in sessions)  # a small read: the next waits in the PTY
    (tick,) = _rest_ticks(server)  # one timer for every resting session
    assert tick.when() - asyncio.get_running_loop().time() <= server.read_pacer.period
    assert server.stats()["resting"] == sorted(s.id for s in sessions) and server.stats()["paused"] == []
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    _, conn = await asyncio.get_running_loop().connect_accepted_socket(lambda: Connection(server), sock=ours)
    server.attach(conn, AttachArgs(focus=sessions[0].id))  # a view shows it: read at once now
    assert not sessions[0].resting and _reading(sessions[0]) and sessions[1].resting
    server.pump.typed()  # and while someone types into it, read at once after every read
    assert not server._read_rest(sessions[0], 1)
    assert server.resting.keys() == {sessions[1].id} and not server.frame_resting
    theirs.close()
    for session in sessions:
        await server.kill_session(session)


@in_watched_loop
async def test_the_tick_reads_what_waited_in_one_go_and_the_session_rests_again(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    server.read_pacer = ReadPacer(period=3600.0)  # a slow clock: the tick comes only when the test says
    program = "stty -echo; echo one; read x; echo two; exec cat"
    session = server.new_session(NewArgs(name="chatty", command=["sh", "-c", program]))
    await _first_output(session)
    assert session.resting
    for handle in _rest_ticks(server):
        handle.cancel()  # the tick comes when the test says (_tick)
    read = session.bytes_read
    session.write(b"go\n")  # the program prints "two" now: it waits in the PTY, nobody reads it
    readable: tuple[list[int], list[int], list[int]] = await asyncio.to_thread(select.select, [session.fd], [], [], 30)
    assert readable[0] and session.bytes_read == read
    _tick(server)
    assert session.bytes_read > read and b"two" in b"".join(session.backlog.chunks)
    assert session.resting and not _reading(session)  # a little again: it rests on, the reader never re-added
    assert len(_rest_ticks(server)) == 1  # the next tick
    _tick(server)  # nothing printed meanwhile: read on as usual, no timer left
    assert not session.resting and _reading(session) and _rest_ticks(server) == []
    await server.kill_session(session)


@in_watched_loop
async def test_a_tick_wakes_its_resting_sessions_a_batch_per_pass_of_the_loop(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    server.read_pacer = ReadPacer(period=3600.0)  # a slow clock: the tick comes only when the test says
    program = "stty -echo; echo one; read x; echo two; exec cat"
    sessions = [server.new_session(NewArgs(name=f"c{i}", command=["sh", "-c", program])) for i in range(WAKE_BATCH + 3)]
    await _first_output(*sessions)
    assert all(s.resting for s in sessions)
    for handle in _rest_ticks(server):
        handle.cancel()
    for session in sessions:
        session.write(b"go\n")  # each prints "two" now: it waits in the PTY
    for session in sessions:
        readable = await asyncio.to_thread(select.select, [session.fd], [], [], 30)
        assert readable[0]
    read = {s.id: s.bytes_read for s in sessions}

    def woken() -> int:
        return sum(s.bytes_read > read[s.id] for s in sessions)

    _tick(server)
    assert woken() == WAKE_BATCH  # one batch in this pass; the others wait, still resting
    assert len(server.waking) == 3 and server.stats()["resting"] == sorted(s.id for s in sessions)
    await asyncio.sleep(0)  # the next pass
    assert woken() == len(sessions) and not server.waking and server._wake_next is None
    for session in sessions:
        await server.kill_session(session)


@in_watched_loop
async def test_while_someone_types_a_background_flood_rests_its_reads_until_the_tick(tmp_path: Path) -> None:
    """A read of any size rests the reading of a session no view shows while someone types (its
    program then writes into the PTY until the tick, and the loop is not woken for it); a focused
    one, a pane shown beside it and, with nobody typing, a flood are read on at once."""
    server = Server(tmp_path / "sock")
    server.read_pacer = ReadPacer(period=3600.0)  # a slow clock: the tick comes only when the test says
    focused, pane, background = (server.new_session(NewArgs(name=n, command=["cat"])) for n in ("f", "p", "b"))
    server.pump.order.focused, server.pump.order.visible = {focused.id}, {pane.id}
    flood = 2 * SMALL_READ
    assert not server._read_rest(background, flood) and not server._read_rest(background, flood)
    server.pump.typed()
    assert server._read_rest(background, flood)
    assert server.resting.keys() == {background.id} and len(_rest_ticks(server)) == 1
    assert not server._read_rest(pane, flood) and not server._read_rest(pane, flood)
    assert not server._read_rest(focused, flood) and not server.frame_resting
    assert server.resting.keys() == {background.id}
    for handle in _rest_ticks(server):
        handle.cancel()
    for session in (focused, pane, background):
        await server.kill_session(session)


async def test_background_draining_stops_for_the_pass_once_its_read_budget_is_spent(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    focused, background = (server.new_session(NewArgs(name=n, command=["cat"])) for n in ("focused", "background"))
    server.pump.order.focused = {focused.id}
    read = READ_SIZE // 4
    assert server._drains(focused, read) and server._pass_end is None  # (not counted: no pass to end)
    assert all(server._drains(background, read) for _ in range(READ_PASS_BUDGET // read - 1))
    assert not server._drains(background, read)  # the pass's budget is spent: one read per wake-up
    assert server._drains(focused, read)  # what a view focuses reads on
    await asyncio.sleep(0)  # the next pass of the loop: a new budget
    assert server._pass_end is None and server._pass_read == 0
    assert server._drains(background, read) and server._pass_end is not None
    server.pump.typed()
    assert not server._drains(background, read) and server._drains(focused, read)  # someone types
    for session in (focused, background):
        await server.kill_session(session)


def _frame_ticks(server: Server) -> list[asyncio.TimerHandle]:
    return [t.handle for t in watched().pending_timers() if t.callback == server._end_frame_rests and t.handle]


@in_watched_loop
async def test_a_focused_session_printing_a_little_is_read_once_a_frame_until_someone_types(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    server.frame_pacer = ReadPacer(period=3600.0)  # a slow clock: the tick comes only when the test says
    program = "stty -echo; echo one; read x; echo two; read y; exec cat"
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    _, conn = await asyncio.get_running_loop().connect_accepted_socket(lambda: Connection(server), sock=ours)
    # No await from here to _first_output: the loop cannot read the session's first output before
    # the view focuses it and the test listens for it.
    session = server.new_session(NewArgs(name="log", command=["sh", "-c", program]))
    server.attach(conn, AttachArgs(focus=session.id))  # before its first output: a view focuses it
    await _first_output(session)
    # A small read of a focused session nobody types into: it rests on the frame clock, not the
    # background one, and what it prints meanwhile waits in the PTY.
    assert session.resting and not _reading(session)
    assert server.frame_resting.keys() == {session.id} and not server.resting
    (tick,) = _frame_ticks(server)
    tick.cancel()  # the tick comes when the test says
    read = session.bytes_read
    session.write(b"go\n")  # not typed through a view: the program prints "two"
    readable: tuple[list[int], list[int], list[int]] = await asyncio.to_thread(select.select, [session.fd], [], [], 30)
    assert readable[0] and session.bytes_read == read
    server._end_frame_rests()  # the tick: what waited is read in one go
    assert b"two" in b"".join(session.backlog.chunks)
    assert session.resting and len(_frame_ticks(server)) == 1  # a little again: resting on
    # Typed into through a view (session.send): the rest ends at once and nothing rests meanwhile.
    server.typed(session)
    assert not session.resting and _reading(session) and not server.frame_resting
    assert server.pump.typing() and not server._read_rest(session, 1)
    for handle in _frame_ticks(server):
        handle.cancel()
    theirs.close()
    await server.kill_session(session)


def test_the_read_pacer_rests_a_session_printing_a_little_and_never_a_busy_one() -> None:
    pacer = ReadPacer(period=0.05, small=4096)
    assert pacer.rests("chatty", 60, now=0.0)  # a line at a time
    assert pacer.rests("chatty", 150, now=0.05)
    assert pacer.rests("chatty", 150, now=0.10)
    # A flood: its first read may rest, but what waited meanwhile fills the window, and then
    # every read goes on at once, however small (a fast reader takes a few KiB at a time).
    assert pacer.rests("flood", 2000, now=0.0)
    assert not pacer.rests("flood", 78_000, now=0.05)
    for i in range(1, 60):
        assert not pacer.rests("flood", 2000, now=0.05 + i * 0.002)
    # A session that turned quiet rests again once two windows held little.
    assert pacer.rests("flood", 100, now=1.0)  # the window before was long ago
    pacer.forget("flood")
    assert not pacer.rests("flood", 5000, now=1.0)  # a big read: at once
    assert pacer.next_tick(1.01) == pytest.approx(1.05)


@pytest.mark.parametrize("write_size", [1, 512, 4096, 65536])
def test_a_pty_holds_more_than_a_resting_session_prints_between_two_ticks(write_size: int) -> None:
    """A session rests while it prints less than SMALL_READ a window, so what its program writes
    until the tick must fit in the PTY unread (else it blocks until the tick): checked on a real
    PTY with the line discipline a session's program gets, for small and large writes."""
    master, follower = os.openpty()
    os.set_blocking(follower, False)
    held = 0
    try:
        with contextlib.suppress(BlockingIOError):
            while True:
                held += os.write(follower, b"x" * write_size)
    finally:
        os.close(follower)
        os.close(master)
    assert held > SMALL_READ


def test_every_other_frame_tick_falls_on_a_read_tick() -> None:
    """The focused session's frames and the background sessions' rests end in the same pass of
    the loop every other frame, so one write to the view carries both."""
    frames, reads = ReadPacer(FRAME_REST), ReadPacer(READ_REST)
    for i in range(1000):
        now = 1_000_000.0 + i * 0.0037  # a clock late in a long day, at no tick in particular
        read_tick = reads.next_tick(now)
        assert frames.next_tick(now) <= read_tick + 1e-9  # a frame never waits past a read tick
        # The read tick is a frame tick: the frame tick just before it ends exactly there.
        assert frames.next_tick(read_tick - FRAME_REST / 2) == pytest.approx(read_tick, abs=1e-9)


async def _burst_written(tmp_path: Path) -> tuple[Server, Session]:
    """A session whose program has written 6,000 bytes into its PTY, none of them read yet: less
    than any PTY holds unread, more than one read returns (the line discipline's buffer is 4 KiB;
    the rest waits in the kernel for its worker to move it in)."""
    fifo = tmp_path / "written"
    os.mkfifo(fifo)
    program = f"head -c 6000 /dev/zero | tr '\\0' x; echo > {fifo}; exec cat"
    # Opened before the program runs, without blocking: its `echo >` never waits for a reader, and
    # a program that cannot write fails this test instead of hanging it.
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    loop = asyncio.get_running_loop()
    written: asyncio.Future[None] = loop.create_future()
    loop.add_reader(fd, lambda: written.done() or written.set_result(None))
    server = Server(tmp_path / "sock")
    session = server.new_session(NewArgs(name="burst", command=["sh", "-c", program]))
    session.pause_reading()  # before the loop ever reads it
    try:
        await asyncio.wait_for(written, 60)
    finally:
        loop.remove_reader(fd)
        os.close(fd)
    session.resume_reading()
    return server, session


async def test_one_wake_up_reads_on_while_the_line_discipline_holds_bytes(tmp_path: Path) -> None:
    server, session = await _burst_written(tmp_path)
    # The kernel's worker keeps the line discipline filled (what FIONREAD says, made certain here:
    # when it has not run yet, a read waits for it)
    session._waiting = lambda: True  # type: ignore[method-assign]
    session._on_readable()  # one wake-up: several reads
    assert session.bytes_read == 6000
    await server.kill_session(session)


async def test_while_someone_types_one_wake_up_reads_once_when_the_line_discipline_is_empty(
    tmp_path: Path,
) -> None:
    server, session = await _burst_written(tmp_path)
    server.pump.order.focused = {session.id}  # a view shows it (its wake-ups drain)
    server.typed(session)
    # After the first read the line discipline is empty until the kernel's worker moves the rest in:
    # another read would wait for it with the loop stopped, so the rest is read at the next wake-up.
    session._waiting = lambda: False  # type: ignore[method-assign]
    session._on_readable()
    assert 0 < session.bytes_read < 6000  # one read
    await server.kill_session(session)


async def test_while_nobody_types_one_wake_up_reads_on_past_an_empty_line_discipline(tmp_path: Path) -> None:
    """Nothing waits behind the loop then: a read waits for the kernel's worker rather than leave
    the rest to another wake-up (a flood read a few KiB at a time costs far more per byte)."""
    server, session = await _burst_written(tmp_path)
    session._waiting = lambda: False  # type: ignore[method-assign]
    assert not server.pump.typing()
    session._on_readable()
    assert session.bytes_read == 6000
    await server.kill_session(session)


def test_while_someone_types_a_focused_slice_ends_its_batch() -> None:
    """Its output (an echo) leaves with the batch's writes as the batch ends: no slice after it."""
    clock = _Clock()
    backlogs = {f"%{i}": _TimedBacklog(f"%{i}", 100, clock, 1e9) for i in range(3)}
    batches: list[list[str]] = []
    forwarded: list[str] = []

    @contextlib.contextmanager
    def corked() -> Iterator[None]:
        yield
        batches.append(forwarded[:])
        forwarded.clear()

    pump = OutputPump(backlogs.get, lambda s, off, data: forwarded.append(s.id), clock=clock, batch=corked)
    pump.order.focused = {"%1"}
    for sid in backlogs:
        pump.notify(sid, 1)
    pump.typed()
    pump.batch()
    assert batches == [["%1"]]  # the focused one first, alone
    pump.typing_until = float("-inf")  # nobody types: the rest of the batch follows it as before
    backlogs["%1"].left = 100
    pump.notify("%1", 1)
    pump.batch()
    assert batches[1] == ["%1", "%0", "%2"]


def test_while_someone_types_a_focused_sessions_output_is_parsed_and_forwarded_as_it_is_notified() -> None:
    """In the callback that read it (a key's echo, likely), not on the pump task's next pass;
    background output, and focused output while nobody types, wait for the task."""
    clock = _Clock()
    backlogs = {sid: _TimedBacklog(sid, 0, clock, 1e9) for sid in ("%0", "%1")}
    forwarded: list[str] = []
    pump = OutputPump(backlogs.get, lambda s, off, data: forwarded.append(s.id), clock=clock)
    pump.order.focused = {"%1"}
    pump.typed()
    backlogs["%0"].left = backlogs["%1"].left = 10
    pump.notify("%0", 1)
    assert forwarded == []  # background: the task's
    pump.notify("%1", 1)
    assert forwarded == ["%1"] and pump.at_once == 1  # the focus's, at once, alone
    assert "%0" in pump.order  # still waiting for the task
    pump.typing_until = float("-inf")
    backlogs["%1"].left = 10
    pump.notify("%1", 1)
    assert forwarded == ["%1"] and pump.at_once == 1  # nobody types: the task's
