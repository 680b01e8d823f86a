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
MAX_NICE = 19

MAX_WAIT_SECONDS = 30 * 86_400.0  # the longest wait in seconds: session.wait, `termux events --timeout`
MAX_LONG_POLL_MS = 3_600_000  # the longest events.read long poll (`wait_ms`); the client asks again after it
