"""Trace mode: each stage of a keystroke's way stamped once, in order; nothing at all when off."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks.stages import SEEN, TYPED, read_stamps, stage_times
from e2e.isolated import IsolatedServer
from termux import trace
from termux.trace import STAGES, Tracer


def _stages(path: Path) -> list[str]:
    return [stage for _, stage in read_stamps(path)]


def test_a_stage_counts_once_per_key_after_the_one_before_it_and_for_the_key_s_session(tmp_path: Path) -> None:
    path = tmp_path / "trace"
    tracer = Tracer(str(path))
    tracer.stamp("server.echo_read", "%1")  # no key on its way yet
    tracer.stamp("server.received", "%1")
    tracer.stamp("server.echo_read", "%1")  # before its PTY write: not this key's echo
    tracer.stamp("server.pty_written", "%2")  # another session
    tracer.stamp("server.pty_written", "%1")
    tracer.stamp("server.echo_read", "%1")
    tracer.stamp("server.echo_read", "%1")  # the echo's second read: the first counts
    tracer.stamp("tui.read")  # the TUI's stages are their own sequence
    tracer.stamp("server.received", "%3")  # the next key starts a new record
    tracer.stamp("server.pty_written", "%3")
    assert _stages(path) == [
        "server.received", "server.pty_written", "server.echo_read", "tui.read",
        "server.received", "server.pty_written",
    ]  # fmt: skip


def test_the_tui_s_output_half_starts_with_the_sent_key_s_echo_and_outlives_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / "trace"
    tracer = Tracer(str(path))
    tracer.stamp("tui.received", "%1")  # output before any key was sent: not an echo
    tracer.stamp("tui.read")
    tracer.stamp("tui.sent", "%1")
    tracer.stamp("tui.received", "%2")  # a background session's output
    tracer.stamp("tui.received", "%1")
    tracer.stamp("tui.parsed", "%1")
    tracer.stamp("tui.drawn", "%1")
    tracer.stamp("tui.composed")
    tracer.stamp("tui.read")  # the next key, read while this frame is being written
    tracer.stamp("tui.written")
    assert _stages(path) == [
        "tui.read", "tui.sent", "tui.received", "tui.parsed", "tui.drawn", "tui.composed", "tui.read", "tui.written",
    ]  # fmt: skip


def test_off_by_default_and_no_file() -> None:
    assert not Tracer(None).on
    assert not Tracer("").on


def test_a_key_typed_into_the_tui_is_stamped_at_every_stage_in_order(tmp_path: Path) -> None:
    stamps = tmp_path / "trace"
    server = IsolatedServer(extra_env={"TERMUX_TRACE": str(stamps)}).start()
    try:
        done = server.run("new", "-d", "-s", "echo", "--", "sh", "-c", "stty raw -echo; printf ready; exec cat")
        assert done.returncode == 0, done.stderr
        term = server.terminal("attach", "-t", "echo", cols=100, rows=30)
        term.wait_for("ready", timeout=60)
        time.sleep(0.5)  # start-up frames are written and stamped before the key
        echo = term.expect("readyq")
        typed = time.monotonic()
        term.write(b"q")
        seen = echo.wait(30)
        following = term.expect("readyqr")  # the TUI has finished writing the first key's frame
        term.write(b"r")  # once it has written the next one
        seen_next = following.wait(30)
    finally:
        server.stop()
    times = stage_times((typed, seen), read_stamps(stamps), until=seen_next)
    assert list(times) == [TYPED, *STAGES, SEEN]  # every stage, each once
    way = [times[s] for s in [TYPED, *STAGES]]
    assert way == sorted(way)  # in the order of the way (the benchmark may see the frame before
    assert times["tui.composed"] <= seen  # the TUI stamps its write's end, never before its start)


async def test_with_tracing_off_no_hook_stamps(monkeypatch: pytest.MonkeyPatch, server: Any) -> None:
    """The TUI's hooks (in this process) test `TRACE.on` and go no further; the server's are the
    same code path, run in its own process without TERMUX_TRACE."""
    from termux.client import AsyncClient
    from termux.tui.app import TermuxApp
    from tests.tui.helpers import wait_until

    def never(*args: object) -> None:
        raise AssertionError("a hook stamped with tracing off")

    assert not trace.TRACE.on
    monkeypatch.setattr(trace.TRACE, "stamp", never)
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    client = await AsyncClient.connect(server.path, autostart=False)
    app = TermuxApp(client)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, app.attached.is_set)
        await pilot.press("x")
        shadows = app.model.feeder.shadows
        await wait_until(pilot, lambda: "x" in "".join(shadows[app.model.focused or ""].screen.display))
        await pilot.pause(0.1)
    await client.close()
