"""snapshot (exact round trip), capture (tmux-style ranges, escapes) and preview."""

from __future__ import annotations

import pytest
from emu_strategies import rows_built, streams
from emu_strategies import sgr as emu_sgr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from termux.emulator import ByteStream, Screen, capture, cursor_position, preview, render, snapshot
from termux.emulator.history import RunStyle
from termux.emulator.rows import Packed


def feed(screen: Screen, data: bytes | str) -> Screen:
    ByteStream(screen).feed(data.encode() if isinstance(data, str) else data)
    return screen


def norm_cell(line: object, x: int) -> tuple[object, ...]:
    cell = line[x]  # type: ignore[index]
    data = cell.data
    if x and data == "" and line[x - 1].data == "":  # type: ignore[index]
        data = " "
    return (data, *cell[1:], getattr(cell, "ext", None))


def full_state(screen: Screen) -> dict[str, object]:
    def grid(buffer: object) -> list[list[tuple[object, ...]]]:
        return [[norm_cell(buffer[y], x) for x in range(screen.columns)]  # type: ignore[index]
                for y in range(screen.lines)]

    def sp(p: object) -> object:
        if p is None:
            return None
        return (p.cursor.x, p.cursor.y, tuple(p.cursor.attrs), p.g0_charset == p.g0_charset,  # type: ignore[attr-defined]
                id(p.g0_charset), id(p.g1_charset), p.charset, p.origin, p.wrap)  # type: ignore[attr-defined]

    return {
        "cells": grid(screen.buffer),
        "main": grid(screen._main_buffer) if screen._main_buffer is not None else None,
        "kept47": grid(screen._alt_buffer) if screen._alt_buffer is not None else None,
        "cursor": (screen.cursor.x, screen.cursor.y, screen.cursor.hidden, tuple(screen.cursor.attrs),
                   getattr(screen.cursor.attrs, "ext", None)),
        "title": (screen.title, screen.icon_name),
        "cursor_style": screen.cursor_style,
        "mode": sorted(screen.mode),
        "margins": screen.margins,
        "tabstops": sorted(t for t in screen.tabstops if t < screen.columns),
        "charsets": (id(screen.g0_charset), id(screen.g1_charset), screen.charset),
        "savepoints": [sp(p) for p in screen.savepoints],
        "alt_savepoint": sp(screen._alt_savepoint),
    }


# DECSCNM (?5h) rewrites every cell's reverse flag when set, so it cannot be replayed; and a cursor
# left outside the scroll region while origin mode is on cannot be placed there by CUP. Both skipped.
def replayable(screen: Screen) -> bool:
    if (5 << 5) in screen.mode:
        return False
    if (6 << 5) in screen.mode and screen.margins is not None:
        return screen.margins.top <= screen.cursor.y <= screen.margins.bottom
    return True


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(max_pieces=60))
def test_snapshot_round_trips_exactly(data: bytes) -> None:
    screen = feed(Screen(11, 6), data)
    if not replayable(screen):
        return
    copy = feed(Screen(11, 6), snapshot(screen))
    assert full_state(copy) == full_state(screen)
    assert copy.display == screen.display


# What a used screen's stream may be in the middle of when it is made new: a CSI, an OSC title,
# a UTF-8 character, an ESC, a Latin-1 switch (ESC % @) with text after it.
UNFINISHED = st.sampled_from([b"", b"\x1b[3", b"\x1b]2;half a title", b"\xe4\xb8", b"\x1b", b"\x1b%@\xe9"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(max_pieces=40), UNFINISHED, streams(max_pieces=40), st.sampled_from([0, 5]))
def test_a_screen_made_new_in_place_replays_a_snapshot_as_a_new_screen_does(
    before: bytes, unfinished: bytes, data: bytes, history: int
) -> None:
    """`Screen.renew` and `ByteStream.restart` after any output (scrollback, bells, a title stack, a
    sequence cut in the middle included): a snapshot fed then leaves the state a new screen gets."""
    source = feed(Screen(11, 6), data)
    if not replayable(source):
        return
    taken = snapshot(source)
    used = Screen(11, 6, history=history)
    stream = ByteStream(used)
    stream.feed(before + b"\x07\x1b[22t\r\n\r\n\r\n\r\n\r\n\r\n" + unfinished)
    used.renew()
    stream.restart()
    stream.feed(taken)
    fresh = feed(Screen(11, 6, history=history), taken)
    assert full_state(used) == full_state(fresh)
    assert used.display == fresh.display
    assert (used.bell_count, used._title_stack, list(used.history), used.history.added) == (
        fresh.bell_count, fresh._title_stack, list(fresh.history), fresh.history.added
    )


def test_a_snapshot_writes_rows_of_runs_as_a_program_redraws_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row of runs is written from column 1 (the blanks before and between its texts too) and
    ended by EL: the replaying fast Screen takes each row whole by its frame path (one row built
    per row written) and keeps it as runs, in the same state."""
    # An agent's row: texts in colours with default blanks between them, and blanks at both ends.
    row = "   12 \x1b[33mreading\x1b[m   \x1b[2m....\x1b[m \x1b[32m04711\x1b[m      "
    screen = feed(Screen(40, 3), f"\x1b[2;1H{row}\x1b[3;1Hplain   text   \x1b[1;1H")
    assert all(screen.buffer.peek(y).__class__ is Packed for y in (1, 2))
    data = snapshot(screen)
    copy = Screen(40, 3)
    assert rows_built(monkeypatch, copy, data) == 2
    assert all(copy.buffer.peek(y).__class__ is Packed for y in (1, 2))  # runs, not cells
    assert full_state(copy) == full_state(screen)
    assert b"\x1b[2;1H   12 " in data and b"\x1b[3;1Hplain   text\x1b[K" in data
    assert data.count(b"\x1b[2;") == 1 and data.count(b"\x1b[3;") == 1


def test_a_row_of_more_runs_than_a_frame_row_is_written_without_its_el() -> None:
    """A row with a style per cell (an image viewer's) is left to the replaying screen's token
    path: no EL after it, and it replays exactly, before a row of few runs that has one."""
    columns = render.FRAME_ROW_RUNS + 8
    rainbow = "".join(f"\x1b[38;5;{16 + x}m{chr(65 + x % 26)}" for x in range(columns - 4)) + "\x1b[m"
    screen = feed(Screen(columns, 3), f"\x1b[1;1H{rainbow}\x1b[2;1H\x1b[1mfew\x1b[m runs\x1b[3;1H")
    data = snapshot(screen)
    first, second = data.split(b"\x1b[2;1H")
    assert b"\x1b[K" not in first and second.count(b"\x1b[K") == 1
    copy = feed(Screen(columns, 3), data)
    assert full_state(copy) == full_state(screen)


def test_snapshot_of_alternate_screen_keeps_main_screen_underneath() -> None:
    screen = feed(Screen(20, 4), "\x1b[32mshell$ \x1b[0m\x1b[?1049h\x1b[1;1H\x1b[7mvim\x1b[?1h\x1b[?2004h")
    copy = feed(Screen(20, 4), snapshot(screen))
    assert full_state(copy) == full_state(screen)
    feed(copy, "\x1b[?1049l")
    feed(screen, "\x1b[?1049l")
    assert full_state(copy) == full_state(screen)
    assert copy.display[0].startswith("shell$")


def test_capture_ranges_and_trimming() -> None:
    screen = feed(Screen(10, 3), "".join(f"h{i}   \r\n" for i in range(5)) + "last  ")
    assert capture(screen) == ["h3", "h4", "last"]
    assert capture(screen, -3) == ["h0", "h1", "h2", "h3", "h4", "last"]
    assert capture(screen, -2, -1) == ["h1", "h2"]
    assert capture(screen, -100, 100) == capture(screen, -3, 2)
    assert capture(screen, 2, 1) == []


def test_capture_with_escapes() -> None:
    screen = feed(Screen(30, 2), "plain \x1b[1;31mred\x1b[0m \x1b[38;5;21mblue\x1b[0m\x1b[44m  \x1b[0m")
    line = capture(screen, escapes=True)[0]
    assert line == "plain \x1b[0;1;31mred\x1b[0m \x1b[0;38;2;0;0;255mblue\x1b[0;44m  \x1b[0m"
    # Fed back to a screen, the escapes reproduce the cells.
    copy = feed(Screen(30, 2), line)
    assert [copy.buffer[0][x] for x in range(30)] == [screen.buffer[0][x] for x in range(30)]
    assert capture(screen, escapes=False) == ["plain red blue", ""]


def test_capture_history_with_escapes() -> None:
    screen = feed(Screen(10, 1), "\x1b[4munder\x1b[0m\r\nnext")
    assert capture(screen, -1, -1, escapes=True) == ["\x1b[0;4munder\x1b[0m"]


def test_preview_is_the_last_non_blank_line() -> None:
    screen = feed(Screen(20, 5), "first\r\n  second line  \r\n\r\n")
    assert preview(screen) == "second line"
    assert preview(Screen(5, 2)) == ""


@pytest.mark.parametrize(
    "data",
    [
        "plain\r\nlast",
        "\x1b[31mred\x1b[0m  \r\n\x1b[5;3Hwide 中文 ok\x1b[10;1H   ",
        "e\u0301 combining\r\n\x1b[2K",
        "\x1b[?1049hon the alternate screen",
        "\x1b[44m     \x1b[0m",  # coloured blanks are blank text
        "",
    ],
)
def test_preview_is_what_capture_shows_last(data: str) -> None:
    screen = Screen(20, 12)
    ByteStream(screen).feed(data.encode())
    lines = [line.strip() for line in capture(screen) if line.strip()]
    assert preview(screen) == (lines[-1] if lines else "")


def test_cursor_position_is_the_last_column_in_the_pending_wrap_state() -> None:
    screen = Screen(10, 3)
    stream = ByteStream(screen)
    stream.feed(b"0123456789")
    assert screen.cursor.x == 10  # internally: waiting to wrap
    assert cursor_position(screen) == (9, 0)
    # The pending-wrap state itself is kept: a snapshot replays it, and the next character wraps.
    copy = Screen(10, 3)
    ByteStream(copy).feed(snapshot(screen))
    assert copy.cursor.x == 10
    stream.feed(b"x")
    assert cursor_position(screen) == (1, 1) and screen.buffer[1][0].data == "x"
    stream.feed(b"\x1b[2;5H")
    assert cursor_position(screen) == (4, 1)


# Coloured single-width text, as most programs write it: the rows stay runs (`Packed`), which
# `snapshot` draws run by run. Blanks in the default style, erases in a colour, links and partial
# overwrites (splices) included.
RUN_PIECES = st.one_of(
    st.sampled_from(["word", "  ", " x ", "-" * 13, "\r", "\r\n", "\x1b[K", "\x1b[1K", "\x1b[2K", "\x1b[J",
                     "\x1b[0m", "\x1b]8;;http://e.com\x1b\\", "\x1b]8;;\x1b\\", "\x1b[44m\x1b[K", "\x1b[2;9H",
                     "\x1b[H", "\x1b[5G", "\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l"]),
    emu_sgr(),
    st.integers(1, 6).map(lambda n: f"\x1b[{n};{n * 3}H"),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RUN_PIECES, max_size=60))
def test_snapshot_of_rows_of_runs_round_trips_exactly(pieces: list[str]) -> None:
    screen = feed(Screen(17, 6), "".join(pieces))
    copy = feed(Screen(17, 6), snapshot(screen))
    assert full_state(copy) == full_state(screen)


def test_snapshot_draws_rows_of_runs_without_making_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = feed(Screen(40, 5), "".join(f"\x1b[3{n}mcolour {n} \x1b[1mbold\x1b[0m plain\r\n" for n in range(4)))
    assert all(type(row) is Packed for row in screen.buffer.rows[:4])

    def no_cells(row: Packed) -> None:
        raise AssertionError("a row of runs was turned into cells")

    monkeypatch.setattr(Packed, "materialize", no_cells)
    data = snapshot(screen)
    monkeypatch.undo()
    assert full_state(feed(Screen(40, 5), data)) == full_state(screen)


def test_sgr_is_made_once_per_style(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[object] = []
    monkeypatch.setattr(render, "_sgr_cache", {})
    original = render._sgr
    monkeypatch.setattr(render, "_sgr", lambda style: made.append(style) or original(style))
    # 24 rows of 3 coloured runs each; 3 styles and the default.
    screen = feed(Screen(30, 24), "\r\n".join("\x1b[31mred\x1b[32mgreen\x1b[1;34mblue\x1b[0m" for _ in range(24)))
    data = snapshot(screen)
    snapshot(screen)
    assert len(made) == 4
    assert data.count(b"\x1b[0;31m") == 24


def test_sgr_cache_is_bounded() -> None:
    for n in range(render._SGR_CACHE_LIMIT + 10):
        assert render.sgr(RunStyle(fg=f"{n:06x}")) == f"\x1b[0;38;2;{n >> 16};{(n >> 8) & 255};{n & 255}m"
        assert len(render._sgr_cache) <= render._SGR_CACHE_LIMIT
