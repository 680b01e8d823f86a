"""Search: patterns, the bounded scan (against a brute-force reference), wrapped lines, the prompt."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termux.copymode import (
    CONTINUE,
    CopyMode,
    Line,
    ListSource,
    NeedLines,
    Unavailable,
)
from termux.copymode.scan import MAX_JOIN, Group, Hit, Scan, window_hits
from termux.patterns import PatternError, grep, grep_pattern, search_pattern

# -- patterns ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "text", "found", "literal"),
    [
        ("b.r", "foo bar", ["bar"], False),  # a regular expression
        ("f(x", "call f(x) now", ["f(x"], True),  # not one: plain text
        ("a[", "a[1]", ["a["], True),
        ("(\\w)\\1", "aa (\\w)\\1", ["(\\w)\\1"], True),  # backreferences are not RE2: plain text
        ("error", "Error ERROR error", ["Error", "ERROR", "error"], False),  # all lower case: any case
        ("Error", "Error ERROR error", ["Error"], False),  # a capital: exact case
        ("\\Serror", "xError xerror", ["xError", "xerror"], False),  # \S is no capital
        ("^ab", "ab ab", ["ab"], False),
        ("a*", "baab", ["aa"], False),  # empty matches are not matches
        ("(a{500}){4}", "aaa", [], True),  # beyond RE2's repetition limit: plain text
        ("(?:abcdefghij){200}", "abcdefghij", [], True),  # too large a program: plain text
        ("y" * 2500 + "(", "a" + "y" * 2500 + "(", ["y" * 2500 + "("], True),  # however long that text is
    ],
)
def test_search_pattern(typed: str, text: str, found: list[str], literal: bool) -> None:
    pattern = search_pattern(typed)
    assert pattern.literal is literal
    assert [text[a:b] for a, b in pattern.spans(text)] == found


def test_a_pattern_that_blows_up_backtracking_is_linear() -> None:
    pattern = search_pattern("^(a+)+$")
    text = "a" * 100_000 + "!"  # Python's re would take longer than the universe has
    assert list(pattern.spans(text)) == []


@pytest.mark.parametrize(
    ("typed", "message"),
    [("", "empty"), ("f(x", "bad regular expression 'f(x': missing ): f(x (RE2 syntax"),
     ("(\\w)\\1", "no backreferences"),
     ("(a{500}){4}", "invalid repetition size"), ("(?:abcdefghij){200}", "too complex"),
     ("x" * 5000, "over 4096 characters")],
)  # fmt: skip
def test_grep_patterns_must_be_valid(typed: str, message: str) -> None:
    with pytest.raises(PatternError, match=re.escape(message)):
        grep_pattern(typed)


@pytest.mark.parametrize(
    ("lines", "typed", "expected"),
    [
        (["alpha", "beta", "gamma"], "a$", [(-3, "alpha"), (-2, "beta"), (-1, "gamma")]),
        (["alpha", "beta", "gamma"], "^b", [(-2, "beta")]),
        (["alpha", "", "gamma"], "^$", [(-2, "")]),
        (["x", "y"], "^", [(-2, "x"), (-1, "y")]),  # an empty match counts, as in grep
        (["é one", "two é", "three"], "é", [(-3, "é one"), (-2, "two é")]),
        (["aaa aaa", "b"], "a", [(-2, "aaa aaa")]),  # each line once
        ([], "x", []),
        (["Error"], "error", []),  # case-sensitive, as grep
    ],
)
def test_grep(lines: list[str], typed: str, expected: list[tuple[int, str]]) -> None:
    assert grep(lines, -3 if len(lines) == 3 else -len(lines), grep_pattern(typed)) == expected


# -- the scan against a reference ----------------------------------------------------------------


def reference(lines: Sequence[Line], first: int, width: int, regex: str, origin: tuple[int, int], forward: bool):  # type: ignore[no-untyped-def]
    """Every match by brute force (logical lines joined, Python's re), sorted; the target and its
    number as the scan should find them."""
    found: list[tuple[int, int]] = []
    start = 0
    while start < len(lines):
        end = start
        while lines[end].wrapped and end < len(lines) - 1:
            end += 1
        group = Group(first + start, lines[start : end + 1], width)
        for match in re.finditer(regex, group.text):
            if match.end() > match.start():
                found.append(group.position(match.start()))
        start = end + 1
    found.sort()
    if not found:
        return 0, None, None
    if forward:
        after = [p for p in found if p > origin]
        target = after[0] if after else found[0]
    else:
        before = [p for p in found if p < origin]
        target = before[-1] if before else found[-1]
    return len(found), target, found.index(target) + 1


ROWS = st.lists(
    st.builds(Line, st.text(alphabet="ab ", max_size=8), st.booleans()),
    min_size=1,
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(
    rows=ROWS,
    history=st.integers(0, 40),
    regex=st.sampled_from(["a", "ab", "b a", "a+", "ba*b", "^a", "b$"]),
    origin_row=st.integers(0, 39),
    origin_x=st.integers(0, 8),
    forward=st.booleans(),
    budget=st.integers(1, 7),
)
def test_scan_matches_the_reference(
    rows: list[Line], history: int, regex: str, origin_row: int, origin_x: int, forward: bool, budget: int
) -> None:
    history = min(history, len(rows))
    width = 8
    source = ListSource(rows[:history], rows[history:] or [Line("")], width=width)
    lines = source.lines(source.first, source.last + 1)
    origin = (source.first + origin_row % len(lines), origin_x)
    total, target, index = reference(lines, source.first, width, regex, origin, forward)
    scan = Scan(source, search_pattern(regex), origin, forward)
    while not scan.done:
        scan.step(budget)
    assert scan.total == total
    assert (scan.target.start if scan.target else None) == target
    assert scan.index == index


def test_each_step_reads_a_bounded_batch_and_the_whole_scan_reads_each_line_about_once() -> None:
    source = ListSource([f"line {i}" for i in range(100_000)], ["marker here"] + [""] * 23)
    scan = Scan(source, search_pattern("marker"), (23, 0), forward=False)
    reads = []
    while not scan.done:
        before = source.reads
        scan.step(1000)
        reads.append(source.reads - before)
        if scan.target is not None and len(reads) == 2:
            assert scan.target.start == (0, 0)  # found in the first batch, long before the count ends
    assert max(reads) <= 1000 + 2 * MAX_JOIN
    assert source.reads <= 100_024 * (1 + MAX_JOIN / 1000) + 2 * MAX_JOIN
    assert (scan.total, scan.index) == (1, 1)


def test_a_scan_without_count_stops_at_the_target() -> None:
    source = ListSource([f"x {i}" for i in range(10_000)], ["x"] * 5)
    scan = Scan(source, search_pattern("x"), (2, 0), forward=True, count=False)
    scan.step(100)
    scan.step(100)
    assert scan.done and scan.target is not None and scan.target.start == (3, 0)
    assert source.reads < 500


def test_matches_across_a_wrap_map_back_to_both_rows() -> None:
    # "hello world" printed on a 6-column screen: "hello " wraps into "world".
    lines = [Line("hello", True), Line("world"), Line("中文 x", True), Line("yz")]
    source = ListSource([], lines, width=6)
    hits = window_hits(source, search_pattern("o w"), 0, source.lines(0, 4))
    assert hits == [Hit(((0, 4, 6), (1, 0, 1)))]  # "o" and the padding blank, then "w"
    hits = window_hits(source, search_pattern("文 xyz"), 0, source.lines(0, 4))
    assert hits == [Hit(((2, 2, 6), (3, 0, 2)))]  # 文 is columns 2-3 of its row
    # A window starting on the continuation row still finds the match that began above it.
    assert window_hits(source, search_pattern("lo wor"), 1, source.lines(1, 2)) == [Hit(((1, 0, 3),))]


def test_a_logical_line_longer_than_max_join_is_searched_in_pieces() -> None:
    rows = [Line("ab", True)] * (MAX_JOIN * 3) + [Line("ab")]
    source = ListSource([], rows, width=2)
    scan = Scan(source, search_pattern("ab"), (0, 0), forward=True)
    while not scan.done:
        scan.step(50)
    assert scan.total == len(rows)


def test_missing_lines_leave_the_scan_as_it_was() -> None:
    class Partial(ListSource):
        held = range(-150, 10)

        def lines(self, start: int, stop: int) -> Sequence[Line]:
            if start not in self.held or stop - 1 not in self.held:
                raise Unavailable(start, stop)
            return super().lines(start, stop)

    source = Partial([f"row {i} x" for i in range(200)], ["x"] * 10)
    scan = Scan(source, search_pattern("x"), (5, 0), forward=False)
    scan.step(20)
    scan.step(20)
    progress = (scan.total, scan.target, scan._next, list(scan._segments))
    while True:
        try:
            scan.step(20)
        except Unavailable:
            break
    before = (scan.total, scan.target, scan._next, list(scan._segments))
    with pytest.raises(Unavailable):
        scan.step(20)
    assert (scan.total, scan.target, scan._next, list(scan._segments)) == before
    assert progress[1] == before[1] and scan.target is not None and scan.target.start == (4, 0)


# -- search in the model -------------------------------------------------------------------------


def typed(copy_mode: CopyMode, *keys: str) -> None:
    for key in keys:
        copy_mode.feed(key)
        while copy_mode.busy:
            assert copy_mode.work() == CONTINUE


def history_mode(height: int = 10) -> tuple[CopyMode, ListSource]:
    source = ListSource([f"entry {i}" for i in range(1000)], ["$ grep it", "found 42", "$ "])
    return CopyMode(source, height, cursor=(2, 2)), source


def test_incremental_search_moves_as_you_type_and_counts() -> None:
    copy_mode, _ = history_mode()
    typed(copy_mode, "?", "e", "n", "t", "r", "y", " ", "9", "9")
    assert copy_mode.cursor == (-1, 0)  # entry 999 is the nearest above
    typed(copy_mode, "9")
    view = copy_mode.view()
    assert view.prompt == "?entry 999" and copy_mode.cursor == (-1, 0)
    typed(copy_mode, "BSpace", "BSpace", "BSpace", "1", "2")  # "entry 12": entries 12 and 120-129
    assert copy_mode.cursor == (-1000 + 129, 0)
    view = copy_mode.view()
    assert view.search is not None and (view.search.index, view.search.total) == (11, 11)
    assert copy_mode.state.top <= copy_mode.cursor[0] < copy_mode.state.top + 10  # brought into view
    current = [row for row in view.rows if row.current]
    assert [(row.y, row.current) for row in current] == [(-871, ((0, 8),))]
    assert sum(1 for row in view.rows if row.matches) >= 5  # every match in view is marked
    assert view.status().startswith("?entry 12  (11/11)  [")  # counted while it is typed
    typed(copy_mode, "Enter", "?")
    assert copy_mode.view().status().startswith("?  [")  # a new prompt: nothing typed, no count
    typed(copy_mode, "Escape")
    assert copy_mode.view().prompt is None and "11/11" in copy_mode.view().status()
    typed(copy_mode, "n")
    assert copy_mode.cursor == (-1000 + 128, 0) and "10/11" in copy_mode.view().status()
    typed(copy_mode, "N", "N")
    assert copy_mode.cursor == (-1000 + 12, 0) and "1/11" in copy_mode.view().status()  # wrapped around


def test_escape_in_the_prompt_goes_back() -> None:
    copy_mode, _ = history_mode()
    typed(copy_mode, "?", "4", "2", "Enter")
    assert copy_mode.cursor == (1, 6)
    found = copy_mode.state.search
    typed(copy_mode, "/", "e", "n", "t")
    assert copy_mode.cursor != (1, 6)
    typed(copy_mode, "Escape")
    assert copy_mode.cursor == (1, 6) and copy_mode.state.search is found and copy_mode.view().prompt is None
    typed(copy_mode, "/", "x", "BSpace", "BSpace")  # backspace on an empty prompt closes it
    assert copy_mode.view().prompt is None and copy_mode.cursor == (1, 6)


def test_slash_enter_repeats_the_last_search() -> None:
    copy_mode, _ = history_mode()
    typed(copy_mode, "?", "e", "n", "t", "r", "y", "Enter")
    assert copy_mode.cursor == (-1, 0)
    typed(copy_mode, "?", "Enter")
    assert copy_mode.cursor == (-2, 0)


def test_no_match_is_said_and_plain_text_searches_as_text() -> None:
    copy_mode, _ = history_mode()
    assert copy_mode.cursor == (2, 1)  # "$ " has two cells
    typed(copy_mode, "/", "n", "o", "p", "e", "Enter")
    assert copy_mode.cursor == (2, 1) and "(no match)" in copy_mode.view().status()
    copy_mode, _ = history_mode()
    typed(copy_mode, "?", "$", " ", "g", "r", "e", "p", "(", "Enter")
    assert copy_mode.cursor == (2, 1)
    status = copy_mode.view().status()
    assert "as text" in status and "no match" in status


def test_search_extends_a_selection() -> None:
    copy_mode, _ = history_mode()
    typed(copy_mode, "0", "v", "?", "4", "2", "Enter")
    assert copy_mode.selection_text() == "42\n$"


def test_counting_goes_on_in_steps_while_the_cursor_has_jumped() -> None:
    source = ListSource([f"x {i}" for i in range(50_000)], ["x"] * 3)
    copy_mode = CopyMode(source, 10, cursor=(2, 0))
    for key in ("?", "x", "Enter"):
        copy_mode.feed(key)
    copy_mode.work(1000)
    copy_mode.work(1000)
    assert copy_mode.busy and copy_mode.cursor == (1, 0)
    assert "counting" in copy_mode.view().status()
    steps = 0
    while copy_mode.busy:
        copy_mode.work(1000)
        steps += 1
    assert steps >= 40 and "50002/50003" in copy_mode.view().status()  # numbered from the top


def test_a_search_finds_text_the_terminal_wrapped_and_marks_both_rows() -> None:
    rows = [Line("$ echo ready; a very lo", True), Line("ng line here"), Line("$ ")]
    copy_mode = CopyMode(ListSource([], rows, width=23), 3, cursor=(2, 0))
    typed(copy_mode, "?", "l", "o", "n", "g", " ", "l")
    assert copy_mode.cursor == (0, 21)
    view = copy_mode.view()
    assert [(row.y, row.matches, row.current) for row in view.rows] == [
        (0, ((21, 23),), ((21, 23),)),
        (1, ((0, 4),), ((0, 4),)),
        (2, (), ()),
    ]
    typed(copy_mode, "Enter", "v", "E")  # the word goes on across the wrap too
    assert copy_mode.cursor == (1, 1) and copy_mode.selection_text() == "long"


def test_a_search_over_missing_lines_asks_for_them() -> None:
    class Fetching(ListSource):
        held: set[int]

        def lines(self, start: int, stop: int) -> Sequence[Line]:
            if not set(range(start, stop)) <= self.held:
                raise Unavailable(start, stop)
            return super().lines(start, stop)

    source = Fetching(["target"] + [f"row {i}" for i in range(500)], [""] * 5)
    source.held = set(range(-5, 5))
    copy_mode = CopyMode(source, 5, cursor=(4, 0))
    for key in "?target":
        copy_mode.feed(key)
    fetched = 0
    while copy_mode.busy:
        outcome = copy_mode.work(100)
        if isinstance(outcome, NeedLines):
            source.held.update(range(outcome.start, outcome.stop))
            fetched += 1
    assert copy_mode.cursor == (-501, 0) and fetched >= 5
