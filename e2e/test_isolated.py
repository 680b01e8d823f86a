"""The isolated-server fixtures: a real server in a private socket directory, cleaned up afterwards."""

from __future__ import annotations

import os
import stat

from e2e.isolated import IsolatedServer, descendants


def test_server_listens_in_a_private_short_directory(server: IsolatedServer) -> None:
    assert stat.S_IMODE(os.stat(server.socket_dir).st_mode) == 0o700
    assert str(server.socket_path).startswith(str(server.socket_dir))
    assert len(str(server.socket_path)) < 100
    assert server.socket_path.is_socket()
    assert os.environ["TERMUX_SOCKET_DIR"] == str(server.socket_dir)
    listed = server.run("ls")  # the CLI finds it through TERMUX_SOCKET_DIR alone
    assert listed.returncode == 0, listed.stderr


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
