"""The event commands against a real server on a real Unix socket (server in this test's loop)."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from pathlib import Path
from typing import Any

import pytest
from event_helpers import event_of, serve_in_loop, shutdown, until

from termux.client import AsyncClient, TermuxError
from termux.protocol.events import Event
from termux.server.server import Connection, Server


async def connect(server: Server) -> AsyncClient:
    return await AsyncClient.connect(server.socket_path, autostart=False)


async def next_event(client: AsyncClient) -> Event:
    return event_of(await asyncio.wait_for(client.pushes.get(), 30))


def bell(server: Server, i: int = 0) -> int:
    return server.events.append("session.bell", session="%0", name="x", i=i).seq


async def test_burst_while_many_clients_subscribe_every_event_exactly_once_in_order(live: Server) -> None:
    for i in range(20):
        bell(live, i)
    rng = random.Random(4)
    stop = asyncio.Event()

    async def fire() -> None:
        i = 0
        while not stop.is_set():
            bell(live, i)
            i += 1
            if i % 3 == 0:
                await asyncio.sleep(0)  # commits land between the subscribers' handshake steps

    async def subscriber() -> tuple[int, list[int], AsyncClient]:
        cursor = rng.choice([None, 0, rng.randrange(0, live.events.cursor + 1)])
        client = await connect(live)
        reply = await client.request("events.stream", cursor=cursor)
        start = reply["cursor"] - len(reply["events"]) if cursor is None else cursor
        assert reply["in_sync"] is True
        return start, [e["seq"] for e in reply["events"]], client

    firing = asyncio.create_task(fire())
    subs = await asyncio.gather(*(subscriber() for _ in range(40)))
    stop.set()
    await firing
    last = bell(live)
    for start, backlog, client in subs:
        seen = list(backlog)
        while not seen or seen[-1] < last:
            seen.append((await next_event(client)).seq)
        assert seen == list(range(start + 1, last + 1))
        await client.close()


async def test_events_read_pages_filters_and_long_poll_wakes_on_commit(live: Server) -> None:
    client = await connect(live)
    try:
        for i in range(5):
            bell(live, i)
        live.events.append("session.renamed", session="%1", name="b", old="a")
        page = await client.request("events.read", cursor=0, limit=3)
        assert [e["seq"] for e in page["events"]] == [1, 2, 3] and page["cursor"] == 3 and page["more"]
        page = await client.request("events.read", cursor=0, types=["session.renamed"])
        assert [e["seq"] for e in page["events"]] == [6] and page["cursor"] == 6
        page = await client.request("events.read", cursor=None)
        assert page == {"events": [], "cursor": 6, "more": False}

        # A long poll parks on the server (no timer but its own deadline) until a matching commit.
        poll = asyncio.create_task(client.request("events.read", cursor=6, wait_ms=600_000, types="session.exited"))
        await until(lambda: live.events.waiter_count == 1, "the long poll parking")
        bell(live)  # not a match: the poll keeps waiting
        await asyncio.sleep(0)
        assert not poll.done() and live.events.waiter_count == 1
        seq = live.events.append("session.exited", session="%1", name="b", exit_code=0).seq
        page = await asyncio.wait_for(poll, 30)
        assert [e["seq"] for e in page["events"]] == [seq] and page["cursor"] == seq
        assert live.events.waiter_count == 0

        # Nothing arrives: the reply comes after wait_ms, empty, with the same cursor.
        page = await client.request("events.read", cursor=seq, wait_ms=20)
        assert page == {"events": [], "cursor": seq, "more": False}
    finally:
        await client.close()


async def test_long_poll_of_a_closed_connection_leaves_no_waiter(
    live: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed = asyncio.Event()
    close = live.connection_closed

    def closing(conn: Connection) -> None:
        close(conn)
        closed.set()

    monkeypatch.setattr(live, "connection_closed", closing)
    client = await connect(live)
    client.send_nowait("events.read", wait_ms=600_000)
    await until(lambda: live.events.waiter_count == 1, "the long poll parking")
    (conn,) = [c for c in live.connections if c.tasks]
    await client.close()
    await asyncio.wait_for(closed.wait(), 30)  # the server saw the connection go
    assert all(task.cancelling() for task in conn.tasks)  # its long poll was cancelled with it...
    await asyncio.gather(*conn.tasks, return_exceptions=True)
    assert live.events.waiter_count == 0  # ...and the waiter left the log: nothing parked for nobody


async def test_cursor_errors_have_their_own_codes(socket_dir: Path) -> None:
    server, task = await serve_in_loop(socket_dir / "s", event_capacity=5)
    client = await connect(server)
    try:
        for i in range(12):
            bell(server, i)
        for cmd in ("events.read", "events.stream"):
            with pytest.raises(TermuxError) as expired:
                await client.request(cmd, cursor=3)
            assert expired.value.code == "cursor_expired" and expired.value.extra["oldest"] == 7
            with pytest.raises(TermuxError) as ahead:
                await client.request(cmd, cursor=13)
            assert ahead.value.code == "cursor_ahead" and ahead.value.extra["cursor"] == 12
            for bad in (-1, "abc", 1.5, True, [1]):
                with pytest.raises(TermuxError) as malformed:
                    await client.request(cmd, cursor=bad)
                assert malformed.value.code == "bad_cursor"
            with pytest.raises(TermuxError) as unknown:
                await client.request(cmd, types=["session.nope"])
            assert unknown.value.code == "bad_args"
            with pytest.raises(TermuxError) as no_session:
                await client.request(cmd, session="nope")
            assert no_session.value.code == "no_session"
        page = await client.request("events.read", cursor="7")
        assert [e["seq"] for e in page["events"]] == [8, 9, 10, 11, 12]
        # The connection and the server survived every bad request.
        assert (await client.request("server.hello"))["version"] == 1
    finally:
        await client.close()
        await shutdown(server, task)


async def test_stream_cap_answers_capacity_and_closing_frees_a_slot(live: Server) -> None:
    live.events.max_streams = 3
    clients = [await connect(live) for _ in range(4)]
    try:
        for client in clients[:3]:
            await client.request("events.stream")
        with pytest.raises(TermuxError) as err:
            await clients[3].request("events.stream")
        assert err.value.code == "capacity"
        with pytest.raises(TermuxError) as again:
            await clients[0].request("events.stream")
        assert again.value.code == "busy"  # one stream per connection
        attached = await connect(live)
        await attached.request("client.attach")
        with pytest.raises(TermuxError) as doubled:
            await attached.request("events.stream")
        assert doubled.value.code == "busy"  # an attached view gets every event already
        await attached.close()
        await clients[0].close()  # EOF is the unsubscribe
        await until(lambda: live.events.stream_count == 2, "the closed connection's stream ending")
        await clients[3].request("events.stream")
        assert live.events.stream_count == 3
    finally:
        for client in clients[1:]:
            await client.close()


async def test_a_stream_then_attach_on_one_connection_delivers_every_event_once(live: Server) -> None:
    client = await connect(live)
    try:
        await client.request("events.stream")
        with pytest.raises(TermuxError) as refused:
            await client.request("client.attach")
        assert refused.value.code == "busy"  # the stream already carries every event
        first, second = bell(live, 1), bell(live, 2)
        assert [(await next_event(client)).seq for _ in range(2)] == [first, second]
        last = bell(live, 3)
        await client.request("server.hello")  # the event was pushed before this reply
        assert (await next_event(client)).seq == last
        assert client.pushes.empty()  # no event came twice
    finally:
        await client.close()


async def test_a_subscriber_that_stops_reading_is_dropped_with_its_queue_bound_kept(live: Server) -> None:
    live.events.queue_size = 20
    reader = await connect(live)
    await reader.request("events.stream")
    # A peer that subscribes and never reads again, with a small receive buffer.
    slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.setblocking(False)
    await asyncio.get_running_loop().sock_connect(slow, str(live.socket_path))
    slow.send(b'{"id": 1, "cmd": "events.stream"}\n')
    await until(lambda: live.events.stream_count == 2, "the slow peer subscribing")
    slow_sub = next(s for s in live.events._streams if s is not next(iter(live.events._streams)))
    payload = "x" * 4000
    received: list[int] = []
    last = 0
    for i in range(2000):
        last = live.events.append("session.title", session="%0", name="x", title=payload, i=i).seq
        assert slow_sub.dropped or not slow_sub.stalled or slow_sub.behind <= 20  # the bound holds
        if i % 10 == 0:
            await asyncio.sleep(0)  # let the fan-out write between commits
            while not reader.pushes.empty():
                received.append(event_of(reader.pushes.get_nowait()).seq)
        if slow_sub.dropped:
            break
    assert slow_sub.dropped and live.events.stream_count == 1
    # The reading subscriber was never held back and gets everything, in order.
    while not received or received[-1] < last:
        received.append((await next_event(reader)).seq)
    assert received == list(range(1, last + 1))
    # The slow peer got a gapless prefix, then the connection ended (aborted: it was not reading).
    slow.setblocking(True)
    slow.settimeout(30)
    data = bytearray()
    while chunk := slow.recv(1 << 16):
        data += chunk
    slow.close()
    complete = bytes(data).split(b"\n")[:-1]  # an abort may cut the last line short
    lines = [json.loads(line) for line in complete]
    assert lines[0]["ok"] is True
    seqs = [line["event"]["seq"] for line in lines[1:] if line.get("push") == "event"]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) < last
    await reader.close()


async def test_activity_then_quiet_then_activity_again(socket_dir: Path) -> None:
    server, task = await serve_in_loop(socket_dir / "s", quiet_after=0.2)
    client = await connect(server)
    try:
        await client.request("events.stream", types=["session.activity", "session.quiet"])
        info = (await client.request("session.new", name="talk", command=["sh", "-c", "read x; echo $x; cat"]))[
            "session"
        ]
        await client.request("session.send", target="talk", keys=["hello", "Enter"])
        kinds = [(await next_event(client)).type for _ in range(2)]
        assert kinds == ["session.activity", "session.quiet"]
        assert not server.activity.armed  # nothing active: no timer
        await client.request("session.send", target="talk", keys=["again", "Enter"])
        event = await next_event(client)
        assert (event.type, event.session, event.name) == ("session.activity", info["id"], "talk")
        assert (await next_event(client)).type == "session.quiet"
    finally:
        await client.close()
        await shutdown(server, task)


async def test_a_commit_before_the_long_poll_coroutine_starts_still_wakes_it(
    live: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The handler registers its waiter synchronously; the coroutine that awaits it starts a loop
    # pass later. Commit in between (call_soon runs before the task's first step).
    loop = asyncio.get_running_loop()
    original = live.events.waiter

    def waiter_then_commit(*args: Any, **kwargs: Any) -> Any:
        sub = original(*args, **kwargs)
        loop.call_soon(bell, live)
        return sub

    monkeypatch.setattr(live.events, "waiter", waiter_then_commit)
    client = await connect(live)
    try:
        page = await asyncio.wait_for(client.request("events.read", wait_ms=600_000), 30)
        assert [e["type"] for e in page["events"]] == ["session.bell"]
        session = (await client.request("session.new", name="w", command=["sleep", "600"]))["session"]

        def exit_then(*args: Any, **kwargs: Any) -> Any:
            sub = original(*args, **kwargs)
            loop.call_soon(lambda: live.events.append("session.exited", session=session["id"], name="w"))
            return sub

        monkeypatch.setattr(live.events, "waiter", exit_then)
        result = await asyncio.wait_for(client.request("session.wait", target="w", exit=True), 30)
        assert result["session"]["id"] == session["id"]
    finally:
        await client.close()
