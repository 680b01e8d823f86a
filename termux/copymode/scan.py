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

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate

from .lines import Line, LineSource, cell_of_char, cells, columns
from .pattern import Pattern

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


def group_lines(start: int, lines: Sequence[Line], width: int) -> list[Group]:
    """Split rows into logical lines; `lines[0]` is row `start` and begins one. A logical line
    ends at a row that does not wrap, after MAX_JOIN rows, or at the end of `lines`."""
    groups: list[Group] = []
    begin = 0
    for i, line in enumerate(lines):
        if not line.wrapped or i - begin + 1 == MAX_JOIN or i == len(lines) - 1:
            groups.append(Group(start + begin, lines[begin : i + 1], width))
            begin = i + 1
    return groups


def matches(groups: Sequence[Group], pattern: Pattern) -> Iterator[tuple[Group, int, int]]:
    """Every non-empty match in the groups, in order: (group, start, end) as offsets of its text.
    One search over all of them joined with newlines (a match never crosses one), in UTF-8,
    RE2's own form, so offsets are converted only for the matches found."""
    encoded = [group.text.encode("utf-8", "surrogateescape") for group in groups]
    starts = list(accumulate((len(data) + 1 for data in encoded), initial=0))
    data = b"\n".join(encoded)
    index = 0
    for byte_start, byte_end in pattern.spans(data):
        while starts[index + 1] <= byte_start:
            index += 1
        group, base = groups[index], starts[index]
        raw = encoded[index]
        if len(raw) == len(group.text):  # ASCII: bytes are characters
            yield group, byte_start - base, byte_end - base
        else:
            start = len(raw[: byte_start - base].decode("utf-8", "surrogateescape"))
            end = start + len(raw[byte_start - base : byte_end - base].decode("utf-8", "surrogateescape"))
            yield group, start, end


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
    for group, begin_offset, end_offset in matches(group_lines(start, lines, source.width), pattern):
        spans = tuple(span for span in group.hit(begin_offset, end_offset).spans if top <= span[0] < top + len(rows))
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
            groups = self._forward_batch(lo, hi, budget)
            self._next = groups[-1].stop
            exhausted = self._next >= hi
        else:
            groups = self._backward_batch(lo, hi, budget)
            self._next = groups[0].start
            exhausted = self._next <= lo
        self._visit(groups, wrapped=len(self._segments) == 1 and self._two_segments)
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

    def _forward_batch(self, lo: int, hi: int, budget: int) -> list[Group]:
        start = self._next
        lines = self._read(start, min(hi, start + budget + MAX_JOIN))
        groups = group_lines(start, lines, self.source.width)
        # Keep the logical lines that start within the budget: the last of them is complete, since
        # MAX_JOIN more rows were read (the rest are read again next step).
        kept = [group for group in groups if group.start < start + budget]
        return kept or groups[:1]

    def _backward_batch(self, lo: int, hi: int, budget: int) -> list[Group]:
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
        return group_lines(begin, lines[begin - read_lo :], self.source.width)

    def _visit(self, groups: Sequence[Group], wrapped: bool) -> None:
        """Count the matches in `groups` (consecutive, top to bottom) and pick the target."""
        oy = self.origin[0]
        found = list(matches(groups, self.pattern))
        if not found:
            return
        self.total += len(found)
        after: list[tuple[Group, int, int]] = []  # matches starting after the origin
        before: list[tuple[Group, int, int]] = []  # matches starting before it
        for item in found:
            group = item[0]
            if group.stop <= oy:
                before.append(item)
            elif group.start > oy:
                after.append(item)
            else:
                position = group.position(item[1])
                if position < self.origin:
                    before.append(item)
                elif position > self.origin:
                    after.append(item)
        self._below += len(before)
        self._upto += len(found) - len(after)
        if self._fallback is None:
            edge = found[0] if self.forward else found[-1]
            self._fallback = edge[0].hit(edge[1], edge[2])
        if self.target is not None:
            return
        if wrapped:  # past an end: the first (last) match there is the one
            chosen = found[0] if self.forward else found[-1]
        elif self.forward and after:
            chosen = after[0]
        elif not self.forward and before:
            chosen = before[-1]
        else:
            return
        self.target = chosen[0].hit(chosen[1], chosen[2])
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
