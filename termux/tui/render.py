"""Turn a pyte screen into Rich strips: one strip per line, cached until the line is dirty."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

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

        `ext` is termux's extra attributes (dim, hidden, overline), None for plain cells."""
        fore = self.colour(fg, True)
        back = self.colour(bg, False)
        extra = Style(
            dim=bool(getattr(ext, "dim", False)) or None,
            conceal=bool(getattr(ext, "hidden", False)) or None,
            overline=bool(getattr(ext, "overline", False)) or None,
        )
        return self._base_style(fore, back, bold, italics, underscore, strikethrough, reverse, blink) + extra

    @staticmethod
    def _base_style(
        fore: Color | None,
        back: Color | None,
        bold: bool,
        italics: bool,
        underscore: bool,
        strikethrough: bool,
        reverse: bool,
        blink: bool,
    ) -> Style:
        if reverse:
            # Swap explicitly so a default colour becomes the terminal's default of the other kind.
            return Style(
                color=back if back is not None else Color.default(),
                bgcolor=fore if fore is not None else Color.default(),
                bold=bold,
                italic=italics,
                underline=underscore,
                strike=strikethrough,
                blink=blink,
                reverse=back is None and fore is None,
            )
        return Style(
            color=fore,
            bgcolor=back,
            bold=bold,
            italic=italics,
            underline=underscore,
            strike=strikethrough,
            blink=blink,
        )


def _cell_style(palette: Palette, attrs: tuple[Any, ...], cursor: bool) -> Style:
    fg, bg, bold, italics, underscore, strike, reverse, blink, ext = attrs
    return palette.style(fg, bg, bold, italics, underscore, strike, reverse != cursor, blink, ext)


def render_line(screen: Any, y: int, palette: Palette, cursor_x: int | None = None) -> Strip:
    """One screen line as a Strip of exactly `screen.columns` cells.

    Runs of cells with equal attributes become one segment. A wide character's second cell (pyte
    stores it as "") is skipped: the character itself is two cells wide. `cursor_x` marks the
    cursor cell (reverse video).
    """
    columns = screen.columns
    row = screen.buffer[y]
    segments: list[Segment] = []
    text: list[str] = []
    run_attrs: tuple[Any, ...] | None = None
    run_cursor = False
    for x in range(columns):
        char = row[x]
        data = char.data
        if data == "":
            continue  # the right half of a wide character
        attrs = (*char[1:9], getattr(char, "ext", None))
        at_cursor = x == cursor_x
        if attrs != run_attrs or at_cursor or run_cursor:
            if text:
                assert run_attrs is not None
                segments.append(Segment("".join(text), _cell_style(palette, run_attrs, run_cursor)))
                text = []
            run_attrs = attrs
            run_cursor = at_cursor
        text.append(data)
    if text:
        assert run_attrs is not None
        segments.append(Segment("".join(text), _cell_style(palette, run_attrs, run_cursor)))
    return Strip(segments).crop_extend(0, columns, None)


class ScreenRenderer:
    """Line strips for one screen, re-rendered only when pyte marks the line dirty."""

    def __init__(self, palette: Palette) -> None:
        self.palette = palette
        self._strips: dict[int, Strip] = {}
        self._cursor: tuple[int, int] | None = None
        self.rendered = 0  # lines rendered since creation (tests count re-renders)

    def reset(self) -> None:
        self._strips.clear()
        self._cursor = None

    def take_dirty(self, screen: Any, show_cursor: bool) -> set[int]:
        """Lines that changed since the last call (pyte's dirty set plus cursor moves); drops them
        from the cache and clears the screen's dirty set."""
        dirty = {y for y in screen.dirty if 0 <= y < screen.lines}
        screen.dirty.clear()
        cursor = (screen.cursor.x, screen.cursor.y) if show_cursor else None
        if cursor != self._cursor:
            if self._cursor is not None:
                dirty.add(self._cursor[1])
            if cursor is not None:
                dirty.add(cursor[1])
            self._cursor = cursor
        for y in dirty:
            self._strips.pop(y, None)
        return dirty

    def line(self, screen: Any, y: int) -> Strip:
        strip = self._strips.get(y)
        if strip is None:
            cursor_x = self._cursor[0] if self._cursor is not None and self._cursor[1] == y else None
            strip = render_line(screen, y, self.palette, cursor_x)
            self._strips[y] = strip
            self.rendered += 1
        return strip
