"""Fast paths for pyte's hot methods, with results identical to pyte 0.8.2's.

Where the time goes in stock pyte (cProfile on the benchmark workloads, `benchmarks/emulator.py`):

- `Screen.draw` makes one namedtuple per character (`cursor.attrs._replace(data=char)`) and walks the
  text one character at a time in Python;
- `Screen.index` (every line feed at the bottom) moves every row of the scroll region in a Python loop;
- `Stream.feed` sends every control character and every byte of every escape sequence through the
  parser generator (`generator.send` per character).

What this module does about it, without changing any observable result:

- `FastScreenBase.draw`: runs of printable ASCII are written a whole row segment at a time
  (`dict.update(zip(range, map(cells, text)))`, C speed) from a cache of cell objects per (attributes,
  character); cells are immutable tuples, so sharing them is invisible.
- `FastScreenBase.index`: the region shift is one C-level `dict.update` instead of a loop.
- `FastStreamMixin`: one regular expression tokenises text runs, CR LF, C0 controls, complete CSI
  sequences (`ESC [ [?] digits;... final`) and two-character escapes, and calls the same screen
  methods pyte's parser would call with the same arguments. Anything else (OSC, DCS, sequences with
  intermediates, a sequence cut by a chunk boundary) goes through the stream's own parser generator,
  one character at a time, exactly as stock pyte does.
- `FastScreenMixin.draw_lines` + the stream: a block of plain lines (printable ASCII, each ended by
  CR LF) is applied in one go: rows that scroll past the screen are built only when the scrollback
  keeps them (and then straight into its compact form); the screen is shifted once per block.

`FastScreenBase` sits *below* termux's Screen in the MRO (it only re-implements pyte's own methods);
`FastScreenMixin` sits above it (it batches whole lines and so must honour the Screen's scrollback).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pyte
from pyte import charsets as cs
from pyte import modes as mo
from pyte.screens import Margins, StaticDefaultDict

# Printable ASCII: one cell per character, no charset translation in the default G0 (Latin-1).
_ASCII_PRINTABLE = re.compile(r"[\x20-\x7e]+\Z")
_IDENTITY_MAPS = (cs.LAT1_MAP,)

# Cell caches are bounded (a program cycling through 24-bit colours would otherwise grow them).
_CELL_CACHE_LIMIT = 512

DECAWM = mo.DECAWM
IRM = mo.IRM


class _Cells(dict[str, Any]):
    """char -> cell with fixed attributes, made on first use (the cell pyte would make)."""

    __slots__ = ("attrs",)

    def __init__(self, attrs: Any) -> None:
        self.attrs = attrs

    def __missing__(self, char: str) -> Any:
        cell = self.attrs._replace(data=char)
        self[char] = cell
        return cell


class FastScreenBase(pyte.Screen):
    """pyte.Screen with faster implementations of its own hot methods (identical results)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # id(attrs) -> (attrs, cells); holding attrs keeps its id from being reused.
        self._cell_caches: dict[int, tuple[Any, _Cells]] = {}
        self._cells_by_value: dict[tuple[Any, Any], _Cells] = {}
        super().__init__(*args, **kwargs)

    def _cells(self, attrs: Any) -> _Cells:
        entry = self._cell_caches.get(id(attrs))
        if entry is not None and entry[0] is attrs:
            return entry[1]
        # Equal attributes made by another SGR share the cache (termux's cells may carry `ext`
        # extras that take no part in tuple equality, hence the key's second half).
        key = (attrs, getattr(attrs, "ext", None))
        cells = self._cells_by_value.get(key)
        if cells is None:
            if len(self._cells_by_value) >= _CELL_CACHE_LIMIT:
                self._cells_by_value.clear()
            cells = self._cells_by_value[key] = _Cells(attrs)
        if len(self._cell_caches) >= _CELL_CACHE_LIMIT:
            self._cell_caches.clear()
        self._cell_caches[id(attrs)] = (attrs, cells)
        return cells

    def draw(self, data: str) -> None:
        cursor = self.cursor
        columns = self.columns
        x = cursor.x
        if (
            x > columns
            or IRM in self.mode
            or (self.g1_charset if self.charset else self.g0_charset) not in _IDENTITY_MAPS
            or not _ASCII_PRINTABLE.match(data)
        ):
            super().draw(data)
            return
        cells = self._cells(cursor.attrs)
        n = len(data)
        i = 0
        y = cursor.y
        while i < n:
            if x == columns:
                if DECAWM in self.mode:
                    self.dirty.add(y)
                    cursor.x = x
                    self.carriage_return()
                    self.linefeed()
                    x, y = cursor.x, cursor.y
                    if x >= columns:  # a subclass moved the cursor somewhere odd: be pyte
                        super().draw(data[i:])
                        return
                    cells = self._cells(cursor.attrs)
                else:
                    # No autowrap: every further character overwrites the last column.
                    self.buffer[y][columns - 1] = cells[data[n - 1]]
                    break
            k = columns - x
            if k > n - i:
                k = n - i
            line = self.buffer[y]
            if k == 1:
                line[x] = cells[data[i]]
            else:
                line.update(zip(range(x, x + k), map(cells.__getitem__, data[i : i + k]), strict=True))
            x += k
            i += k
        cursor.x = x
        self.dirty.add(y)

    def index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if self.cursor.y == bottom:
            self.dirty.update(range(self.lines))
            buffer = self.buffer
            if bottom > top:
                # pyte: for y in range(top, bottom): buffer[y] = buffer[y + 1]
                buffer.update(
                    zip(range(top, bottom), map(buffer.__getitem__, range(top + 1, bottom + 1)), strict=True)
                )
            buffer.pop(bottom, None)
        else:
            self.cursor_down()


class FastScreenMixin(pyte.Screen):
    """Whole-line batching on top of termux's Screen (honours its scrollback)."""

    def draw_lines(self, block: str) -> None:
        """Apply `block`: lines of printable ASCII, each ended by CR LF, exactly as the calls
        `draw(line); carriage_return(); linefeed()` per line would (the stream's block token)."""
        texts = block.split("\r\n")
        texts.pop()  # the block ends with CR LF: the last piece is empty
        draw = self.draw
        cr = self.carriage_return
        lf = self.linefeed
        cursor = self.cursor
        buffer = self.buffer
        top, bottom = self.margins or Margins(0, self.lines - 1)
        n = len(texts)
        i = 0
        # Until the cursor sits at column 0 of a blank bottom row, lines land on rows that already
        # hold something: the per-line calls (at most one screenful of lines).
        while i < n:
            if cursor.y == bottom and cursor.x == 0 and not buffer.get(bottom):
                break
            text = texts[i]
            if text:
                draw(text)
            cr()
            lf()
            i += 1
        if i == n:
            return
        if IRM in self.mode or (self.g1_charset if self.charset else self.g0_charset) not in _IDENTITY_MAPS:
            for text in texts[i:]:
                if text:
                    draw(text)
                cr()
                lf()
            return
        # From here every row starts blank at column 0, and every line feed scrolls the region:
        # the rows each line makes, then one shift of the region by their count.
        columns = self.columns
        rows: list[str] = []
        if DECAWM in self.mode:
            for text in texts[i:]:
                if len(text) <= columns:
                    rows.append(text)
                else:
                    rows.extend([text[j : j + columns] for j in range(0, len(text), columns)])
        else:
            for text in texts[i:]:
                rows.append(text if len(text) <= columns else text[: columns - 1] + text[-1])
        attrs = cursor.attrs
        self._scroll_in_rows(rows, attrs, top, bottom)
        self.dirty.update(range(self.lines))
        cursor.x = 0
        cursor.y = bottom

    def _scroll_in_rows(self, rows: list[str], attrs: Any, top: int, bottom: int) -> None:
        """Scroll the region [top, bottom] up by len(rows) + 0 lines, where row k of `rows` is
        drawn (with `attrs`) on the blank bottom row before the k-th scroll."""
        buffer = self.buffer
        m = len(rows)
        h1 = bottom - top  # rows above the bottom one
        old = [buffer.get(y) for y in range(top, bottom)]
        sink = self._history_sink(top, bottom)
        gone_new = m - h1 if m > h1 else 0  # new rows that scroll away without being seen
        if sink is not None:
            for row in old[:m]:
                sink(row)
            if gone_new:
                self._history_rows(rows[:gone_new], attrs)
        y = top
        for row in old[m:]:
            if row is None:
                buffer.pop(y, None)
            else:
                buffer[y] = row
            y += 1
        if rows:
            cells = self._cells(attrs)  # type: ignore[attr-defined]
            default = self.default_char
            for text in rows[gone_new:]:
                line: StaticDefaultDict[int, Any] = StaticDefaultDict(default)
                if text:
                    line.update(zip(range(len(text)), map(cells.__getitem__, text), strict=True))
                buffer[y] = line
                y += 1
        buffer.pop(bottom, None)

    def _history_rows(self, rows: list[str], attrs: Any) -> None:
        """Rows of text in one style that scroll straight into the scrollback."""
        sink = self._history_sink(0, self.lines - 1)
        assert sink is not None
        default = self.default_char
        cells = self._cells(attrs)  # type: ignore[attr-defined]
        for text in rows:
            line: StaticDefaultDict[int, Any] = StaticDefaultDict(default)
            line.update(zip(range(len(text)), map(cells.__getitem__, text), strict=True))
            sink(line)

    def _history_sink(self, top: int, bottom: int) -> Callable[[Any], None] | None:
        """Where a row scrolled off the top of the region goes, or None when it is dropped.

        Mirrors termux.emulator.screen.Screen.index: only a full-screen scroll of the main screen
        feeds the scrollback.
        """
        history = getattr(self, "history", None)
        if history is None or not getattr(history, "maxlen", 0):
            return None
        if top != 0 or bottom != self.lines - 1 or getattr(self, "_main_buffer", None) is not None:
            return None
        scroll_into_history = getattr(self, "_scroll_into_history", None)
        return scroll_into_history  # type: ignore[no-any-return]


# --- the stream ------------------------------------------------------------------------------------

_CSI_PARAMS_MAX = 64


class FastStreamMixin(pyte.Stream):
    """pyte.Stream.feed with a regex tokenizer in front of pyte's parser generator."""

    _fast_re: re.Pattern[str] | None = None

    def attach(self, screen: Any) -> None:
        super().attach(screen)
        self._build_fast()

    def _build_fast(self) -> None:
        listener = self.listener
        assert listener is not None
        debug = listener.debug

        def table(mapping: dict[str, str]) -> dict[str, Callable[..., Any]]:
            return {key: getattr(listener, name, debug) for key, name in mapping.items()}

        self._f_basic = table(self.basic)
        self._f_csi = table(self.csi)
        self._f_escape = table(self.escape)
        self._f_debug = debug
        self._f_draw = listener.draw
        self._f_cr = listener.carriage_return
        self._f_lf = listener.linefeed
        # Control characters handled as pyte's generator would (SO/SI depend on use_utf8: left to it).
        basic = "".join(re.escape(c) for c in sorted(self.basic) if c not in "\x0e\x0f")
        escapes = "".join(re.escape(c) for c in sorted(self.escape))
        text = self._text_pattern.pattern
        # Lines of printable ASCII go to the screen's draw_lines in one call, unless a test or an
        # embedder replaced the per-line methods on the instance (they must see every call).
        self._f_lines = getattr(listener, "draw_lines", None)
        own = vars(listener) if hasattr(listener, "__dict__") else {}
        if any(name in own for name in ("draw", "carriage_return", "linefeed", "index")):
            self._f_lines = None
        lines = r"((?:[\x20-\x7e]*+\r\n){2,})" if self._f_lines is not None else r"(\b\B)"
        self._fast_re = re.compile(
            rf"{lines}"  # 1: two or more plain lines, each ended by CR LF
            rf"|({text})"  # 2: a text run, exactly as pyte's feed cuts it
            r"|(\r\n)"  # 3: CR LF
            rf"|\x1b\[(\??)([0-9;]{{0,{_CSI_PARAMS_MAX}}})([\x40-\x7e])"  # 4,5,6: CSI [?] params final
            rf"|([{basic}])"  # 7: one C0 control
            rf"|\x1b([{escapes}])"  # 8: ESC + final
        )

    def feed(self, data: str) -> None:
        if self.listener is None:
            raise RuntimeError("Listener is not set")
        fast_re = self._fast_re
        if fast_re is None:  # not attached through attach()
            super().feed(data)
            return
        match = fast_re.match
        send = self._send_to_parser
        draw = self._f_draw
        cr = self._f_cr
        lf = self._f_lf
        csi = self._f_csi
        basic = self._f_basic
        escape = self._f_escape
        debug = self._f_debug
        lines = self._f_lines
        length = len(data)
        pos = 0
        ground = self._taking_plain_text
        try:
            while pos < length:
                if not ground:
                    # Mid-sequence in pyte's generator: give it characters until it is back to ground.
                    ground = send(data[pos])
                    pos += 1
                    continue
                m = match(data, pos)
                if m is None:
                    ground = send(data[pos])
                    pos += 1
                    continue
                pos = m.end()
                kind = m.lastindex
                if kind == 2:
                    draw(m.group(2))
                elif kind == 6:
                    private, params, final = m.group(4, 5, 6)
                    if not params:
                        args: tuple[int, ...] | list[int] = (0,)
                    elif ";" in params:
                        args = [min(int(p or 0), 9999) for p in params.split(";")]
                    else:
                        args = (min(int(params), 9999),)
                    handler = csi.get(final, debug)
                    if private:
                        handler(*args, private=True)
                    else:
                        handler(*args)
                elif kind == 3:
                    cr()
                    lf()
                elif kind == 1:
                    lines(m.group(1))  # type: ignore[misc]  # group 1 never matches without it
                elif kind == 7:
                    basic[m.group(7)]()
                else:
                    escape[m.group(8)]()
        except Exception:
            # As pyte's feed: a handler raised; the parser starts afresh and the error propagates.
            self._initialize_parser()
            raise
        self._taking_plain_text = ground


class FastByteStreamMixin(FastStreamMixin, pyte.ByteStream):
    """pyte.ByteStream.feed on top of the fast str feed (UTF-8 decoding as pyte does it)."""

    def feed(self, data: bytes) -> None:  # type: ignore[override]
        if self.use_utf8:
            text = self.utf8_decoder.decode(data)
        else:
            text = "".join(map(chr, data))
        FastStreamMixin.feed(self, text)


__all__ = ["FastByteStreamMixin", "FastScreenBase", "FastScreenMixin", "FastStreamMixin", "StaticDefaultDict"]
