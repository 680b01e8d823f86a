"""The server makes a session's snapshot once per screen state: attaching to idle sessions is free."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import termux.emulator
from termux.client.aio import AsyncClient
from tests.events.event_helpers import serve_in_loop, shutdown


async def test_a_snapshot_is_made_again_only_after_output_or_a_resize(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[int] = []
    make = termux.emulator.snapshot

    def counting(screen: Any) -> bytes:
        made.append(screen.columns)
        return make(screen)

    monkeypatch.setattr(termux.emulator, "snapshot", counting)
    server, task = await serve_in_loop(socket_dir / "default")
    try:
        client = await AsyncClient.connect(socket_dir / "default", autostart=False)
        await client.request("session.new", name="a", command=["/bin/cat"])
        first = await client.request("session.snapshot", target="a")
        again = await client.request("session.snapshot", target="a")
        assert len(made) == 1 and again["data"] == first["data"]  # nothing changed: the same bytes
        await client.request("session.send", target="a", data="aGVsbG8K")  # "hello\n", echoed
        await client.request("session.wait", target="a", match="hello", timeout=30)
        after_output = await client.request("session.snapshot", target="a")
        assert len(made) == 2 and after_output["offset"] > first["offset"]
        await client.request("session.resize", target="a", cols=50, rows=10)
        resized = await client.request("session.snapshot", target="a")
        assert made[-1] == 50 and resized["cols"] == 50  # the same offset, a new screen size
        await client.close()
    finally:
        await shutdown(server, task)
