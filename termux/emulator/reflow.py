"""Reflow: soft-wrapped lines cut anew at another width, as tmux's grid_reflow does with its grid.

A row here is its runs (`Line`, as the scrollback reads them) and its wrap: 0 when a line ends on
it, else the number of columns it spans, because autowrap carried its text on to the next row. The
rows a line was wrapped into are joined (a wrapped row is padded with blanks to the columns it
spans: its trailing blanks are part of the text, though rows keep no trailing blanks) and cut at the
new width: a wide character that does not fit in the last column goes to the next row, as drawing it
would have; a zero-width character stays with the cell before it; styles are kept.

Pure functions of runs: the Screen (the visible rows) and the Scrollback (history, in bounded steps)
both use them. The cost is linear in the text of the lines re-cut; a row that ends a line and fits
the new width is kept as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from operator import itemgetter
from typing import Any

from pyte.screens import wcwidth

# As the scrollback's (history.py, which uses this module): a run is (text, style), a line its runs.
Style = Any
Line = tuple[tuple[str, Style], ...]
Row = tuple[Line, int]  # a row's runs and its wrap (0: a line ends here; else the columns it spans)

_style_of = itemgetter(1)


def text_width(text: str) -> int:
    """The columns `text` takes as cells: a wide character two, a zero-width character none."""
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        w = wcwidth(char)
        if w > 0:
            width += 2 if w > 1 else 1
    return width


def line_width(line: Line) -> int:
    return sum(text_width(text) for text, _ in line)


def join(rows: Sequence[Row], blank: Style) -> Line:
    """The rows of one line as one line of runs: each wrapped row padded with blanks in the style
    `blank` to the columns it spans, neighbouring runs of one style merged."""
    pieces: list[tuple[str, Style]] = []
    for line, wrap in rows:
        pieces.extend(line)
        if wrap:
            missing = wrap - line_width(line)
            if missing > 0:
                pieces.append((" " * missing, blank))
    if len(pieces) <= 1:
        return tuple(pieces)
    return tuple(("".join(map(itemgetter(0), group)), style) for style, group in groupby(pieces, _style_of))


def cut_points(text: str, width: int) -> tuple[list[int], list[int]]:
    """Where `text` is cut into rows of `width` columns: the index in `text` each row after the
    first starts at, and the columns each row but the last spans."""
    starts: list[int]
    if text.isascii():
        starts = list(range(width, len(text), width))
        return starts, [width] * len(starts)
    starts = []
    spans: list[int] = []
    column = 0
    for i, char in enumerate(text):
        w = wcwidth(char)
        if w <= 0:
            if i:
                continue  # joins the cell before it
            w = 1  # nothing to join at the very start: a cell of its own
        elif w > 1:
            w = 2 if width > 1 else 1  # a one-column screen shows a wide character in one column
        if column + w > width and column:
            starts.append(i)
            spans.append(column)
            column = 0
        column += w
    return starts, spans


def _cut(line: Line, starts: list[int]) -> list[Line]:
    """`line` cut at the text indices `starts` (ascending, inside the text)."""
    out: list[Line] = []
    row: list[tuple[str, Style]] = []
    at = 0  # the index of the next run's first character
    bounds = iter(starts)
    bound = next(bounds, -1)
    for text, style in line:
        end = at + len(text)
        while bound >= 0 and bound < end:
            if bound > at:
                row.append((text[: bound - at], style))
                text = text[bound - at :]
                at = bound
            out.append(tuple(row))
            row = []
            bound = next(bounds, -1)
        if text:
            row.append((text, style))
        at = end
    out.append(tuple(row))
    return out


def _runs_of(stored: Any, plain: Style) -> tuple[str, list[Style], list[int]] | None:
    """A stored line's text, its runs' styles and where each ends; None if it is not ASCII."""
    if stored.__class__ is str:
        return (stored, [plain], [len(stored)]) if stored.isascii() else None
    text: str = stored[0]
    if not text.isascii():
        return None
    return text, list(stored[1::2]), [*stored[2::2], len(text)]


def _stored_of(text: str, styles: list[Style], ends: list[int], plain: Style) -> Any:
    """The stored form of runs (the inverse of `_runs_of`)."""
    if not text:
        return ""
    if len(styles) == 1:
        return text if styles[0] == plain else (text, styles[0])
    out: list[Any] = [text, styles[0]]
    for i in range(1, len(styles)):
        out.append(ends[i - 1])  # where the run before ends
        out.append(styles[i])
    return tuple(out)


def join_stored(rows: Sequence[tuple[Any, int]], plain: Style) -> Any:
    """`join` for rows in the scrollback's stored form (see history.py), without unpacking them;
    None unless all are ASCII. `plain` is the style of a plain string's text and of the blanks."""
    if all(stored.__class__ is str for stored, _ in rows):  # plain text: the common case
        text = "".join([stored.ljust(wrap) for stored, wrap in rows])
        return text.rstrip(" ") if text.isascii() else None
    texts: list[str] = []
    styles: list[Style] = []
    ends: list[int] = []
    at = 0
    for stored, wrap in rows:
        runs = _runs_of(stored, plain)
        if runs is None:
            return None
        text, row_styles, row_ends = runs
        if len(text) < wrap:  # the blanks the row does not keep
            text += " " * (wrap - len(text))
            row_styles.append(plain)
            row_ends.append(len(text))
        texts.append(text)
        for style, end in zip(row_styles, row_ends, strict=True):
            if end == 0:
                continue  # (an empty row)
            if styles and styles[-1] == style:
                ends[-1] = at + end
            else:
                styles.append(style)
                ends.append(at + end)
        at += len(text)
    text = "".join(texts)
    if styles and styles[-1] == plain:  # the line's own trailing blanks go (as `trim`)
        stripped = len(text.rstrip(" "))
        while len(ends) > 1 and styles[-1] == plain and ends[-2] >= stripped:
            ends.pop()
            styles.pop()
        text = text[: ends[-1]]
        if styles[-1] == plain:
            text = text.rstrip(" ")
            ends[-1] = len(text)
    return _stored_of(text, styles, ends, plain)


def cut_stored(stored: Any, width: int, plain: Style) -> list[Any] | None:
    """A line in the scrollback's stored form cut into rows of `width` columns in that form,
    without unpacking it: the rows but the last span `width`. None unless it is ASCII."""
    runs = _runs_of(stored, plain)
    if runs is None:
        return None
    text, styles, ends = runs
    out: list[Any] = []
    run = 0  # the run the row starts in
    for a in range(0, len(text), width):
        b = min(a + width, len(text))
        while ends[run] <= a:
            run += 1
        last = run
        while ends[last] < b:
            last += 1
        out.append(_stored_of(text[a:b], styles[run : last + 1], [end - a for end in ends[run:last]], plain))
    return out or [""]


def trim(line: Line, blank: Style) -> Line:
    """`line` without its trailing blanks in the style `blank` (what a row does not keep)."""
    if not line or line[-1][1] != blank or not line[-1][0].endswith(" "):
        return line
    runs = list(line)
    while runs and runs[-1][1] == blank:
        text = runs[-1][0].rstrip(" ")
        if text:
            runs[-1] = (text, blank)
            break
        runs.pop()
    return tuple(runs)


def split(line: Line, width: int, blank: Style) -> list[Row]:
    """One line as rows of at most `width` columns: each but the last wrapped, with the columns it
    spans (its runs keep their trailing blanks: the text goes on after them); the line's own
    trailing blanks in `blank` are dropped (a row keeps none)."""
    line = trim(line, blank)
    text = "".join([t for t, _ in line])
    starts, spans = cut_points(text, width)
    if not starts:
        return [(line, 0)]
    rows = _cut(line, starts)
    out: list[Row] = list(zip(rows, spans, strict=False))
    out.append((rows[-1], 0))
    return out


def rewrap(rows: Sequence[Row], width: int, blank: Style) -> list[Row]:
    """The rows of one line (all but the last wrapped) cut anew at `width`; `blank` is the style of
    the blanks a row does not keep (the default cell's)."""
    if len(rows) == 1 and not rows[0][1]:
        if line_width(rows[0][0]) <= width:
            return [rows[0]]  # a line on one row that fits: as it is
        return split(rows[0][0], width, blank)
    return split(join(rows, blank), width, blank)


def offset_of(rows: Sequence[Row], y: int, x: int) -> int:
    """The cell offset in the joined line of column x on row y of `rows`."""
    return sum(max(wrap, line_width(line)) for line, wrap in rows[:y]) + x


def position_of(rows: Sequence[Row], offset: int) -> tuple[int, int]:
    """(y, x) in `rows` (one line, as `split` made it) of the cell at `offset` of the joined line.
    Past the end of the line: on its last row (x may then reach past the width; the caller clamps)."""
    start = 0
    last = len(rows) - 1
    for y, (_, wrap) in enumerate(rows):
        if y == last or offset < start + wrap:
            return y, offset - start
        start += wrap
    return last, offset - start  # (rows is never empty)


__all__ = [
    "Row",
    "cut_points",
    "cut_stored",
    "join",
    "join_stored",
    "line_width",
    "offset_of",
    "position_of",
    "rewrap",
    "split",
    "text_width",
    "trim",
]
