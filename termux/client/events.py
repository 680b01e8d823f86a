"""Following the event log, for `termux events` (termux/cli.py `cmd_events`). Pushed, never polled.

`termux events` streams (`events.stream`): one connection, the backlog and the cursor in the first
reply, then one pushed line per event. Against a server without `events.stream`, or when the
server's stream cap answers `capacity`, it falls back to long-polling `events.read` (each request
waits on the server until an event commits), with one notice on stderr; `--poll` forces that.
A dropped connection is resumed from the last cursor printed: no gap, no duplicate.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, TextIO

from termux.client import Client, TermuxError
from termux.text import visible

LONG_POLL_MS = 30_000  # one events.read waits at most this long on the server, then asks again
READ_LIMIT = 1000
RECONNECT_DELAYS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)  # then give up: the server is gone


def parse_types(value: str | None) -> list[str] | None:
    """`exited,session.bell` -> ["session.exited", "session.bell"]; short names match a suffix."""
    if not value:
        return None
    from termux.protocol.event_types import EVENT_TYPES  # the one list of event types

    types: list[str] = []
    for name in (part.strip() for part in value.split(",")):
        if not name:
            continue
        full = name if "." in name else next((t for t in EVENT_TYPES if t.split(".", 1)[1] == name), name)
        types.append(full)
    return types or None


def format_event(event: dict[str, Any]) -> str:
    """One readable line: seq, local time, type, session id and name, then the data as key=value."""
    stamp = time.strftime("%H:%M:%S", time.localtime(event["time"])) + f".{int(event['time'] % 1 * 1000):03d}"
    parts = [str(event["seq"]), stamp, event["type"], event.get("session") or "-", event.get("name") or "-"]
    for key, value in (event.get("data") or {}).items():
        text = value if isinstance(value, str) and value and " " not in value else json.dumps(value)
        parts.append(f"{key}={text}")
    return visible(" ".join(parts))


class Follower:
    """The `termux events` loop: stream first, long-poll as the fallback, resume on reconnect."""

    def __init__(
        self,
        connect: Callable[[bool], Client],
        *,
        cursor: int | None,
        types: list[str] | None,
        session: str | None,
        poll: bool,
        timeout: float | None,
        as_json: bool,
        out: TextIO,
        err: TextIO,
    ) -> None:
        self.connect = connect
        self.cursor = cursor  # None: start at the tail
        self.from_oldest = cursor == 0  # --cursor 0 means "everything still held"
        self.filters: dict[str, Any] = {}
        if types:
            self.filters["types"] = types
        if session:
            self.filters["session"] = session
        self.poll = poll
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.as_json = as_json
        self.progressed = False  # a request succeeded since the last reconnect
        self.out = out
        self.err = err

    def notice(self, message: str) -> None:
        print(visible(f"termux events: {message}"), file=self.err, flush=True)

    def remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def emit(self, events: list[dict[str, Any]]) -> None:
        if not events:
            return
        if self.as_json:
            text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)
        else:
            text = "".join(format_event(e) + "\n" for e in events)
        self.out.write(text)
        self.out.flush()
        self.cursor = events[-1]["seq"]

    def run(self) -> None:
        """Follow until --timeout passes (forever without one)."""
        first = True
        failures = 0
        while not self.expired():
            try:
                client = self.connect(first)
                first = False
                with client:
                    if self.follow(client):
                        return
            except TermuxError as exc:
                if first or exc.code not in ("disconnected", "no_server"):
                    raise
            except OSError:  # a reset connection: resume like a drop
                if first:
                    raise
            # Dropped: reconnect and resume from the last cursor, with a bounded retry budget that
            # starts afresh whenever a connection got somewhere.
            if self.progressed:
                failures, self.progressed = 0, False
            if failures >= len(RECONNECT_DELAYS):
                raise TermuxError("disconnected", "lost the server and could not reconnect")
            remaining = self.remaining()
            delay = RECONNECT_DELAYS[failures]
            time.sleep(delay if remaining is None else min(delay, remaining))
            failures += 1

    def follow(self, client: Client) -> bool:
        """Follow on one connection; True when done (timeout), False to reconnect and resume."""
        while True:
            try:
                if self.poll:
                    return self.follow_polling(client)
                return self.follow_stream(client)
            except TermuxError as exc:
                if exc.code == "cursor_expired":
                    oldest = int(exc.extra.get("oldest", 0))
                    if not self.from_oldest:
                        self.notice(f"events after {self.cursor} up to {oldest} are no longer held; continuing")
                    self.cursor = oldest
                elif exc.code == "cursor_ahead":
                    self.notice(f"cursor {self.cursor} is from another server run; reading this one's events")
                    self.cursor = 0
                    self.from_oldest = True
                elif exc.code in ("capacity", "unknown_command") and not self.poll:
                    why = (
                        "the server's stream limit is reached"
                        if exc.code == "capacity"
                        else ("the server has no events.stream")
                    )
                    self.notice(f"{why}; falling back to long-polling events.read")
                    self.poll = True
                else:
                    raise

    def follow_stream(self, client: Client) -> bool:
        reply = client.request("events.stream", cursor=self.cursor, **self.filters)
        self.progressed = True
        self.emit(reply["events"])
        self.cursor = reply["cursor"]
        self.from_oldest = False
        while True:
            push = client.next_push(self.remaining())
            if push is None:
                return True  # --timeout passed
            kind = push.get("push")
            if kind == "event":
                self.emit([push["event"]])
            elif kind == "error":
                error = push.get("error") or {}
                self.notice(f"{error.get('message', 'stream dropped')}; reconnecting")
                return False

    def follow_polling(self, client: Client) -> bool:
        while True:
            remaining = self.remaining()
            if remaining is not None and remaining <= 0:
                return True
            wait_ms = LONG_POLL_MS if remaining is None else min(LONG_POLL_MS, int(remaining * 1000))
            reply = client.request(
                "events.read", cursor=self.cursor, limit=READ_LIMIT, wait_ms=max(wait_ms, 0), **self.filters
            )
            self.emit(reply["events"])
            self.cursor = reply["cursor"]
            self.from_oldest = False
            self.progressed = True
