"""CopyView, the TUI's copy mode, driven against a capture that answers as the server does (escapes,
wrapped flags, the pinned base): what it draws, what Enter on a link copies, the mouse's gestures."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.color import Color
from rich.console import Console
from rich.style import Style

from termux.copymode import key_table
from termux.tui.copyview import CopyView
from termux.tui.render import Palette

CONSOLE = Console(color_system="truecolor", force_terminal=True, width=40)


class Capture:
    """`session.capture` over fixed lines (oldest first, the screen's `rows` last)."""

    def __init__(self, lines: list[str], rows: int, cols: int = 40) -> None:
        self.lines, self.rows, self.cols = lines, rows, cols
        self.calls: list[tuple[int, int]] = []

    async def __call__(self, cmd: str, **args: Any) -> dict[str, Any]:
        assert cmd == "session.capture" and args["escapes"] and args["wrapped"]
        history = len(self.lines) - self.rows
        start, end = max(-history, args["start"]), min(self.rows - 1, args["end"])
        self.calls.append((start, end))
        return {
            "lines": self.lines[history + start : history + end + 1],
            "wrapped": [False] * (end - start + 1),
            "cols": self.cols, "rows": self.rows, "history": history, "base": history, "start": start,
            "cursor": {"x": 0, "y": self.rows - 1, "hidden": False},
        }  # fmt: skip


async def opened(capture: Capture, height: int, **kwargs: Any) -> tuple[CopyView, list[str | None]]:
    done: list[str | None] = []
    view = CopyView(
        capture, "%0", height, bindings=key_table("vi"), on_done=done.append, on_change=lambda lines: None, **kwargs
    )
    view.start(capture.rows)
    while not view.shown:
        await asyncio.sleep(0)
    return view, done


async def settled(view: CopyView) -> None:
    while view._queue or (view.mode is not None and view.mode.busy):
        await asyncio.sleep(0)
    await asyncio.sleep(0)


def styles(view: CopyView, y: int) -> list[tuple[str, Style | None]]:
    strip = view.line(y, 40, CONSOLE, Style())
    return [(seg.text, seg.style) for seg in strip if seg.text.strip()]


async def test_it_draws_the_captured_colours_selection_and_cursor_over_wide_characters() -> None:
    capture = Capture(["old", "\x1b[0;31mred\x1b[0m 界界 end"], rows=1)
    view, _ = await opened(capture, height=2)
    assert capture.calls == [(-1, 0)]  # one capture of the screenful
    for key in ("0", "w", "v", "l"):  # from the first 界 to the second (one cell to the right)
        view.key(key, key)
    await settled(view)
    drawn = styles(view, 1)
    assert drawn[0][0] == "red" and drawn[0][1] is not None and drawn[0][1].color == Color.parse("color(1)")
    selected = [text for text, style in drawn if style is not None and style.bgcolor == Color.parse("yellow")]
    assert "".join(selected).replace(" ", "") == "界界"
    view.key("y", "y")
    await settled(view)
    assert view.active is False


async def test_the_palette_of_the_config_recolours_ansi_colours() -> None:
    capture = Capture(["\x1b[0;31mred\x1b[0m"], rows=1)
    view, _ = await opened(capture, height=1, palette=Palette({1: "#ff8800"}))
    assert styles(view, 0)[0][1].color == Color.parse("#ff8800")  # type: ignore[union-attr]


async def test_enter_on_a_link_copies_its_target_and_with_a_selection_the_selection() -> None:
    line = "see \x1b]8;;https://e.x/doc\x1b\\the doc\x1b]8;;\x1b\\ here"
    capture = Capture([line], rows=1)
    view, done = await opened(capture, height=1)
    view.key("0", "0")
    view.key("enter", "\r")  # on "s": no link there, no selection: just leave
    await settled(view)
    assert done == [None]
    view, done = await opened(capture, height=1)
    for key in ("0", "w"):
        view.key(key, key)
    await settled(view)
    assert view.link_at_cursor() == "https://e.x/doc"
    view.key("enter", "\r")
    await settled(view)
    assert done == ["https://e.x/doc"]
    view, done = await opened(capture, height=1)
    for key in ("0", "w", "v", "e", "enter"):
        view.key(key, "\r" if key == "enter" else key)
    await settled(view)
    assert done == ["the"]


async def test_a_triple_click_copies_the_line_once_not_the_word_first() -> None:
    capture = Capture(["one two three"], rows=1)
    view, done = await opened(capture, height=1)
    view.mouse("down", 0, 5)
    view.mouse("up", 0, 5)
    view.mouse("down", 0, 5)
    view.mouse("up", 0, 5)
    view.mouse("word", 0, 5)
    await settled(view)
    assert done == [] and view._word_timer is not None  # the word waits for a third click
    view.mouse("down", 0, 5)
    assert view._word_timer is None  # it came
    view.mouse("up", 0, 5)
    view.mouse("line", 0, 5)
    await settled(view)
    assert done == ["one two three"]


async def test_a_double_click_copies_the_word_when_no_third_click_comes() -> None:
    capture = Capture(["one two three"], rows=1)
    view, done = await opened(capture, height=1)
    copied = asyncio.Event()
    view.on_done = lambda text: (done.append(text), copied.set())  # type: ignore[assignment, func-returns-value]
    view.mouse("word", 0, 5)
    await asyncio.wait_for(copied.wait(), 10)  # the word timer's copy, not a key
    assert done == ["two"] and view._word_timer is None


async def test_a_width_change_under_copy_mode_ends_it_saying_why() -> None:
    capture = Capture([f"line {i}" for i in range(100)], rows=5)
    view, done = await opened(capture, height=5)
    capture.cols = 30  # the session was resized: its lines are wrapped anew, the numbering is gone
    view.key("g", "g")  # the top of history: a page to fetch
    await settled(view)
    assert done == [None] and view.message == "copy mode ended: the session was resized"


async def test_a_refused_capture_ends_copy_mode_saying_why() -> None:
    from termux.client import TermuxError

    capture = Capture([f"line {i}" for i in range(100)], rows=5)
    view, done = await opened(capture, height=5)

    async def gone(cmd: str, **args: Any) -> dict[str, Any]:
        raise TermuxError("no_session", "no session '%0'")

    view.request = gone
    view.key("g", "g")
    await settled(view)
    assert done == [None] and view.message == "copy mode ended: no session '%0' (no_session)"
    view.key("j", "j")  # keys after it are dropped, not queued for a dead copy mode
    assert not view._queue


async def test_a_search_fetches_its_batches_as_plain_text_and_draws_a_found_line_in_colour() -> None:
    lines = [f"line {i}" for i in range(3000)]
    lines[100] = "\x1b[0;31mthe MARKER\x1b[0m"
    capture = Capture(lines, rows=5)
    plain: list[bool] = []
    real = capture.__call__

    async def counted(cmd: str, **args: Any) -> dict[str, Any]:
        plain.append(not args["escapes"])
        reply = await real(cmd, **{**args, "escapes": True})
        if not args["escapes"]:
            reply["lines"] = [line.replace("\x1b[0;31m", "").replace("\x1b[0m", "") for line in reply["lines"]]
        return reply

    view, _ = await opened(capture, height=5)
    view.request = counted
    for key in "?MARKER":
        view.key(key, key)
    view.key("enter", "\r")
    await settled(view)
    assert view.mode is not None and view.mode.cursor == (100 - 2995, 4)
    assert True in plain and plain[-1] is False  # batches plain; the found line's screenful styled
    row = next(y for y, r in enumerate(view.view.rows) if "MARKER" in r.line.text)  # type: ignore[union-attr]
    drawn = styles(view, row)
    assert drawn[0][1] is not None and drawn[0][1].color == Color.parse("color(1)")
