"""Compact scrollback: a bounded deque of lines, each a tuple of (text, style) runs.

A line of 80 plain characters costs one run — a tuple of one string and one shared style object —
instead of a dict of 80 cell namedtuples. Styles are interned so equal runs share one object.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any

# A style is a cell whose `data` is " ": the attributes of a run (plus its optional `ext`).
Style = Any
Run = tuple[str, Style]
Line = tuple[Run, ...]

EMPTY_LINE: Line = ()

# Interning table for run styles; bounded so that adversarial 24-bit colours cannot grow it forever.
_STYLE_CACHE_LIMIT = 4096
_styles: dict[tuple[Any, Any], Style] = {}


def style_key(cell: Any) -> tuple[Any, Any]:
    """What makes two cells look alike apart from their text: the attribute fields and the extras."""
    return (cell[1:], getattr(cell, "ext", None))


def intern_style(cell: Any) -> Style:
    key = style_key(cell)
    style = _styles.get(key)
    if style is None:
        style = cell._replace(data=" ") if cell[0] != " " else cell
        if len(_styles) >= _STYLE_CACHE_LIMIT:
            _styles.clear()
        _styles[key] = style
    return style


def compact_line(line: Mapping[int, Any] | None, columns: int, default: Any) -> Line:
    """Turn one buffer line (a sparse column -> cell mapping) into runs of equally styled text.

    Trailing cells equal to ``default`` (never written, or erased to the default style) are dropped.
    Wide-character stubs (cells holding "") contribute nothing to the text, as in ``Screen.display``.
    """
    if not line:
        return EMPTY_LINE
    last = -1
    for x, cell in line.items():
        if last < x < columns and (cell != default or getattr(cell, "ext", None) is not None):
            last = x
    if last < 0:
        return EMPTY_LINE
    runs: list[Run] = []
    text: list[str] = []
    key: tuple[Any, Any] | None = None
    first: Any = None
    get = line.get
    for x in range(last + 1):
        cell = get(x, default)
        k = style_key(cell)
        if k != key:
            if text:
                runs.append(("".join(text), intern_style(first)))
            text = []
            key = k
            first = cell
        text.append(cell[0])
    if text:
        runs.append(("".join(text), intern_style(first)))
    return tuple(runs)


def line_text(line: Line) -> str:
    return "".join(run[0] for run in line)


class Scrollback:
    """Lines scrolled off the top of the main screen, oldest first; at most ``maxlen`` of them.

    Policy when full: the oldest line is dropped (a deque with ``maxlen``).
    """

    __slots__ = ("_lines",)

    def __init__(self, maxlen: int = 10000) -> None:
        self._lines: deque[Line] = deque(maxlen=max(0, int(maxlen)))

    @property
    def maxlen(self) -> int:
        return self._lines.maxlen or 0

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self) -> Iterator[Line]:
        return iter(self._lines)

    def __getitem__(self, index: int) -> Line:
        return self._lines[index]

    def append(self, line: Line) -> None:
        if self._lines.maxlen:
            self._lines.append(line)

    def clear(self) -> None:
        self._lines.clear()

    def __repr__(self) -> str:
        return f"Scrollback({len(self)}/{self.maxlen} lines)"
