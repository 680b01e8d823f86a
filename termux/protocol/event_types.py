"""The names of the events the server commits (docs/protocol.md, "Events"), and how long anyone
may wait for one.

Standard library only: the one-shot CLI checks `--type` and `--timeout` against these without
importing msgspec. The events' shapes are in termux/protocol/events.py.
"""

from __future__ import annotations

SESSION_CREATED = "session.created"
SESSION_EXITED = "session.exited"
SESSION_CLOSED = "session.closed"  # killed or removed: the id names no session any more
SESSION_RENAMED = "session.renamed"
SESSION_RESIZED = "session.resized"
SESSION_TITLE = "session.title"
SESSION_BELL = "session.bell"
SESSION_ACTIVITY = "session.activity"
SESSION_QUIET = "session.quiet"
CLIENT_ATTACHED = "client.attached"
CLIENT_DETACHED = "client.detached"
BUFFER_CHANGED = "buffer.changed"  # a paste buffer was set (or appended to)
BUFFER_DELETED = "buffer.deleted"  # deleted, or dropped to keep within the bounds

# The longest wait anyone may ask for, one bound for all: `session.wait`'s `timeout`,
# `events.read`'s `wait_ms`, `termux events --timeout` and `termux wait --timeout`.
MAX_WAIT_SECONDS = 30 * 86_400
MAX_WAIT_MS = MAX_WAIT_SECONDS * 1000

EVENT_TYPES: tuple[str, ...] = (
    SESSION_CREATED,
    SESSION_EXITED,
    SESSION_CLOSED,
    SESSION_RENAMED,
    SESSION_RESIZED,
    SESSION_TITLE,
    SESSION_BELL,
    SESSION_ACTIVITY,
    SESSION_QUIET,
    CLIENT_ATTACHED,
    CLIENT_DETACHED,
    BUFFER_CHANGED,
    BUFFER_DELETED,
)
