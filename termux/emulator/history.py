"""Compact scrollback: a bounded deque of lines, read as tuples of (text, style) runs.

A line is read as runs (`Line`) but stored smaller (`Stored`): a line of text in the default style is
just its string; any other line is one tuple holding the whole text, then each run's style and where
it ends — `(text, style)`, `(text, style0, end0, style1)`, … — instead of a tuple and a string per run.
Styles are interned so equal runs share one object.

Lines of text and SGR that scroll away as a block (`ls --color`, coloured logs) may be kept as they
arrived, unexpanded: one tuple per line, `(block, index)`, where `block` is the text of the
whole block with its SGR sequences and the attributes it started with. Reading such a line expands
its block (through `Scrollback.expander`, the emulator's own SGR walk) into stored lines; the last
block expanded is remembered, so reading lines in order expands each block once.

Scrollback is invisible to Python's cycle collector: a style is a `RunStyle` (a msgspec Struct made
with gc=False) rather than a cell namedtuple, so runs and lines are tuples of untracked objects,
which the collector stops tracking. With a cell as the style every line stayed tracked, and each
full collection walked all of them: 160,000 lines of history (16 sessions) made it a 50 ms pause of
the server's loop, measured in `python -m benchmarks.gc_pause`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain, islice, repeat
from operator import attrgetter, itemgetter
from typing import Any

import msgspec

from .reflow import cut_stored, join_stored, rewrap, text_width


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

    Policy when full: the oldest line is dropped. Read as runs (`Line`); kept in the stored form
    (`Stored`), which the Screen's fast paths hand over directly. Beside each line, its wrap: 0, or
    the columns it spanned when autowrap carried its text on to the next line (soft-wrapped; reflow
    and `capture -J` join it to the next, padded to that width).

    Reflow (after the screen's width changed) goes in bounded steps: `retarget(width)` marks every
    line pending, the Screen re-cuts the newest lines it shows at once, and `reflow_step` re-cuts the
    rest, newest first, a bounded number of rows at a time. Pending lines (`_older`) come before the
    re-cut ones (`_lines`) and read as they are meanwhile, at the width they were cut at.
    """

    __slots__ = ("_expanded", "_lines", "_older", "_older_wraps", "_wraps", "added", "expander", "width")

    def __init__(self, maxlen: int = 10000) -> None:
        self._lines: deque[Stored] = deque(maxlen=max(0, int(maxlen)))
        self._wraps: deque[int] = deque(maxlen=self._lines.maxlen)  # beside _lines, one per line
        self._older: deque[Stored] = deque()  # lines still to be re-cut at `width`, oldest first
        self._older_wraps: deque[int] = deque()
        self.width = 0  # the width pending lines are re-cut at
        # The absolute number of the next line to come: lines kept so far, less those that went
        # back to the screen. Line `index` (negative from the newest) is number `added + index`
        # however many lines arrive after it (until a reflow re-cuts the lines), so a reader can
        # pin a numbering while output goes on (copy mode; `session.capture`'s `base`).
        self.added = 0
        # Expands a lazy line's block into its stored lines (set by whoever stores lazy lines);
        # the last block expanded and its lines (one block at most: what one parse made).
        self.expander: Callable[[tuple[Any, ...]], list[Stored]] | None = None
        self._expanded: tuple[tuple[Any, ...] | None, list[Stored]] = (None, [])

    def _real(self, line: Any) -> Stored:
        """A line as stored, a lazy one expanded."""
        if line.__class__ is tuple and line[0].__class__ is tuple:
            block, index = line
            done, lines = self._expanded
            if done is not block:
                if self.expander is None:
                    raise RuntimeError("a lazy scrollback line without an expander")
                lines = self.expander(block)
                self._expanded = (block, lines)
            return lines[index]  # type: ignore[no-any-return]
        return line  # type: ignore[no-any-return]

    @property
    def maxlen(self) -> int:
        return self._lines.maxlen or 0

    @property
    def pending(self) -> int:
        """Lines not yet re-cut at the screen's width (after a resize)."""
        return len(self._older)

    def __len__(self) -> int:
        return len(self._older) + len(self._lines)

    def __iter__(self) -> Iterator[Line]:
        return map(unpack_line, map(self._real, chain(self._older, self._lines)))

    def _locate(self, index: int) -> tuple[deque[Stored], deque[int], int]:
        older = len(self._older)
        n = older + len(self._lines)
        if not -n <= index < n:
            raise IndexError(index)
        index %= n
        if index < older:
            return self._older, self._older_wraps, index
        return self._lines, self._wraps, index - older

    def __getitem__(self, index: int) -> Line:
        lines, _, i = self._locate(index)
        return unpack_line(self._real(lines[i]))

    def stored(self, index: int) -> Stored:
        lines, _, i = self._locate(index)
        return self._real(lines[i])

    def wrap(self, index: int) -> int:
        """Line `index`'s wrap (negative from the newest): 0, or the columns it spanned when it was
        soft-wrapped."""
        _, wraps, i = self._locate(index)
        return wraps[i]

    def wrapped(self, index: int) -> bool:
        """Whether line `index` (negative from the newest) was soft-wrapped."""
        return self.wrap(index) != 0

    def wrapped_flags(self, start: int, stop: int) -> list[bool]:
        """Whether each of lines `start` <= i < `stop` (negative from the newest, as `wrapped`) was
        soft-wrapped, in one pass from the nearer end of each part."""
        n = len(self)
        if not -n <= start <= stop <= 0:
            raise IndexError((start, stop))
        older = len(self._older)
        first, end = n + start, n + stop  # positions counted from the oldest line
        wraps: list[int] = []
        if first < older:  # some are pending lines (a reflow is under way)
            wraps += _between(self._older_wraps, first, min(end, older))
        if end > older:
            wraps += _between(self._wraps, max(first, older) - older, end - older)
        return [w != 0 for w in wraps]

    def append(self, line: Line, wrap: int = 0) -> None:
        self.append_stored(pack_line(line), wrap)

    def extend(self, lines: Iterable[Line]) -> None:
        """Many lines at once, oldest first (none of them soft-wrapped)."""
        self.extend_stored(list(map(pack_line, lines)))

    def append_stored(self, line: Stored, wrap: int = 0) -> None:
        """One line; `wrap` as `wrap()` reads it."""
        if self._older and len(self._older) + len(self._lines) >= self.maxlen:
            self._older.popleft()  # the oldest line is a pending one
            self._older_wraps.popleft()
        if self.maxlen:
            self.added += 1
        self._lines.append(line)
        self._wraps.append(wrap)

    def extend_stored(self, lines: Sequence[Stored], wraps: Sequence[int] | None = None) -> None:
        """Many lines at once, oldest first; `wraps` beside them (None: none soft-wrapped)."""
        if wraps is not None and len(wraps) != len(lines):
            raise ValueError(f"one wrap per line: {len(wraps)} wraps for {len(lines)} lines")
        if not self.maxlen:
            return
        if self._older:
            self._drop_older(len(self._older) + len(self._lines) + len(lines) - self.maxlen)
        self._lines.extend(lines)
        self._wraps.extend(repeat(0, len(lines)) if wraps is None else wraps)
        self.added += len(lines)

    def _drop_older(self, count: int) -> None:
        for _ in range(min(count, len(self._older))):
            self._older.popleft()
            self._older_wraps.popleft()

    def clear(self) -> None:
        self._lines.clear()
        self._wraps.clear()
        self._older.clear()
        self._older_wraps.clear()
        self._expanded = (None, [])

    def reset(self) -> None:
        """As a new one: empty, numbered from 0 again, at no width (the expander stays)."""
        self.clear()
        self.added = 0
        self.width = 0

    # -- reflow

    def retarget(self, width: int) -> None:
        """The screen's width changed: every line is to be re-cut at `width`."""
        self._older.extend(self._lines)
        self._older_wraps.extend(self._wraps)
        self._lines.clear()
        self._wraps.clear()
        self.width = width

    def take_pending(self) -> list[tuple[Line, int]] | None:
        """The newest pending line, removed: its rows (runs and wrap), oldest first; None if none
        is pending. A line whose end is not pending (it goes on in the re-cut part or on the screen)
        is not whole: the caller takes it only when the rest is its own."""
        older = self._older
        if not older:
            return None
        wraps = self._older_wraps
        real = self._real
        rows = [(unpack_line(real(older.pop())), wraps.pop())]
        while older and wraps[-1]:
            rows.append((unpack_line(real(older.pop())), wraps.pop()))
        rows.reverse()
        return rows

    def pop_row(self) -> tuple[Line, int] | None:
        """The newest line, removed, cut at the current width (re-cutting pending lines first if
        need be); None when there is none."""
        if not self._lines and self._older:
            self.reflow_step(1)
        if not self._lines:
            return None
        self.added -= 1  # it goes back to the screen: the lines above keep their numbers
        return unpack_line(self._real(self._lines.pop())), self._wraps.pop()

    def extend_rows(self, rows: Sequence[tuple[Line, int]]) -> None:
        """Rows cut at the current width, oldest first, after the newest line."""
        self.extend_stored([pack_line(line) for line, _ in rows], [wrap for _, wrap in rows])

    def reflow_step(self, budget: int) -> bool:
        """Re-cut pending lines at `width`, newest first, whole lines, until about `budget` rows are
        made (at least one line); True while more are pending. The rows go before the re-cut ones;
        if they make the scrollback longer than it may be, the oldest go."""
        width = self.width
        older = self._older
        older_wraps = self._older_wraps
        made: list[Stored] = []
        made_wraps: list[int] = []
        room = self.maxlen - len(self._lines)  # rows the bound leaves for lines older than the re-cut ones
        while older and len(made) < min(budget, room):
            if not older_wraps[-1] and (len(older_wraps) < 2 or not older_wraps[-2]):
                # A line on one row (most lines), without unpacking it: as it is if it fits, else
                # cut in its stored form if it is ASCII.
                stored = self._real(older[-1])
                if text_width(stored if stored.__class__ is str else stored[0]) <= width:  # type: ignore[arg-type]
                    older.pop()
                    made.append(stored)
                    made_wraps.append(older_wraps.pop())
                    continue
                pieces = cut_stored(stored, width, DEFAULT_STYLE)
                if pieces is not None:
                    older.pop()
                    older_wraps.pop()
                    made.extend(reversed(pieces))
                    made_wraps.append(0)
                    made_wraps.extend(repeat(width, len(pieces) - 1))
                    continue
            self._recut(width, made, made_wraps)
        # Within the bound, the oldest go: pending lines first, then the oldest rows just made.
        self._drop_older(len(older) + len(made) - room)
        del made[room:], made_wraps[room:]
        self._lines.extendleft(made)  # (made is newest first: extendleft reverses it back)
        self._wraps.extendleft(made_wraps)
        return bool(older)

    def _recut(self, width: int, made: list[Stored], made_wraps: list[int]) -> None:
        """Re-cut the newest pending line at `width`, its rows appended to `made` newest first."""
        older = self._older
        older_wraps = self._older_wraps
        real = self._real
        rows: list[tuple[Stored, int]] = [(real(older.pop()), older_wraps.pop())]
        while older and older_wraps[-1]:
            rows.append((real(older.pop()), older_wraps.pop()))
        rows.reverse()
        joined = join_stored(rows, DEFAULT_STYLE)
        pieces = None if joined is None else cut_stored(joined, width, DEFAULT_STYLE)
        if pieces is not None:  # ASCII: cut as stored
            made.extend(reversed(pieces))
            made_wraps.append(0)
            made_wraps.extend(repeat(width, len(pieces) - 1))
            return
        for line, wrap in reversed(rewrap([(unpack_line(s), w) for s, w in rows], width, DEFAULT_STYLE)):
            made.append(pack_line(line))
            made_wraps.append(wrap)

    def __repr__(self) -> str:
        return f"Scrollback({len(self)}/{self.maxlen} lines)"


def _between(items: deque[int], lo: int, hi: int) -> list[int]:
    """items[lo:hi] of a deque, walked from its nearer end (indexing a deque's middle is slow)."""
    if lo < len(items) - hi:
        return list(islice(items, lo, hi))
    return list(islice(reversed(items), len(items) - hi, len(items) - lo))[::-1]
