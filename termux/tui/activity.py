"""The activity view: words harvested from what sessions print, revealed like a slow rain.

`WordHarvester` is sans-I/O (time is passed in). It looks only at the last `TAIL_BYTES` of each chunk
(a flood costs O(1) per chunk, and only the most recent word can surface anyway), keeps a bounded
pool, and reveals at most one word per session per interval. `ActivityView` arms a timer only while
the pool holds something to reveal; an empty pool means no timer at all.
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from typing import Any

from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from termux.text import visible

TAIL_BYTES = 512
POOL_MAX = 64  # pending words; the oldest is dropped when full
SHOWN_MAX = 200  # revealed words kept for drawing
REVEAL_INTERVAL = 0.6  # seconds between two words of one session

_ESCAPES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_WORD = re.compile(r"[^\W\d_][\w'-]{2,23}")


def last_word(chunk: bytes) -> str | None:
    """The most recent word in the chunk's tail (letters first, 3–24 characters), or None."""
    tail = chunk[-TAIL_BYTES:]
    if len(chunk) > TAIL_BYTES and chunk[-TAIL_BYTES - 1 : -TAIL_BYTES].isalnum():
        # the tail starts inside a word that began before it: that word is not the tail's
        tail = re.sub(rb"^[0-9A-Za-z]+", b"", tail)
    text = _ESCAPES.sub(b" ", tail).decode("utf-8", "replace")
    words = _WORD.findall(text)
    while words:
        word = words.pop().strip("'-")
        if len(word) >= 3:
            return word
    return None


class WordHarvester:
    """A bounded pool of (session, word) with one reveal per session per interval."""

    def __init__(self, interval: float = REVEAL_INTERVAL, pool_max: int = POOL_MAX) -> None:
        self.interval = interval
        self.pool_max = pool_max
        # one pending word per session (the latest wins), oldest session first
        self.pool: OrderedDict[str, str] = OrderedDict()
        self.last_reveal: dict[str, float] = {}

    def observe(self, session: str, chunk: bytes) -> bool:
        """Harvest from one output chunk; True when the pool gained a word."""
        word = last_word(chunk)
        if word is None:
            return False
        self.pool[session] = word
        self.pool.move_to_end(session)
        while len(self.pool) > self.pool_max:
            self.pool.popitem(last=False)
        return True

    def forget(self, session: str) -> None:
        self.pool.pop(session, None)
        self.last_reveal.pop(session, None)

    def next_deadline(self, now: float) -> float | None:
        """When the next word can be revealed (≤ now: at once), or None when the pool is empty."""
        if not self.pool:
            return None
        return min(self.last_reveal.get(s, now - self.interval) + self.interval for s in self.pool)

    def reveal(self, now: float) -> list[tuple[str, str]]:
        """Words whose session may reveal again by `now`, one per session."""
        ready = [s for s in self.pool if self.last_reveal.get(s, now - self.interval) + self.interval <= now]
        out = []
        for session in ready:
            out.append((session, self.pool.pop(session)))
            self.last_reveal[session] = now
        return out


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
