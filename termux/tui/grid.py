"""The live grid (prefix w): every session's screen in a tile, filtered by typing, chosen with the
arrows and Enter. The model (filter, geometry, moves, a tile's lines) is termux/tui/tiles.py; this
is its Textual screen.

Tiles are drawn from the TUI's shadow screens. A tile is drawn again only when the app says its
session changed (`touched`, at the sidebar's bounded mark rate) or the layout or selection moved;
between those the grid costs nothing, and it has no timer of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static

from termux.text import visible
from termux.tui import tiles
from termux.tui.model import SessionRow
from termux.tui.render import Palette
from termux.tui.widgets import BaseStyled, fit_strip

ScreenOf = Callable[[str], Any]  # a session id -> its shadow screen, or None


class TileGrid(BaseStyled):
    """The tiles of the sessions a filter keeps, the selected one's header in reverse video."""

    DEFAULT_CSS = """
    TileGrid { width: 1fr; height: 1fr; background: ansi_default; color: ansi_default; }
    """

    def __init__(self, screen_of: ScreenOf, palette: Palette, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.screen_of = screen_of
        self.palette = palette
        self.rows: list[SessionRow] = []  # every session, in sidebar order
        self.filter_text = ""
        self.shown: list[int] = []  # positions in `rows` the filter keeps
        self.selected_id: str | None = None
        self.first_row = 0  # the first row of tiles in view
        # session id -> (what its tile showed, its strips), drawn again only when that changes
        self._drawn: dict[str, tuple[tuple[Any, ...], list[Strip]]] = {}
        self.tiles_drawn = 0  # tiles rendered since creation (tests count them)
        self._blanks: dict[int, Strip] = {}  # blank strips by width, on the base style

    # -- the model --------------------------------------------------------------------------------

    @property
    def geometry(self) -> tiles.Geometry:
        return tiles.grid_geometry(len(self.shown), self.size.width, self.size.height)

    @property
    def selected(self) -> int:
        """The selected tile's place among the shown ones."""
        for place, position in enumerate(self.shown):
            if self.rows[position].id == self.selected_id:
                return place
        return 0

    @property
    def selected_row(self) -> SessionRow | None:
        return self.rows[self.shown[self.selected]] if self.shown else None

    def set_rows(self, rows: list[SessionRow]) -> None:
        self.rows = rows
        self._apply_filter()

    def set_filter(self, query: str) -> None:
        self.filter_text = query
        self._apply_filter()

    def _apply_filter(self) -> None:
        self.shown = tiles.matching([row.name for row in self.rows], self.filter_text)
        if self.selected_row is None or self.selected_row.id != self.selected_id:
            row = self.selected_row  # the selected one filtered out: the first shown
            self.selected_id = row.id if row is not None else None
        self._scroll()
        self.refresh()

    def select(self, session_id: str | None) -> None:
        self.selected_id = session_id
        self._apply_filter()

    def move(self, key: str) -> bool:
        """Move the selection by an arrow, home, end or page key; False for any other key."""
        if key not in tiles.MOVES and key not in ("home", "end", "pageup", "pagedown"):
            return False
        if not self.shown:
            return True
        before = self.selected
        after = tiles.move(self.geometry, before, key)
        if after != before:
            self.selected_id = self.rows[self.shown[after]].id
            first = self.first_row
            self._scroll()
            if self.first_row == first:
                self._refresh_tile(before)
                self._refresh_tile(after)
        return True

    def _scroll(self) -> None:
        first = tiles.first_shown_row(self.geometry, self.selected, self.first_row)
        if first != self.first_row:
            self.first_row = first
            self.refresh()

    def touched(self, session_ids: Iterable[str]) -> None:
        """These sessions' screens or marks may have changed: their tiles in view are drawn again."""
        places = {self.rows[position].id: place for place, position in enumerate(self.shown)}
        geometry = self.geometry
        in_view = range(self.first_row * geometry.columns, (self.first_row + geometry.shown_rows) * geometry.columns)
        redraw = []
        for sid in session_ids:
            self._drawn.pop(sid, None)
            if places.get(sid, -1) in in_view:
                redraw.append(places[sid])
        if 2 * len(redraw) > len(in_view):
            self.refresh()  # most of them: one region, not one per tile
        else:
            for place in redraw:
                self._refresh_tile(place)

    def forget_tiles(self) -> None:
        self._drawn.clear()
        self.refresh()

    def _refresh_tile(self, place: int) -> None:
        geometry = self.geometry
        row, column = geometry.position(place)
        if self.first_row <= row < self.first_row + geometry.shown_rows:
            y = (row - self.first_row) * geometry.height
            self.refresh(Region(column * geometry.width, y, geometry.width, geometry.height))

    def on_resize(self, event: events.Resize) -> None:
        self._scroll()  # (a tile drawn at another size is drawn again: its size is in its key)
        self.refresh()

    def notify_style_update(self) -> None:
        self._drawn.clear()
        self._blanks.clear()
        super().notify_style_update()

    # -- drawing ----------------------------------------------------------------------------------

    def tile(self, place: int, geometry: tiles.Geometry) -> list[Strip]:
        """The header and content strips of the tile at `place`, each `geometry.content_width`
        wide (the gap after it is the line's)."""
        position = self.shown[place]
        row = self.rows[position]
        selected = row.id == self.selected_id
        screen = self.screen_of(row.id)
        key = (
            position, row.name, row.state, row.exit_code, row.exit_signal, row.unseen, row.bell,
            row.quiet_since, selected, geometry.width, geometry.height, id(screen),
        )  # fmt: skip
        drawn = self._drawn.get(row.id)
        if drawn is not None and drawn[0] == key:
            return drawn[1]
        base = self.base_style
        width, height = geometry.content_width, geometry.content_height
        head = fit_strip(tiles.header_pieces(position, row, selected), width, base)
        if screen is None:
            body = [Strip.blank(width, base)] * height
        else:
            body = tiles.tile_lines(screen, width, height, self.palette, base)
        strips = [head, *body]
        self._drawn[row.id] = (key, strips)
        self.tiles_drawn += 1
        return strips

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.base_style
        geometry = self.geometry
        shown_row, line = divmod(y, geometry.height)
        row = self.first_row + shown_row
        if shown_row >= geometry.shown_rows or not self.shown:
            return Strip.blank(width, base)
        start = row * geometry.columns
        places = range(start, min(start + geometry.columns, len(self.shown)))
        # One strip for the whole line (each Strip is costly to make): the tiles' lines, the gap
        # after each, and the rest of the width blank.
        gap = self._blank(geometry.width - geometry.content_width)
        strips: list[Strip] = []
        for place in places:
            strips += (self.tile(place, geometry)[line], gap)
        rest = width - len(places) * geometry.width
        if rest > 0:
            strips.append(self._blank(rest))
        return Strip.join(strips)

    def _blank(self, width: int) -> Strip:
        blank = self._blanks.get(width)
        if blank is None:
            blank = self._blanks[width] = Strip.blank(width, self.base_style)
        return blank


class GridScreen(Screen[str | None]):
    """Every session at once. Typing filters by name, the arrows move, Enter dismisses with the
    chosen session's id, Escape with None. The app keeps one, installed, and `reopen`s it: a
    screen made and laid out anew each time would cost more than all its tiles."""

    BINDINGS: ClassVar[list[BindingType]] = []

    DEFAULT_CSS = """
    GridScreen { layout: vertical; }
    GridScreen #grid-bar { height: 1; background: $panel; color: $text; }
    """

    def __init__(self, rows: list[SessionRow], screen_of: ScreenOf, focused_id: str | None, palette: Palette) -> None:
        super().__init__()
        self.grid = TileGrid(screen_of, palette, id="grid")
        self.grid.set_rows(rows)
        self.grid.select(focused_id)

    def reopen(self, rows: list[SessionRow], focused_id: str | None) -> None:
        """Shown again: every session as it is now, no filter, the focused one chosen. Every tile
        is drawn afresh (they were not followed while the grid was closed)."""
        grid = self.grid
        grid.forget_tiles()
        grid.filter_text = ""
        grid.first_row = 0
        grid.set_rows(rows)
        grid.select(focused_id)
        self._bar()

    def compose(self) -> ComposeResult:
        yield self.grid
        yield Static("", id="grid-bar", markup=False)

    def on_mount(self) -> None:
        self._bar()

    def set_rows(self, rows: list[SessionRow]) -> None:
        self.grid.set_rows(rows)
        self._bar()

    def touched(self, session_ids: Iterable[str]) -> None:
        self.grid.touched(session_ids)

    def _bar(self) -> None:
        grid = self.grid
        shown, total = len(grid.shown), len(grid.rows)
        if grid.filter_text:
            where = f" filter: {visible(grid.filter_text)}▏ {shown} of {total}"
            if not shown:
                where = f" no session's name holds {visible(grid.filter_text)!r}"
        else:
            where = f" {total} session{'s' if total != 1 else ''} · type to filter"
        for bar in self.query("#grid-bar").results(Static):  # (none before it is composed)
            bar.update(where + "  ←↑↓→ move · Enter focus · Esc leave")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        grid = self.grid
        if event.key == "escape":
            self.dismiss(None)
        elif event.key == "enter":
            row = grid.selected_row
            if row is not None:
                self.dismiss(row.id)
        elif grid.move(event.key):
            pass
        elif event.key in ("backspace", "ctrl+h"):
            grid.set_filter(grid.filter_text[:-1])
            self._bar()
        elif event.key == "ctrl+u":
            grid.set_filter("")
            self._bar()
        elif event.is_printable and event.character:
            grid.set_filter(grid.filter_text + event.character)
            self._bar()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.grid.move("up")

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.grid.move("down")

    def on_click(self, event: events.Click) -> None:
        """A click on a tile focuses its session."""
        grid = self.grid
        geometry = grid.geometry
        if event.widget is not grid or not grid.shown:
            return
        row = grid.first_row + int(event.y) // geometry.height
        place = row * geometry.columns + int(event.x) // geometry.width
        if int(event.x) // geometry.width < geometry.columns and 0 <= place < len(grid.shown):
            self.dismiss(grid.rows[grid.shown[place]].id)
