"""The wire between a TUI host and its caller (termux/tui/host.py): no json on the caller's side."""

from __future__ import annotations

import os
import socket
import struct
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from termux.tui import host

# What a command line, an environment and a directory can hold: anything but NUL, and bytes that
# do not decode (os.fsdecode keeps them as surrogates).
text = st.binary(max_size=20).filter(lambda b: b"\0" not in b).map(os.fsdecode)
names = st.binary(min_size=1, max_size=10).filter(lambda b: b"\0" not in b and b"=" not in b).map(os.fsdecode)


@given(st.lists(text, max_size=6), st.dictionaries(names, text, max_size=6), text, text)
def test_a_hello_says_what_the_caller_sent(argv: list[str], env: dict[str, str], cwd: str, identity: str) -> None:
    wire = host._hello(argv, env, cwd, "utf-8", identity)
    (length,) = struct.unpack("!I", wire[:4])
    assert length == len(wire) - 4
    assert host._hello_of(wire[4:]) == {"identity": identity, "cwd": cwd, "encoding": "utf-8", "argv": argv, "env": env}


def test_a_malformed_hello_is_none() -> None:
    for payload in (b"", b"id\0/\0utf-8", b"id\0/\0utf-8\0three\0a", b"id\0/\0utf-8\x003\0a\0b"):
        assert host._hello_of(payload) is None


def test_a_hello_longer_than_the_bound_is_not_read_on() -> None:
    """The host reads a hello's length first, and refuses one past MAX_HELLO without reading it."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(struct.pack("!I", host.MAX_HELLO + 1) + b"x" * 100)
        fds: list[int] = []
        assert host.Host._read_hello(ours, fds) is None
        assert fds == []


def test_an_answer_is_a_line_of_a_word_and_what_it_says() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(host._answer("exit", 3) + host._answer("refused", "two\nlines") + host._answer("forked"))
        reader = host._Lines(ours)
        assert reader.next() == ("exit", "3")
        assert reader.next() == ("refused", "two lines")
        assert reader.next() == ("forked", "")
        theirs.close()
        assert reader.next() is None


def test_a_count_of_words_that_is_not_ascii_digits_or_too_long_is_malformed() -> None:
    for count in ("\u00b2", "\u0661", "1" * 10, "1" * 5000, "-1", ""):
        assert host._hello_of(b"\0".join([b"id", b"/", b"utf-8", count.encode()])) is None


def test_an_environment_entry_without_a_name_is_left_out() -> None:
    payload = b"\0".join([b"id", b"/", b"utf-8", b"0", b"=value", b"A=1", b"B"])
    hello = host._hello_of(payload)
    assert hello is not None and hello["env"] == {"A": "1", "B": ""}


def test_a_host_whose_queue_of_callers_is_full_is_no_host(tmp_path: Path) -> None:
    """A host stopped or busy accepts no one: once its queue is full a caller's connect would
    wait for as long as that lasts; it gives up at once and runs the TUI itself."""
    path = str(tmp_path / "s.tui2")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(path)
        listener.listen(0)
        queued = []
        while (sock := host._connect(path)) is not None:  # never accepted
            queued.append(sock)
            assert len(queued) < 64
        assert queued  # (one got in before the queue was full)
        for sock in queued:
            sock.close()
    assert host._connect(str(tmp_path / "none.tui2")) is None


def test_a_hello_sent_a_byte_at_a_time_holds_the_host_no_longer_than_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each read of a hello waits at most for what is left of HELLO_TIMEOUT from its first bytes:
    a caller sending a byte now and then cannot hold the host (one thread) for longer. (A clock
    that moves a second each time it is read.)"""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        waits: list[float | None] = []

        class Conn:  # the socket, noting each timeout set and sending one more byte before each read
            def __getattr__(self, name: str) -> object:
                return getattr(ours, name)

            def settimeout(self, value: float | None) -> None:
                waits.append(value)

            def recv(self, size: int) -> bytes:
                theirs.sendall(b"x")
                return ours.recv(size)

        now = iter(range(1000))
        monkeypatch.setattr(time, "monotonic", lambda: float(next(now)))
        theirs.sendall(struct.pack("!I", 1000) + b"x")
        assert host.Host._read_hello(Conn(), []) is None  # type: ignore[arg-type]
        assert waits == [host.HELLO_TIMEOUT - n for n in range(1, int(host.HELLO_TIMEOUT))]


def test_an_answer_longer_than_its_bound_ends_the_answers() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.setblocking(False)
        try:
            while True:
                theirs.send(b"x" * 4096)  # a line that never ends, as much as the socket takes
        except BlockingIOError:
            pass
        assert host._Lines(ours).next() is None
