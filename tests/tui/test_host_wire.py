"""The wire between a TUI host and its caller (termux/tui/host.py): no json on the caller's side."""

from __future__ import annotations

import os
import socket
import struct

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
