"""Helpers for the event tests: a real server on a real Unix socket, run in the test's own loop.

Running the server in-process lets a test instrument its loop (timers, loop passes) and reach its
state, while clients still talk to it over the socket exactly as scripts do.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from termux.client import AsyncClient
from termux.protocol.events import Event
from termux.protocol.pushes import EventPush, Push
from termux.server.server import Server


async def serve_in_loop(path: Path, **options: Any) -> tuple[Server, asyncio.Task[None]]:
    server = Server(path, **options)
    ready = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(server.serve(lambda: ready.set_result(None)))
    await asyncio.wait([ready, task], return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()
    return server, task


async def shutdown(server: Server, task: asyncio.Task[None]) -> None:
    server.request_shutdown()
    await asyncio.wait_for(task, 30)


@asynccontextmanager
async def served_client(path: Path, **options: Any) -> AsyncIterator[tuple[Server, AsyncClient]]:
    """A server in this loop (`serve_in_loop`) and one client connected to it; both closed after."""
    server, task = await serve_in_loop(path, **options)
    try:
        client = await AsyncClient.connect(server.socket_path, autostart=False)
        try:
            yield server, client
        finally:
            await client.close()
    finally:
        await shutdown(server, task)


async def spawn_cli(env: dict[str, str], *args: str) -> asyncio.subprocess.Process:
    """`python -m termux ARGS` as a child, without blocking the loop the server runs in."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "termux", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip


async def cli(env: dict[str, str], *args: str, timeout: float = 60) -> tuple[int, str, str]:
    proc = await spawn_cli(env, *args)
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def event_of(push: Push) -> Event:
    """The event an `event` push carries (anything else fails the test)."""
    assert isinstance(push, EventPush), push
    return push.event


UNTIL_TIMEOUT = 30.0  # a failing bound for waits on the server, not a measure of its speed


async def until(condition: Callable[[], object], what: str, timeout: float = UNTIL_TIMEOUT) -> None:
    """Let the loop run until `condition()` holds; fail the test, saying `what` never happened,
    after `timeout` seconds (a wait that pytest-timeout alone would end says nothing)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    passes = 0
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        passes += 1
        await asyncio.sleep(0 if passes < 100 else 0.01)  # a few passes at once, then a gentler pace
