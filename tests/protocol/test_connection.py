"""The sans-I/O client connection, fed bytes: framing, both codecs, and errors in termux's words."""

from __future__ import annotations

from typing import Any

import pytest

from termux.protocol.connection import CLOSED, NEED_DATA, PLAIN, ClientConnection, PlainReply
from termux.protocol.errors import ErrorCode, ProtocolError, TermuxError
from termux.protocol.events import ExitedData, SessionExited
from termux.protocol.messages import SendArgs, convert_args, decode_request
from termux.protocol.pushes import (
    TYPED,
    ErrorInfo,
    ErrorPush,
    EventPush,
    OutputPush,
    Reply,
    Unrecognized,
    encode_line,
    reply_error,
    reply_ok,
)

# What a server says, encoded by the server's own encoders.
REPLY = reply_ok(1, {"sessions": []})
OUTPUT = encode_line(OutputPush("%0", 12, b"\x1b[1mhi\xff"))
EXITED = encode_line(EventPush(SessionExited(seq=3, time=1.5, session="%0", name="a", data=ExitedData(0))))
STREAM = REPLY + OUTPUT + EXITED


def drain(conn: ClientConnection[Any]) -> list[Any]:
    out = []
    while (message := conn.next_message()) is not NEED_DATA and message is not CLOSED:
        out.append(message)
    return out


@pytest.mark.parametrize("split", [1, 2, 7, len(REPLY) - 1, len(REPLY), len(REPLY) + 1, 1000])
def test_lines_split_anywhere_come_out_whole_and_once(split: int) -> None:
    conn = ClientConnection(TYPED)
    seen: list[Any] = []
    for start in range(0, len(STREAM), split):
        conn.receive_data(STREAM[start : start + split])
        seen += drain(conn)
    assert seen == [
        Reply(1, True, {"sessions": []}),
        OutputPush("%0", 12, b"\x1b[1mhi\xff"),
        EventPush(SessionExited(seq=3, time=1.5, session="%0", name="a", data=ExitedData(0))),
    ]
    assert conn.next_message() is NEED_DATA
    conn.receive_data(b"")
    assert conn.next_message() is CLOSED and conn.closed


def test_the_plain_codec_reads_the_same_stream_into_plain_values() -> None:
    conn = ClientConnection(PLAIN)
    conn.receive_data(STREAM)  # several messages in one chunk
    reply, output, event = drain(conn)
    assert reply == PlainReply(1, True, {"sessions": []}, {}) and reply.unwrap() == {"sessions": []}
    assert output == {"push": "output", "session": "%0", "offset": 12, "data": "G1sxbWhp/w=="}  # base64 stays
    assert event["event"]["type"] == "session.exited" and event["event"]["data"]["exit_code"] == 0


@pytest.mark.parametrize("codec", [PLAIN, TYPED], ids=["plain", "typed"])
def test_an_oversized_line_is_refused_while_it_is_read_and_the_next_line_still_comes(codec: Any) -> None:
    conn = ClientConnection(codec, limit=64)
    head = b'{"push":"output","data":"' + b"A" * 50
    conn.receive_data(head)
    conn.receive_data(b"A" * 5000)  # nothing of it is kept: the connection's memory stays bounded
    assert conn.next_message() is NEED_DATA
    conn.receive_data(b'"}\n' + REPLY)
    with pytest.raises(TermuxError) as refused:
        conn.next_message()
    assert refused.value.code == "bad_reply"
    assert str(refused.value) == f"the server sent a line of {len(head) + 5000 + 2} bytes, over the limit of 64"
    (reply,) = drain(conn)
    assert reply.ok and reply.id == 1


@pytest.mark.parametrize("codec", [PLAIN, TYPED], ids=["plain", "typed"])
@pytest.mark.parametrize(
    ("line", "words"),
    [
        (b'{"id": 1, "ok": tru', "the server sent a line that is not JSON: "),
        (b"\xff\xfe", "the server sent a line that is not JSON: "),
        (b"[1, 2]", "the server sent a line that is not a JSON object: "),
        (b"[" * 100_000 + b"]" * 100_000, "the server sent a line that is not JSON: "),
    ],
    ids=["truncated", "not-utf8", "array", "deep"],
)
def test_a_line_that_is_not_a_json_object_is_bad_reply_in_termux_words(codec: Any, line: bytes, words: str) -> None:
    conn = ClientConnection(codec)
    conn.receive_data(line + b"\n" + REPLY)
    with pytest.raises(TermuxError) as refused:
        conn.next_message()
    assert refused.value.code == "bad_reply" and str(refused.value).startswith(words)
    assert "msgspec" not in str(refused.value) and "Expecting" not in str(refused.value)
    (reply,) = drain(conn)  # the stream stays framed
    assert reply.id == 1


def test_a_known_push_of_the_wrong_shape_is_bad_reply_saying_which_field() -> None:
    conn = ClientConnection(TYPED)
    conn.receive_data(b'{"push": "output", "session": "%0", "offset": "twelve", "data": ""}\n')
    with pytest.raises(TermuxError) as refused:
        conn.next_message()
    assert refused.value.code == "bad_reply"
    assert "a push (`output`) this client cannot read: `offset` must be an integer, not a string" in str(refused.value)


def test_a_push_or_event_this_client_does_not_know_is_handed_out_as_unrecognized() -> None:
    conn = ClientConnection(TYPED)
    newer = b'{"push": "hologram", "x": 1}\n{"push": "event", "event": {"type": "session.teleported", "seq": 9}}\n'
    conn.receive_data(newer)
    assert drain(conn) == [
        Unrecognized({"push": "hologram", "x": 1}),
        Unrecognized({"push": "event", "event": {"type": "session.teleported", "seq": 9}}),
    ]


def test_errors_keep_their_code_message_and_extra_fields_in_both_codecs() -> None:
    error = ProtocolError(ErrorCode.CURSOR_EXPIRED, "cursor 3 is older than the log", oldest=10, cursor=40)
    line = reply_error(5, error)
    plain = ClientConnection(PLAIN)
    plain.receive_data(line)
    reply = plain.next_message()
    assert isinstance(reply, PlainReply) and not reply.ok
    with pytest.raises(TermuxError) as raised:
        reply.unwrap()
    assert (raised.value.code, raised.value.message, raised.value.extra) == (
        "cursor_expired",
        "cursor 3 is older than the log",
        {"oldest": 10, "cursor": 40},
    )
    typed = ClientConnection(TYPED)
    typed.receive_data(line + encode_line(ErrorPush(ErrorInfo("dropped", "behind", cursor=7))))
    reply, dropped = drain(typed)
    assert reply == Reply(5, False, error=ErrorInfo("cursor_expired", "cursor 3 is older than the log", 40, 10))
    assert reply.error.extra() == {"oldest": 10, "cursor": 40}
    assert dropped.error.extra() == {"cursor": 7}


@pytest.mark.parametrize("codec", [PLAIN, TYPED], ids=["plain", "typed"])
def test_send_numbers_requests_and_bytes_reach_the_server_as_the_bytes(codec: Any) -> None:
    conn = ClientConnection(codec)
    first, second = conn.request("server.hello"), conn.request("session.send", {"target": "a", "data": b"\x00\xff"})
    assert (first.id, second.id) == (1, 2)
    wire = conn.send(second)
    assert wire.endswith(b"\n") and wire.count(b"\n") == 1
    request = decode_request(wire[:-1])  # as the server reads it
    assert (request.id, request.cmd) == (2, "session.send")
    assert convert_args(request.args, SendArgs) == SendArgs(target="a", data=b"\x00\xff")
    assert decode_request(conn.send(first)[:-1]).args == {}


def test_the_plain_codec_refuses_an_argument_json_cannot_carry() -> None:
    conn = ClientConnection(PLAIN)
    with pytest.raises(TypeError, match="cannot send a set to the server"):
        conn.send(conn.request("session.send", {"keys": {"a"}}))
