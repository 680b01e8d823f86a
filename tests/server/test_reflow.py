"""Reflow through the server: a real program's long line survives a resize round trip, `capture -J`
joins what the terminal wrapped, and the scrollback of a long history is re-cut in bounded steps
between which the server serves everyone else."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from termux.protocol.events import SessionExited
from termux.protocol.pushes import EventPush
from tests.conftest import RunningServer, wait_for_screen
from tests.events.event_helpers import served_client

LONG = "".join(f"{i:03d}," for i in range(25))  # 100 characters


def test_a_long_line_survives_112_80_112_and_capture_joins_it(server: RunningServer) -> None:
    program = f"printf 'start\\n{LONG}\\nend\\n'; sleep 60"
    server.run("new", "-d", "-s", "long", "-x", "112", "-y", "10", "--", "sh", "-c", program)
    wait_for_screen(server.path, "long", "end")
    assert server.captured_lines("long") == ["start", LONG, "end"]
    assert server.run("resize", "-t", "long", "80", "10").returncode == 0
    assert server.captured_lines("long") == ["start", LONG[:80], LONG[80:], "end"]
    assert server.captured_lines("long", "-J") == ["start", LONG, "end"]
    assert server.run("capture", "-t", "long", "-J", "-S", "0", "-E", "0").stdout == LONG[:80] + "\n"  # rows
    assert server.run("resize", "-t", "long", "112", "10").returncode == 0
    assert server.captured_lines("long") == ["start", LONG, "end"]
    grep = server.run("capture", "-t", "long", "-J", "--grep", "x")
    assert grep.returncode == 2
    assert grep.stderr == "termux: --grep numbers the rows as -S takes them: give it without -J\n"


async def test_a_long_history_reflows_in_bounded_steps_between_other_requests(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from termux.server import session as session_module

    monkeypatch.setattr(session_module, "REFLOW_STEP", 200)
    async with served_client(socket_dir / "s") as (live, client):
        await client.request("client.attach", follow=[])
        program = f"i=0; while [ $i -lt 3000 ]; do echo {LONG}; i=$((i+1)); done"
        new = {"name": "log", "command": ["sh", "-c", program], "cols": 120, "rows": 20}
        await client.request("session.new", **new)
        while True:
            push = await asyncio.wait_for(client.pushes.get(), 60)
            if isinstance(push, EventPush) and isinstance(push.event, SessionExited):
                break
        session = next(iter(live.sessions.values()))
        screen = session.screen
        before = (await client.request("session.capture", target="log", start=-10**6, join=True))["lines"]
        assert len(screen.history) >= 2980 and not screen.history.pending

        steps: list[tuple[int, int]] = []  # (rows re-cut, pending lines left) per step
        done = asyncio.get_running_loop().create_future()
        real_step = screen.reflow_step

        def counted(budget: int = 1000) -> bool:
            history = screen.history
            recut = len(history) - history.pending
            more = real_step(budget)
            steps.append((len(history) - history.pending - recut, history.pending))
            if not more:
                done.set_result(None)
            return more

        screen.reflow_step = counted  # type: ignore[method-assign]
        await client.request("session.resize", target="log", cols=80, rows=20)
        assert screen.history.pending  # the reply came before the scrollback was all re-cut
        await client.request("session.list")
        at_list = len(steps)
        await asyncio.wait_for(done, 60)
        assert at_list < len(steps)  # another request was answered in the middle
        # 3,000 lines of two rows each, 200 rows (100 lines) a step: bounded, and finished.
        assert len(steps) >= 25 and max(rows for rows, _ in steps) <= 200 + 2 and steps[-1][1] == 0
        assert session._reflowing is None  # nothing left armed
        after = (await client.request("session.capture", target="log", start=-10**6, join=True))["lines"]
        assert after == before
        rows: list[Any] = (await client.request("session.capture", target="log", start=-6, end=-1))["lines"]
        assert rows in ([LONG[:80], LONG[80:]] * 3, [LONG[80:], LONG[:80]] * 3)  # every line on two rows
