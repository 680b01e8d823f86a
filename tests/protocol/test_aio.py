"""The asyncio client's reading: pushes handed on in the callback that read them, a bounded batch
a turn; the queue's bound holds the socket back; replies and the end of the connection."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from termux.client import TermuxError, aio
from termux.client.aio import PUSH_BATCH, AsyncClient
from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.pushes import OutputPush, Push, encode_line, reply_error, reply_ok

Serve = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def pushes(count: int) -> bytes:
    return b"".join(encode_line(OutputPush("%0", n, b"x")) for n in range(count))


async def fake_server(path: Path, serve: Serve) -> asyncio.Server:
    return await asyncio.start_unix_server(serve, path=str(path))


async def test_pushes_are_handed_on_in_the_reading_callback_a_bounded_batch_a_turn(socket_dir: Path) -> None:
    count = 3 * PUSH_BATCH + 5

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(pushes(count))  # one write: the client reads it at once
        await writer.drain()
        await reader.read()  # until the client goes

    server = await fake_server(socket_dir / "s", serve)
    loop = asyncio.get_running_loop()
    client = await AsyncClient.connect(socket_dir / "s", autostart=False)
    received: list[int] = []
    run = {"now": 0, "longest": 0, "turn_armed": False}
    in_task: list[bool] = []

    def turn() -> None:  # a loop turn passed between two pushes
        run["now"], run["turn_armed"] = 0, False

    def on_push(push: Push) -> None:
        assert isinstance(push, OutputPush)
        in_task.append(asyncio.current_task() is not None)
        received.append(push.offset)
        run["now"] += 1
        run["longest"] = max(run["longest"], run["now"])
        if not run["turn_armed"]:
            run["turn_armed"] = True
            loop.call_soon(turn)

    client.on_push = on_push
    try:
        for _ in range(1000):
            if len(received) == count:
                break
            await asyncio.sleep(0.005)
        assert received == list(range(count))  # every push, in order
        assert not any(in_task)  # in the transport's callback: no task hop
        assert run["longest"] <= PUSH_BATCH  # then the loop runs what else is ready (a key)
        assert client.pushes.empty()
    finally:
        await client.close()
        server.close()


async def test_a_full_queue_stops_reading_until_the_consumer_takes(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(aio, "PUSH_QUEUE", 8)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = await reader.readline()
        writer.write(pushes(50) + reply_ok(1, {"done": True}))
        await writer.drain()
        assert line
        await reader.read()

    server = await fake_server(socket_dir / "s", serve)
    client = await AsyncClient.connect(socket_dir / "s", autostart=False)
    try:
        reply = asyncio.ensure_future(client.request("server.hello"))
        for _ in range(1000):
            if client.pushes.full():
                break
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.05)
        assert client.pushes.qsize() == 8 and not reply.done()  # reading waits for room
        assert not client._transport.is_reading()
        offsets = [(await client.pushes.get()).offset for _ in range(50)]  # type: ignore[union-attr]
        assert offsets == list(range(50))
        assert await asyncio.wait_for(reply, 10) == {"done": True}  # the reply behind them came too
    finally:
        await client.close()
        server.close()


async def test_the_server_going_away_closes_the_client_and_fails_what_waits(socket_dir: Path) -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(pushes(3))
        writer.close()  # no reply: the connection ends

    server = await fake_server(socket_dir / "s", serve)
    client = await AsyncClient.connect(socket_dir / "s", autostart=False)
    try:
        with pytest.raises(TermuxError) as raised:
            await asyncio.wait_for(client.request("server.hello"), 10)
        assert raised.value.code == "disconnected"
        await asyncio.wait_for(client.closed.wait(), 10)
        assert client.pushes.qsize() == 3  # what came before the end was delivered
    finally:
        await client.close()
        server.close()


async def test_a_reply_s_waiter_runs_before_the_pushes_read_after_it(socket_dir: Path) -> None:
    """A reply and a push after it in one read: the task awaiting the reply goes on before the
    push is handed on (what a snapshot reply says must not overwrite the exit pushed after it)."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(reply_ok(1, {"state": "running"}) + pushes(1))  # one write
        await writer.drain()
        await reader.read()

    server = await fake_server(socket_dir / "s", serve)
    client = await AsyncClient.connect(socket_dir / "s", autostart=False)
    order: list[str] = []
    client.on_push = lambda push: order.append("push")
    try:
        await client.request("session.snapshot")
        order.append("reply")
        for _ in range(1000):
            if "push" in order:
                break
            await asyncio.sleep(0.005)
        assert order == ["reply", "push"]
    finally:
        await client.close()
        server.close()


async def test_a_request_sent_without_waiting_asks_for_error_replies_only(socket_dir: Path) -> None:
    """`send_nowait` (keystrokes) asks the server to answer only a failure: nobody awaits the
    result, so a success would cost the server a reply and the client a wake-up to read it. An
    error that comes anyway is dropped, and what is awaited after it gets its own reply."""
    lines: list[dict[str, Any]] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(2):
            lines.append(msgspec.json.decode(await reader.readline()))
        writer.write(reply_error(lines[0]["id"], ProtocolError(ErrorCode.NO_SESSION, "no such session")))
        writer.write(reply_ok(lines[1]["id"], {"done": True}))
        await writer.drain()
        await reader.read()

    server = await fake_server(socket_dir / "s", serve)
    client = await AsyncClient.connect(socket_dir / "s", autostart=False)
    try:
        client.send_nowait("session.send", target="%1", data=b"k")
        assert await asyncio.wait_for(client.request("server.hello"), 10) == {"done": True}
        assert lines[0]["reply"] == "errors" and lines[0]["cmd"] == "session.send"
        assert "reply" not in lines[1]  # an awaited request: every reply (the default)
    finally:
        await client.close()
        server.close()
