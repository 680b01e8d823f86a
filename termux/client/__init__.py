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

import fcntl
import itertools
import json
import os
import pwd
import select
import socket
import struct
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from termux.paths import SocketDirError, log_path, open_side_file, side_path, socket_path
from termux.protocol.errors import ProtocolError
from termux.protocol.framing import MAX_REPLY_LINE

if TYPE_CHECKING:
    from termux.client.aio import AsyncClient

__all__ = ["AsyncClient", "Client", "ServerStart", "TermuxError", "socket_path", "start_server"]

START_TIMEOUT = 15.0
LOG_TAIL_BYTES = 4096  # read from the end of the server's log when it failed to start


def __getattr__(name: str) -> Any:
    if name == "AsyncClient":  # imported on first use: it brings asyncio
        from termux.client.aio import AsyncClient

        return AsyncClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class TermuxError(ProtocolError):
    """An error reply from the server, or a failure to talk to one. The client's own codes:
    `no_server` (nothing listens on the socket), `unreachable` (connecting failed otherwise),
    `untrusted` (the server runs as another user), `start_failed` (a server was started and never
    said it was ready), `disconnected` (the connection was lost, before the reply if a request was
    waiting) and `bad_reply` (the server sent something that is not a reply)."""


# The client speaks JSON with the standard library: importing msgspec would cost a one-shot
# `termux ls` a quarter of its start-up, and a reply decodes in microseconds either way.
def _decode(line: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(line)
    except ValueError:  # not JSON, or not UTF-8
        raise TermuxError("bad_reply", f"the server sent a line that is not JSON: {line[:80]!r}") from None
    if not isinstance(obj, dict):
        raise TermuxError("bad_reply", f"the server sent a non-object line: {line[:80]!r}")
    return obj


def _result(reply: dict[str, Any]) -> dict[str, Any]:
    if reply.get("ok"):
        result = reply.get("result") or {}
        if not isinstance(result, dict):
            raise TermuxError("bad_reply", "the server sent a result that is not an object")
        return result
    error = reply.get("error")
    if not isinstance(error, dict):
        raise TermuxError("bad_reply", "the server sent an error reply without an error object")
    extra = {k: v for k, v in error.items() if k not in ("code", "message")}
    raise TermuxError(str(error.get("code", "unknown")), str(error.get("message", "unknown error")), **extra)


def _encode(request_id: int, cmd: str, args: dict[str, Any]) -> bytes:
    return json.dumps({"id": request_id, "cmd": cmd, "args": args}, separators=(",", ":")).encode() + b"\n"


# -- starting a server ---------------------------------------------------------------------------


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
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
    try:
        return f"uid {uid} ({pwd.getpwuid(uid).pw_name})"
    except KeyError:
        return f"uid {uid}"


def _check_peer(sock: socket.socket, path: Path) -> None:
    """Refuse a server that is not running as us (read from the kernel, not from the server)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", creds)
    if uid != os.getuid():
        raise TermuxError(
            "untrusted",
            f"the server on {path} runs as {_user(uid)}, pid {pid}, not as you ({_user(os.getuid())});"
            " refusing to talk to it",
        )


def _connect_socket(path: Path, autostart: bool) -> socket.socket:
    for attempt in range(2):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
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
    def __init__(self, sock: socket.socket, path: Path) -> None:
        self.path = path
        self._sock = sock
        self._buffer = bytearray()
        self._ids = itertools.count(1)
        self._pushes: list[dict[str, Any]] = []

    @classmethod
    def connect(cls, path: Path | str | None = None, *, name: str | None = None, autostart: bool = True) -> Self:
        resolved = socket_path(name, path)
        return cls(_connect_socket(resolved, autostart), resolved)

    def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        request_id = next(self._ids)
        try:
            self._sock.sendall(_encode(request_id, cmd, args))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server closed first; read what it said before it did (capacity, forbidden)
        while True:
            message = self._read(None)
            assert message is not None
            if "push" in message:
                self._pushes.append(message)
            elif message.get("id") == request_id or message.get("id") is None:
                return _result(message)

    def next_push(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next pushed line, or None when `timeout` seconds pass first."""
        if self._pushes:
            return self._pushes.pop(0)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            message = self._read(deadline)
            if message is None or "push" in message:
                return message

    def _read(self, deadline: float | None) -> dict[str, Any] | None:
        while (newline := self._buffer.find(b"\n")) < 0:
            if len(self._buffer) > MAX_REPLY_LINE:
                raise TermuxError("bad_reply", "the server sent a line over the size limit")
            if deadline is not None:
                readable, _, _ = select.select([self._sock], [], [], max(0.0, deadline - time.monotonic()))
                if not readable:
                    return None
            try:
                data = self._sock.recv(1 << 16)
            except ConnectionResetError:
                data = b""
            if not data:
                raise TermuxError("disconnected", "the server closed the connection")
            self._buffer += data
        line = bytes(self._buffer[:newline])
        del self._buffer[: newline + 1]
        return _decode(line)

    def fileno(self) -> int:
        return self._sock.fileno()

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
