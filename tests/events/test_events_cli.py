"""`termux events` and `termux wait` as a user runs them: a subprocess CLI against a real server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from event_helpers import cli, serve_in_loop, shutdown, spawn_cli

from termux.server import dispatch
from termux.server.server import Server


def bell(server: Server) -> int:
    return server.events.append("session.bell", session="%0", name="x").seq


async def spawn_events(env: dict[str, str], *args: str) -> asyncio.subprocess.Process:
    return await spawn_cli(env, "events", *args)


async def read_seqs(proc: asyncio.subprocess.Process, last: int, seen: list[int]) -> None:
    assert proc.stdout is not None
    while not seen or seen[-1] < last:
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert line, "the CLI stopped printing"
        seen.append(json.loads(line)["seq"])


async def finish(proc: asyncio.subprocess.Process) -> str:
    proc.terminate()
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    return err.decode()


async def until(predicate: object) -> None:
    while not predicate():  # type: ignore[operator]
        await asyncio.sleep(0.01)


async def test_events_resumes_after_a_dropped_connection_with_no_gap_and_no_duplicate(
    live: Server, termux_env: dict[str, str]
) -> None:
    for _ in range(3):
        bell(live)
    proc = await spawn_events(termux_env, "--json", "--cursor", "0")
    seen: list[int] = []
    await read_seqs(proc, 3, seen)
    for _ in range(2):
        bell(live)
    await read_seqs(proc, 5, seen)
    # Cut the stream's connection, and commit more while the CLI is reconnecting.
    for conn in [c for c in live.connections if c.stream is not None]:
        assert conn.transport is not None
        conn.transport.abort()
    for _ in range(5):
        bell(live)
    await read_seqs(proc, 10, seen)
    await until(lambda: live.events.stream_count == 1)
    for _ in range(2):
        bell(live)
    await read_seqs(proc, 12, seen)
    await finish(proc)
    assert seen == list(range(1, 13))


async def test_events_starts_at_the_tail_and_filters_by_type(live: Server, termux_env: dict[str, str]) -> None:
    bell(live)
    proc = await spawn_events(termux_env, "--json", "--type", "renamed")
    await until(lambda: live.events.stream_count == 1)
    bell(live)
    seq = live.events.append("session.renamed", session="%0", name="y", old="x").seq
    seen: list[int] = []
    await read_seqs(proc, seq, seen)
    assert seen == [seq]
    assert await finish(proc) == ""


@pytest.mark.parametrize("why", ["capacity", "old server"])
async def test_events_falls_back_to_long_polling_with_one_notice(
    live: Server, termux_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, why: str
) -> None:
    if why == "capacity":
        live.events.max_streams = 0
    else:
        monkeypatch.delitem(dispatch.COMMANDS, "events.stream")
    for _ in range(2):
        bell(live)
    proc = await spawn_events(termux_env, "--json", "--cursor", "0")
    seen: list[int] = []
    await read_seqs(proc, 2, seen)
    await until(lambda: live.events.waiter_count == 1)  # parked in a long poll, not polling
    for _ in range(3):
        bell(live)
    await read_seqs(proc, 5, seen)
    err = await finish(proc)
    assert seen == [1, 2, 3, 4, 5]
    assert len(err.strip().splitlines()) == 1 and "long-polling" in err


async def test_events_poll_and_timeout_and_human_format(live: Server, termux_env: dict[str, str]) -> None:
    live.events.append("session.exited", session="%3", name="build", exit_code=2, exit_signal=None)
    code, out, err = await cli(termux_env, "events", "--poll", "--cursor", "0", "--timeout", "0.3")
    assert code == 0 and err == ""
    fields = out.split()
    assert fields[0] == "1" and fields[2:] == [
        "session.exited",
        "%3",
        "build",
        "exit_code=2",
        "exit_signal=null",
    ]
    code, out, err = await cli(termux_env, "events", "--timeout", "0.2")
    assert (code, out, err) == (0, "", "")


async def test_wait_for_exit_match_quiet_and_timeout(live: Server, termux_env: dict[str, str]) -> None:
    script = "echo starting; read x; echo got-$x; read y; exit 3"
    code, _, err = await cli(termux_env, "new", "-d", "-s", "job", "--", "sh", "-c", script)
    assert code == 0, err
    assert await cli(termux_env, "wait", "-t", "job", "--match", "start\\w+") == (0, "starting\n", "")
    waiting = asyncio.create_task(cli(termux_env, "wait", "-t", "job", "--match", r"got-\d+"))
    await cli(termux_env, "send", "-t", "job", "42", "Enter")
    assert await waiting == (0, "got-42\n", "")
    code, out, _ = await cli(termux_env, "wait", "-t", "job", "--quiet", "0.2")
    assert (code, out) == (0, "")
    code, _, err = await cli(termux_env, "wait", "-t", "job", "--exit", "--timeout", "0.2")
    assert code == 124 and "timed out" in err
    exiting = asyncio.create_task(cli(termux_env, "wait", "-t", "job", "--exit"))
    await cli(termux_env, "send", "-t", "job", "Enter")
    assert await exiting == (0, "3\n", "")
    code, _, err = await cli(termux_env, "wait", "-t", "nope", "--exit")
    assert code == 1 and "no_session" in err
    code, _, err = await cli(termux_env, "wait", "-t", "job", "--match", "(")
    assert code == 1 and "bad_args" in err


async def test_events_cursor_older_than_the_ring_or_from_another_run(
    socket_dir: Path, termux_env: dict[str, str]
) -> None:
    server, task = await serve_in_loop(socket_dir / "default", event_capacity=5)
    try:
        for _ in range(12):
            bell(server)
        # --cursor 0 means "everything still held": no notice.
        code, out, err = await cli(termux_env, "events", "--json", "--cursor", "0", "--timeout", "0.3")
        assert (code, err) == (0, "") and [json.loads(x)["seq"] for x in out.splitlines()] == [8, 9, 10, 11, 12]
        # A cursor whose events are gone: a notice on stderr, then what is held.
        code, out, err = await cli(termux_env, "events", "--json", "--cursor", "3", "--timeout", "0.3")
        assert code == 0 and [json.loads(x)["seq"] for x in out.splitlines()] == [8, 9, 10, 11, 12]
        assert "no longer held" in err and len(err.splitlines()) == 1
        # A cursor from another server run: a notice, then this run's events.
        code, out, err = await cli(termux_env, "events", "--json", "--cursor", "99", "--timeout", "0.3", "--poll")
        assert code == 0 and [json.loads(x)["seq"] for x in out.splitlines()] == [8, 9, 10, 11, 12]
        assert "another server run" in err
    finally:
        await shutdown(server, task)


async def test_events_gives_up_when_the_server_is_gone_for_good(socket_dir: Path, termux_env: dict[str, str]) -> None:
    server, task = await serve_in_loop(socket_dir / "default")
    proc = await spawn_events(termux_env, "--json")
    await until(lambda: server.events.stream_count == 1)
    await shutdown(server, task)
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 3 and "could not reconnect" in err.decode()


def test_server_options_configure_the_event_log(socket_dir: Path, termux_env: dict[str, str]) -> None:
    import os
    import subprocess
    import sys

    from termux.client import Client, TermuxError

    path = socket_dir / "opts"
    bad = subprocess.run(
        [sys.executable, "-m", "termux", "-S", str(path), "server", "--quiet-after", "0"],
        env=termux_env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "--quiet-after" in bad.stderr
    ready_r, ready_w = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "termux", "-S", str(path), "server", "--ready-fd", str(ready_w),
         "--event-capacity", "5", "--max-streams", "1", "--quiet-after", "0.2"],
        env=termux_env, pass_fds=(ready_w,), stderr=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(ready_w)
    try:
        assert os.read(ready_r, 16).startswith(b"ready")
        with Client.connect(path, autostart=False) as a, Client.connect(path, autostart=False) as b:
            sid = a.request("session.new", name="n", command=["sh", "-c", "echo hi; exec sleep 600"])["session"]["id"]
            a.request("events.stream", cursor=0, types=["session.quiet"])
            assert a.next_push(30)["event"]["type"] == "session.quiet"  # type: ignore[index]
            with pytest.raises(TermuxError) as capacity:
                b.request("events.stream")
            assert capacity.value.code == "capacity"
            for i in range(8):
                b.request("session.rename", target=sid, name=f"n{i}")
            with pytest.raises(TermuxError) as expired:
                b.request("events.read", cursor=0)
            assert expired.value.code == "cursor_expired" and b.request("events.read")["cursor"] > 5
    finally:
        os.close(ready_r)
        proc.terminate()
        proc.wait(30)
