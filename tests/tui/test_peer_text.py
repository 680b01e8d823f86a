"""Names, titles and messages from the server reach the TUI's widgets as text: control characters
escaped (termux.text.visible), never read as Textual markup."""

from __future__ import annotations

from termux.client import AsyncClient
from termux.protocol.events import RenamedData, SessionRenamed
from termux.protocol.pushes import ErrorInfo, ErrorPush
from termux.tui.app import TermuxApp
from termux.tui.config import Config
from termux.tui.screens import ConfirmScreen
from tests.conftest import RunningServer
from tests.server.fakes import HOSTILE, SHOWN
from tests.tui.helpers import wait_until

SIZE = (100, 30)


async def test_a_name_that_looks_like_markup_is_shown_as_it_is(server: RunningServer) -> None:
    # The server allows "[/x]" as a name; read as markup it raised MarkupError and ended the TUI.
    with server.client() as c:
        c.request("session.new", name="[/x]", command=["/bin/cat"])
    client = await AsyncClient.connect(server.path, autostart=False)
    app = TermuxApp(client, config=Config())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, app.attached.is_set)
        await pilot.press("ctrl+b", "x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert str(app.screen.query_one("Static").render()) == "Kill session [/x]? (y/n)"
        await pilot.press("n")
        await pilot.press("ctrl+b", "left_square_bracket")
        await wait_until(pilot, lambda: app.copy is not None and app.copy.shown)
        await pilot.pause()
        assert str(app.status.render()).startswith(" [[/x]] copy mode  [0/")
        assert app.is_running
    await client.close()


async def test_control_characters_from_the_server_are_escaped_in_sidebar_and_status(server: RunningServer) -> None:
    with server.client() as c:
        sid = c.request("session.new", name="a", command=["/bin/cat"])["session"]["id"]
    client = await AsyncClient.connect(server.path, autostart=False)
    app = TermuxApp(client, config=Config())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, app.attached.is_set)
        # what a hostile server would push: a rename and an error with control characters
        app.handle_event(SessionRenamed(session=sid, name=HOSTILE, data=RenamedData(old="a")))
        app.handle_push(ErrorPush(ErrorInfo("dropped", HOSTILE)))
        sidebar = app.sidebar.render_line(0).text  # now: the next resync puts the server's name back
        status = str(app.status.render())
        assert f"0:{SHOWN}" in sidebar and "\x1b" not in sidebar
        assert f"[{SHOWN}]" in status and f"server: {SHOWN}" in status and "\x1b" not in status
    await client.close()
