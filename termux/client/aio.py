"""`AsyncClient`: the Python API to a termux server for asyncio programs (the TUI uses it).

The same requests as `termux.client.Client`, plus pushed lines on a queue. It lives apart from
`Client` so that a one-shot `termux ls` never imports asyncio; `from termux.client import
AsyncClient` still works.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from termux.client import TermuxError, _connect_socket, _decode, _encode, _result, socket_path
from termux.protocol.framing import MAX_REPLY_LINE

PUSH_QUEUE = 65_536  # pushed lines buffered for an async consumer; past that, reading the socket waits


class AsyncClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: Path) -> None:
        self.path = path
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.pushes: asyncio.Queue[dict[str, Any]] = asyncio.Queue(PUSH_QUEUE)
        self.closed = asyncio.Event()
        self._reading = asyncio.create_task(self._read_loop())

    @classmethod
    async def connect(cls, path: Path | str | None = None, *, name: str | None = None, autostart: bool = True) -> Self:
        resolved = socket_path(name, path)
        sock = await asyncio.to_thread(_connect_socket, resolved, autostart)
        reader, writer = await asyncio.open_unix_connection(sock=sock, limit=MAX_REPLY_LINE)
        return cls(reader, writer, resolved)

    async def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        return await self.submit(cmd, **args)

    def submit(self, cmd: str, **args: Any) -> Awaitable[dict[str, Any]]:
        """Write the request now, in order with the keystrokes sent after it (`send_nowait`), and
        return its result to await (a request made in a task would be written when the task runs)."""
        if self.closed.is_set():
            raise TermuxError("disconnected", "the server closed the connection")
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        self._writer.write(_encode(request_id, cmd, args))
        return self._result_of(request_id, future)

    async def _result_of(self, request_id: int, future: asyncio.Future[dict[str, Any]]) -> dict[str, Any]:
        try:
            return _result(await future)
        finally:
            self._waiting.pop(request_id, None)

    def send_nowait(self, cmd: str, **args: Any) -> None:
        """Fire a request whose reply nobody awaits (keystrokes: the fastest path to the server)."""
        request_id = next(self._ids)
        self._writer.write(_encode(request_id, cmd, args))

    async def _read_loop(self) -> None:
        try:
            while line := await self._reader.readline():
                message = _decode(line)
                if "push" in message:
                    await self.pushes.put(message)
                elif (future := self._waiting.get(message.get("id"))) is not None and not future.done():  # type: ignore[arg-type]
                    future.set_result(message)
        except (ConnectionError, ValueError, TermuxError, asyncio.IncompleteReadError):
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
