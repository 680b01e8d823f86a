"""Reflow on resize (issue 17 item 4): the pure re-cutting of runs, then whole screens fed bytes.

Every screen test runs on the fast Screen and on the reference one; a hypothesis test holds them
to the same state after random resizes, and holds the text of every line (joined as `capture -J`
joins it) unchanged by any sequence of resizes.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_differential import full_state

import termux.emulator.screen as reference_screen
import termux.emulator.stream as reference_stream
from termux.emulator import ByteStream, Screen, capture, wrapped
from termux.emulator.history import DEFAULT_STYLE, RunStyle, Scrollback, pack_line, unpack_line
from termux.emulator.reflow import (
    cut_points,
    cut_stored,
    join,
    join_stored,
    offset_of,
    position_of,
    rewrap,
    split,
    text_width,
)

RED = RunStyle(fg="red")
BOLD = RunStyle(bold=True)
SCREENS = pytest.mark.parametrize(
    ("screen_cls", "stream_cls"),
    [(Screen, ByteStream), (reference_screen.Screen, reference_stream.ByteStream)],
    ids=["fast", "reference"],
)


def texts(rows: list[tuple[Any, int]]) -> list[tuple[str, int]]:
    return [("".join(t for t, _ in line), wrap) for line, wrap in rows]


# ---------------------------------------------------------------------- runs, cut anew


@pytest.mark.parametrize(
    ("text", "width", "starts", "spans"),
    [
        ("abcdefgh", 3, [3, 6], [3, 3]),
        ("abc", 3, [], []),
        ("", 5, [], []),
        ("ab中", 3, [2], [2]),  # the wide character does not fit in the last column: next row
        ("a中", 3, [], []),
        ("a中b", 3, [2], [3]),
        ("中中中", 4, [2], [4]),
        ("abe\u0301cd", 3, [4], [3]),  # the combining mark stays with its cell (e + U+0301 is one)
        ("ab\u0301", 1, [1], [1]),  # ... also when the next cell starts a row
        ("中文", 1, [1], [1]),  # one column: a wide character takes it alone
        ("\u0301ab", 2, [2], [2]),  # a mark with nothing before it is a cell of its own
    ],
)
def test_cut_points(text: str, width: int, starts: list[int], spans: list[int]) -> None:
    assert cut_points(text, width) == (starts, spans)


def test_text_width_counts_cells() -> None:
    assert [text_width(t) for t in ("abc", "中文", "e\u0301", "", "👨\u200d👩")] == [3, 4, 1, 0, 4]


def test_split_keeps_styles_across_the_cut_and_trims_only_the_last_row() -> None:
    line = (("abc", DEFAULT_STYLE), ("defg", RED), ("h  ", DEFAULT_STYLE))
    rows = split(line, 4, DEFAULT_STYLE)
    assert rows == [
        ((("abc", DEFAULT_STYLE), ("d", RED)), 4),
        ((("efg", RED), ("h", DEFAULT_STYLE)), 0),  # the line's own trailing blanks go
    ]
    # Blanks inside a wrapped row are text: kept (the line's own trailing blanks are not).
    assert split((("ab  cd", DEFAULT_STYLE),), 4, DEFAULT_STYLE) == [
        ((("ab  ", DEFAULT_STYLE),), 4),
        ((("cd", DEFAULT_STYLE),), 0),
    ]


def test_join_pads_a_wrapped_row_to_the_columns_it_spanned_and_merges_runs() -> None:
    # The first row was cut at 6 columns and its trailing blank dropped (rows keep none).
    rows = [((("ab", RED), ("cde", DEFAULT_STYLE)), 6), ((("fg", DEFAULT_STYLE),), 0)]
    assert join(rows, DEFAULT_STYLE) == (("ab", RED), ("cde fg", DEFAULT_STYLE))
    # A wide character that did not fit left the last column empty: no padding past the span.
    assert join([((("ab", BOLD),), 2), ((("中", BOLD),), 0)], DEFAULT_STYLE) == (("ab中", BOLD),)


@pytest.mark.parametrize("width", [1, 2, 3, 5, 8, 13, 40])
def test_rewrap_round_trips(width: int) -> None:
    line = (("The quick brown ", DEFAULT_STYLE), ("fox", RED), (" 中文 e\u0301 jumps", BOLD))
    rows = split(line, 9, DEFAULT_STYLE)
    again = rewrap(rewrap(rows, width, DEFAULT_STYLE), 9, DEFAULT_STYLE)
    assert again == rows
    assert join(rewrap(rows, width, DEFAULT_STYLE), DEFAULT_STYLE) == join(rows, DEFAULT_STYLE)


def test_a_line_on_one_row_that_fits_is_kept_as_it_is() -> None:
    row = ((("abc   ", RED),), 0)
    assert rewrap([row], 10, DEFAULT_STYLE)[0] is row


def test_cursor_offsets_map_to_the_same_character() -> None:
    rows = split((("abcdefghij", DEFAULT_STYLE),), 4, DEFAULT_STYLE)  # abcd efgh ij
    assert offset_of(rows, 1, 2) == 6  # "g"
    assert position_of(rows, 6) == (1, 2)
    assert position_of(rows, 4) == (1, 0)  # the start of a row, not the end of the one before
    assert position_of(rows, 10) == (2, 2)  # just after the text
    assert position_of(split((("abcd", DEFAULT_STYLE),), 2, DEFAULT_STYLE), 4) == (1, 2)  # pending wrap


RUNS = st.lists(
    st.tuples(st.sampled_from(["a", "bc ", "  ", "defgh", " x"]), st.sampled_from([DEFAULT_STYLE, RED, BOLD])),
    max_size=6,
).map(tuple)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(RUNS, st.integers(0, 12)), min_size=1, max_size=4), st.integers(1, 9))
def test_the_scrollback_cuts_stored_lines_as_runs_would_be_cut(rows: list[tuple[Any, int]], width: int) -> None:
    # The scrollback re-cuts ASCII lines in their stored form; the result is the runs' own.
    rows[-1] = (rows[-1][0], 0)  # (a line ends on its last row)
    line = join(rows, DEFAULT_STYLE)
    stored = [(pack_line(runs), wrap) for runs, wrap in rows]
    assert unpack_line(join_stored(stored, DEFAULT_STYLE)) == split(line, 10**6, DEFAULT_STYLE)[0][0]
    pieces = cut_stored(join_stored(stored, DEFAULT_STYLE), width, DEFAULT_STYLE)
    assert pieces is not None
    assert [unpack_line(piece) for piece in pieces] == [runs for runs, _ in split(line, width, DEFAULT_STYLE)]
    assert join_stored([("中", 0)], DEFAULT_STYLE) is None and cut_stored("中", 1, DEFAULT_STYLE) is None


# ---------------------------------------------------------------------- screens


def feed(screen_cls: Any, stream_cls: Any, columns: int, lines: int, data: str, history: int = 1000) -> Any:
    screen = screen_cls(columns, lines, history=history)
    stream_cls(screen).feed(data.encode())
    return screen


def everything(screen: Any, join_lines: bool = True) -> list[str]:
    """Every line, history and screen (joined as capture -J), trailing empty lines dropped."""
    out = capture(screen, -len(screen.history), screen.lines - 1, join=join_lines)
    while out and not out[-1]:
        out.pop()
    return out


def under_cursor(screen: Any) -> str:
    return screen.display[screen.cursor.y][min(screen.cursor.x, screen.columns - 1)]


LONG = "".join(f"{i:03d}," for i in range(25))  # 100 characters


@SCREENS
def test_a_100_character_line_survives_112_80_112(screen_cls: Any, stream_cls: Any) -> None:
    screen = feed(screen_cls, stream_cls, 112, 6, f"$ cat\r\n{LONG}\r\n$ ")
    screen.resize(6, 80)
    assert capture(screen, 0, 1) == [LONG[:80], LONG[80:]] and wrapped(screen, 0)
    assert capture(screen, 0, 2, join=True) == [LONG, "$"]
    screen.resize(6, 112)
    assert capture(screen) == ["$ cat", LONG, "$", "", "", ""]
    assert not wrapped(screen, 1) and (screen.cursor.x, screen.cursor.y) == (2, 2)


@SCREENS
def test_styles_wide_characters_and_combining_marks_cross_the_new_edge(screen_cls: Any, stream_cls: Any) -> None:
    text = "abcdefg\x1b[31mhijk\x1b[1m中文x\u0301z\x1b[0m!"  # x + U+0301 stays two code points in one cell
    screen = feed(screen_cls, stream_cls, 30, 6, "-\r\n" * 5 + text)
    before = capture(screen, escapes=True)
    screen.resize(6, 6)  # "中" no longer fits after "ghijk": it moves whole, leaving the last column
    assert capture(screen) == ["-", "-", "abcdef", "ghijk", "中文x\u0301z", "!"]
    assert [wrapped(screen, y) for y in range(6)] == [False, False, True, True, True, False]
    row = screen.buffer[4]
    assert (row[0].data, row[1].data, row[4].data) == ("中", "", "x\u0301")  # the stub, the mark in its cell
    assert row[0].fg == "red" and row[0].bold and row[4].bold and not screen.buffer[5][0].bold
    assert screen.buffer[3][0].fg == "default" and screen.buffer[3][1].fg == "red"
    assert (screen.cursor.x, screen.cursor.y) == (1, 5)
    screen.resize(6, 5)
    assert capture(screen)[-4:] == ["abcde", "fghij", "k中文", "x\u0301z!"]
    screen.resize(6, 30)
    assert capture(screen, escapes=True) == before


@SCREENS
def test_blanks_a_program_wrote_at_the_edge_stay_between_the_words(screen_cls: Any, stream_cls: Any) -> None:
    # "hello" ends at column 5 of 6: the blank after it is the last column, dropped from the row
    # (rows keep no trailing blanks), yet it is part of the line.
    screen = feed(screen_cls, stream_cls, 6, 4, "hello world again\r\n")
    assert capture(screen)[:3] == ["hello", "world", "again"]
    screen.resize(4, 20)
    assert capture(screen)[0] == "hello world again"
    screen.resize(4, 6)
    screen.resize(4, 20)
    assert capture(screen)[0] == "hello world again"


@SCREENS
def test_the_cursor_stays_on_its_character(screen_cls: Any, stream_cls: Any) -> None:
    screen = feed(screen_cls, stream_cls, 10, 4, "top\r\n0123456789abcdefghij\x1b[3;4H")  # on "d"
    assert under_cursor(screen) == "d"
    for lines, columns in ((4, 7), (4, 25), (3, 4), (8, 13), (2, 20), (1, 20)):
        screen.resize(lines, columns)
        assert under_cursor(screen) == "d", (lines, columns)
    assert everything(screen) == ["top", "0123456789abcdefghij"]


@SCREENS
def test_a_cursor_whose_line_leaves_the_screen_goes_home(screen_cls: Any, stream_cls: Any) -> None:
    # As tmux: the screen is the last rows of the reflowed lines, the cursor's among them or not.
    screen = feed(screen_cls, stream_cls, 10, 3, "0123456789abcdefghij\r\nend\x1b[1;4H")
    screen.resize(3, 4)
    assert (screen.cursor.x, screen.cursor.y) == (0, 0) and capture(screen) == ["cdef", "ghij", "end"]


@SCREENS
def test_the_cursor_waiting_to_wrap_keeps_waiting_at_the_line_end(screen_cls: Any, stream_cls: Any) -> None:
    screen = feed(screen_cls, stream_cls, 10, 3, "\r\n0123456789")  # the cursor waits after "9"
    assert screen.cursor.x == 10
    screen.resize(3, 5)
    assert (screen.cursor.x, screen.cursor.y) == (5, 1)
    stream_cls(screen).feed(b"X")
    assert capture(screen, join=True)[-1] == "0123456789X"


@SCREENS
def test_rows_pushed_into_history_by_a_shorter_screen_come_back(screen_cls: Any, stream_cls: Any) -> None:
    screen = feed(screen_cls, stream_cls, 20, 6, "".join(f"line {i}\r\n" for i in range(5)) + "$ ")
    assert len(screen.history) == 0
    screen.resize(3, 20)
    assert capture(screen) == ["line 3", "line 4", "$"] and len(screen.history) == 3
    screen.resize(6, 20)
    assert capture(screen) == [*(f"line {i}" for i in range(5)), "$"] and len(screen.history) == 0
    assert (screen.cursor.x, screen.cursor.y) == (2, 5)


@SCREENS
def test_a_wider_screen_brings_lines_back_from_history(screen_cls: Any, stream_cls: Any) -> None:
    screen = feed(screen_cls, stream_cls, 10, 4, "x" * 25 + "\r\nab\r\n$ ")
    assert capture(screen) == ["x" * 10, "x" * 5, "ab", "$"]
    screen.resize(4, 25)
    assert capture(screen) == ["x" * 25, "ab", "$", ""] and len(screen.history) == 0


@SCREENS
def test_the_alternate_screen_is_cut_and_the_main_screen_reflows_under_it(screen_cls: Any, stream_cls: Any) -> None:
    screen = feed(screen_cls, stream_cls, 10, 4, "0123456789abcde\r\n$ \x1b[?1049h\x1b[H" + "A" * 10 + "B" * 5)
    screen.resize(4, 20)
    assert capture(screen)[:2] == ["A" * 10, "B" * 5]  # not joined: programs redraw it
    stream_cls(screen).feed(b"\x1b[?1049l")
    assert capture(screen) == ["0123456789abcde", "$", "", ""]
    assert (screen.cursor.x, screen.cursor.y) == (2, 1)


@SCREENS
def test_the_scrollback_bound_holds_after_reflow(screen_cls: Any, stream_cls: Any) -> None:
    screen = feed(screen_cls, stream_cls, 40, 3, "".join(f"{i:02d}" + "x" * 38 + "\r\n" for i in range(20)), 10)
    assert len(screen.history) == 10
    screen.resize(3, 10)  # every line now takes four rows
    while screen.reflow_step(3):
        assert len(screen.history) <= 10
    assert len(screen.history) == 10
    # The newest rows are kept: all of 17 and 18, the first half of 19 (the rest is on the screen).
    rows = ["17xxxxxxxx", *["x" * 10] * 3, "18xxxxxxxx", *["x" * 10] * 3, "19xxxxxxxx", "x" * 10]
    assert capture(screen, -10, 2) == [*rows, "x" * 10, "x" * 10, ""]


def test_history_reflows_in_bounded_steps_newest_first() -> None:
    screen = feed(Screen, ByteStream, 20, 4, "".join(f"{i:04d}" + "y" * 26 + "\r\n" for i in range(500)), 10000)
    lines_before = everything(screen)
    screen.resize(4, 10)
    history = screen.history
    pending = history.pending
    assert pending > 400  # all but the rows the screen needed
    made = []
    while True:
        before = len(history) - history.pending
        more = screen.reflow_step(50)
        made.append(len(history) - history.pending - before)
        if len(made) == 1:  # the newest first: the oldest line is still at the old width
            assert capture(screen, -len(history), -len(history)) == ["0000" + "y" * 16]
            assert capture(screen, -3, -1) == ["0498yyyyyy", "y" * 10, "y" * 10]
        if not more:
            break
    # Each step re-cuts whole lines (3 rows each here) until about 50 rows are made.
    assert max(made) <= 50 + 2 and len(made) > 20 and history.pending == 0
    assert everything(screen) == lines_before
    assert capture(screen, -len(history), -len(history) + 2) == ["0000yyyyyy", "y" * 10, "y" * 10]


def test_reading_history_while_steps_are_pending_sees_whole_lines() -> None:
    screen = feed(Screen, ByteStream, 20, 4, "".join(f"{i:04d}" + "z" * 26 + "\r\n" for i in range(50)))
    lines_before = everything(screen)
    screen.resize(4, 10)
    screen.reflow_step(10)
    assert 0 < screen.history.pending
    assert everything(screen) == lines_before  # old rows at the old width, new at the new: same lines
    screen.resize(4, 30)  # another width before the steps finished
    assert everything(screen) == lines_before
    while screen.reflow_step(7):
        pass
    assert everything(screen) == lines_before
    assert capture(screen, -1) == [f"{i:04d}" + "z" * 26 for i in range(46, 50)] + [""]


def test_a_taller_screen_while_steps_are_pending_brings_back_rows_at_the_new_width() -> None:
    screen = feed(Screen, ByteStream, 10, 2, "".join(f"{i:04d}" + "w" * 16 + "\r\n" for i in range(30)))
    screen.resize(2, 20)  # wider: the screen took its line from history; the rest is pending
    assert len(screen.history) == screen.history.pending == 58  # (each line on two rows still)
    screen.resize(6, 20)  # the rows that come back are pending lines, re-cut first
    assert capture(screen) == [f"{i:04d}" + "w" * 16 for i in range(25, 30)] + [""]
    assert screen.history.pending == len(screen.history) == 50


def test_the_scrollback_wrap_of_a_line_is_read_without_a_scan() -> None:
    kept = Scrollback(100)
    kept.extend_stored([f"{i}" for i in range(100)], [i % 7 for i in range(100)])
    assert [kept.wrap(i) for i in (0, 1, 50, -1)] == [0, 1, 1, 99 % 7]
    assert kept.wrapped(-1) and not kept.wrapped(7)


# ---------------------------------------------------------------------- random streams


LINE_PIECES = st.sampled_from(
    ["a", "hello ", "x" * 17, " ", "中", "文字", "e\u0301", "x\u0301", "\x1b[31m", "\x1b[1;44m", "\x1b[0m", "  "]
)
TEXT_LINES = st.lists(st.lists(LINE_PIECES, max_size=12).map("".join), min_size=1, max_size=12)
SIZES = st.lists(st.tuples(st.integers(1, 9), st.integers(2, 30)), min_size=1, max_size=4)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 30), st.integers(1, 9), TEXT_LINES, SIZES, st.booleans())
def test_resizes_keep_every_line_and_both_screens_agree(
    columns: int, lines: int, text_lines: list[str], sizes: list[tuple[int, int]], prompt: bool
) -> None:
    data = "\r\n".join(text_lines) + ("\r\n$ " if prompt else "")
    fast = feed(Screen, ByteStream, columns, lines, data, 10000)
    reference = feed(reference_screen.Screen, reference_stream.ByteStream, columns, lines, data, 10000)
    want = everything(fast)
    for lines_now, columns_now in sizes:
        fast.resize(lines_now, columns_now)
        reference.resize(lines_now, columns_now)
        assert full_state(fast, []) == full_state(reference, [])
        assert everything(fast) == want
        assert [wrapped(fast, n) for n in range(-len(fast.history), fast.lines)] == [
            wrapped(reference, n) for n in range(-len(reference.history), reference.lines)
        ]
        assert [fast.history.wrap(n) for n in range(len(fast.history))] == [
            reference.history.wrap(n) for n in range(len(reference.history))
        ]
    while fast.reflow_step(5):
        reference.reflow_step(5)
    while reference.reflow_step(5):
        pass
    assert everything(fast) == want == everything(reference)
    assert full_state(fast, []) == full_state(reference, [])
