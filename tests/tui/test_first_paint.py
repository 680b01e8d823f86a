"""The attach before Textual starts: the reply taken first, a target found in it, the first paint."""

from __future__ import annotations

from typing import Any

import pyte
import pytest

from termux.client import TermuxError
from termux.tui.config import Config
from termux.tui.layout import Layout
from tests.conftest import RunningServer
from tests.tui.helpers import start

COLS, ROWS = 100, 30
SIDEBAR = 28  # columns: Config().sidebar_width, its border included


def recording(client: Any) -> list[str]:
    """The commands `client` sends with `request` from now on."""
    sent: list[str] = []
    request = client.request

    async def record(cmd: str, **args: Any) -> Any:
        sent.append(cmd)
        return await request(cmd, **args)

    client.request = record
    return sent


def drawn(text: str) -> list[str]:
    """What `text` shows on a fresh COLS x ROWS terminal."""
    screen = pyte.Screen(COLS, ROWS)
    pyte.Stream(screen).feed(text)
    return screen.display


def make_session(server: RunningServer, name: str, text: str, cols: int = 72, rows: int = 29) -> str:
    with server.client() as c:
        command = ["/bin/sh", "-c", f"printf '{text}\\n'; exec cat"]
        sid = str(c.request("session.new", name=name, command=command, cols=cols, rows=rows)["session"]["id"])
        c.request("session.wait", target=name, match=text, timeout=20)
    return sid


async def test_a_target_named_in_the_reply_is_not_asked_for(server: RunningServer) -> None:
    make_session(server, "one", "first")
    second = make_session(server, "two", "second")
    app, client = await start(server, focus="two")
    sent = recording(client)
    try:
        await app.take_attach()
        assert app.initial_focus == second
        assert app.model.focused is None  # (focused once Textual runs; the model knows it)
        assert sent == []  # client.attach only (request_as): no session.get before it
    finally:
        await client.close()


async def test_a_target_the_reply_does_not_name_is_asked_of_the_server(server: RunningServer) -> None:
    make_session(server, "one", "first")
    app, client = await start(server, focus="nothing-by-this-name")
    sent = recording(client)
    try:
        with pytest.raises(TermuxError) as caught:
            await app.take_attach()
        assert caught.value.code == "no_session"
        assert sent == ["session.get"]
    finally:
        await client.close()


async def test_a_target_given_by_id_is_found_by_it(server: RunningServer) -> None:
    make_session(server, "one", "first")
    second = make_session(server, "two", "second")
    app, client = await start(server, focus=second)
    sent = recording(client)
    try:
        await app.take_attach()
        assert app.initial_focus == second and sent == []
    finally:
        await client.close()


async def test_the_first_paint_is_the_focused_screen_where_its_pane_is(server: RunningServer) -> None:
    make_session(server, "one", "other-screen")
    make_session(server, "two", "painted-first")
    app, client = await start(server, focus="two")
    try:
        assert app.first_paint(COLS, ROWS) is None  # nothing before the reply
        await app.take_attach()
        paint = app.first_paint(COLS, ROWS)
        assert paint is not None
        lines = drawn(paint)
        assert lines[0][SIDEBAR:].rstrip() == "painted-first"
        assert all(not line[:SIDEBAR].strip() for line in lines)  # the sidebar is Textual's
        assert not lines[ROWS - 1].strip()  # so is the status line
        assert not any("other-screen" in line for line in lines)
    finally:
        await client.close()


async def test_without_the_sidebar_the_screen_is_painted_from_the_left(server: RunningServer) -> None:
    make_session(server, "one", "painted-left", cols=COLS)
    config = Config()
    config.sidebar = False
    app, client = await start(server, focus="one", config=config)
    try:
        await app.take_attach()
        paint = app.first_paint(COLS, ROWS)
        assert paint is not None
        assert drawn(paint)[0].rstrip() == "painted-left"
    finally:
        await client.close()


async def test_no_first_paint_where_textual_places_the_panes_first(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = make_session(server, "one", "not-painted")
    app, client = await start(server, focus="one", layout=Layout(sid, COLS - SIDEBAR, ROWS - 1))
    try:
        await app.take_attach()
        assert app.first_paint(COLS, ROWS) is None  # a layout given: laid out with Textual
    finally:
        await client.close()
    config = Config()
    config.activity = True
    app, client = await start(server, focus="one", config=config)
    try:
        await app.take_attach()
        assert app.first_paint(COLS, ROWS) is None  # the activity view takes part of the area
        monkeypatch.setenv("NO_COLOR", "1")
        app.config.activity = False
        assert app.first_paint(COLS, ROWS) is None  # Textual filters every line
        monkeypatch.delenv("NO_COLOR")
        assert app.first_paint(COLS, ROWS) is not None
    finally:
        await client.close()
