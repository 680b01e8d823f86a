"""Stand-ins for a broken or hostile server, and a throwaway second user to play the attacker."""

from __future__ import annotations

import os
import pwd
import socket
import subprocess
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest

# A name, title or message that, printed raw, sets the outer terminal's title and rings its bell.
HOSTILE = "\x1b]0;PWNED\x07"
SHOWN = "\\033]0;PWNED\\a"  # how termux prints it

Serve = Callable[[socket.socket], None]


class FakeServer:
    """A listener on `path` whose thread hands each connection to `serve`, then closes it."""

    def __init__(self, path: Path, serve: Serve) -> None:
        self.path = path
        self.serve = serve
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.stopping = False

    def _run(self) -> None:
        while True:
            conn, _ = self.listener.accept()
            with conn:
                if self.stopping:
                    return
                self.serve(conn)

    def __enter__(self) -> FakeServer:
        self.listener.bind(str(self.path))
        self.listener.listen(64)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping = True
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as wake:  # accept() returns, sees the flag
            wake.connect(str(self.path))
        self.thread.join()
        self.listener.close()
        self.path.unlink()


def answering(replies: dict[str, Any]) -> Serve:
    """Answer each request whose `cmd` is in `replies` with that result (an `error` dict makes an
    error reply); read on until the client hangs up."""

    def serve(conn: socket.socket) -> None:
        for line in conn.makefile("rb"):
            request = msgspec.json.decode(line)
            reply = replies.get(request["cmd"], {})
            if isinstance(reply, dict) and "error" in reply:
                answer = {"id": request["id"], "ok": False, **reply}
            else:
                answer = {"id": request["id"], "ok": True, "result": reply}
            conn.sendall(msgspec.json.encode(answer) + b"\n")

    return serve


# -- a second user ---------------------------------------------------------------------------------


@contextmanager
def throwaway_user() -> Iterator[pwd.struct_passwd]:
    """A user created for one test with useradd and removed after it; skips unless root."""
    if os.getuid() != 0:
        pytest.skip("needs root: the test creates a throwaway user (useradd) to play another local user")
    name = f"txsec{uuid.uuid4().hex[:8]}"
    for _attempt in range(20):  # another test may hold the passwd lock a moment
        made = subprocess.run(
            ["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name],
            capture_output=True,
            text=True,
        )
        if made.returncode == 0:
            break
        if "lock" not in made.stderr:
            pytest.skip(f"useradd failed: {made.stderr.strip()}")
        time.sleep(0.1)
    else:
        pytest.skip("useradd: /etc/passwd stayed locked")
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], capture_output=True)


def as_user(user: pwd.struct_passwd, work: Callable[[], object]) -> int:
    """Run `work` in a forked child that has become `user`; returns its pid. The child never
    returns into the test runner."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked child
        status = 0
        try:
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            work()
        except BaseException:
            traceback.print_exc(file=sys.stderr)
            status = 1
        finally:
            os._exit(status)
    return pid


def run_as(user: pwd.struct_passwd, work: Callable[[], object]) -> None:
    """`work` as `user`, to completion."""
    _, status = os.waitpid(as_user(user, work), 0)
    assert os.waitstatus_to_exitcode(status) == 0, f"the work as {user.pw_name} failed"


@contextmanager
def foreign_server(user: pwd.struct_passwd, path: Path) -> Iterator[Callable[[], int]]:
    """A fake server run by `user` on `path` that answers `session.list` with a hostile session.
    Yields a function that returns how many bytes the next client to hang up had sent it."""
    ready_r, ready_w = os.pipe()
    report_r, report_w = os.pipe()
    hostile = {"sessions": [fake_session(HOSTILE)]}

    def serve() -> None:
        os.close(ready_r)
        os.close(report_r)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        os.chmod(path, 0o777)
        listener.listen(8)
        os.write(ready_w, b"ready")
        while True:
            conn, _ = listener.accept()
            received = 0
            for line in conn.makefile("rb"):
                received += len(line)
                reply = {"id": msgspec.json.decode(line).get("id"), "ok": True, "result": hostile}
                conn.sendall(msgspec.json.encode(reply) + b"\n")
            conn.close()
            os.write(report_w, f"{received}\n".encode())

    pid = as_user(user, serve)
    os.close(ready_w)
    os.close(report_w)
    reports = os.fdopen(report_r, "rb")
    try:
        assert os.read(ready_r, 5) == b"ready", "the foreign server did not start"
        yield lambda: int(reports.readline())
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(ready_r)
        reports.close()


def fake_session(name: str) -> dict[str, Any]:
    """A session as session.list describes it, with `name`, title and command all set to `name`."""
    return {
        "id": "%0", "name": name, "command": ["sh", "-c", name], "cwd": "/", "pid": 1, "state": "running",
        "exit_code": None, "exit_signal": None, "cols": 80, "rows": 24, "created": 0.0, "bytes_out": 0,
        "title": name,
    }  # fmt: skip
