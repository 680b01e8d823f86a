"""The event log (minimal: the events work extends it). Sans-I/O: a bounded ring of events."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

import msgspec


class Event(msgspec.Struct):
    seq: int
    type: str
    time: float
    session: str | None = None
    name: str | None = None
    data: dict[str, Any] = {}


class EventLog:
    """Events with strictly increasing sequence numbers, the oldest dropped past `capacity`."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self.events: deque[Event] = deque(maxlen=capacity)
        self.last_seq = 0
        self.listeners: list[Callable[[Event], None]] = []

    def append(self, type: str, *, session: str | None = None, name: str | None = None, **data: Any) -> Event:
        self.last_seq += 1
        event = Event(self.last_seq, type, time.time(), session, name, data)
        self.events.append(event)
        for listener in list(self.listeners):
            listener(event)
        return event
