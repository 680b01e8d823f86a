"""Terminal modes as a screen's `mode` set holds them, under one set of names for the emulator,
the key encoders and the TUI.

The encoding is pyte's: ANSI mode N is kept as N, DEC private mode N as N << 5 (`private(N)`).
No dependencies: the CLI's key encoding imports this without loading the emulator.
"""

from __future__ import annotations


def private(mode: int) -> int:
    """DEC private mode `mode` (CSI ? mode h) as the mode set holds it."""
    return mode << 5


APP_CURSOR = private(1)  # DECCKM: cursor keys send ESC O A … instead of ESC [ A …
COLUMNS_132 = private(3)  # DECCOLM: termux clears and homes but never resizes (xterm's default)
REVERSE_SCREEN = private(5)  # DECSCNM
ORIGIN = private(6)  # DECOM
AUTOWRAP = private(7)  # DECAWM
CURSOR_VISIBLE = private(25)  # DECTCEM
APP_KEYPAD = private(66)  # DECNKM: also set by ESC = (DECKPAM) and cleared by ESC > (DECKPNM)
MOUSE_CLICKS = private(1000)  # report presses and releases
MOUSE_DRAG = private(1002)  # ... and motion while a button is held
MOUSE_MOTION = private(1003)  # ... and any motion
MOUSE_SGR = private(1006)  # mouse reports as CSI < b;x;y M/m (no 223-column limit)
SAVE_CURSOR = private(1048)  # set: save the cursor as DECSC; reset: restore it
BRACKETED_PASTE = private(2004)
ALT_SCREEN_MODES = (47, 1047, 1049)  # the alternate screen, three ways (see docs/emulator.md)
ALT_SCREEN = frozenset(map(private, ALT_SCREEN_MODES))

# The modes DECRQM reports as set or reset (anything else is "not recognised") and XTSAVE saves.
REPORTED_PRIVATE = frozenset(
    (1, 3, 5, 6, 7, 9, 12, 25, 47, 66, 1000, 1002, 1003, 1004, 1005, 1006, 1007, 1047, 1049, 2004)
)
REPORTED_ANSI = frozenset((4, 20))

__all__ = [
    "ALT_SCREEN",
    "ALT_SCREEN_MODES",
    "APP_CURSOR",
    "APP_KEYPAD",
    "AUTOWRAP",
    "BRACKETED_PASTE",
    "COLUMNS_132",
    "CURSOR_VISIBLE",
    "MOUSE_CLICKS",
    "MOUSE_DRAG",
    "MOUSE_MOTION",
    "MOUSE_SGR",
    "ORIGIN",
    "REPORTED_ANSI",
    "REPORTED_PRIVATE",
    "REVERSE_SCREEN",
    "SAVE_CURSOR",
    "private",
]
