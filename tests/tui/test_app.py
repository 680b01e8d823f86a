"""The TUI attached to a real server (real PTYs, real socket), driven by Textual's Pilot."""

from __future__ import annotations

import asyncio
import contextvars
import os
import re
import threading
from collections.abc import Callable, Set
from pathlib import Path
from typing import Any

import pyte
from textual import events

from termux.client import AsyncClient
from termux.protocol.pushes import OutputPush
from termux.tui.app import DETACHED_BY_ANOTHER, MARK_ROWS_PER_TURN, TermuxApp, current_directory
from termux.tui.config import Config
from termux.tui.feed import Feeder, ShadowSlice
from termux.tui.screens import HelpScreen
from termux.tui.widgets import TerminalView
from tests.conftest import RunningServer, wait_for_screen
from tests.tui.helpers import SIZE, attached, screen_text, start, wait_until


def shadow_text(app: TermuxApp, sid: str | None = None) -> str:
    sid = sid or app.model.focused
    assert sid is not None
    return screen_text(app.model.feeder.shadows[sid].screen)


async def test_attach_type_and_see_the_echo(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/sh"])
    async with attached(server) as (app, pilot):
        assert app.model.focused is not None
        await pilot.press(*"echo hel", "l", "o", "enter")
        await wait_until(pilot, lambda: "hello\n" in shadow_text(app) + "\n")
        # the view draws the same screen the shadow holds, sized to the view
        shadow = app.model.feeder.shadows[app.model.focused].screen
        assert (shadow.columns, shadow.lines) == (app.view.size.width, app.view.size.height)


async def test_textual_bindings_never_eat_session_keys(server: RunningServer) -> None:
    with server.client() as c:
        # raw mode: ctrl+c and friends are bytes for cat, not signals
        c.request("session.new", name="a", command=["/bin/sh", "-c", "stty raw -echo; exec cat"])
    async with attached(server) as (app, pilot):
        app.sent.clear()
        # quit, command palette, focus cycling, copy, and the flow-control/suspend keys
        await pilot.press("ctrl+q", "ctrl+p", "tab", "shift+tab", "ctrl+c", "ctrl+s", "ctrl+z", "ctrl+backslash")
        await pilot.press("escape")
        assert app.sent == [b"\x11", b"\x10", b"\t", b"\x1b[Z", b"\x03", b"\x13", b"\x1a", b"\x1c", b"\x1b"]
        assert app.is_running and app.screen is app._main
        assert app.view.has_focus


async def test_prefix_commands(server: RunningServer) -> None:
    with server.client() as c:
        first = c.request("session.new", name="first", command=["/bin/cat"])["session"]["id"]
    async with attached(server) as (app, pilot):
        assert app.model.focused == first
        app.sent.clear()
        await pilot.press("ctrl+b", "ctrl+b")  # the prefix twice sends it
        assert app.sent == [b"\x02"]
        await pilot.press("ctrl+b", "c")  # a new session, focused
        await wait_until(pilot, lambda: len(app.model.infos) == 2 and app.model.focused != first)
        second = app.model.focused
        await pilot.press("ctrl+b", "p")
        assert app.model.focused == first
        await pilot.press("ctrl+b", "n")
        assert app.model.focused == second
        await pilot.press("ctrl+b", "0")
        assert app.model.focused == first
        await pilot.press("ctrl+b", "s")
        assert app.sidebar.has_class("-hidden")
        await pilot.press("ctrl+b", "s")
        assert not app.sidebar.has_class("-hidden")
        await pilot.press("ctrl+b", "r")
        assert not app.activity.has_class("-hidden")
        await pilot.press("ctrl+b", "question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("x")  # any key closes help, and is not sent
        assert app.screen is app._main
        app.sent.clear()
        await pilot.press("ctrl+b", "x", "n")  # kill asks first; n declines
        assert app.screen is app._main and len(app.model.infos) == 2
        await pilot.press("ctrl+b", "comma")
        await pilot.pause()
        await pilot.press("ctrl+u", *"renamed", "enter")
        await wait_until(pilot, lambda: app.model.rows[first].name == "renamed")
        await pilot.press("ctrl+b", "x", "y")
        await wait_until(pilot, lambda: first not in app.model.infos)
        assert app.model.focused == second
        assert app.sent == []  # none of the command keys reached a session
        await pilot.press("ctrl+b", "d")
        await pilot.pause()
    assert app.return_value == "detached"
    with server.client() as c:
        assert [s["id"] for s in c.request("session.list")["sessions"]] == [second]


async def test_session_created_elsewhere_appears_without_focus(server: RunningServer) -> None:
    with server.client() as c:
        first = c.request("session.new", name="a", command=["/bin/cat"])["session"]["id"]
    async with attached(server) as (app, pilot):
        with server.client() as c:
            other = c.request("session.new", name="b", command=["/bin/sh", "-c", "echo from-b; exec cat"])
        other_id = other["session"]["id"]
        await wait_until(pilot, lambda: other_id in app.model.rows and "from-b" in app.model.rows[other_id].preview)
        assert app.model.focused == first
        assert app.model.rows[other_id].unseen
        assert [row.id for row in app.sidebar.rows] == [first, other_id]


async def test_exit_shows_code_and_moves_focus(server: RunningServer) -> None:
    with server.client() as c:
        live = c.request("session.new", name="live", command=["/bin/cat"])["session"]["id"]
        dying = c.request("session.new", name="dying", command=["/bin/sh", "-c", "read x; exit 3"])
        dying_id = dying["session"]["id"]
    async with attached(server, focus="dying") as (app, pilot):
        assert app.model.focused == dying_id
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.model.rows[dying_id].state == "exited")
        assert app.model.rows[dying_id].exit_code == 3
        head, _ = app.sidebar.row_pieces(1, app.model.rows[dying_id])
        assert "exit 3" in "".join(text for text, _ in head)
        await wait_until(pilot, lambda: app.model.focused == live)
        # the last one ends: the TUI says so and offers a new one
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: app.model.rows[live].state == "exited")
        await wait_until(pilot, lambda: app._main.banner.has_class("-shown"))
        await pilot.press("c")
        await wait_until(pilot, lambda: app.model.focused not in (None, live, dying_id))
        assert app.model.rows[app.model.focused].state == "running"


async def test_paste_is_bracketed_when_the_program_asks(server: RunningServer) -> None:
    with server.client() as c:
        script = "read x; printf '\\033[?2004hready'; exec cat"
        c.request("session.new", name="a", command=["/bin/sh", "-c", script])
    async with attached(server) as (app, pilot):
        await wait_until(pilot, lambda: app.snapshots_pending == 0)  # the resize's snapshot
        app.route_paste("plain\n")  # not bracketed yet: line end as CR
        assert app.sent == [b"plain\r"]
        await wait_until(pilot, lambda: "ready" in shadow_text(app))
        app.sent.clear()
        app.route_paste("one\x1b[201~two")
        assert app.sent == [b"\x1b[200~one[201~two\x1b[201~"]


class RecordingFeeder(Feeder):
    """Logs every slice; calls `at_slice[n]` right after slice n (n from 1)."""

    def __init__(self, log: list[tuple[str, str, int]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.log = log
        self.at_slice: dict[int, Callable[[], None]] = {}
        self.slices = 0

    def step(self, visible: Set[str], focused: str | None = None) -> ShadowSlice | None:
        step = super().step(visible, focused)
        if step is not None:
            self.slices += 1
            self.log.append(("slice", step.session, step.fed))
            if (hook := self.at_slice.get(self.slices)) is not None:
                hook()
        return step


class RecordingApp(TermuxApp):
    def send_bytes(self, data: bytes) -> None:
        assert isinstance(self.model.feeder, RecordingFeeder)
        self.model.feeder.log.append(("key", data.decode(), 0))
        super().send_bytes(data)


async def test_keystroke_waits_for_at_most_one_slice_under_a_flood(server: RunningServer) -> None:
    """Input first: a key that arrives (from another thread, as the driver's input thread sends it)
    while background floods are being parsed is handled before the next slice."""
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    log: list[tuple[str, str, int]] = []
    feeder = RecordingFeeder(log, background_slice_bytes=4096, backlog_limit=1 << 30, background_budget=None)
    client = await AsyncClient.connect(server.path, autostart=False)
    app = RecordingApp(client, config=Config(), feeder=feeder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, app.attached.is_set)
        await pilot.pause()
        loop = asyncio.get_running_loop()
        for n in range(4):
            feeder.add(f"bg{n}", 80, 24)
            app.handle_push(OutputPush(f"bg{n}", 0, flood(n)))

        def key_from_another_thread() -> None:
            key = events.Key("k", "k")
            thread = threading.Thread(target=loop.call_soon_threadsafe, args=(app.input_from_driver, key))
            thread.start()
            thread.join()

        log.clear()
        feeder.slices = 0
        feeder.at_slice[5] = key_from_another_thread
        feeder.at_slice[40] = key_from_another_thread
        app._work.set()
        await wait_until(pilot, lambda: not feeder.has_work())
        slices = [entry for entry in log if entry[0] == "slice"]
        assert len(slices) > 60  # a real flood, many slices
        assert all(fed <= 4096 for _, _, fed in slices)  # the bound
        keys = [i for i, entry in enumerate(log) if entry[0] == "key"]
        # each key is handled right after the slice during which it arrived: never after two
        assert [log[i - 1] for i in keys] == [slices[4], slices[39]]
        assert keys == [5, 41]
    await client.close()


def flood(n: int) -> bytes:
    return b"".join(f"bg{n} {i:06d} yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\r\n".encode() for i in range(2000))


async def test_mouse_sidebar_click_focuses_and_terminal_mouse_reaches_the_program(server: RunningServer) -> None:
    with server.client() as c:
        script = "read x; printf '\\033[?1000h\\033[?1006hmouse-on'; exec cat"
        first = c.request("session.new", name="a", command=["/bin/sh", "-c", script])["session"]["id"]
        second = c.request("session.new", name="b", command=["/bin/cat"])["session"]["id"]
    async with attached(server, focus="a") as (app, pilot):
        assert app.model.focused == first
        await pilot.click("#sidebar", offset=(5, 2))  # the second row
        assert app.model.focused == second
        await pilot.click("#sidebar", offset=(5, 0))
        assert app.model.focused == first
        await wait_until(pilot, lambda: app.snapshots_pending == 0)
        app.sent.clear()
        await pilot.click("#terminal", offset=(5, 3))  # no mouse mode yet: nothing for the program
        assert app.sent == []
        await pilot.press("enter")
        await wait_until(pilot, lambda: "mouse-on" in shadow_text(app))
        app.sent.clear()
        await pilot.click("#terminal", offset=(5, 3))
        assert app.sent == [b"\x1b[<0;6;4M", b"\x1b[<0;6;4m"]


async def test_copy_mode_opens_on_ten_thousand_lines_reading_one_screenful(server: RunningServer) -> None:
    with server.client() as c:  # more than the 10,000 lines of history the server keeps by default
        c.request("session.new", name="a", command=["/bin/sh", "-c", "read x; seq 1 12000; exec cat"])
    async with attached(server) as (app, pilot):
        await wait_until(pilot, lambda: app.snapshots_pending == 0)
        await pilot.press("enter")
        await wait_until(pilot, lambda: "\n12000\n" in "\n" + shadow_text(app) + "\n")
        app.sent.clear()
        await pilot.press("ctrl+b", "left_square_bracket")
        copy = app.copy
        assert copy is not None
        await wait_until(pilot, lambda: copy.shown)
        height = app.view.size.height
        assert copy.source is not None and copy.source.first == -10_000
        assert (copy.captures, copy.source.fetched) == (1, height)  # one screenful, not the history
        assert [row.line.text for row in copy.view.rows][-3:-1] == ["11999", "12000"]
        assert "copy mode" in app.status.mode
        await pilot.press("g")  # the oldest line: one more screenful, there
        await wait_until(pilot, lambda: copy.view is not None and copy.view.top == copy.source.first)
        with server.client() as c:
            (oldest,) = c.request("session.capture", target="a", start=-10_000, end=-10_000)["lines"]
        assert copy.view.rows[0].line.text == oldest and copy.captures == 2
        await pilot.press("q")
        assert app.copy is None and app.view.copy is None and app.status.mode == ""
        assert app.sent == []  # browsing never types into the session
        # the wheel over a program that did not ask for the mouse opens it, scrolled up from the
        # bottom; scrolling back down to the bottom leaves
        app.view.post_message(TerminalView.Scrolled(-1))
        await wait_until(pilot, lambda: app.copy is not None and app.copy.shown and not app.copy._queue)
        wheel = app.copy
        assert wheel is not None and wheel.view is not None
        assert wheel.view.top == wheel.source.last - height + 1 - app.config.wheel_lines
        app.view.post_message(TerminalView.Select(app.view, "wheel-down", 0, 0))
        await wait_until(pilot, lambda: app.copy is None)
        assert app.sent == []


async def test_copy_mode_holds_what_was_printed_before_the_tui_attached(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/sh", "-c", "seq 1 300; echo done; exec cat"])
        wait_for_screen(server.path, "a", "done")
    async with attached(server) as (app, pilot):
        await pilot.press("ctrl+b", "left_square_bracket", "g")
        copy = app.copy
        assert copy is not None
        await wait_until(pilot, lambda: copy.view is not None and copy.view.top == copy.source.first)
        for _ in range(300 // app.view.size.height + 1):
            await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: not copy._queue)
        assert copy.source is not None
        texts = [line.text for line in copy.source.lines(copy.source.first, copy.source.last + 1)]
        assert texts[texts.index("1") : texts.index("1") + 300] == [str(n) for n in range(1, 301)]


async def test_a_session_resized_elsewhere_is_refitted_when_focused_again(server: RunningServer) -> None:
    with server.client() as c:
        first = c.request("session.new", name="a", command=["/bin/cat"])["session"]["id"]
        c.request("session.new", name="b", command=["/bin/cat"])
    async with attached(server, focus="a") as (app, pilot):
        await wait_until(pilot, lambda: app.snapshots_pending == 0)
        view = (app.view.size.width, app.view.size.height)
        with server.client() as c:
            c.request("session.resize", target=first, cols=50, rows=10)  # another client's size
        await pilot.press("ctrl+b", "n", "ctrl+b", "p")
        assert app.model.focused == first

        def server_size() -> tuple[int, int]:
            with server.client() as c:
                info = c.request("session.get", target=first)["session"]
            return info["cols"], info["rows"]

        await wait_until(pilot, lambda: app.snapshots_pending == 0 and server_size() == view)
        screen = app.model.feeder.shadows[first].screen
        assert (screen.columns, screen.lines) == view


async def test_configured_prefix_and_bindings(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    config = Config(prefix="ctrl+a")
    config.bindings["|"] = "sidebar"
    async with attached(server, config=config) as (app, pilot):
        app.sent.clear()
        await pilot.press("ctrl+b")  # not the prefix any more: the session's
        assert app.sent == [b"\x02"]
        await pilot.press("ctrl+a", "vertical_line")
        assert app.sidebar.has_class("-hidden")
        await pilot.press("ctrl+a", "ctrl+a")
        assert app.sent == [b"\x02", b"\x01"]


async def test_keys_typed_before_the_attach_completes_are_replayed(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    app, client = await start(server)
    for key, char in (("h", "h"), ("i", "i"), ("enter", "\r")):
        app.route_key(events.Key(key, char))  # before the app even runs: no session to send to yet
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, app.attached.is_set)
        assert app.sent[:3] == [b"h", b"i", b"\r"]  # replayed in order to the focused session
        assert len(app.model.infos) == 1  # the early Enter did not create a session
    await client.close()


async def test_a_refused_request_is_reported_and_the_tui_goes_on(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
        c.request("session.new", name="b", command=["/bin/cat"])
    async with attached(server, focus="a") as (app, pilot):
        await pilot.press("ctrl+b", "comma")
        await pilot.pause()
        await pilot.press("ctrl+u", "b", "enter")  # "b" is taken
        await wait_until(pilot, lambda: "exists" in app.status.message)
        assert app.is_running and app.model.rows[app.model.focused].name == "a"


async def test_the_tui_ends_when_the_server_goes_away(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    async with attached(server) as (app, pilot):
        with server.client() as c:
            c.request("server.kill")
        await wait_until(pilot, lambda: not app.is_running or app.exit_reason != "")
    assert app.exit_reason == "the server went away"


class ContextRecordingApp(TermuxApp):
    """Records, for each push, whether it was handled where Textual finds the app by its context
    variable (Textual's `active_app`: a detail this test names, so a Textual that renames it
    fails here, not silently in the TUI's speed)."""

    def handle_push(self, push: Any) -> None:
        self.found.append(any(var.name == "active_app" for var in contextvars.copy_context()))
        super().handle_push(push)

    found: list[bool]


async def test_pushes_are_handled_where_textual_finds_the_app(server: RunningServer) -> None:
    """The client reads pushes in a callback of the loop's own, where `self.app` would walk the
    widget tree up at each look-up (a frame looks it up several times): they are handled in the
    app's context."""
    with server.client() as c:
        sid = c.request("session.new", name="a", command=["/bin/cat"])["session"]["id"]
    client = await AsyncClient.connect(server.path, autostart=False)
    app = ContextRecordingApp(client, config=Config())
    app.found = []
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, app.attached.is_set)
            taken = len(app.found)  # (those that came before the reply are handled in its task)
            with server.client() as c:
                c.request("session.send", target=sid, data=b"pushed\r")
            await wait_until(pilot, lambda: "pushed" in shadow_text(app))
            assert app.found[taken:] and all(app.found[taken:])
    finally:
        await client.close()


async def test_a_keys_echo_is_drawn_at_once_other_output_at_the_next_frame(server: RunningServer) -> None:
    # Created at the view's size (the sidebar takes 28 columns, the status line one row), so no
    # resize and no snapshot redraws the view behind the test's back.
    cols, rows = SIZE[0] - 28, SIZE[1] - 1
    with server.client() as c:
        command = ["/bin/sh", "-c", "stty raw -echo; exec cat"]
        sid = c.request("session.new", name="a", command=command, cols=cols, rows=rows)["session"]["id"]
    async with attached(server) as (app, pilot):
        assert (app.view.size.width, app.view.size.height) == (cols, rows)
        app.model.pacer.period = 3600.0  # a frame that never comes by itself: only keys and the timer draw
        app.model.pacer.drawn()
        with server.client() as c:
            c.request("session.send", target=sid, data=b"from-a-script")
        await wait_until(pilot, lambda: "from-a-script" in shadow_text(app))
        assert app._frame_timer is not None  # one timer for the pending frame
        assert app.model.feeder.shadows[sid].screen.dirty  # parsed, not drawn yet
        await pilot.pause()
        runs = app.pump_runs
        await pilot.press("k")
        await wait_until(pilot, lambda: "from-a-scriptk" in shadow_text(app))
        assert app._frame_timer is None and not app.model.feeder.shadows[sid].screen.dirty  # the echo drew it all
        assert not app.model.pacer.key_pending
        assert app.echoes_at_once == 1  # and parsed as it was received: no hop through the pump's task
        await pilot.pause()
        assert app.pump_runs == runs  # nor a pass of the pump's task after it, with nothing left to parse
        app.model.pacer.period = 0.05  # streamed output is drawn when its frame comes
        with server.client() as c:
            c.request("session.send", target=sid, data=b"-more")
        await wait_until(pilot, lambda: "-more" in shadow_text(app))
        await wait_until(pilot, lambda: app._frame_timer is None and not app.model.feeder.shadows[sid].screen.dirty)
        assert app.model.feeder.shadows[sid].resyncs == 0


async def test_a_streaming_frame_is_one_write_of_the_lines_that_changed(server: RunningServer) -> None:
    """The view writes its frame itself (TerminalView.paint): chunks parsed inside one frame
    interval are one write, of the lines they changed and no other, which a reference emulator
    fed with it shows as the shadow screen has them; a key's echo is written at once; with a
    screen over the view nothing is written (Textual draws it when the view shows again)."""
    cols, rows = SIZE[0] - 28, SIZE[1] - 1
    with server.client() as c:
        command = ["/bin/sh", "-c", "stty raw -echo; exec cat"]
        sid = c.request("session.new", name="a", command=command, cols=cols, rows=rows)["session"]["id"]
    app, client = await start(server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.attached.is_set() and app.snapshots_pending == 0)
        app.model.marks_pacer.period = 3600.0  # (the sidebar's preview of the output: much later)
        app._apply_marks()
        writes: list[str] = []
        app.write_to_terminal = writes.append  # the driver's write (a real terminal's, in the TUI)
        app.model.pacer.period = 3600.0  # a frame that never comes by itself: only keys and the test draw
        app.model.pacer.drawn()
        with server.client() as c:
            for n in range(3):
                c.request("session.send", target=sid, data=b"line %d\r\n" % n)
        await wait_until(pilot, lambda: "line 2" in shadow_text(app))
        assert writes == [] and app._frame_timer is not None  # three chunks, one frame pending
        app._draw()
        assert len(writes) == 1
        outer = pyte.Screen(*SIZE)
        pyte.Stream(outer).feed(writes[0])
        shadow = app.model.feeder.shadows[sid].screen
        left = app.view.region.x
        assert [line[left:].rstrip() for line in outer.display[:4]] == ["line 0", "line 1", "line 2", ""]
        assert [line[left:] for line in outer.display[:3]] == shadow.display[:3]
        assert all(not line.strip() for line in outer.display[4:])  # lines that did not change: not written

        await pilot.press("k")  # the echo is written as soon as it is parsed
        await wait_until(pilot, lambda: len(writes) == 2)
        assert app._frame_timer is None
        pyte.Stream(outer).feed(writes[1])
        assert outer.display[3][left:].rstrip() == "k"

        app.push_screen(HelpScreen(app.config))
        await pilot.pause()
        with server.client() as c:
            c.request("session.send", target=sid, data=b"\r\nunder the help")
        await wait_until(pilot, lambda: "under the help" in shadow_text(app))
        app._draw()
        assert len(writes) == 2  # not written over the help screen: Textual draws it when the help goes
    await client.close()


async def test_a_frame_that_scrolls_a_view_of_the_whole_width_scrolls_the_terminal(server: RunningServer) -> None:
    """Without the sidebar the view spans the terminal: a frame in which the screen scrolled
    scrolls the view's lines on the terminal (a scroll region and line feeds) and writes only the
    lines that then show something else; a reference emulator fed the writes shows the shadow
    screen. With the sidebar beside it, the frame writes the lines that changed instead."""
    cols, rows = SIZE[0], SIZE[1] - 1
    with server.client() as c:
        command = ["/bin/sh", "-c", "stty raw -echo; exec cat"]
        sid = c.request("session.new", name="a", command=command, cols=cols, rows=rows)["session"]["id"]
    app, client = await start(server, config=Config(sidebar=False))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.attached.is_set() and app.snapshots_pending == 0)
        app.model.marks_pacer.period = 3600.0
        app._apply_marks()
        app.model.pacer.period = 3600.0  # frames only when the test draws
        app.model.pacer.drawn()
        view = app.view
        assert (view.region.x, view.region.width, view.region.height) == (0, cols, rows)
        with server.client() as c:
            c.request("session.send", target=sid, data=b"".join(b"line %d\r\n" % n for n in range(rows + 5)))
        await wait_until(pilot, lambda: f"line {rows + 4}" in shadow_text(app))
        app._draw()
        writes: list[str] = []
        app.write_to_terminal = writes.append
        assert view.paint(set(range(rows)))  # the terminal as it is: every line of the view
        outer = pyte.Screen(*SIZE)
        pyte.Stream(outer).feed(writes.pop())
        with server.client() as c:
            c.request("session.send", target=sid, data=b"more 0\r\nmore 1\r\nmore 2\r\n")
        await wait_until(pilot, lambda: "more 2" in shadow_text(app))
        app._draw()
        assert len(writes) == 1 and writes[0].startswith(f"\x1b[1;{rows}r\x1b[{rows};1H\n\n\n\x1b[r")
        assert writes[0].count("H") == 1 + 4  # the scroll's, then the old last line and the three scrolled in
        pyte.Stream(outer).feed(writes[0])
        shadow = app.model.feeder.shadows[sid].screen
        assert outer.display[:rows] == shadow.display
        assert [line.rstrip() for line in outer.display[rows - 4 : rows]] == ["more 0", "more 1", "more 2", ""]

        app.prefix_sidebar()  # the sidebar beside the view: whole lines would move it too
        await wait_until(pilot, lambda: view.region.x > 0 and view.size.height == rows)
        await wait_until(pilot, lambda: app.snapshots_pending == 0 and not app.model.feeder.shadows[sid].screen.dirty)
        app._draw()
        writes.clear()
        with server.client() as c:
            c.request("session.send", target=sid, data=b"beside 0\r\nbeside 1\r\n")
        await wait_until(pilot, lambda: "beside 1" in shadow_text(app))
        app._draw()
        assert writes and not any(re.search(r"\x1b\[[0-9;]*r", write) for write in writes)  # no scroll region
    await client.close()


async def test_background_output_redraws_the_sidebar_at_a_bounded_rate(server: RunningServer) -> None:
    """However many chunks background sessions print, their rows (previews, marks) and the activity
    view are updated by one timer, at most once per mark period; with nothing pending, no timer."""
    with server.client() as c:
        ids = [c.request("session.new", name=f"s{n}", command=["/bin/cat"])["session"]["id"] for n in range(13)]
    async with attached(server, focus="s0", config=Config(activity=True)) as (app, pilot):
        await wait_until(pilot, lambda: app.snapshots_pending == 0)
        await wait_until(pilot, lambda: app._marks_timer is None)
        assert app._frame_timer is None  # idle: no timer at all
        background = ids[1:]
        app.model.marks_pacer.period = 3600.0  # the next application is far away: only the test applies it
        app._apply_marks()
        refreshes: list[object] = []
        sidebar_refresh = app.sidebar.refresh
        app.sidebar.refresh = lambda *a, **k: (refreshes.append(a), sidebar_refresh(*a, **k))[1]  # type: ignore[method-assign]
        for line in range(50):
            for sid in background:
                data = b"building line %d\r\n" % line
                app.handle_push(OutputPush(sid, app.model.feeder.shadows[sid].end, data))
            app._work.set()
            await pilot.pause()
        await wait_until(pilot, lambda: not app.model.feeder.has_work())
        assert "building line 49" in shadow_text(app, background[0])  # every chunk was parsed
        assert refreshes == []  # 600 chunks, no redraw yet
        assert app._marks_timer is not None  # one timer, due a period after the last application
        assert app._marks_timer.when() - asyncio.get_running_loop().time() > 3000
        assert set(background) <= app.model.touched
        assert not app.activity.harvester.pool  # harvested with the marks, not per chunk
        drawn = app.sidebar.rows_drawn
        app._apply_marks()  # what the timer does when it fires
        # a few rows in this loop turn (a key read meanwhile waits for no more), the rest on the
        # next turns, without a timer
        assert len(refreshes) == MARK_ROWS_PER_TURN
        assert app._marks_timer is None and app._marks_turn is not None
        assert set(app.activity.harvester.pool) == set(background)  # harvested at once
        await wait_until(pilot, lambda: not app._marks_rows)
        await pilot.pause()  # (Textual paints the regions refreshed)
        assert app._marks_turn is None
        assert app.sidebar.rows_drawn - drawn == len(background)  # each changed row drawn once
        assert len(refreshes) <= len(background)
        assert all(
            app.model.rows[sid].preview == "building line 49" and app.model.rows[sid].unseen for sid in background
        )
        assert app._marks_timer is None  # nothing pending: no timer
        refreshed = len(refreshes)
        app._apply_marks()
        await pilot.pause()
        assert len(refreshes) == refreshed  # rows that show nothing new are not redrawn


async def test_a_prefix_spelt_as_tmux_does_matches_the_key_the_terminal_sends(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    async with attached(server, config=Config(prefix="ctrl+space")) as (app, pilot):
        app.route_key(events.Key("ctrl+@", "\x00"))  # what an xterm sends for ctrl+space
        assert app.router.pending
        app.route_key(events.Key("s", "s"))
        assert app.sidebar.has_class("-hidden") and app.sent == []


async def test_the_sidebar_keeps_the_focused_session_in_view(server: RunningServer) -> None:
    with server.client() as c:
        ids = [c.request("session.new", name=f"s{n}", command=["/bin/cat"])["session"]["id"] for n in range(27)]
    async with attached(server, focus="s0") as (app, pilot):
        sidebar = app.sidebar
        shown = sidebar.size.height // sidebar.ROW_HEIGHT
        assert shown < 27 and sidebar.first_row == 0
        await pilot.press("ctrl+b", "p")  # from the first to the last session
        assert app.model.focused == ids[26]
        assert sidebar.first_row == 27 - shown  # scrolled: the last row at the bottom
        assert f"{26}:s26" in sidebar.render_line((26 - sidebar.first_row) * 2).text
        await pilot.click("#sidebar", offset=(5, (25 - sidebar.first_row) * 2))  # the one above it
        assert app.model.focused == ids[25]
        for _ in range(5):
            await pilot.pause()
            sidebar.post_message(events.MouseScrollUp(sidebar, 0, 0, 0, 0, 0, False, False, False))
        await wait_until(pilot, lambda: sidebar.first_row == 27 - shown - 5)  # the wheel scrolls it
        await pilot.click("#sidebar", offset=(5, 0))
        assert app.model.focused == ids[27 - shown - 5]
        await pilot.press("ctrl+b", "0")
        assert sidebar.first_row == 0 and app.model.focused == ids[0]


async def test_a_missing_session_number_is_said_and_messages_clear_themselves(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    async with attached(server) as (app, pilot):
        status = app.status
        assert status.message == "" and status.message_timer is None  # no message: no timer
        await pilot.press("ctrl+b", "7")
        assert status.message == "no session 7" and app.sent == []
        timer = status.message_timer
        assert timer is not None
        await pilot.press("ctrl+b", "y")
        assert status.message == "no binding for y"
        assert status.message_timer is not None and status.message_timer is not timer  # one timer
        status._message_expired()  # what the timer does when it fires
        assert status.message == "" and status.message_timer is None


async def test_a_new_session_starts_where_the_focused_one_is_working(server: RunningServer, tmp_path: Path) -> None:
    """As tmux's `new-window -c '#{pane_current_path}'`: the directory of the program in the
    foreground of the focused session (not its shell's); with no live session, termux's own."""
    job = tmp_path / "job"
    job.mkdir()
    with server.client() as c:
        c.request("session.new", name="a", command=["bash", "--norc", "--noprofile", "-i"], cwd="/")
    async with attached(server, focus="a") as (app, pilot):
        await wait_until(pilot, lambda: app.snapshots_pending == 0)
        shell_pid = app.model.infos[app.model.focused]["pid"]
        app.send_bytes(f"(cd {job} && exec sleep 300)\r".encode())  # a foreground job elsewhere
        await wait_until(pilot, lambda: current_directory(shell_pid) == str(job))
        assert os.readlink(f"/proc/{shell_pid}/cwd") == "/"  # the shell itself did not move
        await pilot.press("ctrl+b", "c")
        await wait_until(pilot, lambda: len(app.model.infos) == 2 and app.model.focused in app.model.infos)
        assert app.model.infos[app.model.focused]["cwd"] == str(job)
        with server.client() as c:
            c.request("session.kill", target="a")
            c.request("session.kill", target=app.model.focused)
        await wait_until(pilot, lambda: not app.model.infos)
        await pilot.press("c")  # no session left: c starts one, in the directory termux started in
        await wait_until(pilot, lambda: len(app.model.infos) == 1)
        assert next(iter(app.model.infos.values()))["cwd"] == os.getcwd()


async def test_attaching_again_focuses_the_session_focused_last(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
        second = c.request("session.new", name="b", command=["/bin/cat"])["session"]["id"]
    async with attached(server) as (app, pilot):
        await pilot.press("ctrl+b", "n")
        assert app.model.focused == second
        await pilot.press("ctrl+b", "d")
    async with attached(server) as (again, pilot):  # no target: the server remembers
        assert again.model.focused == second


async def test_the_focused_preview_follows_a_program_leaving_the_alternate_screen(server: RunningServer) -> None:
    script = (
        "echo first; read x; echo second; printf '\\033[?1049h\\033[Halt-text'; read x; printf '\\033[?1049l'; exec cat"
    )
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/sh", "-c", script])
    async with attached(server) as (app, pilot):
        await wait_until(pilot, lambda: app.snapshots_pending == 0)
        sid = app.model.focused
        assert sid is not None and app.model.rows[sid].preview == "first"
        app.model.marks_pacer.period = 0.0  # apply marks as soon as they are due
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.model.rows[sid].preview == "alt-text")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "alt-text" not in shadow_text(app))
        await wait_until(pilot, lambda: app.model.rows[sid].preview == "second" and app._marks_timer is None)
        assert "second" in "".join(text for text, _ in app.sidebar.row_pieces(0, app.model.rows[sid])[1])


async def test_background_output_wakes_the_pump_once_per_batch(server: RunningServer) -> None:
    """A background chunk arms one timer; chunks until it fires are parsed with it; focused output
    wakes the pump at once; with nothing unparsed, no timer."""
    with server.client() as c:
        c.request("session.new", name="front", command=["/bin/cat"])
        back = c.request("session.new", name="back", command=["/bin/cat"])["session"]["id"]
    async with attached(server, focus="front") as (app, pilot):
        await wait_until(pilot, lambda: app.snapshots_pending == 0)
        await wait_until(pilot, lambda: not app._work.is_set() and app._background_timer is None)
        for n in range(20):
            data = b"background line %d\r\n" % n
            app.handle_push(OutputPush(back, app.model.feeder.shadows[back].end, data))
        timer = app._background_timer
        assert timer is not None and not app._work.is_set()  # one timer, no wake-up yet
        assert app.model.feeder.shadows[back].backlog_bytes > 0
        await wait_until(pilot, lambda: not app.model.feeder.has_work())
        assert app._background_timer is None  # fired once, all 20 parsed
        assert "background line 19" in shadow_text(app, back)
        front = app.model.focused
        assert front is not None
        shadow = app.model.feeder.shadows[front]
        app.model.pacer.period = 3600.0  # its frame not due: the pump is woken at once
        app.model.pacer.drawn()
        app.handle_push(OutputPush(front, shadow.end, b"x"))
        assert app._work.is_set() and app._background_timer is None  # the focused session: at once
        await wait_until(pilot, lambda: not shadow.backlog and not app._work.is_set())
        app.model.pacer.period = 0.0  # its frame due: parsed and drawn as it is received
        echoes = app.echoes_at_once
        app.handle_push(OutputPush(front, shadow.end, b"y"))
        assert not shadow.backlog and app.echoes_at_once == echoes + 1  # parsed in handle_push
        assert not app._work.is_set() and app._frame_timer is None  # the pump not woken, no timer


async def test_switching_sessions_redraws_two_sidebar_rows_and_no_layout(server: RunningServer) -> None:
    cols, rows = SIZE[0] - 28, SIZE[1] - 1  # the view's size: no resize on focus
    with server.client() as c:
        ids = [
            c.request("session.new", name=f"s{n}", command=["/bin/cat"], cols=cols, rows=rows)["session"]["id"]
            for n in range(3)
        ]
    async with attached(server) as (app, pilot):
        await pilot.pause(0.1)
        assert app.model.focused == ids[0]
        layouts: list[int] = []
        drawn: list[tuple[int, str]] = []
        screen = app._main
        assert screen is not None
        content_line = app.sidebar._content_line

        def counting(widget: Any) -> Any:
            """`widget.refresh`, counting the refreshes that ask for a layout (how a widget, or a
            style change, asks Textual to lay the screen out again)."""
            refresh = widget.refresh

            def refresh_counted(*regions: Any, **kwargs: Any) -> Any:
                if kwargs.get("layout"):
                    layouts.append(1)
                return refresh(*regions, **kwargs)

            return refresh_counted

        def recording_line(index: int, row: Any, part: int, width: int) -> Any:
            strip = content_line(index, row, part, width)
            drawn.append(((index - app.sidebar.first_row) * app.sidebar.ROW_HEIGHT + part, strip.text))
            return strip

        for widget in [screen, *screen.walk_children()]:
            widget.refresh = counting(widget)  # type: ignore[method-assign]
        app.sidebar._content_line = recording_line  # type: ignore[method-assign]
        await pilot.press("ctrl+b", "n")
        await wait_until(pilot, lambda: any(text.startswith("▌1:") for _, text in drawn))
        await pilot.pause(0.1)
        assert app.model.focused == ids[1]
        assert layouts == []  # the prefix, its status line and the switch change no widget's size
        assert {y for y, _ in drawn} <= {0, 1, 2, 3}  # the rows of s0 and s1 (two lines each), not s2's
        assert any(y == 0 and not text.startswith("▌") for y, text in drawn)  # s0 lost the mark


async def test_an_attach_parses_the_focused_screen_first_and_the_others_after_it(
    server: RunningServer, monkeypatch: Any
) -> None:
    import termux.tui.feed as feed

    with server.client() as c:
        for n in range(3):
            c.request("session.new", name=f"s{n}", command=["/bin/sh", "-c", f"echo line-of-s{n}; exec cat"])
        for n in range(3):
            c.request("session.wait", target=f"s{n}", match=f"line-of-s{n}", timeout=30)
    parsed_at_once: list[int] = []
    make_screen = feed.make_screen

    def counting(cols: int, rows: int, history: int, snapshot: bytes = b"") -> Any:
        if snapshot:
            parsed_at_once.append(len(snapshot))
        return make_screen(cols, rows, history, snapshot)

    monkeypatch.setattr(feed, "make_screen", counting)
    async with attached(server, focus="s1") as (app, pilot):
        assert len(parsed_at_once) == 1  # s1's, before the first paint; s0 and s2 wait for the pump
        ids = {row.name: sid for sid, row in app.model.rows.items()}
        await wait_until(pilot, lambda: all(app.model.rows[ids[f"s{n}"]].preview == f"line-of-s{n}" for n in (0, 2)))
        assert not any(row.unseen or row.bell for row in app.model.rows.values())  # a replay is nothing new
        assert "line-of-s0" in shadow_text(app, ids["s0"])


async def test_switching_to_a_session_ends_the_pump_s_rest_after_background_work(server: RunningServer) -> None:
    cols, rows = SIZE[0] - 28, SIZE[1] - 1  # the view's size: no resize (and no snapshot) on focus
    with server.client() as c:
        ids = [
            c.request("session.new", name=f"s{n}", command=["/bin/cat"], cols=cols, rows=rows)["session"]["id"]
            for n in range(3)
        ]
    async with attached(server, focus="s0") as (app, pilot):
        await wait_until(pilot, lambda: not any(s.backlog for s in app.model.feeder.shadows.values()))
        app.model.background_rest = lambda elapsed: 3600.0  # type: ignore[method-assign]  # a rest that never ends by itself
        with server.client() as c:
            c.request("session.send", target=ids[1], data=b"into-s1\r")
        await wait_until(pilot, lambda: "into-s1" in shadow_text(app, ids[1]))  # parsed; now the pump rests
        with server.client() as c:
            c.request("session.send", target=ids[2], data=b"into-s2\r")
        await wait_until(pilot, lambda: bool(app.model.feeder.shadows[ids[2]].backlog))  # queued behind the rest
        app.focus_session(ids[2])
        await wait_until(pilot, lambda: "into-s2" in shadow_text(app, ids[2]))


async def test_the_wheel_over_a_full_screen_program_does_not_open_copy_mode(server: RunningServer) -> None:
    with server.client() as c:  # the alternate screen, no mouse reporting (as less without --mouse)
        c.request("session.new", name="a", command=["/bin/sh", "-c", "printf '\\033[?1049hfull-screen'; exec cat"])
    async with attached(server) as (app, pilot):
        await wait_until(pilot, lambda: "full-screen" in shadow_text(app))
        app.view.post_message(TerminalView.Scrolled(-1))
        await pilot.pause()
        assert app.copy is None
        await pilot.press("ctrl+b", "left_square_bracket")  # the key still opens it, as in tmux
        assert app.copy is not None


async def test_a_second_tui_in_the_process_parses_no_stylesheet_the_first_parsed(
    server: RunningServer, monkeypatch: Any
) -> None:
    """What a TUI host's child inherits: the rules the first TUI parsed (termux/tui/driver.py, 8.)."""
    import textual.css.stylesheet

    from termux.tui import driver

    with server.client() as c:
        c.request("session.new", name="a", command=["cat"])
    monkeypatch.setattr(driver, "_shared_css", {})  # as if no TUI had run in this process yet
    parsed: list[str] = []
    parse = textual.css.stylesheet.parse

    def counting(scope: str, css: str, *args: Any, **kwargs: Any) -> Any:
        parsed.append(css)
        return parse(scope, css, *args, **kwargs)

    monkeypatch.setattr(textual.css.stylesheet, "parse", counting)
    for run in range(2):
        app, client = await start(server)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, app.attached.is_set)
            await pilot.pause()
        await client.close()
        if run == 0:
            assert parsed  # the first one parsed its sources (counted: the counter sees them)
            parsed.clear()
    assert parsed == []


async def test_the_other_sessions_are_replayed_after_the_focused_one_is_drawn(server: RunningServer) -> None:
    """Only the focused snapshot is parsed before the first frame: the pump, which replays the
    others' (deferred) snapshots, starts after it."""
    with server.client() as c:
        for n in range(4):
            c.request("session.new", name=f"s{n}", command=["sh", "-c", f"echo screen-{n}; exec cat"])
        for n in range(4):
            c.request("session.wait", target=f"s{n}", match=f"screen-{n}", timeout=30)
    app, client = await start(server, focus="s2")
    events: list[str] = []
    render_lines = TerminalView.render_lines

    def drawing(view: TerminalView, crop: Any) -> Any:
        if view.screen_ is not None and not events:
            events.append("focused drawn")
        return render_lines(view, crop)

    step = app.model.feeder.step

    def stepping(*args: Any, **kwargs: Any) -> Any:
        done = step(*args, **kwargs)
        if done is not None and done.replay:
            events.append(f"replayed {app.model.rows[done.session].name}")
        return done

    app.model.feeder.step = stepping  # type: ignore[method-assign]
    TerminalView.render_lines = drawing  # type: ignore[method-assign]
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: len(events) == 4)  # drawn, then the three others replayed
    finally:
        TerminalView.render_lines = render_lines  # type: ignore[method-assign]
    await client.close()
    assert events[0] == "focused drawn"
    assert sorted(events[1:]) == ["replayed s0", "replayed s1", "replayed s3"]


async def test_switching_session_draws_the_new_screen_once(server: RunningServer) -> None:
    with server.client() as c:
        for n in range(2):
            c.request("session.new", name=f"s{n}", command=["sh", "-c", f"echo screen-{n}; exec cat"])
    app, client = await start(server, focus="s0")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, app.attached.is_set)
        await wait_until(pilot, lambda: "screen-1" in shadow_text(app, app.model.numbered(1)))
        view = app.view
        before = view.renderer.rendered
        app.prefix_next()  # what prefix n runs
        assert app.model.rows[app.model.focused or ""].name == "s1"
        assert view.renderer.rendered - before == view.screen_.lines  # each line once
    await client.close()


async def test_a_switch_writes_the_new_screen_at_once_and_textual_draws_no_frame_of_it(
    server: RunningServer,
) -> None:
    """`prefix n` in a pane alone: the new screen is one write of the view (TerminalView.paint),
    which a reference emulator shows as the shadow has it; the view's widget stays where it is
    (nothing laid out, moved or refocused), so Textual draws neither the view nor the pane area."""
    cols, rows = SIZE[0] - 28, SIZE[1] - 1  # the view's size: no resize, no snapshot after
    with server.client() as c:
        for n in range(2):
            command = ["sh", "-c", f"echo switched-{n}; exec cat"]
            c.request("session.new", name=f"s{n}", command=command, cols=cols, rows=rows)
    app, client = await start(server, focus="s0")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.attached.is_set() and app.snapshots_pending == 0)
        await wait_until(pilot, lambda: "switched-1" in shadow_text(app, app.model.numbered(1)))
        await pilot.pause(0.1)
        view, panes = app.view, app.panes
        drawn: list[str] = []  # the widgets Textual's compositor asked for lines
        for widget in (view, panes):
            render = widget.render_lines

            def counted(crop: Any, render: Any = render, name: str = type(widget).__name__) -> Any:
                drawn.append(name)
                return render(crop)

            widget.render_lines = counted  # type: ignore[method-assign]
        writes: list[str] = []
        app.write_to_terminal = writes.append
        app.prefix_next()  # what prefix n runs
        assert app.model.rows[app.model.focused or ""].name == "s1"
        assert app.view is view and view.has_focus
        left = view.region.x
        at_view = f"\x1b[1;{left + 1}H"  # (the sidebar's rows are written too: the mark moved)
        screens = [w for w in writes if w.startswith(at_view)]
        assert len(screens) == 1
        outer = pyte.Screen(*SIZE)
        pyte.Stream(outer).feed(screens[0])
        shadow = app.model.feeder.shadows[app.model.focused or ""].screen
        assert [line[left:] for line in outer.display[:rows]] == shadow.display
        await pilot.pause(0.1)
        assert drawn == []  # no frame of the view or of the area around it
        assert [w for w in writes if w.startswith(at_view)] == screens  # and not written again
    await client.close()


async def test_another_views_attach_d_detaches_the_tui(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    async with attached(server) as (app, pilot):
        with server.client() as taker:
            taker.request("client.attach", detach_others=True)
            await wait_until(pilot, lambda: not app.is_running or app.exit_reason != "")
    assert app.return_value == app.exit_reason == DETACHED_BY_ANOTHER
    with server.client() as c:  # the sessions are all still there
        assert [s["name"] for s in c.request("session.list")["sessions"]] == ["a"]


async def test_a_tui_attaching_with_detach_others_detaches_the_other_tui(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    async with attached(server) as (first, first_pilot):
        async with attached(server, detach_others=True) as (second, pilot):
            await wait_until(first_pilot, lambda: not first.is_running or first.exit_reason != "")
            assert first.exit_reason == DETACHED_BY_ANOTHER
            assert second.is_running and second.exit_reason == ""
            with server.client() as c:
                assert c.request("server.stats")["attached"] == 1


async def test_printable_text_is_sent_as_read_only_when_each_key_of_it_would_be(server: RunningServer) -> None:
    """`input_text` (the driver offers it typed text as bytes) sends them as `route_key` sends
    the keys they are, and declines whenever a key would mean something else: the prefix armed
    or among the bytes, copy mode, a screen over the session, no running session focused."""
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    async with attached(server, config=Config(prefix="`")) as (app, pilot):
        await wait_until(pilot, lambda: app.snapshots_pending == 0)
        assert app.input_text(b"hello world!")
        for key in "hi!":
            app.route_key(events.Key("exclamation_mark" if key == "!" else key, key))
        assert app.sent[-4:] == [b"hello world!", b"h", b"i", b"!"]  # the same bytes as the keys'

        assert not app.input_text(b"a`b")  # the prefix is among them: routed key by key
        app.route_key(events.Key("grave_accent", "`"))  # the prefix armed: the next key is a command
        assert not app.input_text(b"d")
        app.route_key(events.Key("escape", "\x1b"))  # (disarmed: no binding)
        app.push_screen(HelpScreen(app.config))
        await pilot.pause()
        assert not app.input_text(b"x")  # a screen over the session has the keys
        app.pop_screen()
        await pilot.pause()
        assert app.open_copy_mode() is not None
        assert not app.input_text(b"q")  # copy mode has them
        assert app.sent[-1] == b"!"
