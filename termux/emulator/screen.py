"""termux's Screen: pyte 0.8.2's Screen plus scrollback, the alternate screen, title, bell and the modes
a client needs to encode keys — and it never raises, whatever bytes a program prints.

Compatibility: `buffer`, `cursor`, `mode`, `margins`, `display`, `dirty` and the constructor behave as
pyte's. Cells are `Char`, a subclass of pyte's `Char` that compares equal to pyte's; the attributes
pyte has no field for (dim, hidden, overline, hyperlink) live in an optional `ext` attribute.

Where stock pyte differs from xterm, termux follows xterm; each case is named in a comment starting
"xterm:" and covered by a test.
"""

from __future__ import annotations

import bisect
import copy
import unicodedata
from collections import defaultdict
from typing import Any, NamedTuple

import pyte
from pyte import modes as mo
from pyte.screens import Margins, Savepoint, StaticDefaultDict, wcwidth

from termux.clipboard import ClipboardSet, parse_osc52
from termux.modes import (
    ALT_SCREEN,
    ALT_SCREEN_MODES,
    APP_CURSOR,
    APP_KEYPAD,
    COLUMNS_132,
    REPORTED_ANSI,
    REPORTED_PRIVATE,
    SAVE_CURSOR,
)

from .history import Line, RunStyle, Scrollback, compact_line, intern_style
from .reflow import Row, offset_of, position_of, rewrap
from .rows import wrap_extent
from .stream import MAX_STRING


class Ext(NamedTuple):
    """Cell attributes pyte's Char has no field for."""

    dim: bool = False
    hidden: bool = False
    overline: bool = False
    link: str = ""  # OSC 8 hyperlink target, "" for none


NO_EXT = Ext()


class Char(pyte.screens.Char):
    """A pyte Char (equal to pyte's with the same fields) that may carry `ext` extras.

    `ext` is a class attribute (None) unless a cell has extras, so plain cells cost nothing more.
    """

    ext: Ext | None = None

    def _replace(self, /, **kwargs: Any) -> Char:
        if len(kwargs) == 1 and "data" in kwargs:  # a cell of these attributes: what drawing asks
            new: Char = tuple.__new__(type(self), (kwargs["data"], *self[1:]))
        else:
            new = super()._replace(**kwargs)
        ext = self.ext
        if ext is not None:
            new.ext = ext
        return new

    def with_ext(self, ext: Ext | None) -> Char:
        new = tuple.__new__(Char, self)
        if ext is not None and ext != NO_EXT:
            new.ext = ext
        return new


DEFAULT_CHAR = Char(" ")
DEFAULT_CHAR_REVERSE = Char(" ", reverse=True)

# SGR lookup tables (pyte's names, so cells stay equal to stock pyte's).
_FG = {**pyte.graphics.FG_ANSI, **pyte.graphics.FG_AIXTERM}
_BG = {**pyte.graphics.BG_ANSI, **pyte.graphics.BG_AIXTERM}
_TEXT = {k: (v[1:], v[0] == "+") for k, v in pyte.graphics.TEXT.items()}
_TEXT_INDEX = {k: (pyte.screens.Char._fields.index(name), on) for k, (name, on) in _TEXT.items()}
_PALETTE = pyte.graphics.FG_BG_256
_SGR_CACHE_LIMIT = 4096
DEFAULT_FOREGROUND = (0xFF, 0xFF, 0xFF)
DEFAULT_BACKGROUND = (0x00, 0x00, 0x00)
# DA1: "VT100 with Advanced Video Option" (bold, underline, blink, reverse), tmux's answer. xterm's
# VT420 answer (64;1;2;6;9;15;16;17;18;21;22;28) also claims 132 columns, a printer, selective erase,
# national and technical character sets, a locator, state interrogation, user windows, horizontal
# scrolling and rectangular editing, none of which termux implements.
DA1_REPLY = "\x1b[?1;2c"
# DA2 and DA3 as xterm (patch 390).
DA2_REPLY = "\x1b[>41;390;0c"
DA3_REPLY = "\x1bP!|00000000\x1b\\"
MAX_LINK = 4096
MAX_TITLE_STACK = 10
# Zero-width characters (combining marks, ZWJ, variation selectors) one cell keeps after its own
# character, counted in code points after NFC composition; further ones are dropped. xterm keeps at
# most 10 (its combiningChars maximum) and tmux's 21-byte cell about as many two-byte marks. Without a
# bound every mark re-normalised an ever longer cell: quadratic in the marks a program prints.
MAX_JOINED = 10
_LAT1 = pyte.charsets.LAT1_MAP


def _clamp8(v: int) -> int:
    return 0 if v < 0 else 255 if v > 255 else v


class Screen(pyte.Screen):
    """A pyte Screen with scrollback (`history`), the alternate screen, `title` and `bell_count`."""

    def __init__(self, columns: int, lines: int, history: int = 10000) -> None:
        self.history = Scrollback(history)
        self.bell_count = 0
        # Exceptions swallowed by the stream's last line of defence (should stay 0).
        self.errors = 0
        # While the alternate screen is shown, the main screen's buffer is parked here.
        self._main_buffer: defaultdict[int, StaticDefaultDict[int, Char]] | None = None
        # The alternate buffer survives leaving mode 47 (xterm keeps its contents).
        self._alt_buffer: defaultdict[int, StaticDefaultDict[int, Char]] | None = None
        # Cursor saved by DECSET 1049; separate from DECSC's slot so the two never clobber each other.
        self._alt_savepoint: Savepoint | None = None
        self._sgr_cache: dict[tuple[Any, ...], Char] = {}
        # The colours OSC 10/11 queries report, as (r, g, b) 0-255; set them to the client's theme.
        self.foreground_color: tuple[int, int, int] = DEFAULT_FOREGROUND
        self.background_color: tuple[int, int, int] = DEFAULT_BACKGROUND
        self.cursor_style = 0  # DECSCUSR (CSI Ps SP q), 0 = the default
        self._last_char = ""  # for REP (CSI b)
        self._saved_modes: dict[int, bool] = {}  # XTSAVE / XTRESTORE
        self._title_stack: list[tuple[str, str]] = []  # CSI 22 t / CSI 23 t
        # The latest clipboard request (OSC 52) not taken yet; its reader (the server) clears it.
        self.clipboard: ClipboardSet | None = None
        super().__init__(max(1, int(columns)), max(1, int(lines)))

    # ------------------------------------------------------------------ basics

    @property
    def default_char(self) -> Char:
        return DEFAULT_CHAR_REVERSE if mo.DECSCNM in self.mode else DEFAULT_CHAR

    @property
    def alternate(self) -> bool:
        """True while the alternate screen is shown."""
        return self._main_buffer is not None

    def _new_buffer(self) -> defaultdict[int, StaticDefaultDict[int, Char]]:
        return defaultdict(lambda: StaticDefaultDict[int, Char](self.default_char))

    def reset(self) -> None:
        """RIS: back to the main screen and power-on state. Scrollback, title history and the bell
        counter are kept (xterm keeps saved lines on RIS too)."""
        if getattr(self, "_main_buffer", None) is not None:
            self.buffer = self._main_buffer  # type: ignore[assignment]
        self._main_buffer = None
        self._alt_buffer = None
        self._alt_savepoint = None
        self.savepoints = []
        self._last_char = ""
        self._saved_modes = {}
        self.cursor_style = 0
        super().reset()
        self.cursor.attrs = self.default_char

    def renew(self) -> None:
        """The state of a Screen just made at this size, in place: RIS, and what RIS keeps (the
        scrollback, the title stack, the bell counter, an OSC 52 request not taken). A view that
        replaces a screen by a snapshot this way keeps its stream's caches warm; the stream must
        forget what it was in the middle of (`restart`)."""
        self.reset()
        self.history.reset()
        self._title_stack.clear()
        self.bell_count = 0
        self.errors = 0
        self.clipboard = None

    @property
    def display(self) -> list[str]:
        """pyte's `display`, but total: a stub without its wide character renders as a space."""
        columns = self.columns
        default = self.default_char.data
        out = []
        for y in range(self.lines):
            line = self._peek_row(y)
            if not line:
                out.append(default * columns)
                continue
            chars = []
            wide = False
            for x in range(columns):
                data = line[x].data
                if wide:
                    wide = False
                    continue
                if not data:
                    chars.append(" ")
                    continue
                chars.append(data)
                wide = wcwidth(data[0]) == 2
            out.append("".join(chars))
        return out

    def _peek_row(self, y: int) -> Any:
        """Row y for reading only (None if there is none)."""
        return self.buffer.get(y)

    def bell(self, *args: Any) -> None:
        self.bell_count += 1

    def keypad_application(self) -> None:
        """ESC = (DECKPAM): recorded as mode 66 (DECNKM, `APP_KEYPAD`), which key encoders read."""
        self.mode.add(APP_KEYPAD)

    def keypad_numeric(self) -> None:
        """ESC > (DECKPNM)."""
        self.mode.discard(APP_KEYPAD)

    def next_line(self) -> None:
        """ESC E (NEL). xterm: always a carriage return and a line feed (pyte's honours LNM only)."""
        self.carriage_return()
        self.index()

    def set_title(self, param: str) -> None:
        self.title = _printable(param)

    def set_icon_name(self, param: str) -> None:
        self.icon_name = _printable(param)

    # ------------------------------------------------------------------ scrollback

    def _scroll_into_history(self, line: Any) -> None:
        """Keep the line leaving the top of the main screen (compactly)."""
        self.history.append(compact_line(line, self.columns, self.default_char), wrap_extent(line))

    def _mark_wrapped(self, y: int, wrapped: bool = True) -> None:
        """Row y's text goes on on the next row by autowrap (soft-wrapped), or no longer does. Kept on
        the row (`row.wrapped`; rows that do not exist are not made) and carried into the scrollback."""
        row = self.buffer.get(y)
        if row is not None:
            row.wrapped = wrapped  # type: ignore[attr-defined]

    def index(self) -> None:
        top, bottom = self.margins or (0, self.lines - 1)
        # Only a full-screen scroll of the main screen feeds history (as tmux): a scroll region or
        # the alternate screen never does.
        if self.cursor.y == bottom and top == 0 and bottom == self.lines - 1 and self._main_buffer is None:
            self._scroll_into_history(self.buffer.get(0))
        super().index()

    # ------------------------------------------------------------------ modes

    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        """pyte's set_mode (private modes shifted by 5, or pyte's shifted constants passed as they
        are), plus the alternate screen, ?1048 and termux's DECCOLM."""
        self._switch_modes(modes, bool(kwargs.get("private")), True)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        self._switch_modes(modes, bool(kwargs.get("private")), False)

    def _switch_modes(self, modes: tuple[int, ...], private: bool, on: bool) -> None:
        """set_mode (`on`) or reset_mode: both ways the same but for which way each mode goes."""
        bits = _mode_bits(modes, private)
        if mo.DECSCNM in bits:
            self.dirty.update(range(self.lines))
        pyte_modes = [b for b in bits if b != COLUMNS_132]
        if on:
            super().set_mode(*pyte_modes)
        else:
            super().reset_mode(*pyte_modes)
        # xterm: DECCOLM never changes the width (a multiplexer's pane size is not the program's to
        # choose); as on a VT100 it clears the screen and homes the cursor.
        if COLUMNS_132 in bits:
            (self.mode.add if on else self.mode.discard)(COLUMNS_132)
            self.erase_in_display(2)
            self.cursor_position()
        for bit in bits:
            if bit in ALT_SCREEN:
                (self._enter_alternate if on else self._leave_alternate)(bit >> 5)
            elif bit == SAVE_CURSOR and on:  # xterm: save the cursor as DECSC does
                self.mode.discard(SAVE_CURSOR)
                self.save_cursor()
            elif bit == SAVE_CURSOR:  # and restore it as DECRC does
                self.restore_cursor()

    # ------------------------------------------------------------------ alternate screen

    def _savepoint(self) -> Savepoint:
        return Savepoint(
            copy.copy(self.cursor),
            self.g0_charset,
            self.g1_charset,
            self.charset,
            mo.DECOM in self.mode,
            mo.DECAWM in self.mode,
        )

    def _restore_savepoint(self, sp: Savepoint) -> None:
        self.g0_charset = sp.g0_charset
        self.g1_charset = sp.g1_charset
        self.charset = sp.charset
        # xterm: DECRC restores origin and autowrap both ways (pyte only ever sets them).
        (self.mode.add if sp.origin else self.mode.discard)(mo.DECOM)
        (self.mode.add if sp.wrap else self.mode.discard)(mo.DECAWM)
        self.cursor = copy.copy(sp.cursor)
        self.cursor.hidden = mo.DECTCEM not in self.mode
        self.ensure_hbounds()
        self.ensure_vbounds()

    def _enter_alternate(self, mode: int) -> None:
        if self._main_buffer is not None:
            return  # already there (xterm ignores a second switch)
        if mode == 1049:
            self._alt_savepoint = self._savepoint()
        self._main_buffer = self.buffer  # type: ignore[assignment]
        alt = self._alt_buffer
        if alt is None or mode == 1049:
            alt = self._new_buffer()  # 1049 clears the alternate screen on entry
        self._alt_buffer = None
        self.buffer = alt  # type: ignore[assignment]
        self.dirty.update(range(self.lines))

    def _leave_alternate(self, mode: int) -> None:
        self.mode.difference_update(ALT_SCREEN)
        if self._main_buffer is None:
            return
        # 1047 and 1049 clear the alternate screen when leaving; 47 keeps it for next time.
        self._alt_buffer = None if mode in (1047, 1049) else self.buffer  # type: ignore[assignment]
        self.buffer = self._main_buffer  # type: ignore[assignment]
        self._main_buffer = None
        if mode == 1049 and self._alt_savepoint is not None:
            self._restore_savepoint(self._alt_savepoint)
        self._alt_savepoint = None
        self.dirty.update(range(self.lines))

    # ------------------------------------------------------------------ cursor save/restore

    def save_cursor(self) -> None:
        # xterm: one save slot (pyte keeps an unbounded stack).
        self.savepoints[:] = [self._savepoint()]

    def restore_cursor(self) -> None:
        if self.savepoints:
            # xterm: the slot is not consumed; a second DECRC restores the same state again.
            self._restore_savepoint(self.savepoints[-1])
        else:
            # Nothing saved: home, origin mode off (as pyte and xterm).
            self.mode.discard(mo.DECOM)
            self.cursor_position()

    # ------------------------------------------------------------------ robustness fixes

    def cursor_to_line(self, line: int | None = None) -> None:
        self.cursor.y = (line or 1) - 1
        # pyte asserts margins exist under DECOM; with no margins origin mode is the whole screen.
        if mo.DECOM in self.mode and self.margins is not None:
            self.cursor.y += self.margins.top
        self.ensure_vbounds()

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        if how in (0, 1, 2):  # anything else is ignored, as xterm does
            super().erase_in_line(how)
            x = self.cursor.x
            self._fix_wide(self.cursor.y, x - 1 if how == 0 else x + 1)
            if how != 1:  # the row's end is erased: it no longer goes on on the next row
                self._mark_wrapped(self.cursor.y, False)

    # Editing a line can split a wide character from its "" stub. xterm then blanks the half that is
    # left, and so does termux (stock pyte keeps it, and its `display` raised on a stub left alone).

    def insert_characters(self, count: int | None = None) -> None:
        super().insert_characters(count)
        x = self.cursor.x
        self._fix_wide(self.cursor.y, x - 1, x + (count or 1), self.columns - 1)

    def delete_characters(self, count: int | None = None) -> None:
        super().delete_characters(count)
        x = self.cursor.x
        self._fix_wide(self.cursor.y, x - 1, x)

    def erase_characters(self, count: int | None = None) -> None:
        super().erase_characters(count)
        x = self.cursor.x
        self._fix_wide(self.cursor.y, x - 1, x + (count or 1))

    def _fix_wide(self, y: int, *columns: int) -> None:
        """Blank a wide character without its stub, or a stub without its wide character, at the
        given columns of line y."""
        line = self.buffer.get(y)
        if not line:
            return
        last = self.columns - 1
        for x in columns:
            if not 0 <= x <= last or x not in line:
                continue
            cell = line[x]
            data = cell.data
            if data == "":
                if x == 0 or not _is_wide(line[x - 1].data):
                    line[x] = cell._replace(data=" ")
            elif x == last or line[x + 1].data != "":
                if _is_wide(data) and self.columns > 1:
                    line[x] = cell._replace(data=" ")

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        if how == 3:
            # xterm: ED 3 erases the saved lines (scrollback) only, not the screen.
            self.history.clear()
        elif how in (0, 1, 2):
            super().erase_in_display(how)
            y = self.cursor.y
            for erased in range(y + 1, self.lines) if how == 0 else range(y) if how == 1 else range(self.lines):
                self._mark_wrapped(erased, False)

    def set_margins(self, top: int | None = None, bottom: int | None = None, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("private"):
            return  # CSI ? r is XTRESTORE, not DECSTBM
        super().set_margins(top, bottom)

    def report_device_status(self, mode: int = 0, *args: Any, **kwargs: Any) -> None:
        private = bool(kwargs.get("private"))
        if mode == 5 and not private:
            self.write_process_input("\x1b[0n")
        elif mode == 6:
            x = min(self.cursor.x, self.columns - 1) + 1
            y = self.cursor.y + 1
            if mo.DECOM in self.mode and self.margins is not None:
                y -= self.margins.top
            # xterm: DECXCPR (CSI ? 6 n) answers CSI ? y ; x ; 1 R (page 1).
            self.write_process_input(f"\x1b[?{y};{x};1R" if private else f"\x1b[{y};{x}R")

    def draw(self, data: str) -> None:
        """Draw text at the cursor. Width policy (per code point, as xterm and glibc's wcwidth):

        * width 1 and 2 characters take one or two cells (a wide one leaves a "" stub after it);
          a wide character that does not fit in the last column wraps first (autowrap) or is
          drawn one column earlier (no autowrap);
        * zero-width characters (combining marks, VS16, ZWJ, ...) join the previous cell; VS16 does
          not widen it, and the character after a ZWJ takes its own cells;
        * unprintable characters are skipped — never the rest of the text (pyte stops there);
        * writing over either half of a wide character blanks the other half.
        """
        if self.charset:
            data = data.translate(self.g1_charset)
        elif self.g0_charset is not _LAT1:
            data = data.translate(self.g0_charset)
        columns = self.columns
        mode = self.mode
        cursor = self.cursor
        buffer = self.buffer
        dirty = self.dirty
        for char in data:
            width = wcwidth(char)
            if width <= 0:
                if width == 0:
                    self._join_previous(char)
                continue
            if cursor.x + width > columns:
                if mo.DECAWM in mode:
                    if cursor.x >= columns or width == 2:
                        dirty.add(cursor.y)
                        self._mark_wrapped(cursor.y)
                        cursor.x = 0
                        self.index()
                else:
                    cursor.x = max(0, columns - width)
            if mo.IRM in mode:
                self.insert_characters(width)
            line = buffer[cursor.y]
            x = cursor.x
            # Keep wide characters whole: blank the half we do not overwrite.
            if x and line[x].data == "":
                line[x - 1] = line[x - 1]._replace(data=" ")
            end = x + width
            if end < columns and line[end].data == "":
                line[end] = line[end]._replace(data=" ")
            attrs = cursor.attrs
            line[x] = attrs._replace(data=char)
            if width == 2 and x + 1 < columns:
                line[x + 1] = attrs._replace(data="")
            cursor.x = end if end < columns else columns
            self._last_char = char
        dirty.add(cursor.y)

    def _join_previous(self, char: str) -> None:
        """Attach a zero-width character to the cell before the cursor (its base)."""
        x, y = self.cursor.x, self.cursor.y
        if x >= self.columns:
            x = self.columns
        if x == 0:
            if y == 0:
                return  # nothing to join: dropped
            y -= 1
            x = self.columns
        line = self.buffer[y]
        x -= 1
        if x > 0 and line[x].data == "":
            x -= 1  # the stub of a wide character: join the character itself
        base = line[x]
        data = base.data
        if not data or len(data) > MAX_JOINED:
            return  # nothing to join, or the cell is full: dropped
        joined = unicodedata.normalize("NFC", data + char)
        if len(joined) > MAX_JOINED + 1:
            return
        line[x] = base._replace(data=joined)
        self.dirty.add(y)

    # ------------------------------------------------------------------ queries (answers go to the PTY)

    def report_device_attributes(self, mode: int = 0, **kwargs: Any) -> None:
        """DA1 (CSI c, ESC Z): a VT100 with Advanced Video Option, as tmux answers (pyte claims a VT102,
        which would promise the VT102's printer port)."""
        if mode == 0 and not kwargs.get("private"):
            self.write_process_input(DA1_REPLY)

    def report_secondary_device_attributes(self, mode: int = 0) -> None:
        """DA2 (CSI > c). xterm: CSI > 41 ; version ; 0 c (stock pyte answered with DA1's bytes)."""
        if mode == 0:
            self.write_process_input(DA2_REPLY)

    def report_tertiary_device_attributes(self, mode: int = 0) -> None:
        """DA3 (CSI = c). xterm: DCS ! | 00000000 ST."""
        if mode == 0:
            self.write_process_input(DA3_REPLY)

    def request_mode(self, mode: int = 0, **kwargs: Any) -> None:
        """DECRQM (CSI ? Ps $ p, CSI Ps $ p): CSI [?] Ps ; Pm $ y with 1 set, 2 reset, 0 unknown."""
        private = bool(kwargs.get("private"))
        if private:
            known = mode in REPORTED_PRIVATE
            on = (mode << 5) in self.mode
            if mode in ALT_SCREEN_MODES:
                on = on and self.alternate
        else:
            known = mode in REPORTED_ANSI
            on = mode in self.mode
        state = (1 if on else 2) if known else 0
        self.write_process_input(f"\x1b[{'?' if private else ''}{mode};{state}$y")

    def handle_osc(self, number: int, param: str, terminator: str = "\x1b\\") -> None:
        """OSC codes beyond the title: 8 (hyperlink), 10/11 (colour queries), 52 (set the
        clipboard: kept in `clipboard` for the server to act on). Others are ignored."""
        if number == 8:
            _params, _, uri = param.partition(";")
            # The target is written out again (capture -e, a client's terminal): a control
            # character in it (a C1 CSI, a CR) would let the program write escapes there.
            self._set_link(uri if len(uri) <= MAX_LINK and _printable(uri) == uri else "")
        elif number == 52:
            # A payload that filled the string's bound was cut: dropped whole, never kept cut.
            if len(param) + len("52;") < MAX_STRING and (request := parse_osc52(param)) is not None:
                self.clipboard = request
        elif number == 4:
            # "4;c;?;c;?..." asks for palette entries: xterm's default 256-colour palette.
            parts = param.split(";")
            for index, value in zip(parts[0::2], parts[1::2], strict=False):
                if value == "?" and index.isascii() and index.isdigit() and int(index) < 256:
                    hex6 = _PALETTE[int(index)]
                    rh, gh, bh = (hex6[i : i + 2] for i in (0, 2, 4))
                    self.write_process_input(f"\x1b]4;{int(index)};rgb:{rh}{rh}/{gh}{gh}/{bh}{bh}{terminator}")
        elif number in (10, 11):
            # "10;?;?" asks for 10 then 11 (xterm walks the list from the first number).
            for offset, value in enumerate(param.split(";")):
                code = number + offset
                if value == "?" and code in (10, 11):
                    r, g, b = self.foreground_color if code == 10 else self.background_color
                    self.write_process_input(
                        f"\x1b]{code};rgb:{r:02x}{r:02x}/{g:02x}{g:02x}/{b:02x}{b:02x}{terminator}"
                    )

    def _set_link(self, uri: str) -> None:
        attrs = self.cursor.attrs
        ext = getattr(attrs, "ext", None) or NO_EXT
        if ext.link == uri:
            return
        base = attrs if isinstance(attrs, Char) else Char(*attrs)
        self.cursor.attrs = base.with_ext(ext._replace(link=uri))

    def window_op(self, op: int = 0, *args: int) -> None:
        """XTWINOPS: 18 reports the size in characters; 22/23 push and pop the title. Window
        manipulation (moving, resizing, iconifying) is not the program's to do here: ignored."""
        if op == 18:
            self.write_process_input(f"\x1b[8;{self.lines};{self.columns}t")
        elif op == 22:
            if len(self._title_stack) >= MAX_TITLE_STACK:
                del self._title_stack[0]
            self._title_stack.append((self.title, self.icon_name))
        elif op == 23 and self._title_stack:
            self.title, self.icon_name = self._title_stack.pop()

    # ------------------------------------------------------------------ sequences pyte lacks

    def scroll_up(self, count: int | None = None) -> None:
        """SU (CSI Ps S): scroll the region up; lines leaving a full-screen main region go to
        scrollback, as with a line feed at the bottom (tmux does the same)."""
        self._scroll_region(count, up=True)

    def scroll_down(self, count: int | None = None) -> None:
        """SD (CSI Ps T): scroll the region down."""
        self._scroll_region(count, up=False)

    def _scroll_region(self, count: int | None, up: bool) -> None:
        """Scroll the region by `count` lines (at most its height) as that many line feeds at its
        bottom (`up`) or reverse line feeds at its top would; the cursor stays where it was."""
        top, bottom = self.margins or (0, self.lines - 1)
        count = min(count or 1, bottom - top + 1)
        x, y = self.cursor.x, self.cursor.y
        self.cursor.y = bottom if up else top
        feed = self.index if up else self.reverse_index
        for _ in range(count):
            feed()
        self.cursor.x, self.cursor.y = x, y

    def repeat_last(self, count: int | None = None) -> None:
        """REP (CSI Ps b): draw the last graphic character again, at most a screenful."""
        if self._last_char:
            self.draw(self._last_char * min(count or 1, self.lines * self.columns))

    def forward_tab(self, count: int | None = None) -> None:
        """CHT (CSI Ps I): Ps tab stops on (the last column when they run out), found in one pass
        over the stops whatever Ps is."""
        stops = sorted(self.tabstops)
        i = bisect.bisect_right(stops, self.cursor.x) + (count or 1) - 1
        self.cursor.x = stops[i] if i < len(stops) else self.columns - 1

    def back_tab(self, count: int | None = None) -> None:
        """CBT (CSI Ps Z): back Ps tab stops (column 0 when they run out), in one pass."""
        stops = sorted(self.tabstops)
        i = bisect.bisect_left(stops, min(self.cursor.x, self.columns - 1)) - (count or 1)
        self.cursor.x = stops[i] if i >= 0 else 0

    def soft_reset(self) -> None:
        """DECSTR (CSI ! p), as xterm: cursor visible, replace mode, origin and cursor/keypad
        application modes off, autowrap on, full margins, default charsets and SGR, saved cursor
        forgotten. The screen and the cursor position are untouched (stock pyte printed "p")."""
        self.mode.difference_update({mo.IRM, mo.DECOM, APP_CURSOR, APP_KEYPAD})
        self.mode.update({mo.DECAWM, mo.DECTCEM})
        self.cursor.hidden = False
        self.margins = None
        self.g0_charset, self.g1_charset, self.charset = _LAT1, pyte.charsets.VT100_MAP, 0
        self.cursor.attrs = self.default_char
        self.savepoints = []

    def save_modes(self, *modes: int) -> None:
        """XTSAVE (CSI ? Pm s)."""
        for m in modes[:64]:
            if m in REPORTED_PRIVATE:
                self._saved_modes[m] = (m << 5) in self.mode

    def restore_modes(self, *modes: int) -> None:
        """XTRESTORE (CSI ? Pm r; stock pyte raised on it)."""
        for m in modes[:64]:
            if m in self._saved_modes:
                (self.set_mode if self._saved_modes[m] else self.reset_mode)(m, private=True)

    def reset_tab_stops(self, how: int = 0) -> None:
        """DECST8C (CSI ? 5 W): tab stops every 8 columns."""
        if how == 5:
            self.tabstops = set(range(8, self.columns, 8))

    def set_cursor_style(self, style: int = 0) -> None:
        """DECSCUSR (CSI Ps SP q): recorded for the client (0-6)."""
        if 0 <= style <= 6:
            self.cursor_style = style

    # ------------------------------------------------------------------ resize

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """Resize both screens. The main screen reflows, as tmux's does: lines that autowrap cut are
        joined and cut anew at the new width, in the scrollback too (in bounded steps, newest first:
        `reflow_step`), and the cursor stays on its character. A shorter screen first drops blank
        rows below the cursor, then moves top rows into the scrollback; a taller one brings rows back
        from it, then adds blank rows. The alternate screen is not reflowed (programs redraw it): a
        narrower one cuts rows on the right (a wide character cut in half becomes a space)."""
        lines = max(1, int(lines or self.lines))
        columns = max(1, int(columns or self.columns))
        if lines == self.lines and columns == self.columns:
            return
        old_lines, old_columns = self.lines, self.columns
        self.dirty.update(range(lines))
        cursor = self.cursor
        if self._main_buffer is None:
            cursor.x, cursor.y = self._reflow_main(self.buffer, lines, columns, cursor.x, cursor.y)
        else:
            # The alternate screen is cut; the main screen under it reflows with its saved cursor.
            cursor.y -= self._cut_buffer(self.buffer, old_lines, lines, columns, cursor.y)
            cursor.x = min(cursor.x, columns - 1)
            sp = self._alt_savepoint
            if sp is not None:
                sp.cursor.x, sp.cursor.y = self._reflow_main(
                    self._main_buffer, lines, columns, sp.cursor.x, sp.cursor.y
                )
                sp.cursor.x = min(sp.cursor.x, columns - 1)
            else:
                self._reflow_main(self._main_buffer, lines, columns, 0, old_lines - 1)
        if self._alt_buffer is not None:
            self._cut_buffer(self._alt_buffer, old_lines, lines, columns, 0)
        self.lines, self.columns = lines, columns
        if columns > old_columns:
            # xterm: default tab stops every 8 columns extend over the new width.
            self.tabstops.update(range((old_columns // 8 + 1) * 8, columns, 8))
        self.tabstops = {t for t in self.tabstops if t < columns}
        for sp in self.savepoints:
            sp.cursor.y = min(sp.cursor.y, lines - 1)
            sp.cursor.x = min(sp.cursor.x, columns - 1)
        self.margins = None
        cursor.y = max(0, min(cursor.y, lines - 1))

    def reflow_step(self, budget: int = 1000) -> bool:
        """Reflow about `budget` more rows of scrollback after a change of width (whole lines,
        newest first); True while more remain (`history.pending`)."""
        return self.history.reflow_step(budget)

    def _reflow_main(self, buffer: Any, lines: int, columns: int, x: int, y: int) -> tuple[int, int]:
        """Resize a main screen's buffer (now `self.lines` x `self.columns`) to `lines` x `columns`,
        reflowing it and the scrollback; (x, y) is its cursor, whose new place is returned."""
        history = self.history
        old_columns = self.columns
        blank = intern_style(self.default_char)
        rows: list[Row] = [self._row_of(buffer, n, old_columns) for n in range(self.lines)]
        pending_wrap = x >= old_columns
        excess = len(rows) - lines
        while excess > 0 and len(rows) - 1 > y and rows[-1] == _BLANK_ROW:
            rows.pop()  # blank rows below the cursor go first
            excess -= 1
        if columns != old_columns:
            history.retarget(columns)
            head: list[Row] = []
            if len(history) and history.wrapped(-1):
                head = history.take_pending() or []  # the screen's first line started in history
            y += len(head)
            rows[:0] = head
            out: list[Row] = []
            group: list[Row] = []  # the rows of one line
            new_y = 0
            for n, row in enumerate(rows):
                group.append(row)
                if row[1] and n < len(rows) - 1:
                    continue  # the line goes on on the next row
                cut = rewrap(group, columns, blank)
                first = n - len(group) + 1
                if first <= y <= n:  # the cursor's line: the same character, in its new place
                    ny, x = position_of(cut, offset_of(group, y - first, x))
                    new_y = len(out) + ny
                out.extend(cut)
                group = []
            y = new_y
            while len(out) < lines:  # wider: lines from the scrollback fill the screen again
                taken = history.take_pending()
                if taken is None:
                    break
                cut = rewrap(taken, columns, blank)
                out[:0] = cut
                y += len(cut)
            rows = out
            if x > columns or (x == columns and not pending_wrap):
                x = columns - 1  # past the end of its line: the last column
        else:
            while len(rows) < lines:  # taller: rows come back from the scrollback
                back = history.pop_row()
                if back is None:
                    break
                rows.insert(0, back)
                y += 1
        excess = len(rows) - lines
        if excess > 0:  # the top rows go into the scrollback
            history.extend_rows(rows[:excess])
            del rows[:excess]
            y -= excess
        if y < 0:
            x = y = 0  # the cursor's line went into the scrollback (as tmux)
        self._store_rows(buffer, [self._make_row(line, wrap, columns) for line, wrap in rows], lines)
        return x, y

    def _row_of(self, buffer: Any, y: int, columns: int) -> Row:
        """Row y of a buffer as runs and its wrap (see `reflow`)."""
        row = buffer.get(y)
        return compact_line(row, columns, self.default_char), wrap_extent(row)

    def _make_row(self, line: Line, wrap: int, columns: int) -> Any:
        """A row of cells from runs (None for an empty row that a line ends on); a wrapped row is
        padded with blanks to the columns it spans, so that it spans them again."""
        if not line and not wrap:
            return None
        default = self.default_char
        row: StaticDefaultDict[int, Char] = StaticDefaultDict(default)
        x = 0
        for text, style in line:
            attrs = _style_attrs(style)
            for data, width in _cells_of(text):
                if x >= columns:
                    break
                row[x] = attrs._replace(data=data)
                if width == 2 and x + 1 < columns:
                    row[x + 1] = attrs._replace(data="")
                x += width
        for blank in range(x, min(wrap, columns)):
            row[blank] = default
        if wrap:
            row.wrapped = True  # type: ignore[attr-defined]
        return row

    def _store_rows(self, buffer: Any, rows: list[Any], lines: int) -> None:
        """Make `rows` (None: no row) the buffer's rows 0.. (the buffer keeps `lines` of them)."""
        buffer.clear()
        buffer.update({y: row for y, row in enumerate(rows) if row is not None})

    def _cut_buffer(self, buffer: Any, old_lines: int, lines: int, columns: int, cursor_y: int) -> int:
        """Resize an alternate screen's buffer in place, without reflow and without scrollback:
        return how many lines moved off its top."""
        shift = 0
        if lines < old_lines:
            excess = old_lines - lines
            # Blank lines below the cursor go first.
            y = old_lines - 1
            while excess and y > cursor_y and not _has_content(buffer.get(y)):
                buffer.pop(y, None)
                excess -= 1
                y -= 1
            shift = excess
            if shift:
                moved = {y - shift: line for y, line in buffer.items() if shift <= y < old_lines}
                buffer.clear()
                buffer.update(moved)
        for y in [y for y in buffer if y >= lines or y < 0]:
            del buffer[y]
        if columns < self.columns:
            for line in buffer.values():
                for x in [x for x in line if x >= columns]:
                    del line[x]
                last = line.get(columns - 1)
                if last is not None and last.data and wcwidth(last.data[0]) == 2:
                    line[columns - 1] = last._replace(data=" ")
        return shift

    # ------------------------------------------------------------------ SGR

    def select_graphic_rendition(self, *attrs: int, **kwargs: Any) -> None:
        """Set the cursor's attributes. Beyond pyte: 2 dim, 8 hidden, 53 overline (and their
        resets), 58/59 underline colour consumed (not kept), out-of-range values clamped."""
        if kwargs.get("private"):
            return  # CSI ? Pm m is an xterm query, not SGR
        cursor = self.cursor
        current = cursor.attrs
        # SGR 0 resets to default_char, which DECSCNM (reverse screen) changes: part of the key.
        key = (current, current.ext if isinstance(current, Char) else None, attrs, mo.DECSCNM in self.mode)
        cached = self._sgr_cache.get(key)
        if cached is not None:
            cursor.attrs = cached
            return
        new = self._compute_sgr(current, attrs)
        if len(self._sgr_cache) >= _SGR_CACHE_LIMIT:
            self._sgr_cache.clear()
        self._sgr_cache[key] = new
        cursor.attrs = new

    def _compute_sgr(self, current: Any, attrs: tuple[int, ...]) -> Char:
        if not attrs:
            attrs = (0,)
        # The cell's fields as a list (data, fg, bg, bold, italics, underscore, strikethrough,
        # reverse, blink): one index per attribute, no names looked up.
        fields = list(current)
        ext = getattr(current, "ext", None) or NO_EXT
        dim, hidden, overline, link = ext
        i, n = 0, len(attrs)
        while i < n:
            a = attrs[i]
            i += 1
            if a == 0:
                fields[:] = self.default_char
                dim = hidden = overline = False
            elif a in _TEXT_INDEX:
                index, on = _TEXT_INDEX[a]
                fields[index] = on
                if a == 22:
                    dim = False  # 22 is "normal intensity": neither bold nor dim
            elif 30 <= a <= 37 or a == 39 or 90 <= a <= 97:
                fields[1] = _FG[a]
            elif 40 <= a <= 47 or a == 49 or 100 <= a <= 107:
                fields[2] = _BG[a]
            elif a in (38, 48, 58):
                if i >= n:
                    break
                kind = attrs[i]
                i += 1
                value: str | None = None
                if kind == 5:
                    if i >= n:
                        break
                    m = attrs[i]
                    i += 1
                    if 0 <= m < 256:
                        value = _PALETTE[m]
                elif kind == 2:
                    if i + 3 > n:
                        break
                    r, g, b = attrs[i : i + 3]
                    i += 3
                    value = f"{_clamp8(r):02x}{_clamp8(g):02x}{_clamp8(b):02x}"
                if value is not None and a != 58:  # underline colour: parsed, not kept
                    fields[1 if a == 38 else 2] = value
            elif a == 2:
                dim = True
            elif a == 8:
                hidden = True
            elif a == 28:
                hidden = False
            elif a == 53:
                overline = True
            elif a == 55:
                overline = False
        char: Char = tuple.__new__(Char, fields)
        if dim or hidden or overline or link:
            char.ext = Ext(dim, hidden, overline, link)
        return char


def _mode_bits(modes: tuple[int, ...], private: bool) -> list[int]:
    """Modes as pyte keeps them in `screen.mode`: private ones shifted left by 5."""
    if private:
        return [m << 5 for m in modes if 0 <= m < 65536]
    return [m for m in modes if m >= 0]


def _is_wide(data: str) -> bool:
    return bool(data) and wcwidth(data[0]) == 2


def _has_content(line: Any) -> bool:
    if not line:
        return False
    default = DEFAULT_CHAR
    return any(c != default or getattr(c, "ext", None) is not None for c in line.values())


_BLANK_ROW: Row = ((), 0)


def _style_attrs(style: RunStyle) -> Char:
    """The cell attributes of a scrollback style (data a space)."""
    cell = Char(" ", style.fg, style.bg, style.bold, style.italics, style.underscore, style.strikethrough,
                style.reverse, style.blink)
    return cell.with_ext(style.ext)


def _cells_of(text: str) -> list[tuple[str, int]]:
    """The cells of a row's text: each character with the zero-width ones after it, and its width."""
    if text.isascii():
        return [(char, 1) for char in text]
    out: list[tuple[str, int]] = []
    for char in text:
        w = wcwidth(char)
        if w <= 0 and out:
            data, width = out[-1]
            out[-1] = (data + char, width)
        else:
            out.append((char, 2 if w > 1 else 1))
    return out


def _printable(text: str) -> str:
    """Drop control characters (C0, DEL, C1) from a title: they must not reach a client's terminal."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cc")


__all__ = ["Char", "Ext", "Margins", "Screen"]
