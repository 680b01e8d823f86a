"""OSC 52 both ways as pure code: what a program's request means, and the escape a view writes."""

from __future__ import annotations

import base64

import pytest

from termux.clipboard import ClipboardSet, osc52, parse_osc52
from termux.emulator import ByteStream, Screen
from termux.emulator.stream import MAX_STRING


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize(
    ("param", "expected"),
    [
        ("c;" + _b64(b"hello"), ClipboardSet("c", b"hello")),
        ("pc;" + _b64("héllo ✓".encode()), ClipboardSet("pc", "héllo ✓".encode())),
        ("cc;" + _b64(b"x"), ClipboardSet("c", b"x")),  # each selection once
        (";" + _b64(b"x"), ClipboardSet("c", b"x")),  # none named: the clipboard
        ("c;?", None),  # a query: programs may not read the clipboard
        ("c;", None),  # empty
        ("c;not base64!", None),
        ("z;" + _b64(b"x"), None),  # no such selection
        ("c", None),  # no payload at all
    ],
)
def test_a_programs_request(param: str, expected: ClipboardSet | None) -> None:
    assert parse_osc52(param) == expected


def test_the_escape_a_view_writes_is_read_back_as_the_same_request() -> None:
    text = "line one\nline two ✓".encode()
    escape = osc52(text)
    assert escape == "\x1b]52;c;" + _b64(text) + "\x07"
    assert parse_osc52(escape[len("\x1b]52;") : -1]) == ClipboardSet("c", text)


def test_the_emulator_keeps_the_latest_request_for_the_server_and_drops_a_cut_one() -> None:
    screen = Screen(20, 3)
    stream = ByteStream(screen)
    stream.feed(f"\x1b]52;c;{_b64(b'one')}\x07\x1b]52;c;{_b64(b'two')}\x1b\\after".encode())
    assert screen.clipboard == ClipboardSet("c", b"two") and screen.display[0].rstrip() == "after"
    screen.clipboard = None
    fits = "A" * (MAX_STRING - len("52;c;") - 3)  # a multiple of 4 just under the bound: kept
    stream.feed(f"\x1b]52;c;{fits}\x07".encode())
    assert screen.clipboard is not None and len(screen.clipboard.data) == len(fits) * 3 // 4
    screen.clipboard = None
    stream.feed(("\x1b]52;c;" + "A" * MAX_STRING + "\x07").encode())  # cut at the bound: dropped whole
    assert screen.clipboard is None
    stream.feed(b"still parsing")
    assert screen.display[0].rstrip() == "afterstill parsing"
