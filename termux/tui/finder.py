"""Find a session (prefix f or '): type part of its name or its number, ↑/↓ choose among the
matches, Enter focuses, Escape cancels. The matching is termux/tui/tiles.py's `find`."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from termux.text import visible
from termux.tui import tiles
from termux.tui.model import SessionRow

SHOWN = 10  # matches listed at once (the rest scroll with the choice)


class FindScreen(ModalScreen[str | None]):
    """Dismissed with the chosen session's id, or None."""

    BINDINGS: ClassVar[list[BindingType]] = []

    DEFAULT_CSS = """
    FindScreen { align: center middle; }
    FindScreen > Vertical { width: 60; height: auto; border: round $primary; background: $surface; }
    FindScreen #found { height: auto; }
    """

    def __init__(self, rows: list[SessionRow]) -> None:
        super().__init__()
        self.rows = rows
        self.found: list[int] = list(range(len(rows)))
        self.choice = 0  # among `found`

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Find a session: part of its name, or its number", markup=False)
            yield Input(id="query")
            yield Static("", id="found")

    def on_mount(self) -> None:
        self._list()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.found = tiles.find([row.name for row in self.rows], event.value)
        self.choice = 0
        self._list()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.found:
            self.dismiss(self.rows[self.found[self.choice]].id)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.dismiss(None)
        elif event.key in ("up", "down") and self.found:
            event.stop()
            self.choice = max(0, min(self.choice + (1 if event.key == "down" else -1), len(self.found) - 1))
            self._list()

    def _list(self) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        if not self.found:
            text.append("  no session matches", style=Style(dim=True))
        first = max(0, min(self.choice - SHOWN + 1, len(self.found) - SHOWN))
        for place in range(first, min(first + SHOWN, len(self.found))):
            position = self.found[place]
            chosen = place == self.choice
            style = Style(reverse=True, bold=True) if chosen else None
            text.append(f"{'▌' if chosen else ' '} {position}:{visible(self.rows[position].name)}", style=style)
            if place < min(first + SHOWN, len(self.found)) - 1:
                text.append("\n")
        if len(self.found) > SHOWN:
            text.append(f"\n  {len(self.found)} matches", style=Style(dim=True))
        self.query_one("#found", Static).update(text)
