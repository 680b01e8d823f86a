"""Shared helpers for the TUI tests: a real server, a real AsyncClient, the app under Pilot."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot


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
