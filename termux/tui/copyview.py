"""Copy mode in the TUI: termux/copymode's model over the server's lines, drawn in the terminal view.

`CopyView` owns one copy mode of one session: a `PagedLines` source fetched over `session.capture`
(one screenful to open, however long the history), the `CopyMode` model, and a queue of the keys
and mouse gestures given to it. One task applies them in order; an operation that needs lines the
source lacks fetches them and runs again (the model changes nothing until it has them); between
queued operations a running search takes one bounded step at a time, yielding to the loop, so a
key typed during a long count is applied at once.

The terminal view draws `line(y)` while `shown` (the shadow screen until the first page arrives)
and the status line `status()`; `on_change(lines)` says when to draw them again (`lines`: the
lines too, not just the status). When the model copies, `on_done(text)` gets the text (the app
stores it as a paste buffer and writes OSC 52); leaving without a copy gives None.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from rich.color import Color, ColorType
from rich.console import Console
from rich.style import Style
from rich.text import Span, Text
from textual.strip import Strip

from termux.client import TermuxError
from termux.copymode import CONTINUE, Copy, CopyMode, Leave, NeedLines, Outcome, Unavailable, View
from termux.copymode.lines import cell_at, cells, columns
from termux.copymode.paged import PagedLines
from termux.keys import textual_key_model
from termux.tui.render import Palette

Request = Callable[..., Awaitable[dict[str, Any]]]
Op = Callable[[], Outcome]

SELECTED = Style(color="black", bgcolor="yellow")  # tmux's mode-style
MATCH = Style(color="black", bgcolor="cyan")  # copy-mode-match-style
CURRENT = Style(color="black", bgcolor="magenta")  # copy-mode-current-match-style
CURSOR = Style(reverse=True)
MAX_QUEUED = 256  # keys and gestures waiting for the model; past it further ones are dropped
# A double click's word is copied this long after it (tmux's 0.3 s), unless a third click makes it
# a line first: one timer, armed only by a double click.
WORD_COPY_DELAY = 0.3
TEXT_CACHE = 4  # screenfuls of drawn lines kept
PLAIN_FETCH = 2  # a fetch of more screenfuls than this (a search's batch) comes without escapes


def key_name(key: str, character: str | None) -> str | None:
    """A Textual key as copy mode's tables name it (tmux's spelling), None for an unknown key."""
    from termux.copymode import key_name as tmux_name

    model = textual_key_model(key, character)
    return None if model is None else tmux_name(*model)


class CopyView:
    """Copy mode over session `target`, `height` rows by `width` columns of the terminal view."""

    def __init__(
        self,
        request: Request,
        target: str,
        height: int,
        *,
        bindings: Mapping[str, str],
        on_done: Callable[[str | None], None],
        on_change: Callable[[bool], None],
        wheel_lines: int = 3,
        leave_at_bottom: bool = False,
        palette: Palette | None = None,
    ) -> None:
        self.request = request
        self.target = target
        self.height = max(1, height)
        self.bindings = bindings
        self.on_done = on_done
        self.on_change = on_change
        self.wheel_lines = wheel_lines
        self.palette = palette or Palette()  # the config's colours, as the terminal view uses them
        self.leave_at_bottom = leave_at_bottom  # opened by the wheel: scrolling back down leaves (tmux's -e)
        self.source: PagedLines | None = None
        self.mode: CopyMode | None = None
        self.view: View | None = None
        self.active = True
        self.message = ""  # said on leaving (a resize ended copy mode, ...)
        self._queue: deque[Op] = deque()  # keys and gestures, in order
        self._wake = asyncio.Event()
        self._texts: dict[int, Text] = {}
        self._dragged = False
        self._word_timer: asyncio.TimerHandle | None = None
        self.captures = 0  # session.capture requests made (tests prove what was read)
        self.task: asyncio.Task[None] | None = None

    @property
    def shown(self) -> bool:
        """The first page arrived: the view draws copy mode."""
        return self.view is not None and self.active

    def start(self, rows: int) -> asyncio.Task[None]:
        """Open on the session (`rows`: its screen's height as the view knows it)."""
        self.task = asyncio.ensure_future(self._run(rows))
        return self.task

    def close(self, text: str | None = None) -> None:
        if self._word_timer is not None:
            self._word_timer.cancel()
            self._word_timer = None
        if self.active:
            self.active = False
            self._queue.clear()
            self._wake.set()
            self.on_done(text)

    # -- input -------------------------------------------------------------------------------

    def key(self, key: str, character: str | None) -> None:
        name = key_name(key, character)
        if name is not None:
            self._push(lambda: self._key(name))

    def _key(self, name: str) -> Outcome:
        mode = self.mode
        assert mode is not None
        if (
            mode.selection is None
            and mode.state.prompt is None
            and mode.bindings.get(name) == "copy-selection-and-cancel"
            and (link := self.link_at_cursor())
        ):
            return Copy(link)  # Enter on a hyperlink copies its target
        return mode.feed(name)

    def mouse(self, kind: str, row: int, column: int) -> None:
        """A gesture at a cell of the view: "down", "drag", "up", "word" (double click), "line"
        (triple click), "wheel-up", "wheel-down"."""
        if kind != "word" and self._word_timer is not None:  # the click after a double click
            self._word_timer.cancel()
            self._word_timer = None
        if kind == "down":
            self._dragged = False
            self._push(lambda: self._model.press(row, column))
        elif kind == "drag":
            self._dragged = True
            self._push(lambda: self._model.drag(row, column))
        elif kind == "up" and self._dragged:  # a drag copies on release, as tmux does
            self._dragged = False
            self._push(self._copy_selection)
        elif kind == "word":
            self._push(lambda: self._model.select_word(row, column))
            loop = asyncio.get_running_loop()
            self._word_timer = loop.call_later(WORD_COPY_DELAY, self._copy_word)
        elif kind == "line":
            self._push(lambda: self._model.select_row(row, column))
            self._push(self._copy_selection)
        elif kind in ("wheel-up", "wheel-down"):
            command = "scroll-up" if kind == "wheel-up" else "scroll-down"
            for _ in range(self.wheel_lines):
                self._push(lambda: self._model.command(command))
            if kind == "wheel-down" and self.leave_at_bottom:
                self._push(self._leave_if_at_bottom)

    def _copy_word(self) -> None:
        self._word_timer = None
        self._push(self._copy_selection)

    @property
    def _model(self) -> CopyMode:
        assert self.mode is not None
        return self.mode

    def _copy_selection(self) -> Outcome:
        return self._model.copy() if self._model.selection is not None else CONTINUE

    def _leave_if_at_bottom(self) -> Outcome:
        mode = self._model
        at_bottom = mode.state.top >= mode.source.last - mode.height + 1
        return Leave() if at_bottom and mode.selection is None else CONTINUE

    def _push(self, op: Op) -> None:
        if self.active and len(self._queue) < MAX_QUEUED:
            self._queue.append(op)
            self._wake.set()

    # -- the task ----------------------------------------------------------------------------

    async def _run(self, rows: int) -> None:
        try:
            await self._open(rows)
            while self.active:
                mode = self._model
                if self._queue:
                    outcome = await self._apply(self._queue.popleft())
                elif mode.busy:
                    outcome = await self._apply(mode.work)
                else:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                if not self.active:
                    return
                if isinstance(outcome, Copy):
                    self.close(outcome.text)
                    return
                if isinstance(outcome, Leave):
                    self.close(None)
                    return
                await self._draw()
                if mode.busy and not self._queue:
                    await asyncio.sleep(0)  # a search's next step waits behind whatever came meanwhile
        except Resized:
            self.message = "copy mode ended: the session was resized"
            self.close(None)
        except TermuxError as exc:  # the session went, or the server refused a capture
            self.message = f"copy mode ended: {exc.message} ({exc.code})"
            self.close(None)

    async def _open(self, rows: int) -> None:
        """One capture: the bottom screenful, and the numbering to pin."""
        reply = await self._capture(rows - self.height, rows - 1, None)
        source = PagedLines(-reply["history"], reply["rows"] - 1, reply["cols"], base=reply["base"], page=self.height)
        got, lines = reply["start"], reply["lines"]
        source.fill(got, got + len(lines), got, lines, reply.get("wrapped") or [])
        last = source.last
        self.source = source
        cursor = reply.get("cursor") or {}
        self.mode = CopyMode(
            source, self.height, cursor=(int(cursor.get("y", last)), int(cursor.get("x", 0))), bindings=self.bindings
        )
        await self._draw()

    async def _capture(self, start: int, end: int, base: int | None, escapes: bool = True) -> dict[str, Any]:
        self.captures += 1
        args: dict[str, Any] = {"target": self.target, "start": start, "end": end, "escapes": escapes, "wrapped": True}
        if base is not None:
            args["base"] = base
        return await self.request("session.capture", **args)

    async def _fetch(self, start: int, stop: int) -> None:
        """Fetch lines the model asked for: with escapes (to draw) up to a few screenfuls, as plain
        text (cheaper for the server to render and to carry) for a search's batch."""
        source = self.source
        assert source is not None
        plain = stop - start > PLAIN_FETCH * self.height
        reply = await self._capture(start, stop - 1, source.base, escapes=not plain)
        if reply["cols"] != source.width:
            raise Resized  # the lines were wrapped anew: the pinned numbering no longer holds
        source.fill(start, stop, reply["start"], reply["lines"], reply.get("wrapped") or [], plain=plain)

    async def _restyle(self, start: int, stop: int) -> None:
        """Lines about to be drawn that were fetched as plain text: their escapes now."""
        source = self.source
        assert source is not None
        reply = await self._capture(start, stop - 1, source.base)
        if reply["cols"] != source.width:
            raise Resized
        source.restyle(reply["start"], reply["lines"])

    async def _apply(self, op: Op) -> Outcome:
        while isinstance(outcome := op(), NeedLines):
            await self._fetch(outcome.start, outcome.stop)
            if not self.active:
                return CONTINUE
        return outcome

    async def _draw(self) -> None:
        """Take the view; the lines are drawn again only if what they show changed (a search
        step that only counted changes the status line alone)."""
        mode = self._model
        while True:
            try:
                view = mode.view()
                source = self.source
                assert source is not None
                plain = source.unstyled(view.top, view.top + len(view.rows)) if view.rows else None
                if plain is None:
                    break
                await self._restyle(*plain)
            except Unavailable as missing:
                await self._fetch(missing.start, missing.stop)
        old, self.view = self.view, view
        if len(self._texts) > TEXT_CACHE * self.height:
            self._texts.clear()
        self.on_change(old is None or (old.top, old.rows, old.cursor) != (view.top, view.rows, view.cursor))

    def resize(self, height: int) -> None:
        self.height = max(1, height)
        if self.mode is not None:
            self.mode.resize(self.height)
            self._push(lambda: CONTINUE)  # draws again (fetching what the new height shows)

    # -- drawing -----------------------------------------------------------------------------

    def status(self) -> str:
        return "copy mode  " + (self.view.status() if self.view is not None else "…")

    def link_at_cursor(self) -> str:
        """The hyperlink target under the cursor ("" for none)."""
        mode, source = self.mode, self.source
        if mode is None or source is None:
            return ""
        y, x = mode.cursor
        try:
            (styled,) = source.styled(y, y + 1)
        except Unavailable:
            return ""
        laid = cells(styled.line.text)
        if not laid:
            return ""
        cell = laid[cell_at(laid, x)]
        if not cell.x <= x < cell.x + cell.width:
            return ""
        return next((target for a, b, target in styled.links if a <= cell.start < b), "")

    def line(self, y: int, width: int, console: Console, base: Style) -> Strip:
        view, source = self.view, self.source
        if view is None or source is None or y >= len(view.rows):
            return Strip.blank(width, base)
        row = view.rows[y]
        text = self._texts.get(row.y)
        if text is None:
            try:
                (styled,) = source.styled(row.y, row.y + 1)
                text = _repainted(Text.from_ansi(styled.escaped, no_wrap=True, end=""), self.palette)
            except Unavailable:
                text = Text(row.line.text, no_wrap=True, end="")
            self._texts[row.y] = text
        text = text.copy()
        plain = row.line.text
        if text.plain.rstrip(" ") != plain.rstrip(" "):  # the decoder read it otherwise: the model's text
            text = Text(plain, no_wrap=True, end="")
        pad = width - columns(text.plain)
        if pad > 0:
            text.append(" " * pad)
        laid = cells(text.plain)

        def paint(spans: tuple[tuple[int, int], ...], style: Style) -> None:
            for x0, x1 in spans:
                a, b = _offsets(laid, x0, x1)
                if b > a:
                    text.stylize(style, a, b)

        paint(row.selected, SELECTED)
        paint(row.matches, MATCH)
        paint(row.current, CURRENT)
        if view.cursor[0] == y:
            x = view.cursor[1]
            paint(((x, x + 1),), CURSOR)
        palette = self.palette
        if palette.foreground is not None or palette.background is not None:
            base = base + Style(color=palette.foreground, bgcolor=palette.background)
        text.style = base
        return Strip(list(text.render(console)), text.cell_len).crop_extend(0, width, base)


def _repainted(text: Text, palette: Palette) -> Text:
    """ANSI colours 0-15 as the config's palette overrides them (the terminal view's colours)."""
    overrides = palette.overrides
    if not overrides:
        return text
    spans: list[Span] = []
    for span in text.spans:
        style = span.style
        if isinstance(style, Style):
            new_fore, new_back = _override(style.color, overrides), _override(style.bgcolor, overrides)
            if new_fore is not None or new_back is not None:
                style = style + Style(color=new_fore, bgcolor=new_back)
        spans.append(Span(span.start, span.end, style))
    text.spans = spans
    return text


def _offsets(laid: list[Any], x0: int, x1: int) -> tuple[int, int]:
    """The characters of the cells in columns x0 <= x < x1 (`laid` covers every column)."""
    if not laid or x1 <= x0:
        return 0, 0
    first, last = laid[cell_at(laid, x0)], laid[cell_at(laid, x1 - 1)]
    start = first.start if x0 < first.x + first.width else first.end
    return int(start), int(last.end)


class Resized(Exception):
    """The session's width changed under copy mode."""


def _override(colour: Color | None, overrides: dict[int, Color]) -> Color | None:
    if colour is None or colour.type != ColorType.STANDARD or colour.number is None:
        return None
    return overrides.get(colour.number)
