"""Several views per client (`client.view`): the focused pane first, the other panes next, hidden
sessions last, in the parse order, the CPU priority and forwarding; each pane sizes its session."""

from __future__ import annotations

import asyncio
import base64
import socket
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from termux.client import Client, TermuxError
from termux.protocol import events as ev
from termux.protocol.messages import AttachArgs, NewArgs, ViewArgs, ViewPane
from termux.server import handlers
from termux.server.priority import read_group_nice, visible_nice
from termux.server.scheduler import (
    FORWARD_BURST,
    FORWARD_CATCH_UP,
    FORWARD_HOLD,
    FORWARD_RATE,
    FORWARD_VISIBLE_BURST,
    FORWARD_VISIBLE_RATE,
    UNSEEN_CATCH_UP,
    HeldOutput,
)
from termux.server.server import Connection, Server
from termux.server.session import Session
from termux.slicing import SliceOrder
from tests.conftest import RunningServer
from tests.server.test_priority import FakeKernel, cpu_with, needs_autogroup
from tests.server.test_sizing import resizes, session_size

# -- the parse order and the CPU priority, pure ----------------------------------------------------


def test_the_focus_goes_first_the_other_panes_next_and_hidden_sessions_last() -> None:
    order = SliceOrder()
    for sid in ("%0", "%1", "%2", "%3"):
        order.add(sid)
    order.focused, order.visible = {"%3"}, {"%1", "%2"}
    assert order.next() == "%3"
    order.discard("%3")
    assert [order.next() for _ in range(4)] == ["%1", "%2", "%1", "%2"]  # the panes take turns
    order.discard("%1")
    order.discard("%2")
    assert order.next() == "%0"  # hidden: only once no pane has output waiting


def test_a_pane_beside_the_focus_runs_halfway_to_its_background_nice() -> None:
    kernel = FakeKernel()
    cpu = cpu_with(kernel, {"%0": (100, 10), "%1": (101, 10), "%2": (102, 10)})
    cpu.follow({"%0"}, viewed=True, visible={"%1"})
    assert kernel.nice == {101: visible_nice(10), 102: 10} and 0 < visible_nice(10) < 10
    kernel.writes.clear()
    cpu.follow({"%1"}, viewed=True, visible={"%0"})  # focus moves to the other pane
    assert kernel.writes == [(101, 0), (100, visible_nice(10))]  # the new focus is raised first


# -- a real server: sizes, tiers, forwarding ----------------------------------------------------------


def three_sessions(c: Client) -> list[str]:
    return [c.request("session.new", name=n, command=["/bin/cat"])["session"]["id"] for n in ("a", "b", "c")]


def test_each_pane_sizes_its_own_session(server: RunningServer) -> None:
    with server.client() as view, server.client() as script:
        a, b, c = three_sessions(script)
        view.request("client.attach", focus=a, cols=100, rows=30)
        assert session_size(script, a) == (100, 30)
        view.request(
            "client.view",
            focus=a,
            panes=[{"target": a, "cols": 50, "rows": 29}, {"target": "b", "cols": 49, "rows": 29}],
        )
        assert session_size(script, a) == (50, 29) and session_size(script, b) == (49, 29)
        assert session_size(script, c) == (80, 24)  # not shown: untouched
        view.request("client.view", focus=b, panes=[{"target": a, "cols": 50, "rows": 29}, {"target": b}])
        assert session_size(script, b) == (49, 29)  # shown without an offer: it keeps its size
        view.request("client.view", focus=a, panes=[{"target": a, "cols": 100, "rows": 30}])
        assert session_size(script, a) == (100, 30) and resizes(script, b) == [(49, 29)]


def test_a_pane_beside_a_larger_view_of_the_same_session_follows_the_policy(server: RunningServer) -> None:
    with server.client() as tui, server.client() as other, server.client() as script:
        a, b, _ = three_sessions(script)
        other.request("client.attach", focus=b, cols=120, rows=40)
        tui.request("client.attach", focus=a, cols=100, rows=30)
        tui.request(
            "client.view", focus=a, panes=[{"target": a, "cols": 50, "rows": 30}, {"target": b, "cols": 49, "rows": 30}]
        )
        assert session_size(script, b) == (49, 30)  # latest: the pane just shown
        other.request("session.send", target=b, data="eA==")  # typing in the other view takes it back
        assert session_size(script, b) == (120, 40)
        tui.request(
            "client.view", focus=b, panes=[{"target": a, "cols": 50, "rows": 30}, {"target": b, "cols": 49, "rows": 30}]
        )
        assert session_size(script, b) == (49, 30)  # focusing the pane is activity
        tui.request(
            "client.view", focus=a, panes=[{"target": a, "cols": 50, "rows": 30}, {"target": b, "cols": 49, "rows": 30}]
        )
        assert session_size(script, b) == (49, 30)  # the focus moving away is not: no resize
        assert resizes(script, b) == [(120, 40), (49, 30), (120, 40), (49, 30)]


def test_a_saved_layout_comes_back_with_the_next_attach(server: RunningServer) -> None:
    layout = {
        "focus": "%1",
        "zoomed": False,
        "root": {"split": "h", "children": [{"session": "%0"}, {"session": "%1"}]},
    }
    with server.client() as view:
        a, b, _ = three_sessions(view)
        assert view.request("client.attach", focus=a)["last_layout"] is None
        view.request("client.view", focus=b, panes=[{"target": a}, {"target": b}], layout=layout)
    with server.client() as again:
        reply = again.request("client.attach")
        assert reply["last_layout"] == layout and reply["last_focus"] == b


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        ({"focus": "a", "panes": [{"target": "b"}]}, "bad_args", "in none of the `panes`"),
        ({"panes": [{"target": "a"}, {"target": "%0"}]}, "bad_args", "in two panes"),
        ({"panes": [{"target": "a", "cols": 40}]}, "bad_args", "both `cols` and `rows`"),
        ({"panes": [{"target": "nope"}]}, "no_session", "nope"),
        ({"panes": [{"target": "a", "cols": 1, "rows": 5}]}, "bad_args", "cols"),
        ({"panes": [{"target": "a"}] * 257}, "bad_args", "panes"),
        ({"panes": [], "layout": {"pad": "x" * 70_000}}, "too_large", "layout"),
        ({"panes": [{"target": "a"}], "tiles": ["a"] * 1025}, "bad_args", "tiles"),
    ],
)
def test_a_bad_view_is_refused_in_termux_s_words_and_changes_nothing(
    server: RunningServer, args: dict[str, object], code: str, words: str
) -> None:
    with server.client() as view:
        a = view.request("session.new", name="a", command=["/bin/cat"])["session"]["id"]
        view.request("session.new", name="b", command=["/bin/cat"])
        view.request("client.attach", focus=a, cols=90, rows=20)
        with pytest.raises(TermuxError) as caught:
            view.request("client.view", **args)
        assert caught.value.code == code and words in caught.value.message
        assert session_size(view, a) == (90, 20)
        assert view.request("server.hello")["version"] == 1  # still serving


def test_only_a_view_may_say_what_it_shows(server: RunningServer) -> None:
    with server.client() as script:
        script.request("session.new", name="a", command=["/bin/cat"])
        with pytest.raises(TermuxError) as caught:
            script.request("client.view", panes=[{"target": "a"}])
        assert caught.value.code == "bad_request" and "client.attach" in caught.value.message


class Peer:
    """A connection to an in-process server through a socket pair; what it is sent is read back."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.ours, self.theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.conn: Connection | None = None

    async def connect(self) -> Connection:
        loop = asyncio.get_running_loop()
        _, self.conn = await loop.connect_accepted_socket(lambda: Connection(self.server), sock=self.ours)
        return self.conn

    def close(self) -> None:
        self.theirs.close()


async def _a_view_of_three(tmp_path: Path) -> tuple[Server, Peer, Connection, tuple[Session, Session, Session]]:
    """A server with sessions a, b and c, and a coalescing view focused on a with b in a pane
    beside it (c hidden)."""
    server = Server(tmp_path / "sock")
    a, b, c = (server.new_session(NewArgs(name=n, command=["cat"])) for n in "abc")
    peer = Peer(server)
    conn = await peer.connect()
    server.attach(conn, AttachArgs(focus=a.id, coalesce=True))
    server.set_view(conn, a.id, {a.id: (40, 20), b.id: (39, 20)})
    return server, peer, conn, (a, b, c)


async def test_the_view_s_tiers_reach_the_parse_order_and_a_pane_s_output_gets_the_larger_budget(
    tmp_path: Path,
) -> None:
    server, peer, conn, (a, b, c) = await _a_view_of_three(tmp_path)
    assert server.pump.order.focused == {a.id} and server.pump.order.visible == {b.id}
    now = asyncio.get_running_loop().time()
    # Both buckets start full and go as far into debt; a second later the pane's has refilled
    # past it, the hidden session's has not.
    debt = (FORWARD_RATE + FORWARD_VISIBLE_RATE) // 2
    assert conn.takes_output(b.id, FORWARD_VISIBLE_BURST + debt, now)
    assert conn.takes_output(c.id, FORWARD_BURST + debt, now)
    assert conn.takes_output(b.id, 1, now + 1) and not conn.takes_output(c.id, 1, now + 1)
    assert c.id in conn.stale and b.id not in conn.stale
    assert sorted([c.id, b.id, a.id], key=conn._rank) == [a.id, b.id, c.id]  # snapshots: focus, panes, rest
    server.set_view(conn, None, {})  # the view shows nothing now
    assert server.pump.order.focused == set() and server.pump.order.visible == set()
    peer.close()
    for session in (a, b, c):
        await server.kill_session(session)


def _pushes_sent(peer: Peer) -> list[dict[str, Any]]:
    """The pushes the server wrote to the peer so far (replies left out)."""
    peer.theirs.setblocking(False)
    data = b""
    while True:
        try:
            data += peer.theirs.recv(1 << 20)
        except BlockingIOError:
            break
    lines = [msgspec.json.decode(line) for line in data.splitlines()]
    return [line for line in lines if "push" in line]


def _output(pushes: list[dict[str, Any]]) -> list[tuple[str, int, bytes]]:
    return [(p["session"], p["offset"], base64.b64decode(p["data"])) for p in pushes if p["push"] == "output"]


async def test_output_of_a_session_the_view_does_not_show_is_held_and_goes_as_one_push(tmp_path: Path) -> None:
    """A coalescing view gets a hidden session's chunks held, joined into one push FORWARD_HOLD
    after the first (one timer, armed while something is held), the focus's and a pane's at
    once; an event is written after what was held before it, and showing the session sends what
    was held at once; a session gone stale has what was held dropped (its snapshot stands for it)."""
    server, peer, conn, (a, b, c) = await _a_view_of_three(tmp_path)
    _pushes_sent(peer)  # (the attach)
    loop = asyncio.get_running_loop()
    server._on_parsed(c, 0, b"one ")
    server._on_parsed(a, 0, b"focus")
    server._on_parsed(c, 4, b"two")
    server._on_parsed(b, 0, b"pane")
    await asyncio.sleep(0)
    assert _output(_pushes_sent(peer)) == [(a.id, 0, b"focus"), (b.id, 0, b"pane")]
    release = conn._release
    assert release is not None and release.when() == pytest.approx(loop.time() + FORWARD_HOLD, abs=0.1)
    conn.release_held()  # (as its timer would)
    assert _output(_pushes_sent(peer)) == [(c.id, 0, b"one two")] and conn._release is None

    server._on_parsed(c, 7, b" three")
    server.events.commit(ev.SessionBell(session=c.id, name=c.name))
    sent = _pushes_sent(peer)
    assert [p["push"] for p in sent] == ["output", "event"] and _output(sent) == [(c.id, 7, b" three")]
    assert conn._release is None  # (nothing held: no timer)

    server._on_parsed(c, 13, b" four")
    server.set_view(conn, c.id, {c.id: (40, 20)})
    assert _output(_pushes_sent(peer)) == [(c.id, 13, b" four")]
    server._on_parsed(c, 18, b" five")  # shown now: at once
    server._on_parsed(a, 5, b" hidden now")
    assert _output(_pushes_sent(peer)) == [(c.id, 18, b" five")] and conn.held

    now = loop.time()
    assert conn.takes_output(a.id, FORWARD_BURST + 1, now) and not conn.takes_output(a.id, 1, now)  # over budget
    assert a.id in conn.stale and not conn.held and conn._release is None

    conn.stale.clear()
    server._on_parsed(b, 0, b"held while the view lags")
    conn.pause_writing()
    conn.release_held()
    assert _output(_pushes_sent(peer)) == [] and b.id in conn.stale  # its snapshot, once the socket drains
    peer.close()
    for session in (a, b, c):
        await server.kill_session(session)


def test_held_output_joins_each_session_s_chunks_from_its_first_offset() -> None:
    held = HeldOutput()
    held.hold("%1", 10, b"ab")
    held.hold("%2", 0, b"x")
    held.hold("%1", 12, b"cd")
    assert held.size == 5
    assert held.take("%2") == [("%2", 0, b"x")] and held.size == 4 and held.take("%2") == []
    held.hold("%3", 7, b"e")
    held.take("%3")
    assert held.take() == [("%1", 10, b"abcd")] and held.size == 0 and not held


async def test_an_attach_is_answered_before_the_cpu_priority_follows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first attach lowers every session it does not show (a pass over /proc, a write for
    each): its reply is written first, and the priority follows it before another request is read."""
    server = Server(tmp_path / "sock")
    a, b = (server.new_session(NewArgs(name=n, command=["cat"])) for n in "ab")
    await asyncio.sleep(0)  # (what the new sessions armed)
    peer = Peer(server)
    await peer.connect()
    peer.theirs.setblocking(False)
    followed: list[tuple[set[str], bool, bool]] = []
    done = asyncio.Event()

    def follow(shown: set[str], viewed: bool, visible: frozenset[str] | set[str] = frozenset()) -> None:
        try:
            sent = peer.theirs.recv(1 << 20)
        except BlockingIOError:
            sent = b""
        followed.append((set(shown), viewed, b'"id":1,' in sent))
        done.set()

    monkeypatch.setattr(server.cpu, "follow", follow)
    peer.theirs.sendall(b'{"id": 1, "cmd": "client.attach", "args": {"focus": "%s"}}\n' % a.id.encode())
    peer.theirs.sendall(b'{"id": 2, "cmd": "client.focus", "args": {"target": "%s"}}\n' % b.id.encode())
    await asyncio.wait_for(done.wait(), 10)
    await asyncio.sleep(0)
    # One follow a loop pass (the two requests came in one read), after both replies were written.
    assert followed == [({b.id}, True, True)]
    peer.close()
    for session in (a, b):
        await server.kill_session(session)


async def test_a_session_newly_shown_in_a_pane_gets_its_snapshot_at_once(tmp_path: Path) -> None:
    server = Server(tmp_path / "sock")
    a, b = (server.new_session(NewArgs(name=n, command=["cat"])) for n in "ab")
    peer = Peer(server)
    conn = await peer.connect()
    server.attach(conn, AttachArgs(focus=a.id, coalesce=True))
    now = asyncio.get_running_loop().time()
    assert conn.takes_output(b.id, FORWARD_BURST + 1, now) and not conn.takes_output(b.id, 1, now)
    assert b.id in conn.stale and conn._catch_up is not None  # hidden: its snapshot comes later
    peer.theirs.setblocking(False)
    while True:  # what the attach sent so far
        try:
            peer.theirs.recv(1 << 20)
        except BlockingIOError:
            break
    server.set_view(conn, a.id, {a.id: (40, 20), b.id: (39, 20)})
    assert b.id not in conn.stale and conn._catch_up is None  # shown now: brought up to date at once
    await asyncio.sleep(0)
    sent = peer.theirs.recv(1 << 20)
    assert b'"push":"snapshot"' in sent and f'"session":"{b.id}"'.encode() in sent
    peer.close()
    for session in (a, b):
        await server.kill_session(session)


async def test_a_hidden_session_is_caught_up_once_a_second_and_as_a_tile_as_often_as_a_pane(
    tmp_path: Path,
) -> None:
    server, peer, conn, (a, b, c) = await _a_view_of_three(tmp_path)
    now = asyncio.get_running_loop().time()
    for sid in (b.id, c.id):  # both print past their budget, all the time
        conn.catch_up.sent(sid, now)  # (their last snapshots went just now)
        assert conn.takes_output(sid, FORWARD_VISIBLE_BURST + 1, now) and not conn.takes_output(sid, 1, now)
    assert conn._due(b.id) == pytest.approx(now + FORWARD_CATCH_UP)  # a pane: the next catch-up
    assert conn._due(c.id) == pytest.approx(now + UNSEEN_CATCH_UP)  # hidden: a second after its last
    assert conn._catch_up is not None and conn._catch_up.when() == pytest.approx(now + FORWARD_CATCH_UP)
    handlers.client_view(handlers.Context(server, conn), ViewArgs(panes=[ViewPane(a.id)], focus=a.id, tiles=[c.id]))
    assert conn.tiles == {c.id}  # the grid shows it: as often as a pane
    assert conn._due(c.id) == pytest.approx(now + FORWARD_CATCH_UP)
    handlers.client_view(handlers.Context(server, conn), ViewArgs(panes=[ViewPane(a.id)], focus=a.id))
    assert conn.tiles == set() and conn._due(c.id) == pytest.approx(now + UNSEEN_CATCH_UP)  # the grid closed
    # A tile may name a session by its name, and one gone meanwhile is left out, not an error.
    view = ViewArgs(panes=[ViewPane(a.id)], focus=a.id, tiles=["c", "gone", b.id])
    handlers.client_view(handlers.Context(server, conn), view)
    assert conn.tiles == {c.id, b.id}
    server.set_focus(conn, a.id)  # client.focus: the whole view, one pane and no tiles
    assert conn.tiles == set()
    for session in (a, b, c):
        await server.kill_session(session)
    assert not conn.stale and conn._catch_up is None  # nothing stale: no timer left
    peer.close()


async def test_a_pane_due_soon_after_a_catch_up_is_not_held_for_another_period(tmp_path: Path) -> None:
    server, peer, conn, (a, b, c) = await _a_view_of_three(tmp_path)
    now = asyncio.get_running_loop().time()
    conn.catch_up.sent(c.id, now - UNSEEN_CATCH_UP)  # hidden: its last snapshot a second ago,
    conn.catch_up.went_stale(c.id, now - FORWARD_CATCH_UP)  # and its output skipped since: due now
    for sid in (b.id, c.id):
        assert conn.takes_output(sid, FORWARD_VISIBLE_BURST + 1, now) and not conn.takes_output(sid, 1, now)
    conn._caught_up()  # sends c; the pane b is due FORWARD_CATCH_UP after it went stale, not later
    assert conn.stale == {b.id}
    assert conn._catch_up is not None and conn._catch_up.when() == pytest.approx(conn._due(b.id))
    assert conn._due(b.id) == pytest.approx(now + FORWARD_CATCH_UP)
    peer.close()
    for session in (a, b, c):
        await server.kill_session(session)


@needs_autogroup
def test_the_panes_group_nice_is_between_the_focus_s_and_a_hidden_session_s(server: RunningServer) -> None:
    with server.client() as view:
        ids = three_sessions(view)
        pids = {s["id"]: s["pid"] for s in view.request("session.list")["sessions"]}
        a, b, c = ids
        view.request("client.attach", focus=a)
        view.request("client.view", focus=a, panes=[{"target": a}, {"target": b}])

        def nices() -> list[int | None]:
            return [read_group_nice(pids[sid]) for sid in ids]

        deadline = time.monotonic() + 10  # the kernel takes one unprivileged write per 100 ms
        while nices() != [0, visible_nice(10), 10] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert nices() == [0, visible_nice(10), 10]
