"""Where the server's socket lives, and the checks that keep it and the files beside it private.

The rules (README, docs/cli.md):

- The socket directory termux picks itself (`socket_dir()`) is created with mode 0700 and must be
  a real directory (not a symbolic link), owned by you, with no permission for group or others.
- A socket named otherwise (`-S PATH`, or `$TERMUX` inside a session) must be in a directory that
  exists, is not a symbolic link, is owned by you or root, and that nobody else can write to — or,
  like /tmp, is sticky, so that others can add their own files but never replace yours.
- The socket itself, and the files termux keeps beside it (`PATH.log`, `PATH.lock`,
  `PATH.start.lock`), are never followed through a symbolic link; a side file must be a regular
  file owned by you with a single link.

Directories are opened with O_NOFOLLOW and checked by their descriptor, so the check is on what
was opened, not on what a path pointed to a moment before. What the checks cannot stop (a
directory swapped after it was checked) meets the peer checks: the client talks only to a server
of its own uid and the server only to clients of its own.
"""

from __future__ import annotations

import errno
import os
import stat

# The socket is resolved and checked on strings (`socket_file`): the TUI host's caller does so
# before it hands its terminal over, and loads as little as it can (termux/tui/host.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_NAME = "default"
MAX_SOCKET_PATH = 107  # bytes: sun_path holds 108, the last one the terminating NUL


class SocketDirError(Exception):
    """The socket path, its directory or a file beside it cannot be used safely."""


def socket_dir() -> str:
    """`$TERMUX_SOCKET_DIR`, else `$XDG_RUNTIME_DIR/termux`, else `/tmp/termux-$UID`."""
    if explicit := os.environ.get("TERMUX_SOCKET_DIR"):
        return os.path.abspath(explicit)
    if runtime := os.environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(os.path.abspath(runtime), "termux")
    return f"/tmp/termux-{os.getuid()}"


def _open_dir(directory: str) -> int:
    """A descriptor on `directory` itself, never on what a symbolic link there points to."""
    try:
        return os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and os.path.islink(directory)):
            raise SocketDirError(
                f"socket directory {directory} is a symbolic link; termux does not follow it (name the real directory)"
            ) from None
        if exc.errno == errno.ENOENT:
            raise SocketDirError(f"socket directory {directory} does not exist") from None
        if exc.errno == errno.ENOTDIR:
            raise SocketDirError(f"socket directory {directory} is not a directory") from None
        raise SocketDirError(f"cannot open socket directory {directory}: {exc.strerror}") from None


def _opened_dir(directory: str) -> os.stat_result:
    fd = _open_dir(directory)
    try:
        return os.fstat(fd)
    finally:
        os.close(fd)


def ensure_private_dir(directory: str) -> None:
    """Create `directory` with mode 0700, or refuse one that others could reach."""
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except FileExistsError:
        pass  # a symbolic link to nowhere, or a file: _open_dir says which
    except OSError as exc:
        raise SocketDirError(f"cannot create socket directory {directory}: {exc.strerror}") from None
    info = _opened_dir(directory)
    if info.st_uid != os.getuid():
        raise SocketDirError(
            f"socket directory {directory} is owned by uid {info.st_uid}, not by you (uid {os.getuid()})"
        )
    if info.st_mode & 0o077:
        raise SocketDirError(
            f"socket directory {directory} is open to group or others (mode {stat.S_IMODE(info.st_mode):o});"
            f" run `chmod 700 {directory}` or set TERMUX_SOCKET_DIR"
        )


def check_shared_dir(directory: str) -> None:
    """Refuse a directory for an explicit socket path that someone else could plant files in."""
    info = _opened_dir(directory)
    if info.st_uid not in (os.getuid(), 0):
        raise SocketDirError(
            f"socket directory {directory} is owned by uid {info.st_uid}, not by you (uid {os.getuid()}) or root"
        )
    if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        raise SocketDirError(
            f"socket directory {directory} is writable by group or others and not sticky"
            f" (mode {stat.S_IMODE(info.st_mode):o}): others could replace the files termux keeps there"
        )


def check_socket_path(socket: str) -> None:
    """Check `socket`'s directory by the rule for it (see the module), its length, and that the
    socket is not a symbolic link."""
    if len(os.fsencode(socket)) > MAX_SOCKET_PATH:
        raise SocketDirError(
            f"socket path {socket} is too long ({len(os.fsencode(socket))} bytes;"
            f" a Unix socket path holds at most {MAX_SOCKET_PATH})"
        )
    directory = os.path.dirname(socket)
    if directory == socket_dir():
        ensure_private_dir(directory)
    else:
        check_shared_dir(directory)
    if os.path.islink(socket):
        raise SocketDirError(f"socket {socket} is a symbolic link; termux does not follow it")


def open_side_file(path: Path, flags: int) -> int:
    """Open a file termux keeps beside its socket (log, lock): never through a symbolic link, and
    only a regular file of ours with one link. `flags` are os.open flags (O_CREAT creates it 0600)."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY, 0o600)
    except OSError as exc:
        # ELOOP, or EACCES when the kernel's protected_symlinks/regular refuse first
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise SocketDirError(f"{path} is a symbolic link; termux does not follow it") from None
        raise SocketDirError(f"cannot open {path}: {exc.strerror}") from None
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(info.st_mode):
        problem = "is not a regular file"
    elif info.st_uid != os.getuid():
        problem = f"is owned by uid {info.st_uid}, not by you"
    elif info.st_nlink != 1:
        problem = "has other hard links"
    if problem is not None:
        os.close(fd)
        raise SocketDirError(f"{path} {problem}; not using it")
    return fd


def inherited_socket() -> str | None:
    """The socket named by `$TERMUX` when running inside a termux session (`SOCKET,SESSION_ID`)."""
    value = os.environ.get("TERMUX", "")
    socket, _, _ = value.rpartition(",")
    return socket or None


def inherited_session() -> str | None:
    """The id of the session this process runs in, from `$TERMUX`."""
    value = os.environ.get("TERMUX", "")
    socket, _, session = value.rpartition(",")
    return session if socket and session else None


def socket_path(name: str | None = None, path: str | os.PathLike[str] | None = None) -> Path:
    """Resolve `-S PATH`, `-L NAME`, the session we run inside, or the default socket, and check it
    (`check_socket_path`): the default directory is created; any other must exist."""
    from pathlib import Path

    return Path(socket_file(name, path))


def socket_file(name: str | None = None, path: str | os.PathLike[str] | None = None) -> str:
    """`socket_path` as a string (loading no pathlib)."""
    if path is not None:
        resolved = os.path.abspath(path)  # $TERMUX must name it from any directory
    elif name is None and (inherited := inherited_socket()) is not None:
        resolved = os.path.abspath(inherited)
    else:
        if name is not None and ("/" in name or name in ("", ".", "..")):
            raise SocketDirError(f"invalid socket name {name!r}: use -S for a path")
        resolved = os.path.join(socket_dir(), name or DEFAULT_NAME)
    check_socket_path(resolved)
    return resolved


def side_path(socket: Path, suffix: str) -> Path:
    """`SOCKET.suffix`: the log and lock files beside a socket."""
    return socket.with_name(f"{socket.name}.{suffix}")


def log_path(socket: Path) -> Path:
    """The server's log file, beside its socket."""
    return side_path(socket, "log")
