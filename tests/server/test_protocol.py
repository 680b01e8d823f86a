"""Protocol v1: framing and validation (sans-I/O), and bad requests against a real server."""

from __future__ import annotations

import base64
import json
import shutil
import socket
from collections.abc import Iterator

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
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
        (b'{"id": 1, "cmd": "server.hello", "reply": 1}', "bad_request"),
        (b'{"id": 1, "cmd": "server.hello", "reply": "never"}', "bad_request"),
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


def test_a_request_for_error_replies_only_is_answered_only_when_it_fails(server: RunningServer) -> None:
    """`"reply": "errors"`: a request that succeeds gets no reply (the next request's reply is the
    next line), one that fails gets its error as any request would; both do their work."""
    with server.client() as client:
        sid = client.request("session.new", name="q", command=["/bin/cat"])["session"]["id"]
    typed = base64.b64encode(b"typed quietly\n").decode()
    wait = {"target": sid, "match": "typed quietly", "timeout": 10}
    requests = [
        {"id": 1, "cmd": "session.send", "reply": "errors", "args": {"target": sid, "data": typed}},
        {"id": 2, "cmd": "session.send", "reply": "errors", "args": {"target": "ghost", "data": "eA=="}},
        {"id": 3, "cmd": "server.hello", "reply": "always"},
        {"id": 4, "cmd": "session.wait", "reply": "errors", "args": wait},  # answers later, if at all
        {"id": 5, "cmd": "session.wait", "args": wait},
    ]
    conn = RawConnection(server)
    try:
        conn.sock.sendall(b"".join(msgspec.json.encode(request) + b"\n" for request in requests))
        replies = [msgspec.json.decode(conn.file.readline()) for _ in range(3)]
        assert [(reply["id"], reply["ok"]) for reply in replies] == [(2, False), (3, True), (5, True)]
        assert replies[0]["error"]["code"] == "no_session"
        assert replies[2]["result"]["match"] == "typed quietly"  # (the quiet send was sent)
        assert conn.ask(b'{"id": 6, "cmd": "server.hello"}\n')["id"] == 6  # and no late reply to 4
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


# -- issue 12: what a bad request cannot break ------------------------------------------------------


def test_deeply_nested_json_is_bad_json_not_an_internal_error(server: RunningServer) -> None:
    conn = RawConnection(server)
    try:
        for raw in (b"[" * 100_000, b'{"id": 1, "cmd": "session.new", "args": {"env": ' + b"[" * 50_000 + b"}}"):
            reply = conn.ask(raw + b"\n")
            assert reply["error"]["code"] == "bad_json", reply
            assert "nested too deeply" in reply["error"]["message"]
        assert conn.ask(b'{"id": 2, "cmd": "server.hello"}\n')["ok"]
    finally:
        conn.close()
    assert "Traceback" not in server.server_log()


LIBRARY_WORDS = ("Expected `", "- at `$", "Object contains", "Object missing", "JSON is malformed")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"cmd": "session.new", "args": {"name": ""}}, "`name` must be a string of at least 1 character"),
        ({"cmd": "session.new", "args": {"cols": "wide"}}, "`cols` must be an integer, not a string"),
        ({"cmd": "session.new", "args": {"cols": 1}}, "`cols` must be an integer of at least 2"),
        ({"cmd": "session.new", "args": {"colour": 1}}, "unknown argument `colour` (known: name, command,"),
        ({"cmd": "session.get", "args": {}}, "missing argument `target`"),
        ({"cmd": "session.new", "args": {"env": {"A": 1}}}, "each value of `env` must be a string, not an integer"),
        ({"cmd": "session.send", "args": {"target": "x", "keys": [None]}}, "`keys[0]` must be a string, not null"),
        ({"cmd": "session.wait", "args": {"target": "x", "timeout": 0}}, "`timeout` must be a number greater than 0"),
    ],
)
def test_argument_errors_are_in_termuxs_words(server: RunningServer, args: dict, message: str) -> None:  # type: ignore[type-arg]
    conn = RawConnection(server)
    try:
        reply = conn.ask(json.dumps({"id": 1, **args}).encode() + b"\n")
    finally:
        conn.close()
    assert reply["error"]["code"] == "bad_args"
    assert message in reply["error"]["message"]
    assert not any(words in reply["error"]["message"] for words in LIBRARY_WORDS)


def test_json_errors_are_in_termuxs_words(server: RunningServer) -> None:
    conn = RawConnection(server)
    try:
        for raw in (b"{nope", b'{"id": 1', b"\xff\xfe", b'{"id": 1} trailing'):
            error = conn.ask(raw + b"\n")["error"]
            assert error["code"] == "bad_json"
            assert error["message"].startswith("the request is not valid JSON")
            assert not any(words in error["message"] for words in LIBRARY_WORDS)
    finally:
        conn.close()


# -- the protocol fuzz test ----------------------------------------------------------------------------

# Requests a waiting command may answer after the next request (docs/protocol.md); the rest answer
# in order, so each is answered before the `server.hello` sent after it.
MAY_WAIT = {"session.wait", "session.kill", "events.read", "session.send", "session.capture"}
FUZZ_COMMANDS = sorted(
    {"session.new", "session.list", "session.get", "session.send", "session.capture", "session.snapshot",
     "session.resize", "session.rename", "session.kill", "session.wait", "client.attach", "client.focus",
     "events.read", "events.stream", "server.hello", "server.stats", "no.such.command", ""}
)  # fmt: skip
ARG_NAMES = ["target", "name", "command", "cwd", "env", "cols", "rows", "history", "keys", "literal", "data",
             "start", "end", "escapes", "follow", "focus", "coalesce", "cursor", "limit", "types", "session",
             "wait_ms", "exit", "match", "quiet", "timeout", "bogus"]  # fmt: skip
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20) | st.sampled_from(["fz", "%0", "%999", "", "Enter", "C-c", "eA==", "(a+)+$", "["]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
structured = st.fixed_dictionaries(
    {"id": st.integers(0, 2**31) | st.text(max_size=8), "cmd": st.sampled_from(FUZZ_COMMANDS)},
    optional={"args": st.dictionaries(st.sampled_from(ARG_NAMES), json_values, max_size=5) | json_values,
              "extra": json_values},
).map(lambda obj: json.dumps(obj).encode())  # fmt: skip
raw_lines = st.binary(max_size=200).map(lambda b: b.replace(b"\n", b" ")) | json_values.map(
    lambda v: json.dumps(v).encode()
)


@given(st.lists(structured | raw_lines, min_size=1, max_size=8))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_fuzzed_requests_are_all_answered_never_internal_and_the_server_keeps_serving(
    fuzz_server: RunningServer, lines: list[bytes]
) -> None:
    conn = RawConnection(fuzz_server)
    try:
        for line in lines:
            conn.sock.sendall(line + b"\n" + b'{"id": "probe", "cmd": "server.hello"}\n')
            replies = []
            while (reply := msgspec.json.decode(conn.file.readline())).get("id") != "probe":
                replies.append(reply)
            assert reply["ok"], reply  # still serving
            assert all(r.get("error", {}).get("code") != "internal" for r in replies), replies
            replies = [r for r in replies if "push" not in r]
            if line.strip():
                waits = _may_wait(line)
                assert len(replies) == 1 or (waits and len(replies) == 0), (line, replies)
    finally:
        conn.close()


def _may_wait(line: bytes) -> bool:
    try:
        obj = json.loads(line)
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("cmd") in MAY_WAIT


@pytest.fixture(scope="module")
def fuzz_server() -> Iterator[RunningServer]:
    """One server for every fuzz example (a session `fz` to aim at), checked after the last one."""
    from e2e.isolated import make_socket_dir

    running = RunningServer(make_socket_dir(), extra_env={"SHELL": "/bin/sh"})
    running.start("--history", "100")
    with running.client() as client:
        client.request("session.new", name="fz", command=["sh", "-c", "echo fuzz; exec sleep 600"])
    yield running
    try:
        with running.client() as client:
            assert client.request("server.hello")["pid"] == running.pid
        assert "Traceback" not in running.server_log()
    finally:
        running.stop()
        shutil.rmtree(running.socket_dir, ignore_errors=True)
