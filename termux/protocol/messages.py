"""Protocol v1 message types, sans-I/O. Validation happens here, at the edge.

Every command's arguments are a msgspec Struct that forbids unknown fields, so a typo in a script
is an error rather than a silently ignored option.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

import msgspec

from termux.defaults import MAX_HISTORY, MAX_NICE
from termux.protocol.errors import ErrorCode, ProtocolError

VERSION = 1

RequestId = int | str | None

# Bounds that every size argument obeys (documented in docs/protocol.md).
Cols = Annotated[int, msgspec.Meta(ge=2, le=1000)]
Rows = Annotated[int, msgspec.Meta(ge=1, le=1000)]
History = Annotated[int, msgspec.Meta(ge=0, le=MAX_HISTORY)]
Target = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Nice = Annotated[int, msgspec.Meta(ge=0, le=MAX_NICE)]


class Args(msgspec.Struct, forbid_unknown_fields=True):
    """Base of every command's arguments."""


class NoArgs(Args):
    pass


class TargetArgs(Args):
    target: Target


MAX_FORMAT = 4096  # characters of a `session.list` format


class ListArgs(Args):
    """`format`: tmux's format string, one line of it per session (termux/formats.py)."""

    format: Annotated[str, msgspec.Meta(max_length=MAX_FORMAT)] | None = None


class KillArgs(Args):
    """`others`: kill every session but `target` (tmux's `kill-session -a`)."""

    target: Target
    others: bool = False


class NewArgs(Args):
    name: Name | None = None
    command: list[str] | None = None
    cwd: str | None = None
    env: dict[str, str] = {}
    cols: Cols = 80
    rows: Rows = 24
    history: History | None = None
    background_nice: Nice | None = None  # None: the server's --background-nice
    background_idle: bool | None = None  # None: the server's --background-idle

    def check(self) -> None:
        """What a program's argv, environment and directory cannot hold, refused here at the edge
        (exec would fail in the child, or quietly split `A=B` keys)."""
        if self.command is not None:
            if not self.command:
                raise ProtocolError(
                    ErrorCode.BAD_ARGS, "`command` is empty: give the program and its arguments, or leave it out"
                )
            if not self.command[0]:
                raise ProtocolError(ErrorCode.BAD_ARGS, "`command[0]`, the program to run, is empty")
            for i, arg in enumerate(self.command):
                if "\0" in arg:
                    raise ProtocolError(ErrorCode.BAD_ARGS, f"`command[{i}]` contains a NUL character")
        for key, value in self.env.items():
            if not key or "=" in key or "\0" in key:
                raise ProtocolError(
                    ErrorCode.BAD_ARGS,
                    f"`env` name {key!r} is not a variable name: it must be non-empty, without '=' or NUL",
                )
            if "\0" in value:
                raise ProtocolError(ErrorCode.BAD_ARGS, f"`env` value of {key} contains a NUL character")
        if self.cwd is not None and "\0" in self.cwd:
            raise ProtocolError(ErrorCode.BAD_ARGS, "`cwd` contains a NUL character")


class SendArgs(Args):
    target: Target
    keys: list[str] = []
    literal: bool = False
    data: bytes | None = None  # sent unchanged after `keys` (base64 on the wire)


class CaptureArgs(Args):
    target: Target
    start: int | None = None
    end: int | None = None
    escapes: bool = False
    join: bool = False  # soft-wrapped lines joined (tmux's capture-pane -J)
    wrapped: bool = False  # also say which lines are soft-wrapped (one flag per line)
    base: int | None = None  # `start` and `end` are numbered from this `base` of an earlier reply


class ResizeArgs(Args):
    target: Target
    cols: Cols
    rows: Rows


class RenameArgs(Args):
    target: Target
    name: Name


class AttachArgs(Args):
    """`follow`: the sessions to stream (None: all, including ones created later). `coalesce`:
    output of followed sessions other than the focus comes within a byte budget, and as a
    snapshot past it (a view's choice; a script that wants every byte leaves it off)."""

    follow: list[Target] | None = None
    focus: Target | None = None
    coalesce: bool = False
    cols: Cols | None = None  # the view's size, offered to the session it focuses (with rows)
    rows: Rows | None = None
    window_size: Literal["latest", "smallest", "largest"] | None = None  # the server's size policy
    set_clipboard: Literal["on", "external", "off"] | None = None  # what a program's OSC 52 does
    detach_others: bool = False  # every other view showing `focus` is detached (tmux's attach -d)


class FocusArgs(Args):
    """`cols`/`rows`: the view's size, offered to the session (termux/server/sizing.py)."""

    target: Target
    cols: Cols | None = None
    rows: Rows | None = None


MAX_VIEW_PANES = 256  # the panes one view may show (the TUI's layout bound, termux/tui/layout.py)
MAX_VIEW_TILES = 1024  # the sessions one view may show as tiles (more than a server holds)


class ViewPane(Args):
    """One pane of a view: the session it shows and the size it offers it (both or neither)."""

    target: Target
    cols: Cols | None = None
    rows: Rows | None = None


class ViewArgs(Args):
    """Everything a view shows: `panes` (the focus among them, or none), each with its size;
    `tiles`, sessions it shows small over them, at no size (the TUI's grid); `layout` an object the
    view wants back when it attaches again (`last_layout`)."""

    panes: Annotated[list[ViewPane], msgspec.Meta(max_length=MAX_VIEW_PANES)]
    focus: Target | None = None
    layout: dict[str, Any] | None = None
    tiles: Annotated[list[Target], msgspec.Meta(max_length=MAX_VIEW_TILES)] = msgspec.field(default_factory=list)


ArgsT = TypeVar("ArgsT", bound="Args")


class SessionInfo(msgspec.Struct):
    id: str
    name: str
    command: list[str]
    cwd: str
    pid: int
    state: str  # "running" | "exited"
    exit_code: int | None
    exit_signal: int | None
    cols: int
    rows: int
    created: float
    bytes_out: int
    title: str
    background_nice: int  # its CPU priority while no view shows it (0: never lowered)
    nice: int | None  # the nice of its scheduling group now; None where termux cannot set it
    quiet_since: float | None = None  # when its output stopped, while the server counts it quiet
    background_idle: bool = False  # its processes go under SCHED_IDLE while no view shows it
    idle: bool = False  # its processes are under SCHED_IDLE now


@dataclass(frozen=True, slots=True)
class Request:
    id: RequestId
    cmd: str
    args: dict[str, Any]
    errors_only: bool = False  # `"reply": "errors"`: answered only if it fails


def decode_request(line: bytes) -> Request:
    """Parse one request line; raise ProtocolError (with the id when it could be read)."""
    try:
        obj = msgspec.json.decode(line)
    except msgspec.DecodeError as exc:
        raise ProtocolError(ErrorCode.BAD_JSON, _json_error(str(exc))) from None
    except RecursionError:
        raise ProtocolError(ErrorCode.BAD_JSON, "the request is not valid JSON: it is nested too deeply") from None
    if not isinstance(obj, dict):
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"a request must be a JSON object, not {_kind(obj)}")
    request_id = obj.get("id")
    if request_id is not None and (not isinstance(request_id, int | str) or isinstance(request_id, bool)):
        raise ProtocolError(ErrorCode.BAD_REQUEST, "`id` must be an integer or a string")
    cmd = obj.get("cmd")
    if not isinstance(cmd, str):
        error = ProtocolError(ErrorCode.BAD_REQUEST, "`cmd` is missing or not a string")
        error.extra["id"] = request_id
        raise error
    args = obj.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        error = ProtocolError(ErrorCode.BAD_ARGS, f"`args` must be an object, not {_kind(args)}")
        error.extra["id"] = request_id
        raise error
    unknown = set(obj) - {"id", "cmd", "args", "reply"}
    if unknown:
        error = ProtocolError(ErrorCode.BAD_REQUEST, f"unknown request fields: {', '.join(sorted(unknown))}")
        error.extra["id"] = request_id
        raise error
    reply = obj.get("reply", "always")
    if reply not in ("always", "errors"):
        got = f'"{reply[:40]}"' if isinstance(reply, str) else _kind(reply)
        error = ProtocolError(ErrorCode.BAD_REQUEST, f'`reply` must be "always" or "errors", not {got}')
        error.extra["id"] = request_id
        raise error
    return Request(request_id, cmd, args, reply == "errors")


def convert_args(args: dict[str, Any], struct: type[ArgsT]) -> ArgsT:
    """Validate a request's args against the command's Struct."""
    try:
        return msgspec.convert(args, struct)
    except msgspec.ValidationError as exc:
        raise ProtocolError(ErrorCode.BAD_ARGS, args_error(str(exc), struct.__struct_fields__)) from None
    except RecursionError:
        raise ProtocolError(ErrorCode.BAD_ARGS, "the arguments are nested too deeply") from None


# msgspec's validation messages, e.g. "Expected `str` of length >= 1 - at `$.name`", said in
# termux's words ("`name` must be a string of at least 1 character"). The one translation, used
# for every bad_args reply that comes from argument validation.
_EXPECTED = re.compile(r"Expected `(?P<want>[^`]+)`(?P<detail>.*?)(?: - at `(?P<at>[^`]+)`)?")
_FIELD = re.compile(
    r"Object (?P<what>contains unknown|missing required) field `(?P<field>[^`]+)`(?: - at `(?P<at>[^`]+)`)?"
)
_BASE64 = re.compile(r"Invalid base64 encoded string(?: - at `(?P<at>[^`]+)`)?")
_BOUND = re.compile(r" (?P<of_length>of length )?(?P<op>>=|<=|>|<) (?P<value>\S+)")
_GOT = re.compile(r", got `(?P<got>[^`]+)`")
_KINDS = {
    "str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
    "array": "a list", "object": "an object", "null": "null",
}  # fmt: skip
_OPS = {">=": "of at least", "<=": "of at most", ">": "greater than", "<": "less than"}


def _kinds(spec: str, got: bool = False) -> str:
    kinds = {**_KINDS, "bool": "a boolean"} if got else _KINDS
    names = [kinds.get(part.strip(), part.strip()) for part in spec.split("|")]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _where(at: str | None) -> str:
    if not at or at == "$":
        return "`args`"
    path = at.removeprefix("$.").removeprefix("$")
    if path.endswith("[...]"):
        return f"each value of `{path[:-5]}`"
    return f"`{path}`"


def _number(text: str) -> str:
    return text[:-2] if text.endswith(".0") else text


def args_error(message: str, fields: tuple[str, ...] = ()) -> str:
    """A msgspec validation message in termux's words."""
    if found := _BASE64.fullmatch(message):
        return f"{_where(found['at'])} is not valid base64"
    if found := _FIELD.fullmatch(message):
        inside = "" if not found["at"] or found["at"] == "$" else f" in {_where(found['at'])}"
        if found["what"] == "missing required":
            return f"missing argument `{found['field']}`{inside}"
        known = f" (known: {', '.join(fields)})" if fields and not inside else ""
        return f"unknown argument `{found['field']}`{inside}{known}"
    if found := _EXPECTED.fullmatch(message):
        where, want, detail = _where(found["at"]), _kinds(found["want"]), found["detail"]
        if got := _GOT.fullmatch(detail):
            return f"{where} must be {want}, not {_kinds(got['got'], got=True)}"
        if bound := _BOUND.fullmatch(detail):
            limit = f"{_OPS[bound['op']]} {_number(bound['value'])}"
            if bound["of_length"]:
                unit = "character" if bound["value"] == "1" else "characters"
                return f"{where} must be {want} {limit} {unit}"
            return f"{where} must be {want} {limit}"
        return f"{where} must be {want}"
    return "the arguments are not valid for this command"


_JSON_AT = re.compile(r"JSON is malformed: (?P<why>.+?)(?: \(byte (?P<byte>\d+)\))?")


def _json_error(message: str) -> str:
    if message == "Input data was truncated":
        return "the request is not valid JSON: it ends in the middle of a value"
    if found := _JSON_AT.fullmatch(message):
        at = f" at byte {found['byte']}" if found["byte"] else ""
        return f"the request is not valid JSON: {found['why']}{at}"
    return "the request is not valid JSON"


def _kind(value: object) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), "null" if value is None else type(value).__name__
    )
