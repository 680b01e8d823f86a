"""Terminal state for termux: a pyte-compatible Screen (scrollback, alternate screen, title, bell,
key modes; never raises) and ByteStream, plus snapshot/capture/preview. See docs/emulator.md."""

# The reference classes (.screen, .stream) with the fast paths on top (.fast): identical results.
from .fast import ByteStream, Screen, Stream
from .history import Scrollback
from .render import (
    capture,
    capture_rows,
    capture_span,
    cursor_position,
    preview,
    render_row,
    sgr,
    snapshot,
    wrapped,
    wrapped_rows,
)
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
)

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
    "capture_rows",
    "capture_span",
    "cursor_position",
    "preview",
    "render_row",
    "sgr",
    "snapshot",
    "wrapped",
    "wrapped_rows",
]
