"""Starting servers: auto-start races, refusal on a live socket, stale sockets, directory checks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import msgspec
import pytest

from tests.conftest import TERMUX, RunningServer, run_cli


def _server_pids(socket_dir: Path) -> set[int]:
    """Processes running `termux ... server` for a socket in `socket_dir`."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"server" in argv and any(str(socket_dir).encode() in arg for arg in argv):
                pids.add(int(entry.name))
    return pids


def test_ten_racing_clients_start_exactly_one_server(termux_env: dict[str, str], socket_dir: Path) -> None:
    with ThreadPoolExecutor(10) as pool:
        results = list(
            pool.map(lambda n: run_cli(termux_env, "new", "-d", "-s", f"s{n}", "--", "sleep", "60"), range(10))
        )
    try:
        assert [r.returncode for r in results] == [0] * 10, [r.stderr for r in results]
        listed = json.loads(run_cli(termux_env, "ls", "--json").stdout)
        assert sorted(s["name"] for s in listed) == sorted(f"s{n}" for n in range(10))
        assert len(_server_pids(socket_dir)) == 1
        log = (socket_dir / "default.log").read_text()
        assert log.count("listening on") == 1
    finally:
        run_cli(termux_env, "kill-server")


def test_auto_started_server_is_detached_from_the_caller(termux_env: dict[str, str], socket_dir: Path) -> None:
    assert run_cli(termux_env, "new", "-d", "--", "sleep", "60").returncode == 0
    try:
        (pid,) = _server_pids(socket_dir)
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ppid, pgrp, session, tty = int(stat[1]), int(stat[2]), int(stat[3]), int(stat[4])
        assert ppid != os.getpid()
        assert pgrp != os.getpgrp() and session != os.getsid(0)
        assert tty == 0  # no controlling terminal
        assert (socket_dir / "default.log").exists()
    finally:
        run_cli(termux_env, "kill-server")


def test_a_second_server_on_a_live_socket_refuses(server: RunningServer) -> None:
    second = subprocess.run(
        [*TERMUX, "-S", str(server.path), "server"],
        env=server.env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert second.returncode == 1
    assert "already running" in second.stderr
    with server.client() as client:
        assert client.request("server.hello")["version"] == 1


def test_a_stale_socket_is_replaced(termux_env: dict[str, str], socket_dir: Path) -> None:
    path = socket_dir / "default"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # bound, never listening, then closed: what a killed server leaves
    stale.close()
    assert path.exists()
    with RunningServer(socket_dir):
        result = run_cli(termux_env, "ls")
        assert result.returncode == 0


def test_a_non_socket_file_is_never_removed(termux_env: dict[str, str], socket_dir: Path) -> None:
    path = socket_dir / "default"
    path.write_text("precious")
    result = subprocess.run([*TERMUX, "-S", str(path), "server"], env=termux_env, capture_output=True, text=True)
    assert result.returncode == 1 and "not a socket" in result.stderr
    assert path.read_text() == "precious"


def test_socket_directory_is_created_private(termux_env: dict[str, str], socket_dir: Path) -> None:
    nested = socket_dir / "made" / "here"
    env = {**termux_env, "TERMUX_SOCKET_DIR": str(nested)}
    assert run_cli(env, "new", "-d", "--", "sleep", "60").returncode == 0
    try:
        assert nested.stat().st_mode & 0o777 == 0o700
        assert (nested / "default").exists()
    finally:
        run_cli(env, "kill-server")


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o707])
def test_socket_directory_open_to_others_is_refused(termux_env: dict[str, str], socket_dir: Path, mode: int) -> None:
    socket_dir.chmod(mode)
    result = run_cli(termux_env, "ls")
    assert result.returncode == 3
    assert "open to group or others" in result.stderr and "Traceback" not in result.stderr


def test_socket_directory_owned_by_another_user_is_refused(termux_env: dict[str, str], socket_dir: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("changing a directory's owner needs root")
    os.chown(socket_dir, 65534, 65534)
    result = run_cli(termux_env, "ls")
    assert result.returncode == 3
    assert "owned by uid 65534" in result.stderr


def test_socket_name_and_xdg_runtime_dir(termux_env: dict[str, str], socket_dir: Path) -> None:
    env = {k: v for k, v in termux_env.items() if k != "TERMUX_SOCKET_DIR"}
    env["XDG_RUNTIME_DIR"] = str(socket_dir)
    assert run_cli(env, "-L", "work", "new", "-d", "--", "sleep", "60").returncode == 0
    try:
        assert (socket_dir / "termux" / "work").exists()
        assert run_cli(env, "ls", "-L", "work").returncode == 0  # -L after the verb too
    finally:
        run_cli(env, "-L", "work", "kill-server")


def test_a_peer_with_another_uid_is_refused(server: RunningServer) -> None:
    if os.getuid() != 0:
        pytest.skip("connecting as another user needs root")
    server.path.chmod(0o777)  # get past the file mode, so the server's SO_PEERCRED check decides
    server.path.parent.chmod(0o711)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(server.path))
            # the server speaks first to a refused peer, then closes: read, do not write
            os.write(write_end, sock.makefile("rb").readline())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as replies:
        reply = replies.read()
    os.waitpid(child, 0)
    server.path.parent.chmod(0o700)
    answer = msgspec.json.decode(reply)
    assert answer["ok"] is False and answer["error"]["code"] == "forbidden"
    with server.client() as client:
        assert client.request("session.list")["sessions"] == []
