"""The activity view: words harvested from what sessions print, revealed like a slow rain.

The words come from `WordHarvester` (termux/tui/harvest.py, sans-I/O). `ActivityView` arms a timer
only while the pool holds something to reveal; an empty pool means no timer at all.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from termux.text import visible
from termux.tui.harvest import REVEAL_INTERVAL, WordHarvester

SHOWN_MAX = 200  # revealed words kept for drawing


class ActivityView(Widget):
    """A rain of harvested words: each reveal pushes the newest words in at the top."""

    DEFAULT_CSS = """
    ActivityView {
        height: 6;
        border-top: solid $primary-darken-2;
    }
    ActivityView.-hidden { display: none; }
    """

    def __init__(self, interval: float = REVEAL_INTERVAL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.harvester = WordHarvester(interval)
        self.timer: Timer | None = None
        self.shown: deque[tuple[str, str]] = deque(maxlen=SHOWN_MAX)
        self.names: dict[str, str] = {}
        self._body = Static("", expand=True)

    def compose(self) -> Any:
        yield self._body

    def observe(self, session: str, chunk: bytes) -> None:
        if self.harvester.observe(session, chunk):
            self._arm()

    def forget(self, session: str) -> None:
        """The session went: its words are not revealed."""
        self.harvester.forget(session)

    def _arm(self) -> None:
        if self.timer is not None:
            return
        loop_time = self._now()
        deadline = self.harvester.next_deadline(loop_time)
        if deadline is None:
            return
        self.timer = self.set_timer(max(0.001, deadline - loop_time), self._tick, name="activity-reveal")

    @staticmethod
    def _now() -> float:
        import time

        return time.monotonic()

    def _tick(self) -> None:
        self.timer = None
        revealed = self.harvester.reveal(self._now())
        for session, word in revealed:
            self.shown.appendleft((session, word))
        if revealed:
            self._draw()
        self._arm()  # only if words remain

    def _draw(self) -> None:
        text = Text(no_wrap=False)
        for session, word in list(self.shown)[:60]:
            text.append(word, style="bold green")
            text.append(f"·{visible(self.names.get(session, session))}  ", style="dim green")
        self._body.update(text)
