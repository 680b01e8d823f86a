"""Protocol v1: framing and validation (sans-I/O), and bad requests against a real server."""

from __future__ import annotations

import json
import socket

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termux.protocol.errors import ProtocolError
from termux.protocol.framing import LineSplitter, Oversized
from termux.protocol.messages import decode_request
from tests.conftest import RunningServer


def test_splitter_returns_complete_lines_across_chunks() -> None:
    splitter = LineSplitter(limit=10)
    assert splitter.feed(b'{"a"') == []
    assert splitter.feed(b":1}\n{") == [b'{"a":1}']
    assert splitter.feed(b"}\n\n") == [b"{}", b""]
    assert splitter.buffered == 0


def test_splitter_drops_an_oversized_line_and_stays_framed() -> None:
    splitter = LineSplitter(limit=8)
    assert splitter.feed(b"0123456") == []
    assert splitter.feed(b"789abc") == []
    assert splitter.buffered == 0  # memory stays bounded: the long line is not kept
    assert splitter.feed(b"def\nok\n") == [Oversized(16), b"ok"]


@given(st.lists(st.binary(max_size=30), max_size=20), st.integers(1, 40))
@settings(max_examples=200, deadline=None)
def test_splitter_matches_split_on_newlines(chunks: list[bytes], limit: int) -> None:
    splitter = LineSplitter(limit=limit)
    out: list[bytes | Oversized] = []
    for chunk in chunks:
        out += splitter.feed(chunk)
    whole = b"".join(chunks)
    expected = [line if len(line) <= limit else Oversized(len(line)) for line in whole.split(b"\n")[:-1]]
    assert out == expected
    assert splitter.buffered <= limit


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"{nope", "bad_json"),
        (b"[1, 2]", "bad_request"),
        (b'"text"', "bad_request"),
        (b'{"id": 1}', "bad_request"),
        (b'{"id": 1, "cmd": 5}', "bad_request"),
        (b'{"id": [1], "cmd": "server.hello"}', "bad_request"),
        (b'{"id": 1, "cmd": "server.hello", "args": []}', "bad_args"),
        (b'{"id": 1, "cmd": "server.hello", "extra": 1}', "bad_request"),
    ],
)
def test_decode_request_rejects_malformed_lines(line: bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as error:
        decode_request(line)
    assert error.value.code == code
    assert error.value.message


class RawConnection:
    """Speaks bytes to the server, so tests can send what no well-behaved client would."""

    def __init__(self, server: RunningServer) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(server.path))
        self.sock.settimeout(30)
        self.file = self.sock.makefile("rb")

    def ask(self, raw: bytes) -> dict:  # type: ignore[type-arg]
        self.sock.sendall(raw)
        return msgspec.json.decode(self.file.readline())

    def close(self) -> None:
        self.file.close()
        self.sock.close()


BAD_REQUESTS = [
    (b"this is not json\n", "bad_json"),
    (b"[1,2,3]\n", "bad_request"),
    (b'{"id": 3}\n', "bad_request"),
    (b'{"id": 4, "cmd": "no.such.command"}\n', "unknown_command"),
    (b'{"id": 5, "cmd": "session.new", "args": {"cols": "wide"}}\n', "bad_args"),
    (b'{"id": 6, "cmd": "session.new", "args": {"colour": 1}}\n', "bad_args"),
    (b'{"id": 7, "cmd": "session.new", "args": {"cols": 100000}}\n', "bad_args"),
    (b'{"id": 8, "cmd": "session.get", "args": {"target": "ghost"}}\n', "no_session"),
    (b'{"id": 9, "cmd": "session.send", "args": {"target": "ghost", "keys": ["x"]}}\n', "no_session"),
    (b'{"id": 10, "cmd": "session.get", "args": {}}\n', "bad_args"),
    (b'{"id": 11, "cmd": "session.new", "args": {"name": "%1"}}\n', "bad_args"),
    (b'{"id": 12, "cmd": "session.new", "args": {"name": "a\\u0007b"}}\n', "bad_args"),
    (b"\xff\xfe\n", "bad_json"),
]


def test_every_bad_request_gets_its_error_and_the_connection_keeps_working(server: RunningServer) -> None:
    conn = RawConnection(server)
    try:
        for raw, code in BAD_REQUESTS:
            reply = conn.ask(raw)
            assert reply["ok"] is False, raw
            assert reply["error"]["code"] == code, (raw, reply)
            assert reply["error"]["message"]
            if b'"id"' in raw and code != "bad_json":
                assert reply["id"] == json.loads(raw)["id"]
        assert conn.ask(b'{"id": "x", "cmd": "server.hello"}\n') == {
            "id": "x", "ok": True, "result": conn.ask(b'{"id": "x", "cmd": "server.hello"}\n')["result"]
        }  # fmt: skip
    finally:
        conn.close()


def test_an_oversized_line_is_refused_and_the_stream_stays_framed(server: RunningServer) -> None:
    conn = RawConnection(server)
    try:
        huge = b'{"id": 1, "cmd": "server.hello", "pad": "' + b"x" * (2 << 20) + b'"}\n'
        reply = conn.ask(huge)
        assert reply["error"]["code"] == "too_large"
        hello = conn.ask(b'{"id": 2, "cmd": "server.hello"}\n')
        assert hello["ok"] and hello["id"] == 2
    finally:
        conn.close()


def test_a_client_that_disconnects_mid_line_does_not_hurt_others(server: RunningServer) -> None:
    rude = RawConnection(server)
    rude.sock.sendall(b'{"id": 1, "cmd": "ser')
    rude.close()
    with server.client() as client:
        assert client.request("server.hello")["version"] == 1


def test_hello_reports_version_and_capabilities(server: RunningServer) -> None:
    with server.client() as client:
        hello = client.request("server.hello")
    assert hello["version"] == 1
    for cmd in ("session.new", "session.list", "session.get", "session.send", "session.capture",
                "session.resize", "session.kill", "session.rename", "server.stats", "server.kill"):  # fmt: skip
        assert cmd in hello["capabilities"]
