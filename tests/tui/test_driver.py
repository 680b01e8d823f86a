"""The input driver: a lone Escape is not held, the input thread never polls while idle."""

from __future__ import annotations

import asyncio
import os
import pty
import threading
import tty
from typing import Any

from textual import events
from textual.message import Message

from termux.tui.driver import ESCAPE_DELAY, TermuxDriver, TermuxParser


class Harness:
    """A TermuxDriver reading the slave side of a real pty; keys land in `received`."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)  # as Textual sets its terminal: bytes arrive as typed
        self.driver = TermuxDriver(_FakeApp())
        self.driver.fileno = self.slave
        self.driver._event_loop = loop
        self.received: asyncio.Queue[Message] = asyncio.Queue()
        self.driver.input_hook = self.received.put_nowait
        self.thread = threading.Thread(target=self.driver.run_input_thread, daemon=True)
        self.thread.start()

    async def key(self, timeout: float = 10.0) -> Message:
        return await asyncio.wait_for(self.received.get(), timeout)

    def stop(self) -> None:
        self.driver._stopping = True
        os.write(self.driver._wake_w, b"x")
        self.thread.join(10)
        assert not self.thread.is_alive()
        os.close(self.master)
        os.close(self.slave)


class _FakeApp:
    """Just enough of an App for the driver's constructor (the thread only uses the hook)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


async def test_lone_escape_is_delivered_after_the_short_delay_not_a_poll() -> None:
    harness = Harness(asyncio.get_running_loop())
    try:
        os.write(harness.master, b"a")
        key = await harness.key()
        assert isinstance(key, events.Key) and key.key == "a"
        # idle: the thread sleeps in select with no timeout (no 10 Hz poll)
        assert harness.driver.select_timeouts[-1] is None
        assert all(t is None for t in harness.driver.select_timeouts)
        os.write(harness.master, b"\x1b")
        key = await harness.key()
        assert isinstance(key, events.Key) and key.key == "escape" and key.character == "\x1b"
        timeouts = list(harness.driver.select_timeouts)
        # exactly one bounded wait, for the rest of a possible sequence, no longer than the delay
        bounded = [t for t in timeouts if t is not None]
        assert len(bounded) >= 1 and all(t <= ESCAPE_DELAY for t in bounded)
        assert ESCAPE_DELAY <= 0.01
        # a whole sequence written at once is one key, not ESC + text
        os.write(harness.master, b"\x1b[A")
        key = await harness.key()
        assert isinstance(key, events.Key) and key.key == "up"
        os.write(harness.master, b"\x1bx")
        key = await harness.key()
        assert isinstance(key, events.Key) and key.key == "alt+x"
        # once the sequence is delivered the thread goes back to sleeping without a timeout
        for _ in range(500):
            if harness.driver.select_timeouts[-1] is None:
                break
            await asyncio.sleep(0.002)
        assert harness.driver.select_timeouts[-1] is None
    finally:
        harness.stop()


def test_parser_keeps_alt_backspace() -> None:
    parser = TermuxParser()
    keys = [m for m in parser.feed("\x1b\x7f") if isinstance(m, events.Key)]
    assert [k.key for k in keys] == ["alt+backspace"]
    keys = [m for m in parser.feed("\x08\x7f") if isinstance(m, events.Key)]
    assert [(k.key, k.character) for k in keys] == [("backspace", "\x08"), ("backspace", "\x7f")]


def test_the_textual_internals_the_driver_relies_on_are_unchanged() -> None:
    """A Textual release that moved one of them fails here, naming it (termux/tui/driver.py)."""
    from termux.tui.driver import textual_changes

    assert textual_changes() == []


def test_the_parser_waits_its_own_delay_after_an_escape_and_leaves_textuals_constant_alone() -> None:
    import time

    from textual import constants

    before = constants.ESCAPE_DELAY
    for delay in (0.002, 0.3):
        parser = TermuxParser(escape_delay=delay)
        start = time.monotonic()
        assert list(parser.feed("\x1b")) == []  # a lone ESC waits for the rest of a sequence
        deadline = parser.next_timeout()
        assert deadline is not None and start + delay <= deadline <= time.monotonic() + delay
    assert constants.ESCAPE_DELAY == before  # nothing process-wide was changed
