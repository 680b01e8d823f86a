"""What the server sends decodes into the protocol's structs: events as committed, pushes, and the
result of every command a typed client reads, from a real server on a real socket."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest

from termux.client import AsyncClient
from termux.protocol import events as ev
from termux.protocol.connection import ClientConnection
from termux.protocol.event_types import EVENT_TYPES
from termux.protocol.pushes import TYPED, EventPush, OutputPush, Snapshot, SnapshotPush, encode_line
from termux.protocol.results import (
    AttachResult,
    BufferDataResult,
    BufferResult,
    BuffersResult,
    CaptureResult,
    Empty,
    EventsPage,
    GrepResult,
    HelloResult,
    SentResult,
    SessionResult,
    SessionsResult,
    SnapshotResult,
    StreamStart,
    WaitExit,
    WaitMatch,
    WaitQuiet,
)
from termux.server.events import EventLog
from tests.events.event_helpers import serve_in_loop, shutdown

ONE_OF_EACH: list[ev.EventBase] = [
    ev.SessionCreated(session="%0", name="a", data=ev.CreatedData(["sh"], 42)),
    ev.SessionExited(session="%0", name="a", data=ev.ExitedData(None, 15, "SIGTERM")),
    ev.SessionClosed(session="%0", name="a"),
    ev.SessionRenamed(session="%0", name="b", data=ev.RenamedData("a")),
    ev.SessionResized(session="%0", name="b", data=ev.ResizedData(100, 30)),
    ev.SessionTitle(session="%0", name="b", data=ev.TitleData("vim")),
    ev.SessionBell(session="%0", name="b"),
    ev.SessionActivity(session="%0", name="b"),
    ev.SessionQuiet(session="%0", name="b", data=ev.QuietData(5.0)),
    ev.ClientAttached(data=ev.ClientData(7)),
    ev.ClientDetached(data=ev.ClientData(None)),
    ev.BufferChanged(data=ev.BufferChangedData("buffer0", 3)),
    ev.BufferDeleted(data=ev.BufferDeletedData("buffer0", "limit")),
]


def test_one_struct_per_event_type_and_each_commits_as_it_decodes() -> None:
    assert sorted(type(e).__struct_config__.tag for e in ONE_OF_EACH) == sorted(EVENT_TYPES)
    log = EventLog()
    for event in ONE_OF_EACH:
        record = log.commit(event)
        assert (record.seq, record.type, record.session) == (event.seq, event.type, event.session)
        decoded = msgspec.json.decode(record.json, type=ev.Event)
        assert decoded == event and decoded.seq == record.seq > 0
        # The wire's field names and nesting, as docs/protocol.md shows them.
        plain = msgspec.json.decode(record.json)
        assert set(plain) == {"seq", "time", "type", "session", "name", "data"}
        assert plain["data"] == msgspec.to_builtins(event.data)
        conn = ClientConnection(TYPED)
        conn.receive_data(record.push_line)
        assert conn.next_message() == EventPush(decoded)


def test_pushes_round_trip_and_bytes_go_as_base64() -> None:
    snapshot = Snapshot(10, 80, 24, b"\x1b[H\x00")
    lines = encode_line(OutputPush("%1", 5, b"\xff\x00")) + encode_line(SnapshotPush.of("%1", snapshot))
    assert b'"data":"/wA="' in lines  # base64, by msgspec
    conn = ClientConnection(TYPED)
    conn.receive_data(lines)
    assert conn.next_message() == OutputPush("%1", 5, b"\xff\x00")
    assert conn.next_message() == SnapshotPush(10, 80, 24, b"\x1b[H\x00", session="%1")


async def test_a_typed_client_reads_the_result_of_every_command(socket_dir: Path) -> None:
    server, task = await serve_in_loop(socket_dir / "s", quiet_after=0.2)
    client = await AsyncClient.connect(server.socket_path, autostart=False)
    view = await AsyncClient.connect(server.socket_path, autostart=False)
    try:
        ask = client.request_as
        hello = await ask(HelloResult, "server.hello")
        assert hello.version == 1 and "session.grep" in hello.capabilities
        script = "echo hello; echo title; read x; exit 3"
        new = await ask(SessionResult, "session.new", name="w", command=["sh", "-c", script], cols=40, rows=10)
        sid = new.session.id
        attached = await view.request_as(AttachResult, "client.attach", follow=[sid], focus=sid)
        assert [s.id for s in attached.sessions] == [sid] and set(attached.snapshots) == {sid}
        stream = await ask(StreamStart[ev.Event], "events.stream", cursor=0)
        assert stream.in_sync and isinstance(stream.events[0], ev.SessionCreated)
        matched = await ask(WaitMatch, "session.wait", target=sid, match="hel+o", timeout=30)
        assert (matched.match, matched.session.id) == ("hello", sid)
        quiet = await ask(WaitQuiet, "session.wait", target=sid, quiet=0.05, timeout=30)
        assert quiet.quiet == pytest.approx(0.05)
        assert (await ask(SessionsResult, "session.list")).sessions[0].name == "w"
        assert (await ask(SessionResult, "session.get", target=sid)).session.cols == 40
        capture = await ask(CaptureResult, "session.capture", target=sid)
        assert capture.lines[0] == "hello" and capture.cursor.y == 2 and (capture.cols, capture.rows) == (40, 10)
        grep = await ask(GrepResult, "session.grep", target=sid, pattern="^t")
        assert [(m.line, m.text) for m in grep.matches] == [(1, "title")]
        snap = await ask(SnapshotResult, "session.snapshot", target=sid)
        assert snap.session.id == sid and snap.data and snap.offset == capture.offset
        assert (await ask(SessionResult, "session.rename", target=sid, name="v")).session.name == "v"
        assert (await ask(SessionResult, "session.resize", target=sid, cols=50, rows=12)).session.cols == 50
        assert await ask(Empty, "client.focus", target=sid) == Empty()
        stored = await ask(BufferResult, "buffer.set", data=b"\x00\xffpaste")
        assert stored.buffer.size == 7 and stored.buffer.automatic
        assert (await ask(BufferDataResult, "buffer.get")).data == b"\x00\xffpaste"
        assert [b.name for b in (await ask(BuffersResult, "buffer.list")).buffers] == [stored.buffer.name]
        assert (await ask(SentResult, "session.send", target=sid, keys=["Enter"])).sent == 1
        exited = await ask(WaitExit, "session.wait", target=sid, exit=True, timeout=30)
        assert exited.exit_code == 3
        page = await ask(EventsPage[ev.Event], "events.read", cursor=0, limit=10_000)
        types = [e.type for e in page.events]
        assert {"session.created", "session.renamed", "session.resized", "buffer.changed"} <= set(types)
        assert isinstance(page.events[types.index("session.exited")], ev.SessionExited)
        assert (await ask(BufferResult, "buffer.delete")).buffer.name == stored.buffer.name
        killed = await ask(SessionResult, "session.kill", target=sid)
        assert killed.session.state == "exited"
        # The view was pushed typed output and events all along.
        kinds: set[type] = set()
        while ev.SessionClosed not in kinds:
            push = await asyncio.wait_for(view.pushes.get(), 30)
            kinds.add(type(push.event) if isinstance(push, EventPush) else type(push))
        assert {OutputPush, ev.SessionRenamed, ev.SessionResized, ev.SessionExited} <= kinds
    finally:
        await view.close()
        await client.close()
        await shutdown(server, task)
