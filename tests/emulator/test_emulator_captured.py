"""pyte's recorded program outputs (htop, vi, mc, top, ls, find, cat; LGPL test data vendored in
tests/vendor/pyte_suite/captured) replayed through termux.emulator: the screen matches pyte's recorded display and
stock pyte's every cell and cursor (stock pyte is right on all of them), whole or cut into chunks, and the
final state survives a snapshot round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pyte
import pytest

from termux.emulator import ByteStream, Screen, capture, snapshot

CAPTURED = Path(__file__).parents[1] / "vendor" / "pyte_suite" / "captured"
NAMES = ["cat-gpl3", "find-etc", "htop", "ls", "mc", "top", "vi"]


def load(name: str) -> tuple[bytes, list[str]]:
    return (CAPTURED / f"{name}.input").read_bytes(), json.loads((CAPTURED / f"{name}.output").read_text())


def cells(screen: pyte.Screen) -> list[list[tuple[object, ...]]]:
    return [[tuple(screen.buffer[y][x]) for x in range(screen.columns)] for y in range(screen.lines)]


@pytest.mark.parametrize("name", NAMES)
def test_captured_program_matches_stock_pyte(name: str) -> None:
    data, expected = load(name)
    stock = pyte.Screen(80, 24)
    pyte.ByteStream(stock).feed(data)
    screen = Screen(80, 24)
    ByteStream(screen).feed(data)
    assert screen.errors == 0
    assert screen.display == expected == stock.display
    assert cells(screen) == cells(stock)
    assert (screen.cursor.x, screen.cursor.y, screen.cursor.hidden) == (
        stock.cursor.x, stock.cursor.y, stock.cursor.hidden)
    assert capture(screen) == [line.rstrip(" ") for line in expected]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("size", [1, 7, 4096])
def test_captured_program_in_chunks(name: str, size: int) -> None:
    data, expected = load(name)
    if size == 1:
        data = data[:20000]  # byte by byte is slow; the start holds most of the escape sequences
        whole = Screen(80, 24)
        ByteStream(whole).feed(data)
        expected = whole.display
    screen = Screen(80, 24)
    stream = ByteStream(screen)
    for i in range(0, len(data), size):
        stream.feed(data[i:i + size])
    assert screen.display == expected


@pytest.mark.parametrize("name", NAMES)
def test_captured_program_snapshot_round_trip(name: str) -> None:
    data, expected = load(name)
    screen = Screen(80, 24)
    ByteStream(screen).feed(data)
    copy = Screen(80, 24)
    ByteStream(copy).feed(snapshot(screen))
    assert copy.display == expected
    assert cells(copy) == cells(screen)
    assert (copy.cursor.x, copy.cursor.y) == (screen.cursor.x, screen.cursor.y)
    assert sorted(copy.mode) == sorted(screen.mode)
