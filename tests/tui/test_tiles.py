"""The live grid's model: filter, geometry, moves, and which part of a screen a tile shows."""

from __future__ import annotations

import time
from typing import Any

from termux.emulator import ByteStream, Screen
from termux.tui import tiles
from termux.tui.model import SessionRow
from termux.tui.render import Palette


def screen_with(data: bytes, cols: int = 80, rows: int = 24) -> Any:
    screen = Screen(cols, rows)
    ByteStream(screen).feed(data)
    return screen


def test_the_filter_keeps_names_holding_the_text_in_any_case_in_order() -> None:
    names = ["build", "Server", "tests", "observer", "db"]
    assert tiles.matching(names, "") == [0, 1, 2, 3, 4]
    assert tiles.matching(names, "SER") == [1, 3]
    assert tiles.matching(names, "st") == [2]
    assert tiles.matching(names, "nothing") == []


def test_twelve_sessions_fill_the_area_with_tiles_shaped_like_screens() -> None:
    geometry = tiles.grid_geometry(12, 100, 29)
    assert (geometry.columns, geometry.shown_rows) == (4, 3)  # all twelve in view
    assert (geometry.width, geometry.height) == (25, 9)
    assert geometry.total_rows == 3
    assert geometry.columns * geometry.width <= 100 and geometry.shown_rows * geometry.height <= 29


def test_one_session_takes_the_whole_area() -> None:
    geometry = tiles.grid_geometry(1, 100, 29)
    assert (geometry.columns, geometry.width, geometry.height, geometry.shown_rows) == (1, 100, 29, 1)


def test_more_sessions_than_fit_get_the_smallest_tiles_and_scroll() -> None:
    geometry = tiles.grid_geometry(50, 100, 29)
    assert geometry.width >= tiles.MIN_TILE_WIDTH and geometry.height >= tiles.MIN_TILE_HEIGHT
    assert geometry.columns * geometry.width <= 100
    assert geometry.shown_rows * geometry.height <= 29
    assert geometry.total_rows > geometry.shown_rows  # not all in view: the grid scrolls
    # the selection's row is brought into view, moving as little as possible
    last = tiles.first_shown_row(geometry, 49, 0)
    assert last == geometry.total_rows - geometry.shown_rows
    assert tiles.first_shown_row(geometry, 0, last) == 0
    in_view = last * geometry.columns  # a tile already in view does not scroll
    assert tiles.first_shown_row(geometry, in_view, last) == last


def test_a_tiny_area_still_has_one_tile() -> None:
    geometry = tiles.grid_geometry(5, 3, 2)
    assert geometry.columns == 1 and geometry.shown_rows == 1


def test_arrows_move_in_the_grid_and_stop_at_its_edges() -> None:
    geometry = tiles.grid_geometry(12, 100, 29)  # 4 columns, 3 rows
    assert tiles.move(geometry, 0, "right") == 1
    assert tiles.move(geometry, 0, "down") == 4
    assert tiles.move(geometry, 5, "up") == 1
    assert tiles.move(geometry, 0, "left") == 0  # the left edge
    assert tiles.move(geometry, 3, "right") == 3  # the right edge: no wrap to the next row
    assert tiles.move(geometry, 0, "up") == 0
    assert tiles.move(geometry, 9, "down") == 9  # the last row
    assert tiles.move(geometry, 6, "end") == 11
    assert tiles.move(geometry, 6, "home") == 0
    assert tiles.move(geometry, 6, "x") == 6
    ragged = tiles.grid_geometry(10, 100, 29)  # the last row is short
    below = tiles.move(ragged, ragged.columns * (ragged.total_rows - 1) - 1, "down")
    assert below == 9  # down from above the gap lands on the last tile


def test_a_tile_shows_the_text_around_the_cursor() -> None:
    lines = b"".join(b"line %d\r\n" % n for n in range(30))  # scrolls: the cursor on the last row
    screen = screen_with(lines + b"$ ")
    text = tiles.tile_text(screen, 20, 5)
    assert text == ["line 26", "line 27", "line 28", "line 29", "$"]


def test_a_tile_of_a_screen_with_text_at_the_top_shows_the_top() -> None:
    screen = screen_with(b"\x1b[2J\x1b[Hfirst\r\nsecond\r\n$ ")
    assert tiles.tile_text(screen, 20, 4) == ["first", "second", "$", ""]


def test_the_cursor_is_in_view_even_far_right() -> None:
    screen = screen_with(b"a" * 70 + b"XY", cols=80)
    (line,) = tiles.tile_text(screen, 10, 1)
    assert line == "a" * 7 + "XY"  # and the cursor's cell after them, the tile's last column


def test_a_tile_keeps_colours_and_is_exactly_its_size() -> None:
    screen = screen_with(b"\x1b[31mred\x1b[0m plain " + "漢字".encode() * 10 + b"\x1b[H")
    strips = tiles.tile_lines(screen, 15, 3, Palette())
    assert [strip.cell_length for strip in strips] == [15, 15, 15]
    first = list(strips[0])
    assert first[0].text == "red" and first[0].style is not None and first[0].style.color is not None
    assert strips[0].text.startswith("red plain 漢字")  # a wide character cut by the edge: padded


def test_a_screen_smaller_than_its_tile_is_padded() -> None:
    screen = screen_with(b"hi", cols=10, rows=2)
    strips = tiles.tile_lines(screen, 30, 4, Palette())
    assert [s.cell_length for s in strips] == [30] * 4
    assert [s.text.rstrip() for s in strips] == ["hi", "", "", ""]


def test_the_header_shows_the_name_and_marks() -> None:
    row = SessionRow("%1", "build", unseen=True, bell=True)
    text = "".join(t for t, _ in tiles.header_pieces(3, row, selected=False))
    assert text.startswith("3:build ") and "* " in text and "! " in text
    ended = SessionRow("%2", "job", state="exited", exit_code=2)
    assert "[exit 2]" in "".join(t for t, _ in tiles.header_pieces(0, ended, selected=True))
    since = time.mktime((2026, 1, 1, 14, 3, 0, 0, 0, -1))
    assert tiles.quiet_label(since) == "quiet since 14:03"
    quiet = SessionRow("%3", "agent", quiet_since=since)
    assert "quiet since 14:03" in "".join(t for t, _ in tiles.header_pieces(0, quiet, selected=False))


def test_find_puts_the_session_with_that_number_first_then_names() -> None:
    names = [f"s{n}" for n in range(15)] + ["job12"]
    assert tiles.find(names, "12") == [12, 15]  # session 12, then the name holding "12"
    assert tiles.find(names, "s1") == [1, 10, 11, 12, 13, 14]
    assert tiles.find(names, "99") == []  # no session 99, no name holding it
    assert tiles.find(names, " 3 ") == [3, 13]


def cells_of(strip: Any) -> list[tuple[str, Any]]:
    return [(char, segment.style or None) for segment in strip for char in segment.text]


def test_rows_of_text_runs_are_cut_as_their_cells_would_be() -> None:
    """A tile reads rows kept as text runs without turning them into cells; what it draws is the
    same as from the cells (the same screen, every row made cells by reading it through pyte's API)."""
    data = (
        b"\x1b[31mred \x1b[1;44mbold on blue\x1b[0m plain\r\n"
        b"   \x1b[32mindented\x1b[0m\r\n"
        b"\x1b[7mreverse\x1b[0m and a long line " + b"x" * 60 + b"\r\n"
        b"\x1b[5;10Hplaced\x1b[8;1H$ "
    )
    runs = screen_with(data)
    cells = screen_with(data)
    for y in range(cells.lines):
        cells.buffer[y]  # noqa: B018 - reading a row this way makes it cells
    palette = Palette({1: "#ff0000"}, foreground="#d0d0d0", background="#101010")
    for width, height in ((30, 8), (80, 24), (12, 3)):
        assert [cells_of(s) for s in tiles.tile_lines(runs, width, height, palette)] == [
            cells_of(s) for s in tiles.tile_lines(cells, width, height, palette)
        ]
    far = screen_with(data + b"y" * 50)  # the cursor far right: the tile starts past column 0
    far_cells = screen_with(data + b"y" * 50)
    for y in range(far_cells.lines):
        far_cells.buffer[y]  # noqa: B018
    assert [cells_of(s) for s in tiles.tile_lines(far, 20, 8, palette)] == [
        cells_of(s) for s in tiles.tile_lines(far_cells, 20, 8, palette)
    ]
