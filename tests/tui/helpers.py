"""Shared helpers for the TUI tests: a real server, a real AsyncClient, the app under Pilot."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from textual.pilot import Pilot

from termux.client import AsyncClient
from termux.tui.app import TermuxApp
from termux.tui.config import Config
from tests.conftest import RunningServer

SIZE = (100, 30)  # the outer terminal the app runs in


async def wait_until(pilot: Pilot[Any], predicate: Callable[[], object], timeout: float = 15.0) -> None:
    """Let the app run until `predicate()` holds (fails the test after `timeout`)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition never held")
        await pilot.pause(0.02)


def screen_text(screen: Any) -> str:
    return "\n".join(line.rstrip() for line in screen.display)


async def start(server: RunningServer, **kwargs: Any) -> tuple[TermuxApp, AsyncClient]:
    """The app (not running yet) on a new client of `server`, with `Config()` unless a `config`
    is given; the caller closes the client."""
    client = await AsyncClient.connect(server.path, autostart=False)
    return TermuxApp(client, config=kwargs.pop("config", Config()), **kwargs), client


@asynccontextmanager
async def attached(server: RunningServer, **kwargs: Any) -> AsyncIterator[tuple[TermuxApp, Pilot[Any]]]:
    """The app (`start`'s) running under Pilot at SIZE, once it has attached; its client is closed
    after, whatever the test did."""
    app, client = await start(server, **kwargs)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, app.attached.is_set)
            yield app, pilot
    finally:
        await client.close()
