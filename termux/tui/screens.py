"""Modal screens: help, confirm, rename, scrollback. Keys reach these only while they are open."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, Static

from termux.text import visible
from termux.tui.config import ACTION_HELP, Config


def _key_label(key: str) -> str:
    return key


class HelpScreen(ModalScreen[None]):
    """Every binding; any key closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 72; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 1 2;
    }
    """

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config

    def compose(self) -> ComposeResult:
        text = Text()
        text.append("termux keys\n\n", style="bold")
        text.append(f"Prefix: {self.config.prefix}, then:\n\n")
        selects = sorted(k for k, a in self.config.bindings.items() if a == f"select-{k}")
        for key, action in sorted(self.config.bindings.items(), key=lambda kv: kv[1]):
            if key in selects:
                continue
            text.append(f"  {_key_label(key):>8}  ", style="bold cyan")
            text.append(f"{ACTION_HELP.get(action, action)}\n")
        if selects:
            label = f"{selects[0]}-{selects[-1]}" if len(selects) > 1 else selects[0]
            text.append(f"  {label:>8}  ", style="bold cyan")
            text.append("focus that session (its number in the sidebar)\n")
        text.append(f"  {self.config.prefix:>8}  ", style="bold cyan")
        text.append("send the prefix key itself\n\n")
        text.append("Scrollback: ↑/↓ k/j line, PgUp/PgDn page, g/G top/bottom, wheel; q or Esc leaves.\n")
        text.append("Mouse: click a session in the sidebar to focus it.\n\n")
        text.append("Any key closes this help.", style="dim")
        with VerticalScroll():
            yield Static(text)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss(None)

    def on_click(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: y confirms, anything else declines."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Static { width: auto; border: round $error; background: $surface; padding: 1 2; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        yield Static(visible(f"{self.question} (y/n)"), markup=False)  # it may hold a session's name

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss(event.key in ("y", "Y"))


class RenameScreen(ModalScreen[str | None]):
    """Ask for a new name: Enter accepts, Escape cancels."""

    DEFAULT_CSS = """
    RenameScreen { align: center middle; }
    RenameScreen > Vertical { width: 50; height: auto; border: round $primary; background: $surface; }
    """

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Rename session (Enter accepts, Esc cancels)")
            yield Input(value=self.current, id="name")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.dismiss(None)


class HistoryView(Widget, can_focus=True):
    """Lines of history (capture output with escapes), `top` is the first line shown."""

    DEFAULT_CSS = "HistoryView { width: 1fr; height: 1fr; }"

    def __init__(self, lines: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines = [Text.from_ansi(line, no_wrap=True) for line in lines]
        self.top = 0

    def max_top(self) -> int:
        return max(0, len(self.lines) - self.size.height)

    def scroll_to_line(self, top: int) -> None:
        self.top = max(0, min(top, self.max_top()))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        index = self.top + y
        if index >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        segments = list(self.lines[index].render(self.app.console))
        return Strip(segments).crop_extend(0, width, self.rich_style)


class ScrollbackScreen(Screen[None]):
    """Browse a session's history and screen; q or Escape leaves."""

    DEFAULT_CSS = """
    ScrollbackScreen #where { height: 1; background: $warning; color: $background; }
    """

    def __init__(self, lines: list[str], wheel_lines: int = 3, title: str = "") -> None:
        super().__init__()
        self.history_lines = lines
        self.wheel_lines = wheel_lines
        self.title_text = title

    def compose(self) -> ComposeResult:
        yield HistoryView(self.history_lines, id="history")
        yield Static("", id="where", markup=False)

    @property
    def view(self) -> HistoryView:
        return self.query_one(HistoryView)

    def on_mount(self) -> None:
        self.call_after_refresh(self._bottom)

    def _bottom(self) -> None:
        self.view.scroll_to_line(self.view.max_top())
        self._where()

    def _where(self) -> None:
        view = self.view
        total = len(view.lines)
        self.query_one("#where", Static).update(
            f" scrollback {visible(self.title_text)}  line {view.top + 1}/{total}  ↑↓ PgUp PgDn g G · wheel · q leaves"
        )

    def move(self, delta: int) -> None:
        self.view.scroll_to_line(self.view.top + delta)
        self._where()

    def on_key(self, event: events.Key) -> None:
        event.stop()
        page = max(1, self.view.size.height - 1)
        key = event.key
        if key in ("q", "escape"):
            self.dismiss(None)
        elif key in ("up", "k"):
            self.move(-1)
        elif key in ("down", "j"):
            self.move(1)
        elif key in ("pageup", "b", "ctrl+b"):
            self.move(-page)
        elif key in ("pagedown", "space", "f", "ctrl+f"):
            self.move(page)
        elif key in ("home", "g"):
            self.move(-len(self.view.lines))
        elif key in ("end", "G", "shift+g"):
            self.move(len(self.view.lines))

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.move(-self.wheel_lines)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.move(self.wheel_lines)
