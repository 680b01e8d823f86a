"""The TUI's widgets: the terminal view, the session sidebar and the status line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from termux.keys import ALT, CTRL, SHIFT, encode_mouse, mouse_tracking
from termux.text import visible
from termux.tui.render import Palette, ScreenRenderer


class TerminalView(Widget, can_focus=True):
    """Draws one session's shadow screen. Only dirty lines are rendered again."""

    DEFAULT_CSS = """
    TerminalView {
        width: 1fr;
        height: 1fr;
        background: ansi_default;
        color: ansi_default;
    }
    """

    class Input(Message):
        """Bytes the user's mouse produced for the program (the app sends them)."""

        def __init__(self, data: bytes) -> None:
            super().__init__()
            self.data = data

    class Scrolled(Message):
        """A wheel turn over a program that did not ask for the mouse: browse scrollback."""

        def __init__(self, lines: int) -> None:
            super().__init__()
            self.lines = lines

    class Resized(Message):
        """The view's size changed (outer terminal resized, sidebar toggled): fit the session."""

    def __init__(self, palette: Palette | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.palette = palette or Palette()
        self.renderer = ScreenRenderer(self.palette)
        self.screen_: Any = None  # pyte screen shown ("screen" is Textual's)
        self._buttons = 0  # mouse button held (1..3), for drag reports

    # -- content -------------------------------------------------------------------------------

    def show(self, screen: Any) -> None:
        """Show another screen (or the same one after a reset): everything is drawn anew."""
        self.screen_ = screen
        self.renderer.reset()
        if screen is not None:
            screen.dirty.update(range(screen.lines))
        self.update_dirty()
        self.refresh()

    def update_dirty(self) -> set[int]:
        """Refresh just the lines the screen changed; returns them."""
        screen = self.screen_
        if screen is None:
            return set()
        dirty = self.renderer.take_dirty(screen, show_cursor=self._cursor_visible())
        width = self.size.width
        for y in dirty:
            self.refresh(Region(0, y, width, 1))
        return dirty

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
        screen = self.screen_
        width = self.size.width
        if screen is None or y >= screen.lines:
            return Strip.blank(width, self.rich_style)
        return self.renderer.line(screen, y).crop_extend(0, width, self.rich_style)

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
        data = encode_mouse(kind, button, event.x, event.y, self._mods(event), mode)
        if data:
            self.post_message(self.Input(data))
        return True

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self.focus()
        self._buttons = event.button
        if self._send_mouse("press", event.button, event):
            event.stop()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self._buttons = 0
        if self._send_mouse("release", event.button, event):
            event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._send_mouse("move", self._buttons, event):
            event.stop()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        if not self._send_mouse("wheel", 4, event):
            self.post_message(self.Scrolled(-1))

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        if not self._send_mouse("wheel", 5, event):
            self.post_message(self.Scrolled(1))


@dataclass
class SessionRow:
    """What the sidebar shows for one session."""

    id: str
    name: str
    state: str = "running"
    exit_code: int | None = None
    exit_signal: str | None = None
    unseen: bool = False
    bell: bool = False
    preview: str = ""
    title: str = ""


class Sidebar(Widget):
    """Every session: name, state or exit code, unseen-output and bell marks, a one-line preview."""

    DEFAULT_CSS = """
    Sidebar {
        width: 28;
        height: 1fr;
        border-right: solid $primary-darken-2;
        padding: 0 0;
    }
    Sidebar.-hidden { display: none; }
    """

    class Selected(Message):
        """A click on a session's row."""

        def __init__(self, session_id: str) -> None:
            super().__init__()
            self.session_id = session_id

    ROW_HEIGHT = 2

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[SessionRow] = []
        self.focused_id: str | None = None

    def set_rows(self, rows: list[SessionRow], focused_id: str | None) -> None:
        self.rows = rows
        self.focused_id = focused_id
        self.refresh()

    def update_row(self, row: SessionRow) -> None:
        """Redraw one session's row only."""
        for index, existing in enumerate(self.rows):
            if existing.id == row.id:
                self.rows[index] = row
                self._refresh_row(index)
                return

    def set_focus(self, focused_id: str | None) -> None:
        """Move the focus mark: only the rows it leaves and reaches are drawn again."""
        changed = {self.focused_id, focused_id}
        self.focused_id = focused_id
        for index, row in enumerate(self.rows):
            if row.id in changed:
                self._refresh_row(index)

    def _refresh_row(self, index: int) -> None:
        self.refresh(Region(0, index * self.ROW_HEIGHT, self.size.width, self.ROW_HEIGHT))

    def row_text(self, index: int, row: SessionRow) -> tuple[Text, Text]:
        """Two lines: `N:name [exit 3] * !` (unseen output, bell) and the preview."""
        focused = row.id == self.focused_id
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append("▌" if focused else " ", style="bold cyan")
        head.append(f"{index}:", style="dim")
        head.append(visible(row.name), style="bold reverse" if focused else "bold")
        if row.state != "running":
            state = f"[{row.exit_signal}]" if row.exit_signal else f"[exit {row.exit_code}]"
            head.append(" " + state, style="red")
        if row.unseen:
            head.append(" *", style="bold cyan")
        if row.bell:
            head.append(" !", style="bold yellow")
        preview = Text("   " + visible(row.preview or row.title), style="dim", no_wrap=True, overflow="ellipsis")
        return head, preview

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        index, part = divmod(y, self.ROW_HEIGHT)
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        text = self.row_text(index, self.rows[index])[part]
        text.truncate(width, overflow="ellipsis")
        segments = list(text.render(self.app.console))
        return Strip(segments).crop_extend(0, width, self.rich_style).apply_style(self.rich_style)

    def on_click(self, event: events.Click) -> None:
        index = int(event.y) // self.ROW_HEIGHT
        if 0 <= index < len(self.rows):
            event.stop()
            self.post_message(self.Selected(self.rows[index].id))


class StatusLine(Static):
    """Key hints, the prefix state and short messages."""

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $text;
    }
    """

    def __init__(self, prefix: str, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.prefix = prefix
        self.pending = False
        self.message = ""
        self.session = ""
        self._redraw()

    def set_state(self, *, pending: bool | None = None, message: str | None = None, session: str | None = None) -> None:
        if pending is not None:
            self.pending = pending
        if message is not None:
            self.message = message
        if session is not None:
            self.session = session
        self._redraw()

    def _redraw(self) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.pending:
            text.append(f" {self.prefix} ", style=Style(reverse=True, bold=True))
            text.append(" c new  n/p next/prev  0-9 select  d detach  x kill  , rename  s sidebar  ")
            text.append("r activity  [ scroll  ? help")
        else:
            text.append(f" [{visible(self.session)}] ", style=Style(bold=True))
            text.append(f"{self.prefix} then: c new  n next  d detach  ? help")
        if self.message:
            text.append("  " + visible(self.message), style=Style(bold=True))
        self.update(text, layout=False)  # one line, as wide as the screen: its size never changes


def blank_strip(width: int, style: Style | None = None) -> Strip:
    return Strip([Segment(" " * width, style)], width)
