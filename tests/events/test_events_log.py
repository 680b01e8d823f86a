"""The event log and the activity tracker, sans-I/O: fed events and times, no server."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termux.protocol.errors import ProtocolError
from termux.protocol.event_types import SESSION_BELL, SESSION_CREATED, SESSION_EXITED
from termux.server.events import (
    ActivityTracker,
    EventFilter,
    EventLog,
    parse_cursor,
    parse_types,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 0.5
        return self.now


def fill(log: EventLog, n: int, type: str = SESSION_BELL, session: str = "%1") -> None:
    for i in range(n):
        log.append(type, session=session, name="0", i=i)


def seqs(events: list) -> list[int]:
    return [e.seq for e in events]


def test_append_assigns_strictly_increasing_seq_time_and_encodes_once() -> None:
    clock = Clock()
    log = EventLog(clock=clock)
    a = log.append(SESSION_CREATED, session="%1", name="build", command=["sh"])
    b = log.append(SESSION_EXITED, session="%1", name="build", exit_code=3, exit_signal=None)
    assert (a.seq, b.seq) == (1, 2) and a.time < b.time
    assert json.loads(b.json) == {
        "seq": 2,
        "time": b.time,
        "type": SESSION_EXITED,
        "session": "%1",
        "name": "build",
        "data": {"exit_code": 3, "exit_signal": None},
    }
    # The pushed line wraps the same bytes and is built once, shared by every subscriber.
    assert b.push_line == b'{"push":"event","event":' + b.json + b"}\n"
    assert b.push_line is b.push_line
    assert msgspec.json.encode({"events": [a.raw]}) == b'{"events":[' + a.json + b"]}"


def test_read_after_cursor_with_limit_and_filters() -> None:
    log = EventLog()
    for i in range(10):
        log.append(SESSION_BELL if i % 2 else SESSION_CREATED, session=f"%{i % 3}", name=str(i))
    r = log.read(0, limit=4)
    assert seqs(r.events) == [1, 2, 3, 4] and r.cursor == 4 and r.more
    r = log.read(r.cursor, limit=100)
    assert seqs(r.events) == [5, 6, 7, 8, 9, 10] and r.cursor == 10 and not r.more
    r = log.read(0, filter=EventFilter(types=frozenset({SESSION_BELL})))
    assert seqs(r.events) == [2, 4, 6, 8, 10]
    r = log.read(0, filter=EventFilter(session="%1"))
    assert seqs(r.events) == [2, 5, 8] and r.cursor == 10  # the cursor passes non-matching events
    r = log.read(0, limit=2, filter=EventFilter(types=frozenset({SESSION_BELL}), session="%1"))
    assert seqs(r.events) == [2, 8] and r.cursor == 8 and r.more
    # No cursor: the tail, nothing to return.
    assert log.read(None).events == [] and log.read(None).cursor == 10


def test_ring_is_bounded_and_cursor_errors_have_their_own_codes() -> None:
    log = EventLog(capacity=5)
    fill(log, 12)
    assert len(log) == 5 and log.oldest_cursor == 7 and log.cursor == 12
    assert seqs(log.read(7).events) == [8, 9, 10, 11, 12]
    with pytest.raises(ProtocolError) as expired:
        log.read(6)
    assert expired.value.code == "cursor_expired" and expired.value.extra["oldest"] == 7
    assert "7" in expired.value.message
    with pytest.raises(ProtocolError) as ahead:
        log.read(13)
    assert ahead.value.code == "cursor_ahead" and ahead.value.extra["cursor"] == 12
    for bad in (-1, "x", 1.5, True, [], "-3"):
        with pytest.raises(ProtocolError) as malformed:
            parse_cursor(bad)
        assert malformed.value.code == "bad_cursor"
    assert parse_cursor("42") == 42 and parse_cursor(7) == 7 and parse_cursor(None) is None


def test_a_read_at_the_tail_touches_no_slot_of_the_ring() -> None:
    log = EventLog(capacity=1000)
    fill(log, 1000)

    class Exploding(list):
        def __getitem__(self, index):  # type: ignore[no-untyped-def]
            raise AssertionError("a tail read indexed the ring")

    log._ring = Exploding(log._ring)
    r = log.read(log.cursor, filter=EventFilter(types=frozenset({SESSION_BELL}), session="%9"))
    assert r.events == [] and r.cursor == 1000


def test_parse_types_rejects_unknown_names() -> None:
    assert parse_types(None) is None
    assert parse_types("session.bell, session.exited") == {SESSION_BELL, SESSION_EXITED}
    assert parse_types([]) is None
    with pytest.raises(ProtocolError) as err:
        parse_types(["session.bel"])
    assert err.value.code == "bad_args" and "session.bel" in err.value.message


def test_subscribe_before_replay_backlog_then_take_exactly_once() -> None:
    log = EventLog()
    fill(log, 5)
    sub, backlog = log.subscribe(2)
    assert seqs(backlog.events) == [3, 4, 5] and backlog.cursor == 5
    woken: list[int] = []
    sub.on_ready = lambda: woken.append(log.cursor)
    fill(log, 3)
    assert woken == [6]  # one wake-up for the batch, not one per event
    assert seqs(sub.take()) == [6, 7, 8]
    fill(log, 1)
    assert woken == [6, 9] and seqs(sub.take()) == [9]
    assert sub.take() == []
    sub.close()
    fill(log, 1)
    assert sub.take() == [] and log.stream_count == 0 and woken == [6, 9]


def test_subscriber_at_the_tail_and_with_a_filter() -> None:
    log = EventLog()
    fill(log, 3)
    sub, backlog = log.subscribe(None, EventFilter(session="%2"))
    woken: list[int] = []
    sub.on_ready = lambda: woken.append(log.cursor)
    assert backlog.events == [] and backlog.cursor == 3
    log.append(SESSION_BELL, session="%1")
    assert woken == []  # a non-matching commit does not wake it
    log.append(SESSION_BELL, session="%2")
    assert woken == [5] and seqs(sub.take()) == [5]


def test_take_lines_is_shared_by_subscribers_at_the_same_cursor_and_filter() -> None:
    log = EventLog()
    a, _ = log.subscribe(None)
    b, _ = log.subscribe(None)
    c, _ = log.subscribe(None, EventFilter(types=frozenset({SESSION_EXITED})))
    events = [log.append(SESSION_BELL), log.append(SESSION_EXITED)]
    lines = a.take_lines()
    assert lines == b"".join(e.push_line for e in events)
    assert b.take_lines() is lines  # joined once, written to both
    assert c.take_lines() == events[1].push_line


def test_a_stalled_subscriber_is_dropped_past_its_bound_never_waited_on() -> None:
    log = EventLog(queue_size=4)
    slow, _ = log.subscribe(0)
    fast, _ = log.subscribe(0)
    drops: list[str] = []
    slow.on_ready = slow.stall  # its peer's socket is full: the I/O side cannot write
    slow.on_drop = lambda: drops.append("slow")
    for _ in range(10):
        log.append(SESSION_BELL, session="%1")
        assert slow.dropped or slow.behind <= 4
        fast.take()
    assert drops == ["slow"] and slow.dropped and slow.closed
    assert log.stream_count == 1 and log.dropped_subscribers == 1
    assert slow.take() == []


def test_a_burst_into_a_subscriber_that_is_reading_never_drops_it() -> None:
    log = EventLog(queue_size=2)
    sub, _ = log.subscribe(None)
    fill(log, 7)  # one loop pass: nothing written yet, but the peer is reading
    assert not sub.dropped and seqs(sub.take()) == list(range(1, 8))


def test_a_subscriber_whose_unsent_events_were_overwritten_is_dropped() -> None:
    log = EventLog(capacity=5)
    sub, _ = log.subscribe(None)
    fill(log, 12)
    assert sub.take() == [] and sub.dropped


def test_stream_cap_gives_capacity_and_closing_frees_a_slot() -> None:
    log = EventLog(max_streams=3)
    subs = [log.subscribe(None)[0] for _ in range(3)]
    with pytest.raises(ProtocolError) as err:
        log.subscribe(None)
    assert err.value.code == "capacity"
    subs[0].close()
    subs[0].close()  # idempotent
    log.subscribe(None)
    assert log.stream_count == 3


def test_long_poll_waiter_is_oneshot_and_matches_its_filter() -> None:
    log = EventLog()
    fill(log, 2)
    w = log.waiter(2, EventFilter(types=frozenset({SESSION_EXITED})))
    fired: list[int] = []
    w.on_ready = lambda: fired.append(log.cursor)
    log.append(SESSION_BELL, session="%1")
    assert not fired and log.waiter_count == 1
    log.append(SESSION_EXITED, session="%1")
    assert fired == [4] and w.closed and log.waiter_count == 0
    log.append(SESSION_EXITED, session="%1")
    assert fired == [4]


def test_callbacks_may_close_and_subscribe_during_fan_out() -> None:
    log = EventLog()
    a, _ = log.subscribe(None)
    b, _ = log.subscribe(None)
    late: list[object] = []
    a.on_ready = lambda: (b.close(), late.append(log.subscribe(None)[0]))
    log.append(SESSION_BELL)
    assert seqs(a.take()) == [1] and b.take() == [] and log.stream_count == 2


@settings(max_examples=60, deadline=None)
@given(
    capacity=st.integers(1, 20),
    ops=st.lists(st.one_of(st.just(("append",)), st.tuples(st.just("read"), st.integers(0, 60))), max_size=80),
)
def test_reads_match_a_model_of_the_ring(capacity: int, ops: list) -> None:
    log = EventLog(capacity=capacity)
    model: list[int] = []
    for op in ops:
        if op[0] == "append":
            model.append(log.append(SESSION_BELL).seq)
            continue
        cursor = op[1]
        held = model[-capacity:]
        oldest = held[0] - 1 if held else len(model)
        try:
            got = seqs(log.read(cursor, limit=1000).events)
        except ProtocolError as e:
            assert (e.code == "cursor_ahead" and cursor > len(model)) or (
                e.code == "cursor_expired" and cursor < oldest
            )
        else:
            assert oldest <= cursor <= len(model)
            assert got == [s for s in held if s > cursor]


# -- activity / quiet ---------------------------------------------------------------------------


def test_activity_starts_on_output_after_quiet_and_ends_after_the_quiet_spell() -> None:
    t = ActivityTracker(quiet_after=2.0)
    assert t.next_deadline() is None  # nothing active: no timer
    assert t.output("%1", 10.0) is True
    assert t.output("%1", 10.5) is False
    assert t.next_deadline() == 12.5
    assert t.expire(12.0) == []  # a timer firing early changes nothing
    assert t.expire(12.5) == ["%1"]
    assert t.next_deadline() is None
    assert t.output("%1", 20.0) is True  # output after a quiet spell is activity again


def test_one_earliest_deadline_across_sessions() -> None:
    t = ActivityTracker(quiet_after=5.0)
    t.output("%1", 1.0)
    t.output("%2", 2.0)
    t.output("%3", 3.0)
    assert t.next_deadline() == 6.0
    t.output("%1", 4.0)  # %1 printed again: its deadline moves behind the others
    assert t.next_deadline() == 7.0
    assert t.expire(8.5) == ["%2", "%3"]
    assert t.next_deadline() == 9.0
    t.forget("%1")
    assert t.next_deadline() is None and t.expire(100.0) == []


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.floats(0, 3)), max_size=60))
def test_next_deadline_is_the_minimum_over_active_sessions(outputs: list[tuple[int, float]]) -> None:
    t = ActivityTracker(quiet_after=1.5)
    now = 0.0
    last: dict[str, float] = {}
    for session, step in outputs:
        now += step
        for s in t.expire(now):
            assert now - last.pop(s) >= 1.5
        became = t.output(f"%{session}", now)
        assert became == (f"%{session}" not in last)
        last[f"%{session}"] = now
        assert t.next_deadline() == min(last.values()) + 1.5


def test_listeners_see_every_event_in_order() -> None:
    log = EventLog()
    seen: list[int] = []
    log.listeners.append(lambda e: seen.append(e.seq))
    fill(log, 3)
    assert seen == [1, 2, 3]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("append"), st.sampled_from([SESSION_BELL, SESSION_EXITED])),
            st.tuples(st.just("subscribe"), st.sampled_from([None, SESSION_EXITED])),
            st.tuples(st.just("take"), st.integers(0, 7)),
            st.tuples(st.just("stall"), st.integers(0, 7)),
        ),
        max_size=120,
    )
)
def test_every_subscriber_gets_each_matching_event_once_in_order_or_is_dropped(ops: list) -> None:
    log = EventLog(capacity=30, queue_size=6)
    subs: list[tuple[object, list[int], int, str | None]] = []  # (sub, received, start, type filter)
    types = [""]  # the type of each seq
    for op, arg in ops:
        if op == "append":
            log.append(arg)
            types.append(arg)
        elif op == "subscribe":
            filter = EventFilter(types=frozenset({arg}) if arg else None)
            sub, backlog = log.subscribe(None, filter)
            subs.append((sub, seqs(backlog.events), backlog.cursor, arg))
        elif subs:
            sub, received, _, _ = subs[arg % len(subs)]
            if op == "take":
                received.extend(seqs(sub.take()))  # type: ignore[attr-defined]
            else:
                sub.stall()  # type: ignore[attr-defined]
    for sub, received, start, type_ in subs:
        received.extend(seqs(sub.take()))  # type: ignore[attr-defined]
        expected = [e for e in range(start + 1, log.cursor + 1) if type_ is None or types[e] == type_]
        if sub.dropped:  # type: ignore[attr-defined]
            assert received == expected[: len(received)]  # a gapless prefix, nothing after the drop
        else:
            assert received == expected


def test_fan_out_encodes_each_event_once_whatever_the_number_of_subscribers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import termux.server.events as events_module

    calls: list[object] = []
    real = events_module._encoder

    class Counting:
        def encode(self, obj: object) -> bytes:
            calls.append(obj)
            return real.encode(obj)

    monkeypatch.setattr(events_module, "_encoder", Counting())
    log = EventLog()
    subs = [log.subscribe(None)[0] for _ in range(20)]
    filtered = [log.subscribe(None, EventFilter(types=frozenset({SESSION_BELL})))[0] for _ in range(5)]
    for _ in range(10):
        log.append(SESSION_BELL)
    written = [sub.take_lines() for sub in subs + filtered]
    assert len(calls) == 10  # one encode per event, none per subscriber
    assert all(w is written[0] for w in written[:20])  # same cursor and filter: one shared buffer
    assert written[20] == written[0] and log.read(0).events[0].json in written[0]
