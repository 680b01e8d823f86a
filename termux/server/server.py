"""The termux server: one asyncio process per socket that owns every session.

I/O edges only: accepting connections, framing lines, dispatching to the command table, pushing
output and events to attached clients. Terminal state lives in termux.emulator, message types in
termux.protocol, the parse order in termux.server.scheduler.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import inspect
import itertools
import logging
import os
import resource
import select
import signal
import socket
import stat
import struct
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import termux.emulator as emulator
import termux.protocol.events as ev
from termux.clipboard import DEFAULT_SET_CLIPBOARD, ClipboardSet, SetClipboard
from termux.defaults import BACKGROUND_IDLE, BACKGROUND_NICE, EVENT_CAPACITY, HISTORY, MAX_STREAMS, QUIET_AFTER
from termux.paths import open_side_file, side_path
from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.framing import LineSplitter, Oversized
from termux.protocol.messages import (
    AttachArgs,
    NewArgs,
    RequestId,
    convert_args,
    decode_request,
)
from termux.protocol.pushes import (
    ClipboardPush,
    DetachPush,
    OutputPush,
    Snapshot,
    SnapshotPush,
    encode_line,
    reply_error,
    reply_ok,
)
from termux.protocol.results import AttachResult
from termux.server import dispatch, gauge, handlers, sizing
from termux.server.buffers import Buffer, PasteBuffers
from termux.server.event_io import ActivityMonitor, EventStream
from termux.server.events import Event, EventLog
from termux.server.matcher import MatchWorker
from termux.server.priority import CpuPriority, IdleCgroup, Mover, read_group_nice
from termux.server.scheduler import (
    CATCH_UP_TYPING,
    FORWARD_CATCH_UP,
    FORWARD_FOCUS_BURST,
    FORWARD_FOCUS_RATE,
    FORWARD_HOLD,
    FORWARD_VISIBLE_BURST,
    FORWARD_VISIBLE_RATE,
    FRAME_REST,
    HOLD_MAX,
    READ_PASS_BUDGET,
    WAKE_BATCH,
    CatchUp,
    ForwardBudget,
    HeldOutput,
    OutputPump,
    Parseable,
    ReadPacer,
)
from termux.server.session import Session, SessionConfig, SessionHooks
from termux.trace import TRACE

log = logging.getLogger(__name__)

# Per-connection write buffer. Above HIGH a client is lagging: no session's output is forwarded to
# it (the sessions are marked stale) until the buffer drains below LOW, when each stale session is
# resynced by one snapshot. A view needs the latest screen, not every byte, so these are a few
# screens' worth. A write that would take the buffer past MAX (a client that stopped reading while
# events or replies kept coming) drops the client at once: its buffer is discarded, it is closed.
CLIENT_BUFFER_HIGH = 256 << 10
CLIENT_BUFFER_LOW = 64 << 10
CLIENT_BUFFER_MAX = 1 << 20
MAX_SESSIONS = 1000
MAX_CONNECTIONS = 1024
# Requests of one connection waiting for their reply (waits, long polls, sliced captures): past
# this, further requests are answered `busy`, so a pipelining client cannot pile up work.
MAX_IN_FLIGHT = 256
LISTEN_BACKLOG = 128
ACCEPT_BATCH = 64  # connections accepted per loop pass, so a burst of them cannot hold the loop
# Descriptors: a running session holds two (its PTY's master side and a pidfd for its exit);
# starting one holds three more until the child execs (the PTY's other side, a status pipe). A
# session.new that would leave fewer than FD_RESERVE descriptors free is refused (`capacity`), and
# so is a connection accepted onto one of the last CONNECTION_RESERVE descriptors: clients and the
# server's own files keep room, and the limit is never reached by sessions.
SESSION_FDS = 2
SPAWN_FDS = 3
FD_RESERVE = 32
CONNECTION_RESERVE = 8
# Variables of the server's own environment that would mislead a program in a session: they
# describe the terminal or multiplexer the server was started from, or configure the server.
DETACH_LINE = encode_line(DetachPush())  # the same for every view
SERVER_ONLY_ENV = ("TMUX", "TMUX_PANE", "COLUMNS", "LINES", gauge.SLOW_ENV, gauge.PROFILE_ENV)


class InputWatch:
    """Whether a request waits unread on a client's socket: one epoll set of the connections'
    sockets (level-triggered), asked with a zero timeout between the pieces of long work in the
    loop (a system call, no wait). A connection whose reading is paused is left out of it."""

    def __init__(self) -> None:
        self._epoll = select.epoll()

    def add(self, fd: int) -> None:
        with contextlib.suppress(OSError, ValueError):  # ValueError: closed meanwhile
            self._epoll.register(fd, select.EPOLLIN)

    def discard(self, fd: int) -> None:
        with contextlib.suppress(OSError, ValueError):  # not there, or closed (epoll forgets it)
            self._epoll.unregister(fd)

    def waiting(self) -> bool:
        return bool(self._epoll.poll(0))

    def close(self) -> None:
        self._epoll.close()


class ServerError(Exception):
    """The server cannot start (socket in use, directory unsafe)."""


class Connection(asyncio.Protocol):
    """One client: requests in, replies and pushes out."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.splitter = LineSplitter()
        self.transport: asyncio.Transport | None = None
        self.attached = False
        self.follow: set[str] | None = None  # None: every session
        self.focus: str | None = None
        self.coalesce = False  # output within a budget, snapshots past it (client.attach)
        self.lagging = False
        self.stale: set[str] = set()  # sessions whose output was skipped (lagging, or over budget)
        self.budget = ForwardBudget()
        self.visible_budget = ForwardBudget(FORWARD_VISIBLE_RATE, FORWARD_VISIBLE_BURST)
        self.focus_budget = ForwardBudget(FORWARD_FOCUS_RATE, FORWARD_FOCUS_BURST)
        self.catch_up = CatchUp()  # which stale sessions' snapshots go first, and when
        self.tiles: set[str] = set()  # sessions the view shows as tiles (client.view)
        self._catch_up: asyncio.TimerHandle | None = None  # armed only while sessions are stale
        self.held = HeldOutput()  # output of sessions the view does not show (FORWARD_HOLD)
        self._release: asyncio.TimerHandle | None = None  # armed only while output is held
        self.tasks: set[asyncio.Task[None]] = set()
        self.peer_pid: int | None = None
        self.stream: EventStream | None = None  # set by events.stream
        # Every session this view shows (the focus and the other panes), with the size it offers
        # each (None: none) and when it last showed it anew, focused, resized or typed into it.
        self.shown: dict[str, sizing.ViewSize | None] = {}
        self.view_size: tuple[int, int] | None = None  # a one-pane view's size (client.focus)
        self.queued: list[bytes] = []  # lines written while the server is corked (Server.corking)
        self._requests_paused = False  # its replies are over CLIENT_BUFFER_MAX: its requests wait
        self._lines: deque[bytes | Oversized] = deque()  # request lines read and not handled yet

    # -- asyncio.Protocol ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.transport.set_write_buffer_limits(high=CLIENT_BUFFER_HIGH, low=CLIENT_BUFFER_LOW)
        sock = self.transport.get_extra_info("socket")
        pid, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        self.peer_pid = pid
        if uid != os.getuid():
            log.warning("refused a client with uid %d (pid %d)", uid, pid)
            error = ProtocolError(ErrorCode.FORBIDDEN, "this server belongs to another user")
            self.transport.write(reply_error(None, error))
            self.transport.close()
            return
        if len(self.server.connections) >= MAX_CONNECTIONS:
            self.transport.write(reply_error(None, ProtocolError(ErrorCode.CAPACITY, "too many clients")))
            self.transport.close()
            return
        if sock.fileno() >= self.server.fd_limit - CONNECTION_RESERVE:
            # Descriptors are handed out lowest first: every one below this is in use.
            message = f"the server is out of file descriptors (limit {self.server.fd_limit}); try again later"
            self.transport.write(reply_error(None, ProtocolError(ErrorCode.CAPACITY, message)))
            self.transport.close()
            return
        self.server.connections.add(self)
        self.server.input.add(sock.fileno())

    def data_received(self, data: bytes) -> None:
        self._lines.extend(self.splitter.feed(data))
        self._handle_lines()

    def _handle_lines(self) -> None:
        """Requests in order, until the client's unread replies pass the cap: the rest of what was
        read waits here (one read's worth at most: the socket is not read meanwhile)."""
        while self._lines and not self._requests_paused:
            if self.transport is None or self.transport.is_closing():
                self._lines.clear()
                return
            self.handle_line(self._lines.popleft())

    def _socket_fd(self) -> int | None:
        sock = None if self.transport is None else self.transport.get_extra_info("socket")
        return None if sock is None else int(sock.fileno())

    def connection_lost(self, exc: Exception | None) -> None:
        if (fd := self._socket_fd()) is not None:
            self.server.input.discard(fd)
        for task in self.tasks:
            task.cancel()
        if self._catch_up is not None:
            self._catch_up.cancel()
        self.drop_held()
        if self.stream is not None:
            self.stream.close()  # EOF is the unsubscribe
        self.server.connection_closed(self)

    def pause_writing(self) -> None:
        self.lagging = True
        self.server.client_lags += 1

    def resume_writing(self) -> None:
        self.lagging = False
        if self._requests_paused and self.transport is not None and not self.transport.is_closing():
            self._requests_paused = False
            self.transport.resume_reading()
            if (fd := self._socket_fd()) is not None:
                self.server.input.add(fd)
            self._handle_lines()
        self.send_stale()
        if self.stream is not None:
            self.stream.flush()  # events queued while the peer's socket was full

    # -- requests --------------------------------------------------------------------------------

    def handle_line(self, line: bytes | Oversized) -> None:
        request_id: RequestId = None
        try:
            if isinstance(line, Oversized):
                raise ProtocolError(
                    ErrorCode.TOO_LARGE,
                    f"request line of {line.size} bytes is over the limit of {self.splitter.limit}",
                )
            if not line.strip():
                return
            request = decode_request(line)
            request_id = request.id
            command = dispatch.lookup(request.cmd)
            if len(self.tasks) >= MAX_IN_FLIGHT:
                raise ProtocolError(
                    ErrorCode.BUSY, f"{MAX_IN_FLIGHT} requests of this connection are still in progress"
                )
            args = convert_args(request.args, command.args)
            errors_only = request.errors_only
            result = command.handler(handlers.Context(self.server, self), args)
        except ProtocolError as error:
            request_id = error.extra.pop("id", request_id)
            self.reply(reply_error(request_id, error))
            return
        except Exception as exc:  # a bug: report it, keep serving
            log.exception("request failed")
            self.reply(reply_error(request_id, ProtocolError(ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}")))
            return
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(self._finish(request_id, result, errors_only))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        elif not errors_only:
            self.reply(reply_ok(request_id, result))

    async def _finish(self, request_id: RequestId, pending: Any, errors_only: bool) -> None:
        try:
            result = await pending
        except ProtocolError as error:
            self.reply(reply_error(request_id, error))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("request failed")
            self.reply(reply_error(request_id, ProtocolError(ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}")))
        else:
            if not errors_only:
                self.reply(reply_ok(request_id, result))

    # -- output ----------------------------------------------------------------------------------

    def reply(self, line: bytes) -> None:
        """A reply is always written: the client asked for it. A client whose replies pile up past
        CLIENT_BUFFER_MAX unread is not read from until they drain (its requests wait in the
        socket), so requests cannot grow its buffer without bound either."""
        if self.queued:
            self.flush()  # pushes queued before it go first
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        transport.write(line)
        if transport.get_write_buffer_size() > CLIENT_BUFFER_MAX and not self._requests_paused:
            self._requests_paused = True
            transport.pause_reading()
            if (fd := self._socket_fd()) is not None:
                self.server.input.discard(fd)  # its unread requests would cut every slice short

    def write(self, line: bytes) -> None:
        """A push (output, snapshot, event): dropped with the client past CLIENT_BUFFER_MAX. While
        the server is corked it is queued, in order, and sent with the others at the end (flush)."""
        if self.server.corked:
            if not self.queued:
                self.server.queued.append(self)
            self.queued.append(line)
        else:
            self._push(line)

    def flush(self) -> None:
        """Send the pushes queued while the server was corked, in one socket write."""
        lines, self.queued = self.queued, []
        if lines:
            self._push(lines[0] if len(lines) == 1 else b"".join(lines))

    def _push(self, data: bytes) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        buffered = transport.get_write_buffer_size()
        if buffered and buffered + len(data) > CLIENT_BUFFER_MAX:
            self.drop()
            return
        transport.write(data)

    def drop(self) -> None:
        """The client is more than CLIENT_BUFFER_MAX behind: close it now, discarding what it has
        not read. No final `dropped` push: it would wait behind everything the client has not
        read, and a client that stopped reading would never get it."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        log.info("dropping client pid %s: %d bytes behind", self.peer_pid, transport.get_write_buffer_size())
        self.server.clients_dropped += 1
        transport.abort()

    def follows(self, session_id: str) -> bool:
        return self.attached and (self.follow is None or session_id in self.follow)

    def takes_output(self, session_id: str, nbytes: int, now: float) -> bool:
        """Whether a chunk of `nbytes` of a session it follows is forwarded to this client now;
        when not, the session is marked stale and a snapshot follows later."""
        if session_id in self.stale:
            return False  # resumes with a snapshot (send_stale)
        if self.lagging:
            self.stale.add(session_id)  # a snapshot follows when the socket drains, the focus's first
            self.drop_held(session_id)  # (the snapshot stands for it)
            return False
        if self.coalesce and not self._budget_of(session_id).take(session_id, nbytes, now):
            self.stale.add(session_id)
            self.drop_held(session_id)
            self.catch_up.went_stale(session_id, now)
            self._arm_catch_up(self._due(session_id))
            return False
        return True

    def holds(self, session_id: str) -> bool:
        """Whether output of this session is held (FORWARD_HOLD): a coalescing view that does not
        show it (not its focus, a pane or a tile)."""
        return self.coalesce and not self._shows(session_id)

    def _shows(self, session_id: str) -> bool:
        """Whether this view shows the session: its focus, another pane, or a tile."""
        return session_id == self.focus or session_id in self.shown or session_id in self.tiles

    def hold(self, session_id: str, offset: int, chunk: bytes) -> None:
        """Hold a chunk of output (`holds`): released FORWARD_HOLD after the first chunk held, or
        at once past HOLD_MAX bytes."""
        self.held.hold(session_id, offset, chunk)
        if self.held.size >= HOLD_MAX:
            self.release_held()
        elif self._release is None:
            self._release = asyncio.get_running_loop().call_later(FORWARD_HOLD, self.release_held)

    def release_held(self, only: str | None = None) -> None:
        """Send what is held (only session `only`'s, before an event of it), a push per session,
        in one write: when its time comes, or before a push that must not pass it (an event of
        the session, a change of what the view shows). A lagging view gets the sessions'
        snapshots instead, when its socket drains."""
        taken = self.drop_held(only)
        if self.lagging:
            self.stale.update(sid for sid, _, _ in taken)
            return
        lines = [encode_line(OutputPush(sid, offset, data)) for sid, offset, data in taken]
        if lines:
            self.write(b"".join(lines))

    def drop_held(self, only: str | None = None) -> list[tuple[str, int, bytes]]:
        """Take what is held out (only session `only`'s), and return it: dropped, when a session
        went stale (its snapshot stands for it) or the view went away."""
        taken = self.held.take(only)
        if not self.held and self._release is not None:  # (no timer while nothing is held)
            self._release.cancel()
            self._release = None
        return taken

    def _budget_of(self, session_id: str) -> ForwardBudget:
        if session_id == self.focus:
            return self.focus_budget
        return self.visible_budget if session_id in self.shown else self.budget

    def _due(self, session_id: str) -> float:
        return self.catch_up.due(session_id, shown=self._shows(session_id), focus=session_id == self.focus)

    def show_tiles(self, tiles: set[str]) -> None:
        """The sessions this view shows as tiles (`client.view`): caught up as often as panes."""
        if self.held:
            self.release_held()
        self.tiles = tiles
        if self.stale and not self.lagging:
            self._arm_catch_up(min(map(self._due, self.stale)))

    def _arm_catch_up(self, when: float) -> None:
        """The one catch-up timer, due at `when` or sooner; armed only while sessions are stale."""
        timer = self._catch_up
        if timer is not None:
            if timer.when() <= when:
                return
            timer.cancel()
        self._catch_up = asyncio.get_running_loop().call_at(when, self._caught_up)

    def _caught_up(self) -> None:
        self._catch_up = None
        if self.lagging:
            return  # resume_writing sends them once the socket drains
        now = asyncio.get_running_loop().time()
        due = [sid for sid in self.stale if self._due(sid) <= now]
        # While someone types, a few at a time (CATCH_UP_TYPING); the rest at the next catch-ups.
        limit = CATCH_UP_TYPING if self.server.pump.typing() else None
        self.send_stale(among=due, limit=limit)
        if self.stale and self._catch_up is None and not self.lagging:
            when = min(map(self._due, self.stale))
            if limit is not None and len(due) > limit:
                when = max(when, now + FORWARD_CATCH_UP)  # (those held back: due already)
            self._arm_catch_up(when)

    def send_stale(
        self, only: str | None = None, limit: int | None = None, among: Iterable[str] | None = None
    ) -> None:
        """One snapshot push per stale session (or just `only`, or those of `among`; at most
        `limit` of them), the focused one first, then those caught up least recently; forwarding
        resumes after it. Stops when the socket backs up again: the rest follow when it drains."""
        now = asyncio.get_running_loop().time()
        if only is not None:
            order = [only]
        else:
            order = self.catch_up.order(self.stale if among is None else among, self._rank, limit)
        for session_id in order:
            if self.lagging:
                break
            self.stale.discard(session_id)
            self.drop_held(session_id)  # (the snapshot stands for it)
            session = self.server.sessions.get(session_id)
            if session is not None:
                # Not subject to the cap: it goes only while the buffer is under HIGH, and it is
                # what brings the view back in step, however large its screen.
                line = encode_line(SnapshotPush.of(session.id, self.server.snapshot(session)))
                if self.queued:
                    self.flush()  # pushes queued before it go first
                if self.transport is not None and not self.transport.is_closing():
                    self.transport.write(line)
                self._budget_of(session_id).empty(session_id, now)
                self.catch_up.sent(session_id, now)
        if not self.stale and self._catch_up is not None:
            self._catch_up.cancel()
            self._catch_up = None

    def _rank(self, session_id: str) -> tuple[bool, bool]:
        """The focus first, then the other panes, then what this view does not show."""
        return session_id != self.focus, session_id not in self.shown

    def forget(self, session_id: str) -> None:
        self.stale.discard(session_id)
        self.drop_held(session_id)
        self.tiles.discard(session_id)
        self.budget.forget(session_id)
        self.visible_budget.forget(session_id)
        self.focus_budget.forget(session_id)
        self.catch_up.forget(session_id)
        if not self.stale and self._catch_up is not None:
            self._catch_up.cancel()  # (no timer while nothing is stale)
            self._catch_up = None

    @property
    def buffered(self) -> int:
        return self.transport.get_write_buffer_size() if self.transport else 0


class Server:
    def __init__(
        self,
        socket_path: Path,
        *,
        history: int = HISTORY,
        event_capacity: int = EVENT_CAPACITY,
        max_streams: int = MAX_STREAMS,
        quiet_after: float = QUIET_AFTER,
        background_nice: int = BACKGROUND_NICE,
        background_idle: bool = BACKGROUND_IDLE,
        loop_gauge: gauge.LoopGauge | None = None,
    ) -> None:
        """`loop_gauge`: the gauge of the loop this server will run in, if that loop was made by
        `gauge.metered_loop` (`termux server` does); `server.stats` reports it as `loop`."""
        self.socket_path = socket_path
        self.history = history
        self.background_nice = background_nice
        self.background_idle = background_idle
        # Sessions no view shows run at a lower CPU priority (termux/server/priority.py).
        self.mover = Mover()  # the idle cgroup's moves, off the loop
        self.cpu = CpuPriority(
            lambda delay, retry: asyncio.get_running_loop().call_later(delay, retry), submit=self.mover.submit
        )
        self._priority_follow: asyncio.Handle | None = None  # armed when views changed (`_follow_views`)
        self.sessions: dict[str, Session] = {}
        self.connections: set[Connection] = set()
        self.events = EventLog(event_capacity, max_streams=max_streams)
        self.events.listeners.append(self._push_event)
        self.activity = ActivityMonitor(self.events, self.sessions.get, quiet_after)
        self.buffers = PasteBuffers()
        self.started = time.time()
        self._next_id = 0
        self._next_name = 0
        self._shutdown = asyncio.Event()
        self.input = InputWatch()  # a request waits unread: long work in the loop stops early
        self.pump = OutputPump(self._lookup, self._on_parsed, batch=self.corking, interrupted=self.input.waiting)
        self.read_pacer = ReadPacer()
        self.resting: dict[str, Session] = {}  # sessions whose reading rests until the next tick
        self._rest_tick: asyncio.TimerHandle | None = None  # armed only while a session rests
        self.waking: dict[str, Session] = {}  # their tick came: woken WAKE_BATCH per pass of the loop
        self._wake_next: asyncio.Handle | None = None  # the next pass's batch, while any wait
        self._pass_read = 0  # bytes read in this pass of the loop (READ_PASS_BUDGET)
        self._pass_end: asyncio.Handle | None = None  # ends the pass: armed by its first read
        self.frame_pacer = ReadPacer(FRAME_REST)  # the same for focused sessions (FRAME_REST)
        self.frame_resting: dict[str, Session] = {}
        self._frame_tick: asyncio.TimerHandle | None = None
        self.corked = False  # while true, Connection.write queues (see corking)
        self.queued: list[Connection] = []  # connections with lines queued while corked
        self.window_size: sizing.Policy = sizing.DEFAULT_POLICY
        # What a program's OSC 52 does (termux/clipboard.py): one policy, the latest view's choice.
        self.set_clipboard: SetClipboard = DEFAULT_SET_CLIPBOARD
        self.last_focus: str | None = None  # the session a view focused last (a new view's default)
        self.last_layout: dict[str, Any] | None = None  # the layout a view saved last (client.view)
        self._activity_stamps = itertools.count(1)
        self.bytes_forwarded = 0
        self.clients_dropped = 0
        self.client_lags = 0  # times a client's buffer passed CLIENT_BUFFER_HIGH (its output skipped)
        self.matcher = MatchWorker()  # session.wait's regular expressions, off the loop
        self.instruments = gauge.Instruments(loop_gauge, None)
        self.child_nofile, self.fd_limit = raise_descriptor_limit()
        self._listener: socket.socket | None = None
        self._accepting = False
        self.accept_pauses = 0  # times accept() ran out of descriptors (server.stats)
        self._accept_tasks: set[asyncio.Task[Any]] = set()
        self._base_fds = _open_descriptors()  # the server's own (counted again once it listens)

    # -- sessions --------------------------------------------------------------------------------

    def find(self, target: str) -> Session:
        if (session := self.sessions.get(target)) is not None:
            return session
        for session in self.sessions.values():
            if session.name == target:
                return session
        raise ProtocolError(ErrorCode.NO_SESSION, f"no session {target!r}")

    def _lookup(self, session_id: str) -> Parseable | None:
        return self.sessions.get(session_id)

    def _check_name(self, name: str, ignore: Session | None = None) -> None:
        if name.startswith("%") or any(ch < " " or ch == "\x7f" for ch in name) or name != name.strip():
            raise ProtocolError(
                ErrorCode.BAD_ARGS,
                f"invalid session name {name!r}: no leading %, no control characters, no surrounding spaces",
            )
        for other in self.sessions.values():
            if other.name == name and other is not ignore:
                raise ProtocolError(ErrorCode.EXISTS, f"a session named {name!r} exists")

    def new_session(self, args: NewArgs) -> Session:
        args.check()
        if len(self.sessions) >= MAX_SESSIONS:
            raise ProtocolError(ErrorCode.CAPACITY, f"at most {MAX_SESSIONS} sessions")
        self._check_descriptors()
        if args.name is not None:
            self._check_name(args.name)
            name = args.name
        else:
            while str(self._next_name) in {s.name for s in self.sessions.values()}:
                self._next_name += 1
            name = str(self._next_name)
            self._next_name += 1
        argv = args.command or [os.environ.get("SHELL") or "/bin/sh"]
        cwd = args.cwd or os.environ.get("HOME") or "/"
        if not os.path.isdir(cwd):
            raise ProtocolError(ErrorCode.SPAWN_FAILED, f"no such directory: {cwd}")
        session_id = f"%{self._next_id}"
        config = SessionConfig(
            argv=list(argv),
            cwd=cwd,
            env=self._child_env(session_id, cwd, args.env),
            cols=args.cols,
            rows=args.rows,
            history=self.history if args.history is None else args.history,
            background_nice=self.background_nice if args.background_nice is None else args.background_nice,
            background_idle=self.background_idle if args.background_idle is None else args.background_idle,
            nofile=self.child_nofile,
        )
        hooks = SessionHooks(
            output_ready=self._output_ready,
            exited=self._session_exited,
            read_rest=self._read_rest,
            drains=self._drains,
            reads_blind=self._reads_blind,
        )
        session = Session(session_id, name, config, hooks)
        self._next_id += 1
        self.sessions[session_id] = session
        session.cpu = self.cpu.add(session.id, session.pid, config.background_nice, config.background_idle)
        self._follow_views()
        self.events.commit(
            ev.SessionCreated(session=session.id, name=session.name, data=ev.CreatedData(config.argv, session.pid))
        )
        return session

    def _child_env(self, session_id: str, cwd: str, extra: dict[str, str]) -> dict[str, str]:
        """The server's environment less what only the server should see, PWD for the session's
        directory (as tmux sets it), the request's `env`, then TERM and TERMUX."""
        env = {key: value for key, value in os.environ.items() if key not in SERVER_ONLY_ENV}
        env["PWD"] = cwd
        env.update(extra)
        env["TERM"] = "xterm-256color"
        env["TERMUX"] = f"{self.socket_path},{session_id}"
        return env

    def _check_descriptors(self) -> None:
        """Refuse a session that would leave fewer than FD_RESERVE descriptors free."""
        open_now = (
            self._base_fds
            + sum(s.descriptors for s in self.sessions.values())
            + len(self.connections)
            + len(self._accept_tasks)
        )
        if open_now + SPAWN_FDS + SESSION_FDS + FD_RESERVE > self.fd_limit:
            raise ProtocolError(
                ErrorCode.CAPACITY,
                f"not enough file descriptors for another session: {open_now} of the limit of "
                f"{self.fd_limit} are open and each session holds {SESSION_FDS}; kill sessions, "
                "or start the server with a higher `ulimit -n`",
            )

    def rename(self, session: Session, name: str) -> None:
        self._check_name(name, ignore=session)
        old, session.name = session.name, name
        if old != name:
            self.events.commit(ev.SessionRenamed(session=session.id, name=name, data=ev.RenamedData(old)))

    async def kill_session(self, session: Session) -> None:
        await session.kill()
        if self.sessions.pop(session.id, None) is not None:
            self.cpu.forget(session.id)
            self.pump.order.discard(session.id)
            self.pump.rates.forget(session.id)
            self.read_pacer.forget(session.id)
            self.frame_pacer.forget(session.id)
            self.resting.pop(session.id, None)
            self.waking.pop(session.id, None)
            self.frame_resting.pop(session.id, None)
            for conn in self.connections:
                conn.forget(session.id)
            self.activity.forget(session.id)
            self.events.commit(ev.SessionClosed(session=session.id, name=session.name))
            self._resume_accepting()  # its descriptors are free

    def _output_ready(self, session: Session, nbytes: int) -> None:
        self.pump.notify(session.id, nbytes)

    def _read_rest(self, session: Session, nbytes: int) -> bool:
        """Whether a session's reading rests after a read of `nbytes` (see READ_REST, and
        FRAME_REST for a session a view focuses); if so, it is woken at the next tick of its
        clock, with every other session resting on it."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if session.id in self.pump.order.focused:
            if not self.frame_pacer.rests(session.id, nbytes, now) or self.pump.typing():
                return False
            self.frame_resting[session.id] = session
            if self._frame_tick is None:
                self._frame_tick = loop.call_at(self.frame_pacer.next_tick(now), self._end_frame_rests)
            return True
        # While someone types, a session no view shows rests whatever it prints: a flood is then
        # read once a tick, not every time its program gets a moment of CPU. (A pane shown beside
        # the one typed into is read as it prints: it is on the screen.)
        unseen = session.id not in self.pump.order.visible
        if not self.read_pacer.rests(session.id, nbytes, now) and not (unseen and self.pump.typing()):
            return False
        self.resting[session.id] = session
        if self._rest_tick is None:
            self._rest_tick = loop.call_at(self.read_pacer.next_tick(now), self._end_rests)
        return True

    def typed(self, session: Session) -> None:
        """Input reached a session: when a view shows it, someone is typing (background parsing
        rests, OutputPump.typed) and its reading, if it rests for a frame, goes on at once, so the
        echo is read as it comes."""
        if session.id in self.pump.order.focused:
            self.pump.typed()
        if (resting := self.frame_resting.pop(session.id, None)) is not None:
            resting.wake()

    def _drains(self, session: Session, nbytes: int) -> bool:
        """After a read of `nbytes`: whether the wake-up reads on until the PTY is empty. A focused
        session's does; a background session's does while nobody types (Session._on_readable:
        such reads may stop the loop) and this pass of the loop has read less than
        READ_PASS_BUDGET from such sessions, and no request waits (InputWatch). Only those reads
        are counted, and only they arm the callback that ends the pass: the one after a key's echo
        was read would cost the loop a pass of its own."""
        if session.id in self.pump.order.focused:
            return True
        if self.pump.typing():
            return False
        self._pass_read += nbytes
        if self._pass_end is None:
            self._pass_end = asyncio.get_running_loop().call_soon(self._end_pass)
        return self._pass_read < READ_PASS_BUDGET and not self.input.waiting()

    def _reads_blind(self) -> bool:
        """Whether a wake-up reads on with the line discipline empty (waiting for the kernel's
        worker to fill it): while nobody types and no request waits, nothing waits behind it."""
        return not self.pump.typing() and not self.input.waiting()

    def _end_pass(self) -> None:
        self._pass_end = None
        self._pass_read = 0

    def _end_rests(self) -> None:
        self._rest_tick = None
        self.waking.update(self.resting)
        self.resting = {}
        self._wake_batch()

    def _wake_batch(self) -> None:
        """Wake WAKE_BATCH of the sessions whose rest ended; the next ones in the next pass."""
        self._wake_next = None
        for _ in range(min(WAKE_BATCH, len(self.waking))):
            sid = next(iter(self.waking))
            self.waking.pop(sid).wake()  # may rest again, for the next tick
        if self.waking:
            self._wake_next = asyncio.get_running_loop().call_soon(self._wake_batch)

    def _end_frame_rests(self) -> None:
        self._frame_tick = None
        resting, self.frame_resting = self.frame_resting, {}
        for session in resting.values():
            session.wake()

    def _on_parsed(self, parsed: Parseable, offset: int, chunk: bytes) -> None:
        session = cast(Session, parsed)
        if TRACE.on:
            TRACE.stamp("server.parsed", session.id)
        self.activity.output(session, chunk)
        screen = session.screen
        title = getattr(screen, "title", "")
        if title != session.title:
            session.title = title
            self.events.commit(ev.SessionTitle(session=session.id, name=session.name, data=ev.TitleData(title)))
        bells = getattr(screen, "bell_count", 0)
        if bells != session.bells:
            session.bells = bells
            self.events.commit(ev.SessionBell(session=session.id, name=session.name))
        line = b""
        now = asyncio.get_running_loop().time()
        for conn in self.connections:
            if conn.follows(session.id) and conn.takes_output(session.id, len(chunk), now):
                if conn.holds(session.id):
                    conn.hold(session.id, offset, chunk)
                    self.bytes_forwarded += len(chunk)
                    continue
                if not line:  # encoded once, whoever is looking
                    line = encode_line(OutputPush(session.id, offset, chunk))
                if TRACE.on:  # before the write: the client may stamp its receipt first
                    TRACE.stamp("server.pushed", session.id)
                conn.write(line)
                self.bytes_forwarded += len(chunk)
        if screen.clipboard is not None:
            request, screen.clipboard = screen.clipboard, None
            if self.set_clipboard == "on":
                self._program_clipboard(session, request)

    def _program_clipboard(self, session: Session, request: ClipboardSet) -> None:
        """A program set the clipboard (OSC 52): a paste buffer, and the views showing it write it
        to their terminal (of several in one parse slice, the last)."""
        self.set_buffer(request.data)
        line = encode_line(ClipboardPush(session.id, request.selection, request.data))
        for conn in self.connections:
            if conn.attached and conn.focus == session.id:
                conn.write(line)

    def set_buffer(self, data: bytes, name: str | None = None, append: bool = False) -> Buffer:
        """Store a paste buffer (PasteBuffers.set) and commit its events: the buffers dropped to
        make room, then the change."""
        buffer, dropped = self.buffers.set(data, time.time(), name=name, append=append)
        for old in dropped:
            self.events.commit(ev.BufferDeleted(data=ev.BufferDeletedData(old.name, "limit")))
        self.events.commit(ev.BufferChanged(data=ev.BufferChangedData(buffer.name, len(buffer.data))))
        return buffer

    @contextmanager
    def corking(self) -> Iterator[None]:
        """Writes to clients inside the block are queued, in order, and each connection's are sent
        in one socket write at its end: a pass of the pump that forwards many sessions' chunks
        costs a client one send() and one wake-up, not one per chunk."""
        self.corked = True
        try:
            yield
        finally:
            self.corked = False
            queued, self.queued = self.queued, []
            for conn in queued:
                conn.flush()

    def _session_exited(self, session: Session) -> None:
        self.activity.forget(session.id)
        self.resting.pop(session.id, None)
        self.waking.pop(session.id, None)
        self.frame_resting.pop(session.id, None)
        self._resume_accepting()  # its PTY and pidfd are closed
        signal_name = signal.Signals(session.exit_signal).name if session.exit_signal else None
        exited = ev.ExitedData(session.exit_code, session.exit_signal, signal_name)
        self.events.commit(ev.SessionExited(session=session.id, name=session.name, data=exited))

    def snapshot(self, session: Session) -> Snapshot:
        """The session's screen as replay bytes, and the output offset they stand for. Made again
        only once output was parsed or the session resized: attaching to idle sessions is free."""
        cached = session.snapshot_cache
        if cached is not None and cached[0] == session.bytes_parsed:
            return cached[1]
        data = emulator.snapshot(session.screen)
        made = Snapshot(session.bytes_parsed, session.screen.columns, session.screen.lines, data)
        session.snapshot_cache = (session.bytes_parsed, made)
        return made

    # -- attached clients ------------------------------------------------------------------------

    def attach(self, conn: Connection, args: AttachArgs) -> AttachResult:
        if conn.stream is not None:
            raise ProtocolError(
                ErrorCode.BUSY,
                "this connection has an event stream: attach on another one (a view gets every event anyway)",
            )
        follow = None if args.follow is None else {self.find(t).id for t in args.follow}
        focus = self.find(args.focus).id if args.focus is not None else None
        size = handlers.view_size(args.cols, args.rows)
        if args.detach_others:
            for other in [c for c in self.connections if c.attached and c is not conn]:
                self.detach(other)
        conn.attached, conn.follow, conn.coalesce = True, follow, args.coalesce
        if args.window_size is not None:
            self.window_size = args.window_size  # one policy per server: the latest view's choice
        if args.set_clipboard is not None:
            self.set_clipboard = args.set_clipboard
        self.set_focus(conn, focus, size)
        self.events.commit(ev.ClientAttached(data=ev.ClientData(conn.peer_pid)))
        snapshots = {s.id: self.snapshot(s) for s in self.sessions.values() if conn.follows(s.id)}
        return AttachResult(
            sessions=[s.info() for s in self.sessions.values()],
            snapshots=snapshots,
            cursor=self.events.cursor,
            in_sync=True,
            last_focus=self.last_focus if self.last_focus in self.sessions else None,
            last_layout=self.last_layout,
        )

    def set_focus(self, conn: Connection, session_id: str | None, size: tuple[int, int] | None = None) -> None:
        """`conn` now shows `session_id` alone (None: nothing); `size` is the view's, when it says
        (else the size it said last): `client.attach` and `client.focus`."""
        if size is not None:
            conn.view_size = size
        panes = {} if session_id is None else {session_id: conn.view_size}
        self.set_view(conn, session_id, panes, offered=size is not None)
        conn.show_tiles(set())  # (the whole view: one pane, no tiles)

    def set_view(
        self,
        conn: Connection,
        focus: str | None,
        panes: dict[str, tuple[int, int] | None],
        offered: bool = False,
    ) -> None:
        """`conn` now shows the sessions of `panes`, each offering its size (None: no offer), and
        focuses `focus` (one of them, or None). A pane counts as active for `latest` when it is
        new, resized or newly focused (`offered`: the focus's size was offered anew)."""
        if conn.held:
            conn.release_held()  # (a session shown now: what was held goes before what it prints next)
        previous, before = conn.focus, conn.shown
        shown: dict[str, sizing.ViewSize | None] = {}
        for sid, size in panes.items():
            old = before.get(sid)
            if size is None:
                shown[sid] = None
            elif old is None or (old.cols, old.rows) != size or (sid == focus and (offered or previous != focus)):
                shown[sid] = sizing.ViewSize(*size, next(self._activity_stamps))
            else:
                shown[sid] = old
        conn.focus, conn.shown = focus, shown
        if focus is not None:
            self.last_focus = focus
        self._follow_views()
        for sid in sorted(shown.keys() - before.keys(), key=lambda sid: (conn._rank(sid), sid)):
            if (session := self.resting.pop(sid, None) or self.waking.pop(sid, None)) is not None:
                session.wake()  # what a view shows is read at once
            if sid in conn.stale and not conn.lagging:
                conn.send_stale(only=sid)  # the view is about to show it: bring it up to date now
        if focus is not None and focus != previous and focus in conn.stale and not conn.lagging:
            conn.send_stale(only=focus)
        for sid in before.keys() | shown.keys():  # the views of these sessions changed: their sizes may too
            if before.get(sid) != shown.get(sid):
                self.fit(sid)

    def view_typed(self, conn: Connection, session_id: str) -> None:
        """A view typed into a session it shows: under `latest`, its size is now the one."""
        offer = conn.shown.get(session_id)
        if self.window_size != "latest" or conn.focus != session_id or offer is None:
            return
        if max(self._offers(session_id), key=lambda v: v.active) is not offer:
            conn.shown[session_id] = sizing.ViewSize(offer.cols, offer.rows, next(self._activity_stamps))
            self.fit(session_id)

    def _offers(self, session_id: str) -> list[sizing.ViewSize]:
        return [o for c in self.connections if c.attached and (o := c.shown.get(session_id)) is not None]

    def fit(self, session_id: str) -> None:
        """Size the session from the views showing it, under the server's policy (sizing.py)."""
        session = self.sessions.get(session_id)
        if session is None or session.state != "running":
            return
        size = sizing.choose(self.window_size, self._offers(session_id))
        if size is not None:
            self.resize(session, *size)

    def resize(self, session: Session, cols: int, rows: int) -> None:
        if (cols, rows) != (session.config.cols, session.config.rows):
            session.resize(cols, rows)
            resized = ev.ResizedData(cols, rows)
            self.events.commit(ev.SessionResized(session=session.id, name=session.name, data=resized))

    def _follow_views(self) -> None:
        """The parse order and the CPU priority follow what views focus and show: the focused
        sessions first, the other panes next, the rest last (while any view is attached; else
        every session has its own nice)."""
        self.pump.order.focused, self.pump.order.visible = self._shown()
        # The CPU priority once the request that changed the views is answered: the first attach
        # lowers every session (a pass over /proc, a write for each), which its reply need not
        # wait for. It runs before any request sent after that reply is read (on any connection).
        if self._priority_follow is None:
            self._priority_follow = asyncio.get_running_loop().call_soon(self._follow_priority)

    def _follow_priority(self) -> None:
        self._priority_follow = None
        focused, visible = self._shown()  # (as the views are now: more may have changed since)
        self.cpu.follow(focused, any(c.attached for c in self.connections), visible)

    def _shown(self) -> tuple[set[str], set[str]]:
        """The sessions a view focuses, and those a view shows in a pane beside its focus."""
        focused = {c.focus for c in self.connections if c.focus is not None}
        return focused, {sid for c in self.connections for sid in c.shown} - focused

    def _push_event(self, event: Event) -> None:
        line = event.push_line
        for conn in self.connections:
            if conn.attached:
                if conn.held and event.session is not None:
                    conn.release_held(event.session)  # (its event follows its output: an exit, a title)
                conn.write(line)

    def detach(self, conn: Connection) -> None:
        """Another view attached with `detach_others` (tmux's attach -d): this one is told to
        leave (a `detach` push) and gets nothing more meanwhile; its connection stays for it to close."""
        conn.write(DETACH_LINE)
        self._detached(conn)

    def _detached(self, conn: Connection) -> None:
        conn.attached = False
        conn.drop_held()
        self.set_focus(conn, None)
        self.events.commit(ev.ClientDetached(data=ev.ClientData(conn.peer_pid)))

    def connection_closed(self, conn: Connection) -> None:
        self._resume_accepting()  # its socket is closed right after this
        if conn in self.connections:
            self.connections.discard(conn)
            if conn.attached:
                self._detached(conn)

    # -- stats -----------------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "uptime": time.time() - self.started,
            "sessions": len(self.sessions),
            "running": sum(1 for s in self.sessions.values() if s.state == "running"),
            "clients": len(self.connections),
            "attached": sum(1 for c in self.connections if c.attached),
            "bytes_read": sum(s.bytes_read for s in self.sessions.values()),
            "bytes_parsed": sum(s.bytes_parsed for s in self.sessions.values()),
            "bytes_forwarded": self.bytes_forwarded,
            "slices": self.pump.slices,
            "slices_interrupted": self.pump.interrupted,
            "events": self.events.cursor,
            "event_streams": self.events.stream_count,
            "event_waiters": self.events.waiter_count,
            "event_streams_dropped": self.events.dropped_subscribers,
            "cpu_priority": {
                "mechanism": self.cpu.mechanism,
                "idle": self.cpu.idle,
                "writes": self.cpu.writes,
                "waiting": self.cpu.waiting(),
                "policy_changes": self.cpu.policy_changes,
                "cgroup": None if self.cpu.cgroup is None else str(self.cpu.cgroup.directory),
                "cgroup_moves": self.cpu.cgroup_moves,
                "cgroup_moves_pending": self.mover.pending,
                "own_nice": read_group_nice(os.getpid()),
            },
            "backlog": {s.id: s.backlog.size for s in self.sessions.values() if s.backlog.size},
            "paused": [
                s.id for s in self.sessions.values() if s.reading_paused and not s.resting and s.state == "running"
            ],
            "resting": sorted(self.resting.keys() | self.waking.keys() | self.frame_resting.keys()),
            "client_buffers": {str(c.peer_pid): c.buffered for c in self.connections if c.buffered},
            "clients_dropped": self.clients_dropped,
            "client_lags": self.client_lags,
            "fd_limit": self.fd_limit,
            "accept_pauses": self.accept_pauses,
            "matches_in_flight": self.matcher.in_flight,
            "event_queues": gauge.stream_queues(self.connections),
            **self.instruments.report(),
        }

    # -- lifecycle -------------------------------------------------------------------------------

    def request_shutdown(self) -> None:
        asyncio.get_running_loop().call_soon(self._shutdown.set)

    async def serve(self, ready: Any = None) -> None:
        """Listen on the socket until shut down. `ready` is called once the socket accepts."""
        loop = asyncio.get_running_loop()
        self.instruments.slow = gauge.slow_monitor_from_env()
        with _bind_lock(self.socket_path):
            _claim_socket(self.socket_path)
            self._listener = _listen(self.socket_path)
        os.chmod(self.socket_path, 0o600)
        self._base_fds = _open_descriptors()
        self.cpu.use_cgroup(IdleCgroup.make)  # made when a session first asks (not for a server never run)
        self._start_accepting()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(sig, self._shutdown.set)
        pump = asyncio.create_task(self.pump.run())
        log.info("listening on %s (pid %d)", self.socket_path, os.getpid())
        if ready is not None:
            ready()
        try:
            await self._shutdown.wait()
        finally:
            self._stop_accepting()
            self._listener.close()
            try:
                self.socket_path.unlink()
            except FileNotFoundError:
                pass
            await asyncio.gather(*(self.kill_session(s) for s in list(self.sessions.values())))
            for conn in list(self.connections):
                if conn.transport is not None:
                    conn.transport.close()
            pump.cancel()
            self.cpu.close()
            self.mover.close()
            for task in self._accept_tasks:
                task.cancel()
            self.matcher.close()
            self.input.close()
            self.instruments.close()
            log.info("server stopped")

    # -- accepting -------------------------------------------------------------------------------

    def _start_accepting(self) -> None:
        if not self._accepting and self._listener is not None and self._listener.fileno() >= 0:
            asyncio.get_running_loop().add_reader(self._listener.fileno(), self._accept)
            self._accepting = True

    def _stop_accepting(self) -> None:
        if self._accepting and self._listener is not None:
            asyncio.get_running_loop().remove_reader(self._listener.fileno())
            self._accepting = False

    def _resume_accepting(self) -> None:
        """A descriptor was freed: accept again if running out of them had paused accepting."""
        if not self._accepting and self._listener is not None and not self._shutdown.is_set():
            self._start_accepting()

    def _accept(self) -> None:
        assert self._listener is not None
        loop = asyncio.get_running_loop()
        for _ in range(ACCEPT_BATCH):
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionAbortedError:
                continue
            except OSError as exc:
                if exc.errno not in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    raise
                # Out of descriptors: the listening socket stays readable, so stop watching it
                # until a connection closes or a session ends (no timer). Clients wait in the
                # listen backlog meanwhile. Logged once per server run; counted in server.stats.
                if not self.accept_pauses:
                    log.warning(
                        "out of file descriptors (%s, limit %d): not accepting clients until one is freed",
                        exc.strerror,
                        self.fd_limit,
                    )
                self.accept_pauses += 1
                self._stop_accepting()
                return
            sock.setblocking(False)
            task = loop.create_task(self._connect(sock))
            self._accept_tasks.add(task)
            task.add_done_callback(self._accept_tasks.discard)

    async def _connect(self, sock: socket.socket) -> None:
        try:
            await asyncio.get_running_loop().connect_accepted_socket(lambda: Connection(self), sock)
        except OSError as exc:
            log.info("a client's connection failed at once: %s", exc.strerror)
            sock.close()


_STARTED_NOFILE: tuple[int, int] | None = None


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd")) - 1  # less the one listdir itself holds


def raise_descriptor_limit() -> tuple[tuple[int, int], int]:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit. Returns the limits the process
    started with (what sessions get back) and the soft limit now in force."""
    global _STARTED_NOFILE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if _STARTED_NOFILE is None:
        _STARTED_NOFILE = (soft, hard)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (OSError, ValueError):  # a hard limit of "unlimited" cannot be a soft one
            pass
    return _STARTED_NOFILE, soft


def _listen(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        sock.listen(LISTEN_BACKLOG)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise ServerError(f"cannot listen on {path}: {exc.strerror}") from None
    return sock


@contextmanager
def _bind_lock(socket_path: Path) -> Iterator[None]:
    """Serialise the stale-socket check and bind between servers racing for one socket."""
    fd = open_side_file(side_path(socket_path, "lock"), os.O_RDWR | os.O_CREAT)  # never through a symlink
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _claim_socket(socket_path: Path) -> None:
    """Refuse a live socket; remove a stale one left by a killed server."""
    try:
        info = socket_path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise ServerError(f"{socket_path} exists and is not a socket; not touching it")
    if info.st_uid != os.getuid():  # another user's, in a sticky directory like /tmp
        raise ServerError(f"{socket_path} is a socket of uid {info.st_uid}, not yours; not touching it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(socket_path))
    except ConnectionRefusedError:
        log.info("removing stale socket %s", socket_path)
        socket_path.unlink()
    except OSError as exc:
        raise ServerError(f"cannot use {socket_path}: {exc.strerror}") from None
    else:
        raise ServerError(f"a server is already running on {socket_path}")
    finally:
        probe.close()
