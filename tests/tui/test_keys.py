"""The key-encoding matrix: every key the TUI and `send-keys` know, in both cursor modes."""

from __future__ import annotations

import pytest

from termux.keys import (
    ALT,
    CTRL,
    SHIFT,
    encode_key,
    encode_mouse,
    encode_paste,
    encode_send,
    encode_textual,
    parse_key_name,
)
from termux.modes import APP_CURSOR, APP_KEYPAD, BRACKETED_PASTE, MOUSE_CLICKS, MOUSE_DRAG, MOUSE_MOTION, MOUSE_SGR

NORMAL: frozenset[int] = frozenset()
APP = frozenset({APP_CURSOR})
KEYPAD = frozenset({APP_KEYPAD})

# (key, mods, bytes): the same in normal and in application cursor mode
SAME_IN_BOTH_MODES: list[tuple[str, int, bytes]] = [
    ("Enter", 0, b"\r"),
    ("Tab", 0, b"\t"),
    ("Tab", SHIFT, b"\x1b[Z"),
    ("BTab", 0, b"\x1b[Z"),
    ("BSpace", 0, b"\x7f"),
    ("BSpace", CTRL, b"\x08"),
    ("BSpace", ALT, b"\x1b\x7f"),
    ("Escape", 0, b"\x1b"),
    ("Space", 0, b" "),
    ("Space", CTRL, b"\x00"),
    # Modified cursor keys use CSI 1;m X in both modes.
    ("Up", SHIFT, b"\x1b[1;2A"),
    ("Up", ALT, b"\x1b[1;3A"),
    ("Up", CTRL, b"\x1b[1;5A"),
    ("Left", CTRL | SHIFT, b"\x1b[1;6D"),
    ("Right", CTRL | ALT, b"\x1b[1;7C"),
    ("Down", CTRL | ALT | SHIFT, b"\x1b[1;8B"),
    ("Home", CTRL, b"\x1b[1;5H"),
    ("End", SHIFT, b"\x1b[1;2F"),
    ("Insert", 0, b"\x1b[2~"),
    ("Delete", 0, b"\x1b[3~"),
    ("PageUp", 0, b"\x1b[5~"),
    ("PageDown", 0, b"\x1b[6~"),
    ("Delete", CTRL, b"\x1b[3;5~"),
    ("PageUp", SHIFT, b"\x1b[5;2~"),
    ("F1", 0, b"\x1bOP"),
    ("F2", 0, b"\x1bOQ"),
    ("F3", 0, b"\x1bOR"),
    ("F4", 0, b"\x1bOS"),
    ("F5", 0, b"\x1b[15~"),
    ("F6", 0, b"\x1b[17~"),
    ("F7", 0, b"\x1b[18~"),
    ("F8", 0, b"\x1b[19~"),
    ("F9", 0, b"\x1b[20~"),
    ("F10", 0, b"\x1b[21~"),
    ("F11", 0, b"\x1b[23~"),
    ("F12", 0, b"\x1b[24~"),
    ("F1", SHIFT, b"\x1b[1;2P"),
    ("F4", CTRL, b"\x1b[1;5S"),
    ("F5", CTRL, b"\x1b[15;5~"),
    ("F12", ALT | SHIFT, b"\x1b[24;4~"),
    ("a", 0, b"a"),
    ("a", SHIFT, b"A"),
    ("a", ALT, b"\x1ba"),
    ("\u00e9", 0, "\u00e9".encode()),
    ("\u4e2d", ALT, b"\x1b" + "\u4e2d".encode()),
    ("\\", CTRL, b"\x1c"),
    ("]", CTRL, b"\x1d"),
    ("^", CTRL, b"\x1e"),
    ("_", CTRL, b"\x1f"),
    ("@", CTRL, b"\x00"),
    ("[", CTRL, b"\x1b"),
    ("?", CTRL, b"\x7f"),
    ("c", CTRL | ALT, b"\x1b\x03"),
]
# every ctrl+letter, lower and upper case
SAME_IN_BOTH_MODES += [(ch, CTRL, bytes([i + 1])) for i, ch in enumerate("abcdefghijklmnopqrstuvwxyz")]
SAME_IN_BOTH_MODES += [(ch, CTRL, bytes([i + 1])) for i, ch in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")]
# the unmodified cursor keys: (key, bytes in normal cursor mode, bytes in application cursor mode)
CURSOR_KEYS: list[tuple[str, bytes, bytes]] = [
    ("Up", b"\x1b[A", b"\x1bOA"),
    ("Down", b"\x1b[B", b"\x1bOB"),
    ("Right", b"\x1b[C", b"\x1bOC"),
    ("Left", b"\x1b[D", b"\x1bOD"),
    ("Home", b"\x1b[H", b"\x1bOH"),
    ("End", b"\x1b[F", b"\x1bOF"),
]
# (key, mods, bytes in normal cursor mode, bytes in application cursor mode)
MATRIX = [(key, mods, sent, sent) for key, mods, sent in SAME_IN_BOTH_MODES]
MATRIX += [(key, 0, normal, app) for key, normal, app in CURSOR_KEYS]


@pytest.mark.parametrize(("key", "mods", "normal", "app"), MATRIX)
def test_key_matrix(key: str, mods: int, normal: bytes, app: bytes) -> None:
    assert encode_key(key, mods, NORMAL) == normal
    assert encode_key(key, mods, APP) == app


def test_ctrl_keys_that_terminals_and_textual_like_to_eat() -> None:
    assert encode_send(["C-c", "C-q", "C-s", "C-z", "C-\\"], mode=NORMAL) == b"\x03\x11\x13\x1a\x1c"


@pytest.mark.parametrize(
    ("key", "normal", "app"),
    [(f"KP{d}", str(d).encode(), b"\x1bO" + "pqrstuvwxy"[d].encode()) for d in range(10)]
    + [
        ("KPEnter", b"\r", b"\x1bOM"),
        ("KP+", b"+", b"\x1bOk"),
        ("KP-", b"-", b"\x1bOm"),
        ("KP*", b"*", b"\x1bOj"),
        ("KP/", b"/", b"\x1bOo"),
        ("KP.", b".", b"\x1bOn"),
    ],
)
def test_keypad(key: str, normal: bytes, app: bytes) -> None:
    assert encode_send([key], mode=NORMAL) == normal
    assert encode_send([key], mode=KEYPAD) == app
    # the keypad mode is independent of the cursor mode
    assert encode_send([key], mode=APP) == normal


@pytest.mark.parametrize(
    ("name", "parsed"),
    [
        ("Enter", ("Enter", 0)),
        ("enter", ("Enter", 0)),
        ("BSpace", ("BSpace", 0)),
        ("C-c", ("c", CTRL)),
        ("^C", ("C", CTRL)),
        ("M-x", ("x", ALT)),
        ("C-M-Up", ("Up", CTRL | ALT)),
        ("S-Up", ("Up", SHIFT)),
        ("C-Left", ("Left", CTRL)),
        ("PPage", ("PageUp", 0)),
        ("NPage", ("PageDown", 0)),
        ("PgUp", ("PageUp", 0)),
        ("DC", ("Delete", 0)),
        ("IC", ("Insert", 0)),
        ("F12", ("F12", 0)),
        ("Space", ("Space", 0)),
        ("x", ("x", 0)),
        ("hello", None),
        ("C-hello", None),
        ("", None),
    ],
)
def test_parse_key_name(name: str, parsed: tuple[str, int] | None) -> None:
    assert parse_key_name(name) == parsed


def test_send_keys_mixes_keys_and_text_per_mode() -> None:
    args = ["echo hi", "Enter", "Up", "C-c"]
    assert encode_send(args, mode=NORMAL) == b"echo hi\r\x1b[A\x03"
    assert encode_send(args, mode=APP) == b"echo hi\r\x1bOA\x03"
    # literal: every arg typed as it is
    assert encode_send(args, literal=True, mode=APP) == b"echo hiEnterUpC-c"
    assert encode_send(["ünï", "C-hello"], mode=NORMAL) == "ünïC-hello".encode()


@pytest.mark.parametrize("bracketed", [False, True])
def test_paste(bracketed: bool) -> None:
    mode = frozenset({BRACKETED_PASTE}) if bracketed else NORMAL
    text = "ls\x1b[201~\nrm -rf /\x1b[A\u009b2J\r\ndone é"
    out = encode_paste(text, mode)
    inner = b"ls[201~\rrm -rf /[A2J\rdone " + "é".encode()
    if bracketed:
        assert out == b"\x1b[200~" + inner + b"\x1b[201~"
        # exactly one end marker: the text cannot close the paste early
        assert out.count(b"\x1b") == 2
    else:
        assert out == inner
        assert b"\x1b" not in out


# Textual key events (key, character) → bytes, the same in normal and in application cursor mode.
TEXTUAL_SAME_IN_BOTH_MODES: list[tuple[str, str | None, bytes]] = [
    ("a", "a", b"a"),
    ("A", "A", b"A"),
    ("euro_sign", "€", "€".encode()),
    ("exclamation_mark", "!", b"!"),
    ("space", " ", b" "),
    ("enter", "\r", b"\r"),
    ("tab", "\t", b"\t"),
    ("shift+tab", None, b"\x1b[Z"),
    ("backspace", "\x7f", b"\x7f"),
    ("backspace", "\x08", b"\x08"),  # ctrl+h from a terminal that sends BS
    ("escape", "\x1b", b"\x1b"),
    ("ctrl+c", "\x03", b"\x03"),
    ("ctrl+q", "\x11", b"\x11"),
    ("ctrl+s", "\x13", b"\x13"),
    ("ctrl+z", "\x1a", b"\x1a"),
    ("ctrl+backslash", "\x1c", b"\x1c"),
    ("ctrl+p", None, b"\x10"),  # kitty protocol: no character
    ("ctrl+shift+a", None, b"\x01"),
    ("ctrl+@", "\x00", b"\x00"),
    ("alt+x", "x", b"\x1bx"),
    ("alt+shift+x", "X", b"\x1bX"),
    ("alt+backspace", None, b"\x1b\x7f"),
    ("ctrl+up", None, b"\x1b[1;5A"),
    ("shift+left", None, b"\x1b[1;2D"),
    ("ctrl+shift+right", None, b"\x1b[1;6C"),
    ("pageup", None, b"\x1b[5~"),
    ("pagedown", None, b"\x1b[6~"),
    ("insert", None, b"\x1b[2~"),
    ("delete", None, b"\x1b[3~"),
    ("f1", None, b"\x1bOP"),
    ("f5", None, b"\x1b[15~"),
    ("f12", None, b"\x1b[24~"),
    ("f13", None, b"\x1b[1;2P"),  # Textual's name for xterm shift+F1
    ("ctrl+f5", None, b"\x1b[15;5~"),
    # kitty protocol: a modifier pressed alone is reported as a key; it sends nothing
    ("left_shift", None, b""),
    ("caps_lock", None, b""),
]
# Textual's unmodified cursor keys (no character): named as tmux's, in lower case.
TEXTUAL_CURSOR_KEYS = [(key.lower(), normal, app) for key, normal, app in CURSOR_KEYS]
TEXTUAL = [(key, character, sent, sent) for key, character, sent in TEXTUAL_SAME_IN_BOTH_MODES]
TEXTUAL += [(key, None, normal, app) for key, normal, app in TEXTUAL_CURSOR_KEYS]


@pytest.mark.parametrize(("key", "character", "normal", "app"), TEXTUAL)
def test_textual_keys(key: str, character: str | None, normal: bytes, app: bytes) -> None:
    assert encode_textual(key, character, NORMAL) == normal
    assert encode_textual(key, character, APP) == app


def test_mouse_encoding() -> None:
    assert encode_mouse("press", 1, 0, 0, mode=NORMAL) == b""
    x10 = frozenset({MOUSE_CLICKS})
    assert encode_mouse("press", 1, 4, 2, mode=x10) == b"\x1b[M" + bytes([32, 37, 35])
    assert encode_mouse("release", 1, 4, 2, mode=x10) == b"\x1b[M" + bytes([35, 37, 35])
    assert encode_mouse("move", 1, 4, 2, mode=x10) == b""
    sgr = frozenset({MOUSE_CLICKS, MOUSE_SGR})
    assert encode_mouse("press", 3, 4, 2, mods=CTRL, mode=sgr) == b"\x1b[<18;5;3M"
    assert encode_mouse("release", 3, 4, 2, mode=sgr) == b"\x1b[<2;5;3m"
    assert encode_mouse("wheel", 4, 0, 0, mode=sgr) == b"\x1b[<64;1;1M"
    assert encode_mouse("wheel", 5, 0, 0, mode=sgr) == b"\x1b[<65;1;1M"
    drag = frozenset({MOUSE_DRAG, MOUSE_SGR})
    assert encode_mouse("move", 1, 1, 1, mode=drag) == b"\x1b[<32;2;2M"
    assert encode_mouse("move", 0, 1, 1, mode=drag) == b""
    anymove = frozenset({MOUSE_MOTION, MOUSE_SGR})
    assert encode_mouse("move", 0, 1, 1, mode=anymove) == b"\x1b[<35;2;2M"
    # beyond the X10 range nothing is sent rather than a wrong position
    assert encode_mouse("press", 1, 300, 1, mode=x10) == b""
