"""Starting a session's program on a new PTY, with the process state a login shell would get.

`spawn` forks; the child side runs only `_child`, which ends in `execve` or in `os._exit`, whatever
fails: it can never return into the server's code (its request handler, its event loop). The
child also starts clean (docs/protocol.md, "The child's environment"):

- every catchable signal at its default disposition, and no signal blocked (Python ignores
  SIGPIPE and SIGXFSZ for itself; a shell pipeline into `head` needs them back);
- descriptors 0, 1 and 2 on the PTY, and no other (every other one is closed before exec);
- the RLIMIT_NOFILE soft limit the server started with (the server raises its own);
- a new session with the PTY as its controlling terminal, the session's working directory.

Why a fork of our own rather than ptyprocess: its child catches only OSError, so any other
exception there ran the server's code in the child; and it resets neither signals nor limits.
"""

from __future__ import annotations

import _signal  # signal's C functions: its wrappers turn each of some sixty numbers into an enum
import fcntl
import os
import resource
import signal
import struct
import termios
from dataclasses import dataclass
from typing import NoReturn

# Exit status of a child that could not exec (as a shell's "found but cannot execute").
EXEC_FAILED = 126
_CATCHABLE = [int(sig) for sig in sorted(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP})]
_REASON_LIMIT = 4096


class SpawnError(Exception):
    """The program could not be started; the message says why, in words for a person."""


@dataclass(frozen=True, slots=True)
class Child:
    pid: int
    fd: int  # the PTY's master side: non-blocking, close-on-exec


def set_window_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def find_program(name: str, cwd: str, env: dict[str, str]) -> str:
    """The file `name` runs, as execvp would find it: a name with a slash is a path (relative to
    the session's directory), any other is looked up in the child's PATH."""
    if "/" in name:
        candidates = [os.path.join(cwd, name)]
    else:
        path = env.get("PATH", os.defpath)
        candidates = [os.path.join(cwd, entry or ".", name) for entry in path.split(":")]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    if "/" in name and os.path.exists(candidates[0]):
        raise SpawnError(f"{name!r} is not an executable file")
    raise SpawnError(f"no such program: {name!r}" + ("" if "/" in name else " (not found in PATH)"))


def spawn(argv: list[str], cwd: str, env: dict[str, str], cols: int, rows: int, nofile: tuple[int, int]) -> Child:
    """Start `argv` on a new PTY of `cols`x`rows`; raise SpawnError when it cannot be started.

    `nofile` is the RLIMIT_NOFILE the child gets. The parent waits for the child to exec (a
    close-on-exec status pipe reaches end of file) or to report why it could not.
    """
    program = find_program(argv[0], cwd, env)
    # Encoded here, so the child has nothing left to convert (protocol strings are valid Unicode).
    args = [os.fsencode(arg) for arg in argv]
    environ = {os.fsencode(key): os.fsencode(value) for key, value in env.items()}
    master, slave = os.openpty()
    try:
        set_window_size(slave, cols, rows)
        status_r, status_w = os.pipe()
        if status_w < 3:  # the server's own stdio was closed: keep it clear of the child's 0, 1, 2
            status_w, low = fcntl.fcntl(status_w, fcntl.F_DUPFD_CLOEXEC, 3), status_w
            os.close(low)
        try:
            # Signals stay blocked from before the fork until the child has reset every handler:
            # a signal caught in between would run the server's handlers (and write to its
            # loop's wakeup descriptor) in the child.
            blocked = _signal.pthread_sigmask(_signal.SIG_BLOCK, _CATCHABLE)
            try:
                pid = os.fork()
                if pid == 0:
                    _child(slave, status_w, os.fsencode(program), args, environ, cwd, nofile)
            finally:
                _signal.pthread_sigmask(_signal.SIG_SETMASK, blocked)
            os.close(status_w)
            status_w = -1
            reason = _read_to_end(status_r)
        finally:
            os.close(status_r)
            if status_w >= 0:
                os.close(status_w)
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    if reason:
        os.close(master)
        os.waitpid(pid, 0)  # it has exited (or is about to): reap it
        raise SpawnError(reason.decode(errors="replace"))
    os.set_blocking(master, False)
    return Child(pid, master)


def _read_to_end(fd: int) -> bytes:
    data = b""
    while chunk := os.read(fd, _REASON_LIMIT):
        data += chunk
    return data[:_REASON_LIMIT]


def _child(
    slave: int,
    status_w: int,
    program: bytes,
    argv: list[bytes],
    env: dict[bytes, bytes],
    cwd: str,
    nofile: tuple[int, int],
) -> NoReturn:
    """The child side of the fork: exec, or report why not and `_exit`. Never returns."""
    try:
        _prepare_child(slave, status_w, cwd, nofile)
        os.execve(program, argv, env)
    except BaseException as exc:  # noqa: B036 - whatever it is, it must not unwind into the server
        try:
            reason = f"cannot start {os.fsdecode(argv[0])!r}: {_describe(exc)}".encode(errors="replace")
            os.write(status_w, reason[:_REASON_LIMIT])
            os.write(2, b"termux: " + reason + b"\r\n")  # the PTY (the server's log if dup2 failed)
        except BaseException:  # noqa: B036, S110 - nothing more can be done; exit below
            pass
    finally:
        os._exit(EXEC_FAILED)


def _prepare_child(slave: int, status_w: int, cwd: str, nofile: tuple[int, int]) -> None:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.chdir(cwd)
    _reset_signals()
    open_max = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    os.closerange(3, status_w)  # the slave's own descriptor, the server's sockets, anything left
    os.closerange(status_w + 1, max(open_max, status_w + 1))
    resource.setrlimit(resource.RLIMIT_NOFILE, nofile)
    _signal.pthread_sigmask(_signal.SIG_SETMASK, ())


def _reset_signals() -> None:
    _signal.set_wakeup_fd(-1)
    for sig in _CATCHABLE:
        try:
            _signal.signal(sig, _signal.SIG_DFL)
        except (OSError, ValueError):  # a signal the kernel does not let us set
            pass


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return f"{type(exc).__name__}: {exc}"
