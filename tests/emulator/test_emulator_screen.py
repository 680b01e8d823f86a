"""Scrollback, the alternate screen, title, bell and the key modes."""

from __future__ import annotations

from termux.emulator import ByteStream, Screen, capture
from termux.modes import APP_CURSOR, APP_KEYPAD, BRACKETED_PASTE, MOUSE_CLICKS, MOUSE_DRAG, MOUSE_MOTION, MOUSE_SGR


def feed(screen: Screen, data: bytes | str) -> Screen:
    ByteStream(screen).feed(data.encode() if isinstance(data, str) else data)
    return screen


def cells(screen: Screen) -> list[list[tuple[object, ...]]]:
    return [[tuple(screen.buffer[y][x]) for x in range(screen.columns)] for y in range(screen.lines)]


def test_twenty_thousand_lines_keep_the_last_ten_thousand() -> None:
    screen = Screen(40, 10)
    assert screen.history.maxlen == 10000
    feed(screen, "".join(f"line {i}\r\n" for i in range(20000)))
    assert len(screen.history) == 10000
    # The screen shows the last 9 lines and an empty one (the cursor's), history holds the 10000 before.
    assert capture(screen, -10000, -10000) == ["line 9991"]
    assert capture(screen, -1, -1) == ["line 19990"]
    assert capture(screen, 0, 0) == ["line 19991"]
    assert capture(screen)[-2:] == ["line 19999", ""]


def test_history_size_is_configurable_and_zero_disables_it() -> None:
    small = feed(Screen(10, 2, history=3), "".join(f"{i}\r\n" for i in range(10)))
    assert [capture(small, n, n)[0] for n in (-3, -2, -1)] == ["6", "7", "8"]
    none = feed(Screen(10, 2, history=0), "".join(f"{i}\r\n" for i in range(10)))
    assert len(none.history) == 0


def test_alternate_screen_restores_main_screen_and_scrollback_exactly() -> None:
    for mode in (1049, 1047, 47):
        screen = Screen(20, 5)
        feed(screen, "".join(f"\x1b[3{i % 8}mrow {i}\x1b[0m\r\n" for i in range(12)) + "prompt$ ")
        before_cells, before_history = cells(screen), list(screen.history)
        before_cursor = (screen.cursor.x, screen.cursor.y)
        # Enter, draw a full-screen app that scrolls a lot, leave.
        app = "".join(f"app {i}\r\n" for i in range(50))
        feed(screen, f"\x1b[?{mode}h\x1b[H\x1b[2J{app}\x1b[1;1Hx")
        assert screen.alternate and (mode << 5) in screen.mode
        assert screen.display[0].startswith("x")
        assert list(screen.history) == before_history  # the alternate screen never writes history
        feed(screen, f"\x1b[?{mode}l")
        assert not screen.alternate and (mode << 5) not in screen.mode
        assert cells(screen) == before_cells
        assert list(screen.history) == before_history
        if mode == 1049:  # 1049 also saves and restores the cursor
            assert (screen.cursor.x, screen.cursor.y) == before_cursor


def test_1049_clears_the_alternate_screen_on_entry_and_47_keeps_it() -> None:
    screen = feed(Screen(10, 3), "\x1b[?47hkept\x1b[?47lmain")
    feed(screen, "\x1b[?47h")
    assert screen.display[0].startswith("kept")
    feed(screen, "\x1b[?47l\x1b[?1049h")
    assert screen.display[0] == " " * 10
    feed(screen, "\x1b[?1049l")
    assert screen.display[0] == "    main  "  # "kept" was on the alternate screen


def test_decsc_inside_the_alternate_screen_does_not_break_1049_restore() -> None:
    screen = feed(Screen(10, 4), "\x1b[3;4H\x1b[?1049h\x1b[2;2H\x1b7\x1b[4;4H")
    feed(screen, "\x1b[?1049l")
    assert (screen.cursor.y, screen.cursor.x) == (2, 3)


def test_title_icon_and_bell() -> None:
    screen = feed(Screen(10, 2), "\x1b]0;both\x07\x07\x07")
    assert (screen.title, screen.icon_name, screen.bell_count) == ("both", "both", 2)
    feed(screen, "\x1b]2;just the title\x1b\\\x1b]1;icon\x07")
    assert (screen.title, screen.icon_name) == ("just the title", "icon")
    feed(screen, "\x1b]2;no\x05controls\x07")
    assert screen.title == "nocontrols"
    # A BEL that terminates an OSC is not a bell.
    assert screen.bell_count == 2


def test_title_split_across_feeds() -> None:
    screen = Screen(10, 2)
    stream = ByteStream(screen)
    for part in (b"\x1b]", b"2;ti", b"tle\x1b", b"\\after"):
        stream.feed(part)
    assert screen.title == "title"
    assert screen.display[0].startswith("after")


def test_key_modes_are_stored_as_pyte_stores_private_modes() -> None:
    screen = Screen(10, 2)
    assert APP_CURSOR == 1 << 5 and APP_KEYPAD == 66 << 5 and BRACKETED_PASTE == 2004 << 5
    feed(screen, "\x1b[?1h\x1b=\x1b[?2004h\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1006h")
    for bit in (APP_CURSOR, APP_KEYPAD, BRACKETED_PASTE, MOUSE_CLICKS, MOUSE_DRAG, MOUSE_MOTION, MOUSE_SGR):
        assert bit in screen.mode
    feed(screen, "\x1b[?1l\x1b>\x1b[?2004;1000;1002;1003;1006l")
    for bit in (APP_CURSOR, APP_KEYPAD, BRACKETED_PASTE, MOUSE_CLICKS, MOUSE_DRAG, MOUSE_MOTION, MOUSE_SGR):
        assert bit not in screen.mode
    feed(screen, "\x1b[?25l")
    assert screen.cursor.hidden and (25 << 5) not in screen.mode


def test_ansi_modes_do_not_alias_private_ones() -> None:
    screen = feed(Screen(10, 2), "\x1b[32h")  # ANSI mode 32 would be stored as DECCKM by pyte
    assert APP_CURSOR not in screen.mode


def test_deccolm_does_not_resize() -> None:
    # xterm (default allowColumnMode off) and tmux never let a program change the pane width;
    # stock pyte resizes to 132 columns.
    screen = feed(Screen(20, 3), "abc\x1b[?3h")
    assert screen.columns == 20
    assert screen.display[0] == " " * 20


def test_resize_keeps_history_and_clamps_the_cursor() -> None:
    screen = feed(Screen(10, 6), "".join(f"l{i}\r\n" for i in range(8)) + "end")
    assert len(screen.history) == 3
    screen.resize(3, 5)  # shorter: the cursor's line stays, top lines go to history
    assert screen.display[-1].startswith("end")
    assert (screen.cursor.y, screen.cursor.x) == (2, 3)
    assert capture(screen, -1, -1) == ["l5"]
    screen.resize(8, 4)  # taller: rows come back from the scrollback (as tmux), the cursor with its line
    assert screen.cursor.y == 7 and screen.columns == 4 and len(screen.display) == 8
    assert [line.rstrip() for line in screen.display] == ["l1", "l2", "l3", "l4", "l5", "l6", "l7", "end"]
    feed(screen, "\x1b[20;20H")
    assert (screen.cursor.y, screen.cursor.x) == (7, 3)


def test_resize_affects_both_screens() -> None:
    screen = feed(Screen(10, 4), "main\x1b[?1049halt")
    screen.resize(3, 6)
    feed(screen, "\x1b[?1049l")
    assert screen.display == ["main  ", "      ", "      "]
    assert screen.columns == 6 and screen.lines == 3


def test_pyte_api_takes_shifted_private_constants_and_the_parser_keeps_ansi_modes_apart() -> None:
    screen = Screen(10, 2)
    screen.reset_mode(7 << 5)  # pyte's mo.DECAWM, passed without private=True as pyte's API allows
    assert (7 << 5) not in screen.mode
    screen.set_mode(1049 << 5)
    assert screen.alternate
    feed(screen, "\x1b[32h")  # from a program, ANSI mode 32 must not alias DECCKM (1 << 5)
    assert APP_CURSOR not in screen.mode


def test_sgr_reset_under_reverse_screen_mode_matches_stock_pyte() -> None:
    """SGR 0 resets to the default character, which DECSCNM reverses; a cached reset must not
    carry over from before the mode changed."""
    import pyte

    from termux.emulator import ByteStream, Screen

    sequence = b"\x1b[0m\x1b[?5h\x1b[27m\x1b[0m"
    stock = pyte.Screen(10, 3)
    pyte.ByteStream(stock).feed(sequence)
    ours = Screen(10, 3)
    ByteStream(ours).feed(sequence)
    assert ours.cursor.attrs.reverse is stock.cursor.attrs.reverse is True
