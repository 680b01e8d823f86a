"""Bounds that a hostile or careless client hits (issue 12, items 6, 7, 8 and 11): a view that stops
reading, long requests, running out of descriptors, streaming input. Real server, real clients."""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from e2e.isolated import IsolatedServer
from termux.client import Client, TermuxError
from termux.server import matcher
from termux.server.server import CLIENT_BUFFER_MAX, MAX_IN_FLIGHT
from tests.conftest import RunningServer, wait_for_screen
from tests.events.event_helpers import served_client
from tests.server.slicing import answered_midway
from tests.server.test_protocol import RawConnection

FLOOD = [sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('flood ' * 13 + '\\n')"]


def _silent_view(server: RunningServer, **attach: Any) -> socket.socket:
    """An attached client that never reads (its receive buffer as small as the kernel allows)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(str(server.path))
    sock.sendall(msgspec.json.encode({"id": 1, "cmd": "client.attach", "args": attach}) + b"\n")
    return sock


SILENT_VIEW = """
import socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
sock.connect(sys.argv[1])
sock.sendall(b'{"id": 1, "cmd": "client.attach", "args": {"focus": "%s"}}\\n' % sys.argv[2].encode())
print("attached", flush=True)
sys.stdin.read()  # until the test ends it; the socket is never read
"""


def _read_to_eof(sock: socket.socket) -> int:
    """Read what the server sent until it closed the connection; fails if it never does."""
    sock.settimeout(60)
    total = 0
    while data := sock.recv(1 << 16):
        total += len(data)
    return total


def _output_bytes(client: Client, sid: str, upto: int) -> None:
    """Read pushes until the session's forwarded output passes `upto` bytes."""
    while True:
        push = client.next_push(60)
        assert push is not None
        if push.get("push") == "output" and push["session"] == sid:
            if push["offset"] + len(base64.b64decode(push["data"])) >= upto:
                return
        if push.get("push") == "snapshot" and push["session"] == sid and push["offset"] >= upto:
            return


# -- item 6: a view that stops reading -------------------------------------------------------------


def test_a_view_that_stops_reading_holds_a_bounded_buffer_while_its_focus_floods(server: RunningServer) -> None:
    with server.client() as watcher:
        sid = watcher.request("session.new", name="flood", command=FLOOD)["session"]["id"]
        silent = subprocess.Popen(
            [sys.executable, "-c", SILENT_VIEW, str(server.path), sid], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        try:
            assert silent.stdout is not None and silent.stdout.readline() == b"attached\n"
            watcher.request("client.attach", follow=[sid], focus=sid)
            seen = []
            for megabytes in (8, 16, 24):  # the flood goes on, past the old 32 MiB cap's reach
                _output_bytes(watcher, sid, megabytes << 20)
                buffers = watcher.request("server.stats")["client_buffers"]
                seen.append(buffers.get(str(silent.pid), 0))
            assert 0 < max(seen) <= CLIENT_BUFFER_MAX  # behind, and bounded
            assert watcher.request("server.hello")["version"] == 1  # everyone else is served
        finally:
            silent.kill()
            silent.wait()


def test_a_view_that_stops_reading_is_dropped_when_pushes_pass_the_cap(server: RunningServer) -> None:
    with server.client() as other:
        other.request("session.new", name="r", command=["sleep", "60"])
        silent = _silent_view(server, follow=[])  # gets every event, reads none
        try:
            for i in range(12_000):  # each rename is an event pushed to the silent view
                other.request("session.rename", target="r" if i == 0 else f"r{i - 1}", name=f"r{i}")
                if i % 1000 == 999 and other.request("server.stats")["clients_dropped"]:
                    break
            stats = other.request("server.stats")
            assert stats["clients_dropped"] == 1
            assert stats["attached"] == 0
            assert _read_to_eof(silent) <= CLIENT_BUFFER_MAX + (1 << 20)  # it was closed, not waited on
        finally:
            silent.close()


def test_a_client_that_does_not_read_its_replies_is_not_read_from_past_the_cap(server: RunningServer) -> None:
    """Replies are never dropped; the client's further requests wait until it reads."""
    with server.client() as other:
        # A long argument makes session.list a large reply that costs the server little to make.
        other.request("session.new", name="big", command=["sh", "-c", "exec sleep 60", "x" * 60_000])
        reply = len(msgspec.json.encode(other.request("session.list")))
        requests = 10 * CLIENT_BUFFER_MAX // reply  # replies worth ten caps
        greedy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        greedy.connect(str(server.path))
        try:
            greedy.sendall(b"".join(b'{"id": %d, "cmd": "session.list"}\n' % i for i in range(requests)))
            asked = 0
            while (buffered := sum(other.request("server.stats")["client_buffers"].values())) < CLIENT_BUFFER_MAX:
                asked += 1
                assert asked < 10_000
            assert buffered <= CLIENT_BUFFER_MAX + 2 * reply  # one reply past the cap, not ten caps
            replies = greedy.makefile("rb")
            ids = [msgspec.json.decode(replies.readline())["id"] for _ in range(requests)]
            assert ids == list(range(requests))  # every one answered, in order, once it read
        finally:
            greedy.close()


def test_requests_in_progress_on_one_connection_are_bounded(server: RunningServer) -> None:
    with server.client() as client:
        client.request("session.new", name="idle", command=["sleep", "60"])
    conn = RawConnection(server)
    try:
        waits = b"".join(
            b'{"id": %d, "cmd": "session.wait", "args": {"target": "idle", "quiet": 3600}}\n' % i
            for i in range(MAX_IN_FLIGHT + 10)
        )
        conn.sock.sendall(waits + b'{"id": "hello", "cmd": "server.hello"}\n')
        replies = [msgspec.json.decode(conn.file.readline()) for _ in range(11)]
    finally:
        conn.close()
    assert [r["id"] for r in replies] == [*range(MAX_IN_FLIGHT, MAX_IN_FLIGHT + 10), "hello"]
    assert {r["error"]["code"] for r in replies[:-1]} == {"busy"}
    assert replies[-1]["id"] == "hello" and replies[-1]["ok"] is False  # busy too, answered at once


# -- item 7: long requests yield ----------------------------------------------------------------------

COLOURED = (
    "import sys\n"
    "for n in range(3000):\n"
    "    sys.stdout.write(''.join(f'\\x1b[38;2;{n % 256};{c};99m#' for c in range(150)) + '\\x1b[0m\\n')\n"
)


async def test_a_long_capture_is_rendered_in_slices_that_let_other_requests_through(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from termux.server import handlers

    session = {"name": "c", "command": [sys.executable, "-c", COLOURED], "cols": 160, "rows": 10}
    at_list, rendered, reply = await answered_midway(
        socket_dir, monkeypatch, handlers, session, "session.capture", target="c", start=-3000, escapes=True
    )
    lines = reply["lines"]
    assert 0 < at_list < len(lines)  # session.list was answered in the middle of the capture
    assert len(lines) >= 3000 and rendered == len(lines)
    assert "\x1b[" in lines[0] and lines[0].count("#") == 150


def test_a_catastrophic_regex_is_matched_in_linear_time(server: RunningServer) -> None:
    """`^(a+)+$` against forty a's and a '!' takes a backtracking matcher 2**40 steps."""
    with server.client() as client:
        script = "printf 'a%.0s' $(seq 40); echo '!'; exec sleep 60"
        client.request("session.new", name="a", command=["sh", "-c", script])
        wait_for_screen(server.path, "a", "!")
        with pytest.raises(TermuxError) as error:
            client.request("session.wait", target="a", match="^(a+)+$", timeout=0.5)
        assert error.value.code == "timeout"
        found = client.request("session.wait", target="a", match="^(a+)+!$", timeout=30)
        assert found["match"] == "a" * 40 + "!" and found["where"] == "screen"


@pytest.mark.parametrize(
    ("pattern", "words"),
    [(r"(a)\1", "RE2 syntax: no backreferences"), (r"(?=a)", "RE2 syntax"), (r"(\w+\s?){1,1000}!", "too complex")],
)
def test_a_regex_re2_cannot_match_in_linear_time_is_bad_args(server: RunningServer, pattern: str, words: str) -> None:
    with server.client() as client:
        client.request("session.new", name="s", command=["sleep", "60"])
        with pytest.raises(TermuxError) as error:
            client.request("session.wait", target="s", match=pattern)
        assert error.value.code == "bad_args" and words in error.value.message


async def test_matching_runs_off_the_loop_while_requests_are_served(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match that does not end (the worker is held here) does not hold up session.list."""
    release = threading.Event()
    started = threading.Event()
    real_search = matcher.search

    def held_search(job: Any) -> Any:
        started.set()
        release.wait(60)
        return real_search(job)

    monkeypatch.setattr(matcher, "search", held_search)
    async with served_client(socket_dir / "s") as (live, client):
        try:
            await client.request("session.new", name="w", command=["sh", "-c", "echo ready; exec sleep 60"])
            waiting = asyncio.ensure_future(client.request("session.wait", target="w", match="ready"))
            assert await asyncio.to_thread(started.wait, 60)
            assert [s["name"] for s in (await client.request("session.list"))["sessions"]] == ["w"]
            stats = await client.request("server.stats")
            assert stats["matches_in_flight"] == 1 and not waiting.done()
            release.set()
            assert (await waiting)["match"] == "ready"
        finally:
            release.set()


# -- item 8: out of descriptors -----------------------------------------------------------------------


@pytest.fixture
def low_fd_server(socket_dir: Path) -> Iterator[IsolatedServer]:
    running = IsolatedServer(socket_dir, extra_env={"SHELL": "/bin/sh"})
    running.start(nofile=(96, 96))
    yield running
    running.stop()


def test_sessions_are_refused_with_capacity_before_the_descriptor_limit(low_fd_server: IsolatedServer) -> None:
    with Client.connect(low_fd_server.socket_path, autostart=False) as client:
        assert client.request("server.stats")["fd_limit"] == 96
        created = 0
        with pytest.raises(TermuxError) as error:
            for created in range(1, 100):  # noqa: B007 - the count is the result
                client.request("session.new", command=["sleep", "60"])
        assert error.value.code == "capacity"
        assert "file descriptors" in error.value.message and "each session holds 2" in error.value.message
        assert 10 <= created - 1 < 48  # room was kept: well below the limit's 96 / 2
        assert client.request("session.list")["sessions"][-1]["state"] == "running"
        client.request("session.kill", target=client.request("session.list")["sessions"][0]["id"])
        client.request("session.new", command=["true"])  # a freed slot is usable again
    assert "Traceback" not in low_fd_server.server_log()


def test_accept_backs_off_when_out_of_descriptors_logs_once_and_recovers(low_fd_server: IsolatedServer) -> None:
    path = str(low_fd_server.socket_path)
    held: list[socket.socket] = []
    # Stopped, the server accepts nothing: every connection below waits in its listen backlog, so
    # on SIGCONT it accepts them in one burst and runs out of descriptors in the middle of it.
    os.kill(low_fd_server.pid, signal.SIGSTOP)
    try:
        for i in range(110):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
            sock.sendall(msgspec.json.encode({"id": i, "cmd": "server.hello"}) + b"\n")
            held.append(sock)
    finally:
        os.kill(low_fd_server.pid, signal.SIGCONT)
    answers: dict[str, int] = {}
    served: list[socket.socket] = []
    for sock in held:  # every client is answered: served, or refused with capacity
        sock.settimeout(60)
        reply = msgspec.json.decode(sock.makefile("rb").readline())
        key = "ok" if reply["ok"] else reply["error"]["code"]
        answers[key] = answers.get(key, 0) + 1
        (served if reply["ok"] else []).append(sock)
    assert set(answers) == {"ok", "capacity"}
    probe = served.pop()
    for sock in held:
        if sock is not probe:
            sock.close()
    # Recovered: once the server has seen the others go, a new client is served.
    asked = 0
    while (stats := _ask(probe, "server.stats"))["clients"] > 1:
        asked += 1
        assert asked < 1000, stats
    with Client.connect(low_fd_server.socket_path, autostart=False) as client:
        assert client.request("server.hello")["version"] == 1
    probe.close()
    log = low_fd_server.server_log()
    assert stats["accept_pauses"] >= 1
    assert log.count("out of file descriptors") == 1  # logged once, not per accept
    assert "Traceback" not in log


def _ask(sock: socket.socket, cmd: str) -> dict[str, Any]:
    sock.sendall(msgspec.json.encode({"id": cmd, "cmd": cmd}) + b"\n")
    data = b""
    while not data.endswith(b"\n"):
        data += sock.recv(1 << 16)
    result: dict[str, Any] = msgspec.json.decode(data)["result"]
    return result


# -- item 11: streamed input --------------------------------------------------------------------------


def test_send_stdin_streams_8_mb_into_a_program_at_its_pace(server: RunningServer) -> None:
    size = 8_000_000
    script = f"stty raw -echo; echo READY; head -c {size} | wc -c; exec sleep 60"
    with server.client() as client:
        client.request("session.new", name="sink", command=["sh", "-c", script])
    wait_for_screen(server.path, "sink", "READY")
    sent = server.run("send", "-t", "sink", "--stdin", input=os.urandom(size // 2).hex(), timeout=300)
    assert (sent.returncode, sent.stderr) == (0, "")
    lines = wait_for_screen(server.path, "sink", str(size))
    assert str(size) in [line.strip() for line in lines]


async def test_send_is_busy_only_when_the_program_reads_nothing(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from termux.server import session as session_module

    monkeypatch.setattr(session_module, "INPUT_STALL", 0.2)
    async with served_client(socket_dir / "s") as (live, client):
        # A program that never reads: the PTY takes a few KiB, the rest stays queued.
        await client.request("session.new", name="deaf", command=["sh", "-c", "stty raw -echo; echo ok; exec sleep 60"])
        for _ in range(600):  # at most 30 s: the program prints "ok" at once
            if any("ok" in line for line in (await client.request("session.capture", target="deaf"))["lines"]):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the program never printed ok")
        data = base64.b64encode(b"x" * (600 << 10)).decode()
        with pytest.raises(TermuxError) as error:
            await client.request("session.send", target="deaf", data=data)
        assert error.value.code == "busy" and "read none of its input" in error.value.message

