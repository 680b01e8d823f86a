"""Textual's Linux driver, changed where a multiplexer needs it.

1. A lone Escape. Textual's XTermParser waits `textual.constants.ESCAPE_DELAY` (100 ms, from
   `ESCDELAY`, read once at import) after an ESC for the rest of a sequence, and the stock input
   thread only notices that deadline when its `select(0.1)` poll comes back, so a lone ESC reaches
   the app 100–200 ms late. Here each parser waits the configured delay (short: terminals write a
   whole sequence at once), on one loop timer armed only while an escape sequence is pending.
2. No polling, no input thread. The stock input thread wakes ten times a second while idle, and
   each key crosses from it to the loop (a thread wake-up and a scheduler turn per key, the more
   when the CPUs are taken). Here the terminal is read on the event loop itself (`add_reader`):
   the bytes are parsed and a key is routed in the same callback that read it, and nothing runs
   while no byte comes. Textual's own input thread is started by its driver and returns at once.
3. Lossy key names. Textual reads ESC DEL (alt+backspace) as ctrl+w; the parser is told otherwise.
4. Input first. Keys and pastes are handed to the app's `input_hook` in the callback that read
   them, ahead of Textual's message queue, so a keystroke waits at most for the slice of work
   that is running when it arrives (see termux/tui/app.py); other input (mouse, focus, resize
   replies) goes through Textual's queue as it does in the stock driver. Printable ASCII typed
   while the parser is between sequences (what typing is, mostly) is offered to the app's
   `text_hook` as the bytes first: it takes them when they mean themselves (no prefix, no copy
   mode, a session to send them to), and only otherwise are they parsed into keys.
5. Every way out restores the terminal. SIGTERM, SIGHUP, SIGINT and SIGQUIT end the app the
   normal way (the stock driver leaves the alternate screen, raw mode and mouse reporting on when
   a signal kills the process), and so does the terminal going away (end of input). Once writing
   to the terminal fails (it hung up), output is dropped rather than raised.
6. One write per frame, in synchronized output. Each write (Textual writes a frame at once) goes
   out as one piece between `CSI ? 2026 h` and `CSI ? 2026 l`, so a terminal that supports
   synchronized updates shows whole frames only, even when the kernel hands a large frame over
   in several reads (a terminal that does not ignores the mode). Textual's own markers, sent only
   when the terminal answers its query, are dropped: every write is bracketed here, but a lone
   escape sequence (a mode set, a query), which draws nothing. The modes Textual sets as the
   application mode starts, one write each, are held and go out in one write with the first
   paint (9.).
7. Frames are written on the loop's thread. Textual hands each frame to an output thread; when the
   machine's CPUs are taken, waking that thread costs a scheduler turn per frame, which the
   keystroke latency with busy loops beside it shows (`python -m e2e.test_latency --floods 16
   --programs spin`; figures in benchmarks/README.md). A terminal that stops reading stalls the TUI
   either way: Textual's queue holds 30 frames, then blocks the loop too.

8. Stylesheets parsed once a process. Textual parses every CSS source again for each app (each
   Stylesheet keeps its own parse cache, and `reparse()` makes a new Stylesheet, several times
   while an app starts), which is a good part of a TUI host's child's attach. The app's
   `SharedStylesheet` keeps the rules parsed from a source for the whole process, keyed as
   Textual keys its own cache plus the variables they were parsed with (Textual treats parsed
   rules as read-only: its own cache hands the same ones out again), so the host's children
   reuse what the first TUI parsed.

9. The first paint. As the application mode starts, the app may already hold the attach reply
   (`TermuxApp.first_paint`): the focused session's screen is written then, where its pane will
   be, before Textual has made its widgets; Textual's first frame draws the same lines and the
   rest of the screen around them.

This is the one module that uses Textual's private names (the parser, its deadline, the driver's
app, the input thread it starts): `textual_changes()` says which of them a Textual release
changed, and the tests run it, so an upgrade that moves one fails loudly, naming it, instead of
silently bringing the 100 ms Escape, a 10 Hz poll or a second reader of the terminal back.
Everything else in termux uses Textual's public API (a test checks it).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import signal
import sys
import time
from codecs import getincrementaldecoder
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from textual import events
from textual._parser import Read1
from textual._xterm_parser import XTermParser
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from termux.trace import TRACE

ESCAPE_DELAY = 0.005  # seconds an ESC waits for the rest of a sequence
# Printable ASCII only (space to tilde): bytes that are keys of their own, each itself.
_PRINTABLE = re.compile(rb"[\x20-\x7e]+").fullmatch
MIN_ESCAPE_DELAY = 0.0005  # a delay of 0 still lets the rest of a sequence written at once arrive
# Synchronized output (DEC mode 2026): a terminal that supports it shows what is between these whole.
SYNC_START = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"
# Signals that end the TUI, and why it says it ended (tmux's words).
ENDING_SIGNALS = {
    signal.SIGTERM: "terminated",
    signal.SIGINT: "terminated",
    signal.SIGQUIT: "terminated",
    signal.SIGHUP: "lost tty",
}


class TermuxParser(XTermParser):
    """Textual's parser with the key names a multiplexer must not lose, and its own Escape delay."""

    def __init__(self, debug: bool = False, escape_delay: float = ESCAPE_DELAY) -> None:
        self.escape_delay = escape_delay  # before the parser starts: its first read asks for it
        super().__init__(debug)

    def read1(self, timeout: float | None = None) -> Read1:  # type: ignore[override]
        """The parser's one timed read is the wait for the rest of a sequence after an ESC: it
        waits this parser's delay, not Textual's process-wide constant."""
        return Read1(None if timeout is None else self.escape_delay)

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if sequence == "\x1b\x7f":
            return [events.Key("alt+backspace", None)]
        return super()._sequence_to_key_events(sequence, alt)

    def next_timeout(self) -> float | None:
        """The parser's pending deadline (a time.monotonic reading), or None."""
        deadline: float | None = getattr(self, "_timeout_time", None)
        return deadline


class TermuxDriver(LinuxDriver):
    """LinuxDriver that reads the terminal on the event loop, with a short ESC delay and the
    input fast path."""

    #: Called on the event loop with each Key/Paste; returns nothing: the app's `input_from_driver`.
    input_hook: Callable[[Message], None] | None = None
    #: Offered printable ASCII as read (the parser between sequences); True when it took the
    #: bytes, else they are parsed into keys: the app's `input_text`.
    text_hook: Callable[[bytes], bool] | None = None

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        delay_ms = getattr(getattr(app, "config", None), "escape_delay_ms", None)
        self.escape_delay = max(ESCAPE_DELAY if delay_ms is None else delay_ms / 1000, MIN_ESCAPE_DELAY)
        self._stopping = False
        self._hung_up = False
        self._held: list[str] | None = None  # writes held while the application mode starts
        self._event_loop: asyncio.AbstractEventLoop | None = None
        self._parser: TermuxParser | None = None
        self._decoder = getincrementaldecoder("utf-8")(errors="replace")
        self._reading = False
        self._between = True  # the parser is between sequences (a key came out of the last byte fed)
        self.fast_reads = 0  # reads taken by the text hook as they were (tests count them)
        #: The timer that delivers a pending escape sequence's keys at its deadline (None: none pending).
        self.escape_timer: asyncio.TimerHandle | None = None
        # The delays the escape timer was armed with, recent first; tests read it.
        self.escape_waits: deque[float] = deque(maxlen=64)

    def start_application_mode(self) -> None:
        if TRACE.on:
            TRACE.mark("driver.start")
        self._event_loop = loop = asyncio.get_running_loop()
        self.input_hook = getattr(self._app, "input_from_driver", None)
        self.text_hook = getattr(self._app, "input_text", None)
        if hasattr(self._app, "write_to_terminal"):  # escapes of the app's own (OSC 52) go out here
            self._app.write_to_terminal = self.write
        self._stopping = False
        for sig in ENDING_SIGNALS:  # removed when the loop closes
            loop.add_signal_handler(sig, self._end, sig)
        # Textual's start writes each mode it sets on its own: held, they go out in one write
        # with the first paint.
        self._held = []
        try:
            super().start_application_mode()
            self._first_paint()
        finally:
            held, self._held = self._held, None
            if held:
                self.write("".join(held))
        self.start_reading(loop)

    def start_reading(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read the terminal (`fileno`) on `loop` from now on (in the context of the caller: Textual
        finds the active app through context variables, and the reader runs in a copy of it)."""
        self._event_loop = loop
        self._parser = TermuxParser(self._debug, self.escape_delay)
        self._decoder = getincrementaldecoder("utf-8")(errors="replace")
        self._between = True
        loop.add_reader(self.fileno, self._on_readable)
        self._reading = True

    def stop_reading(self) -> None:
        """Stop reading the terminal; whatever a pending escape sequence held is dropped."""
        if self._reading and self._event_loop is not None:
            self._reading = False
            try:
                self._event_loop.remove_reader(self.fileno)
            except (OSError, ValueError, RuntimeError):  # the descriptor or the loop is closed already
                pass
        if self.escape_timer is not None:
            self.escape_timer.cancel()
            self.escape_timer = None
        parser, self._parser = self._parser, None
        if parser is not None:
            try:
                for _ in parser.feed(""):
                    pass
            except Exception:
                pass

    def _first_paint(self) -> None:
        """What the app can draw before Textual's first frame (`TermuxApp.first_paint`: the
        focused session's screen), written as soon as the terminal is in the TUI's modes."""
        paint = getattr(self._app, "first_paint", None)
        if paint is None or self._stopping:
            return
        try:
            size = os.get_terminal_size(self.fileno)
        except OSError:
            return
        text = paint(size.columns, size.lines)
        if text:
            self.write(text)

    def _end(self, sig: signal.Signals) -> None:
        """An ending signal, on the loop: leave the way a detach does, restoring the terminal. A
        second one has the default effect (the app may be stuck)."""
        loop = self._event_loop
        if loop is not None:
            loop.remove_signal_handler(sig)
        self._app.exit(f"{ENDING_SIGNALS[sig]} ({sig.name})")

    def disable_input(self) -> None:
        self._stopping = True
        self.stop_reading()
        super().disable_input()

    def run_input_thread(self) -> None:
        """Textual's input thread (LinuxDriver starts it): nothing to do, the loop reads."""

    def _on_readable(self) -> None:
        """The terminal has bytes (on the loop): parse them and hand each key on at once."""
        try:
            data = os.read(self.fileno, 4096)
        except BlockingIOError:
            return
        except OSError:  # EIO: the terminal hung up
            data = b""
        if TRACE.on:
            TRACE.stamp("tui.read")
        parser = self._parser
        if not data or parser is None:
            self.stop_reading()
            if not self._stopping:  # end of input: the terminal is gone; leave
                self._stopping = True
                self._app.exit("lost tty")
            return
        hook = self.text_hook
        if self._between and hook is not None and _PRINTABLE(data) and hook(data):
            self.fast_reads += 1  # (the decoder holds nothing: the last byte fed ended a key)
            return
        text = self._decoder.decode(data)
        if text:
            if len(text) > 1:  # (feeding "" would be the end of input)
                for message in parser.feed(text[:-1]):
                    self.process_message(message)
            # Between sequences again only if the last character made a key (a character inside
            # a sequence or a paste makes none) and no ESC waits for the rest of one.
            last = list(parser.feed(text[-1]))
            for message in last:
                self.process_message(message)
            self._between = bool(last) and parser.next_timeout() is None
        else:
            self._between = False  # a character cut by the read: the decoder holds its start
        if self.escape_timer is not None or parser.next_timeout() is not None:
            self._arm_escape_timer()

    def _arm_escape_timer(self) -> None:
        """The one timer of the input: due at the pending escape sequence's deadline, if any."""
        if self.escape_timer is not None:
            self.escape_timer.cancel()
            self.escape_timer = None
        parser, loop = self._parser, self._event_loop
        deadline = parser.next_timeout() if parser is not None else None
        if deadline is not None and loop is not None:
            delay = max(0.0, deadline - time.monotonic())
            self.escape_waits.append(delay)
            self.escape_timer = loop.call_later(delay, self._escape_due)

    def _escape_due(self) -> None:
        self.escape_timer = None
        if (parser := self._parser) is None:
            return
        delivered = list(parser.tick())
        for message in delivered:
            self.process_message(message)
        if parser.next_timeout() is not None:
            self._arm_escape_timer()
        elif delivered:
            self._between = True  # the lone ESC (or what a sequence's start made) came out

    def write(self, data: str) -> None:
        out = sys.__stderr__  # where Textual writes (textual_changes checks it)
        if out is None or self._hung_up:  # no terminal to draw on (sys.__stderr__ is None)
            return
        if data in (SYNC_START, SYNC_END):
            return  # Textual's own brackets: every write is bracketed below
        if self._held is not None:
            self._held.append(data)
            return
        if TRACE.on:
            TRACE.stamp("tui.composed")
        try:
            # A lone escape sequence (a mode Textual sets) draws nothing: no bracket.
            out.write(data if _lone_sequence(data) else f"{SYNC_START}{data}{SYNC_END}")
            out.flush()
        except OSError:  # EIO: it hung up; whatever the app still draws goes nowhere
            self._hung_up = True
        if TRACE.on:
            TRACE.stamp("tui.written")
            TRACE.mark(f"driver.wrote {len(data)}")

    def process_message(self, message: Message) -> None:
        hook = self.input_hook
        if hook is not None and isinstance(message, (events.Key, events.Paste)):
            message.set_sender(self._app)
            hook(message)  # on the loop already, in the app's context (start_reading)
            return
        super().process_message(message)


def _lone_sequence(data: str) -> bool:
    """`data` is one short escape sequence and nothing else (a mode set or a query)."""
    return len(data) <= LONE_SEQUENCE and data.startswith("\x1b") and "\x1b" not in data[1:]


LONE_SEQUENCE = 32  # characters: Textual's mode sets and queries are shorter

# Parsed stylesheet sources kept for the process (`SharedStylesheet`): a few per widget class and
# theme. Past the bound the cache starts again empty (a process that keeps changing themes reparses).
MAX_SHARED_CSS = 1024
_shared_css: dict[tuple[Any, ...], list[RuleSet]] = {}


class SharedStylesheet(Stylesheet):
    """Textual's Stylesheet whose parsed rules are the process's (8.); its re-parses and copies
    are SharedStylesheets too (Textual's make plain ones)."""

    def _parse_rules(
        self,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(self._variables.items()))
        rules = _shared_css.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            if len(_shared_css) >= MAX_SHARED_CSS:
                _shared_css.clear()
            _shared_css[key] = rules
        return rules

    def copy(self) -> Stylesheet:
        stylesheet = SharedStylesheet(variables=self._variables.copy())
        stylesheet.source = self.source.copy()
        return stylesheet

    def reparse(self) -> None:
        """Textual's `Stylesheet.reparse`, in a fresh SharedStylesheet."""
        stylesheet = SharedStylesheet(variables=self._variables)
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            stylesheet.add_source(
                css, read_from=read_from, is_default_css=is_defaults, tie_breaker=tie_breaker, scope=scope
            )
        try:
            stylesheet.parse()
        except Exception:
            self._invalid_css.update(stylesheet._invalid_css)
            raise
        self._rules = stylesheet.rules
        self._rules_map = None
        self.source = stylesheet.source
        self._require_parse = False


def shared_stylesheet(stylesheet: Stylesheet) -> SharedStylesheet:
    """A new app's stylesheet (nothing added to it yet) as a SharedStylesheet."""
    return SharedStylesheet(variables=stylesheet._variables)


def textual_changes() -> list[str]:
    """Which of the Textual internals this module relies on a Textual release changed, each said
    in a sentence (empty: none). The tests call it (tests/tui/test_driver.py)."""
    import textual._ansi_sequences
    import textual._time
    from textual.driver import Driver

    changed = []
    parser = TermuxParser(escape_delay=0.25)
    if not hasattr(parser, "_timeout_time"):
        changed.append("textual._parser.Parser keeps its deadline elsewhere than _timeout_time (next_timeout)")
    else:
        before = time.monotonic()
        list(parser.feed("\x1b"))
        deadline = parser.next_timeout()
        if deadline is None or not before + 0.2 <= deadline <= time.monotonic() + 0.25:
            changed.append("XTermParser no longer waits after an ESC through self.read1(timeout) (TermuxParser.read1)")
        if [k.key for k in parser.tick() if isinstance(k, events.Key)] != []:
            changed.append("Parser.tick fires before the deadline")
    if textual._time.get_time is not time.monotonic:
        changed.append("textual._time.get_time is no longer time.monotonic (the parser's deadlines)")
    if not callable(getattr(XTermParser, "_sequence_to_key_events", None)):
        changed.append("XTermParser._sequence_to_key_events is gone (TermuxParser's alt+backspace)")
    if "self._file = sys.__stderr__" not in inspect.getsource(LinuxDriver.__init__):
        changed.append("LinuxDriver no longer writes to sys.__stderr__ (TermuxDriver.write)")
    if "Thread(target=self._run_input_thread" not in inspect.getsource(LinuxDriver.start_application_mode):
        changed.append("LinuxDriver no longer starts its input thread on _run_input_thread (TermuxDriver reads)")
    if "self.run_input_thread()" not in inspect.getsource(LinuxDriver._run_input_thread):
        changed.append("LinuxDriver's input thread no longer runs run_input_thread (it would read the terminal too)")
    if "self.fileno = sys.__stdin__.fileno()" not in inspect.getsource(LinuxDriver.__init__):
        changed.append("LinuxDriver reads another descriptor than fileno (TermuxDriver.start_reading)")
    if 'self.write("\\x1b[?1049h")' not in inspect.getsource(LinuxDriver.start_application_mode):
        changed.append("LinuxDriver.start_application_mode no longer writes its modes through self.write (held)")
    init = inspect.getsource(Driver.__init__)
    if "self._app = app" not in init or "self._debug = debug" not in init:
        changed.append("Driver no longer keeps its app in _app and debug in _debug")
    if (textual._ansi_sequences.SYNC_START, textual._ansi_sequences.SYNC_END) != (SYNC_START, SYNC_END):
        changed.append("Textual's synchronized-output markers changed (TermuxDriver.write drops Textual's own)")
    if list(inspect.signature(Stylesheet._parse_rules).parameters) != [
        "self", "css", "read_from", "is_default_rules", "tie_breaker", "scope",
    ]:  # fmt: skip
        changed.append("Stylesheet._parse_rules takes other arguments (SharedStylesheet)")
    if "self._variables = variables" not in inspect.getsource(Stylesheet.set_variables):
        changed.append("Stylesheet keeps its variables elsewhere than _variables (SharedStylesheet's key)")
    reparse = inspect.getsource(Stylesheet.reparse)
    kept = ("self._rules = stylesheet.rules", "self._rules_map = None", "self.source = stylesheet.source")
    if "stylesheet = Stylesheet(variables=self._variables)" not in reparse or not all(k in reparse for k in kept):
        changed.append("Stylesheet.reparse changed (SharedStylesheet.reparse is a copy of it)")
    return changed
