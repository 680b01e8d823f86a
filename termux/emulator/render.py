"""Reading a Screen out: `snapshot` (bytes that rebuild it), `capture` (text lines, tmux-style
numbering into scrollback) and `preview` (one line for a sidebar)."""

from __future__ import annotations

from typing import Any

import pyte
from pyte import modes as mo
from pyte.screens import wcwidth

from termux.modes import ALT_SCREEN_MODES, COLUMNS_132

from .history import Line, RunStyle, compact_line, intern_style, line_text, style_key
from .reflow import join as join_rows
from .rows import Cells, Packed, is_wrapped, wrap_extent
from .screen import DEFAULT_CHAR, Screen

_FG_CODES = {name: code for code, name in {**pyte.graphics.FG_ANSI, **pyte.graphics.FG_AIXTERM}.items()}
_BG_CODES = {name: code for code, name in {**pyte.graphics.BG_ANSI, **pyte.graphics.BG_AIXTERM}.items()}
_BG_CODES["brightmagenta"] = 105  # pyte 0.8.2 spells BG 105 "bfightmagenta"; both map back to 105
_CHARSET_CODES = {id(table): code for code, table in pyte.charsets.MAPS.items()}


def _colour(value: str, codes: dict[str, int], base: int) -> str | None:
    if value == "default":
        return None
    code = codes.get(value)
    if code is not None:
        return str(code)
    if len(value) == 6:
        try:
            r, g, b = int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
        except ValueError:
            return None
        return f"{base};2;{r};{g};{b}"
    return None


def _colour_param(value: str, cache: dict[str, str], codes: dict[str, int], base: int) -> str:
    """`;` and the SGR parameters of a colour ("" for the default), from `cache` once made."""
    param = cache.get(value)
    if param is None:
        code = _colour(value, codes, base)
        param = f";{code}" if code else ""
        if len(cache) >= _SGR_CACHE_LIMIT:
            cache.clear()
        cache[value] = param
    return param


def _sgr(style: Any) -> str:
    # A test per attribute, inline rather than a loop over a table: this runs for every style not
    # made before, which on a screen of a colour per cell is every cell.
    code = "\x1b[0"
    ext = getattr(style, "ext", None)
    if style.bold:
        code += ";1"
    if ext is not None and ext.dim:
        code += ";2"
    if style.italics:
        code += ";3"
    if style.underscore:
        code += ";4"
    if style.blink:
        code += ";5"
    if style.reverse:
        code += ";7"
    if ext is not None and ext.hidden:
        code += ";8"
    if style.strikethrough:
        code += ";9"
    if ext is not None and ext.overline:
        code += ";53"
    fg = _colour_param(style.fg, _fg_params, _FG_CODES, 38)
    bg = _colour_param(style.bg, _bg_params, _BG_CODES, 48)
    return code + fg + bg + "m"


# SGR strings by style (a RunStyle, or a cell's attributes and extras); bounded so that adversarial
# 24-bit colours cannot grow it forever: when full it is emptied and refilled on use.
_SGR_CACHE_LIMIT = 4096
_sgr_cache: dict[Any, str] = {}
# Colours apart (a screen of many styles has few colours), as bounded.
_fg_params: dict[str, str] = {}
_bg_params: dict[str, str] = {}


def sgr(style: Any) -> str:
    """The SGR sequence that selects exactly `style`'s attributes (a cell or a `RunStyle`), starting
    from a reset. Made once per style: a snapshot asks for every run."""
    key = style if style.__class__ is RunStyle else style_key(style)
    code = _sgr_cache.get(key)
    if code is None:
        code = _sgr(style)
        if len(_sgr_cache) >= _SGR_CACHE_LIMIT:
            _sgr_cache.clear()
        _sgr_cache[key] = code
    return code


def _link(style: Any) -> str:
    ext = getattr(style, "ext", None)
    return ext.link if ext is not None else ""


def _osc8(link: str) -> str:
    return f"\x1b]8;;{link}\x1b\\"


# ---------------------------------------------------------------------- capture / preview


def _styled(line: Line) -> str:
    """One line with SGR (and OSC 8) escapes; trailing blank default-looking cells trimmed."""
    runs = list(line)
    # Trim trailing spaces that look like nothing (no background, no reverse, no lines).
    while runs:
        text, style = runs[-1]
        if style.bg == "default" and not (style.reverse or style.underscore or style.strikethrough):
            stripped = text.rstrip(" ")
            if not stripped:
                runs.pop()
                continue
            runs[-1] = (stripped, style)
        break
    out: list[str] = []
    current_sgr = sgr(DEFAULT_CHAR)
    link = ""
    for text, style in runs:
        code = sgr(style)
        if code != current_sgr:
            out.append(code)
            current_sgr = code
        new_link = _link(style)
        if new_link != link:
            out.append(_osc8(new_link))
            link = new_link
        out.append(text)
    if link:
        out.append(_osc8(""))
    if current_sgr != sgr(DEFAULT_CHAR):
        out.append("\x1b[0m")
    return "".join(out)


def capture(
    screen: Screen, start: int | None = None, end: int | None = None, escapes: bool = False, join: bool = False
) -> list[str]:
    """Lines `start`..`end` inclusive, tmux-style: 0 is the top visible line, -1 the newest history
    line; defaults are the visible screen. Out-of-range bounds are clamped; trailing blanks trimmed;
    `escapes=True` keeps colours and attributes as SGR sequences (each line starts from a reset and
    ends reset); `join=True` joins soft-wrapped lines (tmux's `capture-pane -J`)."""
    return [render_row(line, escapes) for line in capture_rows(screen, start, end, join)]


def capture_rows(screen: Screen, start: int | None = None, end: int | None = None, join: bool = False) -> list[Line]:
    """The rows `capture` renders, as immutable runs: a copy of the screen as it is now, cheap to
    take, that can be rendered later (`render_row`, in slices) whatever the screen does meanwhile.
    `join`: a soft-wrapped row and the rows it goes on on are one (the last row asked for ends one)."""
    history = screen.history
    lo, hi = capture_span(screen, start, end)
    rows: list[Line] = [history[len(history) + n] for n in range(lo, min(hi, -1) + 1)]
    default = screen.default_char
    rows.extend(_screen_line(screen, n, default) for n in range(max(lo, 0), hi + 1))
    if not join:
        return rows
    wraps = [history.wrap(n) for n in range(lo, min(hi, -1) + 1)]
    wraps.extend(wrap_extent(_stored_row(screen.buffer, n)) for n in range(max(lo, 0), hi + 1))
    blank = intern_style(default)
    joined: list[Line] = []
    group: list[tuple[Line, int]] = []
    for row, wrap in zip(rows, wraps, strict=True):
        group.append((row, wrap))
        if not wrap:
            joined.append(join_rows(group, blank))
            group = []
    if group:
        joined.append(join_rows(group, blank))
    return joined


def _stored_row(buffer: Any, y: int) -> Any:
    """Row y as stored, for reading only (the fast Screen's rows are not turned into cells)."""
    peek = getattr(buffer, "peek", None)
    return peek(y) if peek is not None else buffer.get(y)


def capture_span(screen: Screen, start: int | None = None, end: int | None = None) -> tuple[int, int]:
    """The first and last line `capture` returns for `start`..`end`: clamped to the history and
    the screen, the visible screen by default (hi < lo: none)."""
    first = -len(screen.history)
    last = screen.lines - 1
    lo = 0 if start is None else max(first, min(start, last))
    hi = last if end is None else max(first, min(end, last))
    return lo, hi


def wrapped_rows(screen: Screen, lo: int, hi: int) -> list[bool]:
    """`wrapped` for each line lo..hi (inclusive, within `capture_span`), the history's in one pass."""
    if hi < lo:
        return []
    flags = screen.history.wrapped_flags(lo, min(hi, -1) + 1) if lo < 0 else []
    peek = getattr(screen.buffer, "peek", None)
    for y in range(max(lo, 0), hi + 1):
        flags.append(is_wrapped(peek(y) if peek is not None else screen.buffer.get(y)))
    return flags


def render_row(line: Line, escapes: bool = False) -> str:
    """One captured row as text: trailing blanks trimmed; with `escapes`, SGR and OSC 8 kept."""
    return _styled(line) if escapes else line_text(line).rstrip(" ")


def wrapped(screen: Screen, n: int) -> bool:
    """Whether line n (tmux numbering, as `capture`: 0 the top visible line, -1 the newest history
    line) is soft-wrapped: autowrap carried its text on to the next line (what `capture -J` and
    reflow join)."""
    if n < 0:
        return screen.history.wrapped(n)
    return is_wrapped(_stored_row(screen.buffer, n))


def cursor_position(screen: Screen) -> tuple[int, int]:
    """The cell the cursor is on, (x, y), as tmux reports it: after a program writes the last column
    the cursor waits there to wrap (internally x == columns), and that is still the last column."""
    return min(screen.cursor.x, screen.columns - 1), screen.cursor.y


def _screen_line(screen: Screen, y: int, default: Any) -> Line:
    """Visible row y as runs, without turning a row of runs into cells."""
    line = getattr(screen.buffer, "line", None)
    if line is not None:
        return line(y, screen.columns, default)  # type: ignore[no-any-return]
    return compact_line(screen.buffer.get(y), screen.columns, default)


def _row(buffer: Any, y: int) -> Any:
    """Row y of a buffer for reading only: the fast Screen's rows of runs are not turned into cells."""
    view = getattr(buffer, "view", None)
    return view(y) if view is not None else buffer.get(y)


def preview(screen: Screen) -> str:
    """The last non-blank line of the visible screen, stripped ("" for a blank screen). Reads
    lines from the bottom up and stops at the first with text: the sidebar asks often."""
    default = screen.default_char
    columns = range(screen.columns)
    peek = getattr(screen.buffer, "peek", None)
    for y in range(screen.lines - 1, -1, -1):
        if peek is not None:
            row = peek(y)
            if row is not None and not isinstance(row, dict):  # a row of runs
                text = row.text().strip()
                if text:
                    return text  # type: ignore[no-any-return]
                continue
        line = screen.buffer.get(y)
        if line:
            text = "".join([line.get(x, default).data for x in columns]).strip()
            if text:
                return text
    return ""


# ---------------------------------------------------------------------- snapshot


class _Pen:
    """The attributes and link the replaying terminal draws with now: escapes only on a change."""

    __slots__ = ("code", "link", "out")

    def __init__(self, out: list[str]) -> None:
        self.out = out
        self.code = sgr(DEFAULT_CHAR)
        self.link = ""

    def use(self, style: Any) -> None:
        code = sgr(style)
        if code != self.code:
            self.out.append(code)
            self.code = code
        link = _link(style)
        if link != self.link:
            self.out.append(_osc8(link))
            self.link = link

    def reset(self) -> None:
        """Back to the default attributes and no link (what the rest of the snapshot assumes)."""
        if self.link:
            self.out.append(_osc8(""))
        if self.code != sgr(DEFAULT_CHAR):
            self.out.append("\x1b[0m")


def _draw_buffer(buffer: Any, columns: int, lines: int) -> list[str]:
    """Escape sequences that draw every non-default cell of `buffer` on a blank screen: a row of
    runs (the fast Screen's usual row) run by run, any other row cell by cell."""
    out: list[str] = []
    pen = _Pen(out)
    peek = getattr(buffer, "peek", None)
    for y in range(lines):
        row = peek(y) if peek is not None else buffer.get(y)
        if not row:
            continue
        if row.__class__ is Packed:
            _draw_runs(row, y, columns, pen)
        else:
            _draw_cells(row, y, columns, pen)
    pen.reset()
    return out


# A row of more runs than this (a colour per cell, as image viewers and gradients draw) is written
# without its EL: the replaying fast Screen's token path takes it, which costs less than the frame
# path where nearly every run is a style of its own (`python -m benchmarks.emulator --snapshot`).
FRAME_ROW_RUNS = 32


def _draw_runs(row: Packed, y: int, columns: int, pen: _Pen) -> None:
    """A row of runs (single-width characters only), written as a full-screen program redraws a
    row: a CUP to column 1, the row's text from there (blanks before and between its texts
    included), then EL for the default-looking blanks after its last text. The replaying fast
    Screen takes such rows whole (its frame path), as it takes a program's own redraws, and keeps
    them as runs. A row of nothing but default-looking blanks is not written, nor the blanks after
    the last text of a row of many runs (no EL: `FRAME_ROW_RUNS`): the replaying screen is blank
    there already."""
    runs: list[tuple[str, Cells]] = []
    x = row.start
    for text, cells in zip(row.texts, row.cells, strict=True):
        if x >= columns:
            break
        text = text[: columns - x]
        runs.append((text, cells))
        x += len(text)
    while runs:  # the default-looking blanks at the end are EL's
        text, cells = runs[-1]
        if not (cells.plain and cells.blank == DEFAULT_CHAR):
            break
        kept = text.rstrip(" ")
        if kept:
            runs[-1] = (kept, cells)
            break
        runs.pop()
    if not runs:
        return
    out = pen.out
    out.append(f"\x1b[{y + 1};1H")
    if row.start:
        pen.use(DEFAULT_CHAR)
        out.append(" " * row.start)
    for text, cells in runs:
        pen.use(cells.style)
        out.append(text)
    if len(runs) <= FRAME_ROW_RUNS:
        pen.use(DEFAULT_CHAR)
        out.append("\x1b[K")


def _draw_cells(line: Any, y: int, columns: int, pen: _Pen) -> None:
    """A row of cells (wide or combining characters, or read through `buffer`), cell by cell."""
    out = pen.out
    cells = sorted((x, c) for x, c in line.items() if x < columns)
    at = -1  # where the cursor is now in this line (-1: not positioned yet)
    wide_end = -1
    for x, cell in cells:
        data = cell.data
        if x < wide_end:
            continue  # the stub of the wide character just drawn
        if cell == DEFAULT_CHAR and getattr(cell, "ext", None) is None:
            continue
        if not data or wcwidth(data[0]) <= 0:
            data = " "  # an orphan stub or a bare combining mark: the screen shows a space
        if x != at:
            out.append(f"\x1b[{y + 1};{x + 1}H")
        pen.use(cell)
        out.append(data)
        at = x + max(1, wcwidth(data[0]))
        wide_end = at


def _savepoint_state(sp: Any, buffer: Any, columns: int) -> str:
    """Modes, position, SGR and charsets of a saved cursor, ready for a DECSC (no margins set yet)."""
    out = [("\x1b[?6h" if sp.origin else "\x1b[?6l") + ("\x1b[?7h" if sp.wrap else "\x1b[?7l")]
    out += _cursor_state(sp.cursor, buffer, columns)
    out.append(sgr(sp.cursor.attrs))
    out.append(_charsets(sp.g0_charset, sp.g1_charset, sp.charset))
    return "".join(out)


def _cursor_state(cursor: Any, buffer: Any, columns: int, base: int = 0) -> list[str]:
    """Put the cursor at (x, y) — including the "pending wrap" column `columns` — with its SGR."""
    out: list[str] = []
    x, y = cursor.x, cursor.y
    if x >= columns:
        # Reach the pending-wrap state by redrawing the last cell of the line.
        line = _row(buffer, y) or {}
        cx = columns - 1
        cell = line.get(cx, DEFAULT_CHAR)
        if cell.data == "" and cx > 0 and line.get(cx - 1, DEFAULT_CHAR).data:
            cx -= 1
            cell = line[cx]
        data = cell.data if cell.data and wcwidth(cell.data[0]) > 0 else " "
        out.append(f"\x1b[{y + 1 - base};{cx + 1}H{sgr(cell)}")
        if _link(cell):
            out.append(_osc8(_link(cell)))
        out.append(data)
        if _link(cell):
            out.append(_osc8(""))
    else:
        out.append(f"\x1b[{y + 1 - base};{x + 1}H")
    return out


def _charsets(g0: Any, g1: Any, shifted: int) -> str:
    return f"\x1b({_CHARSET_CODES.get(id(g0), 'B')}\x1b){_CHARSET_CODES.get(id(g1), '0')}" + (
        "\x0e" if shifted else "\x0f"
    )


def snapshot(screen: Screen) -> bytes:
    """Bytes that, fed through `ByteStream` to a fresh `Screen(columns, lines)` (or any screen of that
    size: it starts with RIS), reproduce the visible cells and their attributes, the cursor (position,
    visibility, attributes), the title, the modes, margins, tab stops and charsets — and, while the
    alternate screen is shown, the main screen underneath it. Scrollback is not included."""
    cols, rows = screen.columns, screen.lines
    mode = screen.mode
    out: list[str] = ["\x1bc\x1b[?3h" if COLUMNS_132 in mode else "\x1bc"]
    if screen._main_buffer is not None:
        # The main screen first, then switch to the alternate screen as the program did.
        out += _draw_buffer(screen._main_buffer, cols, rows)
        which = [m for m in ALT_SCREEN_MODES if (m << 5) in mode] or [1049]
        sp = screen._alt_savepoint
        if 1049 in which and sp is not None:
            out.append(_savepoint_state(sp, screen._main_buffer, cols))
            out.append("\x1b[?1049h\x1b[?6l\x1b[?7h\x1b[0m\x1b(B\x1b)0\x0f")
            which.remove(1049)
        for m in which:
            out.append(f"\x1b[?{m}h")
    elif screen._alt_buffer is not None:
        # A kept mode-47 alternate screen: hidden, but it reappears on the next ESC [ ? 47 h.
        out.append("\x1b[?47h")
        out += _draw_buffer(screen._alt_buffer, cols, rows)
        out.append("\x1b[?47l")
    out += _draw_buffer(screen.buffer, cols, rows)
    # Tab stops (default: every 8 columns).
    if screen.tabstops != set(range(8, cols, 8)):
        out.append("\x1b[3g")
        for stop in sorted(screen.tabstops):
            if stop < cols:
                out.append(f"\x1b[1;{stop + 1}H\x1bH")
    # The DECSC slot (margins are not set yet, so origin mode does not shift the position).
    for sp in screen.savepoints[-1:]:
        out.append(_savepoint_state(sp, screen.buffer, cols))
        out.append("\x1b7\x1b[?6l\x1b[?7h\x1b[0m\x1b(B\x1b)0\x0f")
    # Margins (DECSTBM homes the cursor, so before positioning it).
    if screen.margins is not None:
        out.append(f"\x1b[{screen.margins.top + 1};{screen.margins.bottom + 1}r")
    # Private modes (the alternate-screen ones are done; 3 clears, so it came first; 5 would flip
    # every cell's reverse attribute again). DECOM homes the cursor, so modes go before the cursor is
    # positioned, relative to the top margin when origin mode is on.
    for m in sorted({m >> 5 for m in mode if m >= 32 and not m & 31} | {7, 25}):
        if m in ALT_SCREEN_MODES or m in (3, 5):
            continue
        on = (m << 5) in mode
        if on != (m in (7, 25)):
            out.append(f"\x1b[?{m}{'h' if on else 'l'}")
    base = screen.margins.top if (mo.DECOM in mode and screen.margins is not None) else 0
    out += _cursor_state(screen.cursor, screen.buffer, cols, base)
    # ANSI modes after the last drawing (insert mode would shift cells).
    for m in sorted(m for m in mode if m < 32):
        out.append(f"\x1b[{m}h")
    out.append(sgr(screen.cursor.attrs))
    link = _link(screen.cursor.attrs)
    if link:
        out.append(_osc8(link))
    out.append(_charsets(screen.g0_charset, screen.g1_charset, screen.charset))
    if screen.cursor_style:
        out.append(f"\x1b[{screen.cursor_style} q")
    if screen.title:
        out.append(f"\x1b]2;{screen.title}\x1b\\")
    if screen.icon_name:
        out.append(f"\x1b]1;{screen.icon_name}\x1b\\")
    return "".join(out).encode("utf-8", "replace")


__all__ = ["capture", "cursor_position", "preview", "sgr", "snapshot", "wrapped"]
