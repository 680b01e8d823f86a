"""The clipboard escape, OSC 52 (`ESC ] 52 ; SELECTION ; BASE64 BEL`), both ways. No I/O.

A program inside a session sets the clipboard with it: the emulator reads it (`parse_osc52`) and
the server, when its `set_clipboard` policy allows, stores the text as a paste buffer and passes it
to the views showing the session, which write it to their outer terminal (`osc52`). A copy made in
the TUI's copy mode goes to the outer terminal the same way, so it reaches the clipboard of the
machine the person sits at, over SSH too.

`set_clipboard` is tmux's option, with its meanings and default (docs/protocol.md, "Clipboard"):
"on" (a program's OSC 52 becomes a buffer and reaches the outer terminal; copies do too),
"external" (copies reach the outer terminal; a program's OSC 52 is ignored), "off" (neither).

Bounds: a program's payload is at most what one escape string holds (the emulator keeps
MAX_STRING characters of it); a longer one is dropped whole, never stored cut. A copy larger than
MAX_OUTER_BYTES goes to the paste buffer only: terminals refuse or choke on huge OSC 52 strings.
"""

from __future__ import annotations

import base64
import binascii
from typing import Literal, NamedTuple

SetClipboard = Literal["on", "external", "off"]
SET_CLIPBOARD_POLICIES: tuple[SetClipboard, ...] = ("on", "external", "off")
DEFAULT_SET_CLIPBOARD: SetClipboard = "external"  # tmux's default

# Where OSC 52 puts the text: the clipboard, primary, secondary, select, cut buffers 0-7 (xterm).
SELECTIONS = frozenset("cpqs01234567")
DEFAULT_SELECTION = "c"
MAX_OUTER_BYTES = 1 << 20  # the largest copy written to the outer terminal (decoded bytes)


class ClipboardSet(NamedTuple):
    """A program asked for `data` to be put on the clipboard (`selection`: xterm's letters)."""

    selection: str
    data: bytes


def parse_osc52(param: str) -> ClipboardSet | None:
    """The request in an OSC 52's parameter (what follows `52;`), or None for what termux does
    not act on: a query (`?`: programs are not let read the clipboard), an empty payload, bad
    base64, or a selection naming no selection."""
    selection, sep, payload = param.partition(";")
    if not sep or payload == "?" or not payload:
        return None
    selection = "".join(dict.fromkeys(selection))  # each letter once, in order
    if not selection:
        selection = DEFAULT_SELECTION
    elif not set(selection) <= SELECTIONS:
        return None
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return None
    return ClipboardSet(selection, data) if data else None


def osc52(data: bytes, selection: str = DEFAULT_SELECTION) -> str:
    """The escape that sets the outer terminal's clipboard to `data` (BEL-terminated, as tmux and
    most programs write it, which every terminal that supports OSC 52 takes)."""
    return f"\x1b]52;{selection};{base64.b64encode(data).decode('ascii')}\x07"
