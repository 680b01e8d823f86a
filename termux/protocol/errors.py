"""Stable error codes: the contract scripts match on. Documented in docs/protocol.md."""

from __future__ import annotations

from enum import StrEnum

TYPE_CHECKING = False  # the one-shot CLI imports this: not typing
if TYPE_CHECKING:
    from typing import Any


class ErrorCode(StrEnum):
    BAD_JSON = "bad_json"
    BAD_REQUEST = "bad_request"
    UNKNOWN_COMMAND = "unknown_command"
    BAD_ARGS = "bad_args"
    TOO_LARGE = "too_large"
    NO_SESSION = "no_session"
    NO_BUFFER = "no_buffer"
    EXISTS = "exists"
    SPAWN_FAILED = "spawn_failed"
    NOT_RUNNING = "not_running"
    BUSY = "busy"
    CAPACITY = "capacity"
    FORBIDDEN = "forbidden"
    TIMEOUT = "timeout"
    CURSOR_EXPIRED = "cursor_expired"
    CURSOR_AHEAD = "cursor_ahead"
    BAD_CURSOR = "bad_cursor"
    DROPPED = "dropped"
    INTERNAL = "internal"


class ProtocolError(Exception):
    """An error reply: a stable code, a human message, and optional extra fields."""

    def __init__(self, code: ErrorCode | str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.extra = extra


class TermuxError(ProtocolError):
    """An error reply from the server, or a failure to talk to one. The client's own codes:
    `no_server` (nothing listens on the socket), `unreachable` (connecting failed otherwise),
    `untrusted` (the server runs as another user), `start_failed` (a server was started and never
    said it was ready), `disconnected` (the connection was lost, before the reply if a request was
    waiting) and `bad_reply` (the server sent something that is not a reply)."""
