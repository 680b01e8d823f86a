"""Navigation at scale in the real app (a real server, real PTYs, under Pilot): the grid, finding a
session by name or number, the last session, the sidebar's width, and the status line's fields."""

from __future__ import annotations

import time
from typing import Any

from termux.tui.config import Config
from termux.tui.finder import FindScreen
from termux.tui.grid import GridScreen
from termux.tui.statusline import parse_template
from tests.conftest import RunningServer
from tests.loops import in_watched_loop, watched
from tests.tui.helpers import attached, screen_text, wait_until
from tests.tui.test_model_marks import event as quiet_event


def sessions(server: RunningServer, count: int) -> list[str]:
    with server.client() as c:
        return [
            c.request("session.new", name=f"s{n}", command=["/bin/sh", "-c", f"echo hello-{n}; exec cat"])["session"][
                "id"
            ]
            for n in range(count)
        ]


def grid_text(grid: GridScreen) -> str:
    tiles = grid.grid
    return "\n".join(tiles.render_line(y).text for y in range(tiles.size.height))


async def test_the_grid_shows_every_session_live_and_enter_focuses_the_chosen(server: RunningServer) -> None:
    ids = sessions(server, 12)
    async with attached(server, focus="s0") as (app, pilot):
        await wait_until(pilot, lambda: all("hello-" in screen_text(app.model.feeder.shadows[s].screen) for s in ids))
        views: list[dict[str, Any]] = []
        send = app.client.send_nowait

        def recording(cmd: str, **args: Any) -> None:
            if cmd == "client.view":
                views.append(args)
            send(cmd, **args)

        app.client.send_nowait = recording  # type: ignore[method-assign]
        await pilot.press("ctrl+b", "w")
        grid = app.screen
        assert isinstance(grid, GridScreen)
        # The server is told: every session is shown as a tile (caught up as often as a pane).
        assert sorted(views[-1]["tiles"]) == sorted(ids) and views[-1]["focus"] == ids[0]
        text = grid_text(grid)
        assert all(f"hello-{n}" in text for n in range(12))  # every screen, from the shadows
        # live: output of a session in the grid reaches its tile, at the marks' bounded rate
        app.client.send_nowait("session.send", target=ids[7], data="bGl2ZS1vdXRwdXQK")  # "live-output\n"
        await wait_until(pilot, lambda: "live-output" in grid_text(grid))
        await pilot.press(*"s1")  # s1, s10, s11
        assert [grid.grid.rows[p].name for p in grid.grid.shown] == ["s1", "s10", "s11"]
        await pilot.press("right", "enter")
        await wait_until(pilot, lambda: app.screen is app._main)
        assert app.model.focused == ids[10]
        assert views[-1]["tiles"] == [] and views[-1]["focus"] == ids[10]  # no tiles now
        await pilot.press("ctrl+b", "w")  # the same screen again, afresh: no filter, the focus chosen
        assert app.screen is grid and grid.grid.filter_text == "" and grid.grid.selected_id == ids[10]
        assert all(f"hello-{n}" in grid_text(grid) for n in range(12))
        await pilot.press("escape")  # Escape leaves, focus unchanged
        assert app.screen is app._main and app.model.focused == ids[10]
        assert app.sent == []  # no key in the grid reached a session


async def test_find_by_name_or_number_and_back_to_the_last_session(server: RunningServer) -> None:
    ids = sessions(server, 14)
    async with attached(server, focus="s0") as (app, pilot):
        await pilot.press("ctrl+b", "f")
        assert isinstance(app.screen, FindScreen)
        await pilot.press(*"s13", "enter")
        await wait_until(pilot, lambda: app.model.focused == ids[13])
        await pilot.press("ctrl+b", "apostrophe")  # past 9: by its number, as tmux's select-window -t
        await pilot.press("1", "2", "enter")
        await wait_until(pilot, lambda: app.model.focused == ids[12])
        await pilot.press("ctrl+b", "l")  # the last session: back and forth
        assert app.model.focused == ids[13]
        await pilot.press("ctrl+b", "l")
        assert app.model.focused == ids[12]
        await pilot.press("ctrl+b", "f", *"nothing", "enter", "escape")  # no match: Enter does nothing
        await wait_until(pilot, lambda: app.screen is app._main)
        assert app.model.focused == ids[12] and app.sent == []
        assert app.status.index == 12  # the status line's {index}


async def test_the_sidebar_width_is_configured_and_shrinks_on_a_narrow_terminal(server: RunningServer) -> None:
    sessions(server, 1)
    async with attached(server, config=Config(sidebar_width=40)) as (app, pilot):
        await wait_until(pilot, lambda: app.sidebar.outer_size.width == 40)
        assert app.view.size.width == 60
        await pilot.resize_terminal(60, 30)  # two fifths of 60
        await wait_until(pilot, lambda: app.sidebar.outer_size.width == 24 and app.view.size.width == 36)
        await pilot.resize_terminal(25, 30)  # too narrow for any sidebar: the session takes it all
        await wait_until(pilot, lambda: app.view.size.width == 25)
        assert app.sidebar.has_class("-narrow") and not app.sidebar.has_class("-hidden")
        await pilot.resize_terminal(100, 30)
        await wait_until(pilot, lambda: app.sidebar.outer_size.width == 40)
        await pilot.press("ctrl+b", "s")  # hidden and back
        await wait_until(pilot, lambda: app.view.size.width == 100)
        await pilot.press("ctrl+b", "s")
        await wait_until(pilot, lambda: app.view.size.width == 60)


async def test_status_counts_unseen_and_bells_and_tiles_say_quiet_since(server: RunningServer) -> None:
    ids = sessions(server, 3)
    left, right = parse_template("[{index}:{session}] {sessions}"), parse_template("{marks}")
    config = Config(status_left=left, status_right=right)
    async with attached(server, config=config, focus="s0") as (app, pilot):
        assert app.status.clock_timer is None  # no {time}: no timer
        assert str(app.status.render()).startswith("[0:s0] 3")
        for sid in ids[1:]:
            app.client.send_nowait("session.send", target=sid, data="YmVsbAcK")  # "bell\a\n"
        await wait_until(pilot, lambda: str(app.status.render()).rstrip().endswith("2* 2!"))
        await pilot.press("ctrl+b", "1")  # seen now
        await wait_until(pilot, lambda: str(app.status.render()).rstrip().endswith("1* 1!"))
        assert str(app.status.render()).startswith("[1:s1] 3")
        # the server says a session went quiet: its tile says since when
        since = time.time() - 5
        app.handle_push(quiet_event("session.quiet", ids[2], since + 5, seconds=5))
        assert app.model.rows[ids[2]].quiet_since == since
        await pilot.press("ctrl+b", "w")
        assert "quiet since " + time.strftime("%H:%M", time.localtime(since)) in grid_text(app.screen)  # type: ignore[arg-type]
        app.handle_push(quiet_event("session.activity", ids[2], since + 9))
        assert app.model.rows[ids[2]].quiet_since is None


@in_watched_loop
async def test_the_grid_open_and_idle_arms_no_timer(server: RunningServer) -> None:
    ids = sessions(server, 12)
    loop = watched()
    async with attached(server, focus="s0") as (app, pilot):
        await pilot.press("ctrl+b", "w")
        grid = app.screen
        assert isinstance(grid, GridScreen)
        await wait_until(pilot, lambda: all(f"hello-{n}" in grid_text(grid) for n in range(12)))

        def idle() -> bool:
            # No timer armed, and no callback queued either: a Textual timer just resumed (a
            # refresh) arms its sleep only once its task runs, on the next pass.
            return not loop.pending_timers() and not loop.queued() and app.snapshots_pending == 0

        # every session has gone quiet (QUIET_AFTER), so no session.quiet push is still to come
        await wait_until(pilot, lambda: idle() and all(app.model.rows[sid].quiet_since is not None for sid in ids))
        fired, drawn = loop.fired, grid.grid.tiles_drawn
        await loop.run_in_executor(None, time.sleep, 0.5)  # nothing happens: the loop has no timer to run
        assert loop.pending_timers() == [] and loop.fired == fired
        assert grid.grid.tiles_drawn == drawn  # and the grid draws nothing
        app.client.send_nowait("session.send", target=ids[3], data="bGl2ZQo=")  # "live\n"
        await wait_until(pilot, lambda: grid_text(grid).count("live") >= 2)  # the echo and cat's copy
        await wait_until(pilot, idle)  # and once it is drawn, no timer is left


async def test_the_status_clock_has_a_timer_only_while_the_status_line_shows(server: RunningServer) -> None:
    sessions(server, 2)
    async with attached(server, config=Config(status_right=parse_template("{time:%H:%M:%S}"))) as (app, pilot):
        assert app.status.clock_timer is not None
        await pilot.press("ctrl+b", "w")  # the grid covers it: no clock timer
        assert isinstance(app.screen, GridScreen)
        await wait_until(pilot, lambda: app.status.clock_timer is None)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.status.clock_timer is not None)
        await pilot.press("ctrl+b", "question_mark")  # a modal screen leaves it in view: it keeps time
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen" and app.status.clock_timer is not None


async def test_the_grid_s_choice_goes_into_the_focused_pane(server: RunningServer) -> None:
    ids = sessions(server, 4)
    async with attached(server, focus="s0") as (app, pilot):
        await pilot.press("ctrl+b", "percent_sign")  # two panes: s0 and a new session, focused
        await wait_until(pilot, lambda: app.layout is not None and len(app.layout) == 2)
        assert app.layout is not None
        new = app.layout.focus
        await pilot.press("ctrl+b", "w", *"s2", "enter")
        await wait_until(pilot, lambda: app.model.focused == ids[2])
        assert app.layout.panes() == [ids[0], ids[2]]  # in the focused pane, in place of the new one
        await pilot.press("ctrl+b", "w", *"s0", "enter")  # shown in the other pane: focus goes there
        await wait_until(pilot, lambda: app.model.focused == ids[0])
        assert app.layout.panes() == [ids[0], ids[2]] and new not in app.layout.panes()


async def test_a_help_taller_than_the_terminal_scrolls_and_any_other_key_closes_it() -> None:
    from textual.app import App
    from textual.containers import VerticalScroll

    from termux.tui.config import Config
    from termux.tui.screens import HelpScreen

    help_screen = HelpScreen(Config())

    class HelpOnly(App[None]):
        def on_mount(self) -> None:
            self.push_screen(help_screen)

    app = HelpOnly()
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        scroll = help_screen.query_one(VerticalScroll)
        assert scroll.max_scroll_y > 0  # (it does not fit)
        await pilot.press("down", "down")
        assert app.screen is help_screen and scroll.scroll_y == 2
        await pilot.press("end")
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("x")
        assert app.screen is not help_screen


def test_the_help_keeps_a_wrapped_description_in_its_column() -> None:
    from rich.console import Console

    from termux.tui.config import Config
    from termux.tui.screens import help_text

    console = Console(width=40, record=True, color_system=None)
    console.print(help_text(Config()))
    lines = console.export_text().splitlines()
    (first,) = [n for n, line in enumerate(lines) if "copy mode: browse" in line]
    column = lines[first].index("copy mode")
    follow = lines[first + 1]  # its description wraps at 40 columns
    assert follow[:column].strip() == "" and follow[column:].strip()
