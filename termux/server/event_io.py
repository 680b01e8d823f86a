"""The I/O side of the event log: stream fan-out and activity/quiet detection on the loop.

- `EventStream` drains one stream subscriber into its connection: a commit schedules one write
  for the next loop pass (`call_soon`), so a burst becomes one write per subscriber. While the
  connection's socket is backed up (`Connection.lagging`) the events wait in the log; a stream
  that falls more than its bound behind is dropped with a final `dropped` error line.
- `ActivityMonitor` turns parsed output into `session.activity` / `session.quiet` events with at
  most one timer armed (the earliest quiet deadline), none while no session is active, and lets a
  `session.wait` watch a session's output.

Nothing here polls: every wake-up is a committed event, parsed output, or a deadline someone is
waiting for.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from termux.defaults import QUIET_AFTER
from termux.protocol.errors import ErrorCode
from termux.protocol.events import QuietData, SessionActivity, SessionQuiet
from termux.protocol.pushes import ErrorInfo, ErrorPush, encode_line
from termux.server.events import ActivityTracker, EventLog, Subscriber

if TYPE_CHECKING:
    from termux.server.server import Connection
    from termux.server.session import Session


OutputWatcher = Callable[[bytes], None]


class EventStream:
    """Writes one subscriber's events to its connection; see the module docstring."""

    def __init__(self, conn: Connection, sub: Subscriber) -> None:
        self.conn = conn
        self.sub = sub
        self.written = sub.cursor  # the cursor a client resumes from after a drop
        self._scheduled = False
        self._loop = asyncio.get_running_loop()
        sub.on_ready = self._schedule
        sub.on_drop = self._dropped

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self._run)

    def _run(self) -> None:
        self._scheduled = False
        self.flush()

    def flush(self) -> None:
        """Write what is pending, unless the peer's socket is backed up: then the events wait in
        the log (the subscriber is stalled, bounded by its max_queue) until resume_writing."""
        sub = self.sub
        if sub.closed or not sub.awake:
            return
        if self.conn.lagging:
            sub.stall()
            return
        data = sub.take_lines()
        if data:
            self.conn.write(data)
        self.written = sub.cursor

    def _dropped(self) -> None:
        message = (
            f"event stream dropped: more than {self.sub.max_queue} events behind; resume with cursor {self.written}"
        )
        self.conn.write(encode_line(ErrorPush(ErrorInfo(ErrorCode.DROPPED, message, cursor=self.written))))
        transport = self.conn.transport
        if transport is not None:
            # A peer that is not reading would never take the rest of the buffer: abort.
            transport.abort() if self.conn.lagging else transport.close()

    def close(self) -> None:
        self.sub.close()


class ActivityMonitor:
    """Feeds parsed output to the sans-I/O ActivityTracker; one timer for the earliest deadline."""

    def __init__(
        self, log: EventLog, lookup: Callable[[str], Session | None], quiet_after: float = QUIET_AFTER
    ) -> None:
        self.log = log
        self.tracker = ActivityTracker(quiet_after)
        self._lookup = lookup
        self._timer: asyncio.TimerHandle | None = None
        self._deadline = 0.0
        self._watchers: dict[str, list[OutputWatcher]] = {}

    @property
    def quiet_after(self) -> float:
        return self.tracker.quiet_after

    def output(self, session: Session, chunk: bytes) -> None:
        """Called by the server for every parsed chunk (the screen already shows it)."""
        loop = asyncio.get_running_loop()
        if self.tracker.output(session.id, loop.time()):
            session.quiet_since = None
            self.log.commit(SessionActivity(session=session.id, name=session.name))
        if self._timer is None:
            self._arm(loop)
        for watcher in tuple(self._watchers.get(session.id, ())):
            watcher(chunk)

    def last_output(self, session: Session) -> float:
        """When the session last printed (Unix time; its creation if it never did), as tmux's
        session_activity: read from the tracker's loop clock while it is active."""
        last = self.tracker.last_output(session.id)
        if last is not None:
            return time.time() - (asyncio.get_running_loop().time() - last)
        if session.quiet_since is not None:
            return session.quiet_since
        return session.created

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        deadline = self.tracker.next_deadline()
        if deadline is not None:
            self._deadline = deadline
            self._timer = loop.call_at(deadline, self._fire)

    def _fire(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        # The loop may run a handle a hair before its time; the deadline itself has passed.
        for session_id in self.tracker.expire(max(loop.time(), self._deadline)):
            session = self._lookup(session_id)
            name = session.name if session else None
            if session is not None:  # (the output stopped quiet_after ago; said in the session's info)
                session.quiet_since = time.time() - self.tracker.quiet_after
            self.log.commit(SessionQuiet(session=session_id, name=name, data=QuietData(self.tracker.quiet_after)))
        self._arm(loop)

    def forget(self, session_id: str) -> None:
        """The session exited or was closed: no quiet event for it; disarm if nothing is left."""
        self.tracker.forget(session_id)
        if self._timer is not None and self.tracker.next_deadline() is None:
            self._timer.cancel()
            self._timer = None

    def watch(self, session_id: str, watcher: OutputWatcher) -> Callable[[], None]:
        """Call `watcher(chunk)` for each parsed chunk of the session; returns the unwatch."""
        self._watchers.setdefault(session_id, []).append(watcher)

        def unwatch() -> None:
            watchers = self._watchers.get(session_id)
            if watchers and watcher in watchers:
                watchers.remove(watcher)
                if not watchers:
                    del self._watchers[session_id]

        return unwatch

    @property
    def armed(self) -> bool:
        return self._timer is not None

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
