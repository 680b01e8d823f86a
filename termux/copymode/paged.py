"""A LineSource over a session's lines, fetched from the server a page at a time. No I/O here: the
source says which lines it lacks (`Unavailable`), its owner fetches them (`session.capture` with
`escapes`, `wrapped` and the pinned `base`) and hands them over (`fill`), and the model is fed again.

Numbering: the source pins the numbering of the moment copy mode opened. The capture that opens it
says `base`, the absolute number of the screen's top line (lines ever scrolled into history); every
later capture passes that `base` back, and the server answers under the same numbers however much
output arrived since. `first` and `last` stay fixed while the source is used, as the model needs.
Lines the history's bound dropped meanwhile come back empty.

Fetching: a screenful at a time. A missing range is widened to `page` lines (the view's height)
away from what is held, so opening copy mode costs one capture of one screenful, and a line's
scroll upwards one more screenful; a search step asks for its batch in one capture. At most
`limit` lines are held: past it the least recently read pages go (and are fetched again if needed).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from typing import NamedTuple

from .lines import Line, Unavailable

MAX_HELD = 20_000  # lines a source holds at most

# What `session.capture` with `escapes` puts in a line: SGR sequences and OSC 8 hyperlinks.
_ESCAPE = re.compile(r"\x1b\[[0-9;:]*m|\x1b\]8;[^;\x07\x1b]*;([^\x07\x1b]*)(?:\x1b\\|\x07)")


class Styled(NamedTuple):
    """A captured line: its text, the line as captured (with escapes, to draw), and its hyperlinks
    as (first character, character after the last, target) in `text`."""

    line: Line
    escaped: str
    links: tuple[tuple[int, int, str], ...] = ()


def split_styled(escaped: str, wrapped: bool = False) -> Styled:
    """A line captured with escapes: the plain text the model reads, and where its links are."""
    if "\x1b" not in escaped:
        return Styled(Line(escaped, wrapped), escaped)
    parts: list[str] = []
    links: list[tuple[int, int, str]] = []
    at = 0  # characters of plain text so far
    link, link_start = "", 0
    last = 0
    for match in _ESCAPE.finditer(escaped):
        piece = escaped[last : match.start()]
        parts.append(piece)
        at += len(piece)
        last = match.end()
        target = match.group(1)
        if target is not None:  # an OSC 8: a link starts, or ends ("")
            if link and at > link_start:
                links.append((link_start, at, link))
            link, link_start = target, at
    piece = escaped[last:]
    parts.append(piece)
    at += len(piece)
    if link and at > link_start:
        links.append((link_start, at, link))
    return Styled(Line("".join(parts), wrapped), escaped, tuple(links))


def plain_text(escaped: str) -> str:
    """The text of a line captured with escapes (what `split_styled` says, without the links)."""
    return _ESCAPE.sub("", escaped) if "\x1b" in escaped else escaped


class Page(NamedTuple):
    """Consecutive lines as the model reads them, and as captured with escapes (to draw; None for
    a line fetched as plain text, to be searched: `unstyled` finds them before they are drawn)."""

    lines: list[Line]
    escaped: list[str | None]


EMPTY_LINE = Line("")


class PagedLines:
    """Lines `first`..`last` of a session under the numbering pinned by `base`, `width` columns."""

    def __init__(self, first: int, last: int, width: int, base: int, page: int, limit: int = MAX_HELD) -> None:
        self._first, self._last, self._width = first, last, width
        self.base = base
        self.page = max(1, page)
        self.limit = max(self.page, limit)
        self._pages: OrderedDict[int, Page] = OrderedDict()  # by first line, the least recently read first
        self._starts: list[int] = []  # the pages' starts, ascending (pages never overlap)
        self.held = 0
        self.fetched = 0  # lines filled in all (tests prove what was read)

    @property
    def first(self) -> int:
        return self._first

    @property
    def last(self) -> int:
        return self._last

    @property
    def width(self) -> int:
        return self._width

    # -- the LineSource interface ------------------------------------------------------------

    def lines(self, start: int, stop: int) -> Sequence[Line]:
        out: list[Line] = []
        for _, page, lo, hi in self._read(start, stop):
            out.extend(page.lines[lo:hi])
        return out

    def styled(self, start: int, stop: int) -> list[Styled]:
        """Lines `start` <= i < `stop` as captured, with their links (to draw a screenful); a
        line fetched as plain text draws as it (see `unstyled`)."""
        out: list[Styled] = []
        for _, page, lo, hi in self._read(start, stop):
            out.extend(map(_styled, page.lines[lo:hi], page.escaped[lo:hi]))
        return out

    def unstyled(self, start: int, stop: int) -> tuple[int, int] | None:
        """The first run of lines in `start`..`stop` (held) fetched as plain text, to fetch with
        escapes before drawing them; None when there is none."""
        run: list[int] = []
        for page_start, page, lo, hi in self._read(start, stop):
            for k in range(lo, hi):
                if page.escaped[k] is None:
                    run.append(page_start + k)
                elif run:
                    return run[0], run[-1] + 1
        return (run[0], run[-1] + 1) if run else None

    def restyle(self, start: int, escaped: Sequence[str]) -> None:
        """The captured text (with escapes) of held lines from `start` on, for drawing them."""
        for k, text in enumerate(escaped):
            found = self._page_at(start + k)
            if found is not None:
                page_start = self._starts[found]
                self._pages[page_start].escaped[start + k - page_start] = text


    def _read(self, start: int, stop: int) -> list[tuple[int, Page, int, int]]:
        """The pages holding lines `start`..`stop` (each with its first line) and the part of each,
        or raise Unavailable for the range to fetch."""
        if not self._first <= start < stop <= self._last + 1:
            raise IndexError(f"lines {start}..{stop - 1} are outside {self._first}..{self._last}")
        parts: list[tuple[int, Page, int, int]] = []
        i = start
        while i < stop:
            found = self._page_at(i)
            if found is None:
                raise Unavailable(*self.wanted(i, stop))
            page_start = self._starts[found]
            page = self._pages[page_start]
            self._pages.move_to_end(page_start)
            lo, hi = i - page_start, min(stop - page_start, len(page.lines))
            parts.append((page_start, page, lo, hi))
            i = page_start + hi
        return parts

    # -- fetching ----------------------------------------------------------------------------

    def wanted(self, start: int, stop: int) -> tuple[int, int]:
        """The range to fetch for a read of `start`..`stop` that found `start` missing: from
        `start` up to the next held line, widened to a page away from the held lines."""
        after = bisect_right(self._starts, start)
        next_held = self._starts[after] if after < len(self._starts) else self._last + 1
        before = self._starts[after - 1] if after > 0 else None
        prev_held_end = before + len(self._pages[before].lines) if before is not None else self._first
        lo, hi = start, min(stop, next_held)
        if hi - lo < self.page:
            if prev_held_end == lo and lo > self._first:  # held just above: grow downwards
                hi = min(next_held, lo + self.page)
            else:
                lo = max(prev_held_end, hi - self.page)
            if hi - lo < self.page:
                hi = min(next_held, lo + self.page)
        return lo, hi

    def fill(
        self,
        start: int,
        stop: int,
        got_start: int,
        escaped: Sequence[str],
        wrapped: Sequence[bool],
        plain: bool = False,
    ) -> None:
        """The lines fetched for `start`..`stop`: the capture returned `escaped` (with `wrapped`)
        from `got_start` on; lines it did not return (gone from the history) are empty. `plain`:
        captured without escapes (a search's batch), to be fetched again with them if drawn."""
        # One pass over the lines in C where it can be: most lines hold no escape.
        before = min(stop - start, max(0, got_start - start))  # lines gone from the history meanwhile
        skip = max(0, start - got_start)
        texts = list(escaped[skip : skip + stop - start - before])
        flags = list(map(bool, wrapped[skip : skip + len(texts)]))
        flags += [False] * (len(texts) - len(flags))
        got = [
            Line(text, flag) if "\x1b" not in text else Line(plain_text(text), flag)
            for text, flag in zip(texts, flags, strict=True)
        ]
        after = stop - start - before - len(got)
        lines = [EMPTY_LINE] * before + got + [EMPTY_LINE] * after
        captured: list[str | None] = [None] * len(texts) if plain else list(texts)
        kept: list[str | None] = [""] * before + captured + [""] * after
        # Keep pages disjoint: whatever is held already in the range stays as it is.
        i = start
        while i < stop:
            page = self._page_at(i)
            if page is not None:
                page_start = self._starts[page]
                i = page_start + len(self._pages[page_start].lines)
                continue
            following = bisect_right(self._starts, i)
            end = min(stop, self._starts[following] if following < len(self._starts) else stop)
            self._add(i, Page(lines[i - start : end - start], kept[i - start : end - start]))
            i = end
        self._evict()

    def _add(self, start: int, page: Page) -> None:
        self._pages[start] = page
        self._starts.insert(bisect_right(self._starts, start), start)
        self.held += len(page.lines)
        self.fetched += len(page.lines)

    def _evict(self) -> None:
        while self.held > self.limit and len(self._pages) > 1:
            start, page = self._pages.popitem(last=False)
            self._starts.remove(start)
            self.held -= len(page.lines)

    def _page_at(self, i: int) -> int | None:
        """The index in `_starts` of the page holding line i, or None."""
        k = bisect_right(self._starts, i) - 1
        if k >= 0:
            start = self._starts[k]
            if i < start + len(self._pages[start].lines):
                return k
        return None


def _styled(line: Line, escaped: str | None) -> Styled:
    if escaped is None:
        return Styled(line, line.text)
    if "\x1b]8;" not in escaped:
        return Styled(line, escaped)
    return split_styled(escaped, line.wrapped)
