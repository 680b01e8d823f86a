"""Words harvested from what sessions print, for the activity view (sans-I/O: time is passed in).

`WordHarvester` looks only at the last `TAIL_BYTES` of each chunk (a flood costs O(1) per chunk, and
only the most recent word can surface anyway), keeps a bounded pool, and reveals at most one word
per session per interval.
"""

from __future__ import annotations

import re
from collections import OrderedDict

TAIL_BYTES = 512
POOL_MAX = 64  # pending words; the oldest is dropped when full
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
