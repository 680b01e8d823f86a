"""The TUI's widgets: the terminal view, the session sidebar and the status line."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Self, cast

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.containers import Vertical
from textual.css.scalar import Scalar
from textual.errors import NoWidget
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from termux.keys import ALT, CTRL, SHIFT, encode_mouse, mouse_tracking
from termux.text import visible
from termux.tui.config import MIN_SIDEBAR
from termux.tui.model import SessionRow
from termux.tui.render import Palette, ScreenRenderer
from termux.tui.statusline import DEFAULT_LEFT, DEFAULT_RIGHT, Template, marks, next_change, parse_template


class BaseStyled(Widget):
    """A widget that reads its Rich style once until its styles change: `rich_style` walks every
    ancestor, and these widgets draw many lines per frame."""

    _base_style: Style | None = None

    @property
    def base_style(self) -> Style:
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def notify_style_update(self) -> None:
        self._base_style = None
        super().notify_style_update()


class KeptLines(Widget):
    """A widget whose lines are kept from one frame to the next until it is refreshed.

    Textual's compositor asks every widget whose container overlaps a changed region for all its
    lines, so while the terminal view streams, the sidebar and the status line beside it would be
    drawn through Textual's styles cache each frame too. Their lines change only when they are
    refreshed (that is what tells Textual to draw them again), so the last ones are kept until then.
    """

    _kept: tuple[Region, Size, list[Strip]] | None = None

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        self._kept = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def notify_style_update(self) -> None:
        self._kept = None
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        kept = self._kept
        size = self.size
        if kept is not None and kept[0] == crop and kept[1] == size:
            self.kept_renders += 1
            return kept[2]
        strips = super().render_lines(crop)
        self._kept = (crop, size, strips)
        return strips

    kept_renders = 0  # renders answered with the kept lines (tests count them)


class KeptVertical(KeptLines, Vertical):
    """A vertical container that keeps its lines (its background, behind its children)."""


class Painted(Widget):
    """A widget that writes lines of its own straight to the terminal (`paint_lines`).

    Through Textual's compositor, any changed line makes it ask every widget under the region (the
    screen, the containers) for all its lines and cut them at every widget's edge, each frame; a
    streaming view or a sidebar whose previews change four times a second then costs far more than
    the lines it changed. Textual keeps no copy of the terminal: what it paints later (a layout, a
    screen on top going away) it draws from the widgets as they are then, so nothing it paints
    undoes a line written here."""

    painted = 0  # writes made by paint_lines (tests count them)

    def filtered(self, strips: list[Strip]) -> list[Strip]:
        """`strips` with Textual's line filters (NO_COLOR's, the theme's colours for ANSI ones
        when the app does not keep ANSI colours) applied as it applies them."""
        filters = self.get_line_filters()
        if filters:
            background = self.background_colors[1]
            for line_filter in filters:
                strips = [strip.apply_filter(line_filter, background) for strip in strips]
        return strips

    def paint_lines(self, lines: Sequence[int], strips: Sequence[Strip]) -> bool:
        """Write `strips` as the widget's `lines` (whole lines, in the widget's own coordinates),
        rendered as Textual renders them (`Strip.render`), in one write; False (nothing written)
        unless the widget is shown whole on the screen shown, where nothing is drawn over it."""
        region = self.shown_at()
        if region is None:
            return False
        self.write_lines(region, lines, strips)
        return True

    def write_lines(self, region: Region, lines: Sequence[int], strips: Sequence[Strip], before: str = "") -> None:
        """Write `strips` as the widget's `lines` where `shown_at` found it, after `before`."""
        cast(Any, self.app).write_to_terminal(before + self.painting(region, lines, strips))
        self.painted += 1

    def shown_at(self) -> Region | None:
        """Where the widget is on the terminal (its outer region), when it is shown whole on the
        screen shown, where nothing is drawn over it, and the app writes to a terminal; else None.
        The screen shown knows only its own widgets: one look-up in its map (`self.region` walks
        up the tree to the widget's screen first, and a frame asked that several times)."""
        if not self.is_mounted or getattr(self.app, "write_to_terminal", None) is None:
            return None  # (a view made a moment ago, not on a screen yet; an app of the tests)
        try:
            found = self.app.screen.find_widget(self)
        except NoWidget:  # (on another screen, or not laid out)
            return None
        region = found.region
        return region if region and found.clip.contains_region(region) else None

    def painting(self, region: Region, lines: Sequence[int], strips: Sequence[Strip]) -> str:
        """What writes `strips` as the widget's `lines` at `region` (see `paint_lines`). A widget
        that reaches the terminal's right edge ends a line's blanks in the terminal's default
        attributes with EL instead (`_to_edge`)."""
        console = self.app.console
        x, top = region.x + 1, region.y + 1
        render = _to_edge if region.right == self.app.size.width else Strip.render
        return "".join(
            f"\x1b[{top + y};{x}H{render(strip, console)}"
            for y, strip in zip(lines, strips, strict=True)
            if y < region.height
        )


def _to_edge(strip: Strip, console: Console) -> str:
    """`strip` rendered, its trailing blanks that are outside every SGR span (Rich ends each
    styled run with a reset, so those are in the terminal's default attributes) written as EL,
    which clears to the terminal's edge in those same attributes: a line of a short text costs
    its text, not the width."""
    text = strip.render(console)
    return text.rstrip(" ") + "\x1b[K" if text.endswith(" ") else text


class TerminalView(Painted, BaseStyled, can_focus=True):
    """Draws one session's shadow screen. Only dirty lines are rendered again."""

    DEFAULT_CSS = """
    TerminalView {
        width: 1fr;
        height: 1fr;
        background: ansi_default;
        color: ansi_default;
    }
    """

    @dataclass
    class Input(Message):
        """Bytes the user's mouse produced for the program (the app sends them)."""

        data: bytes

    @dataclass
    class Scrolled(Message):
        """A wheel turn over a program that did not ask for the mouse: browse scrollback."""

        lines: int

    class Resized(Message):
        """The view's size changed (outer terminal resized, sidebar toggled): fit the session."""

    @dataclass
    class Select(Message):
        """A mouse gesture for copy mode (termux/tui/copyview.py `CopyView.mouse`): over a program
        that did not ask for the mouse, with shift held over one that did, or in copy mode."""

        view: TerminalView  # the pane it happened in
        kind: str
        x: int
        y: int

    def __init__(self, palette: Palette | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.palette = palette or Palette()
        self.renderer = ScreenRenderer(self.palette)
        self.screen_: Any = None  # pyte screen shown ("screen" is Textual's)
        self._buttons = 0  # mouse button held (1..3), for drag reports
        self.copy: Any = None  # the CopyView drawn instead of the screen while it is shown

    # -- content -------------------------------------------------------------------------------

    def show(self, screen: Any, paint: bool = False) -> None:
        """Show another screen (or the same one after a reset): everything is drawn anew, and
        with `paint` (the view stays where it was) written to the terminal at once when nothing
        can cover it (`paint`), else through Textual's compositor."""
        self.screen_ = screen
        self.renderer.reset()
        if screen is not None:
            screen.dirty.update(range(screen.lines))
        self.take_dirty()  # (drawn now, and written once: below, or by Textual)
        if not (paint and self.paint(set(range(self.size.height)))):
            self.refresh()

    def update_dirty(self) -> set[int]:
        """Repaint just the lines whose content changed; returns them."""
        dirty = self.take_dirty()
        self.repaint(dirty)
        return dirty

    def take_dirty(self) -> set[int]:
        """Draw the lines whose content changed (the screen's dirty lines and the cursor's moves,
        termux/tui/render.py); returns them, for `repaint`."""
        screen = self.screen_
        if screen is None:
            return set()
        return self.renderer.take_dirty(screen, show_cursor=self._cursor_visible())

    def repaint(self, dirty: set[int]) -> None:
        """Put the drawn `dirty` lines on the terminal: written at once when nothing can cover the
        view (a frame then costs the lines that changed; when the screen scrolled, `_scroll` says
        how the terminal can scroll them instead), else refreshed through Textual's compositor."""
        if not dirty:
            return
        at = self._paintable_at()
        if at is not None:
            scroll, lines = self._scroll(at) or ("", sorted(dirty))
            self.write_lines(at, lines, self._strips(lines, at.width), before=scroll)
            return
        width = self.size.width
        # One region per run of adjacent lines: a scroll repaints the screen as one region.
        lines = sorted(dirty)
        start = 0
        for i, y in enumerate(lines):
            if i + 1 == len(lines) or lines[i + 1] != y + 1:
                self.refresh(Region(0, lines[start], width, y - lines[start] + 1))
                start = i + 1

    def _scroll(self, at: Region) -> tuple[str, list[int]] | None:
        """When the lines drawn last (`take_dirty`) show the screen's content moved up
        (`ScreenRenderer.moved`) and the view at `at` spans the terminal's width and the screen's
        height: what scrolls the view's lines on the terminal as the screen did (a scroll region,
        line feeds at its bottom, as tmux does), and the lines to write after it, those that then
        show something else. Else None: the terminal scrolls whole lines, and what is beside the
        view would have to be written again, which costs more than the view's lines (tmux too
        writes a pane beside another whole)."""
        screen = self.screen_
        if screen is None or at.x or at.right != self.app.size.width or at.height != screen.lines:
            return None
        moved = self.renderer.moved()
        if moved is None:
            return None
        up, stale = moved
        # (A line feed at the bottom of a scroll region scrolls the region a line.)
        scroll = f"\x1b[{at.y + 1};{at.bottom}r\x1b[{at.bottom};1H" + "\n" * up + "\x1b[r"
        return scroll, sorted(stale)

    def paint(self, lines: set[int]) -> bool:
        """Write the drawn `lines` to the terminal at once (`write_lines`), unless copy mode is
        drawn over the screen or something may cover the view."""
        at = self._paintable_at()
        if at is None:
            return False
        shown = sorted(lines)
        self.write_lines(at, shown, self._strips(shown, at.width))
        return True

    def _paintable_at(self) -> Region | None:
        """Where the view's lines can be written straight to the terminal (`shown_at`): not while
        copy mode is drawn over the screen."""
        return None if self.copy is not None and self.copy.shown else self.shown_at()

    def _cursor_visible(self) -> bool:
        screen = self.screen_
        return screen is not None and not screen.cursor.hidden and self.has_focus_within_app()

    def has_focus_within_app(self) -> bool:
        # The cursor is drawn whenever this view is the one the user types into.
        return self.has_focus or self.app.focused is None

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return container.height

    def render_line(self, y: int) -> Strip:
        return self._line(y, self.size.width)

    def line_for(self, y: int, width: int) -> Strip:
        """Line y of the view on a width it is not laid out at yet (the first paint's)."""
        return self._line(y, width)

    def _line(self, y: int, width: int) -> Strip:
        screen = self.screen_
        copy = self.copy
        if copy is not None and copy.shown:
            return copy.line(y, width, self.app.console, self.base_style)  # type: ignore[no-any-return]
        if screen is None or y >= screen.lines:
            return Strip.blank(width, self.base_style)
        strip = self.renderer.line(screen, y)
        # A session sized to the view (the usual case) is drawn as it is; a smaller one padded,
        # a larger one clipped.
        return strip if strip.cell_length == width else strip.crop_extend(0, width, self.base_style)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines in `crop`, as the renderer drew them. Textual's own way passes each line
        through its styles cache (borders, padding, tint, opacity), none of which this widget has,
        so it makes the same strips (a test compares them) at a cost per line, and while a session
        streams every line of the view is drawn again each frame."""
        strips = self._strips(crop.line_range)
        if crop.column_span != (0, self.size.width):
            x1, x2 = crop.column_span
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips

    def _strips(self, lines: Iterable[int], width: int | None = None) -> list[Strip]:
        """Whole lines of the view, filtered as Textual filters them; `width`, when the caller
        knows it (`shown_at`'s: the view has no border or padding), saves looking it up."""
        if width is None:
            width = self.size.width
        return self.filtered([self._line(y, width) for y in lines])

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())

    def on_focus(self) -> None:
        self.update_dirty()

    def on_blur(self) -> None:
        self.update_dirty()

    # -- mouse: encoded for the program when it enabled a mouse mode ----------------------------

    def _mode(self) -> Any:
        return self.screen_.mode if self.screen_ is not None else ()

    @staticmethod
    def _mods(event: events.MouseEvent) -> int:
        return (SHIFT if event.shift else 0) | (ALT if event.meta else 0) | (CTRL if event.ctrl else 0)

    def _send_mouse(self, kind: str, button: int, event: events.MouseEvent) -> bool:
        mode = self._mode()
        if not mouse_tracking(mode):
            return False
        screen = self.screen_
        if event.x >= screen.columns or event.y >= screen.lines:
            return True  # the padding around a session smaller than the view: not the program's
        data = encode_mouse(kind, button, event.x, event.y, self._mods(event), mode)
        if data:
            self.post_message(self.Input(data))
        return True

    def _selects(self, event: events.MouseEvent) -> bool:
        """The mouse is copy mode's: in copy mode, over a program that did not ask for it, or
        with shift held (as tmux and terminals let shift+drag select over a program)."""
        return (self.copy is not None and self.copy.active) or event.shift or not mouse_tracking(self._mode())

    def _select(self, kind: str, event: events.MouseEvent) -> None:
        event.stop()
        self.post_message(self.Select(self, kind, int(event.x), int(event.y)))

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self.focus()
        self._buttons = event.button
        if event.button == 1 and self._selects(event):
            self._select("down", event)
        elif self._send_mouse("press", event.button, event):
            event.stop()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        buttons, self._buttons = self._buttons, 0
        if buttons == 1 and self._selects(event):
            self._select("up", event)
        elif self._send_mouse("release", event.button, event):
            event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._buttons == 1 and self._selects(event):
            self._select("drag", event)
        elif self._send_mouse("move", self._buttons, event):
            event.stop()

    def on_click(self, event: events.Click) -> None:
        chain = getattr(event, "chain", 1)
        if chain in (2, 3) and self._selects(event):
            self._select("word" if chain == 2 else "line", event)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        if self.copy is not None and self.copy.active:
            self._select("wheel-up", event)
        elif not self._send_mouse("wheel", 4, event):
            self.post_message(self.Scrolled(-1))

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        if self.copy is not None and self.copy.active:
            self._select("wheel-down", event)
        elif not self._send_mouse("wheel", 5, event):
            self.post_message(self.Scrolled(1))


Piece = tuple[str, Style]
_MARK = Style(bold=True, color="cyan")
_DIM = Style(dim=True)
_NAME = Style(bold=True)
_FOCUSED_NAME = Style(bold=True, reverse=True)
_ENDED = Style(color="red")
_BELL = Style(bold=True, color="yellow")


def fit_strip(pieces: list[Piece], width: int, base: Style) -> Strip:
    """One line of `width` cells: the pieces on `base`, cut with an ellipsis when too long."""
    segments: list[Segment] = []
    used = 0
    for text, style in pieces:
        cells = cell_len(text)
        if used + cells > width:
            if used < width:
                segments.append(Segment(set_cell_size(text, width - used - 1) + "…", base + style))
                used = width
            break
        if text:
            segments.append(Segment(text, base + style))
            used += cells
    if used < width:
        segments.append(Segment(" " * (width - used), base))
    return Strip(segments, width)


SIDEBAR_SHARE = 0.4  # the most of a narrow terminal's width the sidebar takes


def fitted_width(configured: int, columns: int) -> int:
    """The sidebar's width on a terminal `columns` wide: `configured`, or two fifths of a narrower
    terminal; 0 (not shown) when that is under MIN_SIDEBAR."""
    width = min(configured, int(columns * SIDEBAR_SHARE))
    return width if width >= MIN_SIDEBAR else 0


class Sidebar(Painted, BaseStyled):
    """Every session: name, state or exit code, unseen-output and bell marks, a one-line preview.

    It draws its lines itself, a row's two lines only when what the row shows changed (each beside
    the cell of its right border, which Textual draws once), and writes a changed row to the
    terminal itself (`Painted`): its previews change four times a second while sessions print."""

    DEFAULT_CSS = """
    Sidebar {
        width: 28;
        height: 1fr;
        border-right: solid $primary-darken-2;
        padding: 0 0;
    }
    Sidebar.-hidden { display: none; }
    Sidebar.-narrow { display: none; }
    """

    @dataclass
    class Selected(Message):
        """A click on a session's row."""

        session_id: str

    ROW_HEIGHT = 2

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[SessionRow] = []
        self.focused_id: str | None = None
        self._index: dict[str, int] = {}  # session id -> its position in `rows`
        # What each position shows and its two lines, drawn again only when that changes.
        self._drawn: dict[int, tuple[tuple[Any, ...], list[Strip]]] = {}
        self._edge: tuple[int, Strip | None] | None = None  # (outer width, its right border's cell)
        self.row_refreshes = 0  # rows redrawn by update_row (tests count them)
        self.rows_drawn = 0  # rows whose lines were drawn (tests count them)
        self.first_row = 0  # the first row shown: the sidebar scrolls to keep the focused row in view

    def notify_style_update(self) -> None:
        self._drawn.clear()  # drawn on the old base style
        self._edge = None
        super().notify_style_update()

    def fit(self, configured: int, columns: int) -> None:
        """Take `configured` columns of a terminal `columns` wide, fewer on a narrow one; left out
        (until the terminal widens) when even the narrowest sidebar would not fit."""
        width = fitted_width(configured, columns)
        self.set_class(width == 0, "-narrow")
        if width and self.styles.width != Scalar.parse(str(width)):
            self.styles.width = width

    def set_rows(self, rows: list[SessionRow], focused_id: str | None) -> None:
        self.rows = rows
        self.focused_id = focused_id
        self._index = {row.id: index for index, row in enumerate(rows)}
        self._drawn.clear()
        self.scroll_to_focused()
        self.refresh()

    @property
    def shown_rows(self) -> int:
        """Rows that fit whole."""
        return self._rows_fitting(self.size.height)

    def _rows_fitting(self, height: int) -> int:
        return max(1, height // self.ROW_HEIGHT)

    def scroll_rows_to(self, top: int) -> None:
        top = max(0, min(top, len(self.rows) - self.shown_rows))
        if top != self.first_row:
            self.first_row = top
            self.refresh()

    def scroll_to_focused(self) -> None:
        index = self._index.get(self.focused_id) if self.focused_id is not None else None
        if index is None:
            self.scroll_rows_to(self.first_row)  # rows may have gone: no empty space at the end
        elif index < self.first_row:
            self.scroll_rows_to(index)
        elif index >= self.first_row + self.shown_rows:
            self.scroll_rows_to(index - self.shown_rows + 1)
        else:
            self.scroll_rows_to(self.first_row)

    def on_resize(self, event: events.Resize) -> None:
        self.scroll_to_focused()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.scroll_rows_to(self.first_row - 1)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.scroll_rows_to(self.first_row + 1)

    def update_row(self, row: SessionRow) -> bool:
        """Redraw one session's row, only if what it shows changed; True when it did."""
        return self.update_rows([row]) == 1

    def shows_new(self, row: SessionRow) -> bool:
        """Whether `update_rows` would draw this row again: it is in view and shows something new."""
        index = self._index.get(row.id)
        size = self.size
        if index is None or not self._in_view(index, size.height):
            return False
        drawn = self._drawn.get(index)
        return drawn is None or drawn[0] != self._row_key(index, row, size.width)

    def update_rows(self, rows: Iterable[SessionRow]) -> int:
        """Redraw the rows whose content changed, the lines of them that changed only, in one
        write; how many rows were redrawn."""
        changed = []
        size = self.size  # (Textual looks it up anew each time it is asked: once for the batch)
        for row in rows:
            index = self._index.get(row.id)
            if index is None:
                continue
            self.rows[index] = row
            drawn = self._drawn.get(index)
            if drawn is None or drawn[0] != self._row_key(index, row, size.width):
                changed.append(index)
        return self._refresh_rows(changed, size)

    def set_focus(self, focused_id: str | None) -> None:
        """Move the focus mark: only the rows it leaves and reaches are drawn again (all of them
        when the sidebar scrolls to show the focused one)."""
        changed = {self.focused_id, focused_id}
        self.focused_id = focused_id
        first = self.first_row
        self.scroll_to_focused()
        if self.first_row == first:
            for index in (self._index.get(sid) for sid in changed if sid is not None):
                if index is not None:
                    self._refresh_row(index)

    def _refresh_row(self, index: int) -> bool:
        return self._refresh_rows([index]) == 1

    def _in_view(self, index: int, height: int) -> bool:
        """Whether row `index` is shown on a sidebar `height` lines tall (half shown at the bottom too)."""
        return self.first_row <= index <= self.first_row + self._rows_fitting(height)

    def _refresh_rows(self, indexes: Iterable[int], size: Size | None = None) -> int:
        """Draw these rows again (the sidebar being `size`, when the caller has it); the lines that
        show something else than they did go out in one write (`paint_lines`), else Textual
        repaints the rows."""
        size = size or self.size
        lines: list[int] = []
        strips: list[Strip] = []
        regions = []
        for index in indexes:
            if not self._in_view(index, size.height):
                continue  # scrolled out of view: drawn afresh when it comes back
            self.row_refreshes += 1
            top = (index - self.first_row) * self.ROW_HEIGHT
            before = self._drawn.get(index)
            for part in range(self.ROW_HEIGHT):
                strip = self._outer_line(top + part, size.width)
                # A line that shows what it showed is on the terminal already (a scroll or a new
                # style repaints the whole sidebar, and a repaint Textual owes draws it as it is).
                if before is None or before[1][part] != strip:
                    lines.append(top + part)
                    strips.append(strip)
            regions.append(Region(0, top, size.width, self.ROW_HEIGHT))
        if lines and not self.paint_lines(lines, self.filtered(strips)):
            for region in regions:
                self.refresh(region)
        return len(regions)

    def _row_key(self, index: int, row: SessionRow, width: int) -> tuple[Any, ...]:
        return (
            index, row.id, row.name, row.state, row.exit_code, row.exit_signal, row.unseen, row.bell,
            row.preview or row.title, row.id == self.focused_id, width,
        )  # fmt: skip

    def row_pieces(self, index: int, row: SessionRow) -> tuple[list[Piece], list[Piece]]:
        """Two lines of (text, style): `N:name [exit 3] * !` (unseen output, bell) and the preview."""
        focused = row.id == self.focused_id
        head: list[Piece] = [
            ("▌" if focused else " ", _MARK),
            (f"{index}:", _DIM),
            (visible(row.name), _FOCUSED_NAME if focused else _NAME),
        ]
        if row.state != "running":
            state = f"[{row.exit_signal}]" if row.exit_signal else f"[exit {row.exit_code}]"
            head.append((" " + state, _ENDED))
        if row.unseen:
            head.append((" *", _MARK))
        if row.bell:
            head.append((" !", _BELL))
        return head, [("   " + visible(row.preview or row.title), _DIM)]

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines in `crop` (of the whole widget, its border included) as Textual's styles
        cache would make them (a test compares them), kept from one frame to the next: Textual's
        way draws every line of the widget again whenever one changes."""
        width = self.size.width
        strips = self.filtered([self._outer_line(y, width) for y in crop.line_range])
        if crop.column_span != (0, self.outer_size.width):
            x1, x2 = crop.column_span
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips

    def _outer_line(self, y: int, width: int) -> Strip:
        """Line y of the widget, the right border's cell included (its content `width` wide)."""
        shown, part = divmod(y, self.ROW_HEIGHT)
        index = self.first_row + shown
        if index >= len(self.rows):
            return self._beside_edge(Strip.blank(width, self.base_style))
        row = self.rows[index]
        key = self._row_key(index, row, width)
        drawn = self._drawn.get(index)
        if drawn is None or drawn[0] != key:
            lines = [self._content_line(index, row, n, width) for n in range(self.ROW_HEIGHT)]
            drawn = (key, [self._beside_edge(line) for line in lines])
            self._drawn[index] = drawn
            self.rows_drawn += 1
        return drawn[1][part]

    def _beside_edge(self, strip: Strip) -> Strip:
        """A content line with the right border's cell after it, the cell as Textual draws it
        (the sidebar's border is one character on every line: taken once from Textual's own
        rendering of the first line, already filtered; Textual's line filters give what they are
        given when applied again with the line's)."""
        width = self.outer_size.width
        if self._edge is None or self._edge[0] != width:
            has_edge = bool(self.styles.border_right[0]) and width > self.size.width
            edge = Widget.render_lines(self, Region(width - 1, 0, 1, 1))[0] if has_edge and width else None
            self._edge = (width, edge)
        edge = self._edge[1]
        return strip if edge is None else Strip.join([strip, edge])

    def _content_line(self, index: int, row: SessionRow, part: int, width: int) -> Strip:
        return fit_strip(self.row_pieces(index, row)[part], width, self.base_style)

    def render_line(self, y: int) -> Strip:
        """Line y inside the border (Textual's own pass draws the border around it)."""
        shown, part = divmod(y, self.ROW_HEIGHT)
        index = self.first_row + shown
        width = self.size.width
        if index >= len(self.rows):
            return Strip.blank(width, self.base_style)
        return self._content_line(index, self.rows[index], part, width)

    def on_click(self, event: events.Click) -> None:
        index = self.first_row + int(event.y) // self.ROW_HEIGHT
        if 0 <= index < len(self.rows):
            event.stop()
            self.post_message(self.Selected(self.rows[index].id))


MESSAGE_SECONDS = 4.0  # how long a status-line message stays
PENDING_HINTS = (
    " c new  n/p next/prev  0-9 select  w grid  f find  l last  d detach  x kill  , rename  s sidebar"
    "  [ copy  ] paste  ? help"
)


class StatusLine(KeptLines):
    """The left and right templates (termux/tui/statusline.py) filled from its reactives, the
    prefix's hints while it is pending, and short messages. Drawn again only when the text it
    shows changes: a reactive the templates do not show changes nothing on screen. A message
    clears itself after MESSAGE_SECONDS: one timer while a message shows, none otherwise; a
    template with a time field has one more timer, due when the shown time turns, and one without
    has none."""

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $text;
    }
    """

    # One line, as wide as the screen: its size never changes, so none of these lays anything out;
    # none repaints by itself either (`_changed` compares the text it would show).
    pending: reactive[bool] = reactive(False, layout=False, repaint=False)
    session: reactive[str] = reactive("", layout=False, repaint=False)
    index: reactive[int | None] = reactive(None, layout=False, repaint=False)
    sessions: reactive[int] = reactive(0, layout=False, repaint=False)
    unseen: reactive[int] = reactive(0, layout=False, repaint=False)
    bells: reactive[int] = reactive(0, layout=False, repaint=False)
    # the same again restarts its timer
    message: reactive[str] = reactive("", layout=False, repaint=False, always_update=True)
    mode: reactive[str] = reactive("", layout=False, repaint=False)  # copy mode's status, instead of the left part

    def __init__(self, prefix: str, left: Template | None = None, right: Template | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prefix = prefix
        self.host = short_host()
        self.left = left or parse_template(DEFAULT_LEFT)
        self.right = right or parse_template(DEFAULT_RIGHT)
        self.message_timer: Timer | None = None
        self.clock_timer: Timer | None = None
        self.redraws = 0  # texts drawn (tests count them)
        self._text = Text()
        self._shown: tuple[Any, ...] | None = None
        ticks = [t for t in (self.left.tick(), self.right.tick()) if t is not None]
        self.tick = min(ticks) if ticks else None  # None: no clock, no timer

    @property
    def fields(self) -> frozenset[str]:
        return self.left.fields | self.right.fields

    def shows(self, name: str) -> bool:
        """Whether either template has the field `name` (`{marks}` counts as unseen and bells)."""
        return name in self.fields or (name in ("unseen", "bells") and "marks" in self.fields)

    def values(self) -> dict[str, object]:
        return {
            "session": self.session, "index": "" if self.index is None else self.index, "sessions": self.sessions,
            "host": self.host, "prefix": self.prefix, "unseen": self.unseen, "bells": self.bells,
            "marks": marks(self.unseen, self.bells),
        }  # fmt: skip

    def watch_message(self, message: str) -> None:
        if self.message_timer is not None:
            self.message_timer.stop()
            self.message_timer = None
        if message:
            self.message_timer = self.set_timer(MESSAGE_SECONDS, self._message_expired, name="status-message")
        self._changed()

    def _message_expired(self) -> None:
        self.message_timer = None
        self.message = ""

    def on_mount(self) -> None:
        for name in ("pending", "session", "index", "sessions", "unseen", "bells", "mode"):
            self.watch(self, name, self._changed, init=False)  # (message has its own watcher)
        self._changed()
        self._arm_clock()

    def on_unmount(self) -> None:
        self.stop_clock()

    def stop_clock(self) -> None:
        """Hidden (another screen covers it): its clock needs no timer until it shows again."""
        if self.clock_timer is not None:
            self.clock_timer.stop()
            self.clock_timer = None

    def start_clock(self) -> None:
        """Shown again: the time as it is now, and the timer for its next turn."""
        self._changed()
        if self.clock_timer is None:
            self._arm_clock()

    def _arm_clock(self) -> None:
        if self.tick is not None:
            delay = next_change(self.tick, time.time())
            self.clock_timer = self.set_timer(delay, self._clock_turned, name="status-clock")

    def _clock_turned(self) -> None:
        self.clock_timer = None
        self._changed()
        self._arm_clock()

    def on_resize(self, event: events.Resize) -> None:
        self._changed()

    def _changed(self) -> None:
        """Something it shows may have changed: draw it again if its text did."""
        if not self.is_mounted:
            return  # on_mount draws it
        now = time.time()
        values = self.values()
        if self.pending:
            left, hints, right = f" {self.prefix} ", PENDING_HINTS, ""
        elif self.mode:
            right = visible(self.right.render(values, now))
            left, hints = f" [{visible(self.session)}] ", visible(self.mode)
        else:
            left, hints, right = visible(self.left.render(values, now)), "", visible(self.right.render(values, now))
        message = visible(self.message)
        key = (self.pending, left, hints, right, message, self.size.width)
        if key == self._shown:
            return
        self._shown = key
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(left, style=Style(reverse=True, bold=True) if self.pending else None)
        text.append(hints, style=Style(reverse=True) if self.mode and not self.pending else None)
        if message:
            text.append("  " + message, style=Style(bold=True))
        room = self.size.width - text.cell_len - cell_len(right)
        if right and room > 0:
            text.append(" " * room + right)
        self._text = text
        self.redraws += 1
        self.refresh()

    def render(self) -> Text:
        return self._text


def short_host() -> str:
    """This machine's name up to its first dot (tmux's #h)."""
    return socket.gethostname().split(".", 1)[0]
