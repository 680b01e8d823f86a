"""No byte stream makes termux's emulator raise, and chunk boundaries never change the result."""

from __future__ import annotations

import pyte
import pytest
from emu_strategies import chunked, streams
from hypothesis import HealthCheck, given, settings

from termux.emulator import ByteStream, Screen, snapshot

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def state(screen: Screen) -> tuple[object, ...]:
    cells = [[(tuple(screen.buffer[y][x]), getattr(screen.buffer[y][x], "ext", None))
              for x in range(screen.columns)] for y in range(screen.lines)]
    return (cells, screen.cursor.x, screen.cursor.y, screen.cursor.hidden, tuple(screen.cursor.attrs),
            sorted(screen.mode), screen.margins, screen.title, screen.icon_name, screen.bell_count,
            [[run[0] for run in line] for line in screen.history])


@SETTINGS
@given(chunked())
def test_random_streams_never_raise_and_chunking_does_not_matter(case: tuple[bytes, list[bytes]]) -> None:
    data, chunks = case
    whole = Screen(12, 5, history=20)
    ByteStream(whole).feed(data)
    parts = Screen(12, 5, history=20)
    stream = ByteStream(parts)
    for chunk in chunks:
        stream.feed(chunk)
    # Nothing was swallowed by the last line of defence either: every handler coped on its own.
    assert whole.errors == 0 and parts.errors == 0
    assert state(whole) == state(parts)
    whole.display  # noqa: B018 — rendering must not raise either
    snapshot(whole)


@SETTINGS
@given(streams())
def test_stock_pyte_raises_where_termux_does_not(data: bytes) -> None:
    screen = Screen(10, 4)
    ByteStream(screen).feed(data)
    assert screen.errors == 0
    screen.resize(3, 7)
    screen.resize(6, 13)
    assert screen.display


@pytest.mark.parametrize("seq", [
    b"\x1b[?6h\x1b[5d",          # origin mode with no margins: pyte asserts
    b"\x1b[?6h\x1b[6n",          # the same in a cursor position report
    b"\xe4\xb8\xad\x1b[1;1H\x1b[P",  # a wide character's stub left without it: display raised
    b"\x1b[1;2;3H",              # too many parameters
    b"\x1b[1;2A",
    b"\x1b[3K",                  # unknown erase mode
    b"\x1b[5J",
    b"\x1b[?r",                  # private marker pyte's handler does not accept
    b"\x1b[?4m",
    b"\x1b[?5n",
    b"\x1b[1;2c",
    b"\x1b[\xc2\xb2J",           # a Unicode digit in a parameter: pyte's int() raised
])
def test_sequences_stock_pyte_raises_on(seq: bytes) -> None:
    stock = pyte.Screen(10, 4)
    with pytest.raises(Exception):  # noqa: B017,PT011 — documents pyte's failure
        pyte.ByteStream(stock).feed(seq + b"\x1b[4;1Hx")
        stock.display  # noqa: B018
    screen = Screen(10, 4)
    ByteStream(screen).feed(seq + b"\x1b[4;1Hx")
    assert screen.errors == 0
    assert screen.display[3].startswith("x")
