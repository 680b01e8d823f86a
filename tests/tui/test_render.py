"""Rendering a shadow screen: attributes, colours, cursor, wide characters, dirty lines only."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.color import Color
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from termux.emulator import ByteStream, Screen
from termux.emulator.dirty import MovedLines
from termux.tui.render import Palette, ScreenRenderer, render_line
from termux.tui.widgets import TerminalView
from tests.emulator.emu_strategies import chunked, streams


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


def test_a_hyperlink_reaches_the_outer_terminal_as_osc_8_with_one_id_per_link() -> None:
    screen = screen_with(b"see \x1b]8;;https://e.x/a\x1b\\th\x1b[1mis\x1b]8;;\x1b\\ or \x1b]8;;https://e.x/b\x1b\\that")
    strip = render_line(screen, 0, Palette())
    links = [(seg.text.strip(), seg.style.link if seg.style else None) for seg in strip if seg.text.strip()]
    assert links == [("see", None), ("th", "https://e.x/a"), ("is", "https://e.x/a"), ("or", None),
                     ("that", "https://e.x/b")]  # fmt: skip
    # What Textual writes for the line: each linked piece inside OSC 8 (three pieces: a's plain
    # and bold ones, b's), which the outer terminal makes clickable.
    written = strip.render(Console(color_system="truecolor", force_terminal=True))
    assert written.count("\x1b]8;id=") == 3
    assert "https://e.x/b\x1b\\\x1b[1mthat\x1b[0m\x1b]8;;\x1b\\" in written  # b's text, then the link ends


def reference_render_line(screen: Screen, y: int, palette: Palette, cursor_x: int | None) -> Strip:
    """render_line as it was first written, cell by cell: the oracle for the one that finds runs."""
    segments: list[Segment] = []
    text: list[str] = []
    run: tuple[object, ...] | None = None
    run_cursor = False
    for x in range(screen.columns):
        char = screen.buffer[y][x]
        if char.data == "":
            continue  # the right half of a wide character
        attrs = (*char[1:9], getattr(char, "ext", None))
        if attrs != run or x == cursor_x or run_cursor:
            if text and run is not None:
                segments.append(Segment("".join(text), _reference_style(palette, run, run_cursor)))
                text = []
            run, run_cursor = attrs, x == cursor_x
        text.append(char.data)
    if text and run is not None:
        segments.append(Segment("".join(text), _reference_style(palette, run, run_cursor)))
    return Strip(segments).crop_extend(0, screen.columns, None)


def _reference_style(palette: Palette, attrs: tuple[object, ...], cursor: bool) -> Style:
    fg, bg, bold, italics, underscore, strike, reverse, blink, ext = attrs
    return palette.style(fg, bg, bold, italics, underscore, strike, reverse != cursor, blink, ext)  # type: ignore[arg-type]


def characters(strip: Strip) -> list[tuple[str, Style | None]]:
    """Each character with its style, without the padding crop_extend adds (style None): how a
    line is split into segments is not its content, and Rich measures some graphemes (ZWJ
    sequences) differently from the emulator, so the padding differs with the split."""
    chars = [(char, segment.style) for segment in strip for char in segment.text]
    while chars and chars[-1][1] is None:
        chars.pop()
    return chars


@settings(max_examples=200, deadline=None)
@given(streams(), st.integers(0, 19))
def test_render_line_matches_the_cell_by_cell_reference(data: bytes, cursor_x: int) -> None:
    screen = screen_with(data, cols=20, rows=4)
    palette = Palette()
    for y in range(screen.lines):
        # every rendering before the reference's, which turns the row into cells for good
        strips = {cursor: render_line(screen, y, palette, cursor) for cursor in (None, cursor_x)}
        for cursor, strip in strips.items():
            assert strip.cell_length == screen.columns
            assert characters(strip) == characters(reference_render_line(screen, y, palette, cursor))


def screen_of(cols: int, rows: int, moves: bool) -> Screen:
    """A screen whose dirty set is pyte's, or (`moves`) a shadow's, which says how it scrolled."""
    screen = Screen(cols, rows)
    if moves:
        screen.dirty = MovedLines(screen.dirty)
    return screen


@settings(max_examples=300, deadline=None)
@given(chunked(), st.booleans(), st.booleans())
def test_strips_kept_across_chunks_show_what_a_fresh_render_shows(
    data_chunks: tuple[bytes, list[bytes]], show_cursor: bool, moves: bool
) -> None:
    """The renderer keeps a row's strip while the row looks the same (for a row of runs: the same
    lists of the same lengths), and moves its strips up with a screen that says it scrolled
    (`MovedLines`): whatever edits the chunks make, every line it shows after each one is the
    line drawn from scratch."""
    _data, chunks = data_chunks
    screen = screen_of(20, 4, moves)
    stream = ByteStream(screen)
    renderer = ScreenRenderer(Palette())
    lines = b"".join(b"line %d\r\n" % n for n in range(7))  # (a block of lines: the bulk paths)
    for chunk in [b"one\r\n\x1b[31mtwo\x1b[0m three\r\nfour", *chunks, lines, b"\x1b[2;1Hedit" + lines[:9]]:
        stream.feed(chunk)
        renderer.take_dirty(screen, show_cursor)
        cursor = (screen.cursor.x, screen.cursor.y) if show_cursor else None
        for y in range(screen.lines):
            fresh = render_line(screen, y, Palette(), cursor[0] if cursor and cursor[1] == y else None)
            assert _cells([renderer.line(screen, y)]) == _cells([fresh])


@settings(max_examples=300, deadline=None)
@given(chunked(), st.booleans(), st.booleans())
def test_a_scroll_on_the_terminal_then_the_stale_lines_show_every_line(
    data_chunks: tuple[bytes, list[bytes]], show_cursor: bool, moves: bool
) -> None:
    """When the renderer finds the lines moved up (`moved`), a terminal that held the lines drawn
    before, scrolled by that much, then given the stale lines, shows every line as drawn now, and
    fewer lines are written than changed; else the lines it says changed, written over what the
    terminal held, show every line as drawn now."""
    _data, chunks = data_chunks
    screen = screen_of(20, 6, moves)
    stream = ByteStream(screen)
    renderer = ScreenRenderer(Palette())
    renderer.take_dirty(screen, show_cursor)
    terminal = [renderer.line(screen, y) for y in range(screen.lines)]
    for chunk in [b"".join(b"line %d\r\n" % n for n in range(9)), *chunks]:
        stream.feed(chunk)
        changed = renderer.take_dirty(screen, show_cursor)
        now = [renderer.line(screen, y) for y in range(screen.lines)]
        moved = renderer.moved()
        if moved is not None:
            up, stale = moved
            assert 0 < up < screen.lines and len(stale) < len(changed)
            terminal = [*terminal[up:], *[None] * up]  # (what a scroll brings in is blank: stale)
            for y in stale:
                terminal[y] = now[y]
            assert None not in terminal
        else:
            for y in changed:
                terminal[y] = now[y]
        assert [_cells([line]) for line in terminal] == [_cells([line]) for line in now]  # type: ignore[list-item]


def five_lines_drawn() -> tuple[Screen, ByteStream, ScreenRenderer]:
    """A screen of five lines, its stream, and a renderer that drew them."""
    screen = Screen(20, 5)
    stream = ByteStream(screen)
    stream.feed(b"\r\n".join(b"line %d" % n for n in range(5)))
    renderer = ScreenRenderer(Palette())
    renderer.take_dirty(screen, show_cursor=False)
    return screen, stream, renderer


def test_lines_moved_up_are_found_as_a_scroll() -> None:
    screen, stream, renderer = five_lines_drawn()
    assert renderer.moved() is None  # (all drawn the first time)
    stream.feed(b"\r\nnew 1\r\nnew 2\r\nnew 3")
    assert renderer.take_dirty(screen, show_cursor=False) == {0, 1, 2, 3, 4}
    assert renderer.moved() == (3, {2, 3, 4})  # the rest shows what the terminal shows, three lines up
    stream.feed(b"\x1b[H\x1b[2J" + b"\r\n".join(b"other %d" % n for n in range(5)))
    renderer.take_dirty(screen, show_cursor=False)
    assert renderer.moved() is None  # everything new: no scroll saves a line


def test_a_row_of_runs_is_drawn_from_its_runs_and_stays_one() -> None:
    from termux.emulator.rows import Packed

    screen = screen_with(b"plain \x1b[1;31mred\x1b[0m tail\r\n\x1b[5Cindented", cols=20, rows=3)
    assert [type(screen.buffer.peek(y)) for y in range(3)] == [Packed, Packed, type(None)]
    renderer = ScreenRenderer(Palette())
    renderer.take_dirty(screen, show_cursor=True)  # the cursor is on row 1, after "indented"
    lines = [renderer.line(screen, y) for y in range(3)]
    assert [line.text for line in lines] == ["plain red tail      ", "     indented       ", " " * 20]
    assert [type(screen.buffer.peek(y)) for y in range(3)] == [Packed, Packed, type(None)]  # no cells made
    cursor = [seg for seg in lines[1] if seg.style is not None and seg.style.reverse]
    assert [seg.text for seg in cursor] == [" "] and lines[1].text.index("d ") + 1 == 13  # column 13
    assert renderer.take_dirty(screen, show_cursor=True) == set()  # nothing changed: nothing to repaint
    ByteStream(screen).feed(b"\x1b[1;1H\x1b[1;31mplain")  # line 0 changed, and the cursor left line 1
    assert renderer.take_dirty(screen, show_cursor=True) == {0, 1}
    screen.dirty.update({1, 2})  # marked dirty (as pyte marks lines a command may have touched), unchanged
    assert renderer.take_dirty(screen, show_cursor=True) == set()


def test_a_screen_that_says_it_scrolled_has_its_strips_moved_and_only_the_new_line_checked() -> None:
    """A shadow's dirty set says how the screen scrolled (`MovedLines`): the strips move up with
    it and only the new line is drawn; no moved line is even checked. A line edited in the same
    chunk as a scroll is drawn again too."""
    screen = screen_of(20, 5, moves=True)
    stream = ByteStream(screen)
    stream.feed(b"\r\n".join(b"line %d" % n for n in range(5)))
    renderer = ScreenRenderer(Palette())
    renderer.take_dirty(screen, show_cursor=False)
    drawn, checked = renderer.rendered, renderer.reused
    stream.feed(b"\r\nline 5\r\nline 6")
    assert screen.dirty == set(range(5)) and screen.dirty.moved == 2  # pyte's set, and the scroll
    assert renderer.take_dirty(screen, show_cursor=False) == set(range(5))  # every line shows another strip
    assert renderer.rendered == drawn + 2 and renderer.reused == checked  # the two new lines only
    assert [renderer.line(screen, y).text.rstrip() for y in range(5)] == [f"line {n}" for n in range(2, 7)]
    stream.feed(b"\x1b[2;1HLINE\x1b[5;7H\r\nline 7")  # an edit, then a scroll
    renderer.take_dirty(screen, show_cursor=False)
    assert renderer.rendered == drawn + 4  # the edited line (now a line up) and the new one
    shown = [renderer.line(screen, y).text.rstrip() for y in range(5)]
    assert shown == ["LINE 3", "line 4", "line 5", "line 6", "line 7"]


@pytest.mark.parametrize(
    "scroll",
    [
        b"\x1b[2;5r\x1b[5;1H\n",
        b"\x1b[2;5r\x1b[3S",
        b"\x1b[2;5r\x1b[5;1H" + b"".join(b"\r\nin %d" % n for n in range(6)),
    ],
    ids=["line feed", "scroll up", "lines"],
)
def test_a_scroll_of_part_of_the_screen_is_no_move_of_the_whole(scroll: bytes) -> None:
    """Scrolling a region (DECSTBM) moves only its lines: what is above and below it stays where
    it was, and the renderer shows every line as drawn from scratch."""
    screen = screen_of(20, 6, moves=True)
    stream = ByteStream(screen)
    stream.feed(b"\r\n".join(b"line %d" % n for n in range(6)))
    renderer = ScreenRenderer(Palette())
    renderer.take_dirty(screen, show_cursor=True)
    stream.feed(scroll)
    assert screen.dirty.moved == 0
    renderer.take_dirty(screen, show_cursor=True)
    cursor = screen.cursor
    for y in range(screen.lines):
        fresh = render_line(screen, y, Palette(), cursor.x if cursor.y == y else None)
        assert _cells([renderer.line(screen, y)]) == _cells([fresh]), y
    assert renderer.line(screen, 0).text.rstrip() == "line 0" and renderer.line(screen, 5).text.rstrip() == "line 5"


def test_a_scroll_redraws_only_the_new_line_and_every_line_stays_right() -> None:
    screen, stream, renderer = five_lines_drawn()
    for y in range(5):
        renderer.line(screen, y)
    assert renderer.rendered == 5
    stream.feed(b"\r\nline 5")  # everything moves up a line: pyte marks every line dirty
    assert renderer.take_dirty(screen, show_cursor=False) == set(range(5))
    lines = [renderer.line(screen, y) for y in range(5)]
    assert renderer.rendered == 6 and renderer.reused == 4  # only the new bottom line was drawn
    assert [line.text.rstrip() for line in lines] == [f"line {n}" for n in range(1, 6)]
    stream.feed(b"\x1b[1;1H\x1b[2mline 1")  # the same text again, now dim: a cell's extras changed
    renderer.take_dirty(screen, show_cursor=False)
    top = renderer.line(screen, 0)
    assert renderer.rendered == 7
    fresh = render_line(screen, 0, Palette())
    assert [(seg.text, seg.style) for seg in top] == [(seg.text, seg.style) for seg in fresh]
    assert any(seg.style is not None and seg.style.dim for seg in top)


def test_a_frame_shows_one_moment_of_the_screen() -> None:
    """Lines are drawn when the frame is taken: output parsed before Textual paints the frame is
    the next frame's, never mixed into this one (ALT on the top line over the old lines below)."""
    screen = screen_with(b"prompt\r\nbefore-marker\r\n", cols=20, rows=4)
    renderer = ScreenRenderer(Palette())
    renderer.take_dirty(screen, show_cursor=False)
    for y in range(4):
        renderer.line(screen, y)
    ByteStream(screen).feed(b"\x1b[1;1Hpromp!")  # typed on the top line: this frame shows it
    assert renderer.take_dirty(screen, show_cursor=False) == {0}
    ByteStream(screen).feed(b"\x1b[?1049h\x1b[H\x1b[2JALT")  # parsed before the paint
    painted = [renderer.line(screen, y).text.rstrip() for y in range(4)]  # what Textual paints
    assert painted == ["promp!", "before-marker", "", ""]
    assert renderer.take_dirty(screen, show_cursor=False) == {0, 1, 2, 3}  # the next frame
    assert [renderer.line(screen, y).text.rstrip() for y in range(4)] == ["ALT", "", "", ""]


def _cells(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    """Each line as (character, style) per cell: the same picture whatever the segments."""
    return [[(char, seg.style) for seg in strip for char in seg.text] for strip in strips]


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
async def test_the_view_draws_what_textuals_own_pass_would(monkeypatch: pytest.MonkeyPatch, no_color: bool) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")  # Textual then filters every line to monochrome
    screen = Screen(12, 4)
    ByteStream(screen).feed(b"\x1b[31;44mred\x1b[0m plain\r\n\x1b[1;4mbold\x1b[0m \xe4\xb8\xad")
    app = ViewApp(screen)
    async with app.run_test(size=(16, 4)) as pilot:  # the view wider than the screen: padded
        view = app.query_one(TerminalView)
        await pilot.pause()
        assert any(type(f).__name__ == "Monochrome" for f in view.get_line_filters()) is no_color
        for crop in (view.size.region, Region(2, 1, 9, 2)):  # whole, and a part of the lines
            ours = view.render_lines(crop)
            textuals = Widget.render_lines(view, crop)
            assert [strip.cell_length for strip in ours] == [crop.width] * crop.height
            assert _cells(ours) == _cells(textuals)


async def test_the_view_s_lines_are_the_ones_textual_s_styles_cache_would_make() -> None:
    """TerminalView.render_lines skips Textual's styles cache, which has nothing to add to this
    widget: a Textual that starts adding something (or a style that needs it) fails here."""
    from textual.geometry import Region
    from textual.widget import Widget

    screen = screen_with(
        b"\x1b[1;31mred\x1b[0m plain \x1b[44mblue\x1b[0m\r\n\x1b[7mrev\x1b[0m \xe4\xb8\xad", cols=30, rows=4
    )
    app = ViewApp(screen)
    async with app.run_test(size=(24, 6)) as pilot:  # the view is narrower and taller than the session
        view = app.query_one(TerminalView)
        await pilot.pause()
        for crop in (Region(0, 0, 24, 6), Region(3, 1, 10, 2), Region(0, 4, 24, 2)):
            ours = view.render_lines(crop)
            view.refresh()  # Textual's cache drawn afresh
            theirs = Widget.render_lines(view, crop)
            assert [list(strip) for strip in ours] == [list(strip) for strip in theirs]


class SideBySide(App[None]):
    """A sidebar beside a terminal view in one container, as on the main screen."""

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.term = screen

    def compose(self) -> ComposeResult:
        from textual.containers import Horizontal

        from termux.tui.widgets import Sidebar

        with Horizontal():
            yield Sidebar(id="sidebar")
            yield TerminalView(id="t")

    def on_mount(self) -> None:
        from termux.tui.model import SessionRow
        from termux.tui.widgets import Sidebar

        self.query_one(Sidebar).set_rows([SessionRow("%0", "a"), SessionRow("%1", "b")], "%0")
        self.query_one(TerminalView).show(self.term)


async def test_a_streaming_view_does_not_draw_the_sidebar_beside_it_again() -> None:
    from termux.tui.model import SessionRow
    from termux.tui.widgets import Sidebar

    screen = Screen(40, 10)
    stream = ByteStream(screen)
    app = SideBySide(screen)
    async with app.run_test(size=(70, 10)) as pilot:
        sidebar, view = app.query_one(Sidebar), app.query_one(TerminalView)
        await pilot.pause()
        asked: list[Region] = []
        render_lines = sidebar.render_lines
        sidebar.render_lines = lambda crop: (asked.append(crop), render_lines(crop))[1]  # type: ignore[method-assign]
        drawn = sidebar.rows_drawn
        for n in range(20):
            stream.feed(b"streaming line %d\r\n" % n)
            view.update_dirty()
            await pilot.pause()
        assert "streaming line 19" in "".join(strip.text for strip in view.render_lines(view.size.region))
        assert asked  # the compositor asked for the sidebar's lines (its container overlaps the view's) ...
        assert sidebar.rows_drawn == drawn  # ... and none of them was drawn again
        sidebar.update_row(SessionRow("%1", "b", unseen=True))  # a row that changed is drawn again
        await pilot.pause()
        assert sidebar.rows_drawn == drawn + 1


async def test_the_sidebar_s_lines_are_the_ones_textual_s_styles_cache_would_make() -> None:
    """Sidebar.render_lines draws its lines and its border's cell itself: a Textual that adds
    something to them (or a style that needs it) fails here."""
    from termux.tui.model import SessionRow
    from termux.tui.widgets import Sidebar

    app = SideBySide(Screen(40, 10))
    async with app.run_test(size=(70, 10)) as pilot:
        sidebar = app.query_one(Sidebar)
        sidebar.update_row(SessionRow("%1", "b", unseen=True, bell=True, preview="make: *** [all] Error 2"))
        await pilot.pause()
        width, height = sidebar.outer_size
        for crop in (Region(0, 0, width, height), Region(3, 1, 10, 4), Region(width - 1, 0, 1, height)):
            ours = sidebar.render_lines(crop)
            sidebar.refresh()  # Textual's cache drawn afresh
            theirs = Widget.render_lines(sidebar, crop)
            assert [list(strip) for strip in ours] == [list(strip) for strip in theirs]


async def test_a_changed_sidebar_row_is_written_alone_and_an_unchanged_one_not_at_all() -> None:
    """The sidebar writes a changed row to the terminal itself (`Painted.paint_lines`), its two
    lines only, which a reference emulator shows as the sidebar draws them; a row that shows what
    it showed writes nothing."""
    import pyte

    from termux.tui.model import SessionRow
    from termux.tui.widgets import Sidebar

    app = SideBySide(Screen(40, 10))
    async with app.run_test(size=(70, 10)) as pilot:
        sidebar = app.query_one(Sidebar)
        await pilot.pause()
        writes: list[str] = []
        app.write_to_terminal = writes.append  # type: ignore[attr-defined]
        assert not sidebar.update_row(SessionRow("%1", "b"))  # what it shows already
        assert writes == []
        assert sidebar.update_row(SessionRow("%1", "b", unseen=True, preview="tests passed"))
        assert len(writes) == 1
        outer = pyte.Screen(70, 10)
        pyte.Stream(outer).feed(writes[0])
        width = sidebar.outer_size.width
        assert [line[:width] for line in outer.display[2:4]] == [
            "".join(strip.text for strip in sidebar.render_lines(Region(0, y, width, 1))) for y in (2, 3)
        ]
        assert "1:b *" in outer.display[2] and "tests passed" in outer.display[3]
        assert all(not line.strip() for y, line in enumerate(outer.display) if y not in (2, 3))


async def test_changed_sidebar_rows_write_only_their_changed_lines_in_one_write() -> None:
    """Rows whose preview changed (and nothing else) write their preview lines only, every row of
    one update in one write, where a reference emulator shows them as the sidebar draws them."""
    import pyte

    from termux.tui.model import SessionRow
    from termux.tui.widgets import Sidebar

    app = SideBySide(Screen(40, 10))
    async with app.run_test(size=(70, 10)) as pilot:
        sidebar = app.query_one(Sidebar)
        sidebar.set_rows([SessionRow("%1", "b"), SessionRow("%2", "c")], "%1")
        await pilot.pause()
        writes: list[str] = []
        app.write_to_terminal = writes.append  # type: ignore[attr-defined]
        assert sidebar.update_rows([SessionRow("%1", "b", preview="one"), SessionRow("%2", "c", preview="two")]) == 2
        assert len(writes) == 1  # both rows, one write
        outer = pyte.Screen(70, 10)
        pyte.Stream(outer).feed(writes[0])
        width = sidebar.outer_size.width
        written = [y for y, line in enumerate(outer.display) if line.strip()]
        assert written == [1, 3]  # the preview lines; the name lines show what they showed
        assert [outer.display[y][:width] for y in written] == [
            "".join(strip.text for strip in sidebar.render_lines(Region(0, y, width, 1))) for y in written
        ]
        assert "one" in outer.display[1] and "two" in outer.display[3]


def test_a_row_drawn_before_a_row_down_keeps_its_strip() -> None:
    """A program redrawing itself draws its transcript a row up each frame (new row objects, the
    same runs): only the rows it had not drawn before are rendered, and every line is the one drawn
    from scratch."""

    def frame(n: int) -> bytes:
        rows = (f"{k:4d} \x1b[33mword{k % 5}\x1b[m \x1b[2m{'.' * (k % 7)}\x1b[m" for k in range(n + 1, n + 6))
        return "".join(f"\x1b[{y};1H{row}\x1b[K" for y, row in enumerate(rows, 1)).encode()

    screen = Screen(30, 5)
    stream = ByteStream(screen)
    renderer = ScreenRenderer(Palette())
    stream.feed(frame(0))
    renderer.take_dirty(screen, show_cursor=False)
    assert renderer.rendered == 5
    stream.feed(frame(1))  # rows 2-5 of frame 0 are rows 1-4 now
    assert renderer.take_dirty(screen, show_cursor=False) == set(range(5))
    assert renderer.rendered == 6 and renderer.reused == 4
    for y in range(5):
        fresh = render_line(screen, y, Palette())
        assert [(seg.text, seg.style) for seg in renderer.line(screen, y)] == [(seg.text, seg.style) for seg in fresh]


def test_a_line_at_the_terminal_edge_ends_its_default_blanks_with_erase_in_line() -> None:
    """A view at the terminal's right edge writes a line's trailing blanks in default attributes
    as EL; blanks in other attributes (a background, reverse video) are written as they are; a
    terminal that showed other text there then shows the screen's cells."""
    import pyte

    from termux.tui.widgets import _to_edge

    console = Console(color_system="truecolor")
    screen = screen_with(b"line 1\r\n\x1b[41mred   \x1b[m\r\n\x1b[7m    \x1b[m\r\n", cols=12, rows=4)
    renderer = ScreenRenderer(Palette())
    renderer.take_dirty(screen, show_cursor=False)
    lines = [_to_edge(renderer.line(screen, y), console) for y in range(4)]
    assert lines[0] == "line 1\x1b[K" and lines[3] == "\x1b[K"
    assert lines[1].endswith("\x1b[0m\x1b[K") and "red   " in lines[1]  # its red blanks kept
    outer = pyte.Screen(12, 4)
    stream = pyte.Stream(outer)
    stream.feed("\x1b[44m" + "#" * 48 + "\x1b[m")  # a terminal full of something else
    for y, text in enumerate(lines):
        stream.feed(f"\x1b[{y + 1};1H{text}")
    assert outer.display == screen.display
    assert [(cell.bg, cell.reverse) for cell in (outer.buffer[1][5], outer.buffer[1][8], outer.buffer[2][2])] == [
        ("red", False),
        ("default", False),
        ("default", True),
    ]
