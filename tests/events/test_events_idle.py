"""Idle costs nothing, and delivery needs no tick (issue 4, item 6).

The server runs in this test's loop, a WatchedLoop (tests/loops.py): every `call_at` (which
`call_later`, `asyncio.sleep` and `wait_for` go through) is recorded, and so is every loop pass.
With sessions and subscribers open and nothing happening, no timer may be armed and the loop must
not spin; a committed event must reach the subscribers within a few loop passes with no timer fired.
"""

from __future__ import annotations

import time
from pathlib import Path

from event_helpers import event_of, serve_in_loop, shutdown

from termux.client import AsyncClient
from tests.loops import Timer, WatchedLoop, in_watched_loop, watched


class LoopSpy:
    """What the loop did since the spy was made: timers armed and fired, and the loop's passes."""

    def __init__(self, loop: WatchedLoop) -> None:
        self.loop = loop
        self._timers_before = len(loop.timers)
        self._fired_before = loop.fired

    @property
    def armed(self) -> list[Timer]:
        return self.loop.timers[self._timers_before :]

    @property
    def fired(self) -> int:
        return self.loop.fired - self._fired_before

    @property
    def passes(self) -> int:
        return self.loop.passes

    def pending(self) -> list[Timer]:
        """Timers armed and neither cancelled nor run — ours and any the loop already held."""
        return self.loop.pending_timers()


@in_watched_loop
async def test_no_timer_while_idle_and_delivery_without_a_tick(socket_dir: Path) -> None:
    loop = watched()
    server, task = await serve_in_loop(socket_dir / "s", quiet_after=0.2)
    clients: list[AsyncClient] = []
    spy: LoopSpy | None = None
    try:
        control = await AsyncClient.connect(server.socket_path, autostart=False)
        clients.append(control)
        watcher = await AsyncClient.connect(server.socket_path, autostart=False)
        clients.append(watcher)
        await watcher.request("events.stream", types=["session.quiet"])
        for i in range(3):
            await control.request("session.new", name=f"s{i}", command=["sh", "-c", "echo ready; exec sleep 600"])
        subscribers = []
        for _ in range(5):
            sub = await AsyncClient.connect(server.socket_path, autostart=False)
            await sub.request("events.stream")
            subscribers.append(sub)
        clients.extend(subscribers)
        attached = await AsyncClient.connect(server.socket_path, autostart=False)
        clients.append(attached)
        await attached.request("client.attach")
        waiting = await AsyncClient.connect(server.socket_path, autostart=False)
        clients.append(waiting)
        waiting.send_nowait("session.wait", target="s0", exit=True)  # a parked waiter with no deadline
        # Every session printed once and went quiet: from here on nothing happens.
        quiet = {event_of(await watcher.pushes.get()).session for _ in range(3)}
        assert len(quiet) == 3
        for sub in subscribers:  # drain what they were pushed so far
            while not sub.pushes.empty():
                sub.pushes.get_nowait()

        spy = LoopSpy(loop)
        assert spy.pending() == [], "a timer is armed while idle"
        assert not server.activity.armed
        # Idle window: the wait happens in a thread, so the loop itself has no reason to wake.
        before = spy.passes
        await loop.run_in_executor(None, time.sleep, 0.5)
        assert spy.passes - before <= 3, f"the loop ran {spy.passes - before} passes while idle"
        assert spy.pending() == [] and spy.armed == [] and spy.fired == 0

        # A commit reaches every subscriber within a few loop passes, with no timer involved.
        before = spy.passes
        seq = server.events.append("session.bell", session="%0", name="s0").seq
        for sub in subscribers:
            push = await sub.pushes.get()
            assert event_of(push).seq == seq
        assert spy.passes - before <= 6, f"delivery took {spy.passes - before} loop passes"
        assert spy.fired == 0

        # The same through a real request: a rename commits an event that is pushed, no tick.
        await control.request("session.rename", target="s1", name="renamed")
        for sub in subscribers:
            event = event_of(await sub.pushes.get())
            assert (event.type, event.name) == ("session.renamed", "renamed")
        assert spy.fired == 0 and spy.armed == []
    finally:
        for client in clients:
            await client.close()
        await shutdown(server, task)
