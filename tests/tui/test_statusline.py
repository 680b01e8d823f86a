"""The status line: its template (pure) and the widget's redraws and timers (under Pilot)."""

from __future__ import annotations

import time

import pytest
from textual.app import App, ComposeResult

from termux.tui.statusline import Field, TemplateError, marks, next_change, parse_template
from termux.tui.widgets import StatusLine
from tests.tui.helpers import wait_until

VALUES = {"session": "build", "index": 3, "sessions": 12, "host": "box", "prefix": "ctrl+b", "unseen": 2}


def test_a_template_renders_its_fields_and_keeps_its_text() -> None:
    template = parse_template(" [{index}:{session}] of {sessions} on {host} {{literal}}")
    assert template.render(VALUES) == " [3:build] of 12 on box {literal}"
    assert template.fields == {"index", "session", "sessions", "host"}
    assert template.tick() is None  # no time field: nothing changes by itself


def test_the_time_field_takes_a_strftime_format_and_says_how_often_it_changes() -> None:
    now = time.mktime((2026, 3, 4, 14, 5, 9, 0, 0, -1))
    assert parse_template("{time}").render({}, now) == "14:05"
    assert parse_template("{time:%H:%M:%S}").render({}, now) == "14:05:09"
    assert parse_template("{time}").tick() == 60.0
    assert parse_template("{time:%d %b}").tick() == 60.0
    assert parse_template("{time:%T}").tick() == 1.0
    assert parse_template("{time:%H:%M:%S}").parts == (Field("time", "%H:%M:%S"),)


def test_the_next_change_is_at_the_clock_turn() -> None:
    assert next_change(60.0, 120.0) == 60.0
    assert next_change(60.0, 150.5) == pytest.approx(29.5)
    assert next_change(1.0, 10.25) == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{nope}", "unknown field {nope}"),
        ("{session:>10}", "only {time} takes a format"),
        ("{session!r}", "unknown field {session}"),
        ("open {", "unbalanced braces"),
        ("close }", "unbalanced braces"),
    ],
)
def test_a_bad_template_is_refused_in_termux_words(text: str, says: str) -> None:
    with pytest.raises(TemplateError, match=says.replace("{", r"\{").replace("}", r"\}")):
        parse_template(text)


def test_marks_count_sessions_with_unseen_output_and_bells() -> None:
    assert marks(0, 0) == ""
    assert marks(3, 0) == "3*"
    assert marks(3, 1) == "3* 1!"
    assert marks(0, 2) == "2!"


class StatusApp(App[None]):
    def __init__(self, line: StatusLine) -> None:
        super().__init__()
        self.line = line

    def compose(self) -> ComposeResult:
        yield self.line


async def test_no_timer_without_a_time_field_and_redraws_only_on_change() -> None:
    line = StatusLine("ctrl+b", parse_template(" [{session}] {index}"), parse_template("{marks}"))
    app = StatusApp(line)
    async with app.run_test(size=(60, 3)) as pilot:
        await pilot.pause()
        assert line.tick is None and line.clock_timer is None  # no clock: no timer armed
        line.session, line.index = "build", 1
        drawn = line.redraws
        line.session, line.index = "build", 1  # the same text: not drawn again
        line.sessions = 9  # a field the templates do not show: not drawn again
        assert line.redraws == drawn
        line.unseen = 2
        line.bells = 1
        assert line.redraws == drawn + 2
        line.unseen = 2  # the same again
        assert line.redraws == drawn + 2
        text = str(line.render())
        assert text.startswith(" [build] 1") and text.rstrip().endswith("2* 1!")
        assert len(text) <= 60
        assert line.message_timer is None
        line.message = "hello"
        assert line.message_timer is not None  # the message's timer, only while it shows
        assert line.clock_timer is None


async def test_a_time_field_arms_one_timer_for_the_clock_turn() -> None:
    line = StatusLine("ctrl+b", parse_template("{session}"), parse_template("{time:%H:%M:%S}"))
    app = StatusApp(line)
    async with app.run_test(size=(60, 3)) as pilot:
        await pilot.pause()
        assert line.tick == 1.0
        first = line.clock_timer
        assert first is not None
        before = line.redraws
        await wait_until(pilot, lambda: line.redraws > before)  # the clock turned: drawn again
        assert line.clock_timer is not None and line.clock_timer is not first  # and one new timer
    assert line.clock_timer is None  # stopped with the widget
