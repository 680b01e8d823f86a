"""Modal screens: help, confirm, rename. Keys reach these only while they are open."""

from __future__ import annotations

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from termux.text import visible
from termux.tui.config import ACTION_HELP, Config


def _key_label(key: str) -> str:
    return key


# Keys that scroll the help when it is taller than the terminal: the method of its scroll area.
_HELP_SCROLLS = {
    "up": "scroll_up", "k": "scroll_up", "down": "scroll_down", "j": "scroll_down",
    "pageup": "scroll_page_up", "pagedown": "scroll_page_down", "home": "scroll_home", "end": "scroll_end",
}  # fmt: skip


def help_text(config: Config) -> Group:
    """The help: the prefix, each key with what it does (two columns: a description that wraps
    stays in its column), copy mode's keys and the mouse."""
    head = Text()
    head.append("termux keys\n", style="bold")
    head.append("(any key closes this help; the arrows scroll it when it does not fit)\n\n", style="dim")
    head.append(f"Prefix: {config.prefix}, then:")
    keys = Table.grid(padding=(0, 2))
    keys.add_column(justify="right", style="bold cyan", no_wrap=True)
    keys.add_column()
    selects = sorted(k for k, a in config.bindings.items() if a == f"select-{k}")
    for key, action in sorted(config.bindings.items(), key=lambda kv: kv[1]):
        if key not in selects:
            keys.add_row(Text(_key_label(key)), Text(ACTION_HELP.get(action, action)))
    if selects:
        label = f"{selects[0]}-{selects[-1]}" if len(selects) > 1 else selects[0]
        keys.add_row(Text(label), Text("focus that session (its number in the sidebar)"))
    keys.add_row(Text(config.prefix), Text("send the prefix key itself"))
    tail = Text()
    mode_keys = config.mode_keys
    tail.append(f"Copy mode ({mode_keys} keys): move, v selects, / and ? search, n/N, y copies, q leaves.\n")
    tail.append("Mouse: click a session in the sidebar to focus it; drag to select and copy.\n\n")
    tail.append("Any key closes this help.", style="dim")
    return Group(head, Padding(keys, (1, 0, 1, 2)), tail)


class HelpScreen(ModalScreen[None]):
    """Every binding; taller than the terminal, the arrows, PgUp/PgDn, Home/End (and j/k) scroll
    it; any other key closes it."""

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
        with VerticalScroll():
            yield Static(help_text(self.config))

    def on_key(self, event: events.Key) -> None:
        event.stop()
        scroll = self.query_one(VerticalScroll)
        method = _HELP_SCROLLS.get(event.key)
        if method is not None and scroll.max_scroll_y > 0:
            getattr(scroll, method)(animate=False)
            return
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
