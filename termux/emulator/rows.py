"""The fast Screen's cell store: rows kept as text and style runs until something reads them as cells.

pyte keeps a screen as a dict of rows, each a dict of cells, and a row leaving the screen for the
scrollback had to be turned back into runs of text, cell by cell. Here most rows never become cells:

- `Packed` is a row drawn with single-width characters over one stretch of columns: its text in runs,
  each with the cell cache (`Cells`) of its attributes. Drawing on it appends or splices runs; erasing
  it writes a run of spaces. A row goes into the scrollback straight from its runs.
- `Buffer` is the `buffer` the Screen API shows: pyte's mapping `y -> row` (a `defaultdict` of
  `StaticDefaultDict` rows) over a list. Reading a row through it (`buffer[y]`, `get`, `values`, …)
  turns a packed row into pyte's cells for good, exactly the cells drawing would have made, so that
  pyte's own methods and every reader see what they always saw. The fast paths work on `rows` (the
  list: None for a row pyte would not have, a `Packed`, or a cell dict), scrolling is a list shift.

Which rows exist matters to pyte's methods (`delete_lines` moves only rows that exist), so the fast
paths create and drop rows exactly where pyte's would: a row that pyte has but that holds nothing is an
empty `Packed`, a row it has not is None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import accumulate
from operator import attrgetter, eq
from typing import Any

from pyte.screens import StaticDefaultDict

from .history import DEFAULT_STYLE, EMPTY_LINE, Line, Stored, compact_line, intern_style, unpack_line


class Cells(dict[str, Any]):
    """char -> cell with fixed attributes, made on first use (the very cell draw() would make)."""

    __slots__ = ("attrs", "blank", "plain", "style")

    def __init__(self, attrs: Any) -> None:
        self.attrs = attrs
        self.style = intern_style(attrs)  # the scrollback style of every cell in here
        self.blank = self[" "]
        self.plain = getattr(attrs, "ext", None) is None  # no extras: a blank may equal a default cell

    def __missing__(self, char: str) -> Any:
        cell = self.attrs._replace(data=char)
        self[char] = cell
        return cell


class Packed:
    """A row whose cells from `start` to `end` (exclusive) are single-width characters in runs:
    `texts[i]` drawn with `cells[i]`. Columns outside hold nothing (the row's `default`). `wrapped`:
    autowrap carried its text on to the next row (as `row.wrapped` on a row of cells)."""

    __slots__ = ("cells", "default", "end", "start", "texts", "wrapped")

    cells: list[Cells]
    texts: list[str]

    def __init__(self, default: Any, start: int = 0, text: str = "", cells: Cells | None = None) -> None:
        self.default = default
        self.wrapped = False  # its text goes on on the next row (autowrap)
        self.start = start
        self.end = start + len(text)
        if text and cells is not None:
            self.texts = [text]
            self.cells = [cells]
        else:
            self.texts = []
            self.cells = []

    @classmethod
    def of_runs(cls, default: Any, texts: list[str], cells: list[Cells], length: int) -> Packed:
        """A row of these runs from column 0 to `length` (the lists are the row's own from now on)."""
        row = object.__new__(cls)  # (not __init__: this is how frames and snapshots build most rows)
        row.default = default
        row.wrapped = False
        row.start = 0
        row.end = length
        row.texts = texts
        row.cells = cells
        return row

    def write(self, x: int, text: str, cells: Cells) -> bool:
        """Draw `text` (single-width characters, not empty) at column x; False when that would leave
        a gap of unwritten columns inside the row (the caller then makes it cells)."""
        start = self.start
        end = self.end
        if x == end and end != start:  # the common case: text goes on where the row ends
            self.texts.append(text)
            self.cells.append(cells)
            self.end = end + len(text)
            return True
        new_end = x + len(text)
        if start == end or (x <= start and new_end >= end):  # nothing kept of what the row held
            self.start, self.end, self.texts, self.cells = x, new_end, [text], [cells]
            return True
        if new_end < start or x > end:
            return False
        self._splice(x, new_end, text, cells)
        return True

    def _splice(self, a: int, b: int, text: str, cells: Cells) -> None:
        """Replace columns [a, b) with `text`; the row then spans the union of both stretches."""
        texts = self.texts
        runs = self.cells
        n = len(texts)
        new_t: list[str] = []
        new_c: list[Cells] = []
        x = self.start
        i = 0
        while i < n:  # the runs before a (the one across a cut there)
            t = texts[i]
            e = x + len(t)
            if e > a:
                if x < a:
                    new_t.append(t[: a - x])
                    new_c.append(runs[i])
                break
            new_t.append(t)
            new_c.append(runs[i])
            x = e
            i += 1
        new_t.append(text)
        new_c.append(cells)
        while i < n:  # the runs after b (the one across b cut there)
            t = texts[i]
            e = x + len(t)
            if e > b:
                new_t.append(t[b - x :] if x < b else t)
                new_c.append(runs[i])
                new_t.extend(texts[i + 1 :])
                new_c.extend(runs[i + 1 :])
                break
            x = e
            i += 1
        self.texts = new_t
        self.cells = new_c
        if a < self.start:
            self.start = a
        if b > self.end:
            self.end = b

    def fill(self, cells: Cells) -> None:
        """Every cell this row holds becomes a blank in `cells`' attributes (what ED does)."""
        if self.end > self.start:
            self.texts = [" " * (self.end - self.start)]
            self.cells = [cells]

    def materialize(self) -> StaticDefaultDict[int, Any]:
        """The row as pyte's cells: what drawing the same text would have made."""
        row: StaticDefaultDict[int, Any] = StaticDefaultDict(self.default)
        x = self.start
        for t, c in zip(self.texts, self.cells, strict=True):
            n = len(t)
            row.update(zip(range(x, x + n), map(c.__getitem__, t), strict=True))
            x += n
        if self.wrapped:
            row.wrapped = True  # type: ignore[attr-defined]
        return row

    def is_blank(self) -> bool:
        return self.start == self.end

    def text(self) -> str:
        """The characters of the row up to its end, a space for each column it does not hold."""
        return " " * self.start + "".join(self.texts)

    def stored(self, default: Any) -> Stored:
        """The row's scrollback line (as `compact_line` of its cells makes it, in its stored form)."""
        return stored_runs(self.texts, self.cells, default, self.start)

    def __repr__(self) -> str:
        return f"Packed({self.start}, {self.end}, {self.texts!r})"


_style_of = attrgetter("style")


def stored_runs(texts: list[str], cells: list[Cells], default: Any, start: int = 0) -> Stored:
    """A row of runs from column `start` (before it: default cells) as its scrollback line, as
    `compact_line` of its cells makes it, in its stored form: trailing cells equal to `default`
    dropped, neighbouring runs of one style merged."""
    k = len(texts)
    last = ""
    while k:
        run = cells[k - 1]
        last = texts[k - 1]
        if not run.plain or run.blank != default:
            break
        last = last.rstrip(" ")
        if last:
            break
        k -= 1
    if not k:
        return ""
    if k == 1 and not start:
        style = cells[0].style
        return last if style == DEFAULT_STYLE else (last, style)
    parts = texts[:k]
    parts[-1] = last
    styles = list(map(_style_of, cells[:k]))
    if start:  # the columns before the row's stretch are default cells
        parts.insert(0, " " * start)
        styles.insert(0, intern_style(default))
    if any(map(eq, styles, styles[1:])):  # neighbours of one style become one run
        merged_parts = [parts[0]]
        merged_styles = [styles[0]]
        for part, style in zip(parts[1:], styles[1:], strict=True):
            if style == merged_styles[-1]:
                merged_parts[-1] += part
            else:
                merged_parts.append(part)
                merged_styles.append(style)
        parts, styles = merged_parts, merged_styles
        if len(parts) == 1:
            return parts[0] if styles[0] == DEFAULT_STYLE else (parts[0], styles[0])
    out: list[Any] = [None] * (2 * len(parts))
    out[0] = "".join(parts)
    out[1::2] = styles
    out[2::2] = list(accumulate(map(len, parts[:-1])))
    return tuple(out)


class Deferred:
    """Rows not built yet: rows `first`.. of a buffer are the `lines` (text and SGR, one row each,
    none wider than the screen) drawn from attributes `attrs`, as `build(self)` makes them. Set by
    the styled-lines path for the rows it leaves on the screen, so that rows that later scroll
    away are never built (they go to the scrollback as they came)."""

    __slots__ = ("attrs", "build", "default", "first", "leave", "lines", "reverse")

    def __init__(
        self,
        first: int,
        lines: list[str],
        attrs: Any,
        reverse: bool,
        default: Any,
        build: Callable[[Deferred], list[Any]],
        leave: Callable[[Deferred, int, bool], list[Any]],
    ) -> None:
        self.first = first
        self.lines = lines
        self.attrs = attrs
        self.reverse = reverse  # DECSCNM when they were drawn
        self.default = default  # the default cell then
        self.build = build
        # The first `count` rows scroll out of the region: `leave(self, count, keep)` drops them
        # from these (the rest start from the attributes after them), returning their scrollback
        # lines as they came (when `keep`, else none).
        self.leave = leave

    @property
    def end(self) -> int:
        return self.first + len(self.lines)


class Buffer:
    """pyte's `screen.buffer` (y -> row, a missing row is made on `buffer[y]`), over `rows`.

    Reading a row through this mapping turns a packed row into cells (once). `peek` and `view` read
    without doing so. Keys are the row numbers 0 <= y; the list grows if a key past it is written.

    Some rows may wait to be built (`deferred`, stretches of rows in order, apart): reading `rows`
    builds them all first, so every reader and writer sees them built, and `row_list(y)` builds
    the one holding row y; only the fast Screen's scrolls look past them (`_rows`), moving them
    with the region or into the scrollback as they came.
    """

    __slots__ = ("_rows", "deferred", "screen")

    def __init__(self, screen: Any, lines: int) -> None:
        self.screen = screen  # for its current default cell, which new rows start from
        self._rows: list[Any] = [None] * lines
        self.deferred: list[Deferred] = []

    @property
    def rows(self) -> list[Any]:
        if self.deferred:
            self.settle()
        return self._rows

    def row_list(self, y: int) -> list[Any]:
        """`rows`, for a caller that reads or writes row y only: deferred rows elsewhere stay so."""
        for deferred in self.deferred:
            if deferred.first <= y < deferred.end:
                self.settle(deferred)
                break
        return self._rows

    def settle(self, deferred: Deferred | None = None) -> None:
        """Build the deferred rows (those of `deferred` only, if given)."""
        for each in [deferred] if deferred is not None else list(self.deferred):
            self.deferred.remove(each)
            self._rows[each.first : each.end] = each.build(each)

    def fit(self, lines: int) -> None:
        """Exactly `lines` slots (after a resize, which dropped the rows past the end)."""
        rows = self.rows
        if len(rows) > lines:
            del rows[lines:]
        else:
            rows.extend([None] * (lines - len(rows)))

    def _slot(self, y: int) -> Any:
        if y < 0:
            raise KeyError(y)
        rows = self.row_list(y)
        if y >= len(rows):
            rows.extend([None] * (y + 1 - len(rows)))
        return rows[y]

    # -- reading without turning rows into cells (these touch row y only: other deferred rows
    # stay deferred)

    def peek(self, y: int) -> Any:
        """The row as stored: None (no row), a `Packed` or a cell dict."""
        rows = self.row_list(y)
        return rows[y] if 0 <= y < len(rows) else None

    def view(self, y: int) -> StaticDefaultDict[int, Any] | None:
        """The row as cells, without storing them: for readers that do not write."""
        row = self.peek(y)
        return row.materialize() if row.__class__ is Packed else row

    def line(self, y: int, columns: int, default: Any) -> Line:
        """Row y as scrollback runs (`compact_line` of its cells)."""
        return row_line(self.peek(y), columns, default)

    # -- the mapping pyte's code uses

    def __getitem__(self, y: int) -> StaticDefaultDict[int, Any]:
        row = self._slot(y)
        if row is None:
            row = self._rows[y] = StaticDefaultDict(self.screen.default_char)
        elif row.__class__ is Packed:
            row = self._rows[y] = row.materialize()
        return row  # type: ignore[no-any-return]

    def get(self, y: int, default: Any = None) -> Any:
        row = self.peek(y)
        if row is None:
            return default
        if row.__class__ is Packed:
            row = self._rows[y] = row.materialize()
        return row

    def __setitem__(self, y: int, row: Any) -> None:
        self._slot(y)
        self._rows[y] = row

    def __delitem__(self, y: int) -> None:
        if self.peek(y) is None:
            raise KeyError(y)
        self._rows[y] = None

    def pop(self, y: int, *default: Any) -> Any:
        row = self.peek(y)
        if row is None:
            if default:
                return default[0]
            raise KeyError(y)
        self._rows[y] = None
        return row.materialize() if row.__class__ is Packed else row

    def __contains__(self, y: object) -> bool:
        return isinstance(y, int) and self.peek(y) is not None

    def __iter__(self) -> Iterator[int]:
        return iter([y for y, row in enumerate(self.rows) if row is not None])

    def keys(self) -> list[int]:
        return list(self)

    def values(self) -> list[StaticDefaultDict[int, Any]]:
        return [self[y] for y in self]

    def items(self) -> list[tuple[int, StaticDefaultDict[int, Any]]]:
        return [(y, self[y]) for y in self]

    def __len__(self) -> int:
        return len(self.rows) - self.rows.count(None)

    def __bool__(self) -> bool:
        return len(self) > 0

    def clear(self) -> None:
        self.rows[:] = [None] * len(self.rows)

    def update(self, other: Any) -> None:
        for y, row in dict(other).items():
            self[y] = row

    def __repr__(self) -> str:
        return f"Buffer({len(self)}/{len(self.rows)} rows)"


def is_wrapped(row: Any) -> bool:
    """Whether a stored row (None, `Packed`, cell dict) is soft-wrapped."""
    return row is not None and getattr(row, "wrapped", False) is True


def wrap_extent(row: Any) -> int:
    """A stored row's wrap, as the scrollback keeps it: 0 unless it is soft-wrapped, else the
    columns it spans (up to its last written cell: trailing blanks a program wrote are text that
    goes on on the next row, though the scrollback keeps no trailing blanks)."""
    if row is None or getattr(row, "wrapped", False) is not True:
        return 0
    if row.__class__ is Packed:
        return row.end or 1  # type: ignore[no-any-return]
    return max(row, default=0) + 1  # type: ignore[no-any-return]


def row_line(row: Any, columns: int, default: Any) -> Line:
    """Any stored row (None, `Packed`, cell dict) as scrollback runs."""
    if row is None:
        return EMPTY_LINE
    if row.__class__ is Packed:
        return unpack_line(row.stored(default))
    return compact_line(row, columns, default)


__all__ = ["Buffer", "Cells", "Packed", "is_wrapped", "row_line", "stored_runs", "wrap_extent"]
