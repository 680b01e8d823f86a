"""Searching a LineSource: logical lines, matches mapped back to cells, and the bounded scan.

A *logical line* is a run of rows the terminal wrapped (each but the last has `wrapped` set),
joined so that a match may cross the wrap; a row that wraps is padded to the screen's width, since
its trailing blanks were part of the text. A match is mapped back to the cells it covers, one span
per row.

`Scan` counts every match in the source and finds the one to go to, a batch of lines per `step`,
so a caller can yield between steps however long the history: each step reads at most
`budget + MAX_JOIN` lines and searches them in one RE2 call (linear in their length).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate

from termux.patterns import Pattern

from .lines import Line, LineSource, cell_of_char, cells, columns

# Rows joined into one logical line at most: a longer line is searched in pieces of this many rows
# (a match across the boundary of two pieces is not found).
MAX_JOIN = 64
STEP_LINES = 2000  # lines a step reads by default

Pos = tuple[int, int]  # (line index, column)
Span = tuple[int, int, int]  # (line index, first column, column after the last)


@dataclass(frozen=True, slots=True)
class Hit:
    """One match: the cells it covers, one span per row, top to bottom."""

    spans: tuple[Span, ...]

    @property
    def start(self) -> Pos:
        y, x, _ = self.spans[0]
        return (y, x)


class Group:
    """One logical line: rows `start` .. `start + len(lines) - 1` joined."""

    __slots__ = ("lines", "offsets", "padded", "start", "text")

    def __init__(self, start: int, lines: Sequence[Line], width: int) -> None:
        self.start = start
        self.lines = lines
        self.padded: list[str] = []
        for i, line in enumerate(lines):
            text = line.text
            if line.wrapped and i < len(lines) - 1:
                text += " " * max(0, width - columns(text))
            self.padded.append(text)
        self.offsets = list(accumulate((len(text) for text in self.padded), initial=0))
        self.text = "".join(self.padded)

    @property
    def stop(self) -> int:
        return self.start + len(self.lines)

    def _row_column(self, offset: int) -> tuple[int, int, int]:
        """(row, column, width) of the cell holding the character at `offset` of `text`."""
        row = min(bisect_right(self.offsets, offset) - 1, len(self.lines) - 1)
        text = self.lines[row].text
        local = offset - self.offsets[row]
        if local >= len(text):  # in the padding
            return row, columns(text) + local - len(text), 1
        laid = cells(text)
        cell = laid[cell_of_char(laid, local)]
        return row, cell.x, cell.width

    def position(self, offset: int) -> Pos:
        row, x, _ = self._row_column(offset)
        return (self.start + row, x)

    def hit(self, start: int, end: int) -> Hit:
        """The cells covered by `text[start:end]` (end > start)."""
        first_row, x0, _ = self._row_column(start)
        last_row, x1, width = self._row_column(end - 1)
        spans: list[Span] = []
        for row in range(first_row, last_row + 1):
            left = x0 if row == first_row else 0
            right = x1 + width if row == last_row else columns(self.padded[row])
            spans.append((self.start + row, left, right))
        return Hit(tuple(spans))


def group_starts(lines: Sequence[Line]) -> Sequence[int]:
    """Where each logical line begins, as offsets into `lines` (whose first row begins one). A
    logical line ends at a row that does not wrap, after MAX_JOIN rows, or at the end of `lines`."""
    if not any(map(_wrapped, lines)):
        return range(len(lines))  # nothing wraps: a row is a line (the common case, kept cheap)
    starts = [0]
    for i, line in enumerate(lines[:-1]):
        if not line.wrapped or i + 1 - starts[-1] == MAX_JOIN:
            starts.append(i + 1)
    return starts


class Batch:
    """Consecutive rows split into logical lines (at `starts`), searched in one call: each row is
    looked at once, in C (joining, encoding, RE2), and a logical line becomes a `Group` only if a
    match is found in it."""

    def __init__(self, start: int, lines: Sequence[Line], starts: Sequence[int], width: int) -> None:
        self.start = start
        self.lines = lines
        self.starts = starts
        self.width = width
        if isinstance(starts, range):
            texts = list(map(_text, lines))
        else:
            ends = [*starts[1:], len(lines)]
            texts = [Group(0, lines[a:b], width).text for a, b in zip(starts, ends, strict=True)]
        self.data = "\n".join(texts).encode("utf-8", "surrogateescape")
        self.ascii = len(self.data) == sum(map(len, texts)) + len(texts) - 1
        self._groups: dict[int, Group] = {}

    def __len__(self) -> int:
        return len(self.starts)

    def row_range(self, k: int) -> tuple[int, int]:
        """Rows [first, stop) of logical line k."""
        stop = self.starts[k + 1] if k + 1 < len(self.starts) else len(self.lines)
        return self.start + self.starts[k], self.start + stop

    def group(self, k: int) -> Group:
        if (group := self._groups.get(k)) is None:
            first, stop = self.row_range(k)
            group = self._groups[k] = Group(first, self.lines[first - self.start : stop - self.start], self.width)
        return group

    def groups(self) -> list[Group]:
        return [self.group(k) for k in range(len(self))]

    def matches(self, pattern: Pattern) -> Iterator[tuple[int, int, int]]:
        """Every non-empty match, in order: (logical line, start, end), offsets of its text. The
        newlines joining the lines are never part of a match (never_nl)."""
        data = self.data
        k = 0
        at = 0  # the last match's start: newlines before it are counted
        line_start = 0  # where line k's bytes begin
        for byte_start, byte_end in pattern.spans(data):
            newlines = data.count(b"\n", at, byte_start)
            if newlines:
                k += newlines
                line_start = data.rfind(b"\n", at, byte_start) + 1
            at = byte_start
            if self.ascii:  # bytes are characters
                yield k, byte_start - line_start, byte_end - line_start
            else:
                offset = len(data[line_start:byte_start].decode("utf-8", "surrogateescape"))
                yield k, offset, offset + len(data[byte_start:byte_end].decode("utf-8", "surrogateescape"))


def _wrapped(line: Line) -> bool:
    return line.wrapped


def _text(line: Line) -> str:
    return line.text


def window_hits(source: LineSource, pattern: Pattern, top: int, rows: Sequence[Line]) -> list[Hit]:
    """The matches to highlight in rows `top` .. `top + len(rows) - 1`, including the parts of
    matches that cross into them from a logical line wrapped above or below (reading those rows:
    one above the window, and more only when they wrap)."""
    if not rows:
        return []
    start, stop = top, top + len(rows)
    lines = list(rows)
    if start > source.first and source.lines(start - 1, start)[0].wrapped:
        above_start = max(source.first, start - MAX_JOIN)
        above = source.lines(above_start, start)
        begin = len(above) - 1
        while begin > 0 and above[begin - 1].wrapped:
            begin -= 1
        lines[:0] = list(above[begin:])
        start = above_start + begin
    if lines[-1].wrapped and stop <= source.last:
        below = source.lines(stop, min(source.last + 1, stop + MAX_JOIN))
        end = 0
        while end < len(below) - 1 and below[end].wrapped:
            end += 1
        lines.extend(below[: end + 1])
    hits: list[Hit] = []
    batch = Batch(start, lines, group_starts(lines), source.width)
    for k, begin_offset, end_offset in batch.matches(pattern):
        hit = batch.group(k).hit(begin_offset, end_offset)
        spans = tuple(span for span in hit.spans if top <= span[0] < top + len(rows))
        if spans:
            hits.append(Hit(spans))
    return hits


class Scan:
    """Counts the matches of `pattern` in `source` and finds the one to go to from `origin`: the
    first after it (`forward`) or the last before it, wrapping around the ends as tmux does. Call
    `step` until `done`; `target` is set as soon as it is known (usually in the first steps, since
    the scan starts at the origin and goes in the search's direction) and `index`, its number
    counting from the top, once everything is counted. With `count=False` the scan stops at the
    target (`n` after a counted search: the total is known already).

    A step changes nothing when the source raises Unavailable: feed it the lines, step again."""

    def __init__(self, source: LineSource, pattern: Pattern, origin: Pos, forward: bool, *, count: bool = True):
        self.source = source
        self.pattern = pattern
        self.origin = origin
        self.forward = forward
        self.count = count
        self.target: Hit | None = None
        self.total = 0  # matches counted so far
        self.done = False
        self.lines_read = 0
        self._upto = 0  # matches starting at or before the origin
        self._below = 0  # matches starting before the origin
        self._wrapped = False  # the target was found past an end of the source
        self._fallback: Hit | None = None  # where to go if nothing lies in the search's direction
        self._segments: list[tuple[int, int]] = []  # [lo, hi) line ranges still to visit, in order
        self._next = 0  # forward: the next line to read; backward: the line after the next batch
        self._two_segments = False  # the scan wraps past an end of the source
        self._begun = False

    @property
    def index(self) -> int | None:
        """The target's number among all matches, counting from the top (1-based), once counted."""
        if not self.done or not self.count or self.target is None:
            return None
        if self.forward:
            return 1 if self._wrapped else self._upto + 1
        return self.total if self._wrapped else self._below

    def step(self, budget: int = STEP_LINES) -> None:
        if self.done:
            return
        if not self._begun:
            self._begin()
            return
        lo, hi = self._segments[0]
        if self.forward:
            batch = self._forward_batch(hi, budget)
            self._next = batch.start + len(batch.lines)
            exhausted = self._next >= hi
        else:
            batch = self._backward_batch(lo, budget)
            self._next = batch.start
            exhausted = self._next <= lo
        self._visit(batch, wrapped=len(self._segments) == 1 and self._two_segments)
        if self.done:
            return
        if exhausted:
            self._segments.pop(0)
            if not self._segments:
                self._finish()
            else:
                self._next = self._segments[0][0] if self.forward else self._segments[0][1]

    # -- the walk --------------------------------------------------------------------------------

    def _read(self, start: int, stop: int) -> Sequence[Line]:
        lines = self.source.lines(start, stop)
        self.lines_read += len(lines)
        return lines

    def _begin(self) -> None:
        """Find the origin's logical line; the scan goes from it in the search's direction."""
        source, (y, _x) = self.source, self.origin
        lo = max(source.first, y - MAX_JOIN + 1)
        around = self._read(lo, min(source.last + 1, y + MAX_JOIN))
        start = y
        while start > lo and around[start - 1 - lo].wrapped:
            start -= 1
        end = y
        while end - lo < len(around) - 1 and around[end - lo].wrapped:
            end += 1
        first, stop = source.first, source.last + 1
        if self.forward:
            segments = [(start, stop), (first, start)]
        else:
            segments = [(first, end + 1), (end + 1, stop)]
        self._segments = [(a, b) for a, b in segments if a < b]
        self._two_segments = len(self._segments) == 2
        self._next = self._segments[0][0] if self.forward else self._segments[0][1]
        self._begun = True

    def _forward_batch(self, hi: int, budget: int) -> Batch:
        start = self._next
        lines = self._read(start, min(hi, start + budget + MAX_JOIN))
        starts = group_starts(lines)
        # Keep the logical lines that start within the budget: the last of them is complete, since
        # MAX_JOIN more rows were read (the rest are read again next step).
        kept = max(1, bisect_left(starts, budget))
        rows = starts[kept] if kept < len(starts) else len(lines)
        return Batch(start, lines[:rows], starts[:kept], self.source.width)

    def _backward_batch(self, lo: int, budget: int) -> Batch:
        stop = self._next
        read_lo = max(lo, stop - budget - MAX_JOIN)
        lines = self._read(read_lo, stop)
        # Begin at a logical line's start at or above `stop - budget`: a row whose previous row
        # does not wrap (or the segment's first row).
        wanted = max(lo, stop - budget)
        begin = wanted
        while begin > read_lo and lines[begin - 1 - read_lo].wrapped:
            begin -= 1
        if begin > lo and lines[begin - 1 - read_lo].wrapped:
            begin = wanted  # a logical line longer than what was read: cut it
        rows = lines[begin - read_lo :]
        return Batch(begin, rows, group_starts(rows), self.source.width)

    def _visit(self, batch: Batch, wrapped: bool) -> None:
        """Count the matches in the batch and pick the target: one pass, keeping only the
        matches that may become the target (the first and last, the nearest after and before)."""
        oy, origin = self.origin[0], self.origin
        first = last = first_after = last_before = None
        count = after = before = 0
        for item in batch.matches(self.pattern):
            count += 1
            if first is None:
                first = item
            last = item
            row, stop = batch.row_range(item[0])
            if stop <= oy:
                side = -1
            elif row > oy:
                side = 1
            else:
                position = batch.group(item[0]).position(item[1])
                side = -1 if position < origin else 1 if position > origin else 0
            if side < 0:
                before += 1
                last_before = item
            elif side > 0:
                after += 1
                if first_after is None:
                    first_after = item
        if first is None or last is None:
            return
        self.total += count
        self._below += before
        self._upto += count - after
        if self._fallback is None:
            edge = first if self.forward else last
            self._fallback = batch.group(edge[0]).hit(edge[1], edge[2])
        if self.target is not None:
            return
        if wrapped:  # past an end: the first (last) match there is the one
            chosen = first if self.forward else last
        elif self.forward and first_after is not None:
            chosen = first_after
        elif not self.forward and last_before is not None:
            chosen = last_before
        else:
            return
        self.target = batch.group(chosen[0]).hit(chosen[1], chosen[2])
        self._wrapped = wrapped
        if not self.count:
            self.done = True

    def _finish(self) -> None:
        self.done = True
        if self.target is None and self._fallback is not None:
            # Nothing in the search's direction, nothing past the end: the matches are all on
            # the origin's side, the first (last) of them is where the search wraps to.
            self.target = self._fallback
            self._wrapped = True
