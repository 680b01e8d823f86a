"""The TUI host: a process with the TUI already imported that runs it on the caller's terminal.

Importing Textual takes most of a `termux attach`. The host is a process that has imported it
once and then waits in `select` (no timer: idle, it costs nothing). `termux`, `termux attach` and
`termux new` first try the host (`command_line`, standard library only, before the command line
is even loaded): they pass their terminal's descriptors (stdin, stdout, stderr) over the host's
socket with SCM_RIGHTS, with their command line, environment and working directory; the host
forks a child that runs that command line (`termux.cli.main`) on those descriptors, while the
caller waits on the socket, relays its signals (a resize, a hang-up, SIGTERM) to the child and
returns the child's exit status. docs/architecture.md, "The TUI host", has the whole story.

- **Who starts it**: a TUI that found no host runs in its own process, as before, and forks the
  host from itself as it leaves (`start_host`): nothing is imported twice, and nothing anyone
  waits for pays for the fork. One host per server socket, at `SOCKET.tui2`, in the server's
  directory (so the same directory checks apply), with a lock (`SOCKET.tui2.lock`) held for its
  life: of two TUIs racing to fork one, the second's host finds the lock taken and leaves.
- **How long it lives**: as long as its server. It watches the server's process (a pidfd) and
  leaves, removing its socket, when the server exits.
- **Stale or missing**: no socket, or one nobody listens on (a killed host): the caller runs the
  command itself. A host of another build (`IDENTITY`: version, interpreter, where termux is
  imported from) answers `stale` and leaves; a command line naming another server than the
  host's is handed back by the child (`elsewhere`); the caller runs it itself either way.
- **Security**, as the server's socket: the host refuses a caller of another uid (SO_PEERCRED)
  before reading anything from it, and the caller refuses a host of another uid before sending
  anything (its terminal least of all).
- **The child** is in a session of its own (the caller's terminal stays the caller's controlling
  terminal, so the shell's job control is undisturbed). The terminal is in raw mode while the
  TUI runs, so ctrl+c and ctrl+z are keys for the focused session, as in-process; the signals
  the kernel sends the caller's process group (SIGWINCH, SIGHUP) and those sent to the caller
  are relayed over the socket and raised in the child. The child's end of the socket closing
  after it said the TUI started, without an exit status, means it died: the caller restores the
  terminal (the modes it saved, the main screen, the cursor, mouse and paste reporting off). The
  caller's end closing means the caller died: the child leaves as on a hang-up. The host dying
  changes nothing for a running child: the caller talks to the child itself.
"""

from __future__ import annotations

# `_socket` and `_signal`, not `socket` and `signal`: the caller imports this module, and those
# build enums of their constants at import (the host's own side, which accepts callers, imports
# `socket`).
import _signal
import _socket
import errno
import os
import select
import struct
import sys

from termux import __version__

TYPE_CHECKING = False  # the caller's side imports neither typing nor pathlib
if TYPE_CHECKING:
    import socket
    from pathlib import Path
    from typing import Any

# The host's socket, SOCKET.tui2 beside the server's: "2" is its wire's version (`_hello`), so that a
# host and a caller of different wires never meet (after an upgrade, the server's old host goes on
# serving old callers; a new caller starts a host of its own).
HOST_SUFFIX = "tui2"
# The build a host runs: a caller of another build must not run the host's code.
# (The installation's prefix, not the interpreter's path: `python` and `python3` of one venv are one build.)
IDENTITY = f"termux {__version__} {sys.prefix} {os.path.dirname(os.path.dirname(__file__))}"
MAX_HELLO = 1 << 20  # bytes of the caller's hello (its environment is most of it)
MAX_ANSWER = 1 << 16  # bytes of an answer line to the caller
HELLO_TIMEOUT = 5.0  # seconds a caller may take to send its hello, and the host to answer it
EXIT_WAIT = 2.0  # seconds a caller waits, after the exit status, for the child to close its end
LISTEN_BACKLOG = 16
# The signals a caller relays to the child: its process group's (a resize, a hang-up) and the
# ones that end a TUI.
RELAYED = (_signal.SIGWINCH, _signal.SIGHUP, _signal.SIGTERM, _signal.SIGINT, _signal.SIGQUIT)
# What the caller writes to its terminal when the child died without leaving it: the TUI's own
# way out (Textual's stop_application_mode) and every mode it may have turned on.
RESTORE = (
    "\x1b[<u"  # kitty keyboard protocol off
    "\x1b[?1049l"  # the main screen
    "\x1b[?25h"  # the cursor shown
    "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1015l\x1b[?1006l"  # mouse reporting off
    "\x1b[?1004l"  # focus reporting off
    "\x1b[?2004l"  # bracketed paste off
    "\x1b[?2048l"  # in-band resize reports off
    "\x1b[?7h"  # line wrap on
)


def host_path(server: str | Path) -> str:
    return f"{server}.{HOST_SUFFIX}"


def enabled() -> bool:
    """`TERMUX_TUI_HOST=0` turns the host off: every TUI imports its own (benchmarks that
    measure the TUI's own process use it)."""
    return os.environ.get("TERMUX_TUI_HOST", "1") != "0"


def _peer_uid(sock: _socket.socket) -> tuple[int, int]:
    """(pid, uid) of the socket's peer, from the kernel."""
    pid, uid, _gid = struct.unpack("3i", sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12))
    return pid, uid


# -- the wire between a caller and its host: what the caller needs of it loads nothing (no json, no re)
#
# The hello (a caller's, with its terminal's descriptors; the host hands it to a spare the same
# way): its length (4 bytes, big-endian), then fields separated by NUL: the identity, the working
# directory, the output encoding, the number of command-line words, the words, then the
# environment's entries (KEY=VALUE). None of them can hold a NUL (POSIX), and os.fsencode keeps
# the bytes a name or value had that do not decode. An answer (the host's or its child's, to the
# caller) is a line: a word, then what it says: `forked`, `stale IDENTITY`, `refused MESSAGE`,
# `started PID`, `elsewhere SOCKET`, `exit STATUS`.
_LENGTH = struct.Struct("!I")


def _hello(argv: list[str], env: dict[str, str], cwd: str, encoding: str, identity: str = IDENTITY) -> bytes:
    fields = [identity, cwd, encoding, str(len(argv)), *argv, *(f"{key}={value}" for key, value in env.items())]
    payload = b"\0".join(map(os.fsencode, fields))
    return _LENGTH.pack(len(payload)) + payload


def _hello_of(payload: bytes) -> dict[str, Any] | None:
    """A hello's fields by name, or None for a malformed one."""
    fields = [os.fsdecode(field) for field in payload.split(b"\0")]
    count = fields[3] if len(fields) >= 4 else ""
    # (ASCII digits, at most 9: str.isdigit takes "²", which int() refuses, and more words than
    # that cannot be there anyway.)
    if not (count.isascii() and count.isdigit() and len(count) <= 9) or len(fields) < 4 + int(count):
        return None
    identity, cwd, encoding = fields[:3]
    words = 4 + int(count)
    # (An entry with no name, which execve allows and no process can set, is left out.)
    env = {key: value for key, _, value in (entry.partition("=") for entry in fields[words:]) if key}
    return {"identity": identity, "cwd": cwd, "encoding": encoding, "argv": fields[4:words], "env": env}


def _answer(word: str, says: object = "") -> bytes:
    return os.fsencode(f"{word} {says}".replace("\n", " ")) + b"\n"


# -- the caller (`termux`, `termux attach`): standard library only --------------------------------


class HostRefused(Exception):
    """The host's socket is another user's: nothing was sent to it."""


def command_line(argv: list[str]) -> int | None:
    """`termux ARGV` through the host, when ARGV may run the TUI (no verb, `attach`, `new`): the
    exit status, or None when there is no usable host (none answers, a stale one, one that died
    before starting anything, or one of another server than ARGV names); the terminal is
    untouched then and the caller runs ARGV itself. The host's child parses ARGV with the whole
    command line; this side only finds the host, with the standard library."""
    from termux.argv import TUI_VERBS, socket_options, verb_named

    if not enabled() or not os.isatty(0) or verb_named(argv) not in TUI_VERBS:
        return None
    from termux.paths import SocketDirError, socket_file

    try:
        server = socket_file(*socket_options(argv))
    except SocketDirError:
        return None  # the command line says what is wrong with it
    sock = _connect(host_path(server))
    if sock is None:
        return None
    try:
        pid, uid = _peer_uid(sock)
        from termux.trace import TRACE

        if TRACE.on:
            TRACE.mark("caller.connected")
        if uid != os.getuid():
            raise HostRefused(
                f"the TUI host on {host_path(server)} runs as uid {uid}, pid {pid}, not as you"
                f" (uid {os.getuid()}); refusing to talk to it"
            )
        return _attached(sock, argv)
    finally:
        sock.close()


def _connect(path: str) -> _socket.socket | None:
    """A socket connected to the host at `path`, or None: none listens there (a killed host's
    socket), or its queue of callers is full (a host stopped or busy: a blocking connect would
    wait for it as long as it takes)."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_CLOEXEC | _socket.SOCK_NONBLOCK)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return None
    sock.setblocking(True)
    return sock


def _attached(sock: _socket.socket, argv: list[str]) -> int | None:
    import termios

    saved = termios.tcgetattr(0)
    try:
        cwd = os.getcwd()
    except OSError:  # removed: the TUI runs here, where it needs none
        return None
    hello = _hello(argv, dict(os.environ), cwd, sys.stdout.encoding)
    try:
        sock.sendmsg([hello], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("3i", 0, 1, 2))])
    except OSError:
        return None
    reader = _Lines(sock)
    sock.settimeout(HELLO_TIMEOUT)
    try:
        answer = reader.next()
    except OSError:  # no answer in time: a host that hangs is no host
        return None
    from termux.trace import TRACE

    if TRACE.on:
        TRACE.mark("caller.answered")
    if answer is None or answer[0] != "forked":
        return None  # it died first, or is stale (and leaves): run the command here
    sock.settimeout(None)  # from here on the child answers, as late as the command takes

    def relay(sig: int, _frame: object) -> None:
        try:
            sock.send(b"%d\n" % sig)
        except OSError:
            pass

    previous = {sig: _signal.signal(sig, relay) for sig in RELAYED}
    started = False
    try:
        while (message := reader.next()) is not None:
            word, says = message
            if word == "exit" and says.lstrip("-").isdigit():
                _until_closed(sock)
                return int(says)
            if word == "elsewhere":
                return None  # ARGV names another server than this host's
            started = started or word == "started"
    finally:
        for sig, handler in previous.items():
            _signal.signal(sig, handler)
    if not started:
        return None  # the child died before it touched the terminal
    # The TUI is gone without a word (killed): give the terminal back as it would have. Each step
    # on its own: one failing (the terminal gone, a mode the TUI left on it) does not skip the next.
    try:
        termios.tcsetattr(0, termios.TCSADRAIN, saved)
    except (OSError, termios.error):
        pass
    restore = RESTORE.encode() + b"[lost the TUI: it ended without a status]\r\n"
    try:
        os.set_blocking(1, True)  # (in case the TUI left the terminal's description non-blocking)
        while restore:
            restore = restore[os.write(1, restore) :]
    except OSError:
        pass
    return 1


def _until_closed(sock: _socket.socket) -> None:
    """After the exit status: wait (bounded) until the child has closed its end, so the TUI has let
    go of the terminal before the caller's shell prints its prompt."""
    sock.settimeout(EXIT_WAIT)
    try:
        while sock.recv(4096):
            pass
    except OSError:
        pass


# -- the host's child, running a caller's command line --------------------------------------------

_caller: _socket.socket | None = None  # in a host's child: the socket to its caller
_served: Path | None = None  # in a host's child: the server its host serves


def serving() -> bool:
    """True in a host's child."""
    return _caller is not None


def caller_for(server: Path) -> int:
    """In a host's child about to run the TUI for `server`: tells the caller the TUI starts and
    returns the socket to watch (`run(watch=...)`). For another server than the host's, tells
    the caller to run its command itself, and leaves."""
    assert _caller is not None
    if server != _served:
        _caller.sendall(_answer("elsewhere", server))
        os._exit(0)
    _caller.sendall(_answer("started", os.getpid()))
    return _caller.fileno()


class _Lines:
    """Answers from a socket, read in pieces of what arrived."""

    def __init__(self, sock: _socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def next(self) -> tuple[str, str] | None:
        """The next answer: its word and what it says; None at end of input (or past a line
        longer than MAX_ANSWER: no host says that much)."""
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_ANSWER:
                return None
            try:
                data = self.sock.recv(4096)
            except ConnectionResetError:
                data = b""
            if not data:
                return None
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        word, _, says = os.fsdecode(line).partition(" ")
        return word, says


# -- the host --------------------------------------------------------------------------------------


def start_host(server: Path) -> None:
    """Fork a host for `server` from this process (its TUI modules imported, its TUI done, the
    server answering); returns once it listens (or gave up), so that the next attach finds it.
    The host is a daemon: a session of its own, no terminal. Not from a process with other
    threads running: a fork keeps only this one, and whatever locks the others held."""
    import threading

    if threading.active_count() > 1:
        return
    import termux.tui.copyview  # noqa: F401  # (the TUI imports copy mode when it is first used: once, for every child)

    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(ready_w)
        os.waitpid(pid, 0)  # the intermediate process exits as soon as it has forked the host
        select.select([ready_r], [], [], HELLO_TIMEOUT)  # "ready", or closed: it gave up
        os.close(ready_r)
        return
    status = 0
    try:
        os.close(ready_r)
        os.setsid()
        if os.fork() == 0:
            Host(server, ready_w).serve()
    except BaseException:  # nothing to report to: the host just does not exist
        status = 1
    finally:
        os._exit(status)


class Host:
    """The host's loop: accept callers, fork a TUI for each, until the server goes away."""

    def __init__(self, server: Path, ready: int) -> None:
        from pathlib import Path  # (the host's side: no caller comes here)

        self.server = server
        self.ready = ready  # written once listening (closed unwritten if it gives up)
        self.path = Path(host_path(server))
        self.listener: socket.socket | None = None
        self.server_exit = -1  # a pidfd on the server's process: readable when it exits
        self.lock = -1
        # The spare: a child forked ahead of the next caller, its pages its own already
        # (`_spare`), waiting on this socket for a caller's terminal. None: the next caller's
        # child is forked when it comes. `waking`: the socket of the spare that took the last
        # caller, readable once its TUI drew its first frame (or died): the next spare is forked
        # then, not while that TUI starts.
        self.spare: _socket.socket | None = None
        self.waking: _socket.socket | None = None

    def serve(self) -> None:
        """Set up (or leave if another host runs), then serve. Never returns."""
        self._detach()
        if not self._claim():
            os._exit(0)
        os.write(self.ready, b"ready")
        os.close(self.ready)
        from termux.heap import freeze_survivors

        freeze_survivors()  # what the TUI it was forked from left is freed, the rest frozen
        try:
            self._fork_spare()
            self._loop()
        finally:
            self._remove_socket()
        os._exit(0)

    def _host_fds(self) -> tuple[int, ...]:
        """The host's own descriptors, which its children close (the lock must not outlive it)."""
        assert self.listener is not None
        own = [self.listener.fileno(), self.server_exit, self.lock]
        return tuple(fd for fd in (*own, *(s.fileno() for s in (self.spare, self.waking) if s is not None)) if fd >= 0)

    def _fork_spare(self) -> None:
        """Fork the next caller's child now (`_spare`); it makes the pages it will write its own
        while nobody waits for it. Not with `TERMUX_TUI_SPARE=0` in the host's environment (the
        first TUI's): a spare costs the memory of a TUI while nobody is attached."""
        if self.spare is not None or os.environ.get("TERMUX_TUI_SPARE", "1") == "0":
            return
        ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            pid = os.fork()
        except OSError:
            ours.close()
            theirs.close()
            return
        if pid == 0:
            try:
                ours.close()
                _spare(theirs, self.server, self._host_fds())
            finally:
                os._exit(1)  # (never the host's loop in a second process)
        theirs.close()
        self.spare = ours

    def _detach(self) -> None:
        """Drop what the forking TUI held: its terminal, its descriptors, its signal handlers."""
        from termux.paths import log_path, open_side_file

        os.chdir("/")
        null = os.open(os.devnull, os.O_RDWR)
        try:
            log = open_side_file(log_path(self.server), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except Exception:
            log = null
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(log, 2)
        os.closerange(3, self.ready)
        os.closerange(self.ready + 1, _fd_limit())
        for sig in range(1, _signal.NSIG):  # every handler the TUI (and Textual: SIGTSTP, SIGCONT) set
            try:
                if callable(_signal.getsignal(sig)):
                    _signal.signal(sig, _signal.SIG_DFL)
            except (OSError, ValueError):  # (not a signal a handler can be set for)
                pass
        _signal.signal(_signal.SIGCHLD, _signal.SIG_IGN)  # the kernel reaps the TUIs it forks

    def _claim(self) -> bool:
        """Take the lock, find the server's process, listen. False: another host runs, or
        there is no server to serve."""
        import fcntl
        import socket

        from termux.client import Client, TermuxError
        from termux.paths import open_side_file, side_path

        self.lock = open_side_file(side_path(self.path, "lock"), os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        try:
            with Client.connect(self.server, autostart=False) as client:
                with socket.fromfd(client.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    pid, _uid = _peer_uid(sock)
                self.server_exit = os.pidfd_open(pid)
                client.request("server.hello")  # the pid is still the server's: it answered after
        except (TermuxError, OSError):
            return False
        # Holding the lock, any socket here is a dead host's (ours: the directory is checked).
        try:
            if self.path.lstat().st_uid != os.getuid():
                return False
            self.path.unlink()
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        listener.bind(str(self.path))
        os.chmod(self.path, 0o600)
        listener.listen(LISTEN_BACKLOG)
        self.listener = listener
        return True

    def _loop(self) -> None:
        assert self.listener is not None
        while True:
            watched = [self.listener.fileno(), self.server_exit]
            watched += [s.fileno() for s in (self.spare, self.waking) if s is not None]
            readable, _, _ = select.select(watched, [], [])
            if self.server_exit in readable:
                return
            # (Both read before either is closed: a new spare's socket may take a closed one's number.)
            drawn = self.waking is not None and self.waking.fileno() in readable
            if self.spare is not None and self.spare.fileno() in readable:
                self.spare.close()  # the spare died: the next caller's child is forked for it
                self.spare = None
            if drawn and self.waking is not None:
                self.waking.close()  # its TUI drew its first frame, or died: the next spare now
                self.waking = None
                self._fork_spare()
            if self.listener.fileno() not in readable:
                continue
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            with conn:
                if self._serve_caller(conn) == "stale":
                    return

    def _serve_caller(self, conn: _socket.socket) -> str:
        """Check the caller, read its hello and terminal, fork its TUI."""
        pid, uid = _peer_uid(conn)
        if uid != os.getuid():
            print(f"termux TUI host: refused a caller with uid {uid} (pid {pid})", file=sys.stderr, flush=True)
            try:
                conn.sendall(_answer("refused", "this TUI host belongs to another user"))
            except OSError:
                pass
            return "refused"
        conn.settimeout(HELLO_TIMEOUT)
        fds: list[int] = []
        try:
            hello = self._read_hello(conn, fds)
            if hello is None or len(fds) != 3:
                return "bad"
            if hello.get("identity") != IDENTITY:
                conn.sendall(_answer("stale", IDENTITY))
                return "stale"
            conn.sendall(_answer("forked"))  # before the child writes anything
            if self._hand_over(conn, fds, hello):
                return "started"
            if os.fork() == 0:
                _run_child(conn, fds, hello, self.server, self._host_fds())
            return "started"
        except OSError:
            return "bad"
        finally:
            for fd in fds:
                os.close(fd)

    def _hand_over(self, conn: _socket.socket, fds: list[int], hello: dict[str, Any]) -> bool:
        """Give the caller (its socket, its terminal, its hello) to the spare; False when there
        is none (or it died): the caller's child is forked now."""
        spare, self.spare = self.spare, None
        if spare is None:
            return False
        try:
            words = _hello(hello["argv"], hello["env"], hello["cwd"], hello["encoding"], hello["identity"])
            spare.sendmsg([words], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("4i", conn.fileno(), *fds))])
        except OSError:
            spare.close()
            return False
        if self.waking is not None:
            self.waking.close()
        self.waking = spare
        return True

    @staticmethod
    def _read_hello(conn: _socket.socket, fds: list[int], count: int = 3) -> dict[str, Any] | None:
        """A hello (`_hello`) and the `count` descriptors sent with it (into `fds`); None for one
        malformed, longer than MAX_HELLO (then no more of it is read) or whose rest does not come
        within HELLO_TIMEOUT of its first bytes (a caller sending a byte now and then would
        otherwise hold the host)."""
        import time

        data, ancillary, _flags, _addr = conn.recvmsg(
            65536, _socket.CMSG_SPACE(count * struct.calcsize("i")), _socket.MSG_CMSG_CLOEXEC
        )
        deadline = time.monotonic() + HELLO_TIMEOUT
        for level, kind, payload in ancillary:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                usable = len(payload) - len(payload) % struct.calcsize("i")
                fds.extend(struct.unpack(f"{usable // 4}i", payload[:usable]))
        while len(data) < _LENGTH.size or len(data) < _LENGTH.size + _LENGTH.unpack_from(data)[0]:
            left = deadline - time.monotonic()
            if left <= 0 or (len(data) >= _LENGTH.size and _LENGTH.unpack_from(data)[0] > MAX_HELLO):
                return None
            conn.settimeout(left)
            more = conn.recv(65536)
            if not more:
                return None
            data += more
        (length,) = _LENGTH.unpack_from(data)
        return _hello_of(data[_LENGTH.size : _LENGTH.size + length])

    def _remove_socket(self) -> None:
        try:
            if self.listener is not None:
                self.path.unlink()
        except FileNotFoundError:
            pass


def _fd_limit() -> int:
    import resource

    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def _spare(control: _socket.socket, server: Path, host_fds: tuple[int, ...]) -> None:
    """In a spare (forked by the host ahead of a caller): make the pages this process will write
    its own now (`_own_pages`), then wait on `control` for a caller (its socket and terminal
    descriptors, its hello) and run its command line (`_run_child`). The host gone first (end of
    input): leave. Never returns."""
    global _control
    for fd in host_fds:
        os.close(fd)
    _own_pages()
    fds: list[int] = []
    try:
        hello = Host._read_hello(control, fds, 4)
    except OSError:
        hello = None
    if hello is None or len(fds) != 4:
        os._exit(0)
    _control = control  # told when the first frame is drawn (`first_frame_drawn`)
    conn = _socket.socket(fileno=fds[0])
    _run_child(conn, fds[1:], hello, server, ())


def _own_pages() -> None:
    """Copy now the pages shared with the host that a TUI writes: a child forked from the host
    shares every page with it, and each first write to one (a reference count changes) copies
    it, thousands of times while a TUI starts. MADV_POPULATE_WRITE (Linux 5.14) faults every page
    of the process's private writable mappings in for writing, contents unchanged; elsewhere
    nothing happens (the pages are copied as they are written, as before)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        madvise = libc.madvise
        madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        with open("/proc/self/maps") as maps:
            ranges = [line.split()[0] for line in maps if line.split()[1] == "rw-p"]
    except (OSError, AttributeError):
        return
    for span in ranges:
        low, high = (int(end, 16) for end in span.split("-"))
        if madvise(low, high - low, MADV_POPULATE_WRITE) != 0 and ctypes.get_errno() == errno.EINVAL:
            return  # a kernel without it
    return


MADV_POPULATE_WRITE = 23  # linux/mman.h
_control: _socket.socket | None = None  # in a spare's child: the host's socket, told of the first frame


def first_frame_drawn() -> None:
    """The TUI of a host's child drew its first frame: the host may fork the next spare now."""
    global _control
    if _control is not None:
        try:
            _control.send(b"drawn\n")
        except OSError:
            pass
        _control.close()
        _control = None


def _run_child(
    conn: _socket.socket, fds: list[int], hello: dict[str, Any], server: Path, host_fds: tuple[int, ...]
) -> None:
    """In the forked child: run the caller's command line on its terminal. Never returns."""
    global _caller, _served
    status = 1
    try:
        os.setsid()  # out of the host's process group; the terminal stays the caller's
        _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
        for fd in host_fds:  # the host's lock must not outlive the host in its TUIs
            os.close(fd)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        fds.clear()
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in (hello.get("env") or {}).items()})
        try:
            os.chdir(str(hello.get("cwd") or "/"))
        except OSError:
            pass
        _reopen_stdio(str(hello.get("encoding") or "utf-8"))
        from termux.trace import TRACE

        TRACE.__init__(os.environ.get("TERMUX_TRACE"))  # type: ignore[misc]
        if TRACE.on:
            TRACE.mark("child.main")
        conn.settimeout(None)
        _caller, _served = conn, server
        from termux.cli import main

        status = main([str(word) for word in hello.get("argv") or []])
    except SystemExit as exc:  # argparse's usage errors and --help
        status = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        try:
            conn.sendall(_answer("exit", status))
        except OSError:
            pass
        os._exit(status)


def _reopen_stdio(encoding: str) -> None:
    """sys.stdin/stdout/stderr on descriptors 0-2 (now the caller's terminal), as a process
    started on that terminal has them; Textual reads and writes through sys.__std*__."""
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        stream = open(  # noqa: SIM115 - they live as long as the process
            fd,
            "r" if fd == 0 else "w",
            buffering=-1 if fd == 0 else 1,  # line-buffered output, as on a terminal
            encoding=encoding,
            errors="backslashreplace" if fd == 2 else "strict",
            closefd=False,
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
