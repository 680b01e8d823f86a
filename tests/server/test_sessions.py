"""Session lifecycles against a real server: exits, kills, descriptors and zombies."""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path
from typing import Any

from termux.server.scheduler import FORWARD_FOCUS_BURST
from termux.server.session import Session, SessionConfig, SessionHooks
from tests.conftest import RunningServer, wait_for_screen


def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, state) of every process whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append((int(entry.name), fields[0]))
    return found


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_output_written_right_before_exit_is_captured(server: RunningServer) -> None:
    with server.client() as client:
        client.request("client.attach")
        script = "i=0; while [ $i -lt 300 ]; do echo line$i; i=$((i+1)); done; printf 'LAST WORDS'"
        client.request("session.new", name="burst", command=["sh", "-c", script], rows=5)
        while True:
            push = client.next_push(20)
            assert push is not None
            if push.get("push") == "event" and push["event"]["type"] == "session.exited":
                break
        lines = client.request("session.capture", target="burst")["lines"]
    assert "LAST WORDS" in lines[-1] or "LAST WORDS" in "\n".join(lines)
    assert "line299" in "\n".join(lines)


def test_kill_escalates_to_sigkill_for_a_program_that_ignores_hup_and_term(server: RunningServer) -> None:
    with server.client() as client:
        client.request(
            "session.new",
            name="stubborn",
            command=["sh", "-c", "trap '' HUP TERM; echo ready; while :; do sleep 1; done"],
        )
        wait_for_screen(server.path, "stubborn", "ready")
        killed = client.request("session.kill", target="stubborn")["session"]
    assert killed["state"] == "exited"
    assert killed["exit_signal"] == 9
    assert [state for _, state in _children(server.process.pid)] == []


def test_many_sessions_leave_no_zombie_and_no_descriptor(server: RunningServer) -> None:
    pid = server.process.pid
    with server.client() as client:
        client.request("session.new", name="warmup", command=["true"])
        client.request("session.kill", target="warmup")
        fds_before = _open_fds(pid)
        for round in range(4):
            names = [f"s{round}-{i}" for i in range(50)]
            for name in names:
                client.request("session.new", name=name, command=["sh", "-c", "sleep 60"])
            assert len(_children(pid)) >= 50
            for name in names:
                client.request("session.kill", target=name)
        assert client.request("session.list")["sessions"] == []
        assert _children(pid) == []
        assert _open_fds(pid) == fds_before


def test_exited_sessions_are_reaped_at_once(server: RunningServer) -> None:
    with server.client() as client:
        client.request("client.attach")
        for i in range(20):
            client.request("session.new", name=f"quick{i}", command=["true"])
        exited = 0
        while exited < 20:
            push = client.next_push(20)
            assert push is not None
            if push.get("push") == "event" and push["event"]["type"] == "session.exited":
                exited += 1
        assert [s for s in _children(server.process.pid) if s[1] == "Z"] == []
        states = {s["state"] for s in client.request("session.list")["sessions"]}
    assert states == {"exited"}


def test_a_resize_is_an_event_only_when_the_size_changes(server: RunningServer) -> None:
    with server.client() as client:
        client.request("session.new", name="r", command=["sleep", "60"], cols=80, rows=24)
        client.request("client.attach")
        client.request("session.resize", target="r", cols=80, rows=24)  # no change: no event
        client.request("session.resize", target="r", cols=100, rows=30)
        client.request("session.rename", target="r", name="r2")  # a later event, to know we saw all
        types = []
        while "session.renamed" not in types:
            push = client.next_push(20)
            assert push is not None
            if push.get("push") == "event":
                types.append(push["event"]["type"])
                if push["event"]["type"] == "session.resized":
                    assert (push["event"]["data"]["cols"], push["event"]["data"]["rows"]) == (100, 30)
    assert types.count("session.resized") == 1


def _forwarded(pushes: list[dict[str, Any]], sid: str) -> tuple[int, list[dict[str, Any]]]:
    """Bytes of `sid`'s output pushes, and its snapshot pushes."""
    data = sum(len(base64.b64decode(p["data"])) for p in pushes if p.get("push") == "output" and p["session"] == sid)
    return data, [p for p in pushes if p.get("push") == "snapshot" and p["session"] == sid]


def _view_end(pushes: list[dict[str, Any]], sid: str) -> int:
    """The output offset a view of `sid` has reached: each snapshot sets it, each output push
    must start where it is (nothing lost, nothing twice) and moves it on."""
    end = 0
    for push in pushes:
        if push.get("push") == "snapshot" and push["session"] == sid:
            end = push["offset"]
        elif push.get("push") == "output" and push["session"] == sid:
            assert push["offset"] == end, f"output at {push['offset']}, the view at {end}"
            end += len(base64.b64decode(push["data"]))
    return end


def test_a_coalescing_view_gets_floods_as_snapshots_past_their_budgets_the_focus_within_a_larger_one(
    server: RunningServer,
) -> None:
    """A background flood is forwarded within FORWARD_BURST and comes as snapshots past it; the
    focus's within FORWARD_FOCUS_BURST, far larger. Either way the view's output offsets run on
    without a gap or an overlap, and the last snapshot ends exactly where the output ended, with
    the screen the server has."""
    size = 2_000_000
    flood = ["python3", "-c", f"import sys; sys.stdout.write('x' * {size}); sys.stdout.flush()"]
    with server.client() as client:
        focused = client.request("session.new", name="focused", command=["sleep", "60"])["session"]["id"]
        client.request("client.attach", focus=focused, coalesce=True)
        background = client.request("session.new", name="bg", command=flood)["session"]["id"]
        loud = client.request("session.new", name="loud", command=flood)["session"]["id"]
        client.request("client.focus", target=loud)
        pushes: list[dict[str, Any]] = []
        exited: set[str] = set()
        while exited != {background, loud}:
            push = client.next_push(60)
            assert push is not None
            pushes.append(push)
            if push.get("push") == "event" and push["event"]["type"] == "session.exited":
                exited.add(push["event"]["session"])
        for sid in (background, loud):
            while not (snaps := _forwarded(pushes, sid)[1]) or snaps[-1]["offset"] < size:
                push = client.next_push(30)
                assert push is not None, f"no snapshot of {sid}'s skipped output came"
                pushes.append(push)
            assert _view_end(pushes, sid) == size
            assert snaps[-1]["data"] == client.request("session.snapshot", target=sid)["data"]
        background_bytes = _forwarded(pushes, background)[0]
        loud_bytes = _forwarded(pushes, loud)[0]
        assert background_bytes < FORWARD_FOCUS_BURST <= loud_bytes < size // 2


def test_a_focus_printing_within_its_budget_is_forwarded_whole(server: RunningServer) -> None:
    """A command's output in the focus, a burst under FORWARD_FOCUS_BURST: every byte, in order,
    no snapshot (a background session's burst that large is cut short by its own budget)."""
    size = FORWARD_FOCUS_BURST // 2
    burst = ["python3", "-c", f"import sys; sys.stdout.write('z' * {size}); sys.stdout.flush()"]
    with server.client() as client:
        idle = client.request("session.new", name="idle", command=["sleep", "60"])["session"]["id"]
        client.request("client.attach", focus=idle, coalesce=True)
        loud = client.request("session.new", name="loud", command=["sh", "-c", "read x; exec \"$@\"", "sh", *burst])[
            "session"
        ]["id"]
        client.request("client.focus", target=loud)
        client.request("session.send", target=loud, data=base64.b64encode(b"go\r").decode())
        pushes: list[dict[str, Any]] = []
        while not any(p.get("push") == "event" and p["event"]["type"] == "session.exited" for p in pushes):
            push = client.next_push(60)
            assert push is not None
            pushes.append(push)
        forwarded, snapshots = _forwarded(pushes, loud)
        assert snapshots == [] and _view_end(pushes, loud) == forwarded >= size


def test_without_coalesce_every_byte_of_every_session_is_forwarded(server: RunningServer) -> None:
    size = 500_000
    flood = ["python3", "-c", f"import sys; sys.stdout.write('y' * {size}); sys.stdout.flush()"]
    with server.client() as client:
        client.request("client.attach")
        sid = client.request("session.new", name="bg", command=flood)["session"]["id"]
        pushes: list[dict[str, Any]] = []
        while not any(p.get("push") == "event" and p["event"]["type"] == "session.exited" for p in pushes):
            push = client.next_push(60)
            assert push is not None
            pushes.append(push)
        assert _forwarded(pushes, sid) == (size, [])


def test_a_session_read_in_rests_and_in_bursts_has_the_screen_its_bytes_make(
    server: RunningServer, tmp_path: Path
) -> None:
    """Whatever pieces the server reads a PTY in (a line at a time, resting between ticks, or
    many reads per wake-up in a burst), the screen and scrollback are those of its bytes fed
    whole: compared, with colours, against an emulator fed the program's output in one go."""
    import termux.emulator as emulator

    lines = [f"\x1b[3{n % 8}mline {n}\x1b[0m {'.' * (n % 70)}\r\n" for n in range(400)]
    slow, burst = "".join(lines[:150]), "".join(lines[150:]) * 20
    program = tmp_path / "print.py"
    program.write_text(
        "import os, sys, time\n"
        f"slow, burst = {slow!r}, {burst!r}\n"
        "for line in slow.splitlines(keepends=True):\n"
        "    os.write(1, line.encode()); time.sleep(0.002)\n"  # a little at a time: the session rests
        "os.write(1, burst.encode())\n"  # then more than a PTY read returns at once
    )
    expected = emulator.Screen(80, 24, history=10_000)
    emulator.ByteStream(expected).feed((slow + burst).encode())
    with server.client() as client:
        client.request("client.attach", follow=[])
        command = ["sh", "-c", f"stty -opost; exec python3 {program}"]
        sid = client.request("session.new", command=command)["session"]["id"]
        while True:
            push = client.next_push(60)
            assert push is not None, "the session did not exit"
            event = push.get("event") or {}
            if event.get("type") == "session.exited" and event.get("session") == sid:
                break
        got = client.request("session.capture", target=sid, start=-20_000, end=23, escapes=True)
    assert got["lines"] == emulator.capture(expected, -20_000, 23, escapes=True)
    assert (got["cursor"]["x"], got["cursor"]["y"]) == (expected.cursor.x, expected.cursor.y)


async def test_a_session_told_not_to_drain_reads_once_per_wake_up() -> None:
    """A read past the first may wait for the kernel's worker with the loop stopped
    (Session._on_readable): a session the server tells not to drain reads once per wake-up, and
    still reads everything."""
    size = 400_000
    reads: list[int] = []
    wake_ups = 0
    all_read = asyncio.get_running_loop().create_future()

    def drains(session: Session, nbytes: int) -> bool:
        nonlocal wake_ups
        wake_ups += 1  # asked once per wake-up that read something
        return False

    def read(session: Session, nbytes: int) -> None:
        reads.append(session.bytes_read)
        if session.bytes_read >= size and not all_read.done():
            all_read.set_result(None)

    hooks = SessionHooks(output_ready=read, exited=lambda s: None, drains=drains)
    config = SessionConfig(argv=["sh", "-c", f"head -c {size} /dev/zero | tr '\\0' x; sleep 60"], cwd="/", env={})
    session = Session("%0", "flood", config, hooks)
    try:
        await asyncio.wait_for(all_read, 60)
    finally:
        await session.kill()
    assert session.bytes_read == size and len(reads) > 1
    assert len(reads) == wake_ups  # exactly one read each


def test_a_parse_slice_ends_after_a_redrawn_row_when_more_is_left() -> None:
    """The backlog gives the parser whole rows of a full-screen program where it can: a take that
    leaves bytes behind ends after the last EL in its second half (so neither the emulator nor
    the TUI's shadow draws a row cut in two run by run); with no EL there, or nothing left
    behind, it takes its budget. Every byte comes out once, in order."""
    from termux.server.session import ROW_END, OutputBacklog

    rows = b"".join(b"\x1b[%d;1H\x1b[33mrow %d\x1b[m of text\x1b[K" % (y % 40 + 1, y) for y in range(200))
    backlog = OutputBacklog()
    for i in range(0, len(rows), 700):  # (as reads cut them)
        backlog.push(rows[i : i + 700])
    taken = [backlog.take(1000) for _ in range(3)]
    assert all(piece.endswith(ROW_END) and 500 <= len(piece) <= 1000 for piece in taken)
    assert backlog.size == len(rows) - sum(map(len, taken))
    rest = backlog.take(len(rows))  # all that is left: taken whole
    assert b"".join(taken) + rest == rows and backlog.size == 0 and not backlog.chunks

    text = b"x" * 1000 + b"\x1b[K" + b"y" * 5000  # an EL, but in the first half: the budget
    backlog.push(text)
    assert backlog.take(5000) == text[:5000] and backlog.take(5000) == text[5000:]
    backlog.push(text)
    assert backlog.take(len(text)) == text  # nothing left behind: the whole of it, EL or not
