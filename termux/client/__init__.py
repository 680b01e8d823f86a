"""The Python API to a termux server, used by the CLI, the TUI and scripts.

    from termux.client import Client
    with Client.connect() as c:
        c.request("session.new", name="build", command=["make"])

`Client` is synchronous; `AsyncClient` (termux/client/aio.py) is the same for asyncio programs.
Both start a server when none answers (`autostart=True`), exactly once even when many clients race
to do it. A one-shot CLI call imports only this module: asyncio is imported with `AsyncClient`.

Before sending anything, a client checks who answered (SO_PEERCRED) and refuses a server that runs
as another user, root included (as tmux, which trusts only a server of its own uid): a socket
another user could have planted or swapped never receives a request.
"""

from __future__ import annotations

# `_socket`, not `socket`: the one-shot CLI imports this module, and `socket` builds enums of every
# constant at import; the blocking client needs only the socket object itself.
import _socket
import fcntl
import os
import select
import struct
import sys
import time

from termux.paths import SocketDirError, log_path, open_side_file, side_path, socket_path
from termux.protocol.connection import CLOSED, NEED_DATA, PLAIN, ClientConnection, PlainReply
from termux.protocol.errors import TermuxError

TYPE_CHECKING = False  # nor typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Self

    from termux.client.aio import AsyncClient

__all__ = ["AsyncClient", "Client", "ServerStart", "TermuxError", "socket_path", "start_server"]

START_TIMEOUT = 15.0
LOG_TAIL_BYTES = 4096  # read from the end of the server's log when it failed to start


def __getattr__(name: str) -> Any:
    if name == "AsyncClient":  # imported on first use: it brings asyncio
        from termux.client.aio import AsyncClient

        return AsyncClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- starting a server ---------------------------------------------------------------------------


def _answers(path: Path) -> bool:
    probe = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def start_server(path: Path, timeout: float = START_TIMEOUT) -> None:
    """Start a background server on `path` unless one answers; safe against racing clients."""
    ServerStart(path, timeout).wait()


class ServerStart:
    """A background server starting on `path` (unless one answers); `wait()` until it is ready.

    Made before the work that can overlap the server's start-up (the TUI imports its toolkit
    meanwhile). A lock file beside the socket serialises starters: the first starts the server
    and waits for it to say it is ready (on a pipe, no polling); the others, once they get the
    lock, find it answering. The lock is held until `wait()` returns (or `close()`, for a start
    given up on). The lock file and the log are opened as `open_side_file` allows (never through
    a symbolic link).
    """

    def __init__(self, path: Path, timeout: float = START_TIMEOUT) -> None:
        self.path = path
        self.timeout = timeout
        self._ready_r: int | None = None
        self._starter: Any = None  # the intermediate process (subprocess.Popen)
        self._lock_fd: int | None = open_side_file(side_path(path, "start.lock"), os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
            if not _answers(path):
                self._spawn()
        except BaseException:
            self.close()
            raise

    def _spawn(self) -> None:
        import subprocess  # only when starting a server

        ready_r, ready_w = os.pipe()
        with open(open_side_file(log_path(self.path), os.O_WRONLY | os.O_CREAT | os.O_APPEND), "ab") as log_file:
            try:
                self._starter = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "termux",
                        "-S",
                        str(self.path),
                        "server",
                        "--daemon",
                        "--ready-fd",
                        str(ready_w),
                    ],
                    pass_fds=(ready_w,),
                    stdin=subprocess.DEVNULL,
                    stdout=log_file,
                    stderr=log_file,
                    start_new_session=True,
                )
            except BaseException:
                os.close(ready_r)
                raise
            finally:
                os.close(ready_w)
        self._ready_r = ready_r

    def wait(self) -> None:
        """Return once the server is ready (at once if one answered), releasing the lock;
        `start_failed` if it never is."""
        ready_r, self._ready_r = self._ready_r, None
        if ready_r is None:
            self.close()
            return
        try:
            self._starter.wait(self.timeout)  # the intermediate process exits as soon as the daemon forks
            readable, _, _ = select.select([ready_r], [], [], self.timeout)
            said = os.read(ready_r, 64) if readable else b""
        finally:
            os.close(ready_r)
            self.close()
        if not said.startswith(b"ready"):
            log = log_path(self.path)
            raise TermuxError("start_failed", f"the server did not start on {self.path}{_log_tail(log)}")

    def close(self) -> None:
        """Release the lock: other starters go on (and start a server if this one never did)."""
        if self._ready_r is not None:
            os.close(self._ready_r)
            self._ready_r = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


def _log_tail(log: Path) -> str:
    """The last lines of the server's log, on one line (an error is one line)."""
    try:
        fd = open_side_file(log, os.O_RDONLY)
    except SocketDirError:
        return ""
    with os.fdopen(fd, "rb") as file:
        file.seek(max(0, os.fstat(fd).st_size - LOG_TAIL_BYTES))
        lines = file.read().decode(errors="replace").strip().splitlines()[-3:]
    return f"; its log {log} ends: " + " / ".join(lines) if lines else ""


def _user(uid: int) -> str:
    import pwd

    try:
        return f"uid {uid} ({pwd.getpwuid(uid).pw_name})"
    except KeyError:
        return f"uid {uid}"


def _check_peer(sock: _socket.socket, path: Path) -> None:
    """Refuse a server that is not running as us (read from the kernel, not from the server)."""
    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", creds)
    if uid != os.getuid():
        raise TermuxError(
            "untrusted",
            f"the server on {path} runs as {_user(uid)}, pid {pid}, not as you ({_user(os.getuid())});"
            " refusing to talk to it",
        )


def _connect_socket(path: Path, autostart: bool) -> _socket.socket:
    """A socket connected to the server on `path` (started first if none answers and `autostart`),
    checked to be ours; `socket.socket(fileno=sock.detach())` makes it the full socket object."""
    for attempt in range(2):
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_CLOEXEC)
        try:
            sock.connect(str(path))
            _check_peer(sock, path)
            return sock
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            if not autostart or attempt:
                raise TermuxError("no_server", f"no server running on {path}") from None
            start_server(path)
        except OSError as exc:
            sock.close()
            raise TermuxError("unreachable", f"cannot connect to {path}: {exc.strerror or exc}") from None
        except BaseException:
            sock.close()
            raise
    raise AssertionError("unreachable")


# -- the synchronous client ----------------------------------------------------------------------


class Client:
    """Blocking: one request, one reply. Speaks through a sans-I/O `ClientConnection` with the
    `PLAIN` codec (the standard library's json: a one-shot `termux ls` never imports msgspec), so
    results are plain values, pushes dicts, and bytes in results base64 strings; `bytes` given as
    an argument are sent as base64."""

    def __init__(self, sock: _socket.socket, path: Path) -> None:
        self.path = path
        self._sock = sock
        self._conn = ClientConnection(PLAIN)
        self._pushes: list[dict[str, Any]] = []

    @classmethod
    def connect(cls, path: Path | str | None = None, *, name: str | None = None, autostart: bool = True) -> Self:
        resolved = socket_path(name, path)
        return cls(_connect_socket(resolved, autostart), resolved)

    def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        request = self._conn.request(cmd, args)
        try:
            self._sock.sendall(self._conn.send(request))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server closed first; read what it said before it did (capacity, forbidden)
        while True:
            message = self._read(None)
            assert message is not None
            if not isinstance(message, PlainReply):
                self._pushes.append(message)
            elif message.id == request.id or message.id is None:
                return message.unwrap()

    def next_push(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next pushed line, or None when `timeout` seconds pass first."""
        if self._pushes:
            return self._pushes.pop(0)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            message = self._read(deadline)
            if message is None or not isinstance(message, PlainReply):
                return message

    def _read(self, deadline: float | None) -> PlainReply | dict[str, Any] | None:
        """The next message, reading the socket as needed; None when `deadline` passes first."""
        while (message := self._conn.next_message()) is NEED_DATA:
            if deadline is not None:
                readable, _, _ = select.select([self._sock], [], [], max(0.0, deadline - time.monotonic()))
                if not readable:
                    return None
            try:
                data = self._sock.recv(1 << 16)
            except ConnectionResetError:
                data = b""
            self._conn.receive_data(data)
        if message is CLOSED:
            raise TermuxError("disconnected", "the server closed the connection")
        assert isinstance(message, PlainReply | dict)
        return message

    def fileno(self) -> int:
        return self._sock.fileno()

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
