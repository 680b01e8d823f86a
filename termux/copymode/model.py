"""Copy mode as a state machine: keys in, a view and outcomes out. No I/O, no Textual.

    mode = CopyMode(source, height=24, cursor=(y, x))
    outcome = mode.feed("k")            # tmux key names: "k", "C-u", "Escape", "Space", "M-w"
    while mode.busy:                     # a search is scanning: a bounded step at a time
        outcome = mode.work()            # (yield to the event loop between steps)
    view = mode.view()                   # the rows to draw, selection and matches, the cursor

`feed` and `work` return `CONTINUE`, `Copy(text)` (the selection was copied: store it, leave),
`LEAVE`, or `NeedLines(start, stop)`: the source raised Unavailable, nothing changed, fetch those
lines and feed the same key (or call `work`) again.

Keys are bound to tmux's copy-mode command names (`cursor-up`, `halfpage-down`, ...) by a table:
`VI_KEYS` by default, `EMACS_KEYS` for `mode_keys = "emacs"`.

What is read: `view` reads the rows it shows (one call for the screenful; a search adds the row
above and any rows a wrapped line continues on); a motion reads the rows it passes (a word motion
at most WORD_SCAN_ROWS); a search step at most its budget plus MAX_JOIN rows; copying reads the
selected rows. Never all of history unless a search has to count it, in steps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from termux.keys import ALT, CTRL, META, SHIFT, parse_key_name
from termux.patterns import Pattern, search_pattern

from .lines import Cell, Line, LineSource, Unavailable, cell_at, cells, columns
from .scan import STEP_LINES, Hit, Pos, Scan, window_hits

WORD_SCAN_ROWS = 256  # rows a word motion looks through for the next word at most
END = 1 << 30  # the column `$` asks for: the end of every line it moves to

# -- outcomes ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Continue:
    """Copy mode goes on; draw the view again."""


@dataclass(frozen=True, slots=True)
class Copy:
    """The selection was copied and copy mode ended: store `text` (a paste buffer, OSC 52)."""

    text: str


@dataclass(frozen=True, slots=True)
class Leave:
    """Copy mode ended without copying."""


@dataclass(frozen=True, slots=True)
class NeedLines:
    """The source does not have lines `start` <= i < `stop` yet; nothing changed. Fetch them and
    feed the same key (or call `work`) again."""

    start: int
    stop: int


Outcome = Continue | Copy | Leave | NeedLines
CONTINUE = Continue()
LEAVE = Leave()

# -- key tables ----------------------------------------------------------------------------------

# tmux's copy-mode-vi table, with vim's selection keys (v, V, C-v) as the issue asks.
VI_KEYS: dict[str, str] = {
    "h": "cursor-left", "Left": "cursor-left", "BSpace": "cursor-left",
    "j": "cursor-down", "Down": "cursor-down",
    "k": "cursor-up", "Up": "cursor-up",
    "l": "cursor-right", "Right": "cursor-right",
    "w": "next-word", "b": "previous-word", "e": "next-word-end",
    "W": "next-space", "B": "previous-space", "E": "next-space-end",
    "0": "start-of-line", "Home": "start-of-line", "^": "back-to-indentation",
    "$": "end-of-line", "End": "end-of-line",
    "g": "history-top", "G": "history-bottom",
    "C-u": "halfpage-up", "C-d": "halfpage-down",
    "C-b": "page-up", "PageUp": "page-up", "C-f": "page-down", "PageDown": "page-down",
    "C-y": "scroll-up", "C-Up": "scroll-up", "C-e": "scroll-down", "C-Down": "scroll-down",
    "H": "top-line", "M": "middle-line", "L": "bottom-line",
    "v": "select-char", "V": "select-line", "C-v": "select-rectangle",
    "Space": "begin-selection", "o": "other-end",
    "y": "copy-selection-and-cancel", "Enter": "copy-selection-and-cancel",
    "q": "cancel", "Escape": "cancel", "C-c": "cancel",
    "/": "search-forward", "?": "search-backward", "n": "search-again", "N": "search-reverse",
}  # fmt: skip

# tmux's copy-mode (emacs) table.
EMACS_KEYS: dict[str, str] = {
    "C-b": "cursor-left", "Left": "cursor-left",
    "C-f": "cursor-right", "Right": "cursor-right",
    "C-p": "cursor-up", "Up": "cursor-up",
    "C-n": "cursor-down", "Down": "cursor-down",
    "M-f": "next-word-end", "M-b": "previous-word",
    # Textual reads ESC f and ESC b (what M-f and M-b send) as C-Right and C-Left.
    "C-Right": "next-word-end", "C-Left": "previous-word",
    "C-a": "start-of-line", "Home": "start-of-line", "M-m": "back-to-indentation",
    "C-e": "end-of-line", "End": "end-of-line",
    "M-<": "history-top", "M->": "history-bottom",
    "M-v": "page-up", "PageUp": "page-up", "C-v": "page-down", "PageDown": "page-down",
    "M-Up": "halfpage-up", "M-Down": "halfpage-down",
    "C-Up": "scroll-up", "C-Down": "scroll-down",
    "M-R": "top-line", "M-r": "middle-line",
    "C-Space": "begin-selection", "C-g": "clear-selection", "R": "rectangle-toggle",
    "M-w": "copy-selection-and-cancel", "C-w": "copy-selection-and-cancel",
    "Enter": "copy-selection-and-cancel",
    "q": "cancel", "Escape": "cancel", "C-c": "cancel",
    "C-s": "search-forward", "C-r": "search-backward", "n": "search-again", "N": "search-reverse",
}  # fmt: skip


def key_table(mode_keys: Literal["vi", "emacs"]) -> dict[str, str]:
    """The bindings for tmux's `mode-keys` option."""
    return dict(EMACS_KEYS if mode_keys == "emacs" else VI_KEYS)


def key_name(key: str, mods: int = 0) -> str:
    """A key as the tables name it: tmux's spelling, modifiers as `C-`, `M-`, `S-` in that order
    (`keys.textual_key_model` gives (key, mods) for a Textual key event)."""
    if key == " " or (key == "@" and mods & CTRL):  # C-@ is C-Space (both NUL), as in tmux
        key = "Space"
    if len(key) == 1 and mods & SHIFT and not mods & (CTRL | ALT | META):
        return key.upper()  # shift+g is "G"
    if len(key) == 1 and mods & CTRL:
        key = key.lower()  # C-V is C-v, as in tmux
    prefix = ("C-" if mods & CTRL else "") + ("M-" if mods & (ALT | META) else "") + ("S-" if mods & SHIFT else "")
    return prefix + key


def canonical_key(name: str) -> str:
    """Any tmux spelling of a key (`c-u`, `^U`, `Return`) as the tables name it."""
    parsed = parse_key_name(name)
    return name if parsed is None else key_name(*parsed)


# -- state ---------------------------------------------------------------------------------------

SelectionKind = Literal["char", "line", "rect"]


class Selection(NamedTuple):
    kind: SelectionKind
    anchor: Pos  # the end that stays; the cursor is the other


@dataclass(slots=True)
class Search:
    """The search last made, its running scan and where it got."""

    pattern: Pattern
    forward: bool  # the direction of `/` (True) or `?`
    scan: Scan | None = None  # while counting or looking
    current: Hit | None = None  # the match the cursor went to
    index: int | None = None  # its number counting from the top, once known
    total: int | None = None  # every match, once counted


@dataclass(frozen=True, slots=True)
class Prompt:
    """A search being typed: the view goes back to `origin` whenever the text changes."""

    forward: bool
    text: str
    origin: Pos
    origin_top: int
    previous: Search | None  # back in force if the prompt is cancelled


@dataclass(slots=True)
class State:
    top: int  # the line at the top of the view
    cursor: Pos
    want: int  # the column vertical moves aim for (END: the end of each line)
    selection: Selection | None = None
    prompt: Prompt | None = None
    search: Search | None = None


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the view: its line, and the columns to highlight ([start, stop) pairs)."""

    y: int
    line: Line
    selected: tuple[tuple[int, int], ...]
    matches: tuple[tuple[int, int], ...]
    current: tuple[tuple[int, int], ...]  # of the match the cursor went to


@dataclass(frozen=True, slots=True)
class SearchStatus:
    text: str
    literal: bool  # not a valid regular expression: searched as plain text
    forward: bool
    index: int | None  # the current match's number, once counted
    total: int | None  # all matches, once counted
    counted: int  # matches counted so far (while `total` is None)
    found: bool  # a match is selected


@dataclass(frozen=True, slots=True)
class View:
    top: int
    rows: tuple[Row, ...]
    cursor: tuple[int, int]  # (row of the view, column)
    prompt: str | None  # "/text" or "?text" while a search is typed
    search: SearchStatus | None
    first: int  # the source's first and last lines, for a position indicator
    last: int

    def status(self) -> str:
        """A status line as tmux shows it: the prompt or the search, the count of its matches
        (while the prompt is typed too: the search is incremental), and the position."""
        offset = max(0, self.last - len(self.rows) + 1 - self.top)
        position = f"[{offset}/{-self.first}]"
        search = self.search
        if self.prompt is not None and (search is None or search.text != self.prompt[1:]):
            return f"{self.prompt}  {position}"  # nothing typed yet (or the last search, kept)
        if search is None:
            return position
        if not search.found:
            note = "no match" if search.total == 0 else f"searching… {search.counted} so far"
        elif search.total is None:
            note = f"{search.counted}+ matches, counting…"
        else:
            note = f"{search.index}/{search.total}" if search.index is not None else f"{search.total} matches"
        literal = " (as text)" if search.literal else ""
        return f"{'/' if search.forward else '?'}{search.text}{literal}  ({note})  {position}"


# -- words ---------------------------------------------------------------------------------------

BLANK, WORD, PUNCT, EMPTY = 0, 1, 2, 3  # EMPTY: a line with nothing on it, a word of its own (vi)


def _kind(char: str, big: bool) -> int:
    if char.isspace():
        return BLANK
    if big or char.isalnum() or char == "_":
        return WORD
    return PUNCT


class _Step(NamedTuple):
    y: int
    x: int  # -1 for the break between two lines (a blank nothing can land on)
    kind: int


def _end_of_run(steps: Iterator[_Step], stop_on_empty: bool) -> _Step | None:
    """e and b: past the cursor's step, skip blanks (and empty lines, unless `stop_on_empty`: vi's
    b stops on one), then follow the run of steps of one kind to its last."""
    next(steps)
    last: _Step | None = None
    for step in steps:
        if last is None:
            if step.kind == BLANK or (step.kind == EMPTY and not stop_on_empty):
                continue
            last = step
            if step.kind == EMPTY:
                break
        elif step.kind == last.kind:
            last = step
        else:
            break
    return last


# -- the machine ---------------------------------------------------------------------------------


class CopyMode:
    """Copy mode over one LineSource, `height` rows tall. The view opens at the bottom (the
    screen), the cursor at `cursor` (the terminal's, say) or the bottom line's start."""

    def __init__(
        self,
        source: LineSource,
        height: int,
        cursor: Pos | None = None,
        bindings: Mapping[str, str] = VI_KEYS,
    ) -> None:
        self.source = source
        self.height = max(1, height)
        self.bindings = {canonical_key(key): command for key, command in bindings.items()}
        self.active = True
        top = self._clamp_top(source.last - self.height + 1)
        y, x = cursor if cursor is not None else (source.last, 0)
        y = max(source.first, min(y, source.last))
        self.state = State(top=top, cursor=(y, x), want=x)
        self.state.cursor = (y, self._column(y, x))
        self._show(self.state, y)
        self._press: Pos | None = None  # where a mouse button went down
        self._commands: dict[str, Callable[[State], Outcome | None]] = {
            "cursor-left": self._left, "cursor-right": self._right,
            "cursor-up": lambda s: self._vertical(s, -1), "cursor-down": lambda s: self._vertical(s, 1),
            "next-word": lambda s: self._next_word(s, big=False),
            "next-space": lambda s: self._next_word(s, big=True),
            "previous-word": lambda s: self._previous_word(s, big=False),
            "previous-space": lambda s: self._previous_word(s, big=True),
            "next-word-end": lambda s: self._word_end(s, big=False),
            "next-space-end": lambda s: self._word_end(s, big=True),
            "start-of-line": self._start_of_line, "back-to-indentation": self._indentation,
            "end-of-line": self._end_of_line,
            "history-top": self._history_top, "history-bottom": self._history_bottom,
            "halfpage-up": lambda s: self._page(s, -max(1, self.height // 2)),
            "halfpage-down": lambda s: self._page(s, max(1, self.height // 2)),
            "page-up": lambda s: self._page(s, -self.height), "page-down": lambda s: self._page(s, self.height),
            "scroll-up": lambda s: self._scroll(s, -1), "scroll-down": lambda s: self._scroll(s, 1),
            "top-line": lambda s: self._view_line(s, 0), "middle-line": lambda s: self._view_line(s, 1),
            "bottom-line": lambda s: self._view_line(s, 2),
            "select-char": lambda s: self._toggle(s, "char"), "select-line": lambda s: self._toggle(s, "line"),
            "select-rectangle": lambda s: self._toggle(s, "rect"),
            "begin-selection": self._begin_selection, "clear-selection": self._clear_selection,
            "rectangle-toggle": self._rectangle_toggle, "other-end": self._other_end,
            "copy-selection-and-cancel": self._copy, "cancel": lambda s: LEAVE,
            "search-forward": lambda s: self._open_prompt(s, forward=True),
            "search-backward": lambda s: self._open_prompt(s, forward=False),
            "search-again": lambda s: self._again(s, same=True),
            "search-reverse": lambda s: self._again(s, same=False),
        }  # fmt: skip
        unknown = set(self.bindings.values()) - set(self._commands)
        if unknown:
            raise ValueError(f"unknown copy-mode command(s): {', '.join(sorted(unknown))}")

    # -- the interface -----------------------------------------------------------------------

    @property
    def cursor(self) -> Pos:
        return self.state.cursor

    @property
    def selection(self) -> Selection | None:
        return self.state.selection

    @property
    def busy(self) -> bool:
        """A search is scanning: call `work` (yielding in between) until this is False."""
        search = self.state.search
        return self.active and search is not None and search.scan is not None

    def feed(self, key: str) -> Outcome:
        """One key, by its tmux name. Keys bound to nothing are ignored."""
        name = canonical_key(key)

        def run(state: State) -> Outcome | None:
            if state.prompt is not None:
                return self._prompt_key(state, name)
            command = self.bindings.get(name)
            return None if command is None else self._commands[command](state)

        return self._run(run)

    def command(self, name: str) -> Outcome:
        """Run a copy-mode command by its name (`page-up`), as a binding would."""
        if name not in self._commands:
            raise ValueError(f"unknown copy-mode command {name!r}")
        return self._run(self._commands[name])

    def _run(self, change: Callable[[State], Outcome | None]) -> Outcome:
        """Apply a change to a copy of the state, and keep it only if every line it read was
        there: on Unavailable nothing changes and the caller learns what to fetch."""
        if not self.active:
            return LEAVE
        state = dataclasses.replace(self.state)
        try:
            outcome = change(state) or CONTINUE
        except Unavailable as missing:
            return NeedLines(missing.start, missing.stop)
        self.state = state
        if isinstance(outcome, Copy | Leave):
            self.active = False
        return outcome

    def work(self, budget: int = STEP_LINES) -> Outcome:
        """One bounded step of the running search (at most `budget` + MAX_JOIN lines read)."""
        search = self.state.search
        if not self.active or search is None or search.scan is None:
            return CONTINUE
        scan = search.scan
        try:
            scan.step(budget)
        except Unavailable as missing:
            return NeedLines(missing.start, missing.stop)
        if scan.target is not None and search.current is None:
            search.current = scan.target
            self._go_to(self.state, scan.target)
        if scan.done:
            search.scan = None
            if scan.count:
                search.total, search.index = scan.total, scan.index
            elif search.index is not None and search.total:
                step = 1 if scan.forward else -1
                search.index = (search.index - 1 + step) % search.total + 1
        return CONTINUE

    def resize(self, height: int) -> None:
        self.height = max(1, height)
        self.state.top = self._clamp_top(self.state.top)
        self._show(self.state, self.state.cursor[0])

    def view(self) -> View:
        """The rows to draw. Reads them (one call); raises Unavailable if the source lacks them."""
        state, source = self.state, self.source
        top = state.top
        stop = min(source.last + 1, top + self.height)
        lines = source.lines(top, stop)
        selected = self._selected_spans(state, top, lines)
        search = state.search
        hits: dict[int, list[tuple[int, int]]] = {}
        current: dict[int, list[tuple[int, int]]] = {}
        if search is not None:
            for hit in window_hits(source, search.pattern, top, lines):
                for y, x0, x1 in hit.spans:
                    hits.setdefault(y, []).append((x0, x1))
            if search.current is not None:
                for y, x0, x1 in search.current.spans:
                    current.setdefault(y, []).append((x0, x1))
        rows = tuple(
            Row(top + i, line, selected.get(top + i, ()), tuple(hits.get(top + i, ())), tuple(current.get(top + i, ())))
            for i, line in enumerate(lines)
        )
        prompt = state.prompt
        status = None
        if search is not None:
            scan = search.scan
            status = SearchStatus(
                text=search.pattern.text,
                literal=search.pattern.literal,
                forward=search.forward,
                index=search.index,
                total=search.total,
                counted=scan.total if scan is not None and scan.count else (search.total or 0),
                found=search.current is not None,
            )
        return View(
            top=top,
            rows=rows,
            cursor=(state.cursor[0] - top, state.cursor[1]),
            prompt=None if prompt is None else ("/" if prompt.forward else "?") + prompt.text,
            search=status,
            first=source.first,
            last=source.last,
        )

    def selection_text(self) -> str:
        """The selected text ("" with no selection): rows joined by newlines, except where the
        terminal wrapped a line; trailing blanks trimmed as `capture` trims them."""
        state = self.state
        if state.selection is None:
            return ""
        return self._text(state.selection, state.cursor)

    # -- the mouse ---------------------------------------------------------------------------

    def press(self, row: int, column: int) -> Outcome:
        """A button went down at a view cell: the cursor goes there, any selection ends."""

        def change(state: State) -> None:
            state.selection = None
            self._move_to(state, self._point(state, row, column))
            self._press = state.cursor

        return self._run(change)

    def drag(self, row: int, column: int) -> Outcome:
        """The pointer moved with the button down: select from where it went down to here (a row
        above or below the view scrolls it)."""

        def change(state: State) -> None:
            if state.selection is None:
                state.selection = Selection("char", self._press if self._press is not None else state.cursor)
            self._move_to(state, self._point(state, row, column))

        return self._run(change)

    def select_word(self, row: int, column: int) -> Outcome:
        """A double click: select the word (or run of punctuation, or of blanks) under the cell."""

        def change(state: State) -> None:
            y, x = self._point(state, row, column)
            laid, text = self._cells(y)
            if not laid:
                state.selection, state.cursor = None, (y, 0)
                return
            i = cell_at(laid, x)
            kind = _kind(text[laid[i].start], big=False)
            lo = i
            while lo > 0 and _kind(text[laid[lo - 1].start], False) == kind:
                lo -= 1
            hi = i
            while hi < len(laid) - 1 and _kind(text[laid[hi + 1].start], False) == kind:
                hi += 1
            state.selection = Selection("char", (y, laid[lo].x))
            state.cursor, state.want = (y, laid[hi].x), laid[hi].x

        return self._run(change)

    def select_row(self, row: int, column: int) -> Outcome:
        """A triple click: select the line."""

        def change(state: State) -> None:
            y, x = self._point(state, row, column)
            state.selection = Selection("line", (y, 0))
            state.cursor = (y, self._column(y, x))

        return self._run(change)

    def copy(self) -> Outcome:
        """Copy the selection and leave (a mouse release, as tmux copies on release)."""
        return self.command("copy-selection-and-cancel")

    # -- positions ---------------------------------------------------------------------------

    def _line(self, y: int) -> Line:
        return self.source.lines(y, y + 1)[0]

    def _cells(self, y: int) -> tuple[list[Cell], str]:
        text = self._line(y).text
        return cells(text), text

    def _column(self, y: int, want: int, rect: bool = False) -> int:
        """The start of the cell covering column `want` of line y (its last cell if shorter; in a
        rectangle, blank columns up to the width count too)."""
        laid, _ = self._cells(y)
        if rect and want >= (laid[-1].x + laid[-1].width if laid else 0):
            return min(want, self.source.width - 1)
        if not laid:
            return 0
        return laid[cell_at(laid, want)].x

    def _rect(self, state: State) -> bool:
        return state.selection is not None and state.selection.kind == "rect"

    def _clamp_top(self, top: int) -> int:
        source = self.source
        return max(source.first, min(top, source.last - self.height + 1))

    def _show(self, state: State, y: int) -> None:
        """Scroll the view just enough to show line y."""
        if y < state.top:
            state.top = self._clamp_top(y)
        elif y >= state.top + self.height:
            state.top = self._clamp_top(y - self.height + 1)

    def _move_to(self, state: State, pos: Pos, want: int | None = None) -> None:
        y = max(self.source.first, min(pos[0], self.source.last))
        state.cursor = (y, self._column(y, pos[1], self._rect(state)))
        state.want = state.cursor[1] if want is None else want
        self._show(state, y)

    def _point(self, state: State, row: int, column: int) -> Pos:
        if row < 0 or row >= self.height:  # dragging past an edge scrolls
            state.top = self._clamp_top(state.top + (row if row < 0 else row - self.height + 1))
        row = max(0, min(row, self.height - 1))
        return (state.top + row, max(0, column))

    def _go_to(self, state: State, hit: Hit) -> None:
        """Put the cursor on a match; a match off screen is brought to the middle."""
        y, x = hit.start
        state.cursor, state.want = (y, x), x
        if not state.top <= y < state.top + self.height:
            state.top = self._clamp_top(y - self.height // 2)

    # -- motions -----------------------------------------------------------------------------

    def _left(self, state: State) -> None:
        y, x = state.cursor
        laid, _ = self._cells(y)
        end = laid[-1].x + laid[-1].width if laid else 0
        if x >= end:  # a rectangle's blank columns past the text
            x = x - 1 if x - 1 >= end or not laid else laid[-1].x
        elif x > 0:
            i = cell_at(laid, x)
            x = laid[i - 1].x if i > 0 else 0
        state.cursor, state.want = (y, x), x

    def _right(self, state: State) -> None:
        y, x = state.cursor
        laid, _ = self._cells(y)
        if laid and x < laid[-1].x:
            x = laid[cell_at(laid, x) + 1].x
        elif self._rect(state):
            x = min(x + (laid[-1].width if laid and x == laid[-1].x else 1), self.source.width - 1)
        state.cursor, state.want = (y, x), x

    def _vertical(self, state: State, delta: int) -> None:
        y = max(self.source.first, min(state.cursor[0] + delta, self.source.last))
        state.cursor = (y, self._column(y, state.want, self._rect(state)))
        self._show(state, y)

    def _start_of_line(self, state: State) -> None:
        state.cursor, state.want = (state.cursor[0], 0), 0

    def _indentation(self, state: State) -> None:
        y = state.cursor[0]
        laid, text = self._cells(y)
        x = next((c.x for c in laid if not text[c.start].isspace()), 0)
        state.cursor, state.want = (y, x), x

    def _end_of_line(self, state: State) -> None:
        y = state.cursor[0]
        state.cursor, state.want = (y, self._column(y, END)), END

    def _history_top(self, state: State) -> None:
        self._move_to(state, (self.source.first, 0))

    def _history_bottom(self, state: State) -> None:
        self._move_to(state, (self.source.last, 0))

    def _page(self, state: State, delta: int) -> None:
        """Scroll the view by `delta` rows, the cursor with it; at an end, the cursor goes on."""
        top = self._clamp_top(state.top + delta)
        moved = top - state.top
        state.top = top
        y = state.cursor[0] + moved
        if moved != delta:
            y += delta - moved
        y = max(self.source.first, min(y, self.source.last))
        y = max(top, min(y, top + self.height - 1))
        state.cursor = (y, self._column(y, state.want, self._rect(state)))

    def _scroll(self, state: State, delta: int) -> None:
        """Scroll the view a row; the cursor stays on its line while that is in view."""
        state.top = self._clamp_top(state.top + delta)
        y = max(state.top, min(state.cursor[0], state.top + self.height - 1, self.source.last))
        if y != state.cursor[0]:
            state.cursor = (y, self._column(y, state.want, self._rect(state)))

    def _view_line(self, state: State, where: int) -> None:
        rows = min(self.height, self.source.last - state.top + 1)
        y = state.top + (0, (rows - 1) // 2, rows - 1)[where]
        state.cursor = (y, self._column(y, state.want, self._rect(state)))

    # Word motions walk a stream of cells across lines: the break between two lines is a blank,
    # except where the terminal wrapped the line; an empty line is a word of its own (vi's w and
    # b stop on it, e goes past it). Each looks through WORD_SCAN_ROWS rows at most.

    def _forward(self, start: Pos, big: bool) -> Iterator[_Step]:
        y0, x = start
        source = self.source
        for y in range(y0, min(source.last, y0 + WORD_SCAN_ROWS) + 1):
            line = self._line(y)
            laid = cells(line.text)
            if not laid and not line.wrapped:
                yield _Step(y, 0, EMPTY)
            for cell in laid:
                if y > y0 or cell.x >= x:
                    yield _Step(y, cell.x, _kind(line.text[cell.start], big))
            if not line.wrapped or columns(line.text) < source.width:
                yield _Step(y, -1, BLANK)

    def _backward(self, start: Pos, big: bool) -> Iterator[_Step]:
        y0, x = start
        source = self.source
        for y in range(y0, max(source.first, y0 - WORD_SCAN_ROWS) - 1, -1):
            line = self._line(y)
            laid = cells(line.text)
            if y < y0 and (not line.wrapped or columns(line.text) < source.width):
                yield _Step(y, -1, BLANK)
            if not laid and not line.wrapped:
                yield _Step(y, 0, EMPTY)
            for cell in reversed(laid):
                if y < y0 or cell.x <= x:
                    yield _Step(y, cell.x, _kind(line.text[cell.start], big))

    def _next_word(self, state: State, big: bool) -> None:
        steps = self._forward(state.cursor, big)
        here = next(steps)
        landing: _Step | None = None
        skipping = here.kind if here.kind in (WORD, PUNCT) else None
        for step in steps:
            if skipping is not None and step.kind == skipping:
                continue
            skipping = None
            if step.kind != BLANK:
                landing = step
                break
        if landing is None:  # no word after this one: the end of the last line, as vi
            y = min(self.source.last, state.cursor[0] + WORD_SCAN_ROWS)
            self._move_to(state, (y, END))
        else:
            self._move_to(state, (landing.y, landing.x))

    def _word_end(self, state: State, big: bool) -> None:
        if (last := _end_of_run(self._forward(state.cursor, big), stop_on_empty=False)) is not None:
            self._move_to(state, (last.y, last.x))

    def _previous_word(self, state: State, big: bool) -> None:
        if (last := _end_of_run(self._backward(state.cursor, big), stop_on_empty=True)) is not None:
            self._move_to(state, (last.y, last.x))

    # -- selection ---------------------------------------------------------------------------

    def _toggle(self, state: State, kind: SelectionKind) -> None:
        """vi's v, V and C-v: start that kind of selection, switch to it, or end it if it is on."""
        selection = state.selection
        if selection is None:
            state.selection = Selection(kind, state.cursor)
        elif selection.kind == kind:
            state.selection = None
        else:
            state.selection = selection._replace(kind=kind)
        if not self._rect(state):  # out of a rectangle the cursor keeps to the text
            y = state.cursor[0]
            state.cursor = (y, self._column(y, state.cursor[1]))

    def _begin_selection(self, state: State) -> None:
        state.selection = Selection("char", state.cursor)

    def _clear_selection(self, state: State) -> None:
        state.selection = None

    def _rectangle_toggle(self, state: State) -> None:
        selection = state.selection or Selection("char", state.cursor)
        state.selection = selection._replace(kind="char" if selection.kind == "rect" else "rect")

    def _other_end(self, state: State) -> None:
        selection = state.selection
        if selection is not None:
            state.selection = selection._replace(anchor=state.cursor)
            state.cursor, state.want = selection.anchor, selection.anchor[1]
            self._show(state, state.cursor[0])

    def _copy(self, state: State) -> Outcome:
        if state.selection is None:
            return LEAVE
        text = self._text(state.selection, state.cursor)
        return Copy(text) if text else LEAVE

    def _text(self, selection: Selection, cursor: Pos) -> str:
        start, end = sorted((selection.anchor, cursor))
        lines = self.source.lines(start[0], end[0] + 1)
        width = self.source.width
        if selection.kind == "rect":
            left, right = sorted((selection.anchor[1], cursor[1]))
            return "\n".join(_columns_text(line.text, left, right) for line in lines)
        out: list[str] = []
        for i, line in enumerate(lines):
            y = start[0] + i
            laid = cells(line.text)
            lo, hi = 0, len(laid)
            if selection.kind == "char":
                if y == start[0]:
                    lo = next((k for k, c in enumerate(laid) if c.x >= start[1]), len(laid))
                if y == end[0]:
                    hi = next((k for k, c in enumerate(laid) if c.x > end[1]), len(laid))
            piece = line.text[laid[lo].start : laid[hi - 1].end] if lo < hi else ""
            last_row = y == end[0]
            reaches_end = hi == len(laid)
            if line.wrapped and not last_row:
                if reaches_end:
                    piece += " " * max(0, width - columns(line.text))  # blanks a wrapped line filled
                out.append(piece)
            else:
                if reaches_end:
                    piece = piece.rstrip(" ")  # the line's trailing blanks, as capture trims them
                out.append(piece + ("" if last_row else "\n"))
        return "".join(out)

    def _selected_spans(self, state: State, top: int, lines: Sequence[Line]) -> dict[int, tuple[tuple[int, int], ...]]:
        selection = state.selection
        if selection is None:
            return {}
        start, end = sorted((selection.anchor, state.cursor))
        width = self.source.width
        spans: dict[int, tuple[tuple[int, int], ...]] = {}
        for i, line in enumerate(lines):
            y = top + i
            if not start[0] <= y <= end[0]:
                continue
            if selection.kind == "line":
                spans[y] = ((0, width),)
            elif selection.kind == "rect":
                left, right = sorted((selection.anchor[1], state.cursor[1]))
                spans[y] = ((left, right + _width_at(line.text, right)),)
            else:
                left = start[1] if y == start[0] else 0
                right = end[1] + _width_at(line.text, end[1]) if y == end[0] else width
                spans[y] = ((left, right),)
        return spans

    # -- search ------------------------------------------------------------------------------

    def _open_prompt(self, state: State, forward: bool) -> None:
        state.prompt = Prompt(forward, "", state.cursor, state.top, state.search)

    def _prompt_key(self, state: State, name: str) -> Outcome:
        prompt = state.prompt
        assert prompt is not None
        if name == "Enter":
            state.prompt = None
            if not prompt.text and prompt.previous is not None:  # `/` Enter: the last search again
                state.search = self._searching(state, prompt.previous.pattern, prompt.forward, prompt.origin)
            return CONTINUE
        if name in ("Escape", "C-c", "C-g") or (name in ("BSpace", "C-h") and not prompt.text):
            state.prompt = None
            state.cursor, state.top, state.search = prompt.origin, prompt.origin_top, prompt.previous
            return CONTINUE
        if name in ("BSpace", "C-h"):
            text = prompt.text[:-1]
        elif name == "C-u":
            text = ""
        elif name == "Space":
            text = prompt.text + " "
        elif len(name) == 1 and name.isprintable():
            text = prompt.text + name
        else:
            return CONTINUE
        # Incremental: every change searches again from where the prompt opened.
        state.prompt = dataclasses.replace(prompt, text=text)
        state.cursor, state.top = prompt.origin, prompt.origin_top
        state.search = (
            self._searching(state, search_pattern(text), prompt.forward, prompt.origin) if text else prompt.previous
        )
        return CONTINUE

    def _searching(self, state: State, pattern: Pattern, forward: bool, origin: Pos) -> Search:
        return Search(pattern, forward, Scan(self.source, pattern, origin, forward))

    def _again(self, state: State, same: bool) -> None:
        """n and N: the next match in the search's direction (N: the other)."""
        search = state.search
        if search is None:
            return
        forward = search.forward if same else not search.forward
        on_current = search.current is not None and search.current.start == state.cursor
        known = search.total is not None and search.index is not None and on_current
        scan = Scan(self.source, search.pattern, state.cursor, forward, count=not known)
        index, total = (search.index, search.total) if known else (None, None)
        state.search = dataclasses.replace(search, scan=scan, current=None, index=index, total=total)


def _width_at(text: str, x: int) -> int:
    """The width of the cell at column x (1 past the text)."""
    laid = cells(text)
    i = cell_at(laid, x)
    return laid[i].width if i >= 0 and laid[i].x == x else 1


def _columns_text(text: str, left: int, right: int) -> str:
    """The characters of a row whose first column lies in [left, right]; a wide character cut by
    the left edge shows as a blank, so the rectangle's columns stay aligned."""
    out: list[str] = []
    for cell in cells(text):
        if cell.x < left < cell.x + cell.width:
            out.append(" ")
        elif left <= cell.x <= right:
            out.append(text[cell.start : cell.end])
    return "".join(out).rstrip(" ")

