"""The input driver: the terminal is read on the loop, a lone Escape is not held, nothing polls."""

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
    """A TermuxDriver reading the slave side of a real pty on the running loop; keys land in
    `received`, with the thread that handed each over."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)  # as Textual sets its terminal: bytes arrive as typed
        self.app = _FakeApp()
        self.driver = TermuxDriver(self.app)
        self.driver.fileno = self.slave
        self.received: asyncio.Queue[Message] = asyncio.Queue()
        self.threads: list[int] = []
        self.driver.input_hook = self._hook
        self.driver.start_reading(loop)

    def _hook(self, message: Message) -> None:
        self.threads.append(threading.get_ident())
        self.received.put_nowait(message)

    async def key(self, timeout: float = 10.0) -> Message:
        return await asyncio.wait_for(self.received.get(), timeout)

    def stop(self) -> None:
        self.driver.stop_reading()
        os.close(self.master)
        os.close(self.slave)


class _FakeApp:
    """Just enough of an App for the driver (the reader only uses the hook, and exit)."""

    def __init__(self) -> None:
        self.exits: list[str] = []

    def exit(self, reason: str) -> None:
        self.exits.append(reason)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


async def test_lone_escape_is_delivered_after_the_short_delay_on_the_one_input_timer() -> None:
    harness = Harness(asyncio.get_running_loop())
    driver = harness.driver
    try:
        os.write(harness.master, b"a")
        key = await harness.key()
        assert isinstance(key, events.Key) and key.key == "a"
        # a plain key arms no timer: nothing runs while no byte comes (no poll)
        assert driver.escape_timer is None and not driver.escape_waits
        os.write(harness.master, b"\x1b")
        key = await harness.key()
        assert isinstance(key, events.Key) and key.key == "escape" and key.character == "\x1b"
        # one bounded wait for the rest of a possible sequence, no longer than the delay
        assert len(driver.escape_waits) >= 1 and all(t <= ESCAPE_DELAY for t in driver.escape_waits)
        assert ESCAPE_DELAY <= 0.01
        assert driver.escape_timer is None  # delivered: nothing armed any more
        # a whole sequence written at once is one key, not ESC + text, and leaves no timer behind
        os.write(harness.master, b"\x1b[A")
        key = await harness.key()
        assert isinstance(key, events.Key) and key.key == "up"
        os.write(harness.master, b"\x1bx")
        key = await harness.key()
        assert isinstance(key, events.Key) and key.key == "alt+x"
        assert driver.escape_timer is None
    finally:
        harness.stop()


async def test_a_key_is_handled_on_the_loop_thread_in_the_callback_that_read_it() -> None:
    """No thread hop: the hook runs on the loop's thread, before the loop runs anything else."""
    loop = asyncio.get_running_loop()
    harness = Harness(loop)
    order: list[str] = []
    real_hook = harness._hook

    def hook(message: Message) -> None:
        order.append("key")
        # anything scheduled from here runs after the hook: the key did not wait for a turn
        loop.call_soon(order.append, "next")
        real_hook(message)

    harness.driver.input_hook = hook
    try:
        os.write(harness.master, b"xy")
        first, second = await harness.key(), await harness.key()
        assert [first.key, second.key] == ["x", "y"]  # type: ignore[attr-defined]
        assert harness.threads == [threading.get_ident()] * 2
        assert order[:2] == ["key", "key"]  # both keys of one read, in one callback
        assert not [t for t in threading.enumerate() if t.name == "textual-input" and t.is_alive()]
    finally:
        harness.stop()


async def test_the_terminal_hanging_up_ends_the_app_and_stops_reading() -> None:
    harness = Harness(asyncio.get_running_loop())
    try:
        os.close(harness.master)  # the terminal goes away: the slave reads EIO
        for _ in range(500):
            if harness.app.exits:
                break
            await asyncio.sleep(0.002)
        assert harness.app.exits == ["lost tty"]
        assert not harness.driver._reading
    finally:
        harness.driver.stop_reading()
        os.close(harness.slave)


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


def test_every_printable_key_is_sent_as_its_own_byte_in_every_mode() -> None:
    """What lets the driver offer printable ASCII as bytes (`text_hook`): each such byte parses
    into one key that the router sends as that byte, whatever the session's modes."""
    from termux.keys import encode_textual
    from termux.modes import APP_CURSOR, APP_KEYPAD, BRACKETED_PASTE

    parser = TermuxParser()
    for code in range(0x20, 0x7F):
        char = chr(code)
        keys = [m for m in parser.feed(char) if isinstance(m, events.Key)]
        assert len(keys) == 1, char
        for mode in ((), (APP_CURSOR,), (APP_KEYPAD,), (APP_CURSOR, APP_KEYPAD, BRACKETED_PASTE)):
            assert encode_textual(keys[0].key, keys[0].character, mode) == char.encode(), (char, mode)


async def test_printable_text_between_sequences_is_offered_as_bytes_and_the_rest_parsed() -> None:
    """Typed text goes to the text hook as read; what it declines, and anything read inside a
    sequence or a paste (even printable), is parsed into keys as before."""
    harness = Harness(asyncio.get_running_loop())
    driver = harness.driver
    offered: list[bytes] = []
    take = [True]

    def text_hook(data: bytes) -> bool:
        offered.append(data)
        return take[0]

    driver.text_hook = text_hook
    try:
        os.write(harness.master, b"ab")
        await _until(lambda: offered == [b"ab"])
        assert harness.received.empty() and driver.fast_reads == 1  # taken as bytes: no key made
        take[0] = False  # declined (the prefix is armed, say): parsed into keys
        os.write(harness.master, b"c")
        assert (await harness.key()).key == "c"  # type: ignore[attr-defined]
        # a paste in pieces: the text inside it is not offered, it comes out as one paste
        offered.clear()
        take[0] = True
        os.write(harness.master, b"\x1b[200~pas")
        await asyncio.sleep(0.05)
        os.write(harness.master, b"ted")
        await asyncio.sleep(0.05)
        os.write(harness.master, b"\x1b[201~")
        paste = await harness.key()
        assert isinstance(paste, events.Paste) and paste.text == "pasted"
        assert offered == []
        # a sequence cut by the read: its end is not text
        os.write(harness.master, b"\x1b[")
        await asyncio.sleep(0.002)  # (within the Escape delay: the rest of the sequence)
        os.write(harness.master, b"A")
        assert (await harness.key()).key == "up"  # type: ignore[attr-defined]
        assert offered == []
        os.write(harness.master, b"z")  # between sequences again: offered
        await _until(lambda: offered == [b"z"])
    finally:
        harness.stop()


async def _until(predicate: Any) -> None:
    for _ in range(1000):
        if predicate():
            return
        await asyncio.sleep(0.002)
    raise AssertionError("condition never held")
