"""The event log, sans-I/O: a sequenced, bounded ring with cursor reads and push subscribers.

Nothing here touches a socket, a loop or a clock you did not pass in; the server's I/O side calls
`append` when something happens and writes what subscribers `take` to their connections.

Cursors: a cursor is the `seq` of the last event a client has seen (0 before the first event).
A read after cursor `c` returns events with `seq > c`. The ring holds the newest `capacity` events;
a cursor older than the oldest held event minus one has missed events (`cursor_expired`), a cursor
past the newest event is from another server run (`cursor_ahead`), anything that is not a
non-negative integer is `bad_cursor`.

Every event is encoded to JSON once, when it is committed; reads and every subscriber reuse the
bytes (`Event.json`, `Event.push_line`). The server commits typed events (`commit`, with the
structs of termux/protocol/events.py); `append` takes the same fields loose, for tests and tools.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from termux.defaults import EVENT_CAPACITY, MAX_STREAMS
from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.event_types import EVENT_TYPES
from termux.protocol.events import EventBase, EventData

DEFAULT_MAX_WAITERS = 1024
# How far (in events) a stream subscriber whose peer stopped reading may fall behind the log before
# it is dropped. Its pending events are the ring's own, so this costs no memory per subscriber.
DEFAULT_QUEUE_SIZE = 1000
DEFAULT_READ_LIMIT = 100
MAX_READ_LIMIT = 10_000

_encoder = msgspec.json.Encoder()


@dataclass(slots=True, eq=False)
class Event:
    seq: int
    time: float
    type: str
    session: str | None
    name: str | None
    data: EventData | dict[str, Any]
    json: bytes = b""  # the event object, encoded once at commit
    _push: bytes | None = field(default=None, repr=False)

    @property
    def raw(self) -> msgspec.Raw:
        """The encoded event, to embed in a reply without encoding it again."""
        return msgspec.Raw(self.json)

    @property
    def push_line(self) -> bytes:
        """The pushed line for streams, built on first use and shared by every subscriber."""
        if self._push is None:  # an EventPush around the event's own bytes, not encoded again
            self._push = b'{"push":"event","event":' + self.json + b"}\n"
        return self._push


def parse_cursor(value: object) -> int | None:
    """A cursor from a request: None (the tail), a non-negative int, or its decimal string."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ProtocolError(ErrorCode.BAD_CURSOR, f"a cursor is a non-negative integer, not {value!r}")
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        value = int(value)
    if not isinstance(value, int) or value < 0:
        raise ProtocolError(ErrorCode.BAD_CURSOR, f"a cursor is a non-negative integer, not {value!r}")
    return value


def parse_types(value: Iterable[str] | str | None) -> frozenset[str] | None:
    """A type filter: None (all types) or a set of known types; unknown names are `bad_args`."""
    if value is None:
        return None
    names = value.split(",") if isinstance(value, str) else list(value)
    types = frozenset(name.strip() for name in names if name.strip())
    unknown = types.difference(EVENT_TYPES)
    if unknown:
        raise ProtocolError(
            ErrorCode.BAD_ARGS,
            f"unknown event type(s): {', '.join(sorted(unknown))}; known: {', '.join(EVENT_TYPES)}",
        )
    return types or None


@dataclass(frozen=True, slots=True)
class EventFilter:
    types: frozenset[str] | None = None
    session: str | None = None  # a session id

    def matches(self, event: Event) -> bool:
        return (self.types is None or event.type in self.types) and (
            self.session is None or event.session == self.session
        )


ALL = EventFilter()


@dataclass(slots=True)
class ReadResult:
    events: list[Event]
    cursor: int  # the cursor to read after next time
    more: bool  # the limit stopped the read: more events are held after `cursor`


@dataclass(eq=False, slots=True)
class Subscriber:
    """A push subscriber. Its queue is a view of the log, not a copy: the events after `cursor`
    that pass its filter. A commit costs a subscriber nothing once it is awake.

    - asleep: everything written; the next matching commit wakes it and calls `on_ready` (once
      per batch, not per event). A `oneshot` subscriber (a long poll) leaves the log right then.
    - awake: the I/O side will `take()` or `take_lines()` (which puts it back to sleep).
    - stalled: the I/O side could not write (`stall()`: its peer's socket is full). A stalled
      subscriber more than `max_queue` events behind the log is dropped — never waited on — and
      `on_drop` is called once. So is one whose unsent events the ring overwrote.
    """

    _log: EventLog = field(repr=False)
    filter: EventFilter
    cursor: int  # seq up to which events were handed out (backlog or take)
    max_queue: int
    oneshot: bool = False
    awake: bool = field(default=False, init=False)
    stalled: bool = field(default=False, init=False)
    dropped: bool = field(default=False, init=False)
    closed: bool = field(default=False, init=False)
    on_ready: Callable[[], None] | None = field(default=None, init=False)
    on_drop: Callable[[], None] | None = field(default=None, init=False)

    @property
    def behind(self) -> int:
        """Events committed after this subscriber's cursor: the bound its queue is held to."""
        return self._log.cursor - self.cursor

    def take(self) -> list[Event]:
        """The matching events after the cursor, oldest first; the subscriber goes back to sleep."""
        return self._log._take(self)

    def take_lines(self) -> bytes:
        """The same as pushed lines, joined; shared by every subscriber at the same cursor and filter."""
        return self._log._take_lines(self)

    def stall(self) -> None:
        """The I/O side could not write: keep the events (bounded by `max_queue`) until it can."""
        self._log._stall(self)

    def close(self) -> None:
        """Unsubscribe (idempotent)."""
        if not self.closed:
            self.closed = True
            self._log._remove(self)


class EventLog:
    """A bounded ring of events with O(1) seq→slot lookup.

    Reads cost the number of events after the cursor (at the tail: nothing). An append costs one
    encode plus one filter check per *sleeping* subscriber: in a burst, the first event wakes the
    subscribers and the rest cost nothing more per subscriber. Subscribers at the same cursor with
    the same filter share one joined buffer of pushed lines.
    """

    def __init__(
        self,
        capacity: int = EVENT_CAPACITY,
        *,
        max_streams: int = MAX_STREAMS,
        max_waiters: int = DEFAULT_MAX_WAITERS,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.max_streams = max_streams
        self.max_waiters = max_waiters
        self.queue_size = queue_size
        self._clock = clock
        self._ring: list[Event | None] = [None] * capacity
        self._last = 0  # seq of the newest event; 0 while empty
        self._streams: list[Subscriber] = []
        self._waiters: list[Subscriber] = []
        self._asleep: dict[Subscriber, None] = {}  # insertion-ordered set
        self._stalled: dict[Subscriber, None] = {}
        self._lines: dict[tuple[int, EventFilter], bytes] = {}  # take_lines, valid at _lines_at
        self._lines_at = 0
        # In-process observers called on every append (the server's push to attached clients).
        self.listeners: list[Callable[[Event], None]] = []
        self.dropped_subscribers = 0  # counters for server.stats

    # -- state --------------------------------------------------------------------------------

    @property
    def cursor(self) -> int:
        """The current cursor: the seq of the newest event (0 while empty)."""
        return self._last

    @property
    def oldest_cursor(self) -> int:
        """The oldest cursor still valid: reading after it loses nothing."""
        return max(0, self._last - self.capacity)

    def __len__(self) -> int:
        return self._last - self.oldest_cursor

    @property
    def stream_count(self) -> int:
        return len(self._streams)

    @property
    def waiter_count(self) -> int:
        return len(self._waiters)

    def get(self, seq: int) -> Event | None:
        if self.oldest_cursor < seq <= self._last:
            return self._ring[(seq - 1) % self.capacity]
        return None

    # -- writing ------------------------------------------------------------------------------

    def commit(self, event: EventBase) -> Event:
        """Commit a typed event: it gets the next `seq` and the time, and is encoded once."""
        event.seq, event.time = self._last + 1, self._clock()
        record = Event(event.seq, event.time, event.type, event.session, event.name, event.data)  # type: ignore[attr-defined]
        record.json = _encoder.encode(event)
        return self._store(record)

    def append(self, type: str, session: str | None = None, name: str | None = None, **data: Any) -> Event:
        """Commit an event given loose (any type name, any data): tests and tools; the server
        commits typed ones."""
        seq = self._last + 1
        record = Event(seq, self._clock(), type, session, name, data)
        record.json = _encoder.encode(
            {"seq": seq, "time": record.time, "type": type, "session": session, "name": name, "data": data}
        )
        return self._store(record)

    def _store(self, event: Event) -> Event:
        """Hand a committed event to the ring and to every matching subscriber."""
        seq = event.seq
        self._ring[(seq - 1) % self.capacity] = event
        self._last = seq
        if self._asleep:
            self._wake(event)
        if self._stalled:
            for sub in tuple(self._stalled):
                if seq - sub.cursor > sub.max_queue:
                    self._drop(sub)
        for listener in tuple(self.listeners):
            listener(event)
        return event

    def _wake(self, event: Event) -> None:
        woken = [sub for sub in self._asleep if sub.filter.matches(event)]
        for sub in woken:
            del self._asleep[sub]
            sub.awake = True
            if sub.oneshot:
                sub.close()
        for sub in woken:  # callbacks may subscribe or close others: the list is settled first
            if sub.on_ready is not None and (sub.oneshot or not sub.closed):
                sub.on_ready()

    def _drop(self, sub: Subscriber) -> None:
        sub.dropped = True
        self.dropped_subscribers += 1
        sub.close()
        if sub.on_drop is not None:
            sub.on_drop()

    def _settle(self, sub: Subscriber) -> bool:
        """Back to sleep at the log's cursor; False when it must be dropped (events overwritten)."""
        if sub.closed:
            return False
        if sub.cursor < self.oldest_cursor:
            self._drop(sub)
            return False
        return True

    def _asleep_at_tail(self, sub: Subscriber) -> None:
        sub.cursor = self._last
        sub.awake = sub.stalled = False
        self._stalled.pop(sub, None)
        self._asleep[sub] = None

    def _take(self, sub: Subscriber) -> list[Event]:
        if not self._settle(sub):
            return []
        events = self.read(sub.cursor, limit=self.capacity, filter=sub.filter).events
        self._asleep_at_tail(sub)
        return events

    def _take_lines(self, sub: Subscriber) -> bytes:
        if not self._settle(sub):
            return b""
        if self._lines_at != self._last:
            self._lines.clear()
            self._lines_at = self._last
        key = (sub.cursor, sub.filter)
        data = self._lines.get(key)
        if data is None:
            events = self.read(sub.cursor, limit=self.capacity, filter=sub.filter).events
            data = self._lines[key] = b"".join(e.push_line for e in events)
        self._asleep_at_tail(sub)
        return data

    def _stall(self, sub: Subscriber) -> None:
        if sub.closed:
            return
        sub.stalled = True
        self._stalled[sub] = None
        if self._last - sub.cursor > sub.max_queue:
            self._drop(sub)

    # -- reading ------------------------------------------------------------------------------

    def check_cursor(self, cursor: int) -> None:
        if cursor > self._last:
            raise ProtocolError(
                ErrorCode.CURSOR_AHEAD,
                f"cursor {cursor} is ahead of the log (current cursor {self._last}): it is from another server run",
                cursor=self._last,
            )
        oldest = self.oldest_cursor
        if cursor < oldest:
            raise ProtocolError(
                ErrorCode.CURSOR_EXPIRED,
                f"cursor {cursor} is older than the log: events {cursor + 1}..{oldest} are gone; "
                f"the oldest cursor held is {oldest}",
                oldest=oldest,
                cursor=self._last,
            )

    def read(self, cursor: int | None, limit: int = DEFAULT_READ_LIMIT, filter: EventFilter = ALL) -> ReadResult:
        """Events after `cursor` (None: the tail) that pass `filter`, at most `limit` of them."""
        if cursor is None:
            return ReadResult([], self._last, False)
        self.check_cursor(cursor)
        if limit < 1:
            raise ProtocolError(ErrorCode.BAD_ARGS, f"limit must be at least 1, not {limit}")
        ring, cap = self._ring, self.capacity
        events: list[Event] = []
        seq = cursor
        while seq < self._last:
            seq += 1
            event = ring[(seq - 1) % cap]
            assert event is not None
            if filter.matches(event):
                events.append(event)
                if len(events) >= limit:
                    return ReadResult(events, seq, seq < self._last)
        return ReadResult(events, self._last, False)

    # -- subscribing --------------------------------------------------------------------------

    def subscribe(
        self, cursor: int | None, filter: EventFilter = ALL, queue_size: int | None = None
    ) -> tuple[Subscriber, ReadResult]:
        """Register a stream subscriber, then read its backlog (subscribe before replay).

        The subscriber is in the fan-out list before the backlog is read, and it only takes
        events past the backlog's cursor: an event committed at any point after this call is
        delivered once, after the backlog, in order.
        """
        start = self._last if cursor is None else cursor
        self.check_cursor(start)
        if len(self._streams) >= self.max_streams:
            raise ProtocolError(
                ErrorCode.CAPACITY,
                f"too many event streams ({self.max_streams}); read with events.read instead",
                limit=self.max_streams,
            )
        # The ring must still hold what a stalled subscriber has not sent: bound it by the capacity.
        size = min(self.queue_size if queue_size is None else queue_size, self.capacity)
        sub = Subscriber(self, filter, start, size)
        self._streams.append(sub)
        backlog = self.read(start, limit=self.capacity, filter=filter)
        self._asleep_at_tail(sub)
        return sub, backlog

    def waiter(self, cursor: int, filter: EventFilter = ALL) -> Subscriber:
        """A one-shot subscriber for a long poll after `cursor` (which the caller read up to)."""
        if len(self._waiters) >= self.max_waiters:
            raise ProtocolError(
                ErrorCode.CAPACITY, f"too many waiting reads ({self.max_waiters})", limit=self.max_waiters
            )
        sub = Subscriber(self, filter, cursor, 1, oneshot=True)
        self._waiters.append(sub)
        self._asleep[sub] = None
        return sub

    def _remove(self, sub: Subscriber) -> None:
        self._asleep.pop(sub, None)
        self._stalled.pop(sub, None)
        for subscribers in (self._waiters, self._streams):
            try:
                subscribers.remove(sub)
                return
            except ValueError:
                pass


class ActivityTracker:
    """Activity and quiet detection, sans-I/O, with one deadline for all sessions.

    Feed it `output(session, now)` for every chunk a session prints. A session becomes *active*
    on output after a quiet spell (or its first output) and *quiet* when it has printed nothing
    for `quiet_after` seconds. Deadlines are lazy: output only moves a session to the back of an
    ordered map (O(1)); the earliest pending deadline is the front's. The I/O side arms one timer
    for `next_deadline()` when it has none armed, and calls `expire(now)` when it fires: a timer
    that fires early (the session printed again) simply re-arms for the new earliest deadline.
    With no active session there is no deadline, so no timer.
    """

    def __init__(self, quiet_after: float) -> None:
        if quiet_after <= 0:
            raise ValueError("quiet_after must be positive")
        self.quiet_after = quiet_after
        self._active: OrderedDict[str, float] = OrderedDict()  # session -> last output time

    def output(self, session: str, now: float) -> bool:
        """Note output; True when the session just became active."""
        active = self._active
        if session in active:
            active[session] = now
            active.move_to_end(session)
            return False
        active[session] = now
        return True

    def is_active(self, session: str) -> bool:
        return session in self._active

    def last_output(self, session: str) -> float | None:
        """When an active session last printed (the clock `output` is given); None if quiet."""
        return self._active.get(session)

    def next_deadline(self) -> float | None:
        """The earliest time a session can become quiet, or None when none is active."""
        for last in self._active.values():
            return last + self.quiet_after
        return None

    def expire(self, now: float) -> list[str]:
        """Sessions that turned quiet by `now`, oldest first; they are no longer active."""
        quiet: list[str] = []
        active, limit = self._active, now - self.quiet_after
        while active:
            session, last = next(iter(active.items()))
            if last > limit:
                break
            del active[session]
            quiet.append(session)
        return quiet

    def forget(self, session: str) -> None:
        """The session is gone (exited or killed): no quiet event will follow."""
        self._active.pop(session, None)
