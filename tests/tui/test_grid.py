"""The grid screen under Pilot, over real emulator screens: filter, move, choose, and what it draws
again when a session changes."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App

from termux.emulator import ByteStream, Screen
from termux.tui.grid import GridScreen
from termux.tui.model import SessionRow
from termux.tui.render import Palette
from tests.tui.helpers import wait_until

NAMES = ["build", "server", "tests", "db", "agent-1", "agent-2", "agent-3", "logs", "shell", "docs", "web", "cron"]


class GridApp(App[None]):
    def __init__(self, count: int = 12) -> None:
        super().__init__()
        names = [NAMES[n % len(NAMES)] + ("" if n < len(NAMES) else str(n)) for n in range(count)]
        self.rows = [SessionRow(f"%{n}", name) for n, name in enumerate(names)]
        self.screens: dict[str, Any] = {}
        for row in self.rows:
            screen = Screen(80, 24)
            ByteStream(screen).feed(f"$ echo {row.name}\r\nhello from {row.name}\r\n$ ".encode())
            self.screens[row.id] = screen
        self.chosen: list[str | None] = []
        self.grid = GridScreen(self.rows, self.screens.get, "%0", Palette())

    def on_mount(self) -> None:
        self.push_screen(self.grid, self.chosen.append)

    def tile_text(self) -> str:
        return "\n".join(self.grid.grid.render_line(y).text for y in range(self.grid.grid.size.height))


async def test_tiles_show_every_session_and_enter_chooses_the_selected_one() -> None:
    app = GridApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = app.tile_text()
        for row in app.rows:
            assert f"hello from {row.name}" in text  # every screen, in its tile
        assert "0:build" in text and "11:cron" in text
        await pilot.press("right", "down")  # 4 tiles a row: from 0 to 1, then to 5
        assert app.grid.grid.selected_id == "%5"
        await pilot.press("enter")
        await pilot.pause()
    assert app.chosen == ["%5"]


async def test_typing_filters_by_name_and_escape_leaves() -> None:
    app = GridApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*"AGENT")  # any case
        grid = app.grid.grid
        assert [grid.rows[p].name for p in grid.shown] == ["agent-1", "agent-2", "agent-3"]
        assert grid.selected_id == "%4"  # the selection (build) was filtered out: the first shown
        text = app.tile_text()
        assert "hello from agent-2" in text and "hello from build" not in text
        await pilot.press("right")
        assert grid.selected_id == "%5"
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace")
        assert len(grid.shown) == 12 and grid.selected_id == "%5"  # kept while it still matches
        await pilot.press(*"zzz")
        assert grid.shown == [] and "no session" in str(app.grid.query_one("#grid-bar").render())
        await pilot.press("enter")  # nothing to choose: stays open
        assert app.screen is app.grid
        await pilot.press("escape")
        await pilot.pause()
    assert app.chosen == [None]


async def test_a_session_that_changed_redraws_its_tile_alone() -> None:
    app = GridApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        grid = app.grid.grid
        app.tile_text()
        drawn = grid.tiles_drawn
        app.tile_text()
        assert grid.tiles_drawn == drawn  # nothing changed: every tile from its cache
        ByteStream(app.screens["%3"]).feed(b"echo new-output\r\nnew-output\r\n")
        grid.touched(["%3"])
        text = app.tile_text()
        assert grid.tiles_drawn == drawn + 1 and "new-output" in text


async def test_fifty_sessions_scroll_to_keep_the_selection_in_view() -> None:
    app = GridApp(50)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        grid = app.grid.grid
        geometry = grid.geometry
        assert geometry.total_rows > geometry.shown_rows
        app.tile_text()
        assert grid.tiles_drawn == geometry.shown_rows * geometry.columns  # only the tiles in view
        await pilot.press("end")
        assert grid.selected_id == "%49" and grid.first_row == geometry.total_rows - geometry.shown_rows
        assert "49:" in app.tile_text()


async def test_the_wheel_moves_by_rows_and_a_click_chooses_a_tile() -> None:
    app = GridApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        grid = app.grid.grid
        geometry = grid.geometry
        app.grid.post_message(events.MouseScrollDown(grid, 0, 0, 0, 0, 0, False, False, False))
        await wait_until(pilot, lambda: grid.selected_id == f"%{geometry.columns}")  # one row of tiles down
        app.grid.post_message(events.MouseScrollUp(grid, 0, 0, 0, 0, 0, False, False, False))
        await wait_until(pilot, lambda: grid.selected_id == "%0")
        await pilot.click("#grid", offset=(geometry.width * 2 + 3, geometry.height + 2))  # row 1, column 2
        await pilot.pause()
    assert app.chosen == [f"%{geometry.columns + 2}"]
