"""The live grid's model, sans-I/O: which sessions a filter keeps, how tiles are laid out, which
part of a screen a tile shows, the tile's lines, and moving the selection.

A tile shows the part of a session's screen around its cursor, cut to the tile (as tmux's
choose-tree preview does): shrinking text cell by cell would make it unreadable. It is read from the
TUI's shadow screen, never from history, so drawing a tile costs its own cells and nothing more.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from termux.emulator.rows import Packed
from termux.text import visible
from termux.tui.render import Palette, render_cells, render_packed_columns

# A tile is at least this big (its header line included); with more sessions than fit at this
# size, the grid scrolls by rows of tiles.
MIN_TILE_WIDTH = 16
MIN_TILE_HEIGHT = 4
# Terminal cells are about twice as tall as wide and screens are wider than tall: a tile of w
# columns by h lines looks like a screen's shape when w ≈ SHAPE * h.
SHAPE = 3
GAP = 1  # blank columns between tiles side by side

Piece = tuple[str, Style]
_DIM = Style(dim=True)
_NAME = Style(bold=True)
_SELECTED = Style(bold=True, reverse=True)
_MARK = Style(bold=True, color="cyan")
_ENDED = Style(color="red")
_BELL = Style(bold=True, color="yellow")


def matching(names: Sequence[str], query: str) -> list[int]:
    """The positions of the names that hold `query` (any case), in their order; all for ""."""
    wanted = query.casefold()
    return [n for n, name in enumerate(names) if wanted in name.casefold()]


@dataclass(frozen=True)
class Geometry:
    """`columns` tiles per row, each `width` x `height` cells (header and gap included);
    `shown_rows` rows of tiles fit the area; `total_rows` are needed for `count` tiles."""

    count: int
    columns: int
    width: int
    height: int
    shown_rows: int

    @property
    def total_rows(self) -> int:
        return -(-self.count // self.columns) if self.count else 0

    @property
    def content_width(self) -> int:
        return max(1, self.width - GAP)

    @property
    def content_height(self) -> int:
        return max(0, self.height - 1)

    def position(self, index: int) -> tuple[int, int]:
        """(tile row, tile column) of tile `index`."""
        return divmod(index, self.columns)


@lru_cache(maxsize=64)  # asked for every line drawn; the answer changes only with its arguments
def grid_geometry(count: int, width: int, height: int) -> Geometry:
    """Tiles for `count` sessions in `width` x `height` cells: the layout whose tiles come
    closest to a screen's shape while all fit, else as many of the smallest size as fit, scrolled."""
    width, height = max(1, width), max(1, height)
    best: tuple[int, int, int] | None = None  # (score, columns, rows)
    for columns in range(1, max(1, count) + 1):
        rows = -(-max(1, count) // columns)
        tile_w, tile_h = width // columns, height // rows
        if tile_w < MIN_TILE_WIDTH:
            break  # more columns only make them narrower
        if tile_h < MIN_TILE_HEIGHT:
            continue
        score = min(tile_w - GAP, (tile_h - 1) * SHAPE)
        if best is None or score > best[0]:
            best = (score, columns, rows)
    if best is not None:
        _, columns, rows = best
        return Geometry(count, columns, width // columns, height // rows, rows)
    columns = max(1, min(max(1, count), width // MIN_TILE_WIDTH))
    shown = max(1, height // MIN_TILE_HEIGHT)
    return Geometry(count, columns, width // columns, height // shown, shown)


def first_shown_row(geometry: Geometry, selected: int, first_row: int) -> int:
    """The first row of tiles to show so that the selected tile is in view, moving as little as
    possible from `first_row` (and leaving no empty rows at the end)."""
    row = geometry.position(selected)[0] if geometry.count else 0
    if row < first_row:
        first_row = row
    elif row >= first_row + geometry.shown_rows:
        first_row = row - geometry.shown_rows + 1
    return max(0, min(first_row, geometry.total_rows - geometry.shown_rows))


MOVES = {"left": (0, -1), "right": (0, 1), "up": (-1, 0), "down": (1, 0)}


def move(geometry: Geometry, selected: int, key: str) -> int:
    """The tile selected after `key` (arrows, home, end, pageup, pagedown); clamped at the edges,
    and a step down from the last full row lands on the last tile."""
    count = geometry.count
    if count == 0:
        return 0
    page = geometry.columns * geometry.shown_rows
    if key == "home":
        target = 0
    elif key == "end":
        target = count - 1
    elif key == "pageup":
        target = selected - page
    elif key == "pagedown":
        target = selected + page
    elif key in MOVES:
        rows, columns = MOVES[key]
        row, column = geometry.position(selected)
        if columns:
            target = selected + columns if 0 <= column + columns < geometry.columns else selected
        elif 0 <= row + rows < geometry.total_rows:
            target = selected + rows * geometry.columns
        else:
            target = selected
    else:
        return selected
    return max(0, min(target, count - 1))


def window(screen: Any, width: int, height: int) -> tuple[int, int]:
    """The top-left cell (x, y) of the `width` x `height` part of `screen` a tile shows: the
    cursor always in it, and below the cursor as much of the text as fits."""
    cursor = screen.cursor
    bottom = max(min(cursor.y, screen.lines - 1), last_text_row(screen))
    y = max(0, bottom - height + 1)
    if cursor.y < y:
        y = max(0, cursor.y)
    x = 0 if cursor.x < width else min(cursor.x, screen.columns - 1) - width + 1
    return x, y


def last_text_row(screen: Any) -> int:
    """The lowest row with text on it (0 for a blank screen); reads stored rows without turning
    them into cells."""
    peek = getattr(screen.buffer, "peek", None)
    default = screen.default_char.data
    for y in range(screen.lines - 1, -1, -1):
        row = peek(y) if peek is not None else screen.buffer.get(y)
        if row is None:
            continue
        text = row.text() if hasattr(row, "text") else "".join(cell.data for cell in row.values())
        if text.strip(" " + default):
            return y
    return 0


def tile_lines(screen: Any, width: int, height: int, palette: Palette, base: Style | None = None) -> list[Strip]:
    """The tile's content: `height` strips of exactly `width` cells, in the screen's colours. A
    row kept as text runs (most rows: termux/emulator/rows.py) is cut from its runs, never turned
    into cells."""
    x0, y0 = window(screen, width, height)
    peek = getattr(screen.buffer, "peek", None)
    blank = Strip.blank(width, base)
    strips: list[Strip] = []
    for y in range(y0, min(y0 + height, screen.lines)):
        row = peek(y) if peek is not None else screen.buffer.get(y)
        if row is None:  # a row never written: blank in the screen's default colours
            columns = max(0, min(width, screen.columns - x0))
            strip = Strip([Segment(" " * columns, cell_style(palette, screen.default_char))], columns)
        elif isinstance(row, Packed):
            strip = render_packed_columns(row, x0, width, palette)
        else:
            columns = range(x0, min(x0 + width, screen.columns))
            strip = render_cells([row[x] for x in columns], palette) if columns else blank
        strips.append(strip if strip.cell_length == width else strip.crop_extend(0, width, base))
    return strips + [blank] * (height - len(strips))


def cell_style(palette: Palette, cell: Any) -> Style:
    return palette.style(*cell[1:9], getattr(cell, "ext", None))  # (a cell's fields but its character)


def tile_text(screen: Any, width: int, height: int) -> list[str]:
    """The tile's content as plain text, trailing blanks trimmed (what tests and logs read)."""
    return [strip.text.rstrip() for strip in tile_lines(screen, width, height, Palette())]


def quiet_label(since: float | None) -> str:
    """`quiet since 14:03` for a session that has printed nothing since then (local time): a
    fixed time, so the tile never needs a timer to age it."""
    if since is None:
        return ""
    return "quiet since " + time.strftime("%H:%M", time.localtime(since))


def header_pieces(index: int, row: Any, selected: bool) -> list[Piece]:
    """A tile's first line: `N:name [exit 3] * ! quiet since 14:03` (a SessionRow's marks)."""
    pieces: list[Piece] = [(f"{index}:", _SELECTED if selected else _DIM)]
    pieces.append((visible(row.name) + " ", _SELECTED if selected else _NAME))
    if row.state != "running":
        state = f"[{row.exit_signal}]" if row.exit_signal else f"[exit {row.exit_code}]"
        pieces.append((state + " ", _ENDED))
    if row.unseen:
        pieces.append(("* ", _MARK))
    if row.bell:
        pieces.append(("! ", _BELL))
    quiet = quiet_label(row.quiet_since)
    if quiet and row.state == "running":
        pieces.append((quiet, _DIM))
    return pieces


def find(names: Sequence[str], query: str) -> list[int]:
    """What `prefix f` (or `'`) offers for `query`: the session numbered `query` first when it is a
    number (tmux's select-window -t), then those whose name holds it."""
    text = query.strip()
    found = matching(names, text)
    if text.isdecimal() and int(text) < len(names):
        number = int(text)
        found = [number, *(n for n in found if n != number)]
    return found
