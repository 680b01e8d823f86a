"""What the server sends, as typed messages: replies, pushes and the snapshot they carry.

    {"id": 7, "ok": true, "result": {...}}                       Reply
    {"id": 7, "ok": false, "error": {"code": ..., "message": ...}}  Reply (with ErrorInfo)
    {"push": "output", "session": "%0", "offset": 0, "data": "aGk="}  OutputPush
    {"push": "snapshot", ...}  {"push": "event", ...}  {"push": "error", ...}  {"push": "clipboard", ...}

Pushes are a tagged union on `push`; `bytes` fields travel as base64, which msgspec does both
ways. The server encodes through these structs (`encode_line`); `TYPED` is the codec a client
that loads msgspec anyway (the TUI, `AsyncClient`) plugs into the sans-I/O connection
(termux/protocol/connection.py) to get them back, decoded once at the edge.
"""

from __future__ import annotations

from typing import Any

import msgspec

from termux.protocol.connection import Request, bad_reply, describe
from termux.protocol.errors import ProtocolError
from termux.protocol.event_types import EVENT_TYPES
from termux.protocol.events import Event
from termux.protocol.messages import RequestId, args_error


class ErrorInfo(msgspec.Struct, omit_defaults=True):
    """An error reply's `error`, or an error push's. The extra fields some codes carry are named
    here (docs/protocol.md), so one the server adds without naming it is a bug caught at once."""

    code: str
    message: str
    cursor: int | None = None  # cursor_expired, cursor_ahead, dropped: where to read from
    oldest: int | None = None  # cursor_expired: the oldest cursor held
    limit: int | None = None  # capacity: the limit reached

    @classmethod
    def of(cls, error: ProtocolError) -> ErrorInfo:
        return cls(error.code, error.message, **error.extra)

    def extra(self) -> dict[str, Any]:
        """The fields besides `code` and `message` that this error carries."""
        return {name: value for name in ("cursor", "oldest", "limit") if (value := getattr(self, name)) is not None}


class Reply(msgspec.Struct, omit_defaults=True):
    """The answer to one request: `result` when `ok`, else `error`."""

    id: RequestId
    ok: bool
    result: Any = None
    error: ErrorInfo | None = None


class Snapshot(msgspec.Struct):
    """Bytes that rebuild a session's screen on a fresh emulator of `cols`×`rows`, as of output
    `offset` (termux/emulator/render.py `snapshot`)."""

    offset: int
    cols: int
    rows: int
    data: bytes


class PushBase(msgspec.Struct, tag_field="push"):
    """A line the server sends unasked, to a view (client.attach) or a stream (events.stream)."""


class OutputPush(PushBase, tag="output"):
    session: str
    offset: int  # the position of data's first byte in the session's output
    data: bytes


class SnapshotPush(Snapshot, PushBase, tag="snapshot", kw_only=True):
    """A session's screen, as `session.snapshot` returns it; its output continues from `offset`."""

    session: str

    @classmethod
    def of(cls, session: str, snapshot: Snapshot) -> SnapshotPush:
        return cls(**msgspec.structs.asdict(snapshot), session=session)


class EventPush(PushBase, tag="event"):
    event: Event


class ErrorPush(PushBase, tag="error"):
    """The server is about to drop this subscription."""

    error: ErrorInfo


class ClipboardPush(PushBase, tag="clipboard"):
    """A program in `session` set the clipboard (OSC 52) and the server's set_clipboard policy is
    "on": put `data` on this view's terminal's clipboard (`selection`: xterm's letters)."""

    session: str
    selection: str
    data: bytes


class DetachPush(PushBase, tag="detach"):
    """Another view attached with `detach_others` (tmux's attach -d): this view is detached, and
    leaves (the TUI exits as its own detach does)."""


Push = OutputPush | SnapshotPush | EventPush | ErrorPush | ClipboardPush | DetachPush
PUSH_KINDS = frozenset(cls.__struct_config__.tag for cls in PushBase.__subclasses__())


class Unrecognized(msgspec.Struct):
    """A push of a kind, or an event of a type, this client does not know (a newer server's):
    skipped, as the protocol lets a client do."""

    line: dict[str, Any]


ServerMessage = Reply | Push | Unrecognized

_encoder = msgspec.json.Encoder()


def encode_line(message: Any) -> bytes:
    """One line of the protocol: `message` (a struct, or plain values) as JSON, and a newline."""
    return _encoder.encode(message) + b"\n"


def reply_ok(request_id: RequestId, result: Any) -> bytes:
    return encode_line(Reply(request_id, True, result))


def reply_error(request_id: RequestId, error: ProtocolError) -> bytes:
    return encode_line(Reply(request_id, False, error=ErrorInfo.of(error)))


class TypedCodec:
    """Requests encoded by msgspec (args may be structs; bytes go as base64) and server lines
    decoded into `ServerMessage`s. Our server writes a push's tag first, so a line is decoded
    once; anything else takes the careful path, which words every failure in termux's terms."""

    def __init__(self) -> None:
        self._pushes: msgspec.json.Decoder[Push] = msgspec.json.Decoder(Push)
        self._replies = msgspec.json.Decoder(Reply)

    def encode(self, request: Request) -> bytes:
        line = {"id": request.id, "cmd": request.cmd, "args": request.args}
        if request.errors_only:
            line["reply"] = "errors"
        return _encoder.encode(line) + b"\n"

    def decode(self, line: bytes) -> ServerMessage:
        try:
            if line.startswith(b'{"push"'):
                return self._pushes.decode(line)
            return self._replies.decode(line)
        except (msgspec.DecodeError, RecursionError):
            return self._careful(line)

    def _careful(self, line: bytes) -> ServerMessage:
        try:
            obj = msgspec.json.decode(line)
        except (msgspec.DecodeError, RecursionError):
            raise bad_reply(f"the server sent a line that is not JSON: {describe(line)}") from None
        if not isinstance(obj, dict):
            raise bad_reply(f"the server sent a line that is not a JSON object: {describe(line)}")
        kind = obj.get("push")
        try:
            if kind is None:
                return msgspec.convert(obj, Reply)
            if kind not in PUSH_KINDS or (kind == "event" and not _known_event(obj.get("event"))):
                return Unrecognized(obj)
            push: Push = msgspec.convert(obj, Push)
            return push
        except msgspec.ValidationError as exc:
            what = "a reply" if kind is None else f"a push (`{kind}`)"
            why = args_error(str(exc)).replace("`args`", "the line")
            raise bad_reply(f"the server sent {what} this client cannot read: {why}: {describe(line)}") from None


def _known_event(event: object) -> bool:
    return not isinstance(event, dict) or event.get("type") in EVENT_TYPES


TYPED = TypedCodec()
