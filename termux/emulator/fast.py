"""Fast paths: termux's Screen, ByteStream and Stream, with results identical to the reference classes.

The reference classes are `termux.emulator.screen.Screen` and `termux.emulator.stream.Stream` /
`ByteStream` (pyte 0.8.2 plus scrollback and xterm fidelity). The classes here subclass them and only
make the hot paths faster; `tests/emulator/test_differential.py` feeds the same chunked bytes to both
(and to stock pyte) and compares every cell, the cursor, the modes, the margins and the scrollback.

Where the time goes in stock pyte (cProfile over `benchmarks/emulator.py`): `Screen.draw` makes a
namedtuple per character (`attrs._replace(data=char)`) in a Python loop; `Screen.index` (every line
feed at the bottom) moves every row of the scroll region in a Python loop; the parser handles every
control character and escape byte separately. And in a scrollback, each line leaving the screen is
converted cell by cell.

What this module does about it:

- The cell store (`rows.py`): a row drawn with single-width text stays text and style runs
  (`Packed`), and becomes pyte's cells only when something reads it through `screen.buffer`. Drawing
  appends a run, erasing writes one, a line feed shifts a list, and a row leaving the screen goes into
  the scrollback straight from its runs.
- `Screen.draw`: a run of printable ASCII is written one row segment at a time, each segment one run
  (or, on a row already made of cells, `dict.update(zip(range, map(cells, text)))` from a cache of cell
  objects per (attributes, character); cells are immutable tuples, so sharing them is invisible).
- `Screen.draw_lines` (called by the stream for two or more CR LF-ended lines of printable ASCII): once
  the cursor sits at the start of a blank bottom row, each line becomes rows and the region is shifted
  once per block; rows that scroll past unseen are only built when the scrollback keeps them, and then
  straight into its stored form.
- `Stream._run`: one regular expression recognises text runs, CR LF, C0 controls, plain CSI sequences
  (`ESC [ [?] digits;... final`) and ESC finals, and calls the handlers the reference parser would
  call, with the same arguments. Everything else goes through the reference parser.

One deliberate difference, invisible unless a screen method raises (they do not: the reference Screen
never raises): after an exception inside a batched block, parsing resumes after the block rather than
after the line that raised.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import compress, repeat
from operator import attrgetter, itemgetter, ne
from typing import Any

import pyte
from pyte import charsets as cs
from pyte import modes as mo
from pyte.screens import Margins, wcwidth

from .dirty import MovedLines
from .history import DEFAULT_STYLE, Stored, compact_line, intern_style, pack_line
from .rows import Buffer, Cells, Deferred, Packed, row_line, stored_runs, wrap_extent
from .screen import Char, Ext, _style_attrs
from .screen import Screen as _ReferenceScreen
from .stream import ByteStream as _ReferenceByteStream
from .stream import Stream as _ReferenceStream

_LAT1 = cs.LAT1_MAP

# Cell caches are bounded (a program cycling through 24-bit colours would otherwise grow them).
_CELL_CACHE_LIMIT = 512

DECAWM = mo.DECAWM
IRM = mo.IRM

_data = itemgetter(0)
_style = itemgetter(slice(1, None))
_ext = attrgetter("ext")  # termux cells: None, or a non-empty (truthy) Ext


class FastScreenBase(pyte.Screen):
    """pyte.Screen's own methods, faster (identical results); sits below the reference Screen."""

    def cursor_position(self, line: int | None = None, column: int | None = None) -> None:
        column = (column or 1) - 1
        line = (line or 1) - 1
        margins = self.margins
        decom = mo.DECOM in self.mode
        if margins is not None and decom:
            line += margins.top
            # Cursor is not allowed to move out of the scrolling region.
            if not margins.top <= line <= margins.bottom:
                return
        cursor = self.cursor
        # pyte: ensure_hbounds() then ensure_vbounds()
        last = self.columns - 1
        cursor.x = 0 if column < 0 else last if column > last else column
        if decom and margins is not None:
            top, bottom = margins
        else:
            top, bottom = 0, self.lines - 1
        cursor.y = top if line < top else bottom if line > bottom else line

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        cursor = self.cursor
        self.dirty.add(cursor.y)
        if how == 0:
            interval = range(cursor.x, self.columns)
        elif how == 1:
            interval = range(cursor.x + 1)
        elif how == 2:
            interval = range(self.columns)
        else:
            super().erase_in_line(how, private)  # pyte raises here; keep that
            return
        self.buffer[cursor.y].update(dict.fromkeys(interval, cursor.attrs))


class FastScreenMixin(_ReferenceScreen):
    """The cell store, batching and caching on top of the reference Screen."""

    buffer: Buffer  # type: ignore[assignment]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # id(attrs) -> (attrs, cells); holding attrs keeps its id from being reused.
        self._cell_caches: dict[int, tuple[Any, Cells]] = {}
        self._cells_by_value: dict[tuple[Any, Any], Cells] = {}
        super().__init__(*args, **kwargs)
        self.buffer = Buffer(self, self.lines)

    def _new_buffer(self) -> Buffer:  # type: ignore[override]
        return Buffer(self, self.lines)

    def _cells(self, attrs: Any) -> Cells:
        entry = self._cell_caches.get(id(attrs))
        if entry is not None and entry[0] is attrs:
            return entry[1]
        # Equal attributes made by another SGR share one cache; `ext` takes no part in tuple
        # equality, hence the key's second half.
        key = (attrs, getattr(attrs, "ext", None))
        cells = self._cells_by_value.get(key)
        if cells is None:
            if len(self._cells_by_value) >= _CELL_CACHE_LIMIT:
                self._cells_by_value.clear()
            cells = self._cells_by_value[key] = Cells(attrs)
        if len(self._cell_caches) >= _CELL_CACHE_LIMIT:
            self._cell_caches.clear()
        self._cell_caches[id(attrs)] = (attrs, cells)
        return cells

    def _fill_rows(self, rows: list[Any], a: int, b: int) -> None:
        """Rows a..b-1 that do not exist become empty ones: pyte's scrolls read (and so make) every
        row they move."""
        if None in rows[a:b]:
            default = self.default_char
            for y in range(a, b):
                if rows[y] is None:
                    rows[y] = Packed(default)

    def _mark_scrolled(self, top: int, bottom: int, count: int, first_new: int) -> None:
        """Region [top, bottom] scrolled up `count` lines, new content from line `first_new` to its
        bottom: every line is dirty (as the reference marks it); a screen whose dirty set follows
        scrolls (`MovedLines`, the TUI's) is told the whole screen moved, when it did."""
        dirty = self.dirty
        if dirty.__class__ is MovedLines and top == 0 and bottom == self.lines - 1:
            dirty.scrolled(count, first_new, self.lines)
        else:
            dirty.update(range(self.lines))

    # ------------------------------------------------------------------ text

    def _put(self, y: int, x: int, text: str, cells: Cells) -> None:
        """Write `text` (printable ASCII, fitting in the row) at (x, y) in `cells`' attributes."""
        rows = self.buffer.row_list(y)
        row = rows[y]
        if row is None:
            rows[y] = Packed(self.default_char, x, text, cells)
            return
        if row.__class__ is Packed:
            if row.write(x, text, cells):
                return
            row = rows[y] = row.materialize()
        # A row of cells. Keep wide characters whole: blank the half not overwritten (as the
        # reference draw; get() because a missing cell is the line's default, never a stub).
        end = x + len(text)
        if x:
            cell = row.get(x)
            if cell is not None and cell.data == "":
                row[x - 1] = row[x - 1]._replace(data=" ")
        if end < self.columns:
            cell = row.get(end)
            if cell is not None and cell.data == "":
                row[end] = cell._replace(data=" ")
        row.update(zip(range(x, end), map(cells.__getitem__, text), strict=True))

    def draw(self, data: str) -> None:
        cursor = self.cursor
        columns = self.columns
        x = cursor.x
        n = len(data)
        if (
            self.charset
            or self.g0_charset is not _LAT1
            or x > columns
            or IRM in self.mode
            or not data.isprintable()
            or not (data.isascii() or _one_cell_each(data))
        ):
            super().draw(data)
            return
        attrs = cursor.attrs
        entry = self._cell_caches.get(id(attrs))
        cells = entry[1] if entry is not None and entry[0] is attrs else self._cells(attrs)
        y = cursor.y
        if n and x + n <= columns:  # the common case: it fits on the cursor's row
            self._put(y, x, data, cells)
            cursor.x = x + n
            self._last_char = data[-1]  # for REP (CSI b), as the reference draw
            self.dirty.add(y)
            return
        # The reference draw, one row segment at a time (every character is one cell wide).
        i = 0
        while i < n:
            if x >= columns:
                if DECAWM in self.mode:
                    self.dirty.add(y)
                    self._mark_wrapped(y)
                    cursor.x = 0
                    self.index()
                    x, y = 0, cursor.y
                else:
                    # No autowrap: each further character lands in the last column.
                    self._put(y, columns - 1, data[n - 1], cells)
                    x = columns
                    break
            k = columns - x
            if k > n - i:
                k = n - i
            self._put(y, x, data[i : i + k], cells)
            x += k
            i += k
        cursor.x = x
        if n:
            self._last_char = data[-1]
        self.dirty.add(y)

    # ------------------------------------------------------------------ erasing

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        cursor = self.cursor
        x = cursor.x
        y = cursor.y
        columns = self.columns
        rows = self.buffer.rows
        row = rows[y]
        attrs = cursor.attrs
        if how in (0, 1, 2) and (row is None or row.__class__ is Packed) and attrs.data == " ":
            a, b = (x, columns) if how == 0 else (0, x + 1) if how == 1 else (0, columns)
            if b <= columns:  # (EL 1 in the pending-wrap column writes one past the edge: cells)
                # A row of runs holds no wide characters: nothing for _fix_wide to mend.
                self.dirty.add(y)
                if a >= b:
                    if row is None:
                        rows[y] = Packed(self.default_char)
                    else:
                        row.wrapped = False
                    return
                blanks = " " * (b - a)
                cells = self._cells(attrs)
                if row is None:
                    rows[y] = Packed(self.default_char, a, blanks, cells)
                    return
                if row.write(a, blanks, cells):
                    if how != 1:  # the row's end is erased: it no longer goes on on the next row
                        row.wrapped = False
                    return
        if how != 0:
            super().erase_in_line(how, private)
            return
        # EL 0 on a row of cells: the reference's three layers in one.
        self.dirty.add(y)
        line = self.buffer[y]
        line.update(dict.fromkeys(range(x, columns), attrs))
        if getattr(line, "wrapped", False):
            line.wrapped = False  # type: ignore[attr-defined]
        if x:
            # _fix_wide(y, x - 1) only ever changes a stub or a wide character: never ASCII.
            cell = line.get(x - 1)
            if cell is not None and not (cell.data.isascii() and cell.data):
                self._fix_wide(y, x - 1)

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        attrs = self.cursor.attrs
        if how not in (0, 1, 2) or attrs.data != " ":
            super().erase_in_display(how, *args, **kwargs)
            return
        # pyte's: every cell each row holds takes the cursor's attributes (missing rows are made).
        y = self.cursor.y
        interval = range(y + 1, self.lines) if how == 0 else range(y) if how == 1 else range(self.lines)
        self.dirty.update(interval)
        rows = self.buffer.rows
        cells = self._cells(attrs)
        default = self.default_char
        for y in interval:
            row = rows[y]
            if row is None:
                rows[y] = Packed(default)
                continue
            if row.__class__ is Packed:
                row.fill(cells)
            else:
                row.update(dict.fromkeys(row, attrs))
            row.wrapped = False
        if how != 2:
            self.erase_in_line(how)

    def _mark_wrapped(self, y: int, wrapped: bool = True) -> None:
        row = self.buffer.rows[y]
        if row is not None:
            row.wrapped = wrapped

    def _fix_wide(self, y: int, *columns: int) -> None:
        row = self.buffer.peek(y)
        if row is not None and row.__class__ is not Packed:  # runs hold no wide characters
            super()._fix_wide(y, *columns)

    # ------------------------------------------------------------------ scrolling

    def index(self) -> None:
        lines = self.lines
        margins = self.margins
        top, bottom = (0, lines - 1) if margins is None else margins
        if self.cursor.y != bottom:
            self.cursor_down()
            return
        # As the reference: only a full-screen scroll of the main screen feeds the scrollback.
        feeds = top == 0 and bottom == lines - 1 and self._main_buffer is None and self.history.maxlen > 0
        shifted = self._shift_deferred(top, bottom, 1, feeds) if self.buffer.deferred else None
        rows = self.buffer._rows
        if feeds:
            if shifted:  # the top row was deferred: it leaves as it came
                self.history.extend_stored(shifted[0][2])
            else:
                row = rows[0]
                if row.__class__ is Packed:
                    self.history.append_stored(row.stored(self.default_char), (row.end or 1) if row.wrapped else 0)
                else:
                    self._scroll_into_history(row)
        self._mark_scrolled(top, bottom, 1, bottom)
        if bottom > top:
            # pyte: for y in range(top, bottom): buffer[y] = buffer[y + 1]; buffer.pop(bottom)
            del rows[top]
            rows.insert(bottom, None)
            self._fill_rows(rows, top, bottom)
        else:
            rows[bottom] = None

    def reverse_index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if self.cursor.y != top:
            self.cursor_up()
            return
        self.dirty.update(range(self.lines))
        rows = self.buffer.rows
        if bottom > top:
            # pyte: for y in range(bottom, top, -1): buffer[y] = buffer[y - 1]; buffer.pop(top)
            del rows[bottom]
            rows.insert(top, None)
            self._fill_rows(rows, top + 1, bottom + 1)
        else:
            rows[top] = None

    def scroll_up(self, count: int | None = None) -> None:
        """SU: as `count` line feeds at the bottom of the region (the reference's loop), in one shift."""
        top, bottom = self.margins or Margins(0, self.lines - 1)
        k = min(count or 1, bottom - top + 1)
        rows = self.buffer.rows
        if top == 0 and bottom == self.lines - 1 and self._main_buffer is None and self.history.maxlen:
            for row in rows[:k]:
                self._scroll_into_history(row)  # (each carries its own soft-wrap)
        self._mark_scrolled(top, bottom, k, bottom + 1 - k)
        rows[top : bottom + 1] = [*rows[top + k : bottom + 1], *[None] * k]
        self._fill_rows(rows, top, bottom)

    def scroll_down(self, count: int | None = None) -> None:
        """SD: as `count` reverse index at the top of the region, in one shift."""
        top, bottom = self.margins or Margins(0, self.lines - 1)
        k = min(count or 1, bottom - top + 1)
        rows = self.buffer.rows
        self.dirty.update(range(self.lines))
        rows[top : bottom + 1] = [*[None] * k, *rows[top : bottom + 1 - k]]
        self._fill_rows(rows, top + 1, bottom + 1)

    def insert_lines(self, count: int | None = None) -> None:
        """IL, pyte's loop on the stored rows (rows move as they are)."""
        region = self._line_edit_region()
        if region is not None:
            y0, bottom = region
            count = count or 1
            rows = self.buffer.rows
            for y in range(bottom, y0 - 1, -1):
                if y + count <= bottom and rows[y] is not None:
                    rows[y + count] = rows[y]
                rows[y] = None
            self.carriage_return()

    def delete_lines(self, count: int | None = None) -> None:
        """DL, pyte's loop on the stored rows. Like pyte's (the reference), a row is only replaced by
        one below it that exists: over a row pyte never made, it stays."""
        region = self._line_edit_region()
        if region is not None:
            y0, bottom = region
            count = count or 1
            rows = self.buffer.rows
            for y in range(y0, bottom + 1):
                if y + count <= bottom:
                    if rows[y + count] is not None:
                        rows[y] = rows[y + count]
                        rows[y + count] = None
                else:
                    rows[y] = None
            self.carriage_return()

    def _line_edit_region(self) -> tuple[int, int] | None:
        """For IL and DL: the cursor's row and the scroll region's bottom, with the rows from the
        cursor's down marked dirty; None (nothing to do) when the cursor is outside the region."""
        top, bottom = self.margins or Margins(0, self.lines - 1)
        y0 = self.cursor.y
        if not top <= y0 <= bottom:
            return None
        self.dirty.update(range(y0, self.lines))
        return y0, bottom

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        super().resize(lines, columns)
        for buffer in (self.buffer, self._main_buffer, self._alt_buffer):
            if isinstance(buffer, Buffer):
                buffer.fit(self.lines)

    # Reflow reads and writes rows as they are stored: a row of single-width text stays runs.

    def _row_of(self, buffer: Any, y: int, columns: int) -> tuple[Any, int]:
        row = buffer.peek(y)
        return row_line(row, columns, self.default_char), wrap_extent(row)

    def _make_row(self, line: Any, wrap: int, columns: int) -> Any:
        texts = [text for text, _ in line]
        if not "".join(texts).isascii():
            return super()._make_row(line, wrap, columns)  # wide or combining characters: cells
        if not texts and not wrap:
            return None
        cells = [self._cells(_style_attrs(style)) for _, style in line]
        length = sum(map(len, texts))
        if wrap > length:  # its trailing blanks, so that it spans its columns again
            texts.append(" " * (min(wrap, columns) - length))
            cells.append(self._cells(self.default_char))
            length = min(wrap, columns)
        row = Packed.of_runs(self.default_char, texts, cells, length)
        row.wrapped = wrap > 0
        return row

    def _store_rows(self, buffer: Any, rows: list[Any], lines: int) -> None:
        buffer.rows[:] = rows
        buffer.fit(lines)

    def _peek_row(self, y: int) -> Any:
        return self.buffer.view(y)  # (display reads rows without turning them into cells)

    # ------------------------------------------------------------------ line blocks

    def _blank_bottom(self, bottom: int) -> bool:
        row = self.buffer.row_list(bottom)[bottom]
        return row is None or (row.is_blank() if row.__class__ is Packed else not row)

    def _onto_content(self, texts: list[str], bottom: int, one_line: Callable[[str], object]) -> int:
        """Hand the first of `texts` (lines without their CR LF) to `one_line`, which applies one
        line and its CR LF, until the cursor sits at column 0 of a blank bottom row: those lines
        land on rows that already hold something (at most about one screenful of them). Returns how
        many were applied; from there on every line starts on a blank row and scrolls the region."""
        cursor = self.cursor
        applied = 0
        for text in texts:
            if cursor.y == bottom and cursor.x == 0 and self._blank_bottom(bottom):
                break
            one_line(text)
            applied += 1
        return applied

    def _draw_line(self, text: str) -> None:
        if text:
            self.draw(text)
        self.carriage_return()
        self.linefeed()

    def draw_lines(self, block: str) -> None:
        """Apply `block` (lines of printable text whose every character takes one cell, each ended
        by CR LF) exactly as the calls
        `draw(line); carriage_return(); linefeed()` per line would."""
        texts = block.split("\r\n")
        texts.pop()  # the block ends with CR LF: the last piece is empty
        cursor = self.cursor
        top, bottom = self.margins or Margins(0, self.lines - 1)
        i = self._onto_content(texts, bottom, self._draw_line)
        if i == len(texts):
            return
        if self.charset or self.g0_charset is not _LAT1 or IRM in self.mode:
            for text in texts[i:]:
                self._draw_line(text)
            return
        # From here every row starts blank at column 0 and every line feed scrolls the region:
        # collect the rows the lines make, then shift the region once by their count.
        columns = self.columns
        rows = texts[i:]
        blank_ends = " \r\n" in block  # whether a row may end in a blank
        wrapped: list[int] = []  # the rows autowrap continues on the next one
        if max(map(len, rows)) > columns:
            long_lines = rows
            rows = []
            blank_ends = True
            if DECAWM in self.mode:
                for text in long_lines:
                    if len(text) <= columns:
                        rows.append(text)
                    else:
                        pieces = [text[j : j + columns] for j in range(0, len(text), columns)]
                        wrapped.extend(range(len(rows), len(rows) + len(pieces) - 1))
                        rows.extend(pieces)
            else:
                for text in long_lines:
                    rows.append(text if len(text) <= columns else text[: columns - 1] + text[-1])
        attrs = cursor.attrs
        h1 = bottom - top
        gone = len(rows) - h1 if len(rows) > h1 else 0  # rows that scroll away without being seen
        gone_lines: list[Stored] = []
        gone_wrapped: list[int] = []
        if gone and self._scrolls_into_history(top, bottom):
            first = max(0, gone - self.history.maxlen)  # the ones before would be dropped on arrival
            gone_lines = self._text_rows_stored(rows[first:gone], attrs, blank_ends)
            gone_wrapped = wrapped[bisect_left(wrapped, first) : bisect_left(wrapped, gone)]
            if first:
                gone_wrapped = [w - first for w in gone_wrapped]
        cells = self._cells(attrs)
        default = self.default_char
        new = [Packed(default, 0, text, cells) for text in rows[gone:]]
        for w in wrapped[bisect_left(wrapped, gone) :]:
            new[w - gone].wrapped = True
        self._scroll_in(new, len(rows), top, bottom, gone_lines, gone_wrapped)
        for text in reversed(texts[i:]):
            if text:
                self._last_char = text[-1]
                break
        cursor.x = 0
        cursor.y = bottom

    def _scroll_in(
        self, new: list[Any], m: int, top: int, bottom: int, gone_lines: list[Stored], gone_wrapped: list[int] | None
    ) -> None:
        """Scroll the region [top, bottom] up by m rows, each drawn on the blank bottom row just
        before its scroll: `new` are the last of them, those that stay on the screen; `gone_lines`
        the scrollback lines of the ones before (if the scrollback keeps them), `gone_wrapped` which
        of those are soft-wrapped. The bottom row ends blank. Deferred rows move with the region
        (those that leave it go into the scrollback as they came)."""
        keep = self._scrolls_into_history(top, bottom)
        shifted = self._shift_deferred(top, bottom, m, keep) if self.buffer.deferred else None
        rows = self.buffer._rows
        old = rows[top:bottom]
        if keep:
            leaving = old[:m]
            at = 0
            for offset, count, lines in shifted or ():
                self._rows_into_history(leaving[at:offset])
                self.history.extend_stored(lines)
                at = offset + count
            self._rows_into_history(leaving[at:])
            gone_wraps = None
            if gone_wrapped:
                gone_wraps = [0] * len(gone_lines)
                for i in gone_wrapped:
                    gone_wraps[i] = self.columns  # (every row that wraps on the way fills the width)
            self.history.extend_stored(gone_lines, gone_wraps)
        rows[top:bottom] = [*old[m:], *new]
        rows[bottom] = None
        self._fill_rows(rows, top, bottom)
        self._mark_scrolled(top, bottom, m, bottom - len(new))

    def _shift_deferred(self, top: int, bottom: int, m: int, keep: bool) -> list[tuple[int, int, list[Stored]]]:
        """The region [top, bottom] scrolls up by m rows: deferred rows inside it move with it
        (deferred rows outside it are built first), and those that leave it are no longer
        deferred: for each stretch they were part of, (the offset of the first from `top`, how
        many, their scrollback lines as they came if `keep`), in order."""
        buffer = self.buffer
        for deferred in [d for d in buffer.deferred if not (top <= d.first and d.end <= bottom)]:
            buffer.settle(deferred)
        out: list[tuple[int, int, list[Stored]]] = []
        cut = top + m  # the rows above it leave
        for deferred in list(buffer.deferred):
            if deferred.first >= cut:
                deferred.first -= m
                continue
            count = min(deferred.end, cut) - deferred.first
            out.append((deferred.first - top, count, deferred.leave(deferred, count, keep)))
            if deferred.lines:
                deferred.first = top
            else:
                buffer.deferred.remove(deferred)
        return out

    # ------------------------------------------------------------------ scrollback

    def _rows_into_history(self, leaving: list[Any]) -> None:
        """Rows (as stored: None, runs or cells) into the scrollback, oldest first."""
        if not leaving:
            return
        default = self.default_char
        try:  # rows of runs (the usual rows): their wraps inline, without a call per row
            wraps = [(row.end or 1) if row.wrapped else 0 for row in leaving]  # (as wrap_extent)
        except AttributeError:  # a row of cells among them
            wraps = list(map(wrap_extent, leaving))
        self.history.extend_stored(
            [row.stored(default) if row.__class__ is Packed else self._stored(row) for row in leaving], wraps
        )

    def _scrolls_into_history(self, top: int, bottom: int) -> bool:
        """Whether a scroll of [top, bottom] keeps the top row: as the reference Screen.index, only a
        full-screen scroll of the main screen does (and only when the scrollback keeps lines)."""
        return top == 0 and bottom == self.lines - 1 and self._main_buffer is None and self.history.maxlen > 0

    def _scroll_into_history(self, line: Any) -> None:
        """The reference's, for a row as stored: runs go as they are, cells are grouped at C level."""
        self.history.append_stored(self._stored(line), wrap_extent(line))

    def _stored(self, line: Any) -> Stored:
        """A row as stored (None, runs or cells) in its scrollback form."""
        if line is None or not line:
            return ""
        default = self.default_char
        if line.__class__ is Packed:
            return line.stored(default)  # type: ignore[no-any-return]
        # Cells up to the last column written, not the whole width: what lies after it is default
        # and dropped by the compaction anyway (a `yes` row is one cell, not 80).
        end = min(max(line) + 1, self.columns)
        return _compact_cells(list(map(line.get, range(end), repeat(default))), default)

    def _text_rows_stored(self, rows: list[str], attrs: Any, blank_ends: bool) -> list[Stored]:
        """Rows of text in one style in their stored scrollback form (what compact_line makes of the
        drawn row: one run, trailing default cells dropped). `blank_ends`: some row may end in a space."""
        style = self._cells(attrs).style
        default = self.default_char
        if blank_ends and tuple(attrs)[1:] == tuple(default)[1:] and getattr(attrs, "ext", None) is None:
            # Cells in the default style: trailing blanks equal the default cell and are dropped.
            rows = [text.rstrip(" ") for text in rows]
        if style == DEFAULT_STYLE:
            return rows  # type: ignore[return-value]
        return [(text, style) if text else "" for text in rows]


def _compact_cells(cells: list[Any], default: Any) -> Stored:
    """compact_line for a row given as its cells from column 0, in its stored form."""
    try:
        has_ext = any(map(_ext, cells))
    except AttributeError:  # a plain pyte cell
        has_ext = True
    if has_ext:  # dim/hidden/overline/link extras: the reference way
        return pack_line(compact_line(dict(enumerate(cells)), len(cells), default))
    last = len(cells) - 1
    while last >= 0 and cells[last] == default:  # trailing default cells are dropped
        last -= 1
    if last < 0:
        return ""
    cells = cells[: last + 1]
    styles = list(map(_style, cells))
    datas = list(map(_data, cells))
    if styles.count(styles[0]) == len(styles):
        text = "".join(datas)
        style = intern_style(cells[0])
        return text if text and style == DEFAULT_STYLE else (text, style)
    starts = [0, *compress(range(1, len(styles)), map(ne, styles[1:], styles))]
    ends = [*starts[1:], len(cells)]
    return pack_line(tuple(("".join(datas[a:b]), intern_style(cells[a])) for a, b in zip(starts, ends, strict=True)))


# Characters seen to take one cell each (wcwidth 1: accented letters, box drawing, bullets, the
# symbols agents draw with), so that text of them is drawn as runs, as ASCII is, not cell by cell
# (the reference draw, which a wide or zero-width character still takes). Bounded: past the limit
# new ones are looked up every time.
_ONE_CELL: set[str] = set()
_ONE_CELL_LIMIT = 4096


def _one_cell_each(data: str) -> bool:
    """Whether every character of `data` is printable and takes exactly one cell, as the reference
    draw counts."""
    return _one_cell_chars(set(data))


_ASCII = frozenset(map(chr, range(128)))


def _one_cell_beyond_ascii(data: str) -> bool:
    """Whether every character of `data` beyond ASCII is printable and takes exactly one cell (its
    ASCII, controls included, is for the caller to know)."""
    return data.isascii() or _one_cell_chars(set(data) - _ASCII)


def _one_cell_chars(chars: set[str]) -> bool:
    new = chars - _ONE_CELL
    for char in new:
        if not char.isprintable() or wcwidth(char) != 1:
            return False
    if new and len(_ONE_CELL) < _ONE_CELL_LIMIT:
        _ONE_CELL.update(new)
    return True


class Screen(FastScreenMixin, _ReferenceScreen, FastScreenBase):
    """termux's Screen: the reference Screen with the cell store and fast paths (see the module
    docstring)."""


# --- the stream ------------------------------------------------------------------------------------

_CSI_PARAMS_MAX = 64
_SGR_CACHE_LIMIT = 1024
_SGR_STEPS_LIMIT = 64  # transitions remembered per SgrState
_SPAN_LINE = 16  # lines at most this long on average are found as a span (see _run)
_SGR_SUFFIX_RUNS = 4  # SGR runs after a block's last reset walked as one transition (see _state_after)
_PLAN_CACHE_LIMIT = 1024
_SGR_SEQ = re.compile(r"\x1b\[([0-9;]*)m")
_SGR_RUNS = re.compile(r"(?:\x1b\[[0-9;]*m)+")
_PIECE = re.compile(r"((?:\x1b\[[0-9;]*m)*)([\x20-\x7e]*)")
_PIECE_ANY = re.compile(r"((?:\x1b\[[0-9;]*m)*)([^\x00-\x1f\x7f-\x9f]*)")  # (slower to match: ASCII keeps the first)


def _pieces(line: str) -> list[tuple[str, str]]:
    """A line's SGR sequences, each with the text after it (a line of text and SGR only)."""
    return (_PIECE if line.isascii() else _PIECE_ANY).findall(line)


# After a CUP: a row redrawn whole, as top and other full-screen programs do: SGR, text, SGR, EL 0.
_ROW_REDRAW = re.compile(r"((?:\x1b\[[0-9;]{0,64}m)*)([\x20-\x7e]*)((?:\x1b\[[0-9;]{0,64}m)*)\x1b\[0?K")
# Right after a CUP to column 1: a row redrawn whole, then more rows each after a CUP to column 1
# (a CUP anywhere followed by another CUP moves nothing that stays): frames of a full-screen program.
# The text of a row is at most the screen's width (a longer one wraps and scrolls: the calls one by
# one), checked once a row is matched.
_FRAME_SGR = r"(?:\x1b\[[0-9;]{0,64}m)*"
_BARE_CUP = r"\x1b\[[0-9]{0,4}(?:;[0-9]{0,4})?H"
_CUP_1 = r"\x1b\[([0-9]{0,4})(?:;0{0,4}1?)?(H)"  # CUP to column 1 (a column of 0 is 1): its line
_CUP_1_ALONE = re.compile(_CUP_1)
# One row of a frame: the line its CUP goes to (the first row has no CUP: the cursor's line; "H"
# says there was one, whose empty line is 1), SGR, text, SGR, then the rest of the row's runs
# (text, then SGR: a coloured word, a dimmed rule, a number in green, as agents draw a row; none
# for a row in one style, as `top` draws most), its text at most the width in all (checked as
# the row is taken; `_FRAME_PIECE` cuts the rest into its runs).
_FRAME_ROW_TEMPLATE = r"(?:(?:{cup})*{cup_1})?({sgr})({text}*+)({sgr})((?:{text}++{sgr})*+)\x1b\[0?K"
_FRAME_PIECE_TEMPLATE = r"({text}+)({sgr})"


def _frame_patterns(text: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The frame row and its pieces, for text of the characters `text` matches."""
    parts = {"cup": _BARE_CUP, "cup_1": _CUP_1, "sgr": _FRAME_SGR, "text": text}
    return re.compile(_FRAME_ROW_TEMPLATE.format(**parts)), re.compile(_FRAME_PIECE_TEMPLATE.format(**parts))


# Printable ASCII; in a feed that is not all ASCII, any printable character (as the token path cuts
# a text run), a row with one that does not take exactly one cell (wide, zero-width) being left to
# the calls one by one (`_one_cell_each`). (The second class is slower to match: ASCII feeds keep the first.)
_FRAME_ROW, _FRAME_PIECE = _frame_patterns(r"[\x20-\x7e]")
_FRAME_ROW_ANY, _FRAME_PIECE_ANY = _frame_patterns(r"[^\x00-\x1f\x7f-\x9f]")
# Frames drawn faster than they are read: when one feed holds more than two screenfuls of rows in
# one style, each after a CUP to column 1, and its last screenful redraws every line the ones before
# it drew, those earlier rows are never seen (each redraw writes every column of its row, and
# nothing between reads it); only the last screenful is built (see `_frame_skip`).
_SKIP_SCREENS = 2
_SKIP_PATTERNS_LIMIT = 64
# A row's CUPs (each after the first without its ESC [, so that a search looks for ESC [ first): the
# line of the last.
_CUP_PREFIX_LINE = re.compile(r"\x1b\[(?:[0-9]{0,4}(?:;[0-9]{0,4})?H\x1b\[)*([0-9]{0,4})(?:;0{0,4}1?)?H")
_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _one_style_rows(columns: int, ys: frozenset[int] | None) -> re.Pattern[str]:
    """Rows of printable ASCII in one style, none wider than `columns` (none wraps): the first
    with or without CUPs (the cursor's row), every other after CUPs that end at column 1, of a line
    in `ys` (0-based; any line for None; a line past the bottom, which the CUP clamps, is not
    taken for the bottom's)."""
    pattern = _ONE_STYLE_ROWS.get((columns, ys))
    if pattern is None:
        row = rf"{_FRAME_SGR}[\x20-\x7e]{{0,{columns}}}+{_FRAME_SGR}\x1b\[0?K"
        line = r"[0-9]{0,4}"
        if ys is not None:
            spelled = [""] if 0 in ys else []  # (an empty or zero line is the first)
            # (at most four digits, as everywhere here: the reference reads six or more as 9999)
            line = "(?=[0-9]{0,4}[;H])0*" + _numbers_pattern(spelled + [str(y + 1) for y in ys])
        cups = rf"(?:{_BARE_CUP})*\x1b\[{line}(?:;0{{0,4}}1?)?H"
        pattern = re.compile(rf"(?:{cups})?{row}(?:{cups}{row})*+")
        if len(_ONE_STYLE_ROWS) >= _SKIP_PATTERNS_LIMIT:
            _ONE_STYLE_ROWS.clear()
        _ONE_STYLE_ROWS[columns, ys] = pattern
    return pattern


def _resets(params: str) -> bool:
    """Whether SGR with these parameters starts with a reset: a first parameter of 0 or none (as
    the reference reads it: six digits or more are 9999, which sets nothing)."""
    first = params.partition(";")[0]
    return len(first) < 6 and not first.strip("0")


def _numbers_pattern(numbers: list[str]) -> str:
    """A pattern for exactly the strings `numbers` (of digits), as a tree of their digits: a CUP is
    matched in a few steps a digit, not one step per number (a screen of 400 lines)."""
    if not numbers:
        return "(?!)"
    tree: dict[str, Any] = {}
    for number in numbers:
        node = tree
        for digit in number:
            node = node.setdefault(digit, {})
        node[""] = {}  # (a number ends here)

    def branches(node: dict[str, Any]) -> str:
        options = [digit + branches(rest) if digit else "" for digit, rest in sorted(node.items())]
        return options[0] if len(options) == 1 else "(?:{})".format("|".join(options))

    return branches(tree)


_ONE_STYLE_ROWS: dict[tuple[int, frozenset[int] | None], re.Pattern[str]] = {}
_ASCII_GONE = dict.fromkeys(range(128))  # str.translate: what is left of a string beyond ASCII
# The rows of several runs the frame path remembers as it built them (a few frames' worth; past
# it, it starts afresh), each of at most _ROWS_MEMO_TEXT characters after its CUP, built to the
# screen's width (a session's is 1,000 columns at most): a session's memo holds at most half a MiB
# of text.
_ROWS_MEMO_ROWS = 256
_ROWS_MEMO_TEXT = 1024
# A frame row of several runs as built: its runs of text and their cells (to the screen's edge),
# the state after it, the width of its text and its last character; by the state it was drawn
# from, its text after its CUP and the screen's width.
_FrameRow = tuple[tuple[str, ...], tuple[Cells, ...], "SgrState", int, str]
_RowKey = tuple["SgrState", str, int]

# The fast path's tokens, after group 1 (lines; see FastStreamMixin.attach).
_TOKENS = (
    r"|([^\x00-\x1f\x7f-\x9f]+)"  # 2: a text run (as the reference parser cuts it)
    r"|(\r\n)"  # 3: CR LF
    # 4, 5: SGR sequences in a row, then the text run after them (possibly empty)
    rf"|((?:\x1b\[[0-9;]{{0,{_CSI_PARAMS_MAX}}}m)+)([^\x00-\x1f\x7f-\x9f]*)"
    rf"|\x1b\[(\??)([0-9;]{{0,{_CSI_PARAMS_MAX}}})([\x40-\x7e])"  # 6,7,8: CSI [?] params final
    r"|([\x00-\x1a\x1c-\x1f\x7f])"  # 9: a C0 control (or DEL)
    r"|\x1b([0-OQ-WYZ\\`-~])"  # 10: ESC final (not a CSI, string or intermediate)
)

DECSCNM = mo.DECSCNM
DECOM = mo.DECOM
_MAX_PARAMS = 32
_MAX_VALUE = 9999


class SgrState:
    """Drawing attributes as the styled-line path walks SGR sequences: the cell attributes, their
    cells, and the state each SGR string seen after them leads to (a transition depends only on
    the attributes, the string and DECSCNM, so it is looked up once per string and state)."""

    __slots__ = ("after", "attrs", "cells", "drops_blanks", "style")

    def __init__(self, attrs: Any, default: Any) -> None:
        self.attrs = attrs
        # Its cells, made when a row on the screen is drawn in it (lines that scroll away need only
        # the style): see `FastStreamMixin._cells_of`.
        self.cells: Cells | None = None
        self.style = intern_style(attrs)  # the scrollback style of text drawn in this state
        # Blanks drawn in it equal the default cell: a row's trailing ones are not kept in scrollback.
        self.drops_blanks = getattr(attrs, "ext", None) is None and attrs[1:] == default[1:]
        self.after: dict[str, SgrState] = {}


class FastStreamMixin(_ReferenceStream):
    """The reference parser with a one-regex fast path for the common tokens."""

    def attach(self, screen: Any) -> None:
        super().attach(screen)
        listener = self.listener
        # Lines of printable ASCII go to the screen's draw_lines in one call, unless the screen has
        # none or someone replaced the per-line methods on the instance (they must see every call).
        lines = getattr(listener, "draw_lines", None)
        own = getattr(listener, "__dict__", {})
        if any(name in own for name in ("draw", "carriage_return", "linefeed", "index")):
            lines = None
        self._f_lines = lines
        # The one-row ASCII draw can skip the screen's draw() when that is FastScreenMixin's own.
        self._f_inline = getattr(type(listener), "draw", None) is FastScreenMixin.draw and "draw" not in own
        # id(attrs), SGR parameters, DECSCNM -> (attrs, resulting attrs); holding attrs pins its id.
        self._f_sgr: dict[tuple[int, str, bool], tuple[Any, Any]] = {}
        # attrs, their extras, DECSCNM -> the state for drawing with them (see SgrState): by value, so
        # that equal attributes reached by any path are one state (whose transitions are known)
        self._f_states: dict[tuple[Any, Any, bool], SgrState] = {}
        # a whole CSI sequence -> how to dispatch it (see _plan_csi)
        self._f_plans: dict[str, tuple[int, Callable[..., Any], tuple[Any, ...]]] = {}
        self._f_cup = self._csi_table["H"][0]  # CUP's handler, after which a row may be redrawn whole
        # Frames of rows redrawn whole are applied as a whole (only the last redraw of each row is
        # built) when the handlers they would call are the fast Screen's own and SGR is the reference's.
        kind = type(listener)
        self._f_frames = (
            self._f_inline
            and getattr(kind, "cursor_position", None) is FastScreenBase.cursor_position
            and getattr(kind, "erase_in_line", None) is FastScreenMixin.erase_in_line
            and not any(name in own for name in ("cursor_position", "erase_in_line", "select_graphic_rendition"))
            and self._plan_csi("", "0", "m")[0] == 2
        )
        # SGR transitions may be computed directly when SGR goes to the reference handler; the
        # attributes computed so, by value (see _apply_sgrs).
        self._f_attrs: dict[tuple[Any, Any], Any] = {}
        self._f_sgr_direct = (
            getattr(kind, "select_graphic_rendition", None) is _ReferenceScreen.select_graphic_rendition
            and "select_graphic_rendition" not in own
            and "_compute_sgr" not in own
            and self._plan_csi("", "0", "m")[0] == 2
        )
        # Only tried right after a line feed (the lookbehind sees the data before the match start).
        # Lines: two or more, each ended by CR LF. Short lines (`yes`) are found as a span of text,
        # CR, LF and SGR, lines if its CR and LF are CR LF pairs (up to its last CR LF; else the
        # exact lines): one pass of C over the span rather than a loop of the pattern per line,
        # which costs more than the lines themselves. Longer lines are found by the exact pattern
        # (which then costs less than checking a span). Which one is tried next follows the length
        # of the lines last seen (`_f_spans`). Their text is printable ASCII; in a feed that is not
        # all ASCII, any printable character, a block with one that does not take exactly one cell
        # (wide, zero-width) being cut around its lines that hold one (`_mixed_lines`).
        sgr = rf"\x1b\[[0-9;]{{0,{_CSI_PARAMS_MAX}}}m"
        line_text = {True: r"[\x20-\x7e]", False: r"[^\x00-\x1f\x7f-\x9f]"}
        span_text = {True: r"[\x20-\x7e\r\n]", False: r"[^\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]"}
        self._f_tokens = re.compile(r"(\b\B)" + _TOKENS).match  # (the same groups, no block)
        # By whether the feed is all ASCII: two or more lines (1), then a token; a span that may be
        # two or more lines (1), then a token; the lines alone.
        self._f_matchers: dict[bool, tuple[Callable[[str, int], re.Match[str] | None], ...]] = {}
        for ascii_only in (True, False):
            exact = rf"(?<=\n)((?:(?:{line_text[ascii_only]}++|{sgr})*+\r\n){{2,}})"
            span = rf"(?<=\n)((?:{span_text[ascii_only]}++|{sgr})*+)"
            if lines is None:
                exact = span = r"(\b\B)"
            self._f_matchers[ascii_only] = (
                re.compile(exact + _TOKENS).match,
                re.compile(span + _TOKENS).match,
                re.compile(exact).match,
            )
        self._f_spans = False
        self._f_too_wide: tuple[str, int] | None = None  # where the frame path last found a row too wide
        self._f_skip_lines: frozenset[int] | None = None  # the lines the frame path last skipped to
        # Frame rows of several runs as built (see _redraw_frame): a program redrawing itself draws
        # most rows as it drew them a frame before, or one row up.
        self._f_rows: dict[_RowKey, _FrameRow] = {}

    def restart(self) -> None:
        super().restart()
        self._f_too_wide = None

    def _run(self, data: str, i: int) -> int:
        n = len(data)
        ascii_feed = data.isascii()
        exact_match, span_match, exact_block = self._f_matchers[ascii_feed]
        spans = self._f_spans
        match = span_match if spans else exact_match
        tokens = self._f_tokens
        draw = self._draw
        c0 = self._c0
        cr = c0["\r"]
        lf = c0["\n"]
        esc = self._esc
        listener: Any = self.listener
        sgr_cache = self._f_sgr
        plans = self._f_plans
        inline = self._f_inline
        cup = self._f_cup
        row_match = _ROW_REDRAW.match
        frames = self._f_frames
        m: re.Match[str] | None = None
        try:
            while i < n:
                m = match(data, i)
                if m is not None and m.lastindex == 1:
                    block = m.group(1)
                    if spans:
                        block = block[: block.rfind("\r\n") + 2]
                        feeds = block.count("\n")
                        if feeds < 2 or block.count("\r") != feeds or block.count("\r\n") != feeds:
                            exact = exact_block(data, i)  # (a lone CR or LF in the span)
                            if exact is None:
                                block = ""
                                m = tokens(data, i)  # (any token but lines)
                            else:
                                block = exact.group(1)
                        elif len(block) > _SPAN_LINE * feeds:
                            spans = False
                            match = exact_match
                    elif block.find("\r\n") < _SPAN_LINE:
                        spans = True
                        match = span_match
                    if block:
                        i += len(block)
                        if ascii_feed or _one_cell_beyond_ascii(block):
                            self._lines_block(block)
                        else:
                            self._mixed_lines(block)
                        continue
                if m is None:
                    # An escape sequence or C1 control the fast path does not know: the reference way.
                    self._resume = i + 1  # the reference code sets its own; this covers a raise before
                    j = self._sequence(data, i)
                    if j < 0:
                        self._f_spans = spans
                        return n  # incomplete: kept for the next feed
                    i = j
                    continue
                i = m.end()
                kind = m.lastindex
                if kind == 5:
                    sgrs, text = m.group(4, 5)
                    cursor = listener.cursor
                    current = cursor.attrs
                    sgr_key = (id(current), sgrs, DECSCNM in listener.mode)
                    hit = sgr_cache.get(sgr_key)
                    if hit is not None and hit[0] is current:
                        cursor.attrs = hit[1]
                    elif self._apply_sgrs(sgrs):
                        # Only SGR handlers ran, and they only set cursor.attrs: remember the transition
                        # (SGR 0 depends on DECSCNM, hence the key).
                        if len(sgr_cache) >= _SGR_CACHE_LIMIT:
                            sgr_cache.clear()
                        sgr_cache[sgr_key] = (current, listener.cursor.attrs)
                    if text and not (inline and self._draw_row(listener, text)):
                        draw(text)
                elif kind == 2:
                    text = m.group(2)
                    if not (inline and self._draw_row(listener, text)):
                        draw(text)
                elif kind == 8:
                    seq = m.group(0)
                    plan = plans.get(seq)
                    if plan is None:
                        plan = self._plan_csi(*m.group(6, 7, 8))
                        if len(plans) >= _PLAN_CACHE_LIMIT:
                            plans.clear()
                        plans[seq] = plan
                    how, fn, args = plan
                    if how == 0:
                        fn(*args)
                        if fn is cup and inline:  # a row redrawn whole after it (as top does)?
                            end = i
                            if frames and self._frame_applies(listener):
                                end = self._redraw_frame(listener, data, i, ascii_feed)
                            if end > i:
                                i = end
                            else:
                                row = row_match(data, i)
                                if row is not None and self._redraw_row(listener, row):
                                    i = row.end()
                    elif how == 1:
                        fn(*args, private=True)
                    else:
                        fn(*args)  # SGR: plain SGR sequences are matched as kind 5 first
                elif kind == 3:
                    cr()
                    lf()
                elif kind == 9:
                    control = c0.get(m.group(9))
                    if control is not None:
                        control()
                else:
                    final_handler = esc.get(m.group(10))
                    if final_handler is not None:
                        final_handler()
            self._f_spans = spans
            return n
        except Exception:
            # The reference feed() counts the error and resumes at _resume: after the fast token
            # that raised (i is its end), or where the reference code it called said.
            self._f_spans = spans
            if m is not None:
                self._resume = i
            raise

    @staticmethod
    def _draw_row(screen: Any, text: str) -> bool:
        """FastScreenMixin.draw's one-row path (a text token: no C0, DEL or C1 in it), or False.

        A copy of draw's first branch on purpose: sharing it through a method costs a call per
        text token, 15-20% of SGR-heavy throughput (`python -m benchmarks.emulator --only sgr`)."""
        cursor = screen.cursor
        x = cursor.x
        end = x + len(text)
        columns = screen.columns
        if end > columns or screen.charset or screen.g0_charset is not _LAT1 or IRM in screen.mode:
            return False
        if not text.isascii():
            return False
        attrs = cursor.attrs
        entry = screen._cell_caches.get(id(attrs))
        cells = entry[1] if entry is not None and entry[0] is attrs else screen._cells(attrs)
        y = cursor.y
        rows = screen.buffer.row_list(y)
        row = rows[y]
        if row is None:
            rows[y] = Packed(screen.default_char, x, text, cells)
        elif row.__class__ is Packed and x == row.end != row.start:  # Packed.write's common case
            row.texts.append(text)
            row.cells.append(cells)
            row.end = end
        else:
            screen._put(y, x, text, cells)
        cursor.x = end
        screen._last_char = text[-1]
        screen.dirty.add(y)
        return True

    def _redraw_row(self, screen: Any, row: re.Match[str]) -> bool:
        """Right after a CUP to column 1: SGR, printable ASCII, SGR, EL 0 (`_ROW_REDRAW`), the way
        full-screen programs redraw a row, as the per-token calls would leave it but with the row
        made at once from its two runs (text, then blanks to the edge). False, with nothing done,
        when the fast path does not apply (the tokens are then handled one by one)."""
        cursor = screen.cursor
        text = row.group(2)
        columns = screen.columns
        rows = screen.buffer.rows
        y = cursor.y
        old = rows[y]
        if (
            cursor.x
            or len(text) > columns
            or (old is not None and old.__class__ is not Packed)
            or screen.charset
            or screen.g0_charset is not _LAT1
            or IRM in screen.mode
        ):
            return False
        before, after = row.group(1, 3)
        if before:
            self._sgr(screen, before)
        drawn = cursor.attrs
        caches = screen._cell_caches
        entry = caches.get(id(drawn))
        cells = entry[1] if entry is not None and entry[0] is drawn else screen._cells(drawn)
        if after:
            self._sgr(screen, after)
        blank = cursor.attrs
        n = len(text)
        if blank.data != " ":  # (EL's fast path does not apply either: the calls one by one)
            if text:
                cursor.attrs = drawn
                screen.draw(text)
                cursor.attrs = blank
            screen.erase_in_line(0)
            return True
        texts = [text] if n else []
        runs = [cells] if n else []
        if n < columns:
            entry = caches.get(id(blank))
            blanks = entry[1] if entry is not None and entry[0] is blank else screen._cells(blank)
            if runs and blanks is cells:
                texts[0] = text + " " * (columns - n)
            else:
                texts.append(" " * (columns - n))
                runs.append(blanks)
        rows[y] = Packed.of_runs(screen.default_char, texts, runs, columns)
        cursor.x = n
        if n:
            screen._last_char = text[-1]
        screen.dirty.add(y)
        return True

    @staticmethod
    def _frame_applies(screen: Any) -> bool:
        """Whether the frame path may apply a frame that starts at the cursor."""
        mode = screen.mode
        return not (
            screen.cursor.x
            or screen.charset
            or screen.g0_charset is not _LAT1
            or IRM in mode
            or DECOM in mode
            or screen.cursor.attrs.data != " "  # (then every state has " ": SGR 0 gives the default cell's)
        )

    def _redraw_frame(self, screen: Any, data: str, start: int, ascii_feed: bool) -> int:
        """Right after a CUP to column 1 (`_frame_applies`): the rows redrawn whole from `start`,
        each but the first after a CUP to column 1 (`_FRAME_ROW`, matched one after the other), as
        the per-token calls would leave them; where they end (`start`: none). A row redrawn several
        times is built once, from its last redraw: each redraw writes every column of its row (text,
        then blanks to the edge), and nothing in between reads it. A row of several runs drawn
        before from the same state is taken as it was built then (`_f_rows`). `ascii_feed`: `data`
        is all ASCII (then the ASCII patterns, which match faster)."""
        if self._f_too_wide is not None and self._f_too_wide[0] is data and self._f_too_wide[1] == start:
            return start  # (this row was matched, and found too wide, as the last frame ended)
        columns = screen.columns
        cursor = screen.cursor
        bottom = screen.lines - 1
        reverse = DECSCNM in screen.mode
        state = self._sgr_state(screen, cursor.attrs, reverse)
        skipped = self._frame_skip(screen, data, start, state, reverse) if ascii_feed else None
        step = self._sgr_step
        match = _FRAME_ROW.match if ascii_feed else _FRAME_ROW_ANY.match
        runs_of = _FRAME_PIECE.findall if ascii_feed else _FRAME_PIECE_ANY.findall
        known = self._f_rows
        cup_1 = _CUP_1_ALONE.match
        find = data.find
        # The last redraw of each row: y -> (text, state drawn with, state of the blanks after the
        # row, the runs after the first: text and state, None for a row in one style; the row's key
        # in `known`, None for a row in one style), or the row as built before (`again`).
        last: dict[int, tuple[str, SgrState, SgrState, list[tuple[str, SgrState]] | None, _RowKey | None]] = {}
        again: dict[int, _FrameRow] = {}
        y = cursor.y
        x = 0
        last_char = ""
        end = start
        if skipped is not None:
            end, state = skipped
        several = False  # whether the row before had several runs (see below)
        while True:
            # After a row of several runs (as agents draw them), the next row is looked up among
            # the rows remembered first, by its text after its CUP to column 1 up to its EL (a
            # bounded search): most such rows were drawn a frame before, or a row lower, from
            # the same state; only a row not found is matched by the pattern.
            built = None
            if several and (parked := cup_1(data, end)) is not None:
                body = parked.end()
                erase = find("\x1b[K", body, body + _ROWS_MEMO_TEXT + 3)
                if erase >= 0 and (built := known.get((state, data[body : erase + 3], columns))) is not None:
                    line, cup, row_end = parked.group(1), "H", erase + 3
            if built is None:
                row = match(data, end)
                if row is None or not (row.group(2) or end == start):  # (a row without a CUP: only the first)
                    break
                if not ascii_feed:
                    drawn_text = data[row.start(3) : row.end()].translate(_ASCII_GONE)
                    if drawn_text and not _one_cell_each(drawn_text):
                        # A wide or zero-width character: the calls one by one, as for a row too wide.
                        self._f_too_wide = (data, row.start(3))
                        break
                line, cup, before, text, after, rest = row.groups()
                row_end = row.end()
                several = bool(rest)
                width = len(text)
                if rest:
                    key = (state, data[row.start(3) : row_end], columns)
                    built = known.get(key)
                    if built is None:
                        pieces = runs_of(rest)
                        width += sum(len(piece) for piece, _ in pieces)
                if width > columns and built is None:
                    # A longer row wraps and scrolls: the calls one by one from here (its CUP first,
                    # then this path again, which needs not match the row a second time).
                    self._f_too_wide = (data, row.start(3))  # (the feed it is in, held until the next such row)
                    break
            if cup:
                y = int(line) - 1 if line else 0
                if y < 0:
                    y = 0
                elif y > bottom:
                    y = bottom
            if built is not None:
                again[y] = built
                if last:
                    last.pop(y, None)
                _, _, state, x, char = built
                if char:
                    last_char = char
            else:
                if before:
                    hit = state.after.get(before)
                    state = step(screen, state, before, reverse) if hit is None else hit
                drawn = state
                if after:
                    hit = state.after.get(after)
                    state = step(screen, state, after, reverse) if hit is None else hit
                if rest:
                    later: list[tuple[str, SgrState]] = []
                    for piece, sgrs in pieces:
                        later.append((piece, state))
                        if sgrs:
                            hit = state.after.get(sgrs)
                            state = step(screen, state, sgrs, reverse) if hit is None else hit
                    last[y] = (text, drawn, state, later, key)
                    last_char = pieces[-1][0][-1]
                else:
                    last[y] = (text, drawn, state, None, None)
                    if text:
                        last_char = text[-1]
                if again:
                    again.pop(y, None)
                x = width
            end = row_end
        if end == start:
            return start
        rows = screen.buffer.rows
        default = screen.default_char
        cells_of = self._cells_of
        for ry, (text, drawn, blank, runs, row_key) in last.items():
            if runs is None:  # one style, then blanks: as top draws most rows
                n = len(text)
                if n == columns:
                    rows[ry] = Packed.of_runs(default, [text], [cells_of(screen, drawn)], columns)
                    continue
                blanks = cells_of(screen, blank)
                if not n:
                    rows[ry] = Packed.of_runs(default, [" " * columns], [blanks], columns)
                    continue
                cells_one = cells_of(screen, drawn)
                if blanks is cells_one:
                    rows[ry] = Packed.of_runs(default, [text + " " * (columns - n)], [cells_one], columns)
                else:
                    rows[ry] = Packed.of_runs(default, [text, " " * (columns - n)], [cells_one, blanks], columns)
                continue
            char = runs[-1][0][-1]
            if text:
                runs.insert(0, (text, drawn))
            texts: list[str] = []
            cells: list[Cells] = []
            n = 0
            for text, drawn in runs:
                run_cells = cells_of(screen, drawn)
                if cells and cells[-1] is run_cells:
                    texts[-1] += text
                else:
                    texts.append(text)
                    cells.append(run_cells)
                n += len(text)
            if n < columns:
                blanks = cells_of(screen, blank)
                if cells and cells[-1] is blanks:
                    texts[-1] += " " * (columns - n)
                else:
                    texts.append(" " * (columns - n))
                    cells.append(blanks)
            if row_key is not None and len(row_key[1]) <= _ROWS_MEMO_TEXT:  # (bounded: a row's worth, so many rows)
                if len(known) >= _ROWS_MEMO_ROWS:
                    known.clear()
                known[row_key] = (tuple(texts), tuple(cells), blank, n, char)
            rows[ry] = Packed.of_runs(default, texts, cells, columns)
        for ry, (texts_known, cells_known, _, _, _) in again.items():
            rows[ry] = Packed.of_runs(default, list(texts_known), list(cells_known), columns)
        screen.dirty.update(last)
        screen.dirty.update(again)
        cursor.attrs = state.attrs
        cursor.y = y
        cursor.x = x
        if skipped is not None and not last_char:  # (no text since the rows skipped: their last)
            last_char = _ESCAPE.sub("", data[start : skipped[0]])[-1:]
        if last_char:
            screen._last_char = last_char
        return end

    def _frame_skip(
        self, screen: Any, data: str, start: int, state: SgrState, reverse: bool
    ) -> tuple[int, SgrState] | None:
        """Where the frame path may go on from `start` (`_frame_applies`), and the state there, when
        it may pass over rows no one will see: more than `_SKIP_SCREENS` screenfuls of rows in one
        style follow (`_one_style_rows`), and the last screenful of them redraws every line the rows
        before it drew. Those rows are left unbuilt, as the frame path leaves a row's earlier
        redraws; what they did that lasts is the SGR state they leave, walked from the last reset
        in their last row. None when any of that is not so (then every row is built)."""
        lines = screen.lines
        columns = screen.columns
        if len(data) - start <= _SKIP_SCREENS * lines * columns:
            return None  # (too short to hold that many rows of text)
        # First with the lines the last skip found redrawn (a program redraws the same ones): one
        # pass over the rows; then with any line, and again with the lines found.
        for ys in (None,) if self._f_skip_lines is None else (self._f_skip_lines, None):
            run = _one_style_rows(columns, ys).match(data, start)
            if run is None:
                continue
            run_end = run.end()
            rows = data.count("\x1b[K", start, run_end) + data.count("\x1b[0K", start, run_end)
            if rows <= _SKIP_SCREENS * lines:
                continue
            # The last screenful and a row (a frame's last may be a park's or a title's): from the
            # end of the row that ends at or after where they would start, at an even length a row.
            guess = run_end - (run_end - start) * (lines + 1) // rows
            tail = min(at + len(el) for el in ("\x1b[K", "\x1b[0K") if (at := data.find(el, guess, run_end)) >= 0)
            if tail >= run_end:
                continue
            bottom = lines - 1
            covered = frozenset(
                min(max(int(line) - 1, 0), bottom) if line else 0
                for line in _CUP_PREFIX_LINE.findall(data, tail, run_end)
            )
            if screen.cursor.y not in covered:  # (the first row's, when it has no CUP)
                continue
            if ys is None:
                redrawn = _one_style_rows(columns, covered).match(data, start)
                if redrawn is None or redrawn.end() < tail:
                    continue
            elif not ys <= covered:
                continue
            self._f_skip_lines = covered
            # The SGR state at `tail`: from the last reset in the last row passed over.
            row_start = max(data.rfind("\x1b[K", start, tail - 3), data.rfind("\x1b[0K", start, tail - 4), start)
            reset = -1
            for sgr in _SGR_SEQ.finditer(data, row_start, tail):
                if _resets(sgr.group(1)):
                    reset = sgr.start()
            if reset < 0:
                return None
            step = self._sgr_step
            for sgrs in _SGR_RUNS.findall(data, reset, tail):
                hit = state.after.get(sgrs)
                state = step(screen, state, sgrs, reverse) if hit is None else hit
            return tail, state
        return None

    def _sgr(self, screen: Any, sgrs: str) -> None:
        """SGR sequences applied through the transition cache (as the `_run` loop's kind 5)."""
        cursor = screen.cursor
        current = cursor.attrs
        key = (id(current), sgrs, DECSCNM in screen.mode)
        hit = self._f_sgr.get(key)
        if hit is not None and hit[0] is current:
            cursor.attrs = hit[1]
        elif self._apply_sgrs(sgrs):
            if len(self._f_sgr) >= _SGR_CACHE_LIMIT:
                self._f_sgr.clear()
            self._f_sgr[key] = (current, cursor.attrs)

    def _mixed_lines(self, block: str) -> None:
        """Lines (text and SGR, each ended by CR LF), some holding a character beyond ASCII that
        does not take exactly one cell: those lines token by token, the ones between them as a block."""
        lines = block.split("\r\n")
        lines.pop()
        run = self._run
        start = 0
        for k, line in enumerate(lines):
            if not _one_cell_beyond_ascii(line):
                if start < k:
                    self._lines_block("\r\n".join(lines[start:k]) + "\r\n")
                run(line + "\r\n", 0)  # (a block needs a line feed before it: never one again)
                start = k + 1
        if start < len(lines):
            self._lines_block("\r\n".join(lines[start:]) + "\r\n")

    def _lines_block(self, block: str) -> None:
        """Lines of text and SGR, each ended by CR LF, whose every character takes one cell."""
        if "\x1b" in block:
            self._styled_lines(block)
        else:
            self._f_lines(block)  # type: ignore[misc]  # (no block is matched without it)

    def _styled_lines(self, block: str) -> None:
        """Lines of SGR sequences and printable text whose every character takes one cell, each
        ended by CR LF: as the per-token path would handle them, with rows that scroll away unseen
        (and unkept) never built."""
        screen: Any = self.listener
        texts = block.split("\r\n")
        texts.pop()
        run = self._run
        cursor = screen.cursor
        top, bottom = screen.margins or Margins(0, screen.lines - 1)
        i = screen._onto_content(texts, bottom, lambda text: run(text + "\r\n", 0))  # (never a block again)
        if i == len(texts):
            return
        if (
            screen.charset
            or screen.g0_charset is not _LAT1
            or IRM in screen.mode
            or self._plan_csi("", "0", "m")[0] != 2  # SGR is not the reference SGR
        ):
            for text in texts[i:]:
                run(text + "\r\n", 0)
            return
        if self._f_sgr_direct and self._deferred_lines(screen, texts[i:], top, bottom):
            return
        # Each line: its pieces (SGR sequences, then text) and the number of rows it makes.
        columns = screen.columns
        autowrap = DECAWM in screen.mode
        lines = texts[i:]
        keep_all = screen._scrolls_into_history(top, bottom)
        reverse = DECSCNM in screen.mode  # (SGR changes no mode)
        state = self._sgr_state(screen, cursor.attrs, reverse)
        last_piece = ""
        early: list[Stored] = []  # the scrollback lines of the first lines, made without rows
        skipped = 0  # lines that scroll away unseen and unkept, never built
        direct = self._f_sgr_direct  # SGR is a pure computation (no handler to call per sequence)
        if len(lines) > bottom - top and (keep_all or direct):
            # The lines that scroll away at once if each is one row (none wider than the screen).
            gone = len(lines) - (bottom - top)
            head = "\r\n".join(lines[:gone])
            visible = _SGR_SEQ.sub("", head).split("\r\n")  # their text
            if max(map(len, visible)) <= columns:
                if not direct:
                    early, state = self._stored_lines(screen, lines[:gone], visible, state, reverse)
                else:
                    if keep_all:  # kept as they came, expanded when read
                        early = self._lazy_lines(screen, lines[:gone], state.attrs, reverse)
                    else:  # never kept: only their effect on the attributes counts
                        skipped = gone
                    state = self._state_after(screen, head, state, reverse)
                lines = lines[gone:]
                last_piece = next(filter(None, reversed(visible)), "")
        if keep_all:
            first_seen = -1  # every row is built
            counts = [0] * len(lines)  # (so their counts are not needed)
        else:
            counts = [1] * len(lines)
            if autowrap and max(map(len, lines), default=0) > columns:  # (SGR included: may wrap)
                lengths = map(len, _SGR_SEQ.sub("", "\r\n".join(lines)).split("\r\n"))
                counts = [(length + columns - 1) // columns if length else 1 for length in lengths]
            first_seen = sum(counts) - (bottom - top)  # rows before this one scroll away unseen
        # A row: its runs (texts, their cells) and its length; None for one never built.
        rows: list[tuple[list[str], list[Any], int] | None] = []
        wrapped: list[int] = []  # the rows autowrap continues on the next one
        default = screen.default_char
        cells = state.cells
        for text, count in zip(lines, counts, strict=True):
            build = len(rows) + count > first_seen
            runs_t: list[str] = []
            runs_c: list[Any] = []
            for sgrs, piece in _pieces(text):
                if sgrs:
                    after = state.after.get(sgrs)
                    state = self._sgr_step(screen, state, sgrs, reverse) if after is None else after
                    cells = state.cells
                if piece:
                    last_piece = piece
                    if build:
                        if cells is None:
                            cells = self._cells_of(screen, state)
                        if runs_c and runs_c[-1] is cells:
                            runs_t[-1] += piece
                        else:
                            runs_t.append(piece)
                            runs_c.append(cells)
            if not build:
                rows.extend([None] * count)
                continue
            length = sum(map(len, runs_t))
            if length <= columns:
                rows.append((runs_t, runs_c, length))
            elif autowrap:
                pieces = _wrap_runs(runs_t, runs_c, columns)
                wrapped.extend(range(len(rows), len(rows) + len(pieces) - 1))
                rows.extend(pieces)
            else:
                # No autowrap: each character past the margin lands in the last column.
                head_t, head_c = _first_columns(runs_t, runs_c, columns - 1)
                head_t.append(runs_t[-1][-1])
                head_c.append(runs_c[-1])
                rows.append((head_t, head_c, columns))
        cursor.attrs = state.attrs
        gone = max(0, len(rows) - (bottom - top))
        seen = bisect_left(wrapped, gone)
        ahead = len(early)
        gone_lines = early
        if keep_all and gone:  # (then every row was built)
            gone_lines = early + [stored_runs(t, c, default) for t, c, _ in rows[:gone]]  # type: ignore[misc]
        new = [Packed.of_runs(default, t, c, n) for t, c, n in rows[gone:]]  # type: ignore[misc]
        for w in wrapped[seen:]:
            new[w - gone].wrapped = True
        gone_wrapped = [w + ahead for w in wrapped[:seen]] if keep_all else []
        screen._scroll_in(new, skipped + ahead + len(rows), top, bottom, gone_lines, gone_wrapped)
        if last_piece:
            screen._last_char = last_piece[-1]
        cursor.x = 0
        cursor.y = bottom

    def _stored_lines(
        self, screen: Any, lines: list[str], visible: list[str], state: SgrState, reverse: bool
    ) -> tuple[list[Stored], SgrState]:
        """The scrollback lines that `lines` (text and SGR, none wider than the screen, each to be
        drawn on a blank row that then scrolls away) make, straight from their pieces, as
        `stored_runs` of their rows would make them; `visible[i]` is line i without its SGR. And
        the state after them."""
        out: list[Stored] = []
        append = out.append
        pieces_of = _pieces
        step = self._sgr_step
        default_style = DEFAULT_STYLE
        for text, plain in zip(lines, visible, strict=True):
            styles: list[Any] = []  # each run's style, neighbours of one style merged
            ends: list[int] = []  # where each run ends
            droppable: list[bool] = []  # whether its trailing blanks are default cells
            end = 0
            for sgrs, piece in pieces_of(text):
                if sgrs:
                    hit = state.after.get(sgrs)
                    state = step(screen, state, sgrs, reverse) if hit is None else hit
                if piece:
                    end += len(piece)
                    style = state.style
                    if styles and styles[-1] == style:
                        ends[-1] = end
                    else:
                        styles.append(style)
                        ends.append(end)
                        droppable.append(state.drops_blanks)
            # Trailing default blanks are not kept (a run of only those goes whole).
            while styles and droppable[-1]:
                start = ends[-2] if len(ends) > 1 else 0
                kept = len(plain[start : ends[-1]].rstrip(" "))
                if kept:
                    ends[-1] = start + kept
                    break
                styles.pop()
                ends.pop()
                droppable.pop()
            if not styles:
                append("")
            elif len(styles) == 1:
                style = styles[0]
                text = plain[: ends[0]]
                append(text if style == default_style else (text, style))
            else:
                parts: list[Any] = [None] * (2 * len(styles))
                parts[0] = plain[: ends[-1]]
                parts[1::2] = styles
                parts[2::2] = ends[:-1]
                append(tuple(parts))
        return out, state

    def _deferred_lines(self, screen: Any, lines: list[str], top: int, bottom: int) -> bool:
        """Lines of text and SGR, none wider than the screen, drawn from the cursor at column 0 of
        the blank bottom row (SGR a pure computation), each scrolling the region [top, bottom] once:
        without building a row for any of them. Those that scroll away go into the scrollback as
        they came (`_lazy_lines`; or nowhere, if it keeps none); those left on the screen are
        deferred (`Buffer.deferred`: built when something reads them, unless they scroll away
        first). The state after a run of lines is walked from its last SGR reset
        (`_state_after`). False, with nothing done, when a line is wider than the screen."""
        visible = _SGR_SEQ.sub("", "\r\n".join(lines)).split("\r\n")  # their text
        if max(map(len, visible)) > screen.columns:
            return False
        cursor = screen.cursor
        reverse = DECSCNM in screen.mode  # (SGR changes no mode)
        state = self._sgr_state(screen, cursor.attrs, reverse)
        keep = screen._scrolls_into_history(top, bottom)
        gone = max(0, len(lines) - (bottom - top))  # lines that scroll away at once
        kept: list[Stored] = []
        if gone:
            head = "\r\n".join(lines[:gone])
            if keep:
                kept = self._lazy_lines(screen, lines[:gone], state.attrs, reverse)
            state = self._state_after(screen, head, state, reverse)
        tail = lines[gone:]
        screen._scroll_in([None] * len(tail), len(lines), top, bottom, kept, None)
        if tail:
            first = bottom - len(tail)
            build, leave = self._build_deferred, self._leave_deferred
            screen.buffer.deferred.append(
                Deferred(first, tail, state.attrs, reverse, screen.default_char, build, leave)
            )
            state = self._state_after(screen, "\r\n".join(tail), state, reverse)
        cursor.attrs = state.attrs
        last = next(filter(None, reversed(visible)), "")
        if last:
            screen._last_char = last[-1]
        cursor.x = 0
        cursor.y = bottom
        return True

    def _build_deferred(self, deferred: Deferred) -> list[Packed]:
        """Deferred rows, built as the styled-lines path builds rows (under the DECSCNM of then)."""
        screen: Any = self.listener
        reverse = deferred.reverse
        with self._as_drawn(screen, reverse):
            state = self._sgr_state(screen, deferred.attrs, reverse)
            step = self._sgr_step
            cells_of = self._cells_of
            default = deferred.default
            rows: list[Packed] = []
            for text in deferred.lines:
                runs_t: list[str] = []
                runs_c: list[Any] = []
                for sgrs, piece in _pieces(text):
                    if sgrs:
                        after = state.after.get(sgrs)
                        state = step(screen, state, sgrs, reverse) if after is None else after
                    if piece:
                        cells = cells_of(screen, state)
                        if runs_c and runs_c[-1] is cells:
                            runs_t[-1] += piece
                        else:
                            runs_t.append(piece)
                            runs_c.append(cells)
                rows.append(Packed.of_runs(default, runs_t, runs_c, sum(map(len, runs_t))))
        return rows

    def _leave_deferred(self, deferred: Deferred, count: int, keep: bool) -> list[Stored]:
        """The first `count` deferred rows scroll out of the region: they are no longer deferred;
        their scrollback lines as they came, when `keep`."""
        screen: Any = self.listener
        lines = deferred.lines[:count]
        out = self._lazy_lines(screen, lines, deferred.attrs, deferred.reverse) if keep else []
        if count < len(deferred.lines):  # the rest start from the attributes after these
            with self._as_drawn(screen, deferred.reverse):
                state = self._sgr_state(screen, deferred.attrs, deferred.reverse)
                deferred.attrs = self._state_after(screen, "\r\n".join(lines), state, deferred.reverse).attrs
        del deferred.lines[:count]
        return out

    @staticmethod
    @contextmanager
    def _as_drawn(screen: Any, reverse: bool) -> Iterator[None]:
        """SGR walked later as it was when the lines came: under the DECSCNM of then (SGR 0 resets
        to the default cell, which DECSCNM changes), the cursor's attributes left as they are (the
        walk leaves its last state there)."""
        mode = screen.mode
        flip = (DECSCNM in mode) != reverse
        saved = screen.cursor.attrs
        if flip:
            mode.symmetric_difference_update({DECSCNM})
        try:
            yield
        finally:
            if flip:
                mode.symmetric_difference_update({DECSCNM})
            screen.cursor.attrs = saved

    def _lazy_lines(self, screen: Any, lines: list[str], attrs: Any, reverse: bool) -> list[Any]:
        """`lines` (text and SGR, none wider than the screen, each drawn from column 0 of a blank
        row that then scrolls away, the first from attributes `attrs`) as lazy scrollback lines:
        one block, expanded by `_expand_block` when one of them is read. The block holds only
        strings, booleans and plain tuples, so that scrollback stays invisible to the cycle
        collector."""
        ext = getattr(attrs, "ext", None)
        block = ("\r\n".join(lines), tuple(attrs), None if ext is None else tuple(ext), reverse)
        screen.history.expander = self._expand_block
        return list(zip(repeat(block), range(len(lines))))

    def _expand_block(self, block: tuple[Any, ...]) -> list[Stored]:
        """A lazy block's stored lines, as `_stored_lines` made them when the lines arrived: SGR is
        walked from the attributes the block started with, under the DECSCNM of then."""
        head, fields, ext, reverse = block
        screen: Any = self.listener
        attrs = tuple.__new__(Char, fields)
        if ext is not None:
            attrs.ext = Ext(*ext)
        with self._as_drawn(screen, reverse):
            lines = head.split("\r\n")
            visible = _SGR_SEQ.sub("", head).split("\r\n")
            out, _ = self._stored_lines(screen, lines, visible, self._sgr_state(screen, attrs, reverse), reverse)
        return out

    def _state_after(self, screen: Any, text: str, state: SgrState, reverse: bool) -> SgrState:
        """The state after the SGR sequences in `text` (text and SGR only) from `state`. SGR with a
        first parameter of 0 (or none) sets every attribute but the link, which SGR never changes:
        from the last such sequence on, the state does not depend on the one before, so only the
        sequences from there are walked."""
        end = len(text)
        while (at := text.rfind("\x1b[", 0, end)) >= 0:
            if _resets(text[at + 2 : text.index("m", at)]):
                break
            end = at
        step = self._sgr_step
        runs = _SGR_RUNS.findall(text, max(at, 0))
        if at >= 0 and len(runs) <= _SGR_SUFFIX_RUNS:  # (a short suffix: one transition, remembered)
            runs = ["".join(runs)]
        for sgrs in runs:
            hit = state.after.get(sgrs)
            state = step(screen, state, sgrs, reverse) if hit is None else hit
        return state

    def _sgr_state(self, screen: Any, attrs: Any, reverse: bool) -> SgrState:
        """The state for drawing with `attrs` (under DECSCNM or not), made once per attributes."""
        key = (attrs, getattr(attrs, "ext", None), reverse)
        state = self._f_states.get(key)
        if state is None:
            if len(self._f_states) >= _SGR_CACHE_LIMIT:
                self._f_states.clear()  # (states already linked stay valid: a transition never changes)
            state = self._f_states[key] = SgrState(attrs, screen.default_char)
        return state

    @staticmethod
    def _cells_of(screen: Any, state: SgrState) -> Cells:
        """The cells of a state's attributes (made on first use)."""
        cells = state.cells
        if cells is None:
            cells = state.cells = screen._cells(state.attrs)
        return cells

    def _sgr_step(self, screen: Any, state: SgrState, sgrs: str, reverse: bool) -> SgrState:
        """The state after the SGR sequences `sgrs` from `state`, remembered on it."""
        screen.cursor.attrs = state.attrs
        self._apply_sgrs(sgrs)  # (SGR goes to the SGR handler: the callers checked)
        after = self._sgr_state(screen, screen.cursor.attrs, reverse)
        if len(state.after) >= _SGR_STEPS_LIMIT:
            state.after.clear()
        state.after[sgrs] = after
        return after

    def _apply_sgrs(self, sgrs: str) -> bool:
        """Dispatch SGR sequences in order as the reference parser would; True when each went to the
        reference SGR handler (whose only effect is cursor.attrs)."""
        if self._f_sgr_direct:  # the reference SGR handler: its computation, without the dispatch
            screen: Any = self.listener
            attrs = screen.cursor.attrs
            compute = screen._compute_sgr
            for params in _SGR_SEQ.findall(sgrs):
                attrs = compute(attrs, tuple(_csi_args(params)))
            # Equal attributes are one object, as the handler's own cache makes them: the caches
            # keyed by the attributes' identity then find what they hold for them.
            key = (attrs, getattr(attrs, "ext", None))
            known = self._f_attrs.get(key)
            if known is None:
                if len(self._f_attrs) >= _SGR_CACHE_LIMIT:
                    self._f_attrs.clear()
                known = self._f_attrs[key] = attrs
            screen.cursor.attrs = known
            return True
        plans = self._f_plans
        pure = True
        for m in _SGR_SEQ.finditer(sgrs):
            seq = m.group(0)
            plan = plans.get(seq)
            if plan is None:
                plan = self._plan_csi("", m.group(1), "m")
                if len(plans) >= _PLAN_CACHE_LIMIT:
                    plans.clear()
                plans[seq] = plan
            how, fn, args = plan
            if how == 1:
                fn(*args, private=True)
            else:
                fn(*args)
            pure = pure and how == 2
        return pure

    def _plan_csi(self, private: str, params: str, final: str) -> tuple[int, Callable[..., Any], tuple[Any, ...]]:
        """How the reference parser dispatches `CSI [?] params final` (digits and ';' only):
        (0, fn, args) for fn(*args), (1, fn, args) for fn(*args, private=True), (2, ...) for SGR."""
        key = "?" + final if private else final
        entry = self._csi_table.get(key)
        if entry is None:
            return 0, self.listener.debug, (key, params)  # type: ignore[union-attr]
        handler, count, how = entry
        args = _csi_args(params)
        if how == "n":
            return 0, handler, tuple(args[:count])
        if how == "sgr":
            return (2 if key == "m" else 0), handler, tuple(args)
        if how == "all":
            return 0, handler, tuple(args)
        if how == "allp":
            return 1, handler, tuple(args)
        if how == "p":
            return 1, handler, tuple(args[:count])
        return 0, self._dispatch_csi, (("?" if private else "") + params, "", final)


class Stream(FastStreamMixin, _ReferenceStream):
    """termux's Stream (text in): the reference parser with its fast path."""


class ByteStream(FastStreamMixin, _ReferenceByteStream):
    """termux's ByteStream (`feed(bytes)`): the reference parser with its fast path."""


def _csi_args(params: str) -> list[int]:
    """A CSI's parameters (digits and ';') as the reference parser reads them: at most _MAX_PARAMS,
    an empty one 0, each at most _MAX_VALUE."""
    if not params:
        return [0]
    args = [(int(p) if len(p) < 6 else _MAX_VALUE) if p else 0 for p in params.split(";", _MAX_PARAMS)[:_MAX_PARAMS]]
    return [a if a < _MAX_VALUE else _MAX_VALUE for a in args]


def _first_columns(texts: list[str], cells: list[Any], limit: int) -> tuple[list[str], list[Any]]:
    """The runs of the first `limit` characters."""
    out_t: list[str] = []
    out_c: list[Any] = []
    room = limit
    for t, c in zip(texts, cells, strict=True):
        if room <= 0:
            break
        out_t.append(t[:room])
        out_c.append(c)
        room -= len(t)
    return out_t, out_c


def _wrap_runs(texts: list[str], cells: list[Any], columns: int) -> list[tuple[list[str], list[Any], int]]:
    """A line of runs cut into rows of `columns` characters (autowrap): each row's runs and length."""
    rows: list[tuple[list[str], list[Any], int]] = []
    row_t: list[str] = []
    row_c: list[Any] = []
    room = columns
    for t, c in zip(texts, cells, strict=True):
        while t:
            piece = t[:room]
            row_t.append(piece)
            row_c.append(c)
            room -= len(piece)
            t = t[len(piece) :]
            if not room:
                rows.append((row_t, row_c, columns))
                row_t, row_c, room = [], [], columns
    if row_t:
        rows.append((row_t, row_c, columns - room))
    return rows


__all__ = ["ByteStream", "FastScreenBase", "Screen", "Stream"]
