"""Proving that a long request is worked on in slices: another request is answered while it runs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from termux.protocol.events import SessionExited
from termux.protocol.pushes import EventPush, Push
from tests.events.event_helpers import served_client, until


def _is_exit(push: Push) -> bool:
    return isinstance(push, EventPush) and isinstance(push.event, SessionExited)


async def answered_midway(
    socket_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    handlers: ModuleType,
    session: dict[str, Any],
    cmd: str,
    **args: Any,
) -> tuple[int, int, dict[str, Any]]:
    """Serve in this loop with `handlers.FOCUSED_BUDGET` at 0 (one batch of rows a slice), create
    `session` (session.new's arguments) and wait until it exits, send `cmd` and, once it has
    rendered a row, `session.list`. Returns the rows rendered when session.list was answered, the
    rows rendered in all, and `cmd`'s reply."""
    from termux import emulator

    rendered = [0]
    real_render = emulator.render_row

    def counted(row: Any, escapes: bool = False) -> str:
        rendered[0] += 1
        return real_render(row, escapes)

    monkeypatch.setattr(emulator, "render_row", counted)
    monkeypatch.setattr(handlers, "FOCUSED_BUDGET", 0.0)
    async with served_client(socket_dir / "s") as (live, client):
        await client.request("client.attach", follow=[])
        await client.request("session.new", **session)
        while not _is_exit(await asyncio.wait_for(client.pushes.get(), 60)):
            pass
        pending = asyncio.ensure_future(client.request(cmd, **args))
        await until(lambda: rendered[0] > 0, f"{cmd} rendering a row")
        await client.request("session.list")
        at_list = rendered[0]
        reply = await pending
    return at_list, rendered[0], reply
