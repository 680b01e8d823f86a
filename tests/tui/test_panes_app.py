"""Panes in the TUI under Pilot against a real server: what the app tells the server (client.view),
the priorities it gives the panes, their drawing, and the pane area's borders."""

from __future__ import annotations

from rich.style import Style

from termux.protocol.pushes import OutputPush
from termux.tui.config import Config
from termux.tui.layout import Layout
from termux.tui.panes import PaneLabel, title_strip
from tests.conftest import RunningServer
from tests.tui.helpers import SIZE, attached, wait_until

AREA = (SIZE[0] - 28, SIZE[1] - 1)  # the sidebar and the status line take the rest


def sizes(server: RunningServer) -> dict[str, tuple[int, int]]:
    with server.client() as c:
        return {s["name"]: (s["cols"], s["rows"]) for s in c.request("session.list")["sessions"]}


async def test_a_split_offers_each_pane_s_size_and_shows_the_other_pane(server: RunningServer) -> None:
    with server.client() as c:
        c.request("session.new", name="a", command=["/bin/cat"])
    async with attached(server) as (app, pilot):
        await wait_until(pilot, lambda: sizes(server)["a"] == AREA)  # one pane: the whole area
        await pilot.press("ctrl+b", "percent_sign")
        await wait_until(pilot, lambda: app.layout is not None and len(app.layout) == 2)
        assert app.layout is not None
        new = app.layout.focus
        name = app.model.rows[new].name
        left, right = (AREA[0] - 1 + 1) // 2, AREA[0] - 1 - (AREA[0] - 1 + 1) // 2
        await wait_until(pilot, lambda: sizes(server) == {"a": (left, AREA[1] - 1), name: (right, AREA[1] - 1)})
        assert app.model.focused == new and app.model.shown == {app.layout.panes()[0]}  # the other is visible
        assert app.view is app.panes.views[new] and app.view.has_focus
        await pilot.press("ctrl+b", "z")  # zoomed: the other pane is not on screen, nor visible
        await wait_until(pilot, lambda: sizes(server)[name] == AREA)
        assert app.model.shown == set() and sizes(server)["a"] == (left, AREA[1] - 1)  # it keeps its size


async def test_a_pane_s_output_is_drawn_after_a_key_s_echo_by_one_timer(server: RunningServer) -> None:
    with server.client() as c:
        # the focus echoes nothing: the key stays pending for this test
        a = c.request("session.new", name="a", command=["/bin/sh", "-c", "stty -echo; exec cat >/dev/null"])
        a = a["session"]["id"]
        b = c.request("session.new", name="b", command=["/bin/cat"])["session"]["id"]
    layout = Layout.from_dict({"focus": a, "root": {"split": "h", "children": [{"session": a}, {"session": b}]}})
    async with attached(server, layout=layout) as (app, pilot):
        await wait_until(pilot, lambda: b in app.panes.views)
        shadow = app.model.feeder.shadows[b]

        def settled() -> bool:  # b has its pane's size, here and on the server: no resync to come
            box = app.panes.geometry.box(b) if app.panes.geometry is not None else None
            size = (shadow.screen.columns, shadow.screen.lines)
            return box is not None and size == (box.content.width, box.content.height) == sizes(server)["b"]

        await wait_until(pilot, settled)
        await wait_until(pilot, lambda: app.snapshots_pending == 0 and not shadow.resyncing)
        await wait_until(pilot, lambda: not app.model.feeder.has_work() and app._pane_timer is None)
        rendered = app.panes.views[b].renderer.rendered
        app.send_bytes(b"x")  # a key is on its way: its echo would be drawn first
        app.handle_push(OutputPush(session=b, offset=shadow.end, data=b"from-b\r\n"))
        # the pump's slice and what it leads to, here, with no await in between
        done = app.model.step()
        assert done is not None and done.session == b and done.visible
        app._apply(app.model.after_slice(done))
        assert app._pane_timer is not None and b in app._undrawn  # one timer, not a draw now
        assert app.panes.views[b].renderer.rendered == rendered
        await wait_until(pilot, lambda: app._pane_timer is None)
        assert app._undrawn == set() and app.panes.views[b].renderer.rendered > rendered
        assert "from-b" in app.panes.views[b].renderer.line(shadow.screen, 0).text


async def test_a_saved_layout_is_restored_on_attach_without_the_gone_sessions(server: RunningServer) -> None:
    with server.client() as c:
        a, b, gone = (c.request("session.new", name=n, command=["/bin/cat"])["session"]["id"] for n in "abc")
        saved = {
            "focus": b,
            "zoomed": False,
            "root": {"split": "v", "children": [{"session": a}, {"session": b}, {"session": gone}]},
        }
        c.request("client.attach")
        c.request("client.view", panes=[{"target": a}, {"target": b}, {"target": gone}], focus=b, layout=saved)
        c.request("session.kill", target=gone)
    async with attached(server) as (app, pilot):
        assert app.layout is not None and app.layout.panes() == [a, b] and app.layout.focus == b
        assert set(app.panes.views) == {a, b}


def test_a_title_row_names_the_session_and_marks_the_focus_and_an_ended_one() -> None:
    base = Style()
    assert title_strip(PaneLabel("build"), 20, focused=False, base=base).text == "─ build ────────────"
    assert title_strip(PaneLabel("build"), 20, focused=True, base=base).text == "▌ build ────────────"
    ended = title_strip(PaneLabel("build", "exit 3"), 40, focused=False, base=base).text
    assert ended == "─ build [exit 3: Enter closes] ─────────"
    assert title_strip(PaneLabel("a-very-long-session-name"), 10, focused=False, base=base).cell_length == 10


async def test_copy_mode_runs_in_the_pane_a_drag_starts_in_and_a_pane_switch_ends_it(server: RunningServer) -> None:
    from termux.tui.widgets import TerminalView

    with server.client() as c:
        a = c.request("session.new", name="a", command=["sh", "-c", "echo from-a; exec cat"])["session"]["id"]
        b = c.request("session.new", name="b", command=["sh", "-c", "echo from-b; exec cat"])["session"]["id"]
    layout = Layout.from_dict({"focus": b, "root": {"split": "h", "children": [{"session": a}, {"session": b}]}})
    async with attached(server, layout=layout) as (app, pilot):
        await wait_until(pilot, lambda: a in app.panes.views)
        other = app.panes.views[a]
        other.post_message(TerminalView.Select(other, "down", 0, 0))
        other.post_message(TerminalView.Select(other, "drag", 3, 0))
        await wait_until(pilot, lambda: app.copy is not None and app.copy.shown)
        assert app.copy is not None and app.copy.target == a and app.model.focused == a  # that pane, focused
        assert other.copy is app.copy and app.panes.views[b].copy is None
        other.post_message(TerminalView.Select(other, "up", 3, 0))
        await wait_until(pilot, lambda: app.copy is None)
        with server.client() as c:
            assert c.request("buffer.get")["data"] == "ZnJvbQ=="  # "from": columns 0-3 of "from-a"
        await pilot.press("ctrl+b", "left_square_bracket")
        await wait_until(pilot, lambda: app.copy is not None)
        await pilot.press("ctrl+b", "o")  # the next pane: copy mode ends, its pane shows its screen
        await wait_until(pilot, lambda: app.copy is None and app.model.focused == b)
        assert other.copy is None


async def test_a_renamed_session_s_pane_title_says_its_new_name(server: RunningServer) -> None:
    with server.client() as c:
        a = c.request("session.new", name="a", command=["/bin/cat"])["session"]["id"]
        b = c.request("session.new", name="b", command=["/bin/cat"])["session"]["id"]
    layout = Layout.from_dict({"focus": a, "root": {"split": "h", "children": [{"session": a}, {"session": b}]}})
    async with attached(server, layout=layout) as (app, pilot):
        await wait_until(pilot, lambda: b in app.panes.labels)
        with server.client() as c:
            c.request("session.rename", target=b, name="build")
        await wait_until(pilot, lambda: app.panes.labels[b].name == "build")
        box = app.panes.geometry.box(b) if app.panes.geometry is not None else None
        assert box is not None and box.title is not None
        assert " build " in app.panes.render_line(box.title.y).text[box.title.x :]


async def test_with_exited_pane_close_an_ended_session_s_pane_closes_at_once(server: RunningServer) -> None:
    with server.client() as c:
        a = c.request("session.new", name="a", command=["/bin/cat"])["session"]["id"]
        b = c.request("session.new", name="b", command=["/bin/cat"])["session"]["id"]
    layout = Layout.from_dict({"focus": b, "root": {"split": "h", "children": [{"session": a}, {"session": b}]}})
    async with attached(server, layout=layout, config=Config(exited_pane="close")) as (app, pilot):
        await wait_until(pilot, lambda: b in app.panes.views)
        app.send_bytes(b"\x04")  # cat ends
        await wait_until(pilot, lambda: app.layout is not None and app.layout.panes() == [a])
        assert app.model.focused == a and app.model.rows[b].state == "exited"  # still listed
