"""Where the server's socket lives, and the checks that keep it private."""

from __future__ import annotations

import os
import stat
from pathlib import Path

DEFAULT_NAME = "default"


class SocketDirError(Exception):
    """The socket directory cannot be used safely."""


def socket_dir() -> Path:
    """`$TERMUX_SOCKET_DIR`, else `$XDG_RUNTIME_DIR/termux`, else `/tmp/termux-$UID`."""
    if explicit := os.environ.get("TERMUX_SOCKET_DIR"):
        return Path(explicit)
    if runtime := os.environ.get("XDG_RUNTIME_DIR"):
        return Path(runtime) / "termux"
    return Path(f"/tmp/termux-{os.getuid()}")


def ensure_private_dir(directory: Path) -> None:
    """Create `directory` with mode 0700, or refuse one that others could reach."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = directory.stat()
    except OSError as exc:
        raise SocketDirError(f"cannot create socket directory {directory}: {exc.strerror}") from exc
    if not stat.S_ISDIR(info.st_mode):
        raise SocketDirError(f"socket directory {directory} is not a directory")
    if info.st_uid != os.getuid():
        raise SocketDirError(
            f"socket directory {directory} is owned by uid {info.st_uid}, not by you (uid {os.getuid()})"
        )
    if info.st_mode & 0o077:
        raise SocketDirError(
            f"socket directory {directory} is open to group or others (mode {stat.S_IMODE(info.st_mode):o});"
            f" run `chmod 700 {directory}` or set TERMUX_SOCKET_DIR"
        )


def inherited_socket() -> Path | None:
    """The socket named by `$TERMUX` when running inside a termux session (`SOCKET,SESSION_ID`)."""
    value = os.environ.get("TERMUX", "")
    socket, _, _ = value.rpartition(",")
    return Path(socket) if socket else None


def inherited_session() -> str | None:
    """The id of the session this process runs in, from `$TERMUX`."""
    value = os.environ.get("TERMUX", "")
    socket, _, session = value.rpartition(",")
    return session if socket and session else None


def socket_path(name: str | None = None, path: str | os.PathLike[str] | None = None) -> Path:
    """Resolve `-S PATH`, `-L NAME`, the session we run inside, or the default socket.

    Only the default directory is created and checked here; a path given with `-S` is the user's
    explicit choice, as in tmux.
    """
    if path is not None:
        return Path(path)
    if name is None and (inherited := inherited_socket()) is not None:
        return inherited
    if name is not None and ("/" in name or name in ("", ".", "..")):
        raise SocketDirError(f"invalid socket name {name!r}: use -S for a path")
    directory = socket_dir()
    ensure_private_dir(directory)
    return directory / (name or DEFAULT_NAME)


def log_path(socket: Path) -> Path:
    """The server's log file, beside its socket."""
    return socket.with_name(socket.name + ".log")
