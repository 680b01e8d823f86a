"""Turn a pyte screen into Rich strips: one strip per line, cached until the line is dirty."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import compress
from operator import attrgetter, is_, itemgetter, ne, or_
from typing import Any, NamedTuple

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from termux.emulator.dirty import MovedLines
from termux.emulator.rows import Packed

# pyte's colour names (its own spelling, "brown" for yellow, and its typo for 105) → ANSI numbers.
_NAMED = {
    "black": 0,
    "red": 1,
    "green": 2,
    "brown": 3,
    "yellow": 3,
    "blue": 4,
    "magenta": 5,
    "cyan": 6,
    "white": 7,
}
ANSI_COLOURS: dict[str, int] = {**_NAMED, **{f"bright{name}": n + 8 for name, n in _NAMED.items()}}
ANSI_COLOURS["bfightmagenta"] = 13


class Palette:
    """How session colours map to Rich colours: ANSI numbers (the outer terminal's palette) unless
    the config overrides some of the 16 colours or the defaults with hex values."""

    def __init__(
        self,
        overrides: dict[int, str] | None = None,
        foreground: str | None = None,
        background: str | None = None,
    ) -> None:
        self.overrides = {n: Color.parse(v) for n, v in (overrides or {}).items()}
        self.foreground = Color.parse(foreground) if foreground else None
        self.background = Color.parse(background) if background else None

    @lru_cache(maxsize=1024)  # noqa: B019 - palettes live as long as the app
    def colour(self, name: str, foreground: bool) -> Color | None:
        if name == "default":
            return self.foreground if foreground else self.background
        number = ANSI_COLOURS.get(name)
        if number is not None:
            return self.overrides.get(number) or Color.from_ansi(number)
        if len(name) == 6:
            try:
                return Color.parse("#" + name)
            except Exception:
                return None
        try:
            return Color.parse(name)
        except Exception:
            return None

    @lru_cache(maxsize=4096)  # noqa: B019
    def style(
        self,
        fg: str,
        bg: str,
        bold: bool,
        italics: bool,
        underscore: bool,
        strikethrough: bool,
        reverse: bool,
        blink: bool,
        ext: Any = None,
    ) -> Style:
        """The Rich style for a cell's attributes; cached, since screens reuse few combinations.

        `ext` is termux's extra attributes (dim, hidden, overline, an OSC 8 hyperlink), None for
        plain cells. A link stays a link: Textual writes it to the outer terminal as OSC 8, so the
        person's terminal makes it clickable; cells of one link share one style, hence one id."""
        fore = self.colour(fg, True)
        back = self.colour(bg, False)
        color, bgcolor, reversed_video = fore, back, None
        if reverse:
            # Swap explicitly so a default colour becomes the terminal's default of the other kind
            # (with both default, the terminal's own reverse video).
            color = back if back is not None else Color.default()
            bgcolor = fore if fore is not None else Color.default()
            reversed_video = back is None and fore is None
        extra = Style(
            dim=bool(getattr(ext, "dim", False)) or None,
            conceal=bool(getattr(ext, "hidden", False)) or None,
            overline=bool(getattr(ext, "overline", False)) or None,
            link=getattr(ext, "link", "") or None,
        )
        base = Style(
            color=color,
            bgcolor=bgcolor,
            bold=bold,
            italic=italics,
            underline=underscore,
            strike=strikethrough,
            blink=blink,
            reverse=reversed_video,
        )
        return base + extra


def _cell_style(palette: Palette, attrs: tuple[Any, ...], ext: Any) -> Style:
    """The cursor cell's style: the cell's own with reverse video flipped."""
    fg, bg, bold, italics, underscore, strike, reverse, blink = attrs
    return palette.style(fg, bg, bold, italics, underscore, strike, not reverse, blink, ext)


_data = attrgetter("data")
_attrs = itemgetter(1, 2, 3, 4, 5, 6, 7, 8)  # every field of a cell but its character
_ext = attrgetter("ext")


def _exts(cells: list[Any]) -> list[Any]:
    try:
        return list(map(_ext, cells))
    except AttributeError:  # stock pyte cells have no extras
        return [getattr(cell, "ext", None) for cell in cells]


def render_line(screen: Any, y: int, palette: Palette, cursor_x: int | None = None) -> Strip:
    """One screen line as a Strip of exactly `screen.columns` cells.

    A row the emulator keeps as runs of text (`Packed`) is drawn from its runs, a segment per run,
    without turning it into cells; any other row cell by cell (`render_cells`). `cursor_x` marks
    the cursor cell (reverse video).
    """
    row = _row(screen, y)
    if row.__class__ is Packed:
        return render_packed(row, screen.columns, palette, cursor_x)
    return render_cells(_cells(screen, row), palette, cursor_x)


def _row(screen: Any, y: int) -> Any:
    """Row y as stored, for reading only: None (no row), a `Packed` row of runs, or cells. The fast
    Screen's rows are not turned into cells (nor made, for a row that does not exist)."""
    peek = getattr(screen.buffer, "peek", None)
    return peek(y) if peek is not None else screen.buffer.get(y)


def _cells(screen: Any, row: Any) -> list[Any]:
    if row is None:
        return [screen.default_char] * screen.columns
    return list(map(row.__getitem__, range(screen.columns)))


def render_packed(row: Packed, columns: int, palette: Palette, cursor_x: int | None = None) -> Strip:
    """render_line for a row of runs: single-width characters from column `row.start` to `row.end`,
    `texts[i]` in `cells[i]`'s attributes; the columns around them are the row's default cell."""
    default = row.default
    pieces: list[tuple[int, str, Any]] = []  # (first column, text, a cell with its attributes)
    if row.start:
        pieces.append((0, " " * row.start, default))
    x = row.start
    for text, cells in zip(row.texts, row.cells, strict=True):
        pieces.append((x, text, cells.attrs))
        x += len(text)
    if x < columns:
        pieces.append((x, " " * (columns - x), default))
    style = palette.style
    segments = []
    for start, text, cell in pieces:
        attrs, ext = _attrs(cell), cell.ext
        if cursor_x is not None and start <= cursor_x < start + len(text):
            at = cursor_x - start
            if at:
                segments.append(Segment(text[:at], style(*attrs, ext)))
            segments.append(Segment(text[at], _cell_style(palette, attrs, ext)))
            if at + 1 < len(text):
                segments.append(Segment(text[at + 1 :], style(*attrs, ext)))
        else:
            segments.append(Segment(text, style(*attrs, ext)))
    if x <= columns:  # single-width characters to the last column: no need to measure them
        return Strip(segments, columns)
    return Strip(segments).crop_extend(0, columns, None)


def render_packed_columns(row: Packed, first: int, width: int, palette: Palette) -> Strip:
    """Columns `first` to `first + width` of a row of runs (the grid's tiles show part of a
    screen): only the runs in that stretch are styled, and no cursor is drawn."""
    end = first + width
    style = palette.style
    default = row.default
    segments: list[Segment] = []
    x = row.start
    if x > first:
        segments.append(Segment(" " * (min(x, end) - first), style(*_attrs(default), default.ext)))
    for text, cells in zip(row.texts, row.cells, strict=True):
        after = x + len(text)
        lo, hi = max(x, first), min(after, end)
        if lo < hi:
            attrs = cells.attrs
            segments.append(Segment(text[lo - x : hi - x], style(*_attrs(attrs), attrs.ext)))
        x = after
        if x >= end:
            break
    if x < end:
        segments.append(Segment(" " * (end - max(x, first)), style(*_attrs(default), default.ext)))
    return Strip(segments, width)


def render_cells(cells: list[Any], palette: Palette, cursor_x: int | None = None) -> Strip:
    """render_line for a line given as its cells."""
    columns = len(cells)
    attrs = list(map(_attrs, cells))
    exts = _exts(cells)
    changed = map(or_, map(ne, attrs[1:], attrs), map(ne, exts[1:], exts))
    starts = [0, *compress(range(1, columns), changed)]
    if cursor_x is not None and 0 <= cursor_x < columns:
        starts = sorted({*starts, cursor_x, cursor_x + 1} - {columns})
    datas = list(map(_data, cells))
    segments = []
    for a, b in zip(starts, [*starts[1:], columns], strict=True):
        text = "".join(datas[a:b])
        if text:
            style = palette.style(*attrs[a], exts[a]) if a != cursor_x else _cell_style(palette, attrs[a], exts[a])
            segments.append(Segment(text, style))
    strip = Strip(segments)
    return strip if strip.cell_length == columns else strip.crop_extend(0, columns, None)


class _DrawnRuns(NamedTuple):
    """A row of runs as it was when drawn, and its strip (ScreenRenderer._packed_line)."""

    row: Packed
    texts: list[str]
    cells: list[Any]
    runs: int
    start: int
    end: int
    default: Any
    cursor_x: int | None
    strip: Strip


class ScreenRenderer:
    """Line strips for one screen, re-rendered only when pyte marks the line dirty and its cells
    changed: when a screen scrolls, every line is dirty, but most rows only moved up (the emulator
    moves row objects), so a row whose cells are the same objects as when it was drawn keeps its
    strip."""

    def __init__(self, palette: Palette) -> None:
        self.palette = palette
        self._strips: dict[int, Strip] = {}
        self._cursor: tuple[int, int] | None = None
        # id(row) -> (row, its cells, cursor column, strip) as last drawn; rows no longer on the
        # screen are dropped once this holds twice the screen's lines.
        self._rows: dict[int, tuple[Any, list[Any], int | None, Strip]] = {}
        self._packed: dict[int, _DrawnRuns] = {}  # the same for rows of runs
        # A row of runs by what it holds -> (its cells and default, pinning the ids in the key; its
        # strip): a row drawn before anywhere on the screen, as a program redrawing itself draws its
        # transcript a row up each frame. Started afresh past four screens' worth of rows.
        self._by_runs: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any, Strip]] = {}
        # y -> (what a blank line there was drawn for: size, cursor, default cell; its strip)
        self._blanks: dict[int, tuple[tuple[Any, ...], Strip]] = {}
        # What the last take_dirty found: the strips before it, the lines it changed, the lines (`moved`).
        self._taken: tuple[dict[int, Strip], set[int], int] = ({}, set(), 0)
        self.rendered = 0  # lines rendered since creation (tests count re-renders)
        self.reused = 0  # dirty lines whose row had only moved: drawn with the strip it had

    def reset(self) -> None:
        self._taken = ({}, set(), 0)
        self._strips.clear()
        self._rows.clear()
        self._packed.clear()
        self._by_runs.clear()
        self._blanks.clear()
        self._cursor = None

    def take_dirty(self, screen: Any, show_cursor: bool) -> set[int]:
        """Lines that changed since the last call, drawn again now: of pyte's dirty set plus the
        cursor's moves, those whose strip is not the one already there (a line marked dirty that
        shows what it showed keeps its strip and needs no repaint). Clears the screen's dirty set.

        When the dirty set says the whole screen scrolled (`MovedLines`: a shadow's), the strips
        drawn move up with it and only the lines it says changed otherwise are drawn and checked:
        a screen scrolling a line at a time costs the new line, not a check of every line.

        Drawn now, not when Textual paints them: output parsed in between (the pump runs before
        the paint) would otherwise reach the lines Textual repaints but not the ones it keeps,
        and a frame would show two moments of the screen at once."""
        lines = screen.lines
        marked = screen.dirty
        moved = marked.moved if marked.__class__ is MovedLines else 0
        old = self._strips  # (the strips on the terminal: a new dict is drawn from them)
        cursor = (screen.cursor.x, screen.cursor.y) if show_cursor else None
        shifted = 0 < moved < lines
        if shifted:
            strips = self._strips = {y - moved: strip for y, strip in old.items() if y >= moved}
            check = {y for y in marked.changed if 0 <= y < lines}
            check.update(y for y in range(lines) if y not in strips)  # (never drawn)
            if self._cursor is not None and self._cursor[1] >= moved:
                check.add(self._cursor[1] - moved)  # the strip drawn with the cursor moved up too
            if cursor is not None:
                check.add(cursor[1])
        else:
            strips = self._strips = dict(old)
            check = {y for y in marked if 0 <= y < lines}
            if cursor != self._cursor:
                if self._cursor is not None:
                    check.add(self._cursor[1])
                if cursor is not None:
                    check.add(cursor[1])
        marked.clear()
        self._cursor = cursor
        for y in check:
            strips.pop(y, None)
        changed = {y for y in check if self.line(screen, y) is not old.get(y)}
        if shifted:  # (the lines that moved show what the lines below showed: other strips)
            changed.update(y for y in range(lines) if strips.get(y) is not old.get(y))
        self._taken = (old, changed, lines)
        return changed

    def moved(self) -> tuple[int, set[int]] | None:
        """Whether most lines the last `take_dirty` found changed show what lines below them showed
        (the screen scrolled): the lines the content moved up, and the lines that then show
        something else than they would after the same scroll on the terminal (to paint; the ones
        scrolled in among them); None when such a scroll would leave as many lines to paint."""
        old, changed, lines = self._taken
        if len(changed) < 3:
            return None
        strips = self._strips
        where = {id(strip): y for y, strip in old.items()}
        moves = Counter(p - y for y in changed if (p := where.get(id(strips[y]), -1)) > y)
        if not moves:
            return None
        up = moves.most_common(1)[0][0]
        stale = {y for y in range(lines) if (strip := strips.get(y)) is None or strip is not old.get(y + up)}
        return (up, stale) if len(stale) < len(changed) else None

    def line(self, screen: Any, y: int) -> Strip:
        strip = self._strips.get(y)
        if strip is not None:
            return strip
        cursor_x = self._cursor[0] if self._cursor is not None and self._cursor[1] == y else None
        row = _row(screen, y)
        if row is None:  # no row: blank, in the screen's default cell
            return self._blank_line(screen, y, cursor_x)
        if row.__class__ is Packed:
            return self._packed_line(screen, y, row, cursor_x)
        # A row of cells is the one drawn before when its cells (immutable) are the same objects in
        # the same places. (Not `==`: termux's cells compare equal to pyte's, ignoring their extras.)
        content = _cells(screen, row)
        drawn = self._rows.get(id(row))
        if (
            drawn is not None
            and drawn[0] is row
            and drawn[2] == cursor_x
            and len(drawn[1]) == len(content)
            and all(map(is_, drawn[1], content))
        ):
            strip = drawn[3]
            self.reused += 1
        else:
            strip = render_cells(content, self.palette, cursor_x)
            self.rendered += 1
            if len(self._rows) >= 2 * screen.lines:
                self._forget_gone_rows(screen)
            self._rows[id(row)] = (row, content, cursor_x, strip)
        self._strips[y] = strip
        return strip

    def _packed_line(self, screen: Any, y: int, row: Packed, cursor_x: int | None) -> Strip:
        """A row of runs is the one drawn before when it holds the same lists of texts and of
        attribute caches, of the same lengths, from the same column to the same one: the emulator
        only appends to those lists or replaces them, never changes a run in place (a test feeds
        edits of every kind to hold it to that). Else a row holding the same texts in the same
        attribute caches, drawn before anywhere on the screen, takes the strip drawn then."""
        texts = row.texts
        drawn = self._packed.get(id(row))
        if (
            drawn is not None
            and drawn.row is row
            and drawn.texts is texts
            and drawn.cells is row.cells
            and drawn.runs == len(texts)
            and drawn.start == row.start
            and drawn.end == row.end
            and drawn.default is row.default
            and drawn.cursor_x == cursor_x
        ):
            strip = drawn.strip
            self.reused += 1
        else:
            cells = tuple(row.cells)
            key = (tuple(texts), tuple(map(id, cells)), row.start, row.end, id(row.default), cursor_x, screen.columns)
            known = self._by_runs.get(key)
            if known is not None:
                strip = known[2]
                self.reused += 1
            else:
                strip = render_packed(row, screen.columns, self.palette, cursor_x)
                self.rendered += 1
                if len(self._by_runs) >= 4 * screen.lines:
                    self._by_runs.clear()
                self._by_runs[key] = (cells, row.default, strip)
            if len(self._packed) >= 2 * screen.lines:
                self._forget_gone_rows(screen)
            self._packed[id(row)] = _DrawnRuns(
                row, texts, row.cells, len(texts), row.start, row.end, row.default, cursor_x, strip
            )
        self._strips[y] = strip
        return strip

    def _blank_line(self, screen: Any, y: int, cursor_x: int | None) -> Strip:
        default = screen.default_char
        key = (screen.columns, cursor_x, default, getattr(default, "ext", None))
        drawn = self._blanks.get(y)
        if drawn is not None and drawn[0] == key:
            strip = drawn[1]
            self.reused += 1
        else:
            strip = render_cells(_cells(screen, None), self.palette, cursor_x)
            self._blanks[y] = (key, strip)
            self.rendered += 1
        self._strips[y] = strip
        return strip

    def _forget_gone_rows(self, screen: Any) -> None:
        shown = {id(_row(screen, y)) for y in range(screen.lines)}
        self._rows = {key: drawn for key, drawn in self._rows.items() if key in shown}
        self._packed = {key: drawn for key, drawn in self._packed.items() if key in shown}
