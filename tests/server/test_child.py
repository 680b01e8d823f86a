"""What a session's program starts with, and what a bad `session.new` can and cannot do (issue 12,
items 3 and 4): a real server, real PTYs, the child's own /proc entries."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from e2e.isolated import IsolatedServer
from termux.client import AsyncClient, Client, TermuxError
from termux.protocol.messages import NewArgs
from termux.server import spawn
from tests.conftest import RunningServer
from tests.events.event_helpers import serve_in_loop, shutdown
from tests.server.test_protocol import RawConnection


def run_to_exit(client: Client, **new: Any) -> list[str]:
    """Start a session, wait for its exit event (pushed), return its screen's non-blank lines."""
    client.request("client.attach", follow=[])
    sid = client.request("session.new", **new)["session"]["id"]
    while True:
        push = client.next_push(30)
        assert push is not None, "the session never exited"
        if push.get("push") == "event" and push["event"]["type"] == "session.exited":
            if push["event"]["session"] == sid:
                break
    return [line for line in client.request("session.capture", target=sid)["lines"] if line]


# -- item 3: bad arguments are refused at the edge ---------------------------------------------

BAD_NEW_ARGS = [
    ({"env": {"": "x"}}, "`env` name ''"),
    ({"env": {"A=B": "x"}}, "`env` name 'A=B'"),
    ({"env": {"A\0B": "x"}}, "`env` name"),
    ({"env": {"A": "x\0y"}}, "`env` value of A contains a NUL"),
    ({"command": ["sh", "-c", "echo a\0b"]}, "`command[2]` contains a NUL"),
    ({"command": []}, "`command` is empty"),
    ({"command": ["", "x"]}, "`command[0]`, the program to run, is empty"),
    ({"cwd": "/tmp\0/x"}, "`cwd` contains a NUL"),
]


@pytest.mark.parametrize(("args", "message"), BAD_NEW_ARGS)
def test_a_bad_env_or_command_is_bad_args_and_starts_nothing(
    server: RunningServer, args: dict[str, Any], message: str
) -> None:
    with server.client() as client:
        with pytest.raises(TermuxError) as error:
            client.request("session.new", **args)
        assert error.value.code == "bad_args"
        assert message in error.value.message
        assert client.request("session.list")["sessions"] == []
        assert client.request("server.hello")["pid"] == server.pid
    assert "Traceback" not in server.server_log()


async def test_a_failure_in_the_child_after_fork_ends_in_exit_and_never_returns_into_the_server(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server runs in this process: a child that returned from spawn would run this test's
    loop and answer on its socket too. It must exit with the reason sent to the parent instead."""
    live, task = await serve_in_loop(socket_dir / "s")
    conn = await AsyncClient.connect(live.socket_path, autostart=False)
    try:

        def fail(*args: Any) -> None:
            raise RuntimeError("injected failure in the child")

        monkeypatch.setattr(spawn, "_reset_signals", fail)  # runs only in the child, after the fork
        with pytest.raises(TermuxError) as error:
            await conn.request("session.new", command=["sh", "-c", "echo never"])
        monkeypatch.undo()
        assert error.value.code == "spawn_failed"
        assert "RuntimeError: injected failure in the child" in error.value.message
        assert live.sessions == {}
        with pytest.raises(ChildProcessError):  # the failed child was reaped: no process is left
            os.waitpid(-1, os.WNOHANG)
        # Exactly one server answers, this one, and the next session starts normally.
        assert (await conn.request("server.hello"))["pid"] == os.getpid()
        reply = await conn.request("session.new", command=["true"])
        assert reply["session"]["state"] == "running"
    finally:
        await conn.close()
        await shutdown(live, task)


def test_a_program_that_is_not_there_is_spawn_failed_in_words(server: RunningServer) -> None:
    with server.client() as client:
        for command, words in ((["no-such-program-xyz"], "no such program"), (["/etc/passwd"], "not an executable")):
            with pytest.raises(TermuxError) as error:
                client.request("session.new", command=command)
            assert error.value.code == "spawn_failed"
            assert words in error.value.message
        assert client.request("session.list")["sessions"] == []


# -- item 4: the child's process state ------------------------------------------------------------


def _status_mask(lines: list[str], field: str) -> int:
    (line,) = [line for line in lines if line.startswith(field + ":")]
    return int(line.split()[1], 16)


def test_the_child_has_no_ignored_and_no_blocked_signal(server: RunningServer) -> None:
    with server.client() as client:
        lines = run_to_exit(client, command=["cat", "/proc/self/status"], cols=120, rows=80)
    assert _status_mask(lines, "SigIgn") == 0  # the server (Python) ignores SIGPIPE and SIGXFSZ
    assert _status_mask(lines, "SigBlk") == 0


def test_a_pipeline_into_head_ends_quietly(server: RunningServer) -> None:
    with server.client() as client:
        lines = run_to_exit(client, command=["sh", "-c", "yes | head -1; echo status=$?"])
    assert lines == ["y", "status=0"]  # no "yes: standard output: Broken pipe"


def test_the_child_holds_only_descriptors_0_1_and_2(server: RunningServer) -> None:
    with server.client() as client:
        client.request("session.new", name="busy", command=["sleep", "60"])  # the server holds more now
        lines = run_to_exit(client, command=["sh", "-c", "exec ls -l /proc/self/fd"], cols=200)
    fds = [line.split()[-3] for line in lines if " -> " in line and "/fd" not in line.split(" -> ")[1]]
    assert fds == ["0", "1", "2"]


@pytest.fixture
def limited_server(socket_dir: Path) -> Iterator[IsolatedServer]:
    """A server started with RLIMIT_NOFILE soft 256, hard 4096, and variables a shell would not
    want from it (those of the tmux it was started in)."""
    running = IsolatedServer(socket_dir, extra_env={"SHELL": "/bin/sh", "TMUX": "/tmp/t,1,0", "COLUMNS": "33"})
    running.start(nofile=(256, 4096))
    yield running
    running.stop()


def test_the_child_gets_the_descriptor_limit_the_server_started_with(limited_server: IsolatedServer) -> None:
    with Client.connect(limited_server.socket_path, autostart=False) as client:
        assert client.request("server.stats")["fd_limit"] == 4096  # the server raised its own
        lines = run_to_exit(client, command=["sh", "-c", "echo soft=$(ulimit -Sn) hard=$(ulimit -Hn)"])
    assert lines == ["soft=256 hard=4096"]


def test_the_child_starts_in_its_directory_without_the_servers_terminal_variables(
    limited_server: IsolatedServer, tmp_path: Path
) -> None:
    script = 'echo "pwd=$(pwd) PWD=$PWD tmux=${TMUX-unset} columns=${COLUMNS-unset} term=$TERM"'
    with Client.connect(limited_server.socket_path, autostart=False) as client:
        lines = run_to_exit(client, command=["sh", "-c", script], cwd=str(tmp_path), cols=200)
    assert lines == [f"pwd={tmp_path} PWD={tmp_path} tmux=unset columns=unset term=xterm-256color"]


# -- item 12: output after the main process exits -------------------------------------------------


def test_output_a_grandchild_writes_after_the_main_process_exits_is_kept(server: RunningServer) -> None:
    """As a tmux pane, the session lasts until its PTY reaches end of file: a background job that
    survives the hangup (here it ignores SIGHUP) still gets its output onto the screen."""
    script = "trap '' HUP; (sleep 0.3; echo late) & echo early; exit 3"  # the job inherits the ignored HUP
    with server.client() as client:
        lines = run_to_exit(client, command=["sh", "-c", script])
        (session,) = client.request("session.list")["sessions"]
    assert lines == ["early", "late"]
    assert (session["state"], session["exit_code"]) == ("exited", 3)


def test_kill_ends_a_session_whose_pty_is_held_by_a_process_outside_its_group(server: RunningServer) -> None:
    script = "setsid sh -c 'trap \"\" HUP TERM; echo holder=$$; exec sleep 20' & sleep 0.2; exit 0"
    with server.client() as client:
        client.request("client.attach", follow=[])
        client.request("session.new", name="held", command=["sh", "-c", script])
        holder = None
        while holder is None:
            lines = client.request("session.capture", target="held")["lines"]
            holder = next((int(line.split("=")[1]) for line in lines if line.startswith("holder=")), None)
            if holder is None:
                assert client.next_push(30) is not None
        try:
            killed = client.request("session.kill", target="held")["session"]
            assert killed["state"] == "exited"
            assert client.request("session.list")["sessions"] == []
        finally:
            os.kill(holder, 9)


def test_a_raw_bad_session_new_never_prints_the_servers_code_in_a_session(server: RunningServer) -> None:
    """The issue's reproduction: env key with '=' answered ok and the child ran the server."""
    conn = RawConnection(server)
    try:
        reply = conn.ask(msgspec.json.encode({"id": 1, "cmd": "session.new", "args": {"env": {"A=B": "1"}}}) + b"\n")
        assert reply["error"]["code"] == "bad_args"
        assert conn.ask(b'{"id": 2, "cmd": "session.list"}\n')["result"]["sessions"] == []
    finally:
        conn.close()


async def test_spawn_restores_the_servers_signal_mask(socket_dir: Path) -> None:
    """Signals are blocked around the fork (so none runs the server's handlers in the child) and
    the server's own mask is restored right after."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    live, task = await serve_in_loop(socket_dir / "m")
    try:
        live.new_session(NewArgs(command=["true"]))
        assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
    finally:
        await shutdown(live, task)
