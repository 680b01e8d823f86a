"""Terminal state for termux: a pyte-compatible Screen (scrollback, alternate screen, title, bell,
key modes; never raises) and ByteStream, plus snapshot/capture/preview. See docs/emulator.md."""

# The reference classes (.screen, .stream) with the fast paths on top (.fast): identical results.
from .fast import ByteStream, Screen, Stream
from .history import Scrollback
from .render import capture, capture_rows, cursor_position, preview, render_row, sgr, snapshot, wrapped
from .screen import Char, Ext

# The mode bits of `screen.mode` are named in termux.modes (shared with the key encoders).

__all__ = [
    "ByteStream",
    "Char",
    "Ext",
    "Screen",
    "Scrollback",
    "Stream",
    "capture",
    "capture_rows",
    "cursor_position",
    "preview",
    "render_row",
    "sgr",
    "snapshot",
    "wrapped",
]
