"""`AsyncClient`: the Python API to a termux server for asyncio programs (the TUI uses it).

The same requests as `termux.client.Client`, plus pushes on a queue. It lives apart from `Client`
so that a one-shot `termux ls` never imports asyncio or msgspec; `from termux.client import
AsyncClient` still works. It wraps the same sans-I/O `ClientConnection` with the `TYPED` codec:
every push arrives decoded once, as a struct of termux/protocol/pushes.py.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

import msgspec

from termux.client import TermuxError, _connect_socket, socket_path
from termux.protocol.connection import CLOSED, NEED_DATA, ClientConnection
from termux.protocol.pushes import TYPED, Push, Reply, ServerMessage, Unrecognized

PUSH_QUEUE = 65_536  # pushes buffered for an async consumer; past that, reading the socket waits
# Pushes handed to `on_push` in one loop turn; past that the socket is not read until the next
# turn, so what else the loop has (a key) runs between the batches of a flood.
PUSH_BATCH = 64

R = TypeVar("R")


class _Protocol(asyncio.Protocol):
    """The socket's edge: the bytes the loop read go straight to the client (no reader task)."""

    def __init__(self, client: AsyncClient) -> None:
        self.client = client

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.client._transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.client._received(data)

    def eof_received(self) -> bool:
        self.client._received(b"")
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.client._lost()


class AsyncClient:
    """A connection to the server on the running loop. Replies settle the futures of `request`;
    pushes go to `on_push` when it is set (called on the loop as they are read, at most
    PUSH_BATCH a turn, and after the waiter of a reply read before them), else onto the
    `pushes` queue."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._transport: asyncio.Transport = None  # type: ignore[assignment]  # connection_made sets it
        self._conn: ClientConnection[ServerMessage] = ClientConnection(TYPED)
        self._waiting: dict[int, asyncio.Future[Reply]] = {}
        self.pushes: asyncio.Queue[Push] = asyncio.Queue(PUSH_QUEUE)
        #: Called with each push on the loop, in the callback that read it (None: `pushes`).
        self.on_push: Callable[[Push], None] | None = None
        self.closed = asyncio.Event()
        self._paused = False  # reading stopped: a batch's worth waits, or the queue is full
        self._later: asyncio.Handle | None = None  # the turn that delivers the rest of a batch
        self._putting: asyncio.Task[None] | None = None  # a push waiting for room in `pushes`
        self._eof = False

    @classmethod
    async def connect(cls, path: Path | str | None = None, *, name: str | None = None, autostart: bool = True) -> Self:
        resolved = socket_path(name, path)
        raw = await asyncio.to_thread(_connect_socket, resolved, autostart)
        client = cls(resolved)
        sock = socket.socket(fileno=raw.detach())
        await asyncio.get_running_loop().create_unix_connection(lambda: _Protocol(client), sock=sock)
        return client

    # -- reading: on the loop, in the callback that read the bytes --------------------------------

    def _received(self, data: bytes) -> None:
        self._conn.receive_data(data)
        if not data:
            self._eof = True
        self._deliver()

    def _deliver(self) -> None:
        """Hand on what was read: replies to their requests, pushes to `on_push` (a batch a turn)
        or the queue; pause reading while a batch or a push waits."""
        self._later = None
        conn = self._conn
        handed = 0
        while self._putting is None:
            try:
                message = conn.next_message()
            except TermuxError:  # a line this client cannot read: the connection is unusable
                self._transport.close()
                return
            if message is NEED_DATA:
                break
            if message is CLOSED:
                self._finish()
                return
            if isinstance(message, Reply):
                future = self._waiting.get(message.id) if isinstance(message.id, int) else None
                if future is not None and not future.done():
                    future.set_result(message)
                    if self.on_push is not None:
                        # Its waiter runs first (set_result scheduled it): the pushes after the
                        # reply are handed on next turn, in the order the server sent them.
                        self._pause()
                        self._later = asyncio.get_running_loop().call_soon(self._deliver)
                        return
            elif isinstance(message, Unrecognized):
                continue
            elif (on_push := self.on_push) is not None:
                on_push(message)  # type: ignore[arg-type]
                handed += 1
                if handed == PUSH_BATCH:  # the rest on the next turn, after what else is ready
                    self._pause()
                    self._later = asyncio.get_running_loop().call_soon(self._deliver)
                    return
            elif self.pushes.full():
                self._pause()
                self._putting = asyncio.ensure_future(self._put(message))  # type: ignore[arg-type]
                return
            else:
                self.pushes.put_nowait(message)  # type: ignore[arg-type]
        self._resume()

    async def _put(self, push: Push) -> None:
        await self.pushes.put(push)
        self._putting = None
        self._deliver()

    def _pause(self) -> None:
        if not self._paused and not self._eof:
            self._paused = True
            self._transport.pause_reading()

    def _resume(self) -> None:
        if self._paused:
            self._paused = False
            if not self._transport.is_closing():
                self._transport.resume_reading()

    def _lost(self) -> None:
        self._conn.receive_data(b"")
        self._eof = True
        if self._putting is None and self._later is None:
            self._deliver()  # what was read before: then closed

    def _finish(self) -> None:
        self.closed.set()
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(TermuxError("disconnected", "the server closed the connection"))

    async def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        """The result, as plain values (bytes as base64 strings): see `request_as` for a typed one."""
        return await self.submit(cmd, **args)

    def submit(self, cmd: str, **args: Any) -> Awaitable[dict[str, Any]]:
        """`request`, but written now, in order with the keystrokes sent after it (`send_nowait`):
        a request made in a task would be written only when the task runs. Await the result."""
        return self._object(cmd, *self._start(cmd, args))

    async def request_as(self, result_type: type[R], cmd: str, **args: Any) -> R:
        """The result decoded into `result_type` (a struct of termux/protocol/results.py)."""
        result = await self._reply(*self._start(cmd, args))
        try:
            return msgspec.convert(result, result_type)
        except msgspec.ValidationError as exc:
            raise TermuxError("bad_reply", f"the server sent a `{cmd}` result this client cannot read: {exc}") from None

    def _start(self, cmd: str, args: dict[str, Any]) -> tuple[int, asyncio.Future[Reply]]:
        """Write the request; its reply will settle the future."""
        if self.closed.is_set():
            raise TermuxError("disconnected", "the server closed the connection")
        request = self._conn.request(cmd, args)
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._waiting[request.id] = future
        self._transport.write(self._conn.send(request))
        return request.id, future

    async def _object(self, cmd: str, request_id: int, future: asyncio.Future[Reply]) -> dict[str, Any]:
        result = await self._reply(request_id, future)
        if not isinstance(result, dict):
            raise TermuxError("bad_reply", f"the server sent a `{cmd}` result that is not an object")
        return result

    async def _reply(self, request_id: int, future: asyncio.Future[Reply]) -> Any:
        try:
            reply = await future
        finally:
            self._waiting.pop(request_id, None)
        if reply.error is not None or not reply.ok:
            error = reply.error
            if error is None:
                raise TermuxError("bad_reply", "the server sent an error reply without an error object")
            raise TermuxError(error.code, error.message, **error.extra())
        return {} if reply.result is None else reply.result

    def send_nowait(self, cmd: str, **args: Any) -> None:
        """Fire a request whose result nobody awaits (keystrokes: the fastest path to the server).
        The server answers it only if it fails (`"reply": "errors"`; the answer is dropped here),
        so a keystroke does not cost the server a reply and this process a wake-up to read it."""
        self._transport.write(self._conn.send(self._conn.request(cmd, args, errors_only=True)))

    async def close(self) -> None:
        for pending in (self._later, self._putting):
            if pending is not None:
                pending.cancel()
        self._later = self._putting = None
        self._transport.close()
        await self.closed.wait()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
