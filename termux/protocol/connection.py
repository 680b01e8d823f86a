"""The client's side of the protocol as a sans-I/O state machine, in the manner of h11.

    conn = ClientConnection(PLAIN)          # or TYPED (termux/protocol/pushes.py)
    sock.sendall(conn.send(conn.request("session.list")))
    conn.receive_data(sock.recv(65536))     # b"" at end of file
    message = conn.next_message()           # a reply or push, NEED_DATA, or CLOSED

No I/O happens here: the caller moves bytes between the socket and the connection, and the
connection frames them (lines of at most `MAX_REPLY_LINE`) and decodes each line once, through
its codec. `Client` (blocking) and `AsyncClient` (asyncio) both wrap one.

The decoding step is pluggable because the one-shot CLI must start fast: `PLAIN` (this module,
standard library only) encodes with `json` and decodes into plain values (`PlainReply`, and a
dict per push); `TYPED` decodes into the msgspec structs of termux/protocol/pushes.py, for
programs that load msgspec anyway. Framing, limits and errors are the same for both.
"""

from __future__ import annotations

import itertools
import json
from collections import deque

from termux.protocol.errors import TermuxError
from termux.protocol.framing import MAX_REPLY_LINE, LineSplitter, Oversized

# The one-shot CLI imports this module: typing is for the type checker only. At run time a
# connection is generic in name alone (`ClientConnection[M]` is the class itself).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Generic, Protocol, TypeVar

    M = TypeVar("M", covariant=True)

    class _Generic(Generic[M]): ...

    class Codec(Protocol[M]):
        def encode(self, request: Request) -> bytes: ...

        def decode(self, line: bytes) -> M: ...

else:
    M = None

    class _Generic:
        def __class_getitem__(cls, _item: object) -> type:
            return cls


class Request:
    """A request on its way: its id on the connection, the command and its arguments, and whether
    the server answers it only if it fails (`errors_only`: nobody awaits its result)."""

    __slots__ = ("id", "cmd", "args", "errors_only")

    def __init__(self, id: int, cmd: str, args: Any, errors_only: bool = False) -> None:
        self.id, self.cmd = id, cmd
        self.args = args  # a mapping of argument names to values, or an Args struct (TYPED only)
        self.errors_only = errors_only


class NeedData:
    """`next_message()` has nothing complete yet: feed it more bytes."""

    def __repr__(self) -> str:
        return "NEED_DATA"


class Closed:
    """The server closed the connection and every line it sent has been handed out."""

    def __repr__(self) -> str:
        return "CLOSED"


NEED_DATA = NeedData()
CLOSED = Closed()


def describe(line: bytes) -> str:
    """The start of a line the server sent, for an error message."""
    return repr(line[:80]) + ("…" if len(line) > 80 else "")


def bad_reply(message: str) -> TermuxError:
    return TermuxError("bad_reply", message)


class PlainReply:
    """A reply decoded by `PLAIN`: `result` (a dict) when `ok`, else `error` (a dict)."""

    __slots__ = ("id", "ok", "result", "error")

    def __init__(self, id: int | str | None, ok: bool, result: dict[str, Any], error: dict[str, Any]) -> None:
        self.id, self.ok, self.result, self.error = id, ok, result, error

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlainReply):
            return NotImplemented
        return (self.id, self.ok, self.result, self.error) == (other.id, other.ok, other.result, other.error)

    def __repr__(self) -> str:
        return f"PlainReply(id={self.id!r}, ok={self.ok!r}, result={self.result!r}, error={self.error!r})"

    def unwrap(self) -> dict[str, Any]:
        """The result, or the error raised as a `TermuxError`."""
        if self.ok:
            return self.result
        error = self.error
        extra = {k: v for k, v in error.items() if k not in ("code", "message")}
        raise TermuxError(str(error.get("code", "unknown")), str(error.get("message", "unknown error")), **extra)


if TYPE_CHECKING:
    PlainMessage = PlainReply | dict[str, Any]  # a dict is a push: its kind is its "push" field


def _bytes_as_base64(value: object) -> str:
    if isinstance(value, bytes | bytearray | memoryview):
        import base64  # only when bytes are sent: `termux ls` never needs it

        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"cannot send a {type(value).__name__} to the server")


class PlainCodec:
    """The standard library's json both ways; `bytes` arguments go as base64 (the protocol's
    form), and bytes in replies stay base64 strings."""

    def encode(self, request: Request) -> bytes:
        line = {"id": request.id, "cmd": request.cmd, "args": request.args}
        if request.errors_only:
            line["reply"] = "errors"
        return json.dumps(line, separators=(",", ":"), default=_bytes_as_base64).encode() + b"\n"

    def decode(self, line: bytes) -> PlainMessage:
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deeply
            raise bad_reply(f"the server sent a line that is not JSON: {describe(line)}") from None
        if not isinstance(obj, dict):
            raise bad_reply(f"the server sent a line that is not a JSON object: {describe(line)}")
        if "push" in obj:
            return obj
        result, error = obj.get("result"), obj.get("error")
        if obj.get("ok") is True:
            if result is None:
                result = {}
            if not isinstance(result, dict):
                raise bad_reply(f"the server sent a result that is not an object: {describe(line)}")
            return PlainReply(obj.get("id"), True, result, {})
        if not isinstance(error, dict):
            raise bad_reply(f"the server sent an error reply without an error object: {describe(line)}")
        return PlainReply(obj.get("id"), False, {}, error)


PLAIN = PlainCodec()


class ClientConnection(_Generic[M]):
    """One connection to a server, without the socket. `M` is what the codec decodes a line into."""

    def __init__(self, codec: Codec[M], limit: int = MAX_REPLY_LINE) -> None:
        self.codec = codec
        self._splitter = LineSplitter(limit)
        self._lines: deque[bytes | Oversized] = deque()
        self._ids = itertools.count(1)
        self._eof = False

    def request(self, cmd: str, args: Any = None, errors_only: bool = False) -> Request:
        """A request with the next id (ids count from 1 on each connection)."""
        return Request(next(self._ids), cmd, {} if args is None else args, errors_only)

    def send(self, request: Request) -> bytes:
        """The bytes to write for `request`."""
        return self.codec.encode(request)

    def receive_data(self, data: bytes) -> None:
        """Bytes read from the socket; b"" means the server closed it."""
        if not data:
            self._eof = True
            return
        self._lines.extend(self._splitter.feed(data))

    def next_message(self) -> M | NeedData | Closed:
        """The next complete line, decoded. A line that cannot be read raises `bad_reply` and is
        skipped, so the lines after it still come out."""
        while self._lines:
            line = self._lines.popleft()
            if isinstance(line, Oversized):
                raise bad_reply(
                    f"the server sent a line of {line.size} bytes, over the limit of {self._splitter.limit}"
                )
            if line.strip():
                return self.codec.decode(line)
        return CLOSED if self._eof else NEED_DATA

    @property
    def closed(self) -> bool:
        """The server closed the connection (lines it sent before may still be waiting)."""
        return self._eof
