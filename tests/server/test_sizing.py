"""The size policy (tmux's window-size), pure; and the server applying it to views of real sessions."""

from __future__ import annotations

import pytest

from termux.client import Client, TermuxError
from termux.server.sizing import ViewSize, choose
from tests.conftest import RunningServer

BIG, SMALL = ViewSize(140, 30, active=1), ViewSize(100, 40, active=2)


def test_no_view_keeps_the_size() -> None:
    assert choose("latest", []) is None
    assert choose("smallest", []) is None


def test_latest_is_the_most_recently_active_view() -> None:
    assert choose("latest", [BIG, SMALL]) == (100, 40)
    assert choose("latest", [ViewSize(140, 30, active=3), SMALL]) == (140, 30)


def test_smallest_and_largest_take_each_dimension_on_its_own() -> None:
    assert choose("smallest", [BIG, SMALL]) == (100, 30)
    assert choose("largest", [BIG, SMALL]) == (140, 40)


def session_size(client: Client, sid: str) -> tuple[int, int]:
    info = client.request("session.get", target=sid)["session"]
    return info["cols"], info["rows"]


def resizes(client: Client, sid: str) -> list[tuple[int, int]]:
    events = client.request("events.read", cursor=0, types=["session.resized"], session=sid, limit=1000)["events"]
    return [(event["data"]["cols"], event["data"]["rows"]) for event in events]


def test_views_size_the_session_by_the_policy_and_nothing_else_does(server: RunningServer) -> None:
    with server.client() as c:
        sid = c.request("session.new", name="a", command=["/bin/cat"], cols=80, rows=24)["session"]["id"]
    with server.client() as first, server.client() as second, server.client() as script:
        first.request("client.attach", focus=sid, cols=140, rows=30)
        assert session_size(script, sid) == (140, 30)
        second.request("client.attach", focus=sid, cols=100, rows=40)
        assert session_size(script, sid) == (100, 40)  # latest, the default
        first.request("client.focus", target=sid)  # focusing again without a size is not activity
        assert session_size(script, sid) == (100, 40)
        first.request("session.send", target=sid, data="eA==")  # typing is
        assert session_size(script, sid) == (140, 30)
        first.request("session.send", target=sid, data="eA==")  # still the latest: no resize
        assert resizes(script, sid) == [(140, 30), (100, 40), (140, 30)]
        second.close()  # the remaining view decides
        assert session_size(script, sid) == (140, 30)
        third = server.client()
        third.request("client.attach", focus=sid, cols=90, rows=20, window_size="largest")
        assert session_size(script, sid) == (140, 30)
        third.request("client.focus", target=sid, cols=150, rows=50)  # a view's new size
        assert session_size(script, sid) == (150, 50)
        third.request("client.attach", window_size="smallest", cols=90, rows=20)  # focus: none
        assert session_size(script, sid) == (140, 30)  # it left: the other view's
        third.close()


def test_a_size_needs_both_halves(server: RunningServer) -> None:
    with server.client() as c:
        sid = c.request("session.new", name="a", command=["/bin/cat"])["session"]["id"]
        with pytest.raises(TermuxError) as caught:
            c.request("client.focus", target=sid, cols=100)
        assert caught.value.code == "bad_args" and "cols" in caught.value.message
        with pytest.raises(TermuxError) as caught:
            c.request("client.attach", window_size="biggest")
        assert caught.value.code == "bad_args"
