"""termux's Stream and ByteStream: pyte-compatible, but a different parser.

pyte's parser is a generator fed one character at a time, and it raises on malformed sequences
(`CSI 1;2;3 H`, `CSI ? r`, a Unicode digit in a parameter, ...). This one finds runs of text with one
regular expression and whole CSI sequences with another, dispatches through a table built once at
attach(), and never raises: every sequence is parsed into (private marker, parameters, intermediates,
final) and a table entry decides how many parameters each handler takes; anything unknown is ignored.
Sequences cut by a chunk boundary are kept (bounded) and completed by the next feed().

Also beyond pyte: OSC numbers of any length, DCS/APC/PM/SOS strings consumed, C0 controls inside a CSI
executed (as xterm), charset designation and SI/SO honoured in UTF-8 mode (xterm draws DEC line
drawing in UTF-8 too), `ESC =`/`ESC >` (application keypad, mode 66).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from typing import Any

import pyte

ESC = "\x1b"
# Everything that is drawn as text: not C0, not DEL, not C1.
_TEXT = re.compile(r"[^\x00-\x1f\x7f-\x9f]+")
# The rest of a CSI after its introducer: parameters, intermediates, final byte.
_CSI = re.compile(r"([\x30-\x3f]*)([\x20-\x2f]*)([\x40-\x7e])")
# What ends a string (OSC, DCS, APC, PM, SOS): BEL (OSC only), ST as ESC \ or C1, or an ESC that starts
# something else, or CAN/SUB (abort).
_STRING_END = re.compile(r"[\x07\x1b\x9c\x18\x1a]")

# Bounds: an unfinished string keeps at most this many characters (the rest is discarded, the string
# still ends at its terminator); an unfinished CSI keeps at most this many parameter characters.
MAX_STRING = 65536
MAX_CSI = 256
MAX_PARAMS = 32
MAX_PARAM_VALUE = 9999  # as pyte

# C0 controls: name of the screen method.
_C0 = {
    "\x07": "bell",
    "\x08": "backspace",
    "\x09": "tab",
    "\x0a": "linefeed",
    "\x0b": "linefeed",
    "\x0c": "linefeed",
    "\x0d": "carriage_return",
    "\x0e": "shift_out",
    "\x0f": "shift_in",
}

# ESC <final> (no intermediates).
_ESC = {
    "7": "save_cursor",
    "8": "restore_cursor",
    "D": "index",
    "E": "next_line",
    "H": "set_tab_stop",
    "M": "reverse_index",
    "c": "reset",
    "=": "keypad_application",
    ">": "keypad_numeric",
    "Z": "report_device_attributes",
}

# C1 controls (as decoded code points) that act like ESC + (code - 0x40).
_C1_AS_ESC = {"\x84": "D", "\x85": "E", "\x88": "H", "\x8d": "M"}
_C1_STRING = {"\x90": "P", "\x98": "X", "\x9d": "]", "\x9e": "^", "\x9f": "_"}

# CSI table: key is private marker + intermediates + final; value is (method, max positional
# params, kind). Kinds: "n" pass up to N ints; "p" the same plus private=True; "all" every param;
# "allp" every param plus private=True; "sgr" SGR with colon sub-parameters flattened; "one" only
# when there is at most one parameter; "bare" only when there are no parameters at all.
_CSI_TABLE: dict[str, tuple[str, int, str]] = {
    "@": ("insert_characters", 1, "n"),
    "A": ("cursor_up", 1, "n"),
    "B": ("cursor_down", 1, "n"),
    "C": ("cursor_forward", 1, "n"),
    "D": ("cursor_back", 1, "n"),
    "E": ("cursor_down1", 1, "n"),
    "F": ("cursor_up1", 1, "n"),
    "G": ("cursor_to_column", 1, "n"),
    "H": ("cursor_position", 2, "n"),
    "J": ("erase_in_display", 1, "n"),
    "?J": ("erase_in_display", 1, "n"),  # DECSED: no protected cells here, so plain ED
    "K": ("erase_in_line", 1, "n"),
    "?K": ("erase_in_line", 1, "n"),
    "L": ("insert_lines", 1, "n"),
    "M": ("delete_lines", 1, "n"),
    "P": ("delete_characters", 1, "n"),
    "X": ("erase_characters", 1, "n"),
    "`": ("cursor_to_column", 1, "n"),
    "a": ("cursor_forward", 1, "n"),
    "c": ("report_device_attributes", 1, "n"),
    "d": ("cursor_to_line", 1, "n"),
    "e": ("cursor_down", 1, "n"),
    "f": ("cursor_position", 2, "n"),
    "g": ("clear_tab_stop", 1, "n"),
    "h": ("set_mode", 0, "ansi"),
    "?h": ("set_mode", 0, "allp"),
    "l": ("reset_mode", 0, "ansi"),
    "?l": ("reset_mode", 0, "allp"),
    "m": ("select_graphic_rendition", 0, "sgr"),
    "n": ("report_device_status", 1, "n"),
    "?n": ("report_device_status", 1, "p"),
    "r": ("set_margins", 2, "n"),
    # Beyond pyte's table (termux Screen methods; a stock pyte screen just ignores them).
    "I": ("forward_tab", 1, "n"),
    "Z": ("back_tab", 1, "n"),
    "S": ("scroll_up", 1, "n"),
    "T": ("scroll_down", 1, "one"),  # with more parameters it is xterm's mouse highlight tracking
    "b": ("repeat_last", 1, "n"),
    ">c": ("report_secondary_device_attributes", 1, "n"),
    "=c": ("report_tertiary_device_attributes", 1, "n"),
    "s": ("save_cursor", 0, "bare"),  # SCOSC; with parameters it would be DECSLRM
    "u": ("restore_cursor", 0, "bare"),  # SCORC
    "!p": ("soft_reset", 0, "bare"),
    "$p": ("request_mode", 1, "n"),
    "?$p": ("request_mode", 1, "p"),
    "?s": ("save_modes", 0, "all"),
    "?r": ("restore_modes", 0, "all"),
    " q": ("set_cursor_style", 1, "n"),
    "?W": ("reset_tab_stops", 1, "n"),
    "t": ("window_op", 3, "n"),
}


def _int(text: str) -> int:
    """A parameter: ASCII digits only (pyte's isdigit() let '²' through and int() raised)."""
    if not text.isascii() or not text.isdigit():
        return 0
    value = int(text) if len(text) < 6 else MAX_PARAM_VALUE
    return value if value < MAX_PARAM_VALUE else MAX_PARAM_VALUE


def parse_params(text: str) -> tuple[list[int], list[list[int]]]:
    """Split "1;38:2::1:2:3" into the first value of each parameter and its colon sub-parameters."""
    params: list[int] = []
    subs: list[list[int]] = []
    for piece in text.split(";", MAX_PARAMS)[:MAX_PARAMS]:
        if ":" in piece:
            parts = [_int(p) for p in piece.split(":", MAX_PARAMS)[:MAX_PARAMS]]
            params.append(parts[0])
            subs.append(parts)
        else:
            params.append(_int(piece))
            subs.append([])
    return params, subs


def flatten_sgr(params: list[int], subs: list[list[int]]) -> list[int]:
    """Turn colon forms into their semicolon equivalents (`38:2::r:g:b` -> 38;2;r;g;b,
    `38:5:n` -> 38;5;n, `4:3` -> 4, `4:0` -> 24); `58:...` is dropped whole."""
    if not any(subs):
        return params
    out: list[int] = []
    for value, parts in zip(params, subs, strict=True):
        if not parts:
            out.append(value)
        elif value in (38, 48, 58):
            if value == 58:
                continue
            kind = parts[1] if len(parts) > 1 else 0
            if kind == 5 and len(parts) >= 3:
                out += [value, 5, parts[2]]
            elif kind == 2 and len(parts) >= 5:
                # 38:2:<colour space>:r:g:b, or 38:2:r:g:b without the colour-space slot.
                out += [value, 2, *parts[-3:]]
        elif value == 4:
            out.append(4 if (len(parts) < 2 or parts[1]) else 24)
        else:
            out.append(value)
    return out


class Stream(pyte.Stream):
    """A pyte-compatible Stream (text in) with termux's parser."""

    def __init__(self, screen: Any = None, strict: bool = True) -> None:
        self._pending = ""  # an unfinished escape sequence (bounded)
        self._string: list[str] | None = None  # body of an unfinished OSC/DCS/... string
        self._string_kind = ""
        self._string_len = 0
        self._string_esc = False  # the previous chunk ended in ESC inside a string
        self._csi_table: dict[str, tuple[Callable[..., Any], int, str]] = {}
        self._c0: dict[str, Callable[..., Any]] = {}
        super().__init__(screen, strict=strict)

    def attach(self, screen: Any) -> None:
        super().attach(screen)
        get = getattr
        noop = _noop
        self._c0 = {ch: get(screen, name, noop) for ch, name in _C0.items()}
        self._esc = {ch: get(screen, name, noop) for ch, name in _ESC.items()}
        self._csi_table = {key: (get(screen, name, noop), n, kind) for key, (name, n, kind) in _CSI_TABLE.items()}
        self._osc = getattr(screen, "handle_osc", None)
        self._draw = screen.draw

    def restart(self) -> None:
        """Forget an unfinished escape sequence or string, as a stream just made would not have
        one (for a screen made new in place: `Screen.renew`)."""
        self._pending = ""
        self._string = None
        self._string_kind = ""
        self._string_len = 0
        self._string_esc = False

    # ------------------------------------------------------------------ feeding

    def feed(self, data: str) -> None:
        if self.listener is None:
            raise RuntimeError("Listener is not set")
        if self._pending:
            data = self._pending + data
            self._pending = ""
        i = 0
        if self._string is not None:
            if self._string_esc:
                # The last chunk ended in ESC inside a string: ST, or the start of a new sequence.
                if not data:
                    return
                self._string_esc = False
                self._finish_string()
                if data[0] == "\\":
                    i = 1
                else:
                    data = ESC + data
            else:
                i = self._continue_string(data, 0)
                if i < 0:
                    return
        n = len(data)
        screen: Any = self.listener
        while i < n:
            try:
                i = self._run(data, i)
            except Exception:  # the last line of defence: skip what failed, keep the state
                screen.errors = getattr(screen, "errors", 0) + 1
                i = self._resume
                _repair(screen)

    def _run(self, data: str, i: int) -> int:
        """Parse from `i` until the end of `data`; returns len(data). `self._resume` is where to go on
        after a handler raised (the end of the piece being handled)."""
        n = len(data)
        match_text = _TEXT.match
        draw = self._draw
        c0 = self._c0
        while i < n:
            m = match_text(data, i)
            if m is not None:
                j = m.end()
                self._resume = j
                draw(data[i:j])
                i = j
                continue
            ch = data[i]
            if ch == ESC or "\x80" <= ch <= "\x9f":
                j = self._sequence(data, i)
                if j < 0:
                    return n  # incomplete: kept in self._pending or self._string
                i = j
            else:
                self._resume = i + 1
                handler = c0.get(ch)
                if handler is not None:
                    handler()
                i += 1
        return n

    def _sequence(self, data: str, i: int) -> int:
        """Handle the escape sequence or C1 control at `i`; return the index after it, or -1 when the
        data ends inside it (the unfinished part is kept for the next feed)."""
        n = len(data)
        ch = data[i]
        if ch == ESC:
            if i + 1 >= n:
                self._pending = ESC
                return -1
            c = data[i + 1]
            if c == "[":
                return self._csi(data, i + 2)
            if c in "]P_^X":
                return self._start_string(data, i + 2, c)
            if " " <= c <= "/":
                # ESC with intermediates: charset designation (ESC ( 0), DECALN (ESC # 8), ESC % G ...
                j = i + 1
                while j < n and " " <= data[j] <= "/":
                    j += 1
                if j >= n:
                    self._pending = data[i : i + 16]
                    return -1
                final = data[j]
                self._resume = j + 1
                if "0" <= final <= "~":
                    self._esc_intermediate(data[i + 1 : j], final)
                    return j + 1
                return j  # not a final: drop the sequence, handle that character normally
            if "0" <= c <= "~":
                self._resume = i + 2
                handler = self._esc.get(c)
                if handler is not None:
                    handler()
                return i + 2
            return i + 1  # ESC followed by a control or non-ASCII: the ESC is dropped
        # C1 controls (decoded code points U+0080..U+009F).
        if ch == "\x9b":
            return self._csi(data, i + 1)
        kind = _C1_STRING.get(ch)
        if kind is not None:
            return self._start_string(data, i + 1, kind)
        self._resume = i + 1
        esc = _C1_AS_ESC.get(ch)
        if esc is not None:
            handler = self._esc.get(esc)
            if handler is not None:
                handler()
        return i + 1

    # ------------------------------------------------------------------ CSI

    def _csi(self, data: str, start: int) -> int:
        m = _CSI.match(data, start)
        if m is not None:
            end = m.end()
            self._resume = end
            self._dispatch_csi(m.group(1), m.group(2), m.group(3))
            return end
        return self._csi_slow(data, start)

    def _csi_slow(self, data: str, start: int) -> int:
        """A CSI interrupted by a control character or by the end of the data."""
        n = len(data)
        params: list[str] = []
        j = start
        while j < n:
            c = data[j]
            if "\x30" <= c <= "\x3f" or "\x20" <= c <= "\x2f":
                if len(params) < MAX_CSI:
                    params.append(c)
                j += 1
            elif "\x40" <= c <= "\x7e":
                self._resume = j + 1
                body = "".join(params)
                m = re.fullmatch(r"([\x30-\x3f]*)([\x20-\x2f]*)", body)
                if m is not None:
                    self._dispatch_csi(m.group(1), m.group(2), c)
                return j + 1
            elif c in "\x18\x1a":
                return j + 1  # CAN/SUB abort the sequence
            elif c == ESC:
                return j  # ESC aborts it and starts a new sequence
            elif c < " ":
                # xterm executes C0 controls met inside a CSI.
                self._resume = j + 1
                handler = self._c0.get(c)
                if handler is not None:
                    handler()
                j += 1
            elif c == "\x7f":
                j += 1
            else:
                return j  # anything else aborts the sequence and is handled normally
        # Unfinished: keep the introducer and what was collected (not the controls already executed).
        self._pending = "\x1b[" + "".join(params)
        return -1

    def _dispatch_csi(self, param_text: str, intermediates: str, final: str) -> None:
        marker = ""
        if param_text and param_text[0] in "<=>?":
            marker = param_text[0]
            param_text = param_text[1:]
        entry = self._csi_table.get(marker + intermediates + final)
        if entry is None:
            self.listener.debug(marker + intermediates + final, param_text)  # type: ignore[union-attr]
            return
        if any(c in "<=>?" for c in param_text):
            return  # a marker anywhere but first makes the sequence invalid (ECMA-48)
        handler, count, kind = entry
        if kind == "bare":
            if not param_text:
                handler()
            return
        params, subs = parse_params(param_text)
        if kind == "n":
            handler(*params[:count])
        elif kind == "p":
            handler(*params[:count], private=True)
        elif kind == "sgr":
            flat = flatten_sgr(params, subs)
            if flat or not param_text:  # "58:..." alone flattens to nothing: not a reset
                handler(*flat)
        elif kind == "all":
            handler(*params)
        elif kind == "allp":
            handler(*params, private=True)
        elif kind == "ansi":
            # ANSI modes are < 32: larger numbers would alias pyte's shifted private modes in
            # screen.mode (CSI 32 h would look like DECCKM).
            handler(*(p for p in params if p < 32))
        elif kind == "one":
            if len(params) == 1:
                handler(*params)

    # ------------------------------------------------------------------ ESC with intermediates

    def _esc_intermediate(self, intermediates: str, final: str) -> None:
        screen = self.listener
        assert screen is not None
        if intermediates in ("(", ")") and len(final) == 1:
            # xterm: designations count in UTF-8 mode too (DEC line drawing must draw lines).
            screen.define_charset(final, mode=intermediates)
        elif intermediates == "#" and final == "8":
            screen.alignment_display()
        elif intermediates == "%":
            self.select_other_charset(final)

    # ------------------------------------------------------------------ strings (OSC, DCS, ...)

    def _start_string(self, data: str, start: int, kind: str) -> int:
        self._string = []
        self._string_kind = kind
        self._string_len = 0
        self._string_esc = False
        return self._continue_string(data, start)

    def _continue_string(self, data: str, start: int) -> int:
        """Collect string body from `start`; on its terminator dispatch it and return the index after
        it; at the end of the data return -1 (still inside the string)."""
        n = len(data)
        i = start
        while True:
            m = _STRING_END.search(data, i)
            if m is None:
                self._add_string(data[i:])
                return -1
            j = m.start()
            self._add_string(data[i:j])
            c = data[j]
            if c == "\x07":
                if self._string_kind == "]":
                    self._finish_string("\x07")
                    return j + 1
                i = j + 1  # BEL inside DCS and friends is just content (ignored)
                continue
            if c == "\x9c":
                self._finish_string()
                return j + 1
            if c in "\x18\x1a":
                self._string = None  # CAN/SUB: aborted, nothing dispatched
                return j + 1
            # ESC
            if j + 1 >= n:
                self._string_esc = True
                return -1
            if data[j + 1] == "\\":
                self._finish_string()
                return j + 2
            self._finish_string()
            return j  # the ESC starts a new sequence

    def _add_string(self, text: str) -> None:
        if not text:
            return
        body = self._string
        assert body is not None
        room = MAX_STRING - self._string_len
        if room > 0:
            body.append(text[:room])
            self._string_len += min(room, len(text))

    def _finish_string(self, terminator: str = "\x1b\\") -> None:
        body = self._string
        kind = self._string_kind
        self._string = None
        if body is None or kind != "]":
            return  # DCS, APC, PM, SOS: consumed, not acted upon
        text = "".join(body)
        self._resume_safe(lambda: self._dispatch_osc(text, terminator))

    def _resume_safe(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception:
            screen: Any = self.listener
            if screen is not None:
                screen.errors = getattr(screen, "errors", 0) + 1

    def _dispatch_osc(self, text: str, terminator: str = "\x1b\\") -> None:
        screen = self.listener
        assert screen is not None
        code, _, param = text.partition(";")
        if not code.isascii() or not code.isdigit():
            return
        number = int(code) if len(code) < 6 else -1
        if number in (0, 1):
            screen.set_icon_name(param)
        if number in (0, 2):
            screen.set_title(param)
        if number not in (0, 1, 2) and self._osc is not None:
            self._osc(number, param, terminator)


class ByteStream(Stream):
    """A pyte-compatible ByteStream (`feed(bytes)`): UTF-8 by default, ESC % @ switches to Latin-1."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.utf8_decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def restart(self) -> None:
        """As `Stream.restart`, and back to UTF-8 with no character begun."""
        super().restart()
        self.use_utf8 = True
        self.utf8_decoder.reset()

    def feed(self, data: bytes) -> None:  # type: ignore[override]
        if self.use_utf8:
            text = self.utf8_decoder.decode(data)
        else:
            text = data.decode("latin-1")
        super().feed(text)

    def select_other_charset(self, code: str) -> None:
        if code == "@":
            self.use_utf8 = False
            self.utf8_decoder.reset()
        elif code in ("G", "8"):
            self.use_utf8 = True


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


def _repair(screen: Any) -> None:
    """After a handler raised: put the cursor back inside the screen so the next byte is safe."""
    cursor = screen.cursor
    cursor.x = max(0, min(cursor.x, screen.columns))
    cursor.y = max(0, min(cursor.y, screen.lines - 1))


__all__ = ["ByteStream", "Stream", "flatten_sgr", "parse_params"]
