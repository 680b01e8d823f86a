"""Terminal state for termux: a pyte-compatible Screen (scrollback, alternate screen, title, bell,
key modes; never raises) and ByteStream, plus snapshot/capture/preview. See docs/emulator.md."""

from .history import Scrollback
from .render import capture, preview, sgr, snapshot
from .screen import (
    BRACKETED_PASTE,
    DECCKM,
    DECNKM,
    DECTCEM,
    MOUSE_ANY,
    MOUSE_BUTTON,
    MOUSE_NORMAL,
    MOUSE_SGR,
    Char,
    Ext,
    Screen,
)
from .stream import ByteStream, Stream

__all__ = [
    "BRACKETED_PASTE",
    "DECCKM",
    "DECNKM",
    "DECTCEM",
    "MOUSE_ANY",
    "MOUSE_BUTTON",
    "MOUSE_NORMAL",
    "MOUSE_SGR",
    "ByteStream",
    "Char",
    "Ext",
    "Screen",
    "Scrollback",
    "Stream",
    "capture",
    "preview",
    "sgr",
    "snapshot",
]
