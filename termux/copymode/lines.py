"""What copy mode reads: lines by index, each a text and a soft-wrap flag, split into cells.

Indices are the numbering `session.capture` uses: 0 is the top row of the screen, negative numbers
reach into scrollback (-1 is the newest history line), so `first` is minus the history's length and
`last` the screen's bottom row. A source hands out lines lazily, a range at a time; the copy-mode
model never asks for more than it shows or scans (a screenful to draw, a line or two for a motion,
a bounded batch per search step).

A source that does not have a range yet (a view fetching it from the server) raises `Unavailable`;
the model then changes nothing and tells its caller which lines to fetch before trying again.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from operator import attrgetter
from typing import NamedTuple, Protocol

from pyte.screens import wcwidth  # the emulator's width function, so cells line up with its columns


class Line(NamedTuple):
    """One row of text (trailing blanks may be trimmed) and whether it continues on the next row
    (the program's text was wrapped there by the terminal, not ended by a newline)."""

    text: str
    wrapped: bool = False


class Cell(NamedTuple):
    """One character as the screen shows it: at column `x`, `width` columns wide (1, or 2 for a
    wide character), made of `text[start:end]` (a base and any combining marks after it)."""

    x: int
    width: int
    start: int
    end: int


class Unavailable(Exception):
    """The source does not hold lines `start` <= i < `stop` yet: fetch them, then feed again."""

    def __init__(self, start: int, stop: int) -> None:
        super().__init__(f"lines {start}..{stop - 1} are not available yet")
        self.start = start
        self.stop = stop


class LineSource(Protocol):
    """History and screen, read by index. Indices stay valid while a copy mode uses the source
    (a source over a live session pins the numbering it opened with)."""

    @property
    def first(self) -> int:
        """The oldest line: minus the number of history lines."""
        ...

    @property
    def last(self) -> int:
        """The bottom row of the screen."""
        ...

    @property
    def width(self) -> int:
        """Columns of the screen (a wrapped line filled them all)."""
        ...

    def lines(self, start: int, stop: int) -> Sequence[Line]:
        """Lines `start` <= i < `stop`, with first <= start < stop <= last + 1; or raise Unavailable."""
        ...


class ListSource:
    """A source over lines held in memory (tests, and callers that have them already). It counts
    what it hands out, so a test can prove what the model read."""

    def __init__(self, history: Sequence[Line | str], screen: Sequence[Line | str], width: int = 80) -> None:
        self._lines = [line if isinstance(line, Line) else Line(line) for line in (*history, *screen)]
        self._history = len(history)
        self._width = width
        self.reads = 0  # lines handed out
        self.calls = 0  # calls to lines()

    @property
    def first(self) -> int:
        return -self._history

    @property
    def last(self) -> int:
        return len(self._lines) - self._history - 1

    @property
    def width(self) -> int:
        return self._width

    def lines(self, start: int, stop: int) -> Sequence[Line]:
        if not self.first <= start < stop <= self.last + 1:
            raise IndexError(f"lines {start}..{stop - 1} are outside {self.first}..{self.last}")
        self.calls += 1
        self.reads += stop - start
        return self._lines[start + self._history : stop + self._history]


def cells(text: str) -> list[Cell]:
    """The cells of a line's text, as the emulator lays them out: a wide character takes two
    columns, a zero-width character (a combining mark, a variation selector, ZWJ) joins the cell
    before it (or starts one at the start of a line)."""
    if text.isascii():
        return [Cell(i, 1, i, i + 1) for i in range(len(text))]
    out: list[Cell] = []
    x = 0
    for i, char in enumerate(text):
        width = wcwidth(char)
        if width == 0 and out:
            last = out[-1]
            out[-1] = last._replace(end=i + 1)
            continue
        width = 2 if width == 2 else 1
        out.append(Cell(x, width, i, i + 1))
        x += width
    return out


def columns(text: str) -> int:
    """How many columns the text takes."""
    if text.isascii():
        return len(text)
    laid = cells(text)
    return laid[-1].x + laid[-1].width if laid else 0


def cell_at(laid: Sequence[Cell], x: int) -> int:
    """The index of the cell covering column `x` (the last cell when `x` is past the text; -1 for
    an empty line)."""
    return max(0, bisect_right(laid, x, key=_column_of) - 1) if laid else -1


def cell_of_char(laid: Sequence[Cell], offset: int) -> int:
    """The index of the cell holding the character at `offset` of the line's text."""
    return bisect_right(laid, offset, key=_start_of) - 1


_column_of = attrgetter("x")
_start_of = attrgetter("start")
