"""The TUI attached to a real server (real PTYs, real socket), driven by Textual's Pilot."""

from __future__ import annotations

from typing import Any

import pytest

from termux.client import AsyncClient
from termux.tui.app import TermuxApp
from termux.tui.config import Config
from tests.conftest import RunningServer
from tests.tui.helpers import screen_text, wait_until

SIZE = (100, 30)


async def start(server: RunningServer, **kwargs: Any) -> tuple[TermuxApp, AsyncClient]:
    client = await AsyncClient.connect(server.path, autostart=False)
    app = TermuxApp(client, config=kwargs.pop("config", Config()), **kwargs)
    return app, client


def shadow_text(app: TermuxApp, sid: str | None = None) -> str:
    sid = sid or app.focused_id
    assert sid is not None
    return screen_text(app.feeder.shadows[sid].screen)


async def test_attach_type_and_see_the_echo(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/sh"])
    app, client = await start(server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, app.attached.is_set)
        assert app.focused_id is not None
        await pilot.press(*"echo hel", "l", "o", "enter")
        await wait_until(pilot, lambda: "hello\n" in shadow_text(app) + "\n")
        # the view draws the same screen the shadow holds, sized to the view
        shadow = app.feeder.shadows[app.focused_id].screen
        assert (shadow.columns, shadow.lines) == (app.view.size.width, app.view.size.height)
    await client.close()
