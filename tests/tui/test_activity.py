"""The activity view: tail-only harvest, bounded pool, one word per session per interval, no idle timer."""

from __future__ import annotations

from textual.app import App, ComposeResult

from termux.tui.activity import ActivityView
from termux.tui.harvest import POOL_MAX, TAIL_BYTES, WordHarvester, last_word


def test_a_word_before_the_tail_is_never_harvested_even_when_the_tail_holds_only_digits() -> None:
    digits = b"".join(b"%06d\n" % i for i in range(200))  # what a seq-style flood prints
    assert len(digits) > TAIL_BYTES
    chunk = b"mountain " + digits
    assert last_word(chunk) is None
    harvester = WordHarvester()
    assert not harvester.observe("s", chunk)
    assert not harvester.pool
    # the same word inside the tail is harvested
    assert last_word(digits + b" mountain 42\n") == "mountain"


def test_a_word_cut_by_the_tail_boundary_is_not_harvested() -> None:
    chunk = b"x" * 100 + b"abcdefghij" + b" 1" * ((TAIL_BYTES - 5) // 2)
    tail = chunk[-TAIL_BYTES:]
    assert tail[:1].isalpha()  # the tail starts inside the word
    assert last_word(chunk) is None


def test_escapes_are_not_words_and_the_latest_word_wins() -> None:
    assert last_word(b"\x1b[38;5;196mred\x1b[0m and \x1b]0;title\x07 then done") == "done"


def test_pool_is_bounded_and_reveals_one_word_per_session_per_interval() -> None:
    harvester = WordHarvester(interval=1.0)
    for n in range(POOL_MAX + 10):
        harvester.observe(f"s{n}", b"hello world")
    assert len(harvester.pool) == POOL_MAX
    assert "s0" not in harvester.pool  # the oldest went first
    harvester = WordHarvester(interval=1.0)
    harvester.observe("a", b"first")
    assert harvester.reveal(10.0) == [("a", "first")]
    harvester.observe("a", b"second")
    harvester.observe("a", b"third")  # the latest word replaces the pending one
    assert harvester.next_deadline(10.2) == 11.0
    assert harvester.reveal(10.5) == []  # not within the interval
    assert harvester.reveal(11.0) == [("a", "third")]
    assert harvester.next_deadline(11.0) is None  # empty pool: nothing to wait for


class ActivityApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ActivityView(interval=0.01, id="activity")


async def test_timer_runs_only_while_there_is_something_to_reveal() -> None:
    app = ActivityApp()
    async with app.run_test() as pilot:
        view = app.query_one(ActivityView)
        assert view.timer is None  # idle: no timer at all
        view.observe("s", b"0123 4567\n")  # only digits: nothing to reveal, no timer
        assert view.timer is None
        view.observe("s", b"compiling module\n")
        assert view.timer is not None
        view.observe("t", b"linking binary\n")
        for _ in range(100):
            if not view.harvester.pool and view.timer is None:
                break
            await pilot.pause(0.02)
        assert not view.harvester.pool
        assert view.timer is None  # disarmed once the pool is empty
        assert {w for _, w in view.shown} == {"module", "binary"}
