"""The events of the event log as typed messages (docs/protocol.md, "Events").

One struct per event type, a tagged union on `type`, each with its own `data` struct:

    {"type": "session.exited", "seq": 42, "time": 1764547200.1, "session": "%3", "name": "build",
     "data": {"exit_code": 2, "exit_signal": null, "signal_name": null}}

The server builds one of these for each event it commits (`EventLog.commit` gives it its `seq`
and `time` and encodes it once); clients that load msgspec decode pushed and read events into
them (termux/protocol/pushes.py). The type names alone, for code that must not import msgspec,
are in termux/protocol/event_types.py.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from termux.protocol import event_types as types


class EventBase(msgspec.Struct, tag_field="type", kw_only=True):
    """What every event carries. `seq` and `time` are given by the log when it commits."""

    seq: int = 0
    time: float = 0.0
    session: str | None = None  # the session's id, for events of a session
    name: str | None = None  # its name at the time

    @property
    def type(self) -> str:
        """The event's type, its tag on the wire ("session.exited")."""
        tag = self.__struct_config__.tag
        assert isinstance(tag, str)
        return tag


class EventData(msgspec.Struct):
    """Base of every event's `data`."""


class NoData(EventData):
    """The `data` of an event that says all by its type."""


class CreatedData(EventData):
    command: list[str]
    pid: int


class SessionCreated(EventBase, tag=types.SESSION_CREATED, kw_only=True):
    data: CreatedData


class ExitedData(EventData):
    exit_code: int | None = None  # the status, when it exited normally
    exit_signal: int | None = None  # the signal number, when a signal ended it
    signal_name: str | None = None  # "SIGTERM", when a signal ended it


class SessionExited(EventBase, tag=types.SESSION_EXITED, kw_only=True):
    """Sent once all the session's output is parsed."""

    data: ExitedData = msgspec.field(default_factory=ExitedData)


class SessionClosed(EventBase, tag=types.SESSION_CLOSED, kw_only=True):
    """Killed or removed: the id names no session any more."""

    data: NoData = msgspec.field(default_factory=NoData)


class RenamedData(EventData):
    old: str  # the event's `name` is the new one


class SessionRenamed(EventBase, tag=types.SESSION_RENAMED, kw_only=True):
    data: RenamedData


class ResizedData(EventData):
    cols: int
    rows: int


class SessionResized(EventBase, tag=types.SESSION_RESIZED, kw_only=True):
    data: ResizedData


class TitleData(EventData):
    title: str


class SessionTitle(EventBase, tag=types.SESSION_TITLE, kw_only=True):
    data: TitleData


class SessionBell(EventBase, tag=types.SESSION_BELL, kw_only=True):
    data: NoData = msgspec.field(default_factory=NoData)


class SessionActivity(EventBase, tag=types.SESSION_ACTIVITY, kw_only=True):
    """Output after a quiet spell, or the first output."""

    data: NoData = msgspec.field(default_factory=NoData)


class QuietData(EventData):
    seconds: float  # no output for that long


class SessionQuiet(EventBase, tag=types.SESSION_QUIET, kw_only=True):
    data: QuietData


class ClientData(EventData):
    pid: int | None  # the client's process (None where the kernel did not say)


class ClientAttached(EventBase, tag=types.CLIENT_ATTACHED, kw_only=True):
    data: ClientData


class ClientDetached(EventBase, tag=types.CLIENT_DETACHED, kw_only=True):
    data: ClientData


class BufferChangedData(EventData):
    buffer: str  # its name
    size: int


class BufferChanged(EventBase, tag=types.BUFFER_CHANGED, kw_only=True):
    """A paste buffer was set or appended to; it is now the newest."""

    data: BufferChangedData


class BufferDeletedData(EventData):
    buffer: str
    reason: Literal["deleted", "limit"]  # buffer.delete (or paste with delete), or the bounds


class BufferDeleted(EventBase, tag=types.BUFFER_DELETED, kw_only=True):
    data: BufferDeletedData


Event = (
    SessionCreated
    | SessionExited
    | SessionClosed
    | SessionRenamed
    | SessionResized
    | SessionTitle
    | SessionBell
    | SessionActivity
    | SessionQuiet
    | ClientAttached
    | ClientDetached
    | BufferChanged
    | BufferDeleted
)

EVENT_CLASSES: dict[str, type[EventBase]] = {
    cls.__struct_config__.tag: cls  # type: ignore[misc]
    for cls in EventBase.__subclasses__()
}
assert tuple(EVENT_CLASSES) == types.EVENT_TYPES, "every event type has its struct, in the documented order"
