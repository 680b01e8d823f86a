"""Terminal fidelity (issue 7): query answers, missing sequences, width policy, resize.

Where stock pyte 0.8.2 behaves differently from xterm, the test says so and checks xterm's behaviour.
"""

from __future__ import annotations

import pyte
import pytest

from termux.emulator import ByteStream, Screen, capture, snapshot, wrapped
from termux.modes import APP_CURSOR, APP_KEYPAD


def run(data: str | bytes, columns: int = 20, lines: int = 5) -> tuple[Screen, list[str]]:
    screen = Screen(columns, lines)
    replies: list[str] = []
    screen.write_process_input = replies.append  # type: ignore[method-assign]
    ByteStream(screen).feed(data.encode() if isinstance(data, str) else data)
    return screen, replies


def stock(data: str, columns: int = 20, lines: int = 5) -> tuple[pyte.Screen, list[str]]:
    screen = pyte.Screen(columns, lines)
    replies: list[str] = []
    screen.write_process_input = replies.append  # type: ignore[method-assign]
    pyte.ByteStream(screen).feed(data.encode())
    return screen, replies


# ---------------------------------------------------------------------- answers to queries


def test_primary_device_attributes_claim_only_what_termux_does() -> None:
    # tmux's answer: a VT100 with Advanced Video Option (bold, underline, blink, reverse). Not xterm's
    # VT420 list, which claims a locator, rectangular editing, horizontal scrolling and more.
    assert run("\x1b[c")[1] == ["\x1b[?1;2c"]
    assert run("\x1b[0c")[1] == ["\x1b[?1;2c"]
    assert run("\x1bZ")[1] == ["\x1b[?1;2c"]  # DECID
    assert run("\x1b[1c")[1] == []  # not a query


def test_secondary_device_attributes_answer_as_xterm_not_as_da1() -> None:
    # Stock pyte answers CSI > c with the primary DA's bytes.
    assert stock("\x1b[>c")[1] == ["\x1b[?6c"]
    assert run("\x1b[>c")[1] == ["\x1b[>41;390;0c"]
    assert run("\x1b[>0c")[1] == ["\x1b[>41;390;0c"]
    assert run("\x1b[=c")[1] == ["\x1bP!|00000000\x1b\\"]


def test_device_status_and_cursor_position_reports() -> None:
    assert run("\x1b[5n")[1] == ["\x1b[0n"]
    assert run("\x1b[3;7H\x1b[6n")[1] == ["\x1b[3;7R"]
    # DECXCPR: xterm adds the page number.
    assert run("\x1b[3;7H\x1b[?6n")[1] == ["\x1b[?3;7;1R"]
    # Origin mode: rows count from the top margin.
    assert run("\x1b[2;4r\x1b[?6h\x1b[2;1H\x1b[6n")[1] == ["\x1b[2;1R"]
    # In the pending-wrap position xterm reports the last column.
    assert run("x" * 20 + "\x1b[6n")[1] == ["\x1b[1;20R"]


def test_decrqm_reports_supported_modes() -> None:
    _, replies = run("\x1b[?1h\x1b[?1$p\x1b[?2004$p\x1b[?25$p\x1b[?7l\x1b[?7$p\x1b[?1049$p\x1b[?2026$p")
    assert replies == ["\x1b[?1;1$y", "\x1b[?2004;2$y", "\x1b[?25;1$y", "\x1b[?7;2$y", "\x1b[?1049;2$y",
                       "\x1b[?2026;0$y"]
    _, replies = run("\x1b[4h\x1b[4$p\x1b[20$p\x1b[99$p")
    assert replies == ["\x1b[4;1$y", "\x1b[20;2$y", "\x1b[99;0$y"]


def test_osc_colour_queries_answer_with_configured_colours_and_the_query_terminator() -> None:
    screen = Screen(10, 2)
    screen.foreground_color = (0xC0, 0xC1, 0xC2)
    screen.background_color = (0x10, 0x20, 0x30)
    replies: list[str] = []
    screen.write_process_input = replies.append  # type: ignore[method-assign]
    ByteStream(screen).feed(b"\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]10;?;?\x07")
    assert replies == [
        "\x1b]10;rgb:c0c0/c1c1/c2c2\x07",
        "\x1b]11;rgb:1010/2020/3030\x1b\\",
        "\x1b]10;rgb:c0c0/c1c1/c2c2\x07",
        "\x1b]11;rgb:1010/2020/3030\x07",
    ]
    assert screen.icon_name == "" and screen.title == ""


def test_window_size_report_and_title_stack() -> None:
    screen, replies = run("\x1b[18t\x1b]2;one\x07\x1b[22;2t\x1b]2;two\x07\x1b[23;2t", 30, 7)
    assert replies == ["\x1b[8;7;30t"]
    assert screen.title == "one"


# ---------------------------------------------------------------------- missing and mis-parsed sequences


def test_multi_digit_osc_does_not_touch_the_icon_name() -> None:
    # Stock pyte reads one digit: OSC 10/11/133 set the icon name (and the title, for 0x).
    assert stock("\x1b]133;A\x07")[0].icon_name == "3;A"
    screen, _ = run("\x1b]133;A\x07\x1b]10;?\x07\x1b]7;file:///tmp\x07text")
    assert (screen.icon_name, screen.title) == ("", "")
    assert screen.display[0].startswith("text")


def test_scroll_up_and_down() -> None:
    screen, _ = run("a\r\nb\r\nc\r\nd\r\ne\x1b[2S", 5, 5)
    assert screen.display == ["c    ", "d    ", "e    ", "     ", "     "]
    assert capture(screen, -2, -1) == ["a", "b"]  # scrolled off into history, as tmux does
    assert (screen.cursor.y, screen.cursor.x) == (4, 1)  # the cursor does not move
    feed = "\x1b[1T"
    ByteStream(screen).feed(feed.encode())
    assert screen.display == ["     ", "c    ", "d    ", "e    ", "     "]
    # CSI T with several parameters is mouse highlight tracking, not a scroll.
    ByteStream(screen).feed(b"\x1b[1;2;3;4;5T")
    assert screen.display[1] == "c    "


def test_scroll_within_margins() -> None:
    screen, _ = run("1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[S", 3, 5)
    assert screen.display == ["1  ", "3  ", "4  ", "   ", "5  "]
    assert len(screen.history) == 0


def test_repeat_back_tab_and_scosc() -> None:
    screen, _ = run("ab\x1b[3b|")
    assert screen.display[0].startswith("abbbb|")
    screen, _ = run("\x1b[1;20H\x1b[Z*\x1b[2Z+")
    assert screen.display[0] == " " * 8 + "+" + " " * 7 + "*" + " " * 3
    screen, _ = run("\x1b[2;3H\x1b[s\x1b[5;5H\x1b[u@")
    assert screen.display[1] == "  @" + " " * 17
    assert run("\x1b[2I.", 40)[0].display[0].index(".") == 16


def test_soft_reset_is_not_printed() -> None:
    assert stock("\x1b[!p")[0].display[0].startswith("p")  # stock pyte prints the final byte
    screen, _ = run("keep\x1b[?1h\x1b[4h\x1b[?6h\x1b[?7l\x1b[?25l\x1b[2;3r\x1b[1;31m\x1b[!p")
    assert screen.display[0].startswith("keep")
    assert APP_CURSOR not in screen.mode and 4 not in screen.mode and (6 << 5) not in screen.mode
    assert (7 << 5) in screen.mode and not screen.cursor.hidden
    assert screen.margins is None and screen.cursor.attrs.fg == "default"


def test_dcs_apc_pm_sos_strings_are_consumed() -> None:
    stock_screen, _ = stock("\x1bP+q544e\x1b\\ok")
    screen, replies = run("\x1bP+q544e\x1b\\ok\x1b_G a=q\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\!")
    assert screen.display[0].startswith("ok!")
    assert replies == []


def test_application_keypad_is_recorded() -> None:
    screen, _ = run("\x1b=")
    assert APP_KEYPAD in screen.mode
    ByteStream(screen).feed(b"\x1b>")
    assert APP_KEYPAD not in screen.mode
    assert APP_KEYPAD not in stock("\x1b=")[0].mode  # stock pyte drops it


def test_osc8_hyperlinks_are_kept_per_cell() -> None:
    screen, _ = run("a\x1b]8;id=1;https://example.com/\x1b\\link\x1b]8;;\x1b\\b")
    links = [getattr(screen.buffer[0][x], "ext", None) for x in range(7)]
    assert links[0] is None and links[5] is None
    assert all(e is not None and e.link == "https://example.com/" for e in links[1:5])
    line = capture(screen, escapes=True)[0]
    assert line == "a\x1b]8;;https://example.com/\x1b\\link\x1b]8;;\x1b\\b"
    copy, _ = run(snapshot(screen))
    assert [getattr(copy.buffer[0][x], "ext", None) for x in range(7)] == links


def test_colon_form_sgr_colours() -> None:
    screen, _ = run("\x1b[38:2::10:20:30;48:5:17mA\x1b[38:2:1:2:3mB\x1b[4:3mC\x1b[4:0mD\x1b[58:2::1:2:3mE")
    row = screen.buffer[0]
    assert (row[0].fg, row[0].bg) == ("0a141e", "00005f")
    assert row[1].fg == "010203"
    assert row[2].underscore and not row[3].underscore
    assert row[4].fg == "010203"  # underline colour is parsed and does not leak into fg
    # Stock pyte reads "38:2::10:20:30" as nothing useful.
    assert stock("\x1b[38:2::10:20:30mA")[0].buffer[0][0].fg == "default"


def test_sgr_dim_hidden_overline_and_underline_colour_semicolon_form() -> None:
    screen, _ = run("\x1b[2mA\x1b[22;8mB\x1b[28;53mC\x1b[55mD\x1b[58;5;3mE\x1b[1;2mF\x1b[22mG")
    ext = [getattr(screen.buffer[0][x], "ext", None) for x in range(7)]
    assert ext[0] is not None and ext[0].dim
    assert ext[1] is not None and ext[1].hidden and not ext[1].dim
    assert ext[2] is not None and ext[2].overline and not ext[2].hidden
    assert ext[3] is None
    cells = screen.buffer[0]
    assert not cells[4].blink and cells[4].fg == "default"  # stock pyte: 58;5;3 set blink + fg
    assert cells[5].bold and ext[5] is not None and ext[5].dim
    assert not cells[6].bold and ext[6] is None


def test_dec_line_drawing_in_utf8_mode() -> None:
    # Stock pyte ignores designations in UTF-8 mode: box-drawing programs draw "lqk".
    assert stock("\x1b(0lqk\x1b(B")[0].display[0].startswith("lqk")
    screen, _ = run("\x1b(0lqk\x1b(Bx\x1b)0\x0elqk\x0fx")
    assert screen.display[0].startswith("┌─┐x┌─┐x")


@pytest.mark.parametrize(("seq", "expected"), [
    ("\x1b[2;3;4H", (1, 2)),   # extra parameters ignored
    ("\x1b[3;3H\x1b[1;2A", (1, 2)),
    ("\x1b[2;3HX\x1b[3K", (1, 3)),
])
def test_sequences_stock_pyte_raises_on_act_as_xterm(seq: str, expected: tuple[int, int]) -> None:
    with pytest.raises(Exception):  # noqa: B017,PT011
        stock(seq)
    screen, _ = run(seq)
    assert (screen.cursor.y, screen.cursor.x) == expected


def test_xtsave_xtrestore_and_query_key_modifiers() -> None:
    screen, replies = run("\x1b[?2004h\x1b[?2004s\x1b[?2004l\x1b[?2004r\x1b[?4mok")
    assert (2004 << 5) in screen.mode
    assert screen.display[0].startswith("ok") and replies == []


def test_controls_inside_csi_are_executed() -> None:
    screen, _ = run("ab\x1b[1\r;3Hx")
    assert screen.display[0].startswith("abx")


def test_cursor_style_recorded() -> None:
    assert run("\x1b[5 q")[0].cursor_style == 5


# ---------------------------------------------------------------------- width


def test_emoji_with_variation_selector_keeps_the_text() -> None:
    # Stock pyte stops at U+FE0F (wcwidth 0, not "combining") and drops " ok".
    assert stock("❤\ufe0f ok")[0].display[0].startswith("❤ ")
    screen, _ = run("❤\ufe0f ok")
    assert screen.display[0].startswith("❤\ufe0f ok")
    assert screen.buffer[0][0].data == "❤\ufe0f" and screen.cursor.x == 4


def test_zwj_family_and_flags_keep_the_text() -> None:
    screen, _ = run("👨\u200d👩\u200d👧 ok 🇫🇷!")
    # Per code point: three wide people (the ZWJs join them), a space, "ok", a space, two wide regional
    # indicators, "!".
    assert screen.display[0].startswith("👨\u200d👩\u200d👧 ok 🇫🇷!")
    assert screen.cursor.x == 6 + 4 + 4 + 1


def test_combining_marks_join_the_previous_cell() -> None:
    screen, _ = run("e\u0301a\u0332中\u0301x")
    assert [screen.buffer[0][x].data for x in range(5)] == ["é", "a\u0332", "中\u0301", "", "x"]


def test_overwriting_half_of_a_wide_character() -> None:
    screen, _ = run("中文\x1b[1;2Hx")  # the right half of 中
    assert screen.display[0].startswith(" x文")
    screen, _ = run("中文\x1b[1;3Hy")  # the left half of 文
    assert screen.display[0].startswith("中y ")
    screen, _ = run("中\x1b[1;1H\x1b[P")  # deleting the left half leaves a stub: renders as a space
    assert screen.display[0] == " " * 20


def test_wide_character_at_the_last_column_wraps_first() -> None:
    # Stock pyte draws it into the last column with no room for its right half.
    screen, _ = run("x" * 19 + "中")
    assert screen.display[0] == "x" * 19 + " "
    assert screen.display[1].startswith("中")


# ---------------------------------------------------------------------- resize


def test_resize_clamps_cursor_and_keeps_both_screens_consistent() -> None:
    screen, _ = run("".join(f"{i}\r\n" for i in range(10)) + "\x1b[?1049h\x1b[5;15Halt", 20, 5)
    history = len(screen.history)
    screen.resize(3, 10)
    assert (screen.cursor.y, screen.cursor.x) == (2, 9)
    # The parked main screen lost its top lines to history; the alternate screen pushed nothing.
    assert capture(screen, -len(screen.history), -1)[history:] == ["6", "7"]
    ByteStream(screen).feed(b"\x1b[?1049l")
    assert screen.lines == 3 and screen.columns == 10
    assert all(len(line) == 10 for line in screen.display)
    assert len(screen.history) >= history
    screen.resize(6, 30)
    assert all(len(line) == 30 for line in screen.display) and len(screen.display) == 6
    ByteStream(screen).feed(b"\x1b[1;1H\t\t\t.")
    assert screen.cursor.x == 25  # tab stops extended over the new width


def test_resize_cuts_wide_character_in_half_cleanly_on_the_alternate_screen() -> None:
    # The alternate screen is not reflowed: it is cut, and half a wide character is a space.
    screen, _ = run("\x1b[?1049habc中", 10, 2)
    screen.resize(2, 4)
    assert screen.display[0] == "abc "


def test_resize_moves_a_wide_character_that_no_longer_fits_to_the_next_row_on_the_main_screen() -> None:
    # (As tmux: the row it makes pushes the top row into the scrollback.)
    screen, _ = run("abc中\r\n", 10, 3)
    screen.resize(3, 4)
    assert capture(screen, -1, 0) == ["abc", "中"] and wrapped(screen, -1)


# ---------------------------------------------------------------------- other places termux follows xterm


def test_nel_is_always_carriage_return_and_line_feed() -> None:
    # Stock pyte's ESC E only returns the carriage in LNM mode.
    assert stock("abc\x1bEx")[0].display[1].startswith("   x")
    assert run("abc\x1bEx")[0].display[1].startswith("x")


def test_decsc_has_one_slot_and_decrc_does_not_consume_it() -> None:
    # Stock pyte keeps a stack: the second DECRC after one DECSC goes home.
    stock_screen, _ = stock("\x1b[2;3H\x1b7\x1b[4;4H\x1b8\x1b[5;5H\x1b8")
    assert (stock_screen.cursor.y, stock_screen.cursor.x) == (0, 0)
    screen, _ = run("\x1b[2;3H\x1b7\x1b[4;4H\x1b8\x1b[5;5H\x1b8")
    assert (screen.cursor.y, screen.cursor.x) == (1, 2)
    # And it restores origin mode both ways (stock pyte only ever sets it).
    screen, _ = run("\x1b7\x1b[2;4r\x1b[?6h\x1b8")
    assert (6 << 5) not in screen.mode


def test_erase_saved_lines_keeps_the_screen() -> None:
    # Stock pyte erases the screen on CSI 3 J; xterm erases only the scrollback.
    assert stock("keep\x1b[3J")[0].display[0].startswith("    ")
    screen, _ = run("".join(f"{i}\r\n" for i in range(10)) + "keep\x1b[3J")
    assert len(screen.history) == 0 and screen.display[-1].startswith("keep")


def test_c1_controls_are_controls_not_text() -> None:
    # U+0085 (NEL) is a control: stock pyte tried to draw it and dropped the rest of the text.
    assert stock("a\u0085bc")[0].display[0].startswith("a ")
    screen, _ = run("a\u0085bc\u009b2;2Hx")
    assert screen.display[0].startswith("a")
    assert screen.display[1].startswith("bx")


@pytest.mark.parametrize(("seq", "expected"), [
    ("中文\x1b[1;2H\x1b[P", " 文"),          # DCH of 中's right half: its left half is blanked
    ("中文\x1b[1;1H\x1b[P", " 文"),          # DCH of the left half: the stub left alone becomes a space
    ("中文\x1b[1;2H\x1b[@", "   文"),        # ICH in the middle: both halves of 中 blank
    ("中文\x1b[1;2H\x1b[X", "  文"),         # ECH of the right half
    ("中文\x1b[1;3H\x1b[1K", "    "),        # EL 1 up to the left half of 文
    ("中文\x1b[1;2H\x1b[K", " "),            # EL 0 from the right half of 中
    ("abc中\x1b[1;1H\x1b[2@", "  abc"),      # 中 pushed half off the right edge: blanked
])
def test_editing_never_leaves_half_a_wide_character(seq: str, expected: str) -> None:
    screen, _ = run(seq, 6, 2)
    row = screen.buffer[0]
    for x in range(6):
        data = row[x].data
        if data == "":
            assert x > 0 and len(row[x - 1].data) and row[x - 1].data[0] in "中文"
        elif data in "中文":
            assert x + 1 < 6 and row[x + 1].data == ""
    assert screen.display[0].rstrip() == expected.rstrip()


def test_palette_query_save_cursor_mode_and_default_tab_stops() -> None:
    screen, replies = run("\x1b]4;1;?;196;?\x07")
    assert replies == ["\x1b]4;1;rgb:cdcd/0000/0000\x07", "\x1b]4;196;rgb:ffff/0000/0000\x07"]
    screen, _ = run("\x1b[2;3H\x1b[?1048h\x1b[5;5H\x1b[?1048l")
    assert (screen.cursor.y, screen.cursor.x) == (1, 2) and (1048 << 5) not in screen.mode
    screen, _ = run("\x1b[3g\x1b[?5W\tx")
    assert screen.display[0].index("x") == 8
