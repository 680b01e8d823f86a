"""Shadow screens and the prioritised feed (sans-I/O: the app does the socket and the drawing).

Each followed session has a `Shadow`: a termux Screen fed with the output the server pushes, the
output offset it reflects, and a backlog of pushed chunks not fed yet. Shadows keep no scrollback
by default: the server's is complete (a shadow resynced by snapshot would have gaps), so the
scrollback view asks the server, and a flood costs the TUI no history bookkeeping.

The feed follows the server's slicing policy, in its words (termux/slicing.py): `Feeder.step(visible)`
parses one bounded slice and says what it did (a `ShadowSlice`); the app runs slices with a yield
between them, so a keystroke waits for at most one slice:

1. the focused session's backlog first (with no `focused` given: every visible one's),
   `FOCUSED_SLICE_BYTES` (or `FOCUSED_BUDGET`) per slice;
2. then the other visible sessions (in panes beside the focus) round-robin,
   `VISIBLE_SLICE_BYTES` (or `BACKGROUND_BUDGET`) per slice;
3. then the background sessions round-robin, `BACKGROUND_SLICE_BYTES` (or `BACKGROUND_BUDGET`).

A background session whose backlog grows past `backlog_limit` loses that backlog and is marked for
resync (a visible one only past `focus_backlog_limit`, output faster than parsing for long):
the app asks the server for a snapshot (`session.snapshot`) and `reset()` replaces the screen with it.
Offsets make this exact: output already covered by the snapshot is trimmed, a gap (output missing
before a chunk) also triggers a resync. Every buffer here is bounded.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Set
from dataclasses import dataclass, field
from typing import Any

from termux.emulator import ByteStream, Screen
from termux.emulator.dirty import MovedLines
from termux.slicing import BACKGROUND_BUDGET, FOCUSED_BUDGET, ParseRate, Slice, SliceOrder

# A slice ends at whichever comes first: its byte bound or its time budget (checked after each
# piece). The time budget keeps the wait of a keystroke short on a slow or loaded machine, where
# parsing a background slice's bytes of a `yes` flood can take many times the budget. Within a
# slice the backlog is fed in pieces sized to the time left at the speed the shadow's output last
# parsed (`ParseRate`, as the server does): a feed costs a fixed part plus a part per byte, so a
# redraw fed whole parses faster than in small pieces. PIECE is a shadow's first piece (its speed
# unknown) and the smallest.
FOCUSED_SLICE_BYTES = 256 << 10
BACKGROUND_SLICE_BYTES = 32 << 10
VISIBLE_SLICE_BYTES = 64 << 10  # a pane beside the focus: on screen, so between the two
PIECE = 2048
# Per background session: above this many unparsed bytes the backlog is dropped and the session is
# resynced from a snapshot. A view of a background session needs its latest screen, not every
# byte, so this is small: a flood costs a snapshot now and then instead of parsing all of it.
BACKLOG_LIMIT = 128 << 10
# A visible session is parsed in full; only output arriving faster than this machine can parse
# for long (a backlog past this bound) is coalesced by a snapshot, so memory stays bounded.
FOCUS_BACKLOG_LIMIT = 16 << 20
RESYNC_BUFFER = 128 << 10  # output kept while a snapshot is on its way; the oldest is dropped first


def make_screen(cols: int, rows: int, history: int, snapshot: bytes = b"") -> tuple[Any, Any]:
    """A shadow screen (whose dirty lines say how it scrolled, for the renderer: `MovedLines`)
    and its stream, with `snapshot` fed."""
    screen = Screen(cols, rows, history=history)
    screen.dirty = MovedLines(screen.dirty)
    stream = ByteStream(screen)
    if snapshot:
        stream.feed(snapshot)
    return screen, stream


@dataclass
class Shadow:
    """A session's screen as pushed output makes it. A shadow added for a deferred replay makes
    its screen when first used (`blank`): an attach to many sessions builds only the focused
    one's before its first paint, the others' as the pump replays them."""

    id: str
    _screen: Any
    _stream: Any
    offset: int  # output bytes the screen reflects
    backlog: deque[tuple[int, bytes]] = field(default_factory=deque)
    backlog_bytes: int = 0
    resyncing: bool = False
    resyncs: int = 0
    dropped_bytes: int = 0
    # A snapshot queued to be replayed by the pump (`add(deferred=True)`): the offset it ends at.
    replay_until: int | None = None
    blank: tuple[int, int, int] | None = None  # (cols, rows, history) of the screen not made yet

    @property
    def screen(self) -> Any:
        if self.blank is not None:
            self._make()
        return self._screen

    @property
    def stream(self) -> Any:
        if self.blank is not None:
            self._make()
        return self._stream

    def _make(self) -> None:
        assert self.blank is not None
        self._screen, self._stream = make_screen(*self.blank)
        self.blank = None

    def reset_to(self, cols: int, rows: int, history: int, snapshot: bytes, offset: int) -> None:
        """The screen as a snapshot taken at `offset` shows it. A screen already made at that size
        is made new in place (`Screen.renew`): making one costs more than replaying the snapshot,
        and its stream's caches stay warm (a session no view shows is resynced once a second)."""
        if self.blank is None and (self._screen.columns, self._screen.lines) == (cols, rows):
            self._screen.renew()
            self._stream.restart()
            self._stream.feed(snapshot)
        else:
            self._screen, self._stream = make_screen(cols, rows, history, snapshot)
            self.blank = None
        self.offset = offset

    @property
    def end(self) -> int:
        """The offset just after the last byte received (fed or queued)."""
        if self.backlog:
            offset, data = self.backlog[-1]
            return offset + len(data)
        return self.offset

    @property
    def ready(self) -> bool:
        """Output is queued and may be parsed (not while a snapshot is on its way)."""
        return bool(self.backlog) and not self.resyncing


@dataclass(frozen=True)
class ShadowSlice(Slice):
    """A slice of the TUI's feed: `fed` bytes were parsed into the session's shadow screen;
    `chunks` holds the slice's newest bytes (the activity view reads their tail)."""

    fed: int = 0
    chunks: list[bytes] = field(default_factory=list)
    replay: bool = False  # every byte fed was a deferred snapshot's: the screen as it was, nothing new
    visible: bool = False  # a session shown beside the focus (not `focused`: the pump rests after it)


class Feeder:
    def __init__(
        self,
        *,
        history: int = 0,
        focused_slice_bytes: int = FOCUSED_SLICE_BYTES,
        background_slice_bytes: int = BACKGROUND_SLICE_BYTES,
        visible_slice_bytes: int = VISIBLE_SLICE_BYTES,
        backlog_limit: int = BACKLOG_LIMIT,
        focus_backlog_limit: int = FOCUS_BACKLOG_LIMIT,
        focused_budget: float | None = FOCUSED_BUDGET,
        background_budget: float | None = BACKGROUND_BUDGET,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.history = history
        self.focused_budget = focused_budget  # None: slices end at their byte bound only
        self.background_budget = background_budget
        self.clock = clock
        self.focused_slice_bytes = focused_slice_bytes
        self.background_slice_bytes = background_slice_bytes
        self.visible_slice_bytes = visible_slice_bytes
        self.backlog_limit = backlog_limit
        self.focus_backlog_limit = focus_backlog_limit
        self.shadows: dict[str, Shadow] = {}
        self.need_snapshot: set[str] = set()  # the app requests these and calls reset()
        self.order = SliceOrder()  # shadows with output to parse, visible ones first
        self.rates = ParseRate(PIECE)  # how fast each shadow's output parsed lately: piece sizes

    # -- sessions -------------------------------------------------------------------------------

    def add(
        self, session: str, cols: int, rows: int, snapshot: bytes = b"", offset: int = 0, deferred: bool = False
    ) -> Shadow:
        """A shadow from a snapshot taken at `offset`. `deferred`: the snapshot is queued as the
        shadow's first chunk, replayed by `step` like output (at offsets just before its own,
        below 0 if need be: they are the feeder's, the server never sees them), so an attach
        parses only the focused session's before its first paint."""
        if deferred and snapshot:
            shadow = Shadow(
                session, None, None, offset - len(snapshot), replay_until=offset, blank=(cols, rows, self.history)
            )
            shadow.backlog.append((shadow.offset, snapshot))
            shadow.backlog_bytes = len(snapshot)
            self.order.add(session)
        else:
            screen, stream = make_screen(cols, rows, self.history, snapshot)
            shadow = Shadow(session, screen, stream, offset)
        self.shadows[session] = shadow
        return shadow

    def remove(self, session: str) -> None:
        self.shadows.pop(session, None)
        self.need_snapshot.discard(session)
        self.order.discard(session)
        self.rates.forget(session)

    def reset(self, session: str, cols: int, rows: int, snapshot: bytes, offset: int) -> Shadow:
        """Replace the session's screen with a server snapshot taken at `offset`; queued output the
        snapshot already covers is dropped, the rest is kept."""
        old = self.shadows.get(session)
        if old is None:
            return self.add(session, cols, rows, snapshot, offset)
        old.reset_to(cols, rows, self.history, snapshot, offset)
        old.resyncing = False
        old.replay_until = None
        self.need_snapshot.discard(session)
        kept: deque[tuple[int, bytes]] = deque()
        expected = offset
        for chunk_offset, data in old.backlog:
            end = chunk_offset + len(data)
            if end <= expected:
                continue
            if chunk_offset > expected:
                self._resync(old)  # a gap after the snapshot: ask again
                return old
            kept.append((expected, data[expected - chunk_offset :]))
            expected = end
        old.backlog = kept
        old.backlog_bytes = sum(len(d) for _, d in kept)
        if kept:
            self.order.add(session)
        return old

    # -- input from the server -----------------------------------------------------------------

    def push(self, session: str, offset: int, data: bytes, visible: Set[str]) -> None:
        """Queue pushed output (`visible`: the sessions on view). Never parses (that is `step`'s
        job, in bounded slices)."""
        shadow = self.shadows.get(session)
        if shadow is None or not data:
            return
        if shadow.resyncing:
            # Keep what arrives while the snapshot is on its way; reset() trims what it covers.
            shadow.backlog.append((offset, data))
            shadow.backlog_bytes += len(data)
            while shadow.backlog_bytes > RESYNC_BUFFER and len(shadow.backlog) > 1:
                _, dropped = shadow.backlog.popleft()
                shadow.backlog_bytes -= len(dropped)
            return
        end = shadow.end
        if offset + len(data) <= end:
            return  # already have it
        if offset > end:
            self._resync(shadow)  # bytes went missing
            shadow.backlog.append((offset, data))
            shadow.backlog_bytes += len(data)
            return
        if offset < end:
            data = data[end - offset :]
            offset = end
        shadow.backlog.append((offset, data))
        shadow.backlog_bytes += len(data)
        limit = self.focus_backlog_limit if session in visible else self.backlog_limit
        if shadow.backlog_bytes > limit:
            self._resync(shadow)
        else:
            self.order.add(session)

    def resync(self, session: str) -> None:
        """Drop what is queued and ask for a fresh snapshot (the session changed size elsewhere)."""
        if (shadow := self.shadows.get(session)) is not None and not shadow.resyncing:
            self._resync(shadow)

    def _resync(self, shadow: Shadow) -> None:
        shadow.dropped_bytes += shadow.backlog_bytes
        shadow.backlog.clear()
        shadow.backlog_bytes = 0
        shadow.resyncing = True
        shadow.resyncs += 1
        shadow.replay_until = None
        self.need_snapshot.add(shadow.id)
        self.order.discard(shadow.id)

    # -- the work -------------------------------------------------------------------------------

    def has_work(self) -> bool:
        return any(s.ready for s in self.shadows.values())

    def step(self, visible: Set[str], focused: str | None = None) -> ShadowSlice | None:
        """Parse one bounded slice: the `focused` session's first, then the other `visible` ones'
        (all of them as focused when `focused` is not given), then the rest. None when there is
        nothing to do."""
        self.order.focused = set(visible) if focused is None else {focused}
        self.order.visible = set(visible) - self.order.focused
        while (session := self.order.next()) is not None:
            shadow = self.shadows.get(session)
            if shadow is None or not shadow.ready:
                self.order.discard(session)  # (resyncing: reset() queues it again)
                continue
            if session in self.order.focused:
                done = self._feed(shadow, self.focused_slice_bytes, self.focused_budget, True)
            elif session in visible:
                done = self._feed(shadow, self.visible_slice_bytes, self.background_budget, False, visible=True)
            else:
                done = self._feed(shadow, self.background_slice_bytes, self.background_budget, False)
            if not shadow.backlog:
                self.order.discard(session)
            return done
        return None

    def _feed(
        self, shadow: Shadow, budget: int, seconds: float | None, focused: bool, visible: bool = False
    ) -> ShadowSlice:
        fed = 0
        last = b""
        started = now = self.clock()
        deadline = None if seconds is None else started + seconds
        while shadow.backlog and fed < budget:
            if deadline is not None and fed and now >= deadline:
                break  # always some progress, then at most one piece past the time budget
            room = budget - fed if deadline is None else self.rates.piece(shadow.id, deadline - now, budget - fed)
            # Queued chunks are fed together up to the room: one parse of many small chunks
            # (log lines, one push each) costs far less than one parse per chunk.
            parts: list[bytes] = []
            taken = 0
            while shadow.backlog and taken < room:
                offset, data = shadow.backlog[0]
                if len(data) > room - taken:
                    view = memoryview(data)
                    cut = room - taken
                    parts.append(bytes(view[:cut]))
                    shadow.backlog[0] = (offset + cut, bytes(view[cut:]))
                    offset, taken = offset + cut, taken + cut
                    break
                parts.append(data)
                shadow.backlog.popleft()
                offset, taken = offset + len(data), taken + len(data)
            piece = parts[0] if len(parts) == 1 else b"".join(parts)
            shadow.stream.feed(piece)
            last = piece
            fed += taken
            shadow.backlog_bytes -= taken
            shadow.offset = offset
            if deadline is not None:
                before, now = now, self.clock()
                self.rates.parsed(shadow.id, taken, now - before, seconds or 0.0)
        replay = shadow.replay_until is not None and shadow.offset <= shadow.replay_until
        if shadow.replay_until is not None and shadow.offset >= shadow.replay_until:
            shadow.replay_until = None  # replayed: what follows is output
        # The newest bytes of the slice, for the activity view (it looks at a chunk's tail only).
        seconds_taken = self.clock() - started
        return ShadowSlice(shadow.id, focused, seconds_taken, fed, [last] if fed else [], replay, visible)


# Output that streams into the focused session is drawn at most this often; the echo of a key is
# drawn at once.
FRAME_PERIOD = 1 / 60


class FramePacer:
    """When the focused session's newly parsed output is drawn.

    The first output after a keystroke (its echo) is drawn at once: that is the latency a person
    feels. Other output is drawn at most once per `period`, so a streaming session costs a steady
    frame rate instead of a frame per chunk. `delay()` says how long to wait; the app arms one
    timer for it, only while undrawn output exists, and calls `drawn()` when it draws.
    """

    def __init__(self, period: float = FRAME_PERIOD, clock: Callable[[], float] = time.perf_counter) -> None:
        self.period = period
        self.clock = clock
        self.last_frame = float("-inf")
        self.key_pending = False
        self.last_key = float("-inf")  # when the last key was sent (someone is typing)

    def key_sent(self) -> None:
        self.key_pending = True
        self.last_key = self.clock()

    def delay(self) -> float:
        """Seconds until pending output may be drawn; 0 means draw now."""
        if self.key_pending:
            return 0.0
        return max(0.0, self.last_frame + self.period - self.clock())

    def drawn(self) -> None:
        self.last_frame = self.clock()
        self.key_pending = False
