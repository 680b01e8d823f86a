"""One session: a child process in its own PTY, and the terminal state its output builds.

The session does the I/O for its PTY (non-blocking reads and writes registered with the loop) and
keeps the bytes it has read but not yet parsed. Parsing happens when the scheduler says so, in
bounded slices; see termux/server/scheduler.py.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import logging
import os
import signal
import struct
import termios
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import termux.emulator as emulator
from termux.defaults import HISTORY
from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.messages import SessionInfo
from termux.protocol.pushes import Snapshot
from termux.trace import TRACE

if TYPE_CHECKING:
    from termux.server.priority import Group
from termux.server.spawn import SpawnError, set_window_size, spawn

log = logging.getLogger(__name__)

READ_SIZE = 64 * 1024
# Flow control: stop reading a PTY whose unparsed output is above HIGH, read again below LOW. While
# reads are paused the kernel's PTY buffer fills and the child blocks in write(): the flood slows
# down instead of growing the server's memory.
HIGH_WATERMARK = 1 << 20
LOW_WATERMARK = 256 << 10
# Input a program has not read yet; past this, session.send answers `busy`. A send that leaves more
# than INPUT_LOW waiting is answered once the program has read down to INPUT_LOW, so a client
# streaming input in pieces of up to MAX_INPUT_BACKLOG - INPUT_LOW goes at the program's pace; it
# gets `busy` only when the program reads nothing for INPUT_STALL seconds.
MAX_INPUT_BACKLOG = 1 << 20
INPUT_LOW = 256 << 10
INPUT_STALL = 10.0
KILL_GRACE = 1.0  # seconds between SIGHUP, SIGTERM and SIGKILL
# After a change of width, the scrollback is re-cut this many rows per pass of the loop (the screen
# itself at once): a session with a long history never holds the loop for long.
REFLOW_STEP = 500


@dataclass
class SessionConfig:
    argv: list[str]
    cwd: str
    env: dict[str, str]
    cols: int = 80
    rows: int = 24
    history: int = HISTORY
    background_nice: int = 0  # its scheduling group's nice while no view shows it
    background_idle: bool = False  # its processes under SCHED_IDLE while no view shows it
    nofile: tuple[int, int] = (1024, 1024)  # the child's RLIMIT_NOFILE (soft, hard)


@dataclass
class SessionHooks:
    """How a session tells the server about itself (the server wires these up)."""

    output_ready: Callable[[Session, int], None]  # (the bytes just read)
    exited: Callable[[Session], None]
    # After a read of this many bytes: True when the session's reading should rest until the
    # server calls wake() (see scheduler.ReadPacer).
    read_rest: Callable[[Session, int], bool] | None = None
    # After each read of a wake-up, with the bytes it took: whether to read again, until the PTY
    # is empty (else that was the wake-up's last read: see Session._on_readable).
    drains: Callable[[Session, int], bool] | None = None
    # Whether a read past a wake-up's first may be made with the line discipline empty (it then
    # waits for the kernel's worker with the loop stopped: see Session._on_readable).
    reads_blind: Callable[[], bool] | None = None


ROW_END = b"\x1b[K"  # EL: how a full-screen program ends a row it redraws


@dataclass
class OutputBacklog:
    """Bytes read from the PTY and not yet parsed: a queue of chunks with a byte count."""

    chunks: deque[bytes] = field(default_factory=deque)
    size: int = 0

    def push(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)

    def take(self, budget: int) -> bytes:
        """Remove and return up to `budget` bytes from the front. When more are left, they end after
        the last row a full-screen program redrew in them (its EL), if that is in their second
        half: the emulator's frame path takes whole rows, where a row cut in two is drawn run by
        run, and so is its shadow in the TUI, which gets the same slices."""
        parts: list[bytes] = []
        taken = 0
        while self.chunks and taken < budget:
            chunk = self.chunks[0]
            room = budget - taken
            if len(chunk) <= room:
                parts.append(self.chunks.popleft())
                taken += len(chunk)
            else:
                parts.append(chunk[:room])
                self.chunks[0] = chunk[room:]
                taken += room
        self.size -= taken
        taken_bytes = parts[0] if len(parts) == 1 else b"".join(parts)
        if self.chunks:
            row_end = taken_bytes.rfind(ROW_END, len(taken_bytes) // 2) + len(ROW_END)
            if len(ROW_END) <= row_end < len(taken_bytes):
                self.chunks.appendleft(taken_bytes[row_end:])
                self.size += len(taken_bytes) - row_end
                taken_bytes = taken_bytes[:row_end]
        return taken_bytes


class Session:
    def __init__(self, session_id: str, name: str, config: SessionConfig, hooks: SessionHooks) -> None:
        self.id = session_id
        self.name = name
        self.config = config
        self.hooks = hooks
        self.created = time.time()
        self.screen = emulator.Screen(config.cols, config.rows, history=config.history)
        self.stream = emulator.ByteStream(self.screen)
        self.screen.write_process_input = self._answer_program  # type: ignore[method-assign]
        self.backlog = OutputBacklog()
        self.bytes_read = 0  # read from the PTY
        self.bytes_parsed = 0  # fed to the screen; also the offset of the next output push
        self.reading_paused = False
        self.state = "running"
        self.exit_code: int | None = None
        self.exit_signal: int | None = None
        self.title = ""
        self.quiet_since: float | None = None  # Unix time its output stopped, while it is quiet (event_io.py)
        self.bells = 0
        self.cpu: Group | None = None  # its scheduling group, when the server manages it
        # The server's snapshot of the screen and the bytes_parsed it was made at; a resize drops it.
        self.snapshot_cache: tuple[int, Snapshot] | None = None
        self._screen_text: tuple[tuple[int, int, int], str] = ((-1, 0, 0), "")
        self._outbox = bytearray()
        self.input_written = 0  # input bytes the program's PTY has taken
        self._input_room: asyncio.Future[None] | None = None  # set when the outbox drains to INPUT_LOW
        self._input_dropped = 0  # input never delivered: the PTY closed first
        self._pty_open = True
        self._pty_eof = False  # the PTY reported end of file: no process holds it any more
        self._child_reaped = False
        self.resting = False  # reading rests until the server calls wake()
        self._reflowing: asyncio.Handle | None = None  # the next step re-cutting scrollback after a resize
        self.reflow_steps = 0  # steps run (for tests: they are bounded, and end)
        self._loop = asyncio.get_running_loop()
        self._reaped = self._loop.create_future()
        try:
            child = spawn(config.argv, config.cwd, config.env, config.cols, config.rows, config.nofile)
        except SpawnError as exc:
            raise ProtocolError(ErrorCode.SPAWN_FAILED, str(exc)) from None
        except OSError as exc:  # no PTY or process could be made (out of descriptors, of processes)
            raise ProtocolError(ErrorCode.SPAWN_FAILED, f"cannot start {config.argv[0]!r}: {exc.strerror}") from None
        self.pid = child.pid
        self.fd = child.fd
        try:
            self._pidfd = os.pidfd_open(self.pid)
        except OSError as exc:  # out of descriptors: undo the start
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            os.close(self.fd)
            raise ProtocolError(ErrorCode.SPAWN_FAILED, f"cannot watch {config.argv[0]!r}: {exc.strerror}") from None
        self._loop.add_reader(self.fd, self._on_readable)
        self._loop.add_reader(self._pidfd, self._on_child_exit)

    # -- reading -------------------------------------------------------------------------------

    def _on_readable(self) -> None:
        # A PTY read returns at most a few KiB, so one read per wake-up would take in only that
        # much per pass of the loop, however fast the program writes: read until the PTY is
        # empty, READ_SIZE at most (or the high watermark). But a read that finds the line
        # discipline's buffer empty waits for the kernel's worker that moves the program's
        # output into it (flush_to_ldisc, on a workqueue), and on a busy machine that worker
        # waits for a CPU with the loop stopped; only the first read is sure not to wait (the
        # loop saw the PTY readable). So while someone types or a request waits, a read past the
        # first is made only while the line discipline holds bytes (`_waiting`; else reads go
        # on: `SessionHooks.reads_blind`, the reads of a few KiB a wake-up would cost a flood
        # several times the CPU per byte), and when the session says not to drain (a background
        # one while someone types: `SessionHooks.drains`), a wake-up reads once.
        nbytes = got = self._read_once()
        while (
            got
            and self._drains(got)
            and nbytes < READ_SIZE
            and self.backlog.size < HIGH_WATERMARK
            and (self._reads_blind() or self._waiting())
        ):
            got = self._read_once()
            nbytes += got
        if nbytes:
            self._after_reading(nbytes)

    def _waiting(self) -> bool:
        """Bytes wait in the line discipline now: a read takes them without waiting for the
        kernel's worker (FIONREAD counts them; what the worker has not moved in yet is not)."""
        try:
            return struct.unpack("i", fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0"))[0] > 0
        except OSError:
            return True  # let the read say what is wrong (EIO at the end)

    def _reads_blind(self) -> bool:
        return self.hooks.reads_blind is not None and self.hooks.reads_blind()

    def _drains(self, nbytes: int) -> bool:
        return self.hooks.drains is None or self.hooks.drains(self, nbytes)

    def _read_once(self) -> int:
        """One read of the PTY into the backlog; the bytes read (0: none now, or end of file)."""
        try:
            data = os.read(self.fd, READ_SIZE)
        except BlockingIOError:
            return 0
        except OSError as exc:  # EIO: every copy of the PTY's other side is closed
            if exc.errno != errno.EIO:
                log.debug("session %s: read failed: %s", self.id, exc)
            data = b""
        if not data:
            self._pty_eof = True
            self._stop_reading()
            if self._child_reaped:  # the last process holding the PTY (a grandchild) let it go
                self._close_pty()
                if not self.has_backlog:
                    self._finish_exit()
            return 0
        if TRACE.on:
            TRACE.stamp("server.echo_read", self.id)
        self._accept(data)
        return len(data)

    def _after_reading(self, nbytes: int) -> None:
        if self.backlog.size >= HIGH_WATERMARK:
            self.pause_reading()
        elif self.hooks.read_rest is not None and self.hooks.read_rest(self, nbytes):
            self.pause_reading()
            self.resting = True

    def _accept(self, data: bytes) -> None:
        self.backlog.push(data)
        self.bytes_read += len(data)
        self.hooks.output_ready(self, len(data))

    def pause_reading(self) -> None:
        if not self.reading_paused and self._pty_open:
            self._loop.remove_reader(self.fd)
            self.reading_paused = True

    def resume_reading(self) -> None:
        if self.reading_paused and self._pty_open and not self._pty_eof and not self.resting:
            self._loop.add_reader(self.fd, self._on_readable)
            self.reading_paused = False

    def wake(self) -> None:
        """End a rest (its time is up, or a view now shows the session): read what waited in
        the PTY in one go (up to the high watermark), then rest again or read on as usual. The
        loop has not seen the PTY readable: only bytes already in the line discipline are read
        (see _on_readable); if none, the reader is back and the loop reads them when they come."""
        if not self.resting:
            return
        self.resting = False
        nbytes = 0
        while self._pty_open and not self._pty_eof and self.backlog.size < HIGH_WATERMARK and self._waiting():
            if not (got := self._read_once()):
                break
            nbytes += got
            if not self._drains(got):
                break  # the rest when the PTY is seen readable (see _on_readable)
        if self.backlog.size >= HIGH_WATERMARK:
            return  # paused for the watermark now: parsing resumes it
        if nbytes and self.hooks.read_rest is not None and self.hooks.read_rest(self, nbytes):
            self.resting = True  # still not reading: no reader to remove and add again
            return
        self.resume_reading()

    def _stop_reading(self) -> None:
        if self._pty_open and not self.reading_paused:
            self._loop.remove_reader(self.fd)
        self.reading_paused = True

    # -- parsing (driven by the scheduler) -----------------------------------------------------

    def parse_slice(self, budget: int) -> tuple[int, bytes]:
        """Feed up to `budget` unparsed bytes to the screen; return (offset, bytes)."""
        offset = self.bytes_parsed
        chunk = self.backlog.take(budget)
        try:
            self.stream.feed(chunk)
        except Exception:  # the emulator must never raise; if it does, keep the session alive
            log.exception("session %s: emulator raised on %d bytes", self.id, len(chunk))
        self.bytes_parsed += len(chunk)
        if self.reading_paused and self.backlog.size <= LOW_WATERMARK:
            self.resume_reading()
        return offset, chunk

    @property
    def descriptors(self) -> int:
        """Descriptors this session holds: its PTY until end of file, its pidfd until reaped."""
        return int(self._pty_open) + int(not self._child_reaped)

    @property
    def has_backlog(self) -> bool:
        return self.backlog.size > 0

    def drained(self) -> None:
        """The scheduler parsed everything: finish an exit that was waiting for that."""
        if self._child_reaped and self.state == "running" and not self._pty_open:
            self._finish_exit()

    # -- input -----------------------------------------------------------------------------------

    def write(self, data: bytes) -> int:
        if self.state != "running" or not self._pty_open:
            raise ProtocolError(ErrorCode.NOT_RUNNING, f"session {self.name!r} has exited")
        if len(self._outbox) + len(data) > MAX_INPUT_BACKLOG:
            raise ProtocolError(
                ErrorCode.BUSY,
                f"session {self.name!r} is not reading its input ({len(self._outbox)} bytes queued)",
            )
        if not self._outbox:
            try:
                written = os.write(self.fd, data)
            except BlockingIOError:
                written = 0
            except OSError as exc:
                raise ProtocolError(ErrorCode.NOT_RUNNING, f"session {self.name!r}: {exc.strerror}") from None
            if TRACE.on:
                TRACE.stamp("server.pty_written", self.id)
            data = data[written:]
            if not data:
                return written
            self._loop.add_writer(self.fd, self._on_writable)
        self._outbox += data
        return len(data)

    def _on_writable(self) -> None:
        try:
            written = os.write(self.fd, self._outbox)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._outbox)  # the program is gone; drop what it will never read
        del self._outbox[:written]
        self.input_written += written
        if not self._outbox:
            self._loop.remove_writer(self.fd)
        if len(self._outbox) <= INPUT_LOW:
            self._wake_input_waiters()

    @property
    def input_pending(self) -> int:
        """Input bytes queued for the program that its PTY has not taken yet."""
        return len(self._outbox)

    async def input_taken(self) -> None:
        """Return once at most INPUT_LOW input bytes are left for the program to read. `busy` if it
        reads none for INPUT_STALL seconds; `not_running` if it exits before reading them. One
        timer per stall period, armed only while someone waits."""
        dropped = self._input_dropped
        while len(self._outbox) > INPUT_LOW:
            if self._input_room is None:
                self._input_room = self._loop.create_future()
            taken = self.input_written
            try:
                await asyncio.wait_for(asyncio.shield(self._input_room), INPUT_STALL)
            except TimeoutError:
                if self.input_written == taken:
                    raise ProtocolError(
                        ErrorCode.BUSY,
                        f"session {self.name!r} read none of its input for {INPUT_STALL:g}s "
                        f"({len(self._outbox)} bytes queued)",
                    ) from None
        if self._input_dropped != dropped:
            raise ProtocolError(ErrorCode.NOT_RUNNING, f"session {self.name!r} exited before reading its input")

    def _wake_input_waiters(self) -> None:
        if self._input_room is not None:
            if not self._input_room.done():
                self._input_room.set_result(None)
            self._input_room = None

    def _answer_program(self, data: str) -> None:
        """Replies to terminal queries (DA, DSR, ...) go back to the program as input."""
        if self.state == "running" and self._pty_open:
            try:
                self.write(data.encode())
            except ProtocolError:
                pass

    # -- size ----------------------------------------------------------------------------------

    def resize(self, cols: int, rows: int) -> None:
        self.snapshot_cache = None
        self.screen.resize(rows, cols)
        if self.screen.history.pending and self._reflowing is None:
            self._reflowing = self._loop.call_soon(self._reflow_step)
        self.config.cols, self.config.rows = cols, rows
        if self._pty_open:
            try:
                set_window_size(self.fd, cols, rows)  # the kernel sends SIGWINCH
            except OSError:
                pass

    def _reflow_step(self) -> None:
        """Re-cut a bounded part of the scrollback at the new width, one step per pass of the loop
        until none is left (the visible screen was reflowed by the resize itself)."""
        self._reflowing = None
        self.reflow_steps += 1
        if self.screen.reflow_step(REFLOW_STEP):
            self._reflowing = self._loop.call_soon(self._reflow_step)

    # -- exit ----------------------------------------------------------------------------------

    def _on_child_exit(self) -> None:
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            status = 0
        code = os.waitstatus_to_exitcode(status)
        self.exit_code, self.exit_signal = (code, None) if code >= 0 else (None, -code)
        self._child_reaped = True
        self._reaped.set_result(None)
        # The session ends when its PTY reaches end of file too, as a tmux pane does: a process
        # that outlived the child (a background job that ignores SIGHUP) may still write to it,
        # and output the child wrote just before exiting may still be unread.
        if self._pty_eof:
            self._close_pty()
            if not self.has_backlog:
                self._finish_exit()

    def _close_pty(self) -> None:
        if not self._pty_open:
            return
        self.resting = False
        self._stop_reading()
        if self._outbox:
            self._loop.remove_writer(self.fd)
            self._input_dropped += len(self._outbox)
            self._outbox.clear()
        self._wake_input_waiters()
        self._pty_open = False
        os.close(self.fd)

    def _finish_exit(self) -> None:
        if self.state == "exited":
            return
        self.state = "exited"
        self.hooks.exited(self)

    async def kill(self, grace: float = KILL_GRACE) -> None:
        """SIGHUP, then SIGTERM, then SIGKILL, `grace` seconds apart, until the child is reaped;
        then the PTY is closed whoever still holds it, and unparsed output is dropped (nobody
        will look at the screen of a killed session)."""
        for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGKILL):
            if self._child_reaped:
                break
            self._signal_group(sig)
            try:
                await asyncio.wait_for(asyncio.shield(self._reaped), grace if sig != signal.SIGKILL else None)
            except TimeoutError:
                continue
        await asyncio.shield(self._reaped)
        if self.state == "running":
            self._close_pty()
            self.backlog = OutputBacklog()
            self._finish_exit()

    def _signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.pid, sig)  # the child leads its own session and process group
        except ProcessLookupError:
            pass
        except PermissionError:
            os.kill(self.pid, sig)

    # -- views -----------------------------------------------------------------------------------

    def screen_text(self) -> str:
        """The visible screen as text, a line each, trailing blanks trimmed; made once per screen
        state, however many `session.wait`s look at it."""
        key = (self.bytes_parsed, self.screen.columns, self.screen.lines)
        if self._screen_text[0] != key:
            self._screen_text = (key, "\n".join(line.rstrip() for line in self.screen.display))
        return self._screen_text[1]

    def foreground_pid(self) -> int | None:
        """The process group in the foreground of its terminal (the shell, or the program the shell
        runs); None once the terminal is closed."""
        if not self._pty_open:
            return None
        try:
            return os.tcgetpgrp(self.fd)
        except OSError:
            return None

    def info(self) -> SessionInfo:
        return SessionInfo(
            id=self.id,
            name=self.name,
            command=self.config.argv,
            cwd=self.config.cwd,
            pid=self.pid,
            state=self.state,
            exit_code=self.exit_code,
            exit_signal=self.exit_signal,
            cols=self.config.cols,
            rows=self.config.rows,
            created=self.created,
            bytes_out=self.bytes_read,
            title=self.title,
            background_nice=self.config.background_nice,
            nice=None if self.cpu is None or not self.cpu.grouped else self.cpu.applied,
            quiet_since=self.quiet_since,
            background_idle=self.config.background_idle and self.cpu is not None and self.cpu.idle,
            idle=self.cpu is not None and self.cpu.lowered is not None,
        )
