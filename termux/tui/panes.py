"""The terminal area split into panes: one TerminalView per pane, placed where the layout's
geometry says (termux/tui/layout.py), and the borders between them drawn by the area itself.

The area draws the title rows (the session's name, the focused pane marked, an ended session's
exit status) and the separator columns; each pane's view sits over its content rectangle. A press
on a border and a drag moves it (`Dragged`); a click in a pane focuses it (`Clicked`). The app owns
the layout: it applies these and calls `place` with the new geometry.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.css.scalar import Scalar, Unit
from textual.message import Message
from textual.strip import Strip

from termux.text import visible
from termux.tui.layout import Border, Geometry, Rect
from termux.tui.render import Palette
from termux.tui.widgets import BaseStyled, TerminalView, fit_strip

_TITLE = Style(dim=True)
_FOCUSED_TITLE = Style(bold=True, reverse=True)
_ENDED_TITLE = Style(color="red")
_SEPARATOR = Style(dim=True)
SEPARATOR_CHAR = "│"
_FILL = Scalar.parse("100%")
FILLED_WIDTH = Scalar(100.0, Unit.WIDTH, Unit.WIDTH)  # what `styles.width` holds once set to _FILL
TITLE_FILL = "─"


@dataclass(frozen=True)
class PaneLabel:
    """What a pane's title row says: the session's name and, once it ended, how."""

    name: str
    ended: str | None = None  # "exit 1", "SIGKILL": the session ended (shown until dismissed)


class PaneView(TerminalView):
    """The view of one pane's session."""

    def __init__(self, session: str, palette: Palette | None = None) -> None:
        super().__init__(palette)
        self.session = session
        self.placed: Rect | None = None  # where `PaneArea.place` put it last
        self.styles.position = "absolute"


def title_strip(label: PaneLabel, width: int, focused: bool, base: Style) -> Strip:
    """One title row: ` name ` (marked when focused), the exit status of an ended session, then a
    rule to the edge."""
    style = _ENDED_TITLE if label.ended is not None else (_FOCUSED_TITLE if focused else _TITLE)
    mark = "▌" if focused else TITLE_FILL
    pieces = [(mark, _FOCUSED_TITLE if focused else _TITLE), (f" {visible(label.name)} ", style)]
    if label.ended is not None:
        pieces.append((f"[{label.ended}: Enter closes] ", _ENDED_TITLE + Style(bold=focused)))
    used = sum(len(text) for text, _ in pieces)
    pieces.append((TITLE_FILL * max(0, width - used), _TITLE))
    return fit_strip(pieces, width, base)


class PaneArea(BaseStyled):
    """Every pane of the layout; the views are its children, placed absolutely."""

    DEFAULT_CSS = """
    PaneArea {
        width: 1fr;
        height: 1fr;
        background: ansi_default;
        color: ansi_default;
    }
    """

    @dataclass
    class Resized(Message):
        """The area's size changed (the outer terminal, the sidebar): lay the panes out again."""

        width: int
        height: int

    @dataclass
    class Clicked(Message):
        """A pane was clicked (or its view took the focus): focus its session."""

        session: str

    @dataclass
    class Dragged(Message):
        """A border is being dragged to `position` (a column for side by side panes, a row for
        stacked ones), in the area's cells."""

        border: Border
        position: int

    def __init__(self, palette: Palette | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.palette = palette or Palette()
        self.views: dict[str, PaneView] = {}
        # A view no pane uses: the first pane's before the layout is known, kept when the last
        # pane goes, so that there is always one to draw into, focus and measure.
        self.spare: PaneView | None = self._spare_view()
        self.geometry: Geometry | None = None
        self.labels: dict[str, PaneLabel] = {}
        self.focused: str | None = None
        self._dragging: Border | None = None
        self.composed = asyncio.Event()  # set once mounted with its spare view: panes can be placed

    def compose(self) -> ComposeResult:
        assert self.spare is not None
        yield self.spare

    def on_mount(self) -> None:
        self.composed.set()

    # -- layout ------------------------------------------------------------------------------------

    def view_for(self, session: str) -> PaneView:
        """The view of `session`'s pane (the spare one, else a new one, when it has none)."""
        view = self.views.get(session)
        if view is None:
            if self.spare is not None:
                view, self.spare = self.spare, None
                view.session = session
            else:
                view = PaneView(session, self.palette)
                self.mount(view)
            self.views[session] = view
        return view

    def focused_view(self) -> PaneView:
        """The focused pane's view (the spare one while there is none)."""
        view = self.views.get(self.focused) if self.focused is not None else None
        if view is not None:
            return view
        if self.spare is None:
            self.spare = self._spare_view()
            self.mount(self.spare)
        return self.spare

    def _spare_view(self) -> PaneView:
        view = PaneView("", self.palette)
        view.styles.width = view.styles.height = _FILL
        return view

    def clear(self) -> None:
        """No pane: every view goes but one, kept spare."""
        self.geometry, self.focused = None, None
        self._forget([*self.views])
        self.refresh()

    def _forget(self, sessions: list[str]) -> None:
        for session in sessions:
            view = self.views.pop(session)
            if self.spare is None:
                view.session = ""
                view.show(None)
                view.styles.offset = (0, 0)
                view.styles.width = view.styles.height = _FILL
                view.placed = None
                view.display = False
                self.spare = view
            else:
                view.remove()

    def place(self, geometry: Geometry, labels: dict[str, PaneLabel], focused: str | None) -> bool:
        """Place every pane's view over its content rectangle and draw the borders; views of
        sessions no longer in a pane go. True when a view moved, was resized, shown or hidden
        (Textual lays the area out again before drawing it); the area itself is drawn again only
        then or when its borders and titles changed (a switch in a pane alone changes neither)."""
        drawn = self._drawn()
        self.geometry, self.labels, self.focused = geometry, labels, focused
        moved = False
        placed = {box.session for box in geometry.panes}
        # A pane whose session changed keeps its view (no widget comes or goes, nothing is laid
        # out again when it stays where it was).
        leftover = [s for s in self.views if s not in placed]
        for box in geometry.panes:
            if box.session not in self.views and leftover:
                view = self.views[box.session] = self.views.pop(leftover.pop())
                view.session = box.session
            view = self.view_for(box.session)
            rect = box.content
            # A pane alone fills the area as the area's size changes, in the same layout pass;
            # panes of a split are placed in cells.
            target = None if geometry.alone else rect
            if view.placed != target or view.placed is None and view.styles.width != FILLED_WIDTH:
                moved = True
                view.placed = target
                view.styles.offset = (0, 0) if target is None else (rect.x, rect.y)
                view.styles.width = _FILL if target is None else max(rect.width, 0)
                view.styles.height = _FILL if target is None else max(rect.height, 0)
            shown = geometry.alone or (rect.width > 0 and rect.height > 0)
            if view.display != shown:
                moved = True
                view.display = shown
        moved = moved or bool(leftover)
        self._forget(leftover)
        if self.spare is not None and self.spare.display:
            moved = True
            self.spare.display = False
        if moved or self._drawn() != drawn:
            self.refresh()
        return moved

    def _drawn(self) -> tuple[Any, ...] | None:
        """What the area itself draws (`render_line`: the borders and titles; a pane alone, nothing)."""
        geometry = self.geometry
        if geometry is None or geometry.alone:
            return None
        return (geometry, dict(self.labels), self.focused)

    # -- drawing the borders ---------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.base_style
        geometry = self.geometry
        if geometry is None or geometry.alone:
            return Strip.blank(width, base)
        segments: list[Segment] = []
        at = 0
        pieces: list[tuple[int, Strip]] = []
        for box in geometry.panes:
            title = box.title
            if title is not None and title.y == y:
                label = self.labels.get(box.session, PaneLabel(box.session))
                pieces.append((title.x, title_strip(label, title.width, box.session == self.focused, base)))
        for border in geometry.borders:
            rect = border.rect
            if border.orientation == "h" and rect.y <= y < rect.y + rect.height:
                pieces.append((rect.x, Strip([Segment(SEPARATOR_CHAR, base + _SEPARATOR)], 1)))
        for x, strip in sorted(pieces, key=lambda piece: piece[0]):
            if x > at:
                segments.append(Segment(" " * (x - at), base))  # under a view: it draws there
            segments.extend(strip)
            at = x + strip.cell_length
        if at < width:
            segments.append(Segment(" " * (width - at), base))
        return Strip(segments).crop(0, width)

    # -- events --------------------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized(event.size.width, event.size.height))

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        widget = event.widget
        if isinstance(widget, PaneView) and widget.session != self.focused:
            self.post_message(self.Clicked(widget.session))

    def _local(self, event: events.MouseEvent) -> tuple[int, int]:
        return event.screen_x - self.region.x, event.screen_y - self.region.y

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if self.geometry is None or self.geometry.alone:
            return
        x, y = self._local(event)
        border = next((b for b in self.geometry.borders if b.rect.contains(x, y)), None)
        if border is not None:
            self._dragging = border
            self.capture_mouse()
            event.stop()
            return
        session = next((b.session for b in self.geometry.panes if b.frame.contains(x, y)), None)
        if session is not None and session != self.focused:
            self.post_message(self.Clicked(session))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        border = self._dragging
        if border is None:
            return
        x, y = self._local(event)
        self.post_message(self.Dragged(border, x if border.orientation == "h" else y))
        event.stop()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging is not None:
            self._dragging = None
            self.release_mouse()
            event.stop()


def border_position(border: Border) -> int:
    """Where a border is along the axis it moves on."""
    rect: Rect = border.rect
    return rect.x if border.orientation == "h" else rect.y
