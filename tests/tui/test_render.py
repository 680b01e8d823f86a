"""Rendering a shadow screen: attributes, colours, cursor, wide characters, dirty lines only."""

from __future__ import annotations

from rich.color import Color
from rich.style import Style
from textual.app import App, ComposeResult

from termux.emulator import ByteStream, Screen
from termux.tui.render import Palette, ScreenRenderer, render_line
from termux.tui.widgets import TerminalView


def screen_with(data: bytes, cols: int = 20, rows: int = 4) -> Screen:
    screen = Screen(cols, rows)
    ByteStream(screen).feed(data)
    return screen


def styles_of(screen: Screen, y: int = 0, cursor_x: int | None = None) -> list[tuple[str, Style | None]]:
    strip = render_line(screen, y, Palette(), cursor_x)
    return [(seg.text, seg.style) for seg in strip if seg.text.strip()]


def test_every_sgr_attribute() -> None:
    screen = screen_with(b"\x1b[1mB\x1b[0m\x1b[3mI\x1b[0m\x1b[4mU\x1b[0m\x1b[9mS\x1b[0m\x1b[5mK\x1b[0m\x1b[7mR")
    (b, i, u, s, k, r) = [style for _, style in styles_of(screen)]
    assert b is not None and b.bold
    assert i is not None and i.italic
    assert u is not None and u.underline
    assert s is not None and s.strike
    assert k is not None and k.blink
    assert r is not None and r.reverse


def test_colours_16_256_truecolour() -> None:
    screen = screen_with(b"\x1b[31mA\x1b[44mB\x1b[0m\x1b[92mC\x1b[38;5;196mD\x1b[48;2;1;2;3mE")
    (a, b, c, d, e) = [style for _, style in styles_of(screen)]
    assert a is not None and a.color == Color.from_ansi(1)
    assert b is not None and b.bgcolor == Color.from_ansi(4)
    assert c is not None and c.color == Color.from_ansi(10)
    assert d is not None and d.color is not None and d.color.triplet is not None
    assert d.color.triplet.hex == "#ff0000"
    assert e is not None and e.bgcolor is not None and e.bgcolor.triplet is not None
    assert e.bgcolor.triplet.hex == "#010203"


def test_palette_overrides_from_config() -> None:
    palette = Palette({1: "#123456"}, foreground="#eeeeee")
    assert palette.colour("red", True) == Color.parse("#123456")
    assert palette.colour("default", True) == Color.parse("#eeeeee")
    assert palette.colour("default", False) is None


def test_styles_are_cached() -> None:
    palette = Palette()
    first = palette.style("red", "default", True, False, False, False, False, False, None)
    again = palette.style("red", "default", True, False, False, False, False, False, None)
    assert first is again


def test_cursor_cell_is_reversed_and_hidden_cursor_is_not_drawn() -> None:
    screen = screen_with(b"ab")
    texts = styles_of(screen, 0, cursor_x=1)
    assert texts[0][0] == "a" and texts[1][0] == "b"
    assert texts[1][1] is not None and texts[1][1].reverse
    renderer = ScreenRenderer(Palette())
    renderer.take_dirty(screen, show_cursor=True)
    strip = renderer.line(screen, 0)
    assert any(seg.style is not None and seg.style.reverse for seg in strip)
    ByteStream(screen).feed(b"\x1b[?25l")
    assert screen.cursor.hidden
    assert renderer.take_dirty(screen, show_cursor=not screen.cursor.hidden) == {0}
    strip = renderer.line(screen, 0)
    assert not any(seg.style is not None and seg.style.reverse for seg in strip)


def test_wide_characters_take_two_cells() -> None:
    screen = screen_with("中文x".encode(), cols=10)
    strip = render_line(screen, 0, Palette())
    assert strip.cell_length == 10
    assert strip.text.startswith("中文x")


class ViewApp(App[None]):
    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.term = screen

    def compose(self) -> ComposeResult:
        yield TerminalView(id="t")

    def on_mount(self) -> None:
        self.query_one(TerminalView).show(self.term)


async def test_only_dirty_lines_are_rendered_again() -> None:
    screen = Screen(20, 5)
    stream = ByteStream(screen)
    stream.feed(b"one\r\ntwo\r\nthree")
    app = ViewApp(screen)
    async with app.run_test(size=(20, 5)) as pilot:
        view = app.query_one(TerminalView)
        await pilot.pause()
        first = view.renderer.rendered
        assert first >= 5
        stream.feed(b"\x1b[2;1Hxx")  # changes line 1 only (the cursor moves within lines 1..2)
        dirty = view.update_dirty()
        assert 1 in dirty and dirty <= {1, 2}
        await pilot.pause()
        assert view.renderer.rendered - first == len(dirty)
        assert "xxo" in view.render_line(1).text


def test_termux_extra_attributes_dim_hidden_overline() -> None:
    screen = screen_with(b"\x1b[2mD\x1b[0m\x1b[8mH\x1b[0m\x1b[53mO")
    (d, h, o) = [style for _, style in styles_of(screen)]
    assert d is not None and d.dim
    assert h is not None and h.conceal
    assert o is not None and o.overline
