"""The layout tree as a pure model: split, close, zoom, resize, focus by direction, presets, saving."""

from __future__ import annotations

import json

import pytest

from termux.tui.layout import MIN_COLS, PRESETS, Layout, LayoutError, Rect, Split


def frames(layout: Layout) -> dict[str, Rect]:
    return {box.session: box.frame for box in layout.geometry().panes}


def contents(layout: Layout) -> dict[str, tuple[int, int]]:
    return {box.session: (box.content.width, box.content.height) for box in layout.geometry().panes}


def covered(layout: Layout) -> None:
    """Every cell of the area is exactly one pane's frame or one border's (nothing overlaps, no hole)."""
    geometry = layout.geometry()
    owners = [[0] * layout.width for _ in range(layout.height)]
    rects = [b.frame for b in geometry.panes] + [b.rect for b in geometry.borders if b.orientation == "h"]
    for rect in rects:
        for y in range(rect.y, rect.y + rect.height):
            for x in range(rect.x, rect.x + rect.width):
                owners[y][x] += 1
    assert all(cell == 1 for row in owners for cell in row), owners


def grid2x2() -> Layout:
    """a | b over c | d, made as a person would: split, split each half."""
    layout = Layout("a", 81, 24)
    layout.split("c", "v")
    layout.focus_pane("a")
    layout.split("b", "h")
    layout.focus_pane("c")
    layout.split("d", "h")
    return layout


# -- split --------------------------------------------------------------------------------------


def test_a_lone_pane_fills_the_area_without_a_title() -> None:
    layout = Layout("a", 80, 24)
    box = layout.geometry().panes[0]
    assert box.content == Rect(0, 0, 80, 24) and box.title is None
    assert layout.geometry().alone


def test_split_side_by_side_halves_the_width_with_a_separator_and_titles() -> None:
    layout = Layout("a", 81, 24)
    layout.split("b", "h")
    assert layout.panes() == ["a", "b"] and layout.focus == "b"
    assert frames(layout) == {"a": Rect(0, 0, 40, 24), "b": Rect(41, 0, 40, 24)}
    assert contents(layout) == {"a": (40, 23), "b": (40, 23)}  # the title row is the border
    (border,) = layout.geometry().borders
    assert border.rect == Rect(40, 0, 1, 24)
    covered(layout)


def test_split_of_an_even_width_gives_the_existing_pane_the_larger_half() -> None:
    layout = Layout("a", 80, 24)
    layout.split("b", "h")
    assert contents(layout) == {"a": (40, 23), "b": (39, 23)}


def test_split_stacked_puts_the_new_pane_below_its_title_row_being_the_border() -> None:
    layout = Layout("a", 80, 25)
    layout.split("b", "v")
    assert frames(layout) == {"a": Rect(0, 0, 80, 13), "b": Rect(0, 13, 80, 12)}
    (border,) = layout.geometry().borders
    assert border.rect == Rect(0, 13, 80, 1) == layout.geometry().box("b").title  # type: ignore[union-attr]
    covered(layout)


def test_split_before_puts_the_new_pane_left() -> None:
    layout = Layout("a", 81, 24)
    layout.split("b", "h", before=True)
    assert layout.panes() == ["b", "a"]


def test_split_the_same_way_adds_a_sibling_and_keeps_the_others_sizes() -> None:
    layout = Layout("a", 121, 24)
    layout.split("b", "h")  # a: 60, b: 60
    layout.split("c", "h")  # b halves: 30 | 29
    assert isinstance(layout.root, Split) and len(layout.root.children) == 3  # one flat split
    assert {s: w for s, (w, _) in contents(layout).items()} == {"a": 60, "b": 30, "c": 29}
    covered(layout)


def test_split_across_nests() -> None:
    layout = grid2x2()
    assert layout.panes() == ["a", "b", "c", "d"]
    assert frames(layout)["b"].x == frames(layout)["d"].x == 41
    covered(layout)


def test_a_pane_too_small_to_split_is_refused_and_nothing_changes() -> None:
    layout = Layout("a", 2 * MIN_COLS, 10)  # two panes need 2 * MIN_COLS + the separator
    with pytest.raises(LayoutError, match="no space"):
        layout.split("b", "h")
    assert layout.panes() == ["a"]
    layout = Layout("a", 80, 3)  # stacked: two title rows and a row each
    with pytest.raises(LayoutError, match="no space"):
        layout.split("b", "v")
    layout.resize_area(80, 4)
    layout.split("b", "v")
    assert contents(layout) == {"a": (80, 1), "b": (80, 1)}


def test_a_session_is_in_one_pane_at_most() -> None:
    layout = Layout("a")
    with pytest.raises(LayoutError):
        layout.split("a", "h")


# -- close --------------------------------------------------------------------------------------


def test_close_gives_the_space_to_the_sibling() -> None:
    layout = Layout("a", 121, 24)
    layout.split("b", "h")
    layout.split("c", "h")
    layout.close("b")  # the neighbour after it takes its 30 cells and its separator
    assert {s: w for s, (w, _) in contents(layout).items()} == {"a": 60, "c": 60}
    covered(layout)


def test_closing_the_last_child_gives_its_space_to_the_one_before() -> None:
    layout = Layout("a", 121, 24)
    layout.split("b", "h")
    layout.split("c", "h")
    layout.close("c")
    assert {s: w for s, (w, _) in contents(layout).items()} == {"a": 60, "b": 60}


def test_close_collapses_a_split_of_one_and_flattens_the_same_orientation() -> None:
    layout = Layout("a", 121, 24)
    layout.split("b", "h")  # a | b
    layout.split("c", "v")  # a | (b / c)
    layout.split("d", "h")  # a | (b / (c | d))
    layout.close("b")  # (c | d) replaces (b / …) inside the h split: one flat h split
    assert isinstance(layout.root, Split) and layout.root.orientation == "h"
    assert layout.panes() == ["a", "c", "d"] and all(not isinstance(c, Split) for c in layout.root.children)
    assert frames(layout)["a"].width == 60  # untouched
    covered(layout)


def test_closing_the_focus_moves_it_to_the_pane_focused_before() -> None:
    layout = grid2x2()  # focus: d (c before it)
    layout.focus_pane("b")
    layout.focus_pane("d")
    assert layout.close("d") == "b"
    assert layout.focus == "b"


def test_the_only_pane_does_not_close() -> None:
    layout = Layout("a")
    assert layout.close("a") is None
    assert layout.panes() == ["a"]


def test_closing_down_to_one_pane_drops_the_titles() -> None:
    layout = Layout("a", 80, 24)
    layout.split("b", "v")
    layout.close("a")
    assert contents(layout) == {"b": (80, 24)}


# -- zoom ---------------------------------------------------------------------------------------


def test_zoom_shows_the_focused_pane_alone_and_unzoom_restores() -> None:
    layout = grid2x2()
    before = frames(layout)
    assert layout.toggle_zoom()
    assert contents(layout) == {"d": (81, 24)} and layout.geometry().alone
    assert not layout.toggle_zoom()
    assert frames(layout) == before


def test_a_lone_pane_does_not_zoom() -> None:
    assert not Layout("a").toggle_zoom()


def test_moving_focus_or_splitting_unzooms() -> None:
    layout = grid2x2()
    layout.toggle_zoom()
    layout.move_focus("left")
    assert not layout.zoomed and layout.focus == "c"
    layout.toggle_zoom()
    layout.split("e", "v")
    assert not layout.zoomed


# -- resize -------------------------------------------------------------------------------------


def test_resize_moves_the_right_border_of_a_left_pane() -> None:
    layout = Layout("a", 81, 24)
    layout.split("b", "h")
    layout.focus_pane("a")
    assert layout.resize("right", 5) == 5
    assert {s: w for s, (w, _) in contents(layout).items()} == {"a": 45, "b": 35}
    assert layout.resize("left", 1) == -1
    assert {s: w for s, (w, _) in contents(layout).items()} == {"a": 44, "b": 36}
    covered(layout)


def test_resize_of_the_last_pane_moves_its_left_border() -> None:
    layout = Layout("a", 81, 24)
    layout.split("b", "h")  # focus b, the last child
    layout.resize("left", 3)  # the border moves left: b grows
    assert {s: w for s, (w, _) in contents(layout).items()} == {"a": 37, "b": 43}


def test_resize_stops_at_the_minimum_and_takes_from_further_panes() -> None:
    layout = Layout("a", 121, 24)
    layout.split("b", "h")
    layout.split("c", "h")  # a 60 | b 30 | c 29
    layout.focus_pane("a")
    moved = layout.resize("right", 1000)
    assert moved == (30 - MIN_COLS) + (29 - MIN_COLS)
    assert {s: w for s, (w, _) in contents(layout).items()} == {"a": 60 + moved, "b": MIN_COLS, "c": MIN_COLS}
    assert layout.resize("right", 1) == 0
    covered(layout)


def test_resize_vertically_uses_the_nearest_stacked_split() -> None:
    layout = grid2x2()  # d is bottom right, inside an h split inside the v split
    layout.resize("up", 2)
    assert frames(layout)["c"].y == frames(layout)["d"].y == 10  # both lower panes grew
    assert frames(layout)["a"].height == 10


def test_resize_with_no_split_across_that_axis_does_nothing() -> None:
    layout = Layout("a", 81, 24)
    layout.split("b", "h")
    assert layout.resize("up", 3) == 0


def test_dragging_a_border() -> None:
    layout = Layout("a", 81, 24)
    layout.split("b", "h")
    border = layout.border_at(40, 5)
    assert border is not None and layout.border_at(39, 5) is None
    assert layout.move_border(border, -10) == -10
    assert frames(layout)["a"].width == 30
    layout = Layout("a", 80, 25)
    layout.split("b", "v")
    border = layout.border_at(3, 13)  # the lower pane's title row
    assert border is not None and border.orientation == "v"
    layout.move_border(border, 4)
    assert frames(layout)["b"].y == 17


def test_sizes_scale_with_the_area_and_come_back_exactly() -> None:
    layout = Layout("a", 101, 30)
    layout.split("b", "h")
    layout.focus_pane("a")
    layout.resize("right", 20)  # a 70 | b 30
    layout.resize_area(51, 30)
    assert {s: w for s, (w, _) in contents(layout).items()} == {"a": 35, "b": 15}
    layout.resize_area(11, 30)  # far too narrow for the ratio: b is kept at its minimum
    assert contents(layout)["b"][0] >= MIN_COLS
    layout.resize_area(101, 30)
    assert {s: w for s, (w, _) in contents(layout).items()} == {"a": 70, "b": 30}


def test_odd_sizes_cover_the_area_exactly() -> None:
    for width, height in [(7, 5), (13, 9), (80, 24), (101, 37), (33, 8)]:
        layout = Layout("a", width, height)
        for n, orientation in enumerate("hvhvh"):
            try:
                layout.split(f"s{n}", orientation)  # type: ignore[arg-type]
            except LayoutError:
                break
        if layout.fits():
            covered(layout)
        for name in PRESETS:
            layout.apply_preset(name)
            if layout.fits():
                covered(layout)


def test_a_terminal_too_small_for_every_pane_shows_the_focused_one_alone() -> None:
    layout = Layout("a", 81, 24)
    layout.split("b", "h")
    layout.split("c", "h")
    layout.resize_area(6, 24)  # three panes need 3 * MIN_COLS + 2 separators
    assert not layout.fits()
    assert contents(layout) == {"c": (6, 24)} and layout.geometry().alone
    assert layout.move_focus("left") is None and layout.resize("left") == 0
    with pytest.raises(LayoutError):
        layout.split("d", "v")
    layout.resize_area(81, 24)
    assert set(contents(layout)) == {"a", "b", "c"}


# -- focus ----------------------------------------------------------------------------------------


def test_focus_by_direction_in_a_grid() -> None:
    layout = grid2x2()
    layout.focus_pane("a")
    assert layout.move_focus("right") == "b"
    assert layout.move_focus("down") == "d"
    assert layout.move_focus("left") == "c"
    assert layout.move_focus("up") == "a"


def test_focus_by_direction_wraps_around_the_area() -> None:
    layout = grid2x2()
    layout.focus_pane("a")
    assert layout.neighbour("left") == "b"
    assert layout.neighbour("up") == "c"


def test_of_several_adjacent_panes_the_one_focused_last_wins() -> None:
    layout = Layout("a", 81, 24)  # a | (b / c): left of b and c is a; right of a is b or c
    layout.split("b", "h")
    layout.split("c", "v")
    layout.focus_pane("b")
    layout.focus_pane("a")
    assert layout.neighbour("right") == "b"
    layout.focus_pane("c")
    layout.focus_pane("a")
    assert layout.neighbour("right") == "c"


def test_focus_by_direction_needs_an_overlap_along_the_edge() -> None:
    layout = Layout("a", 81, 24)  # (a / b) | (c / d) with the borders at different heights
    layout.split("c", "h")
    layout.focus_pane("a")
    layout.split("b", "v")
    layout.focus_pane("c")
    layout.split("d", "v")
    layout.resize("down", 8)  # c reaches far below b's top
    layout.focus_pane("c")
    layout.focus_pane("b")
    assert layout.neighbour("right") == "c"  # c and d both touch b's right edge: c, focused later
    layout.focus_pane("d")
    layout.focus_pane("b")
    assert layout.neighbour("right") == "d"
    layout.focus_pane("a")
    layout.focus_pane("d")
    assert layout.neighbour("left") == "b"  # a ends above d's top: it does not touch d's edge


def test_cycle_goes_in_order_and_wraps() -> None:
    layout = grid2x2()
    layout.focus_pane("a")
    assert [layout.cycle() for _ in range(4)] == ["b", "c", "d", "a"]
    assert layout.cycle(-1) == "d"


def test_show_focuses_a_shown_session_or_puts_it_in_the_focused_pane() -> None:
    layout = grid2x2()
    layout.show("a")
    assert layout.focus == "a"
    layout.show("z")
    assert layout.panes() == ["z", "b", "c", "d"] and layout.focus == "z"


# -- presets --------------------------------------------------------------------------------------


def five() -> Layout:
    layout = Layout("a", 161, 49)
    for name in "bcde":
        layout.split(name, "v")
    return layout


def test_even_horizontal_and_vertical() -> None:
    layout = five()
    layout.apply_preset("even-horizontal")
    widths = [w for w, _ in contents(layout).values()]
    assert widths == [32, 32, 31, 31, 31] and sum(widths) + 4 == 161
    layout.apply_preset("even-vertical")
    heights = [h for _, h in contents(layout).values()]
    assert [f.height for f in frames(layout).values()] == [10, 10, 10, 10, 9]
    assert heights == [9, 9, 9, 9, 8]


def test_main_vertical_gives_the_first_pane_tmux_s_main_width() -> None:
    layout = five()
    layout.apply_preset("main-vertical")
    assert contents(layout)["a"] == (80, 48)
    others = [frames(layout)[s] for s in "bcde"]
    assert all(f.x == 81 and f.width == 80 for f in others)
    covered(layout)


def test_main_horizontal_gives_the_first_pane_tmux_s_main_height() -> None:
    layout = five()
    layout.apply_preset("main-horizontal")
    assert contents(layout)["a"] == (161, 24)
    assert all(frames(layout)[s].y == 25 for s in "bcde")
    covered(layout)


def test_main_presets_on_a_small_area_keep_the_others_visible() -> None:
    layout = Layout("a", 40, 10)
    layout.split("b", "h")
    layout.apply_preset("main-vertical")
    assert contents(layout)["b"][0] >= MIN_COLS and contents(layout)["a"][0] < 80


def test_tiled_is_tmux_s_grid() -> None:
    layout = five()  # 5 panes: 3 rows of 2 columns, the last row one pane wide
    layout.apply_preset("tiled")
    rows = sorted({f.y for f in frames(layout).values()})
    assert len(rows) == 3
    assert frames(layout)["e"].width == 161
    assert frames(layout)["a"].width + 1 + frames(layout)["b"].width == 161
    covered(layout)


def test_next_preset_cycles_through_the_five() -> None:
    layout = five()
    assert [layout.next_preset() for _ in range(6)] == [*PRESETS, PRESETS[0]]


def test_unknown_preset() -> None:
    with pytest.raises(LayoutError, match="unknown layout"):
        Layout("a").apply_preset("spiral")


# -- saving -------------------------------------------------------------------------------------


def test_to_dict_and_back_through_json_gives_the_same_layout() -> None:
    layout = grid2x2()
    layout.focus_pane("b")
    layout.resize("right", 7)
    layout.toggle_zoom()
    saved = json.loads(json.dumps(layout.to_dict()))
    restored = Layout.from_dict(saved, 81, 24)
    assert restored.panes() == layout.panes() and restored.focus == "b" and restored.zoomed
    restored.toggle_zoom()
    layout.toggle_zoom()
    assert frames(restored) == frames(layout)


def test_keep_only_closes_the_panes_of_gone_sessions() -> None:
    layout = Layout.from_dict(grid2x2().to_dict(), 81, 24)
    assert layout.keep_only({"a", "d"})
    assert layout.panes() == ["a", "d"]
    assert not layout.keep_only({"x"})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "object with a `root`"),
        ({"root": 3}, "layout node is an object"),
        ({"root": {"session": ""}}, "session id"),
        ({"root": {"split": "x", "children": []}}, "`split` is"),
        ({"root": {"split": "h", "children": [{"session": "a"}]}}, "at least two"),
        ({"root": {"split": "h", "children": [{"session": "a"}, {"session": "a"}]}}, "two panes"),
        ({"root": {"split": "h", "children": [{"session": "a"}, {"session": "b"}], "weights": [1, 0]}}, "weights"),
    ],
)
def test_a_malformed_saved_layout_is_refused_in_termux_s_words(data: object, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        Layout.from_dict(data)


def test_a_deeply_nested_saved_layout_is_refused() -> None:
    node: dict[str, object] = {"session": "leaf"}
    for n in range(40):
        node = {"split": "h", "children": [node, {"session": f"s{n}"}]}
    with pytest.raises(LayoutError, match="nests at most"):
        Layout.from_dict({"root": node})
