"""The results of the commands, as typed messages: what a reply's `result` holds.

The server's handlers return these and the server encodes each once (`reply_ok`); a client that
loads msgspec decodes a result into one with `AsyncClient.request_as`. Field names and order are
the wire's (docs/protocol.md, "Commands"); `bytes` travel as base64. `server.stats` and
`server.profile` stay plain objects: counters and debugging aids whose fields come and go.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

from termux.protocol.messages import SessionInfo
from termux.protocol.pushes import Snapshot

E = TypeVar("E")


class Empty(msgspec.Struct):
    """`server.kill`, `client.focus`: `{}`."""


class HelloResult(msgspec.Struct):
    version: int
    server: str  # "termux 0.1.0"
    pid: int
    capabilities: list[str]  # every command this server knows


class SessionResult(msgspec.Struct):
    """`session.new`, `session.get`, `session.resize`, `session.rename`, `session.kill`."""

    session: SessionInfo


class SessionsResult(msgspec.Struct, omit_defaults=True):
    """`session.list`, in creation order; `lines`: the `format` given, one line a session."""

    sessions: list[SessionInfo]
    lines: list[str] | None = None


class SentResult(msgspec.Struct):
    """`session.send`, `buffer.paste`: the bytes typed."""

    sent: int


class Cursor(msgspec.Struct):
    x: int
    y: int
    hidden: bool


class CaptureResult(msgspec.Struct):
    lines: list[str]
    cols: int
    rows: int
    cursor: Cursor
    offset: int  # the output bytes this screen reflects
    history: int  # scrollback lines held: line -history is the oldest
    base: int = 0  # the absolute number of line 0: lines ever scrolled into history
    start: int = 0  # the number of the first line returned, in the request's numbering
    wrapped: list[bool] | None = msgspec.field(default=None)  # with `wrapped`: a flag per line

class GrepMatch(msgspec.Struct):
    line: int  # capture's numbering
    text: str


class GrepResult(msgspec.Struct):
    matches: list[GrepMatch]
    history: int
    offset: int


class SnapshotResult(Snapshot, kw_only=True):
    """`session.snapshot`: the session, and its screen as of `offset`."""

    session: SessionInfo

    @classmethod
    def of(cls, session: SessionInfo, snapshot: Snapshot) -> SnapshotResult:
        return cls(**msgspec.structs.asdict(snapshot), session=session)


class AttachResult(msgspec.Struct):
    """`client.attach`: everything a view needs to draw, in one round trip."""

    sessions: list[SessionInfo]
    snapshots: dict[str, Snapshot]  # session id → its screen, for each followed session
    cursor: int  # the event cursor the pushed events continue from
    in_sync: bool
    last_focus: str | None  # the session a view focused most recently, if it is still there
    last_layout: dict[str, Any] | None = None  # the layout a view saved last (client.view)


class BufferInfo(msgspec.Struct):
    index: int  # 0: the newest
    name: str
    size: int  # bytes
    created: float  # Unix time
    automatic: bool  # the server named it
    sample: str  # the start of the buffer as text


class BufferResult(msgspec.Struct):
    """`buffer.set`, `buffer.delete`."""

    buffer: BufferInfo


class BuffersResult(msgspec.Struct):
    """`buffer.list`, newest first."""

    buffers: list[BufferInfo]


class BufferDataResult(msgspec.Struct):
    """`buffer.get`."""

    buffer: BufferInfo
    data: bytes


class EventsPage(msgspec.Struct, Generic[E]):
    """`events.read`. The server sends each event as the bytes it encoded at commit
    (`EventsPage[msgspec.Raw]`); a client reads `EventsPage[Event]`."""

    events: list[E]
    cursor: int  # where to read after next time
    more: bool  # the limit cut the page short


class StreamStart(msgspec.Struct, Generic[E]):
    """`events.stream`: the backlog, then pushes from `cursor` on."""

    events: list[E]
    cursor: int
    more: bool
    in_sync: bool


class WaitExit(msgspec.Struct):
    """`session.wait` with `exit`."""

    session: SessionInfo
    exit_code: int | None
    exit_signal: int | None


class WaitMatch(msgspec.Struct):
    """`session.wait` with `match`."""

    session: SessionInfo
    match: str
    where: str  # "screen" or "output"


class WaitQuiet(msgspec.Struct):
    """`session.wait` with `quiet`."""

    session: SessionInfo
    quiet: float
