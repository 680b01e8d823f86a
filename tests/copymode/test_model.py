"""The copy-mode state machine: every motion, selection kind and exit, as tables over real lines."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from termux.copymode import (
    CONTINUE,
    EMACS_KEYS,
    LEAVE,
    VI_KEYS,
    Copy,
    CopyMode,
    Line,
    ListSource,
    NeedLines,
    Unavailable,
    canonical_key,
    key_name,
    key_table,
)
from termux.copymode.model import _columns_text
from termux.keys import ALT, CTRL, SHIFT

# Five screen rows (no history): words and punctuation, an empty line, indentation, wide
# characters (中 and 文 take columns 5-6 and 7-8) and combining marks (é is e + U+0301, one cell).
TEXT = [
    "foo bar_baz  qux.quux",  # 0
    "",  # 1
    "  indented line",  # 2
    "wide 中文 text",  # 3
    "e\u0301tude cafe\u0301 end",  # 4
]


def mode(
    lines: Sequence[str | Line] = TEXT,
    cursor: tuple[int, int] = (0, 0),
    height: int = 5,
    width: int = 40,
    bindings: dict[str, str] = VI_KEYS,
) -> CopyMode:
    return CopyMode(ListSource([], lines, width=width), height, cursor=cursor, bindings=bindings)


def press(copy_mode: CopyMode, *keys: str) -> object:
    outcome: object = CONTINUE
    for key in keys:
        outcome = copy_mode.feed(key)
        while copy_mode.busy:
            copy_mode.work()
    return outcome


MOTIONS = [
    # (start, keys, end)
    ((0, 0), "w", (0, 4)),  # bar_baz is one word: _ is a word character
    ((0, 4), "w", (0, 13)),
    ((0, 13), "w", (0, 16)),  # "." is punctuation: a word of its own
    ((0, 16), "w", (0, 17)),
    ((0, 17), "w", (1, 0)),  # an empty line is a word (vi)
    ((1, 0), "w", (2, 2)),  # leading blanks are skipped
    ((0, 0), "e", (0, 2)),
    ((0, 2), "e", (0, 10)),
    ((0, 10), "e", (0, 15)),
    ((0, 15), "e", (0, 16)),
    ((0, 20), "e", (2, 9)),  # e goes past the empty line
    ((2, 2), "b", (1, 0)),  # b stops on it
    ((1, 0), "b", (0, 17)),
    ((0, 17), "b", (0, 16)),
    ((0, 13), "b", (0, 4)),
    ((0, 6), "b", (0, 4)),  # from inside a word: its start
    ((0, 0), "b", (0, 0)),  # nothing before the first word
    ((0, 4), "W", (0, 13)),  # WORDs are separated by blanks only
    ((0, 13), "W", (1, 0)),
    ((0, 13), "E", (0, 20)),
    ((0, 20), "B", (0, 13)),
    ((0, 10), "0", (0, 0)),
    ((2, 10), "^", (2, 2)),
    ((2, 0), "$", (2, 14)),
    ((3, 4), "l", (3, 5)),  # onto 中
    ((3, 5), "l", (3, 7)),  # past both its columns
    ((3, 7), "l", (3, 9)),
    ((3, 9), "h", (3, 7)),
    ((3, 7), "h", (3, 5)),
    ((3, 13), "l", (3, 13)),  # the last character: no further
    ((3, 0), "h", (3, 0)),
    ((3, 0), "w", (3, 5)),  # CJK characters are word characters
    ((3, 5), "w", (3, 10)),
    ((3, 5), "e", (3, 7)),
    ((3, 0), "$", (3, 13)),
    ((2, 6), "j", (3, 5)),  # column 6 is 中's second half: the cursor goes to its start
    ((2, 9), "j", (3, 9)),
    ((4, 0), "e", (4, 4)),  # é is one cell
    ((4, 0), "w", (4, 6)),
    ((4, 6), "e", (4, 9)),
    ((4, 0), "$", (4, 13)),
    ((0, 20), "j", (1, 0)),  # an empty line: column 0 …
    ((0, 20), "jj", (2, 14)),  # … and the column wanted comes back (clamped to the line)
    ((2, 0), "$jj", (4, 13)),  # after $, each line's end
    ((0, 3), "k", (0, 3)),  # the first line: no further
    ((4, 3), "j", (4, 3)),
    ((4, 3), "g", (0, 0)),
    ((0, 3), "G", (4, 0)),
    ((4, 3), "H", (0, 3)),  # the column is kept
    ((0, 3), "M", (2, 3)),
    ((0, 3), "L", (4, 3)),
]


@pytest.mark.parametrize(("start", "keys", "end"), MOTIONS, ids=[f"{s}-{k}" for s, k, _ in MOTIONS])
def test_vi_motion(start: tuple[int, int], keys: str, end: tuple[int, int]) -> None:
    copy_mode = mode(cursor=start)
    assert copy_mode.cursor == start
    for key in keys:
        assert copy_mode.feed(key) == CONTINUE
    assert copy_mode.cursor == end


EMACS_MOTIONS = [
    ((0, 0), ["C-f"], (0, 1)),
    ((0, 1), ["C-b"], (0, 0)),
    ((0, 0), ["C-n"], (1, 0)),
    ((1, 0), ["C-p"], (0, 0)),
    ((0, 0), ["M-f"], (0, 2)),
    ((0, 13), ["M-b"], (0, 4)),
    ((2, 10), ["C-a"], (2, 0)),
    ((2, 0), ["C-e"], (2, 14)),
    ((2, 10), ["M-m"], (2, 2)),
    ((4, 3), ["M-<"], (0, 0)),
    ((0, 3), ["M->"], (4, 0)),
]


@pytest.mark.parametrize(("start", "keys", "end"), EMACS_MOTIONS, ids=[f"{s}-{k}" for s, k, _ in EMACS_MOTIONS])
def test_emacs_motion(start: tuple[int, int], keys: list[str], end: tuple[int, int]) -> None:
    copy_mode = mode(cursor=start, bindings=key_table("emacs"))
    for key in keys:
        copy_mode.feed(key)
    assert copy_mode.cursor == end


def test_the_tables_are_tmux_mode_keys() -> None:
    assert key_table("vi") == VI_KEYS and key_table("emacs") == EMACS_KEYS
    assert mode(bindings=key_table("emacs")).feed("v") == CONTINUE  # v is nothing in emacs: ignored
    with pytest.raises(ValueError, match="unknown copy-mode command"):
        mode(bindings={"x": "no-such-command"})


# -- scrolling: 100 history lines and 24 screen rows, a view 10 rows tall ------------------------


def tall(cursor: tuple[int, int] | None = None) -> tuple[CopyMode, ListSource]:
    source = ListSource([f"history {i}" for i in range(100)], [f"screen {i}" for i in range(24)])
    return CopyMode(source, 10, cursor=cursor), source


SCROLLS = [
    # (keys, top, cursor line) from the bottom: top 14, cursor on 23
    ([], 14, 23),
    (["C-u"], 9, 18),  # half a page: the view and the cursor move together
    (["C-u", "C-u", "C-d"], 9, 18),
    (["C-d"], 14, 23),  # at the bottom already
    (["C-b"], 4, 13),
    (["PageUp", "PageDown"], 14, 23),
    (["C-f"], 14, 23),
    (["g"], -100, -100),
    (["g", "C-u"], -100, -100),
    (["g", "C-d"], -95, -95),
    (["g", "G"], 14, 23),
    (["H"], 14, 14),
    (["M"], 14, 18),
    (["L"], 14, 23),
    (["C-y"], 13, 22),  # the cursor's line scrolled out of view: it stays on the bottom row
    (["H", "C-y"], 13, 14),  # in view: it stays on its line
    (["C-e"], 14, 23),
    (["H", "k"], 13, 13),  # moving off the top scrolls
]


@pytest.mark.parametrize(("keys", "top", "line"), SCROLLS, ids=[" ".join(k) or "open" for k, _, _ in SCROLLS])
def test_scrolling(keys: list[str], top: int, line: int) -> None:
    copy_mode, _ = tall()
    for key in keys:
        copy_mode.feed(key)
    assert (copy_mode.state.top, copy_mode.cursor[0]) == (top, line)
    view = copy_mode.view()
    assert view.rows[0].y == top and view.cursor == (line - top, copy_mode.cursor[1])


def test_opening_reads_one_screenful_however_long_the_history() -> None:
    """The structural test: the view asks for the rows it shows, never for all of history."""
    source = ListSource([f"line {i}" for i in range(10_000)], [f"screen {i}" for i in range(24)])
    copy_mode = CopyMode(source, 24, cursor=(23, 0))
    assert source.reads == 1  # the cursor's line, to put the cursor on a character
    view = copy_mode.view()
    assert [row.line.text for row in view.rows] == [f"screen {i}" for i in range(24)]
    assert (source.reads, source.calls) == (25, 2)  # and the screenful, in one call
    copy_mode.feed("C-b")
    before = source.reads
    copy_mode.view()
    assert source.reads - before == 24
    copy_mode.feed("g")  # the top of history: a jump, not a walk
    assert source.reads - before <= 24 + 2
    assert copy_mode.view().rows[0].line.text == "line 0"


def test_a_view_taller_than_the_source_shows_what_there_is() -> None:
    copy_mode = mode(["one", "two"], height=10)
    view = copy_mode.view()
    assert [row.line.text for row in view.rows] == ["one", "two"]
    assert press(copy_mode, "L") == CONTINUE and copy_mode.cursor == (1, 0)
    copy_mode.resize(1)
    assert copy_mode.state.top == 1 and len(copy_mode.view().rows) == 1


# -- selection and copying -----------------------------------------------------------------------

COPIES = [
    # (start, keys, copied)
    ((0, 0), "vey", "foo"),
    ((0, 4), "vey", "bar_baz"),
    ((0, 0), "vjjy", "foo bar_baz  qux.quux\n\n "),  # across lines; the end character is included
    ((0, 13), "v$y", "qux.quux"),
    ((0, 16), "vy", "."),
    ((0, 0), "wvbYy", "foo b"),  # backwards too (Y is bound to nothing: ignored)
    ((0, 4), "vwoy", "bar_baz  q"),  # o swaps the ends: the text is the same
    ((0, 4), "Vy", "foo bar_baz  qux.quux"),
    ((0, 4), "Vjjy", "foo bar_baz  qux.quux\n\n  indented line"),
    ((2, 3), "Vky", "\n  indented line"),  # line selections go both ways
    ((3, 5), "vly", "中文"),  # wide characters whole
    ((4, 6), "vey", "cafe\u0301"),  # the combining mark at the end comes with its letter
    ((4, 9), "vy", "e\u0301"),
    ((4, 0), "vly", "e\u0301t"),  # and at the start
    ((3, 5), "\x16jlllly", "中文\n cafe\u0301"),  # C-v: a rectangle, columns 5-9
    ((0, 0), "\x16jjly", "fo\n\n"),  # rows shorter than the rectangle copy what they have
    ((3, 0), "\x16$y", "wide 中文 text"),
    ((0, 0), "vvy", None),  # v again ends the selection
    ((0, 0), "vVy", "foo bar_baz  qux.quux"),  # V turns it into a line selection
    ((0, 0), "Vvey", "foo"),
    ((0, 0), "v\x16\x16y", None),
]


@pytest.mark.parametrize(("start", "keys", "copied"), COPIES, ids=[f"{s}-{k!r}" for s, k, _ in COPIES])
def test_copy(start: tuple[int, int], keys: str, copied: str | None) -> None:
    copy_mode = mode(cursor=start)
    outcome: object = CONTINUE
    for key in keys:
        outcome = copy_mode.feed("C-v" if key == "\x16" else key)
    if copied is None:
        assert outcome == LEAVE and not copy_mode.active  # y with no selection leaves, copying nothing
    else:
        assert outcome == Copy(copied) and not copy_mode.active
    assert copy_mode.feed("j") == LEAVE  # it is over


def test_enter_copies_as_y_and_q_or_escape_leave() -> None:
    for key in ("Enter", "y"):
        copy_mode = mode()
        copy_mode.feed("v")
        copy_mode.feed("l")
        assert copy_mode.feed(key) == Copy("fo")
    for key in ("q", "Escape", "C-c"):
        copy_mode = mode()
        copy_mode.feed("v")
        assert copy_mode.feed(key) == LEAVE and not copy_mode.active


def test_emacs_selection_keys() -> None:
    copy_mode = mode(bindings=key_table("emacs"))
    for key in ("C-Space", "M-f"):
        copy_mode.feed(key)
    assert copy_mode.selection_text() == "foo"
    copy_mode.feed("C-g")
    assert copy_mode.selection is None
    copy_mode.feed("C-a")
    copy_mode.feed("C-Space")
    copy_mode.feed("C-n")
    copy_mode.feed("R")  # a rectangle
    copy_mode.feed("C-f")
    assert copy_mode.feed("M-w") == Copy("fo\n")  # the empty line's row of the rectangle is empty


def test_rectangle_rows_cut_through_a_wide_character_stay_aligned() -> None:
    # Columns 6-8 of "wide 中文 text": 中 (5-6) is cut by the left edge, 文 (7-8) starts inside.
    assert _columns_text("wide 中文 text", 6, 8) == " 文"
    assert _columns_text("wide 中文 text", 5, 5) == "中"  # a character whose first column is inside
    assert _columns_text("e\u0301tude", 0, 1) == "e\u0301t"


def test_a_rectangle_reaches_past_the_end_of_short_lines() -> None:
    copy_mode = mode(["long line here", "ab"], cursor=(0, 0))
    press(copy_mode, "j", "C-v", "l", "l", "l", "l")  # on "ab" the cursor goes into blank columns
    assert copy_mode.cursor == (1, 4)
    press(copy_mode, "k")
    assert copy_mode.selection_text() == "long\nab"
    press(copy_mode, "h")
    assert copy_mode.cursor == (0, 3)


def test_wrapped_lines_copy_as_one_line() -> None:
    # A 10-column screen: "0123456789abc" wrapped after 9; "01234567  x" wrapped where the
    # program printed two blanks at the end of the row (trimmed, as capture trims).
    lines = [Line("0123456789", True), Line("abc"), Line("01234567", True), Line("x")]
    copy_mode = mode(lines, width=10)
    assert press(copy_mode, "V", "j", "j", "j", "y") == Copy("0123456789abc\n01234567  x")
    copy_mode = mode(lines, cursor=(0, 5), width=10)
    assert press(copy_mode, "v", "j", "h", "y") == Copy("56789ab")


def test_word_motions_go_across_a_wrap_without_a_break() -> None:
    lines = [Line("one twothr", True), Line("ee four")]
    copy_mode = mode(lines, cursor=(0, 4), width=10)
    assert press(copy_mode, "e") == CONTINUE and copy_mode.cursor == (1, 1)  # "twothree" is one word
    press(copy_mode, "b")
    assert copy_mode.cursor == (0, 4)
    press(copy_mode, "w")
    assert copy_mode.cursor == (1, 3)


def test_a_word_motion_reads_a_bounded_number_of_lines() -> None:
    source = ListSource([], ["word"] + ["   "] * 5000 + ["next"], width=20)
    copy_mode = CopyMode(source, 10, cursor=(0, 0))
    copy_mode.feed("w")  # blank lines are not empty lines: w looks for the next word …
    assert source.reads < 300  # … through WORD_SCAN_ROWS rows at most
    assert copy_mode.cursor[0] <= 257


def test_the_view_marks_the_selection() -> None:
    copy_mode = mode(cursor=(3, 5))
    press(copy_mode, "v", "l")
    (row,) = [row for row in copy_mode.view().rows if row.selected]
    assert (row.y, row.selected) == (3, ((5, 9),))  # to the end of 文, both its columns
    press(copy_mode, "j")
    spans = {row.y: row.selected for row in copy_mode.view().rows if row.selected}
    assert spans == {3: ((5, 40),), 4: ((0, 8),)}
    press(copy_mode, "V")
    assert {row.y: row.selected for row in copy_mode.view().rows if row.selected} == {3: ((0, 40),), 4: ((0, 40),)}
    press(copy_mode, "C-v")
    # The rectangle's right edge is column 7: 文 there is two columns wide, "a" below it one.
    assert {row.y: row.selected for row in copy_mode.view().rows if row.selected} == {3: ((5, 9),), 4: ((5, 8),)}


# -- the mouse -----------------------------------------------------------------------------------


def test_a_drag_selects_and_the_release_copies() -> None:
    copy_mode = mode()
    copy_mode.press(0, 4)
    assert copy_mode.selection is None and copy_mode.cursor == (0, 4)
    copy_mode.drag(0, 8)
    copy_mode.drag(2, 3)
    assert copy_mode.copy() == Copy("bar_baz  qux.quux\n\n  in")


def test_a_drag_past_the_edge_scrolls() -> None:
    copy_mode, _ = tall()
    copy_mode.press(0, 0)
    copy_mode.drag(-1, 0)
    assert copy_mode.state.top == 13 and copy_mode.cursor == (13, 0)


def test_double_click_selects_a_word_and_triple_click_a_line() -> None:
    copy_mode = mode()
    copy_mode.select_word(0, 6)
    assert copy_mode.selection_text() == "bar_baz"
    copy_mode.select_word(4, 8)
    assert copy_mode.selection_text() == "cafe\u0301"
    copy_mode.select_row(2, 5)
    assert copy_mode.copy() == Copy("  indented line")


# -- keys ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "name"),
    [("c-u", "C-u"), ("^U", "C-u"), ("C-V", "C-v"), ("Return", "Enter"), ("esc", "Escape"), (" ", "Space"),
     ("S-g", "G"), ("M-<", "M-<"), ("C-Space", "C-Space"), ("C-@", "C-Space"), ("PPage", "PageUp"), ("$", "$")],
)  # fmt: skip
def test_key_spellings(spelling: str, name: str) -> None:
    assert canonical_key(spelling) == name


def test_key_names_from_an_encoder_model() -> None:
    assert key_name("u", CTRL) == "C-u"
    assert key_name("g", SHIFT) == "G"
    assert key_name("f", ALT) == "M-f"
    assert key_name("Up", CTRL | SHIFT) == "C-S-Up"


# -- a source that fetches lines: nothing changes until they are there ---------------------------


class FetchingSource(ListSource):
    """Holds only the lines fetched so far, as a view fetching from the server does."""

    def __init__(self, history: list[str], screen: list[str]) -> None:
        super().__init__(history, screen)
        self.held: set[int] = set(range(0, len(screen)))

    def lines(self, start: int, stop: int) -> Sequence[Line]:
        missing = [i for i in range(start, stop) if i not in self.held]
        if missing:
            raise Unavailable(missing[0], missing[-1] + 1)
        return super().lines(start, stop)

    def fetch(self, need: NeedLines) -> None:
        self.held.update(range(need.start, need.stop))


def test_missing_lines_change_nothing_until_fetched() -> None:
    source = FetchingSource([f"history {i}" for i in range(50)], [f"screen {i}" for i in range(10)])
    copy_mode = CopyMode(source, 10, cursor=(9, 0))
    copy_mode.feed("v")
    before = (copy_mode.state.top, copy_mode.cursor, copy_mode.selection)
    need = copy_mode.feed("C-b")
    assert isinstance(need, NeedLines) and need.start < 0
    assert (copy_mode.state.top, copy_mode.cursor, copy_mode.selection) == before
    while isinstance(need, NeedLines):  # as the view does: fetch, then the same key again
        source.fetch(need)
        need = copy_mode.feed("C-b")
    assert (copy_mode.state.top, copy_mode.cursor) == (-10, (-1, 0))
    with pytest.raises(Unavailable):  # the view's rows are not all there yet
        copy_mode.view()
    source.fetch(NeedLines(-10, 0))
    assert copy_mode.view().rows[0].line.text == "history 40"
    assert copy_mode.selection_text().startswith("history 49\n")
