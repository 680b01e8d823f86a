"""The handlers of the session, server and client commands: one small function each. The table
of commands (termux/commands.py) names each handler and its argument struct; the server's
dispatch (termux/server/dispatch.py) is built from it.

A handler takes the context of the request (the server and the calling connection) and its
validated arguments, and returns the result object, or an awaitable of it for commands that wait.
The CLI speaks to the server through these same commands.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

import termux.emulator as emulator
from termux import __version__, formats, keys
from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.messages import (
    VERSION,
    AttachArgs,
    CaptureArgs,
    FocusArgs,
    KillArgs,
    ListArgs,
    NewArgs,
    NoArgs,
    RenameArgs,
    ResizeArgs,
    SendArgs,
    SessionInfo,
    TargetArgs,
    ViewArgs,
)
from termux.protocol.results import (
    AttachResult,
    CaptureResult,
    Cursor,
    Empty,
    HelloResult,
    SentResult,
    SessionResult,
    SessionsResult,
    SnapshotResult,
)
from termux.server.scheduler import FOCUSED_BUDGET
from termux.server.session import INPUT_LOW
from termux.server.slices import CHECK_ROWS, in_slices
from termux.text import visible
from termux.trace import TRACE

if TYPE_CHECKING:
    from termux.server.event_io import ActivityMonitor
    from termux.server.server import Connection, Server
    from termux.server.session import Session


@dataclass(frozen=True, slots=True)
class Context:
    server: Server
    conn: Connection


# -- server --------------------------------------------------------------------------------------


def server_hello(ctx: Context, args: NoArgs) -> HelloResult:
    from termux.server import dispatch  # (it is built from this module's handlers)

    # `capabilities`: what this server answers, as dispatched
    return HelloResult(VERSION, f"termux {__version__}", os.getpid(), sorted(dispatch.COMMANDS))


def server_stats(ctx: Context, args: NoArgs) -> dict[str, Any]:
    return ctx.server.stats()


def server_kill(ctx: Context, args: NoArgs) -> Empty:
    ctx.server.request_shutdown()
    return Empty()


# -- sessions ------------------------------------------------------------------------------------


def session_new(ctx: Context, args: NewArgs) -> SessionResult:
    session = ctx.server.new_session(args)
    return SessionResult(session.info())


def session_list(ctx: Context, args: ListArgs) -> SessionsResult:
    sessions = list(ctx.server.sessions.values())
    infos = [s.info() for s in sessions]
    if args.format is None:
        return SessionsResult(infos)
    try:
        parsed = formats.parse(args.format)
    except formats.FormatError as exc:
        raise ProtocolError(ErrorCode.BAD_ARGS, f"`format`: {exc}") from None
    read = {name: FORMAT_VARIABLES[name] for name in parsed.names if name in FORMAT_VARIABLES}
    lines = []
    for session, info in zip(sessions, infos, strict=True):
        # A value's control characters are escaped (names and titles are a program's to set); the
        # format's own text, a tab between fields say, is the caller's and is kept.
        values = {name: visible(value(ctx.server, session, info)) for name, value in read.items()}
        lines.append(parsed.render(values))
    return SessionsResult(infos, lines)


def _attached(server: Server, session: Session, info: SessionInfo) -> str:
    """How many views show the session (focused or in a pane): tmux's clients attached to it."""
    return str(sum(1 for conn in server.connections if conn.attached and session.id in conn.shown))


def _activity(server: Server, session: Session, info: SessionInfo) -> str:
    """When it last printed (tmux's session_activity; tmux counts a client's keys too)."""
    monitor: ActivityMonitor = server.activity
    return str(int(monitor.last_output(session)))


def _foreground_command(server: Server, session: Session, info: SessionInfo) -> str:
    """The name of the program in the foreground of its terminal (tmux's pane_current_command);
    the session's own command once it has none."""
    pid = session.foreground_pid()
    if pid is not None:
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as comm:
                return comm.read().rstrip("\n")
        except OSError:
            pass  # no /proc, or the process just left
    return os.path.basename(info.command[0]) if info.command else ""


def _foreground_path(server: Server, session: Session, info: SessionInfo) -> str:
    """The foreground program's working directory (tmux's pane_current_path); the session's own."""
    pid = session.foreground_pid()
    if pid is not None:
        try:
            return os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            pass
    return info.cwd


# tmux's variables for a session's line of `ls -F` (termux/formats.py). A session is one window of
# one pane, so the window's and the pane's variables are the session's. Each is read only when
# the format names it.
FormatVariable = Callable[["Server", "Session", SessionInfo], str]


def _field(name: str) -> FormatVariable:
    """A variable that is a field of the session's info."""
    return lambda server, session, info: str(getattr(info, name))


def _constant(value: str) -> FormatVariable:
    return lambda server, session, info: value


FORMAT_VARIABLES: dict[str, FormatVariable] = {
    "session_name": _field("name"),
    "session_id": _field("id"),
    "session_windows": _constant("1"),
    "session_attached": _attached,
    "session_many_attached": lambda server, session, info: str(int(int(_attached(server, session, info)) > 1)),
    "session_created": lambda server, session, info: str(int(info.created)),
    "session_activity": _activity,
    "session_path": _field("cwd"),
    "window_index": _constant("0"),
    "window_panes": _constant("1"),
    "window_name": _foreground_command,
    "pane_index": _constant("0"),
    "pane_id": _field("id"),
    "pane_pid": _field("pid"),
    "pane_current_command": _foreground_command,
    "pane_current_path": _foreground_path,
    "pane_start_command": lambda server, session, info: " ".join(info.command),
    "pane_width": _field("cols"),
    "pane_height": _field("rows"),
    "pane_title": _field("title"),
    "pane_dead": lambda server, session, info: "0" if info.state == "running" else "1",
    "pane_dead_status": lambda server, session, info: "" if info.exit_code is None else str(info.exit_code),
    "host": lambda server, session, info: socket.gethostname(),
    "host_short": lambda server, session, info: socket.gethostname().partition(".")[0],
}


def session_get(ctx: Context, args: TargetArgs) -> SessionResult:
    return SessionResult(ctx.server.find(args.target).info())


def session_send(ctx: Context, args: SendArgs) -> Any:
    session = ctx.server.find(args.target)
    if TRACE.on:
        TRACE.stamp("server.received", session.id)
    data = keys.encode_send(args.keys, literal=args.literal, mode=session.screen.mode)
    if args.data is not None:
        data += args.data
    if data:
        session.write(data)
        ctx.server.typed(session)  # someone may be typing into what a view shows
        ctx.server.view_typed(ctx.conn, session.id)
        if session.input_pending > INPUT_LOW:
            return _sent_once_taken(session, len(data))  # the client goes at the program's pace
    return SentResult(len(data))


async def _sent_once_taken(session: Session, sent: int) -> SentResult:
    await session.input_taken()
    return SentResult(sent)


# A capture of more rows than this renders in slices.
CAPTURE_CHECK_ROWS = CHECK_ROWS


def session_capture(ctx: Context, args: CaptureArgs) -> Any:
    if args.join and args.wrapped:
        raise ProtocolError(ErrorCode.BAD_ARGS, "give `join` or `wrapped`, not both: joined lines wrap nowhere")
    session = ctx.server.find(args.target)
    screen = session.screen
    # The rows are copied now (immutable runs, cheap), so the reply is this moment's screen even
    # though rendering them may take several loop passes.
    base = screen.history.added
    # A reader that pinned a numbering (an earlier reply's `base`) gets the same lines under the
    # same numbers however many lines scrolled into history since.
    shift = 0 if args.base is None else base - args.base
    start = None if args.start is None else args.start - shift
    end = None if args.end is None else args.end - shift
    lo, hi = emulator.capture_span(screen, start, end)
    rows = emulator.capture_rows(screen, lo, hi, args.join)
    x, y = emulator.cursor_position(screen)
    # The lines are filled in below; the rest is this moment's.
    result = CaptureResult(
        [], screen.columns, screen.lines, Cursor(x, y, screen.cursor.hidden), session.bytes_parsed, len(screen.history),
        base=base,  # the absolute number of line 0: lines ever scrolled into history
        start=lo + shift,  # the number of the first line returned, in the request's numbering
        wrapped=emulator.wrapped_rows(screen, lo, hi) if args.wrapped else None,
    )  # fmt: skip
    if len(rows) <= CAPTURE_CHECK_ROWS:
        result.lines = [emulator.render_row(row, args.escapes) for row in rows]
        return result
    return _render_in_slices(rows, args.escapes, result)


async def _render_in_slices(rows: list[Any], escapes: bool, result: CaptureResult) -> CaptureResult:
    """Render rows a slice at a time (as long as a parse slice of the focused session), yielding
    to the loop between slices: a long capture never holds up other requests or keystrokes."""
    lines: list[str] = []
    render = emulator.render_row

    def render_rows(start: int, stop: int) -> None:
        lines.extend(render(row, escapes) for row in rows[start:stop])

    await in_slices(len(rows), render_rows, FOCUSED_BUDGET)
    result.lines = lines
    return result


def session_snapshot(ctx: Context, args: TargetArgs) -> SnapshotResult:
    session = ctx.server.find(args.target)
    return SnapshotResult.of(session.info(), ctx.server.snapshot(session))


def session_resize(ctx: Context, args: ResizeArgs) -> SessionResult:
    session = ctx.server.find(args.target)
    ctx.server.resize(session, args.cols, args.rows)
    return SessionResult(session.info())


def session_rename(ctx: Context, args: RenameArgs) -> SessionResult:
    session = ctx.server.find(args.target)
    ctx.server.rename(session, args.name)
    return SessionResult(session.info())


async def session_kill(ctx: Context, args: KillArgs) -> SessionResult:
    """`others`: every session but the target, all at once (each on its own signals' schedule)."""
    session = ctx.server.find(args.target)
    if not args.others:
        await ctx.server.kill_session(session)
        return SessionResult(session.info())
    others = [s for s in ctx.server.sessions.values() if s is not session]
    await asyncio.gather(*(ctx.server.kill_session(s) for s in others))
    return SessionResult(session.info())


# -- attached clients ----------------------------------------------------------------------------


def client_attach(ctx: Context, args: AttachArgs) -> AttachResult:
    return ctx.server.attach(ctx.conn, args)


def client_focus(ctx: Context, args: FocusArgs) -> Empty:
    session = ctx.server.find(args.target)
    ctx.server.set_focus(ctx.conn, session.id, view_size(args.cols, args.rows))
    return Empty()


# A view's saved layout (client.view's `layout`) is kept for the next attach: bounded, encoded.
MAX_LAYOUT_BYTES = 64 << 10


def client_view(ctx: Context, args: ViewArgs) -> dict[str, Any]:
    if not ctx.conn.attached:
        raise ProtocolError(ErrorCode.BAD_REQUEST, "`client.view` is for a view: `client.attach` first")
    panes: dict[str, tuple[int, int] | None] = {}
    for pane in args.panes:
        session = ctx.server.find(pane.target)
        if session.id in panes:
            raise ProtocolError(ErrorCode.BAD_ARGS, f"`panes`: session {session.id} is in two panes")
        panes[session.id] = view_size(pane.cols, pane.rows)
    focus = ctx.server.find(args.focus).id if args.focus is not None else None
    tiles = tile_sessions(ctx.server, args.tiles)
    if focus is not None and focus not in panes:
        raise ProtocolError(ErrorCode.BAD_ARGS, f"`focus`: session {focus} is in none of the `panes`")
    if args.layout is not None:
        size = len(msgspec.json.encode(args.layout))
        if size > MAX_LAYOUT_BYTES:
            raise ProtocolError(
                ErrorCode.TOO_LARGE, f"`layout` is {size} bytes encoded, over the limit of {MAX_LAYOUT_BYTES}"
            )
    ctx.server.set_view(ctx.conn, focus, panes)
    ctx.conn.show_tiles(tiles)
    if args.layout is not None:
        ctx.server.last_layout = args.layout
    return {}


def tile_sessions(server: Server, targets: list[str]) -> set[str]:
    """The ids of the sessions `targets` name (ids or names, as `Server.find` takes them), in one
    pass over the sessions at most. Tiles only say how often to catch a session up, so one gone
    meanwhile (the grid lists every session, and one may end while the view is on its way) is left
    out, not an error."""
    by_name: dict[str, str] | None = None
    found = set()
    for target in targets:
        session = server.sessions.get(target)
        if session is not None:
            found.add(session.id)
            continue
        if by_name is None:
            by_name = {s.name: s.id for s in server.sessions.values()}
        if (sid := by_name.get(target)) is not None:
            found.add(sid)
    return found


def view_size(cols: int | None, rows: int | None) -> tuple[int, int] | None:
    if (cols is None) != (rows is None):
        raise ProtocolError(ErrorCode.BAD_ARGS, "a view's size needs both `cols` and `rows`")
    return None if cols is None or rows is None else (cols, rows)
