"""The loop gauge, the opt-in slow-callback monitor and server.profile: mechanisms, not speeds.

Clocks are injected, so every figure here is exact; nothing depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.isolated import IsolatedServer
from termux.client import Client, TermuxError
from termux.server import gauge
from termux.server.gauge import BUCKET, BUCKETS, LoopGauge, SlowCallbackMonitor
from termux.server.server import Server
from tests.loops import in_watched_loop, watched


class FakeClock:
    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# -- LoopGauge: the arithmetic ------------------------------------------------------------------


def test_busy_stretches_make_the_utilisation() -> None:
    clock = FakeClock()
    g = LoopGauge(clock)  # starts busy at 0
    clock.now = 0.1
    g.idle()
    clock.now = 1.0
    g.wake()
    clock.now = 1.3
    g.idle()
    clock.now = 2.0
    report = g.report()
    assert report["window"] == 2.0  # younger than the window: since start
    assert report["busy"] == pytest.approx(0.4)
    assert report["utilisation"] == pytest.approx(0.2)
    assert report["iterations"] == 2
    assert report["busy_max_ms"] == pytest.approx(300)


def test_the_stretch_in_progress_counts() -> None:
    clock = FakeClock()
    g = LoopGauge(clock)
    g.idle()
    clock.now = 1.0
    g.wake()
    clock.now = 1.25
    report = g.report()
    assert report["busy"] == pytest.approx(0.25)
    assert report["busy_max_ms"] == pytest.approx(250)
    assert report["busy_total"] == pytest.approx(0.25)


def test_old_busy_time_leaves_the_window() -> None:
    clock = FakeClock()
    g = LoopGauge(clock)
    clock.now = 1.0
    g.idle()  # one busy second at the start
    clock.now = 1000.0  # a long idle stretch: nothing ran, nothing had to
    report = g.report()
    assert report["utilisation"] == 0.0
    assert report["iterations"] == 0
    assert BUCKET * (BUCKETS - 1) <= report["window"] < BUCKET * BUCKETS
    assert report["busy_total"] == pytest.approx(1.0) and report["iterations_total"] == 1


def test_a_loop_that_never_idles_is_fully_utilised() -> None:
    clock = FakeClock()
    g = LoopGauge(clock)
    for _ in range(100):
        clock.advance(0.1)
        g.idle()
        g.wake()  # select returned at once: no time passed in it
    assert g.report()["utilisation"] == 1.0


def test_a_reused_slot_forgets_its_previous_bucket() -> None:
    clock = FakeClock()
    g = LoopGauge(clock)
    clock.now = 0.2
    g.idle()
    clock.now = BUCKET * BUCKETS + 0.1  # same slot index, a later bucket
    g.wake()
    clock.now += 0.05
    g.idle()
    report = g.report()
    assert report["iterations"] == 1
    assert report["busy"] == pytest.approx(0.05)


def test_idle_and_wake_are_idempotent() -> None:
    clock = FakeClock()
    g = LoopGauge(clock)
    clock.now = 0.1
    g.idle()
    clock.now = 0.2
    g.idle()  # already idle: no second stretch
    g.wake()
    clock.now = 0.3
    g.wake()  # already busy: the stretch still began at 0.2
    g.idle()
    assert g.iterations == 2
    assert g.busy_total == pytest.approx(0.2)


# -- the selector wrapper on a real loop --------------------------------------------------------


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.SelectorEventLoop()
    try:
        yield loop
    finally:
        loop.close()


def test_a_metered_loop_tells_its_gauge_and_still_works() -> None:
    g = LoopGauge()
    loop = gauge.metered_loop(g)

    async def ping_pong() -> bytes:
        a, b = socket.socketpair()
        try:
            reader, writer = await asyncio.open_connection(sock=a)
            b.sendall(b"ping\n")
            line = await reader.readline()
            writer.close()
            return line
        finally:
            b.close()

    try:
        assert loop.run_until_complete(ping_pong()) == b"ping\n"
    finally:
        loop.close()
    assert g.iterations >= 2  # one stretch per select


@in_watched_loop
async def test_the_gauge_arms_no_timer() -> None:
    loop = watched()  # a metered loop (the gauge's TimedSelector) that keeps account
    await asyncio.sleep(0)
    assert loop.passes >= 1  # the gauge counted the passes
    assert not loop.pending_timers()
    assert not loop.queued()


async def test_a_server_in_a_loop_it_did_not_make_has_no_gauge(tmp_path: Path) -> None:
    # Only a loop made by metered_loop (termux server's) is measured: nothing of another is replaced.
    assert Server(tmp_path / "sock").stats()["loop"] is None


# -- the slow-callback monitor --------------------------------------------------------------------


def test_slow_callbacks_are_recorded_and_fast_ones_are_not(loop: asyncio.AbstractEventLoop) -> None:
    clock = FakeClock()
    monitor = SlowCallbackMonitor(threshold=0.010, clock=clock)
    original = asyncio.Handle._run
    monitor.enable()
    try:

        def slow() -> None:
            clock.advance(0.050)

        def fast() -> None:
            clock.advance(0.001)

        loop.call_soon(slow)
        loop.call_soon(fast)
        loop.run_until_complete(asyncio.sleep(0))
    finally:
        monitor.disable()
    assert asyncio.Handle._run is original
    assert monitor.count == 1
    report = monitor.report()
    assert report["slowest"][0]["ms"] == pytest.approx(50)
    assert "slow" in report["slowest"][0]["callback"]


def test_the_monitor_keeps_only_the_slowest(loop: asyncio.AbstractEventLoop) -> None:
    clock = FakeClock()
    monitor = SlowCallbackMonitor(threshold=0.0, clock=clock, keep=3)
    monitor.enable()
    try:
        for ms in (5, 1, 9, 3, 7):
            loop.call_soon(clock.advance, ms / 1000)
        loop.run_until_complete(asyncio.sleep(0))
    finally:
        monitor.disable()
    assert [round(e * 1000) for e, _ in monitor.slowest] == [9, 7, 5]


@pytest.mark.parametrize("value", ["", "abc", "0", "-3"])
def test_the_monitor_is_off_unless_asked_for(value: str) -> None:
    original = asyncio.Handle._run
    assert gauge.slow_monitor_from_env({gauge.SLOW_ENV: value} if value else {}) is None
    assert asyncio.Handle._run is original


def test_the_environment_turns_the_monitor_on() -> None:
    monitor = gauge.slow_monitor_from_env({gauge.SLOW_ENV: "25"})
    assert monitor is not None
    try:
        assert monitor.enabled and monitor.threshold == pytest.approx(0.025)
    finally:
        monitor.disable()


# -- in a real server ----------------------------------------------------------------------------


def _stats(srv: IsolatedServer) -> dict[str, object]:
    with Client.connect(srv.socket_path, autostart=False) as client:
        return client.request("server.stats")


def test_stats_report_the_loop_and_no_monitor_by_default() -> None:
    with IsolatedServer() as srv:
        stats = _stats(srv)
        loop = stats["loop"]
        assert isinstance(loop, dict)
        assert 0.0 <= loop["utilisation"] <= 1.0
        assert loop["iterations_total"] >= 1
        assert "slow_callbacks" not in stats
        assert stats["event_queues"] == {}
        printed = srv.run("stats", "--json")
        assert printed.returncode == 0, printed.stderr
        assert "utilisation" in json.loads(printed.stdout)["loop"]


def test_stats_work_with_event_streams_open() -> None:
    with IsolatedServer() as srv, Client.connect(srv.socket_path, autostart=False) as stream:
        stream.request("events.stream")
        stats = _stats(srv)
        assert stats["event_queues"] == {}  # a stream that has been sent everything is not behind


def test_the_environment_variable_turns_the_monitor_on_in_the_server() -> None:
    with IsolatedServer(extra_env={gauge.SLOW_ENV: "1000"}) as srv:
        slow = _stats(srv)["slow_callbacks"]
        assert isinstance(slow, dict) and slow["threshold_ms"] == 1000 and slow["count"] == 0


def test_profiling_is_refused_unless_enabled() -> None:
    with IsolatedServer() as srv, Client.connect(srv.socket_path, autostart=False) as client:
        with pytest.raises(TermuxError) as err:
            client.request("server.profile", action="start")
        assert err.value.code == "bad_args"


def test_a_profile_covers_the_window_between_start_and_stop() -> None:
    with IsolatedServer(extra_env={gauge.PROFILE_ENV: "1"}) as srv:
        with Client.connect(srv.socket_path, autostart=False) as client:
            with pytest.raises(TermuxError):
                client.request("server.profile", action="stop")  # nothing running
            client.request("server.profile", action="start")
            with pytest.raises(TermuxError):
                client.request("server.profile", action="start")  # one at a time
            client.request("session.list")
            text = client.request("server.profile", action="stop")["text"]
        assert isinstance(text, str) and text
