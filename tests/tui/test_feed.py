"""The prioritised feed, structurally: ordering, the slice bound, resync ending in the server's screen."""

from __future__ import annotations

from typing import Any

from termux.emulator import ByteStream, Screen, snapshot
from termux.tui.feed import PIECE, Feeder, FramePacer
from tests.tui.helpers import screen_text

# Byte budgets only: what these tests pin must not depend on how fast this machine parses.
BYTES_ONLY: dict[str, Any] = {"focused_budget": None, "background_budget": None}


def flood(n: int, tag: str) -> bytes:
    return b"".join(f"\x1b[3{i % 8};1m{tag}\x1b[0m line {i} \u4e2d\r\n".encode() for i in range(n))


def state(screen: Screen) -> tuple[object, ...]:
    cells = [[screen.buffer[y][x] for x in range(screen.columns)] for y in range(screen.lines)]
    return cells, (screen.cursor.x, screen.cursor.y, screen.cursor.hidden), set(screen.mode)


def test_focused_output_goes_before_background_output() -> None:
    feeder = Feeder(focused_slice_bytes=1000, background_slice_bytes=100, backlog_limit=1 << 30, **BYTES_ONLY)
    for sid in ("bg1", "focus", "bg2"):
        feeder.add(sid, 80, 24)
    feeder.push("bg1", 0, b"x" * 5000, {"focus"})
    feeder.push("bg2", 0, b"y" * 5000, {"focus"})
    feeder.push("focus", 0, b"z" * 2500, {"focus"})
    steps = []
    while (step := feeder.step({"focus"})) is not None:
        steps.append((step.session, step.fed))
    # the focused session drains first, in its own slices; then the background round-robin
    assert steps[:3] == [("focus", 1000), ("focus", 1000), ("focus", 500)]
    background = steps[3:]
    assert {s for s, _ in background} == {"bg1", "bg2"}
    assert all(fed <= 100 for _, fed in background)  # the bound
    # round-robin: the two never run twice in a row while both have work
    assert all(a[0] != b[0] for a, b in zip(background[:-1], background[1:], strict=False))
    assert sum(fed for s, fed in background if s == "bg1") == 5000


def test_focused_output_arriving_mid_flood_is_next() -> None:
    feeder = Feeder(focused_slice_bytes=1000, background_slice_bytes=100, backlog_limit=1 << 30, **BYTES_ONLY)
    for sid in ("bg", "focus"):
        feeder.add(sid, 80, 24)
    feeder.push("bg", 0, b"x" * 10_000, {"focus"})
    for _ in range(3):
        assert feeder.step({"focus"}).session == "bg"  # type: ignore[union-attr]
    feeder.push("focus", 0, b"echo", {"focus"})
    step = feeder.step({"focus"})
    assert step is not None and step.session == "focus" and step.focused


def test_background_backlog_over_budget_is_dropped_and_resynced() -> None:
    feeder = Feeder(background_slice_bytes=100, backlog_limit=1000, **BYTES_ONLY)
    feeder.add("bg", 40, 10)
    feeder.add("focus", 40, 10)
    feeder.push("bg", 0, b"a" * 600, {"focus"})
    assert not feeder.need_snapshot
    feeder.push("bg", 600, b"b" * 600, {"focus"})  # 1200 > 1000
    shadow = feeder.shadows["bg"]
    assert feeder.need_snapshot == {"bg"} and shadow.resyncing
    assert shadow.backlog_bytes == 0 and shadow.dropped_bytes == 1200
    assert feeder.step({"focus"}) is None  # nothing is parsed while the snapshot is on its way
    # the focused session is never dropped, whatever its backlog
    feeder.push("focus", 0, b"c" * 5000, {"focus"})
    assert "focus" not in feeder.need_snapshot
    assert feeder.shadows["focus"].backlog_bytes == 5000


def test_resync_ends_in_exactly_the_servers_screen() -> None:
    # The "server": a screen that parses every byte.
    server = Screen(40, 10)
    server_stream = ByteStream(server)
    feeder = Feeder(background_slice_bytes=256, backlog_limit=1000)
    feeder.add("bg", 40, 10)
    offset = 0
    chunks = [flood(50, f"c{i}") for i in range(5)] + [b"\x1b[?1h\x1b[?2004h\x1b[5;3Hend"]
    for chunk in chunks[:3]:
        server_stream.feed(chunk)
        feeder.push("bg", offset, chunk, {"focus"})
        offset += len(chunk)
    assert feeder.shadows["bg"].resyncing
    # Output goes on while the snapshot is on its way; the snapshot is taken mid-way.
    server_stream.feed(chunks[3])
    feeder.push("bg", offset, chunks[3], {"focus"})
    offset += len(chunks[3])
    snap, snap_offset = snapshot(server), offset
    for chunk in chunks[4:]:
        server_stream.feed(chunk)
        feeder.push("bg", offset, chunk, {"focus"})
        offset += len(chunk)
    feeder.reset("bg", 40, 10, snap, snap_offset)
    assert not feeder.shadows["bg"].resyncing
    while feeder.step({"focus"}) is not None:
        pass
    assert screen_text(feeder.shadows["bg"].screen) == screen_text(server)
    assert state(feeder.shadows["bg"].screen) == state(server)  # every cell, the cursor, the modes
    assert feeder.shadows["bg"].offset == offset


def test_offsets_trim_overlap_and_detect_gaps() -> None:
    feeder = Feeder()
    feeder.add("s", 20, 5, offset=10)
    feeder.push("s", 5, b"0123456789", {"s"})  # 5..15: the first 5 bytes are already in the screen
    assert list(feeder.shadows["s"].backlog) == [(10, b"56789")]
    feeder.push("s", 12, b"xx", {"s"})  # entirely old
    assert feeder.shadows["s"].backlog_bytes == 5
    feeder.push("s", 20, b"late", {"s"})  # 15..20 never came: resync
    assert feeder.need_snapshot == {"s"}


def test_a_slice_also_ends_at_its_time_budget() -> None:
    ticks = iter(range(1000))
    feeder = Feeder(background_budget=0.5, clock=lambda: float(next(ticks)))
    feeder.add("bg", 80, 24)
    feeder.push("bg", 0, b"z" * 100_000, {"focus"})
    step = feeder.step({"focus"})
    # the fake clock passes the deadline at once: the slice stops after one piece
    assert step is not None and step.fed == PIECE
    assert feeder.shadows["bg"].backlog_bytes == 100_000 - PIECE


def test_pieces_are_sized_to_the_time_left_at_the_speed_measured() -> None:
    """A shadow's first piece is PIECE (its speed unknown); then each is what parses in the time
    left at the speed measured, so a redraw is fed whole, not cut every PIECE bytes."""
    clock = [0.0]
    feeder = Feeder(background_budget=0.010, clock=lambda: clock[0])
    feeder.add("bg", 80, 24)
    pieces: list[int] = []
    stream = feeder.shadows["bg"].stream

    def timed_feed(data: bytes) -> None:
        pieces.append(len(data))
        clock[0] += len(data) / 1_000_000  # this "machine" parses a byte a microsecond
        stream.__class__.feed(stream, data)

    stream.feed = timed_feed
    feeder.push("bg", 0, b"z" * 30_000, {"focus"})
    step = feeder.step({"focus"})
    assert step is not None and pieces[0] == PIECE  # the speed unknown: a small first piece
    assert pieces[1:] == [10_000 - PIECE]  # the rest of the 10 ms budget in one piece
    pieces.clear()
    feeder.step({"focus"})
    assert pieces == [10_000]  # a whole slice's worth in one feed
    assert feeder.shadows["bg"].backlog_bytes == 30_000 - 20_000


def test_the_speed_is_learnt_from_the_feed_alone() -> None:
    """Only the feed's own time teaches the speed: bookkeeping after it (a clock read a moment
    later) must not count as a piece parsed in no time, which would make every later piece the
    whole slice, whatever its time budget."""
    clock = [0.0]

    def now() -> float:
        clock[0] += 1e-7  # every read of the clock a little later, as a real one
        return clock[0]

    feeder = Feeder(focused_budget=0.010, clock=now)
    feeder.add("s", 80, 24)
    pieces: list[int] = []
    stream = feeder.shadows["s"].stream

    def timed_feed(data: bytes) -> None:
        pieces.append(len(data))
        clock[0] += len(data) / 1_000_000  # a byte a microsecond
        stream.__class__.feed(stream, data)

    stream.feed = timed_feed
    feeder.push("s", 0, b"z" * 1_000_000, {"s"})
    feeder.step({"s"}, "s")
    pieces.clear()
    feeder.step({"s"}, "s")
    assert pieces and max(pieces) <= 10_100  # about the 10 ms budget's worth, not the slice's 256 KiB


def test_the_focused_backlog_is_bounded_too() -> None:
    feeder = Feeder(backlog_limit=100, focus_backlog_limit=10_000, **BYTES_ONLY)
    feeder.add("focus", 80, 24)
    feeder.push("focus", 0, b"a" * 9_000, {"focus"})
    assert not feeder.need_snapshot  # far past the background limit: still parsed in full
    feeder.push("focus", 9_000, b"a" * 2_000, {"focus"})
    assert feeder.need_snapshot == {"focus"}  # past its own bound: coalesced by a snapshot


def test_background_parsing_rests_in_proportion() -> None:
    from termux.tui.model import BACKGROUND_SHARE, MAX_REST, SessionModel

    assert SessionModel.background_rest(0.002) == 0.002 * (1 / BACKGROUND_SHARE - 1)
    assert SessionModel.background_rest(10.0) == MAX_REST  # bounded: a key never waits long for it


def test_resync_on_request_drops_the_queue_and_asks_for_a_snapshot() -> None:
    from termux.tui.feed import Feeder

    feeder = Feeder()
    feeder.add("%0", 80, 24)
    feeder.push("%0", 0, b"hello", visible=set())
    feeder.resync("%0")
    shadow = feeder.shadows["%0"]
    assert shadow.resyncing and not shadow.backlog and feeder.need_snapshot == {"%0"}
    feeder.resync("%9")  # an unknown session is ignored
    assert feeder.need_snapshot == {"%0"}


def test_a_keys_echo_is_drawn_at_once_and_streaming_output_once_a_frame() -> None:
    now = [10.0]
    pacer = FramePacer(period=0.016, clock=lambda: now[0])
    assert pacer.delay() == 0  # nothing drawn yet
    pacer.drawn()
    now[0] += 0.004
    assert abs(pacer.delay() - 0.012) < 1e-9  # streaming output waits for the next frame
    pacer.key_sent()
    assert pacer.delay() == 0  # the echo of a key does not
    pacer.drawn()
    assert not pacer.key_pending  # only the first draw after a key is urgent
    now[0] += 0.001
    assert abs(pacer.delay() - 0.015) < 1e-9
    now[0] += 0.02
    assert pacer.delay() == 0  # a frame period has passed


def test_queued_chunks_are_parsed_together_within_the_slice() -> None:
    """Many small pushes (a log line each) cost one parse per slice, not one per chunk; the
    result is the screen of every chunk parsed in order."""
    feeder = Feeder(background_slice_bytes=1000, **BYTES_ONLY)
    shadow = feeder.add("bg", 40, 10)
    feeds: list[int] = []
    stream_feed = shadow.stream.feed
    shadow.stream.feed = lambda data: (feeds.append(len(data)), stream_feed(data))[1]
    lines = [b"line %02d of the log\r\n" % n for n in range(60)]
    offset = 0
    for line in lines:
        feeder.push("bg", offset, line, visible=set())
        offset += len(line)
    while feeder.step(set()) is not None:
        pass
    assert sum(feeds) == offset and len(feeds) == -(-offset // 1000)  # a parse per slice
    assert shadow.offset == offset and not shadow.backlog
    reference = Screen(40, 10)
    ByteStream(reference).feed(b"".join(lines))
    assert screen_text(shadow.screen) == screen_text(reference)


def test_a_deferred_snapshot_is_replayed_by_the_steps_then_output_follows_at_its_offset() -> None:
    original = Screen(40, 10)
    ByteStream(original).feed(flood(30, "before"))
    snap, taken_at = snapshot(original), 5000  # the server's offset when it took the snapshot
    feeder = Feeder(background_slice_bytes=256, backlog_limit=1 << 30, **BYTES_ONLY)
    shadow = feeder.add("bg", 40, 10, snap, taken_at, deferred=True)
    assert screen_text(shadow.screen).strip() == ""  # nothing parsed yet
    feeder.push("bg", taken_at, b"after\r\n", {"focus"})  # output continues where the snapshot stopped
    steps = []
    while (step := feeder.step({"focus"})) is not None:
        steps.append(step)
    assert sum(s.fed for s in steps) == len(snap) + len(b"after\r\n")
    assert all(s.fed <= 256 for s in steps)  # in bounded slices, like output
    assert steps[0].replay and not steps[-1].replay  # a slice with output in it is output
    ByteStream(original).feed(b"after\r\n")
    assert state(shadow.screen) == state(original)
    assert (shadow.offset, shadow.replay_until) == (taken_at + len(b"after\r\n"), None)


def test_panes_beside_the_focus_go_after_it_and_before_hidden_sessions() -> None:
    feeder = Feeder(
        focused_slice_bytes=1000, visible_slice_bytes=300, background_slice_bytes=100, backlog_limit=1 << 30,
        **BYTES_ONLY,
    )  # fmt: skip
    for sid in ("hidden", "pane1", "focus", "pane2"):
        feeder.add(sid, 80, 24)
    shown = {"focus", "pane1", "pane2"}
    for sid in ("hidden", "pane1", "pane2"):
        feeder.push(sid, 0, b"x" * 900, shown)
    feeder.push("focus", 0, b"z" * 1500, shown)
    steps = []
    while (step := feeder.step(shown, "focus")) is not None:
        steps.append((step.session, step.fed, step.focused, step.visible))
    assert steps[:2] == [("focus", 1000, True, False), ("focus", 500, True, False)]
    panes = steps[2:8]
    assert [s for s, *_ in panes] == ["pane1", "pane2"] * 3  # in turns, in their own slices
    assert all(fed == 300 and not focused and visible for _, fed, focused, visible in panes)
    assert {s for s, *_ in steps[8:]} == {"hidden"} and all(fed <= 100 for _, fed, *_ in steps[8:])


def test_a_deferred_shadow_makes_its_screen_only_when_its_replay_begins() -> None:
    original = Screen(40, 10)
    ByteStream(original).feed(flood(5, "bg"))
    feeder = Feeder(background_slice_bytes=256, backlog_limit=1 << 30, **BYTES_ONLY)
    shadows = [feeder.add(f"s{n}", 40, 10, snapshot(original), 100, deferred=True) for n in range(3)]
    assert [shadow.blank for shadow in shadows] == [(40, 10, 0)] * 3  # an attach made no screen for them
    step = feeder.step(set())
    assert step is not None and step.replay
    assert [shadow.blank is None for shadow in shadows] == [s.id == step.session for s in shadows]
    while feeder.step(set()) is not None:
        pass
    assert all(state(shadow.screen) == state(original) for shadow in shadows)


def test_a_snapshot_of_a_shadow_made_at_its_size_renews_its_screen_in_place() -> None:
    """A resync of a shadow whose screen is made and of the snapshot's size keeps its screen and
    stream (caches warm, nothing made), whatever its stream was in the middle of, and shows what
    a new screen fed the snapshot shows; at another size the screen is made anew."""
    original = Screen(40, 10)
    ByteStream(original).feed(flood(30, "server") + b"\x1b]2;the title\x07")
    snap = snapshot(original)
    feeder = Feeder(**BYTES_ONLY)
    shadow = feeder.add("bg", 40, 10)
    feeder.push("bg", 0, flood(12, "old") + b"\x07\x1b[38;5", visible=set())  # a bell, then a cut CSI
    while feeder.step(set()) is not None:
        pass
    screen, stream = shadow.screen, shadow.stream
    feeder.reset("bg", 40, 10, snap, 9000)
    assert shadow.screen is screen and shadow.stream is stream and shadow.offset == 9000
    assert state(screen) == state(original) and screen.title == "the title" and screen.bell_count == 0
    feeder.push("bg", 9000, b"\x1b[1;1Hafter", visible=set())
    while feeder.step(set()) is not None:
        pass
    ByteStream(original).feed(b"\x1b[1;1Hafter")
    assert state(screen) == state(original)
    feeder.reset("bg", 30, 10, snapshot(Screen(30, 10)), 9005)
    assert shadow.screen is not screen and shadow.screen.columns == 30
