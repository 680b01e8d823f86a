"""Fixtures for the event tests: a real server on a real Unix socket, in this test's loop.

Running the server in-process lets a test instrument its loop (timers) and reach its state,
while clients still talk to it over the socket exactly as scripts do.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from termux.server.server import Server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="txev", dir="/tmp"))
    os.chmod(path, 0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def start_server(path: Path, **options: Any) -> tuple[Server, asyncio.Task[None]]:
    server = Server(path, **options)
    ready = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(server.serve(lambda: ready.set_result(None)))
    await asyncio.wait([ready, task], return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()
    return server, task


async def stop_server(server: Server, task: asyncio.Task[None]) -> None:
    server.request_shutdown()
    await asyncio.wait_for(task, 30)


@pytest.fixture
async def live(sock_dir: Path) -> AsyncIterator[Server]:
    """A server with default options on `sock_dir/default`."""
    server, task = await start_server(sock_dir / "default")
    try:
        yield server
    finally:
        await stop_server(server, task)


def termux_env(sock_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["TERMUX_SOCKET_DIR"] = str(sock_dir)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TERMUX", None)
    return env


async def run_cli(sock_dir: Path, *args: str, timeout: float = 60) -> tuple[int, str, str]:
    """Run `python -m termux ARGS` against the socket dir without blocking the server's loop."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "termux", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=termux_env(sock_dir),
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()
