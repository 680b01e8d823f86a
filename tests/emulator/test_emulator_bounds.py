"""Bounds on what one input can make the emulator do (issue 12 item 5 and its siblings).

Each test counts work, never time: the number of normalisations per combining mark, passes over the
tab stops per CHT/CBT, row shifts per SU/SD, and checks what a cell may hold.
"""

from __future__ import annotations

import random
import unicodedata
from typing import Any

import pytest

import termux.emulator.screen as reference_screen
import termux.emulator.stream as reference_stream
from termux.emulator import ByteStream, Screen
from termux.emulator.screen import MAX_JOINED

BOTH = [(Screen, ByteStream), (reference_screen.Screen, reference_stream.ByteStream)]


class CountingNormalize:
    def __init__(self) -> None:
        self.calls = 0
        self.real = unicodedata.normalize

    def __call__(self, form: str, text: str) -> str:
        self.calls += 1
        return self.real(form, text)


@pytest.mark.parametrize(("screen_cls", "stream_cls"), BOTH)
def test_a_cell_keeps_at_most_max_joined_marks_and_each_extra_mark_costs_no_normalisation(
    screen_cls: Any, stream_cls: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = []
    for marks in (100, 20_000):
        counter = CountingNormalize()
        monkeypatch.setattr(reference_screen.unicodedata, "normalize", counter)
        screen = screen_cls(20, 3)
        stream = stream_cls(screen)
        stream.feed(("a" + "\u0301" * marks + "b").encode())
        monkeypatch.undo()
        cell = screen.buffer[0][0].data
        # "a" + U+0301 composes to "á"; the cell holds it and MAX_JOINED more marks, nothing else.
        assert cell == "\u00e1" + "\u0301" * MAX_JOINED
        assert screen.buffer[0][1].data == "b"  # the text after the marks is not lost
        counts.append(counter.calls)
    # Only the marks that fit were normalised: the count does not grow with the input.
    assert counts[0] == counts[1] <= MAX_JOINED + 1


@pytest.mark.parametrize(("screen_cls", "stream_cls"), BOTH)
def test_marks_in_many_feeds_and_on_a_wide_character_are_bounded_too(screen_cls: Any, stream_cls: Any) -> None:
    screen = screen_cls(10, 2)
    stream = stream_cls(screen)
    stream.feed("中".encode())
    for _ in range(500):
        stream.feed("\u0308".encode())
    assert screen.buffer[0][0].data == "中" + "\u0308" * MAX_JOINED
    assert screen.buffer[0][1].data == ""  # the wide character's stub is untouched


@pytest.mark.parametrize(("screen_cls", "stream_cls"), BOTH)
def test_a_few_marks_still_join_as_before(screen_cls: Any, stream_cls: Any) -> None:
    screen = screen_cls(10, 2)
    stream_cls(screen).feed("e\u0301\u0323x".encode())
    assert screen.buffer[0][0].data == unicodedata.normalize("NFC", "e\u0301\u0323")
    assert screen.buffer[0][1].data == "x"


class CountingSet(set[int]):
    """Tab stops that count how often they are walked through."""

    walks = 0

    def __iter__(self) -> Any:
        CountingSet.walks += 1
        return super().__iter__()


def _naive_tabs(stops: set[int], columns: int, x: int, count: int, forward: bool) -> int:
    """CHT/CBT one stop at a time (what they mean)."""
    for _ in range(count):
        if forward:
            later = [t for t in stops if t > x]
            x = min(later) if later else columns - 1
        else:
            x = min(x, columns - 1)
            earlier = [t for t in stops if t < x]
            x = max(earlier) if earlier else 0
    return x


@pytest.mark.parametrize(("screen_cls", "stream_cls"), BOTH)
def test_cht_and_cbt_walk_the_tab_stops_once_whatever_the_count(screen_cls: Any, stream_cls: Any) -> None:
    rnd = random.Random(5)
    for _ in range(200):
        columns = rnd.randint(1, 60)
        screen = screen_cls(columns, 2)
        stream = stream_cls(screen)
        stops = {rnd.randrange(columns) for _ in range(rnd.randint(0, 10))}
        x = rnd.randrange(columns + 1)
        count = rnd.choice([0, 1, 2, 3, 7, 9999])
        screen.tabstops = CountingSet(stops)
        screen.cursor.x = x
        CountingSet.walks = 0
        forward = rnd.random() < 0.5
        stream.feed(f"\x1b[{count}{'I' if forward else 'Z'}".encode())
        assert screen.cursor.x == _naive_tabs(stops, columns, x, count or 1, forward), (stops, columns, x, count)
        assert CountingSet.walks <= 1


def _state(screen: Any) -> Any:
    return (
        [[tuple(screen.buffer[y][x]) for x in range(screen.columns)] for y in range(screen.lines)],
        list(screen.history),
        sorted(screen.dirty),
        (screen.cursor.x, screen.cursor.y),
    )


@pytest.mark.parametrize("sequence", ["\x1b[9999S", "\x1b[9999T", "\x1b[5;900r\x1b[700S", "\x1b[5;900r\x1b[3T"])
def test_su_and_sd_shift_the_region_once_whatever_the_count(sequence: str) -> None:
    setup = "".join(f"\x1b[{y};1Hrow {y}" for y in range(1, 1001, 7)).encode()
    ref = reference_screen.Screen(20, 1000, history=5000)
    reference_stream.ByteStream(ref).feed(setup + sequence.encode())
    screen = Screen(20, 1000, history=5000)
    stream = ByteStream(screen)
    stream.feed(setup)
    steps = []
    screen.index = lambda: steps.append("index")  # type: ignore[method-assign]
    screen.reverse_index = lambda: steps.append("reverse_index")  # type: ignore[method-assign]
    stream.feed(sequence.encode())
    assert steps == []  # no line-by-line scrolling: one shift of the region
    del screen.index, screen.reverse_index
    assert _state(screen) == _state(ref)
