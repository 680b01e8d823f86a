"""The server's output scheduler: which session's unparsed output is parsed next, and how much.

Requests and input are handled by protocol callbacks as soon as their bytes arrive; output parsing
runs in one task that takes one bounded slice at a time and yields to the loop between slices, so a
request never waits behind more than one slice. Sessions that an attached client is looking at go
first; the rest take turns (round robin), so one flood cannot starve another.

While a person types, background parsing also rests between slices (see TYPING_SHARE).

`SliceOrder` (termux/slicing.py, shared with the TUI's feeder) is the pure decision; `OutputPump`
is the thin asyncio loop around it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from termux.rest import Rest
from termux.slicing import BACKGROUND_BUDGET, FOCUSED_BUDGET, ParseRate, Slice, SliceOrder, rest_after
from termux.slicing import PARSE_CHUNK as PARSE_CHUNK  # (the server's name for it too)

# A slice ends at whichever comes first: SLICE_BYTES parsed, or its time budget spent. The time
# budget bounds how long a request waits behind a slice whatever the emulator's speed on that
# output; the focused session gets a larger budget because its output is what the person is
# waiting for. Within a slice, output is fed in pieces sized to the time left at the speed the
# session's output last parsed (`ParseRate`, termux/slicing.py, shared with the TUI's feeder): the
# emulator's cost per feed is high (large pieces parse several times faster per byte than small
# ones: `python -m benchmarks.emulator`), so pieces are as large as the budget allows, and never
# larger. A session's first piece, its speed unknown, is PARSE_CHUNK. A piece is at most
# PIECE_TIME's worth (16 KiB pieces parse as fast per byte as 64 KiB ones but for full-screen
# redraws), and after each the slice ends if a request (a key) waits unread on a client's socket
# (`interrupted`): a key that comes in the middle of a long slice (the first key after a pause,
# when slices are long) waits for one piece, not the slice. The slice is still forwarded as one
# chunk.
SLICE_BYTES = 64 * 1024
PIECE_TIME = BACKGROUND_BUDGET / 2
SLACK = 1e-6  # a slice this close to its deadline is done (the pieces' float sums)
# With nobody typing no keystroke can wait behind a slice, so background slices are as long as
# focused ones: larger pieces, which the emulator parses several times faster per byte.
QUIET_BACKGROUND_BUDGET = FOCUSED_BUDGET
# While someone types, a key's echo (read and parsed as it comes, OutputPump.notify) waits for the
# background batch the loop is in: a batch's background slices then take TYPING_BACKGROUND_BUDGET
# in all (one flood's slice, or the lines of many sessions that each printed a little).
TYPING_BACKGROUND_BUDGET = BACKGROUND_BUDGET / 4
# While a person types — input reached a session that a view shows, less than TYPING_HOLD seconds
# ago — background parsing takes at most TYPING_SHARE of the server's time: after each batch the
# pump rests three times as long as its background slices took (a timer, ended at once by output
# for a shown session). The rest follows the batch, not each slice: sessions that each printed a
# line are parsed in one pass and pushed in one write, not one pass, write and timer apiece.
# Yielding alone is not enough on a small machine: a server parsing floods flat out keeps a core
# busy, and the kernel then makes the echo program and the TUI wait their turn for a CPU (as much
# as busy loops beside it would: `python -m e2e.test_latency --floods 16`). With nobody typing,
# background output is parsed flat out.
TYPING_SHARE = 0.25
TYPING_HOLD = 1.0
# A key's echo is small: once the focused sessions have printed more than ECHO_BYTES since the last
# key (a command's output: `cat` of a log, a build), the person is reading, not typing, and the
# hold ends. Else a flood started by a key would be read and parsed as echoes are, a few KiB at a
# time, each parsed and pushed at once, for a whole TYPING_HOLD (`python -m benchmarks.throughput
# --modes focused`). A key typed into it starts a new hold. A full-screen redraw fits many times.
ECHO_BYTES = 64 * 1024
# One pass of the loop parses slices of several waiting sessions, one after another, until
# BATCH_BUDGET is spent: a pass costs a select() and the loop's own bookkeeping, and with many
# sessions each printing a little, that would otherwise be paid per session. The next slice of a
# batch gets what is left of it, so a request waits for at most BATCH_BUDGET or one slice.
BATCH_BUDGET = BACKGROUND_BUDGET
# A session that no view focuses and that printed less than SMALL_READ bytes in each of the last
# two READ_REST windows is not read again after a read until the next tick of a READ_REST clock
# (`ReadPacer`; one timer for every resting session, armed only while one rests): what it prints
# meanwhile waits in the PTY, and every resting session is then read in one go, in one pass of the
# loop. A session printing a line at a time then costs a read, a parse and a push per tick instead
# of per line (and a parse of several lines is cheaper per line). Faster output is read at once,
# as before; what a view focuses rests on a faster clock, and never while someone types (below).
# A redraw of a full-screen program's terminal (an agent's, `top`'s) is a little at a time too: a
# frame a tick. The PTY holds more than SMALL_READ unread, whatever size its program writes in (a
# test checks), so a program printing a little never blocks on a resting session (a sudden burst
# waits at most one tick, then it is read at once). While someone
# types, every session no view shows rests after a read, whatever it printed: a flood is then read
# once a tick (one read: `Server._drains`), its program blocks on its full PTY meanwhile, and the
# loop is not woken each time the program gets a moment of CPU to write a little more (which,
# with its processes in the idle cgroup, is whenever the server waits).
READ_REST = 0.05
SMALL_READ = 8 * 1024
# One pass of the loop reads at most READ_PASS_BUDGET bytes from the PTYs of sessions that drain
# (read on until the PTY is empty: Session._on_readable) and that no view focuses; past it, each
# reads once per wake-up until the next pass. Many floods drained in one pass would hold the loop
# (READ_SIZE each), and a key arriving then, the first after a pause, waits for all of them. What
# is left waits in the PTYs for the next pass, and the parser takes less than that per pass anyway.
READ_PASS_BUDGET = 64 * 1024
# The sessions whose rest ends at a tick are woken (read) WAKE_BATCH per pass of the loop, the
# next ones in the passes after, so that a request or a key's echo waits for one batch, not all.
WAKE_BATCH = 8
# The same for the session a view focuses, on a faster clock, while nobody types: once it prints a
# little at a time (less than SMALL_READ in each of two FRAME_REST windows), a read rests its
# reading until the next FRAME_REST tick, and what it printed meanwhile is read, parsed and pushed
# in one go. A program printing a line at a time reaches the PTY's master in two pieces (the text,
# then the CR LF the line discipline adds) and would otherwise cost two reads, parses, pushes and
# wake-ups of the view, and two frames, per line; a full-screen redraw arrives in several. Output
# is then pushed at most once per tick, a frame's worth, later by at most a tick. A key typed into
# a view's session ends the rest at once (`Server.typed`) and nothing rests while someone types
# (`OutputPump.typing`): an echo never waits for a tick. Faster output is read at once. The frame
# clock runs at twice the read clock's rate (40 frames a second), so every other frame tick falls
# on a read tick: the focused session's frame and the background sessions' lines are then read in
# one pass of the loop and pushed to the view in one write, which wakes it once. Each frame costs
# the view a redraw of every line a scroll moved (`python -m benchmarks.chatty --modes focused`).
FRAME_REST = READ_REST / 2


@dataclass(frozen=True)
class Batch:
    """What one batch did: its `last` slice, and the seconds its background slices took."""

    last: Slice
    background: float


class Parseable(Protocol):
    id: str

    def parse_slice(self, budget: int) -> tuple[int, bytes]: ...

    def drained(self) -> None: ...

    @property
    def has_backlog(self) -> bool: ...


class OutputPump:
    """Parses backlogs one slice at a time; sleeps on an asyncio.Event (no timer) when idle."""

    def __init__(
        self,
        lookup: Callable[[str], Parseable | None],
        on_parsed: Callable[[Parseable, int, bytes], None],
        slice_bytes: int = SLICE_BYTES,
        clock: Callable[[], float] = time.perf_counter,
        batch: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext,
        interrupted: Callable[[], bool] = lambda: False,
    ) -> None:
        self.order = SliceOrder()
        self._interrupted = interrupted  # a request waits: the slice ends after its piece
        self.slice_bytes = slice_bytes
        self._clock = clock
        self._lookup = lookup
        self._on_parsed = on_parsed
        self._batch = batch  # entered around each batch (the server corks its client writes)
        self._wake = asyncio.Event()
        self._rest = Rest()  # after background slices; output for a focused session ends it
        self.rates = ParseRate()
        self.typing_until = float("-inf")
        self._echo_left = 0  # bytes the focused sessions may print before the typing hold ends
        self.slices = 0
        self.batches = 0
        self.at_once = 0  # batches run from notify (a focused session's output while typing)
        self.interrupted = 0  # slices ended early for a request waiting (server.stats)
        self._batching = False

    def notify(self, session_id: str, nbytes: int) -> None:
        """`session_id` has `nbytes` more output to parse. A focused session's while someone types
        is parsed (and forwarded) at once, in the caller's callback: it is likely a key's echo, and
        the pump's task would take it only on the loop's next pass (a rest the pump takes goes on
        then: it keeps background parsing to its share). Past ECHO_BYTES since the last key it is
        not an echo: the typing hold ends. Else focused output ends the rest."""
        self.order.add(session_id)
        if session_id in self.order.focused:
            if self.typing():
                self._echo_left -= nbytes
                if self._echo_left < 0:
                    self.typing_until = float("-inf")
            if self.typing() and not self._batching:
                self.at_once += 1
                self.batch()
            if session_id in self.order:
                self._rest.end()
        if self.order:
            self._wake.set()

    def typed(self) -> None:
        """Input reached a session a view shows: background parsing rests for a while."""
        self.typing_until = self._clock() + TYPING_HOLD
        self._echo_left = ECHO_BYTES

    def typing(self) -> bool:
        return self._clock() < self.typing_until

    def rest_after(self, done: Batch) -> float:
        """Seconds to rest after `done`: only after background slices, only while someone types."""
        if not done.background or not self.typing():
            return 0.0
        return rest_after(done.background, TYPING_SHARE)

    def step(self, until: float | None = None) -> Slice | None:
        """Parse one slice of the next session (forwarded as one chunk); None when nothing waited.
        `until` (a clock reading) ends the slice earlier than its own budget would."""
        session_id = self.order.next()
        if session_id is None:
            return None
        session = self._lookup(session_id)
        focused = session_id in self.order.focused
        if session is None:
            self.order.discard(session_id)
            self.rates.forget(session_id)
            return Slice(session_id, focused, 0.0)
        started = now = self._clock()
        if focused:
            budget = FOCUSED_BUDGET
        else:
            budget = TYPING_BACKGROUND_BUDGET if self.typing() else QUIET_BACKGROUND_BUDGET
        deadline = started + budget if until is None else min(started + budget, until)
        parts: list[bytes] = []
        parsed = 0
        offset = -1
        piece_time = min(budget, PIECE_TIME)
        while True:
            seconds = min(deadline - now, piece_time)
            at, piece = session.parse_slice(self.rates.piece(session_id, seconds, self.slice_bytes - parsed))
            offset = at if offset < 0 else offset
            before, now = now, self._clock()
            self.rates.parsed(session_id, len(piece), now - before, piece_time)
            parts.append(piece)
            parsed += len(piece)
            if parsed >= self.slice_bytes or not session.has_backlog or deadline - now < SLACK:
                break
            if self._interrupted():
                self.interrupted += 1
                break
        chunk = parts[0] if len(parts) == 1 else b"".join(parts)
        self.slices += 1
        if not session.has_backlog:
            self.order.discard(session_id)
        if chunk:
            self._on_parsed(session, offset, chunk)
        if not session.has_backlog:
            session.drained()
        return Slice(session_id, focused, self._clock() - started)

    def batch(self) -> Batch | None:
        """Slices of the waiting sessions, one after another, while the batch's budget lasts
        (BATCH_BUDGET; while someone types, TYPING_BACKGROUND_BUDGET: the first slice's own budget
        always, the rest get what is left); None when nothing waited. While someone types a focused
        slice ends the batch: its output may be a key's echo, and the batch's writes go out only as
        it ends (the server corks them), so it is not held behind the slices that would follow."""
        self._batching = True
        try:
            with self._batch():
                done = self.step()
                if done is None:
                    return None
                self.batches += 1
                background = 0.0 if done.focused else done.seconds
                typing = self.typing()
                until = self._clock() + (TYPING_BACKGROUND_BUDGET if typing else BATCH_BUDGET) - done.seconds
                while not (done.focused and typing) and self._clock() < until and self.order:
                    if self._interrupted():
                        break
                    step = self.step(until)
                    if step is None:
                        break
                    done = step
                    background += 0.0 if done.focused else done.seconds
                return Batch(done, background)
        finally:
            self._batching = False

    async def run(self) -> None:
        while True:
            done = self.batch()
            if done is not None and (rest := self.rest_after(done)) > 0:
                await self._rest.take(rest)
            elif done is not None and self.order:
                await asyncio.sleep(0)  # let requests and input in between slices
            else:  # nothing waits (not even what the batch left): until output comes
                self._wake.clear()
                await self._wake.wait()


class HeldOutput:
    """Output held for one client, per session, each session's chunks joined into one push when
    released (sans-I/O: the connection arms the timer and writes; see FORWARD_HOLD). A session's
    chunks follow one another without a gap: a chunk not forwarded makes the session stale, and
    then what was held for it is taken out and dropped, its snapshot standing for all of it."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[int, list[bytes]]] = {}  # session -> (first offset, chunks)
        self.size = 0  # bytes held, all sessions

    def __bool__(self) -> bool:
        return bool(self._held)

    def hold(self, session_id: str, offset: int, chunk: bytes) -> None:
        held = self._held.get(session_id)
        if held is None:
            self._held[session_id] = (offset, [chunk])
        else:
            held[1].append(chunk)
        self.size += len(chunk)

    def take(self, only: str | None = None) -> list[tuple[str, int, bytes]]:
        """Every session's held output (or only that of session `only`), (session, offset,
        bytes), in the order each began; it is no longer held."""
        if only is not None:
            held = self._held.pop(only, None)
            if held is None:
                return []
            data = b"".join(held[1])
            self.size -= len(data)
            return [(only, held[0], data)]
        taken = [(sid, offset, b"".join(chunks)) for sid, (offset, chunks) in self._held.items()]
        self._held.clear()
        self.size = 0
        return taken


class ReadPacer:
    """Whether a session's reading rests after a read (sans-I/O: the caller says when).

    Output is counted in windows of `period` seconds per session; after a read, the session rests
    (until the next tick) when its current window and the one before it both hold less than
    `small` bytes.
    """

    def __init__(self, period: float = READ_REST, small: int = SMALL_READ) -> None:
        self.period = period
        self.small = small
        self._windows: dict[str, tuple[float, int, int]] = {}  # session -> (start, bytes, previous bytes)

    def rests(self, session_id: str, nbytes: int, now: float) -> bool:
        """`nbytes` were just read: True when the session should rest before it is read again."""
        start, total, previous = self._windows.get(session_id, (now, 0, 0))
        if now - start >= self.period:
            previous = total if now - start < 2 * self.period else 0
            start, total = now, 0
        total += nbytes
        self._windows[session_id] = (start, total, previous)
        return total < self.small and previous < self.small

    def next_tick(self, now: float) -> float:
        """When the rests that begin at `now` end: the next multiple of `period`."""
        return (now // self.period + 1) * self.period

    def forget(self, session_id: str) -> None:
        self._windows.pop(session_id, None)


# Background output forwarded to one attached client: each background session may send about
# FORWARD_RATE bytes a second, in bursts of up to FORWARD_BURST. Past that its output is skipped
# and the client gets a snapshot of it FORWARD_CATCH_UP seconds later instead. A view of a
# background session needs its latest screen, not every byte; a flood forwarded in full costs the
# client decoding and parsing it (on a small machine, CPU that the keystroke path then waits for).
FORWARD_RATE = 32 * 1024
FORWARD_BURST = 64 * 1024
# A session the client shows in a pane beside its focus is watched: it gets a larger budget, so a
# pane printing steadily streams, and one flooding still costs the client snapshots, not every byte.
FORWARD_VISIBLE_RATE = 64 * 1024
FORWARD_VISIBLE_BURST = 64 * 1024
FORWARD_CATCH_UP = 0.25
# The focus too, within a far larger budget: a screenful redrawn after each key, or a command's
# output of a few hundred KiB, is forwarded whole. A flood past it comes as snapshots, each
# FOCUS_CATCH_UP after the first output it skipped, the rate at which the view draws frames anyway
# (FRAME_REST): the screen the view shows is the same, where parsing every byte of the flood a
# second time cost the view as much CPU as the server's own parse, on the same two cores the
# program and the server want (`python -m benchmarks.throughput --modes focused`).
FORWARD_FOCUS_RATE = 256 * 1024
FORWARD_FOCUS_BURST = 256 * 1024
FOCUS_CATCH_UP = FRAME_REST
# A session the client does not show (not its focus, a pane or a tile) gets a catch-up snapshot at
# most once per UNSEEN_CATCH_UP: the client keeps its screen for the sidebar's preview and for
# when it is shown (focusing a stale session sends its snapshot at once), and a snapshot costs the
# server a screen's encoding and the client a whole screen's parse. A session printing past its
# budget all the time (an agent redrawing itself, a flood) would otherwise cost both a snapshot
# every FORWARD_CATCH_UP (`python -m benchmarks.chatty --program agent`).
UNSEEN_CATCH_UP = 1.0
# The output of a session the client does not show is held, and each session's held chunks go as
# one push at most FORWARD_HOLD after the first of them: such a view uses it for the sidebar's
# marks and previews, drawn a few times a second (the TUI parses it in batches, BACKGROUND_BATCH
# apart), and a push for each chunk cost the client a wake-up and a decode each (the server a
# write each). Past HOLD_MAX bytes held for one client it goes at once; every session's forward
# budget bounds it anyway.
FORWARD_HOLD = 0.25
HOLD_MAX = 256 * 1024
# While a person types, one catch-up sends at most CATCH_UP_TYPING snapshots, of the due sessions
# caught up least recently; the others wait for the next one, FORWARD_CATCH_UP later. A view
# takes in a snapshot by parsing it whole, so a catch-up bringing every stale session's at once
# would hold the view's loop, and the echo queued behind them, for as long as all of them take.
# With nobody typing, each catch-up sends every due session's.
CATCH_UP_TYPING = 2


class ForwardBudget:
    """Token buckets, one per background session of one client (sans-I/O: the caller says when).

    A chunk goes when the session's bucket is not in debt, and its size is then taken whole (the
    bucket may go negative), so any chunk size works and the average stays at `rate`. The buckets
    are bounded by the server's session count; `forget` drops one when its session goes.
    """

    def __init__(self, rate: float = FORWARD_RATE, burst: float = FORWARD_BURST) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, tuple[float, float]] = {}  # session -> (tokens, as of when)

    def take(self, session_id: str, nbytes: int, now: float) -> bool:
        """True (and the bytes are spent) when `nbytes` of the session may be forwarded at `now`."""
        tokens, then = self._buckets.get(session_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        allowed = tokens >= 0
        if allowed:
            tokens -= nbytes
        self._buckets[session_id] = (tokens, now)
        return allowed

    def empty(self, session_id: str, now: float) -> None:
        """A snapshot of the session was just sent: what follows starts from an empty bucket, or
        from the debt the last chunk forwarded left, still to be paid off at `rate` (a flood would
        otherwise send a whole chunk after every snapshot, several times `rate`)."""
        tokens, then = self._buckets.get(session_id, (0.0, now))
        self._buckets[session_id] = (min(0.0, tokens + (now - then) * self.rate), now)

    def forget(self, session_id: str) -> None:
        self._buckets.pop(session_id, None)


class CatchUp:
    """Which of one client's stale sessions get their snapshot when (sans-I/O: the caller says
    when). Order: by the caller's rank (the focus first), then the one caught up least recently
    (never: first). Due: `period` after the session went stale (the focus: `focus_period`), and
    for a session the client does not show, no sooner than `unseen_period` after its last snapshot."""

    def __init__(
        self,
        period: float = FORWARD_CATCH_UP,
        unseen_period: float = UNSEEN_CATCH_UP,
        focus_period: float = FOCUS_CATCH_UP,
    ) -> None:
        self.period = period
        self.unseen_period = unseen_period
        self.focus_period = focus_period
        self._caught_up: dict[str, int] = {}  # session -> the number of its latest snapshot
        self._count = 0
        self._sent_at: dict[str, float] = {}  # session -> when its latest snapshot went
        self._stale_since: dict[str, float] = {}  # session -> when its output was first skipped

    def order(
        self, stale: Iterable[str], rank: Callable[[str], tuple[bool, ...]], limit: int | None = None
    ) -> list[str]:
        """The stale sessions to send, in order; at most `limit` of them (None: all)."""
        ordered = sorted(stale, key=lambda sid: (rank(sid), self._caught_up.get(sid, -1), sid))
        return ordered if limit is None else ordered[:limit]

    def went_stale(self, session_id: str, now: float) -> None:
        """Output of the session was skipped at `now` (the first time since its last snapshot counts)."""
        self._stale_since.setdefault(session_id, now)

    def due(self, session_id: str, shown: bool, focus: bool = False) -> float:
        """When the stale session's snapshot is due (in the past: at the next catch-up)."""
        due = self._stale_since.get(session_id, -math.inf) + (self.focus_period if focus else self.period)
        if not shown:
            due = max(due, self._sent_at.get(session_id, -math.inf) + self.unseen_period)
        return due

    def sent(self, session_id: str, now: float) -> None:
        self._count += 1
        self._caught_up[session_id] = self._count
        self._sent_at[session_id] = now
        self._stale_since.pop(session_id, None)

    def forget(self, session_id: str) -> None:
        self._caught_up.pop(session_id, None)
        self._sent_at.pop(session_id, None)
        self._stale_since.pop(session_id, None)
