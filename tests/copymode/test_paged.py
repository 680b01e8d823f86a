"""PagedLines: a copy mode over a session's lines fetched a page at a time, driven against a fake
capture that answers as the server does (pinned numbering, escapes, wrapped flags)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from termux.copymode import CONTINUE, Copy, CopyMode, NeedLines, Outcome, Unavailable
from termux.copymode.paged import PagedLines, split_styled


class FakeSession:
    """`history` lines then `rows` screen rows, captured as session.capture would; counts captures."""

    def __init__(self, lines: list[str], rows: int, wrapped: set[int] | None = None) -> None:
        self.lines = lines  # oldest first, the screen's rows last
        self.rows = rows
        self.wrapped = wrapped or set()
        self.dropped = 0  # the oldest lines the history's bound dropped since the source opened
        self.captures: list[tuple[int, int]] = []

    def open(self, height: int) -> PagedLines:
        history = len(self.lines) - self.rows
        source = PagedLines(-history, self.rows - 1, 80, base=history, page=height)
        self.capture(source, source.last - height + 1, source.last + 1)
        return source

    def capture(self, source: PagedLines, start: int, stop: int) -> None:
        self.captures.append((start, stop))
        history = len(self.lines) - self.rows
        got = max(start, -history + self.dropped)
        texts = [self.lines[history + i] for i in range(got, stop)]
        source.fill(start, stop, got, texts, [history + i in self.wrapped for i in range(got, stop)])


def drive(session: FakeSession, source: PagedLines, step: Callable[[], Outcome]) -> Outcome:
    """Run one model operation, fetching what it lacks, as the TUI's copy view does."""
    while isinstance(outcome := step(), NeedLines):
        session.capture(source, outcome.start, outcome.stop)
    return outcome


def view(session: FakeSession, source: PagedLines, mode: CopyMode) -> None:
    while True:
        try:
            mode.view()
            return
        except Unavailable as missing:
            session.capture(source, missing.start, missing.stop)


def test_opening_on_ten_thousand_lines_reads_one_screenful() -> None:
    session = FakeSession([f"line {i}" for i in range(10_024)], rows=24)
    source = session.open(height=24)
    mode = CopyMode(source, height=24)
    rows = mode.view().rows
    assert [row.line.text for row in rows] == [f"line {i}" for i in range(10_000, 10_024)]
    assert session.captures == [(0, 24)] and source.fetched == 24


def test_scrolling_up_fetches_a_screenful_above_and_the_top_of_history_a_screenful_there() -> None:
    session = FakeSession([f"line {i}" for i in range(10_024)], rows=24)
    source = session.open(height=24)
    mode = CopyMode(source, height=24)
    drive(session, source, lambda: mode.feed("C-y"))
    view(session, source, mode)
    assert session.captures[1:] == [(-24, 0)]  # one line needed, a screenful fetched
    drive(session, source, lambda: mode.feed("g"))
    view(session, source, mode)
    assert session.captures[2:] == [(-10_000, -9_976)]
    assert mode.view().rows[0].line.text == "line 0"
    drive(session, source, lambda: mode.feed("C-f"))  # a page down from the top: the next page below
    view(session, source, mode)
    assert session.captures[3:] == [(-9_976, -9_952)]
    assert source.fetched == 4 * 24


def test_a_search_reads_its_batches_and_copy_gives_the_text() -> None:
    lines = [f"line {i}" for i in range(5_024)]
    lines[1234] = "the MARKER is here"
    session = FakeSession(lines, rows=24)
    source = session.open(height=24)
    mode = CopyMode(source, height=24)
    for key in "/MARKER":
        drive(session, source, lambda key=key: mode.feed(key))
        while mode.busy:
            drive(session, source, mode.work)
    drive(session, source, lambda: mode.feed("Enter"))
    assert mode.cursor == (1234 - 5_000, 4)
    for key in ("v", "e"):
        drive(session, source, lambda key=key: mode.feed(key))
    assert drive(session, source, lambda: mode.feed("y")) == Copy("MARKER")
    assert max(stop - start for start, stop in session.captures) <= 2_000 + 64


def test_lines_the_history_dropped_while_open_come_back_empty() -> None:
    session = FakeSession([f"line {i}" for i in range(100)], rows=10)
    source = session.open(height=10)
    session.dropped = 5  # the five oldest went while copy mode was open
    mode = CopyMode(source, height=10)
    drive(session, source, lambda: mode.feed("g"))
    view(session, source, mode)
    assert [row.line.text for row in mode.view().rows][:6] == ["", "", "", "", "", "line 5"]


def test_wrapped_flags_come_through() -> None:
    session = FakeSession(["a" * 80, "bb", "c"], rows=3, wrapped={0})
    source = session.open(height=3)
    assert [line.wrapped for line in source.lines(0, 3)] == [True, False, False]
    assert CopyMode(source, height=3).view().rows[0].line.wrapped


def test_at_most_the_limit_is_held_the_least_recently_read_going_first() -> None:
    source = PagedLines(-100, 9, 80, base=100, page=10, limit=30)
    for start in (0, -10, -20, -30):
        source.fill(start, start + 10, start, [f"{start} {k}" for k in range(10)], [])
    assert source.held == 30
    with pytest.raises(Unavailable) as missing:
        source.lines(0, 1)  # the first page went
    assert (missing.value.start, missing.value.stop) == (0, 10)
    source.lines(-10, -9)  # read: now the most recent
    source.fill(0, 10, 0, ["again"] * 10, [])
    assert source.lines(-10, -9)[0].text == "-10 0"
    with pytest.raises(Unavailable):
        source.lines(-20, -19)  # the least recently read went instead


def test_a_fill_overlapping_held_lines_keeps_them() -> None:
    source = PagedLines(-100, 9, 80, base=100, page=10)
    source.fill(-5, 5, -5, ["old"] * 10, [])
    source.fill(-10, 10, -10, ["new"] * 20, [])
    assert [line.text for line in source.lines(-10, 10)] == ["new"] * 5 + ["old"] * 10 + ["new"] * 5
    assert source.held == 20


@pytest.mark.parametrize(
    ("escaped", "text", "links"),
    [
        ("plain", "plain", ()),
        ("\x1b[0;1mbold\x1b[0m and not", "bold and not", ()),
        ("see \x1b]8;;https://e.x/a\x1b\\here\x1b]8;;\x1b\\ now", "see here now", ((4, 8, "https://e.x/a"),)),
        ("\x1b]8;id=1;a\x1b\\x\x1b]8;;b\x1b\\yz\x1b]8;;\x1b\\", "xyz", ((0, 1, "a"), (1, 3, "b"))),
        ("\x1b[0;38;2;1;2;3m✓ wide 界\x1b[0m", "✓ wide 界", ()),
    ],
)
def test_split_styled(escaped: str, text: str, links: tuple[tuple[int, int, str], ...]) -> None:
    styled = split_styled(escaped)
    assert (styled.line.text, styled.links, styled.escaped) == (text, links, escaped)


def test_feeding_again_after_a_fetch_changes_nothing_twice() -> None:
    session = FakeSession([f"line {i}" for i in range(1_000)], rows=10)
    source = session.open(height=10)
    mode = CopyMode(source, height=10)
    first = mode.feed("C-b")
    assert isinstance(first, NeedLines) and mode.cursor == (9, 0)  # nothing moved yet
    session.capture(source, first.start, first.stop)
    assert mode.feed("C-b") == CONTINUE and mode.cursor == (-1, 0)


def test_a_search_finds_a_word_the_terminal_wrapped_across_two_rows() -> None:
    # "...HELLO" | "WORLD..." at 80 columns: the first row wraps, so HELLOWORLD is one word.
    lines = ["x" * 75 + "HELLO", "WORLD and more", *[f"line {i}" for i in range(40)]]
    session = FakeSession(lines, rows=10, wrapped={0})
    source = session.open(height=10)
    mode = CopyMode(source, height=10)
    for key in ("?", *"helloworld", "Enter"):
        drive(session, source, lambda key=key: mode.feed(key))
        while mode.busy:
            drive(session, source, mode.work)
    assert mode.cursor == (source.first, 75)
    view(session, source, mode)
    current = [(row.y, row.current) for row in mode.view().rows if row.current]
    assert current == [(source.first, ((75, 80),)), (source.first + 1, ((0, 5),))]


def test_a_fill_whose_capture_returned_none_of_the_range_holds_it_empty() -> None:
    source = PagedLines(-100, 9, 80, base=100, page=10)
    source.fill(-100, -90, -80, ["later"] * 5, [])  # the history dropped all of -100..-81 meanwhile
    assert [line.text for line in source.lines(-100, -90)] == [""] * 10
    source.fill(-90, -80, -85, ["a", "b"], [True])
    got = [(line.text, line.wrapped) for line in source.lines(-86, -82)]
    assert got == [("", False), ("a", True), ("b", False), ("", False)]
