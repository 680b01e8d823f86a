"""Drive a program in a real pseudo-terminal and read what it draws through a terminal emulator.

`Terminal(argv, cols=80, rows=24)` spawns `argv` on a fresh PTY of that size (the child is a session
leader with the PTY as its controlling terminal). A background thread reads everything the program
writes, dating each chunk as it reads it, and a second one feeds the chunks to a stock pyte screen
(so a chunk is not read late while pyte parses the one before); `wait_for` blocks on a condition
variable that the parsing thread signals after every chunk, so waiting costs nothing and reacts as
soon as the bytes are parsed (no sleep-polling). Replies to terminal queries (DA, DSR/cursor
position) go back to the program, like a real terminal would send them.

Like a terminal that supports synchronized output (mode 2026, as kitty, foot, WezTerm and iTerm2
do), it shows whole frames: between `CSI ? 2026 h` and `CSI ? 2026 l` the screen being drawn is not
what `display`, `text` and `cursor` report, and awaited conditions are checked when the update
ends. (A program that never enables the mode is seen after every chunk read, as before.)

The e2e tests of the TUI and the latency benchmark both use this. `wait_for` returns the monotonic
time at which the chunk that made the predicate true was read from the PTY, so a benchmark can measure
keystroke-to-screen latency without counting how long the waiting thread took to wake up.
"""

from __future__ import annotations

import errno
import os
import re
import selectors
import signal
import sys
import termios
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pyte
from ptyprocess import PtyProcess

Predicate = Callable[["Terminal"], bool]

# One read from the PTY: as much as the kernel has, up to this (bounds the work per feed).
_READ_SIZE = 65536
# The reading thread takes the GIL back after each read before it can stamp it: with the parsing
# thread holding it, that waits for the interpreter's switch interval (5 ms by default).
_SWITCH_INTERVAL = 0.0002
_INBOX_LIMIT = 1 << 20  # bytes read and not yet parsed, at most (about)
SYNC_MODE = 2026 << 5  # pyte keeps DEC private modes it does not know in `mode`, shifted so
# Feeds are split before each start and after each end of a synchronized update.
_SYNC_EDGES = re.compile(rb"(?=\x1b\[\?2026h)|(?<=\x1b\[\?2026l)")


_OSC_END = re.compile(rb"\x07|\x1b\\")
_OSC_TAIL = 4 << 20  # an unfinished OSC string kept at most (the TUI's clipboard bound is 1 MiB of text)
OSC_KEPT = 10_000  # OSC strings kept


class TerminalClosed(Exception):
    """The program exited (or the terminal was closed) before the awaited output appeared."""


class Expectation:
    """Something awaited on the screen; registered by `Terminal.expect`, checked after every chunk."""

    def __init__(self, term: Terminal, what: str | Predicate) -> None:
        self.term = term
        self.what = what
        self.satisfied_at: float | None = None
        self.error: BaseException | None = None

    def check(self, now: float, changed: set[int] | None) -> None:
        # Runs under the screen lock (on the parsing thread after a chunk, with the lines it changed).
        # A predicate that raises is reported to its waiter, not lost on the parsing thread.
        if self.satisfied_at is not None or self.error is not None:
            return
        try:
            if self._matches(changed):
                self.satisfied_at = now
        except Exception as e:
            self.error = e

    def _matches(self, changed: set[int] | None) -> bool:
        if not isinstance(self.what, str):
            return bool(self.what(self.term))
        screen = self.term.screen
        if "\n" in self.what:  # a multi-line text matches against the trimmed lines joined by newlines
            return self.what in "\n".join(_line(screen, y).rstrip() for y in range(screen.lines))
        lines = range(screen.lines) if changed is None else sorted(y for y in changed if y < screen.lines)
        return any(self.what in _line(screen, y) for y in lines)

    def wait(self, timeout: float = 10.0) -> float:
        """Block until satisfied; return the monotonic time its chunk was read (see wait_for)."""
        term = self.term
        deadline = time.monotonic() + timeout
        with term._cond:
            try:
                while self.satisfied_at is None:
                    if self.error is not None:
                        raise self.error
                    if term._eof:
                        raise TerminalClosed(f"output ended before {self.what!r} appeared:\n{term._dump()}")
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise TimeoutError(f"{self.what!r} did not appear within {timeout}s:\n{term._dump()}")
                    term._cond.wait(remaining)
                return self.satisfied_at
            finally:
                self.cancel()

    def cancel(self) -> None:
        with self.term._cond:
            if self in self.term._waiters:
                self.term._waiters.remove(self)


class Terminal:
    """A program running in a real PTY of `cols` x `rows`, seen through a pyte screen."""

    def __init__(
        self,
        argv: Sequence[str],
        cols: int = 80,
        rows: int = 24,
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        answer_queries: bool = True,
        emulate: bool = True,
    ) -> None:
        full_env = dict(os.environ if env is None else env)
        full_env.setdefault("TERM", "xterm-256color")
        if "LANG" not in full_env and "LC_ALL" not in full_env:
            full_env["LANG"] = "C.UTF-8"
        self.argv = list(argv)
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)
        # emulate=False: a fast sink that only counts bytes (for throughput runs, where stock pyte
        # would be the bottleneck); the screen then stays blank and only predicates on counts work.
        self.emulate = emulate
        if answer_queries:
            self.screen.write_process_input = self._answer  # type: ignore[method-assign]
        # Reentrant: predicates run under the lock and may read `display` (which takes it too).
        self._cond = threading.Condition(threading.RLock())
        self._waiters: list[Expectation] = []
        self._eof = False
        self._closed = False
        self.bytes_read = 0
        self.last_read_at: float | None = None
        self.frames = 0  # synchronized updates completed (what a terminal with mode 2026 shows)
        # While a synchronized update is drawn: the last whole frame's lines and cursor.
        self._shown: tuple[list[str], tuple[int, int]] | None = None
        self._changed: set[int] = set()  # lines changed since waiters were last checked
        # The OSC strings the program wrote (pyte drops most: clipboard, hyperlinks), the newest
        # OSC_KEPT in order, and the unfinished one a read ended in.
        self.osc: deque[str] = deque(maxlen=OSC_KEPT)
        self._osc_tail = b""
        self._proc = PtyProcess.spawn(
            self.argv, env=full_env, cwd=None if cwd is None else os.fspath(cwd), dimensions=(rows, cols)
        )
        self._proc.delayafterclose = 0.0  # no sleeps in ptyprocess.close(): we reap explicitly
        self._fd: int = self._proc.fd
        self._wake_r, self._wake_w = os.pipe()
        # Reads go to the parser through `_inbox`, each dated as it is read (None: the output
        # ended): pyte parses a chunk more slowly than a program writes one, and a reader that
        # parsed would read (and date) the next chunk only once it had parsed the one before.
        self._inbox: deque[tuple[bytes, float] | None] = deque()
        self._inbox_ready = threading.Condition()
        self._inbox_bytes = 0
        self._reader = threading.Thread(target=self._read_loop, name=f"pty-reader-{self.pid}", daemon=True)
        self._parser = threading.Thread(target=self._parse_loop, name=f"pty-parser-{self.pid}", daemon=True)
        if sys.getswitchinterval() > _SWITCH_INTERVAL:
            sys.setswitchinterval(_SWITCH_INTERVAL)  # (for the whole process: the probe's own)
        self._reader.start()
        self._parser.start()

    # -- the program ---------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        return int(self._proc.pid)

    @property
    def exited(self) -> bool:
        """True once the PTY reached end of file (the program and everything holding it exited)."""
        with self._cond:
            return self._eof

    @property
    def exit_status(self) -> int | None:
        """The exit code (or -signal) once the child has been reaped, else None."""
        if self._proc.isalive():
            return None
        if self._proc.signalstatus is not None:
            return -int(self._proc.signalstatus)
        return None if self._proc.exitstatus is None else int(self._proc.exitstatus)

    def write(self, data: bytes | str) -> None:
        """Type `data` into the program (what a user's keystrokes would send)."""
        buf = data.encode() if isinstance(data, str) else data
        view = memoryview(buf)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]

    def resize(self, cols: int, rows: int) -> None:
        """Resize the PTY (the program gets SIGWINCH) and the screen we read it through."""
        with self._cond:
            self.screen.resize(rows, cols)
        self._proc.setwinsize(rows, cols)

    def tty_attributes(self) -> list[Any]:
        """The PTY's termios attributes (`termios.tcgetattr`: iflag, oflag, cflag, lflag, …), read
        through its master side: what the program left the terminal's line discipline in."""
        return termios.tcgetattr(self._fd)

    # -- what it draws -------------------------------------------------------------------------

    @property
    def display(self) -> list[str]:
        """The visible screen, one string per line (padded to the width, like pyte)."""
        with self._cond:
            return list(self._shown[0]) if self._shown is not None else list(self.screen.display)

    @property
    def text(self) -> str:
        """The visible screen as one string, lines joined by newlines, trailing blanks trimmed."""
        return "\n".join(line.rstrip() for line in self.display)

    @property
    def cursor(self) -> tuple[int, int]:
        """(x, y) of the cursor, 0-based."""
        with self._cond:
            return self._shown[1] if self._shown is not None else (self.screen.cursor.x, self.screen.cursor.y)

    def expect(self, what: str | Predicate) -> Expectation:
        """Start awaiting `what` now; `.wait()` later. Register before writing the input that
        causes it, so the writer thread sleeps (rather than scanning the screen) while the answer
        comes in, and no chunk can slip by between the write and the wait."""
        expectation = Expectation(self, what)
        with self._cond:
            if self._shown is None:  # else it is checked when the update in progress ends
                expectation.check(time.monotonic(), None)
            if expectation.satisfied_at is None:
                self._waiters.append(expectation)
        return expectation

    def wait_for(self, what: str | Predicate, timeout: float = 10.0) -> float:
        """Block until `what` is on the screen (a string, within one line unless it holds newlines)
        or `what(self)` is true (a predicate).

        Returns the monotonic time at which the chunk that satisfied it was read from the PTY (or
        the current time if it was already satisfied). Raises TimeoutError after `timeout` seconds
        and TerminalClosed if the program's output ended first; both messages show the screen.
        The predicate runs on the parsing thread after each chunk, under the screen lock: keep it
        cheap and do not call `write` from it.
        """
        return self.expect(what).wait(timeout)

    def wait_bytes(self, count: int, timeout: float = 10.0) -> None:
        """Block until the program has written at least `count` bytes, whatever they draw (also in
        the middle of a synchronized update, when awaited conditions are not checked)."""
        with self._cond:
            if not self._cond.wait_for(lambda: self.bytes_read >= count or self._eof, timeout):
                raise TimeoutError(f"{count} bytes did not arrive within {timeout}s ({self.bytes_read} did)")

    def wait_exit(self, timeout: float = 10.0) -> int | None:
        """Wait until the program's output ends (it exited), reap it, and return its exit status."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._eof:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"{self.argv!r} did not exit within {timeout}s:\n{self._dump()}")
                self._cond.wait(remaining)
        self._proc.wait()
        return self.exit_status

    def close(self, timeout: float = 5.0) -> None:
        """End the program (SIGHUP, as a closing terminal would; SIGKILL if it lingers) and reap it."""
        if self._closed:
            return
        self._closed = True
        if self._proc.isalive():
            self._signal_group(signal.SIGHUP)
            with self._cond:
                self._cond.wait_for(lambda: self._eof, timeout)
            if self._proc.isalive():
                self._signal_group(signal.SIGKILL)
        try:
            self._proc.wait()
        except Exception:  # already reaped by isalive()
            pass
        os.write(self._wake_w, b"x")
        self._reader.join(timeout)
        self._parser.join(timeout)
        self._proc.close(force=True)
        os.close(self._wake_r)
        os.close(self._wake_w)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- internals -----------------------------------------------------------------------------

    def _signal_group(self, sig: int) -> None:
        # The child leads its own session and process group: signal everything it started in it.
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            pass
        except PermissionError:
            os.kill(self.pid, sig)

    def _answer(self, data: str) -> None:
        # Called by pyte (on the parsing thread) to reply to a query: send it to the program.
        try:
            self.write(data.encode())
        except OSError:
            pass

    def _dump(self) -> str:
        return "\n".join(f"|{line}|" for line in self.screen.display)

    def _read_loop(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._fd, selectors.EVENT_READ)
        sel.register(self._wake_r, selectors.EVENT_READ)
        try:
            while True:
                ready = {key.fd for key, _ in sel.select()}
                if self._wake_r in ready:
                    break
                try:
                    data = os.read(self._fd, _READ_SIZE)
                except OSError as e:
                    if e.errno in (errno.EIO, errno.EBADF):  # EIO: every slave fd closed
                        break
                    raise
                if not data:
                    break
                now = time.monotonic()
                with self._inbox_ready:
                    self._inbox.append((data, now))
                    self._inbox_bytes += len(data)
                    self._inbox_ready.notify_all()
                    # Bounded: past it the reader waits for the parser (and the program, for its PTY).
                    self._inbox_ready.wait_for(lambda: self._inbox_bytes < _INBOX_LIMIT)
        finally:
            sel.close()
            with self._inbox_ready:
                self._inbox.append(None)
                self._inbox_ready.notify()

    def _parse_loop(self) -> None:
        while True:
            with self._inbox_ready:
                self._inbox_ready.wait_for(lambda: self._inbox)
                reads = list(self._inbox)
                self._inbox.clear()
                self._inbox_bytes = 0
                self._inbox_ready.notify_all()
            with self._cond:
                for read in reads:
                    if read is None:
                        self._eof = True
                        self._cond.notify_all()
                        return
                    data, now = read
                    self._collect_osc(data)
                    self.bytes_read += len(data)
                    self.last_read_at = now
                    for piece in _SYNC_EDGES.split(data) if self.emulate else [b""]:
                        self._feed(piece, now)
                self._cond.notify_all()

    @property
    def clipboard(self) -> list[str]:
        """The payloads (`c;BASE64`) of the clipboard escapes (OSC 52) the program wrote."""
        with self._cond:
            return [osc[3:] for osc in self.osc if osc.startswith("52;")]

    def _collect_osc(self, data: bytes) -> None:
        buf = self._osc_tail + data
        while (start := buf.find(b"\x1b]")) >= 0:
            end = _OSC_END.search(buf, start + 2)
            if end is None:
                self._osc_tail = buf[start:][-_OSC_TAIL:]
                return
            self.osc.append(buf[start + 2 : end.start()].decode(errors="replace"))
            buf = buf[end.end() :]
        self._osc_tail = buf[-1:]  # an introducer cut by the read

    def _feed(self, piece: bytes, now: float) -> None:
        # Under the lock, on the parsing thread. A piece is at most one synchronized update.
        screen = self.screen
        if piece.startswith(b"\x1b[?2026h") and SYNC_MODE not in screen.mode:
            self._shown = (list(screen.display), (screen.cursor.x, screen.cursor.y))
        if piece:
            self._stream.feed(piece)
        self._changed.update(screen.dirty)  # pyte marks every line a chunk touched
        screen.dirty.clear()
        if SYNC_MODE in screen.mode:
            return  # mid-frame: the terminal still shows the last one
        if self._shown is not None:
            self._shown = None
            self.frames += 1
        changed, self._changed = self._changed, set()
        for waiter in list(self._waiters):
            waiter.check(now, changed)


def _line(screen: pyte.Screen, y: int) -> str:
    # Cheaper than pyte's `display` (no per-cell wcwidth): a wide character's second cell holds "".
    row = screen.buffer[y]
    return "".join(row[x].data for x in range(screen.columns))
