"""The server's defaults and the bounds the command line shares with it, in one place.

Plain numbers, no imports: the one-shot CLI reads them (for `termux server`'s options and their
help) without loading the server or msgspec, and the server and the protocol's argument types
use the same names.
"""

from __future__ import annotations

HISTORY = 10_000  # scrollback lines per session (`termux server --history`, session.new's `history`)
MAX_HISTORY = 1_000_000  # the most scrollback lines anyone may ask for
EVENT_CAPACITY = 10_000  # events the log keeps (`--event-capacity`)
MAX_STREAMS = 256  # concurrent events.stream subscribers (`--max-streams`)
QUIET_AFTER = 5.0  # seconds without output before a session.quiet event (`--quiet-after`)
BACKGROUND_NICE = 10  # CPU priority of sessions no view shows while a view is attached (0: off)
BACKGROUND_IDLE = True  # and their processes under SCHED_IDLE meanwhile (where the server may undo it)
MAX_NICE = 19
# The nice of the server's and a TUI's own scheduling group, where they may have it (0: left alone).
OWN_NICE = -10
MIN_OWN_NICE = -20
# The longest wait anyone may ask for is termux/protocol/event_types.py's MAX_WAIT_SECONDS.
