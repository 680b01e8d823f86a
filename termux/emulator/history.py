"""Compact scrollback: a bounded deque of lines, read as tuples of (text, style) runs.

A line is read as runs (`Line`) but stored smaller (`Stored`): a line of text in the default style is
just its string; any other line is one tuple holding the whole text, then each run's style and where
it ends — `(text, style)`, `(text, style0, end0, style1)`, … — instead of a tuple and a string per run.
Styles are interned so equal runs share one object.

Scrollback is invisible to Python's cycle collector: a style is a `RunStyle` (a msgspec Struct made
with gc=False) rather than a cell namedtuple, so runs and lines are tuples of untracked objects,
which the collector stops tracking. With a cell as the style every line stayed tracked, and each
full collection walked all of them: 160,000 lines of history (16 sessions) made it a 50 ms pause of
the server's loop, measured in `python -m benchmarks.gc_pause`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Any

import msgspec


class RunStyle(msgspec.Struct, frozen=True, gc=False):
    """The attributes of a run of text: a cell's fields but `data`, and its extras (`ext`).

    Read like a cell (`style.fg`, `style.bold`, `style.ext`). Safe untracked: it only ever holds
    strings, booleans and the immutable `ext`, so it cannot be part of a reference cycle."""

    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    italics: bool = False
    underscore: bool = False
    strikethrough: bool = False
    reverse: bool = False
    blink: bool = False
    ext: Any = None


Style = RunStyle
Run = tuple[str, Style]
Line = tuple[Run, ...]
# A line as the scrollback keeps it: str (one run in the default style, "" for an empty line) or
# (text, style0, end0, style1, end1, ..., styleN), run i being text[end(i-1):end(i)].
Stored = str | tuple[Any, ...]

EMPTY_LINE: Line = ()
DEFAULT_STYLE = RunStyle()


def pack_line(line: Line) -> Stored:
    """A line of runs in its stored form."""
    if not line:
        return ""
    if len(line) == 1:
        text, style = line[0]
        return text if text and style == DEFAULT_STYLE else (text, style)
    out: list[Any] = [None]
    end = 0
    for text, style in line:
        if len(out) > 1:
            out.append(end)
        out.append(style)
        end += len(text)
    out[0] = "".join(text for text, _ in line)
    return tuple(out)


def unpack_line(stored: Stored) -> Line:
    """A stored line as runs."""
    if stored.__class__ is str:
        return ((stored, DEFAULT_STYLE),) if stored else EMPTY_LINE  # type: ignore[return-value]
    parts: tuple[Any, ...] = stored  # type: ignore[assignment]
    text: str = parts[0]
    n = len(parts)
    if n == 2:
        return ((text, parts[1]),)
    runs: list[Run] = []
    start = 0
    for i in range(1, n - 1, 2):
        end: int = parts[i + 1]
        runs.append((text[start:end], parts[i]))
        start = end
    runs.append((text[start:], parts[n - 1]))
    return tuple(runs)

# Interning table for run styles; bounded so that adversarial 24-bit colours cannot grow it forever
# (when full it is emptied: lines keep the styles they hold, later lines intern anew).
_STYLE_CACHE_LIMIT = 4096
_styles: dict[tuple[Any, Any], Style] = {}


def style_key(cell: Any) -> tuple[Any, Any]:
    """What makes two cells look alike apart from their text: the attribute fields and the extras."""
    return (cell[1:], getattr(cell, "ext", None))


def intern_style(cell: Any) -> Style:
    key = style_key(cell)
    style = _styles.get(key)
    if style is None:
        fg, bg, bold, italics, underscore, strikethrough, reverse, blink = key[0]
        style = RunStyle(fg, bg, bold, italics, underscore, strikethrough, reverse, blink, key[1])
        if len(_styles) >= _STYLE_CACHE_LIMIT:
            _styles.clear()
        _styles[key] = style
    return style


_attrs_of = itemgetter(1, 2, 3, 4, 5, 6, 7, 8)
_data_of = itemgetter(0)
_ext_attr = attrgetter("ext")


def _ext_of(cell: Any) -> Any:
    return getattr(cell, "ext", None)


def compact_line(line: Mapping[int, Any] | None, columns: int, default: Any) -> Line:
    """Turn one buffer line (a sparse column -> cell mapping) into runs of equally styled text.

    Trailing cells equal to ``default`` (never written, or erased to the default style) are dropped.
    Wide-character stubs (cells holding "") contribute nothing to the text, as in ``Screen.display``.
    Runs on every line that scrolls into history, so the per-cell work is done by C-level maps.
    """
    if not line:
        return EMPTY_LINE
    last = -1
    for x in sorted(line, reverse=True):
        if x < columns:
            cell = line[x]
            if cell != default or _ext_of(cell) is not None:
                last = x
                break
    if last < 0:
        return EMPTY_LINE
    cells = list(map(line.get, range(last + 1), repeat(default)))
    styles = list(map(_attrs_of, cells))
    try:
        exts = list(map(_ext_attr, cells))  # termux cells always have `ext` (None by default)
    except AttributeError:
        exts = list(map(_ext_of, cells))  # plain pyte cells put in by hand
    n = len(cells)
    if styles.count(styles[0]) == n and exts.count(exts[0]) == n:
        return (("".join(map(_data_of, cells)), intern_style(cells[0])),)
    runs: list[Run] = []
    start = 0
    for i in range(1, n + 1):
        if i == n or styles[i] != styles[start] or exts[i] != exts[start]:
            runs.append(("".join(map(_data_of, cells[start:i])), intern_style(cells[start])))
            start = i
    return tuple(runs)


def line_text(line: Line) -> str:
    return "".join(run[0] for run in line)


class Scrollback:
    """Lines scrolled off the top of the main screen, oldest first; at most ``maxlen`` of them.

    Policy when full: the oldest line is dropped (a deque with ``maxlen``). Read as runs (`Line`);
    kept in the stored form (`Stored`), which the Screen's fast paths hand over directly. Which lines
    were soft-wrapped (their text went on on the next line by autowrap) is kept beside them, as the
    numbers of those lines counted from the first line ever kept.
    """

    __slots__ = ("_added", "_lines", "_wraps")

    def __init__(self, maxlen: int = 10000) -> None:
        self._lines: deque[Stored] = deque(maxlen=max(0, int(maxlen)))
        self._added = 0  # lines ever kept (the number of the next one)
        self._wraps: deque[int] = deque()  # numbers of the soft-wrapped lines still kept, ascending

    @property
    def maxlen(self) -> int:
        return self._lines.maxlen or 0

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self) -> Iterator[Line]:
        return map(unpack_line, self._lines)

    def __getitem__(self, index: int) -> Line:
        return unpack_line(self._lines[index])

    def append(self, line: Line, wrapped: bool = False) -> None:
        self.append_stored(pack_line(line), wrapped)

    def extend(self, lines: Iterable[Line]) -> None:
        """Many lines at once, oldest first (none of them soft-wrapped)."""
        self.extend_stored(list(map(pack_line, lines)))

    def append_stored(self, line: Stored, wrapped: bool = False) -> None:
        if self._lines.maxlen:
            self._lines.append(line)
            if wrapped:
                self._wraps.append(self._added)
            self._added += 1
            self._forget_wraps()

    def extend_stored(self, lines: Sequence[Stored], wrapped: Iterable[int] = ()) -> None:
        """Many lines at once, oldest first; `wrapped` are the positions in `lines` of the soft-wrapped ones."""
        if self._lines.maxlen:
            self._lines.extend(lines)
            first = self._added
            self._added += len(lines)
            self._wraps.extend(map(first.__add__, wrapped))
            self._forget_wraps()

    def _forget_wraps(self) -> None:
        wraps = self._wraps
        if wraps:
            first = self._added - len(self._lines)
            while wraps and wraps[0] < first:
                wraps.popleft()

    @property
    def added(self) -> int:
        """Lines ever kept: the absolute number of the next line to arrive. Line `index` (negative
        from the newest) is number `added + index` for as long as it is kept, however many lines
        arrive after it, so a reader can pin a numbering while output goes on."""
        return self._added

    def wrapped_flags(self, start: int, stop: int) -> list[bool]:
        """Whether each of lines `start` <= i < `stop` (negative from the newest, as `wrapped`) was
        soft-wrapped, in one pass: two binary searches and the wrapped lines between."""
        n = len(self._lines)
        if not -n <= start <= stop <= 0:
            raise IndexError((start, stop))
        first = self._added + start
        flags = [False] * (stop - start)
        wraps = self._wraps
        for k in range(bisect_left(wraps, first), bisect_left(wraps, self._added + stop)):
            flags[wraps[k] - first] = True
        return flags

    def wrapped(self, index: int) -> bool:
        """Whether line `index` (negative from the newest) was soft-wrapped."""
        n = len(self._lines)
        if not -n <= index < n:
            raise IndexError(index)
        start = index - n if index >= 0 else index
        return self.wrapped_flags(start, start + 1)[0]

    def stored(self, index: int) -> Stored:
        return self._lines[index]

    def clear(self) -> None:
        self._lines.clear()
        self._wraps.clear()

    def __repr__(self) -> str:
        return f"Scrollback({len(self)}/{self.maxlen} lines)"
