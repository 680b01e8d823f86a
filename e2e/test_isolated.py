"""The isolated-server fixtures: a real server in a private socket directory, cleaned up afterwards."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from e2e.isolated import REPO_ROOT, TERMUX, IsolatedServer, descendants


def _server_exists() -> bool:
    probe = subprocess.run([*TERMUX, "server", "--help"], cwd=REPO_ROOT, capture_output=True, timeout=60)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _server_exists(), reason="`termux server` has not landed yet")


def test_server_listens_in_a_private_short_directory(server: IsolatedServer) -> None:
    assert stat.S_IMODE(os.stat(server.socket_dir).st_mode) == 0o700
    assert str(server.socket_path).startswith(str(server.socket_dir))
    assert len(str(server.socket_path)) < 100
    assert os.environ["TERMUX_SOCKET_DIR"] == str(server.socket_dir)


def test_stop_ends_the_server_and_its_sessions(server: IsolatedServer) -> None:
    done = server.run("new", "-d", "sleep", "1000")
    assert done.returncode == 0, done.stderr
    pid = server.pid
    sessions = descendants(pid)
    server.stop()
    for p in [pid, *sessions]:
        try:
            with open(f"/proc/{p}/stat") as f:
                assert f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
        except FileNotFoundError:
            pass
