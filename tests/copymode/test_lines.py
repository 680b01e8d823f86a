"""Cells of a line: wide characters take two columns, combining marks join the cell before."""

from __future__ import annotations

import pytest

from termux.copymode.lines import Cell, ListSource, cell_at, cell_of_char, cells, columns

WIDE = "a中b"  # a(0) 中(1-2) b(3)
MARKS = "e\u0301x"  # é as e + COMBINING ACUTE (one cell), then x


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("ab", [Cell(0, 1, 0, 1), Cell(1, 1, 1, 2)]),
        (WIDE, [Cell(0, 1, 0, 1), Cell(1, 2, 1, 2), Cell(3, 1, 2, 3)]),
        (MARKS, [Cell(0, 1, 0, 2), Cell(1, 1, 2, 3)]),
        ("\u0301a", [Cell(0, 1, 0, 1), Cell(1, 1, 1, 2)]),  # a mark with nothing before it: a cell of its own
        ("中\u0301", [Cell(0, 2, 0, 2)]),  # a mark on a wide character stays in its cell
    ],
)
def test_cells(text: str, expected: list[Cell]) -> None:
    assert cells(text) == expected


@pytest.mark.parametrize(("text", "width"), [("", 0), ("abc", 3), (WIDE, 4), (MARKS, 2)])
def test_columns(text: str, width: int) -> None:
    assert columns(text) == width


@pytest.mark.parametrize(
    ("x", "index"),
    [(0, 0), (1, 1), (2, 1), (3, 2), (9, 2)],  # column 2 is the wide character's second half
)
def test_cell_at_a_column(x: int, index: int) -> None:
    assert cell_at(cells(WIDE), x) == index


def test_cell_of_a_character_offset() -> None:
    laid = cells(MARKS)
    assert [cell_of_char(laid, offset) for offset in range(3)] == [0, 0, 1]  # the mark is in é's cell
    assert cell_at([], 5) == -1


def test_list_source_numbers_lines_as_capture_and_counts_what_it_hands_out() -> None:
    source = ListSource(["old", "newer"], ["top", "bottom"])
    assert (source.first, source.last) == (-2, 1)
    assert [line.text for line in source.lines(-2, 2)] == ["old", "newer", "top", "bottom"]
    assert [line.text for line in source.lines(-1, 1)] == ["newer", "top"]
    assert (source.reads, source.calls) == (6, 2)
    with pytest.raises(IndexError):
        source.lines(-3, 0)
