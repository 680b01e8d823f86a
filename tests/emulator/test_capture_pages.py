"""Pages of history for a lazy reader: soft-wrap flags for a range in one pass, and an absolute line
number that stays the same line's while output keeps arriving."""

from __future__ import annotations

import pytest

from termux.emulator import ByteStream, Screen, Scrollback, capture, capture_span, wrapped, wrapped_rows


def _printed(text: str, columns: int = 10, lines: int = 3, history: int = 100) -> Screen:
    screen = Screen(columns, lines, history=history)
    ByteStream(screen).feed(text.encode())
    return screen


def test_wrapped_flags_of_a_range_are_the_flags_of_each_line() -> None:
    # "a" * 25 wraps twice at 10 columns; short lines do not; then enough to push it all into history.
    screen = _printed("one\r\n" + "a" * 25 + "\r\ntwo\r\n" + "b" * 12 + "\r\n" + "x\r\n" * 4)
    n = len(screen.history)
    each = [wrapped(screen, i) for i in range(-n, screen.lines)]
    assert sum(each) == 3  # a's two wraps and b's one
    for start in range(-n, screen.lines):
        for end in range(start, screen.lines):
            assert wrapped_rows(screen, start, end) == each[start + n : end + n + 1], (start, end)


def test_wrapped_flags_forget_lines_the_history_dropped() -> None:
    kept = Scrollback(3)
    kept.extend_stored(["a", "b", "c", "d"], [5, 0, 5, 0])  # "a" wrapped and is dropped; "c" wrapped
    assert kept.wrapped_flags(-3, 0) == [False, True, False]
    assert kept.wrapped_flags(-2, -1) == [True]
    assert kept.wrapped_flags(-1, -1) == []
    with pytest.raises(IndexError):
        kept.wrapped_flags(-4, 0)


def test_a_line_keeps_its_absolute_number_while_lines_arrive_and_old_ones_go() -> None:
    screen = _printed("".join(f"line {i}\r\n" for i in range(10)), history=5)
    base = screen.history.added
    number = base - 2  # capture's line -2 now
    (text,) = capture(screen, -2, -2)
    ByteStream(screen).feed(b"more\r\nand more\r\n")
    moved = screen.history.added - base
    assert moved == 2
    assert capture(screen, number - screen.history.added, number - screen.history.added) == [text]


def test_a_line_back_on_the_screen_leaves_the_numbers_of_the_lines_above_as_they_were() -> None:
    kept = Scrollback(10)
    kept.extend_stored(["a", "b", "c"])
    assert kept.added == 3
    assert kept.pop_row() is not None  # "c" goes back to the screen (it grew)
    assert kept.added == 2 and kept.stored(kept.added - 1 - kept.added) == "b"  # b is number 1, as before
    kept.append_stored("c2")
    assert kept.added == 3 and kept.stored(-1) == "c2"


def test_capture_span_clamps_as_capture_does() -> None:
    screen = _printed("".join(f"{i}\r\n" for i in range(8)))  # 6 lines of history, 3 rows
    assert capture_span(screen) == (0, 2)
    assert capture_span(screen, -100, 100) == (-6, 2)
    assert len(capture(screen, -100, 100)) == 9
    assert wrapped_rows(screen, 2, 1) == []
