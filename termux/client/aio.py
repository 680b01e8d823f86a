"""`AsyncClient`: the Python API to a termux server for asyncio programs (the TUI uses it).

The same requests as `termux.client.Client`, plus pushes on a queue. It lives apart from `Client`
so that a one-shot `termux ls` never imports asyncio or msgspec; `from termux.client import
AsyncClient` still works. It wraps the same sans-I/O `ClientConnection` with the `TYPED` codec:
every push arrives decoded once, as a struct of termux/protocol/pushes.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

import msgspec

from termux.client import TermuxError, _connect_socket, socket_path
from termux.protocol.connection import CLOSED, NEED_DATA, ClientConnection
from termux.protocol.pushes import TYPED, Push, Reply, ServerMessage, Unrecognized

PUSH_QUEUE = 65_536  # pushes buffered for an async consumer; past that, reading the socket waits
READ_SIZE = 1 << 16

R = TypeVar("R")


class AsyncClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: Path) -> None:
        self.path = path
        self._reader = reader
        self._writer = writer
        self._conn: ClientConnection[ServerMessage] = ClientConnection(TYPED)
        self._waiting: dict[int, asyncio.Future[Reply]] = {}
        self.pushes: asyncio.Queue[Push] = asyncio.Queue(PUSH_QUEUE)
        self.closed = asyncio.Event()
        self._reading = asyncio.create_task(self._read_loop())

    @classmethod
    async def connect(cls, path: Path | str | None = None, *, name: str | None = None, autostart: bool = True) -> Self:
        resolved = socket_path(name, path)
        raw = await asyncio.to_thread(_connect_socket, resolved, autostart)
        reader, writer = await asyncio.open_unix_connection(sock=socket.socket(fileno=raw.detach()))
        return cls(reader, writer, resolved)

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
        self._writer.write(self._conn.send(request))
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
        """Fire a request whose reply nobody awaits (keystrokes: the fastest path to the server)."""
        self._writer.write(self._conn.send(self._conn.request(cmd, args)))

    async def _read_loop(self) -> None:
        conn = self._conn
        try:
            while True:
                message = conn.next_message()
                if message is NEED_DATA:
                    conn.receive_data(await self._reader.read(READ_SIZE))
                elif message is CLOSED:
                    return
                elif isinstance(message, Reply):
                    future = self._waiting.get(message.id) if isinstance(message.id, int) else None
                    if future is not None and not future.done():
                        future.set_result(message)
                elif not isinstance(message, Unrecognized):
                    await self.pushes.put(message)  # type: ignore[arg-type]
        except (ConnectionError, TermuxError):
            pass
        finally:
            self.closed.set()
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(TermuxError("disconnected", "the server closed the connection"))

    async def close(self) -> None:
        self._reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reading
        self._writer.close()
        with contextlib.suppress(ConnectionError):
            await self._writer.wait_closed()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
