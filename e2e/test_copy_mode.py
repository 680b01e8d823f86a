"""Copy mode, the clipboard and paste buffers in the real TUI (`python -m termux`), in a real PTY,
against a real server: what a person does, and what reaches the outer terminal and the buffers."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path

from e2e.isolated import IsolatedServer
from e2e.terminal import Terminal

PREFIX = b"\x02"  # ctrl+b
SIDEBAR = 28  # columns the sidebar takes (27 + its border)
ROWS, COLS = 30, 100


def _tui(server: IsolatedServer, config: str = "", tmp_path: Path | None = None) -> Terminal:
    if config:
        assert tmp_path is not None
        (tmp_path / "termux").mkdir(parents=True, exist_ok=True)
        (tmp_path / "termux" / "config.toml").write_text(config)
        server.env["XDG_CONFIG_HOME"] = str(tmp_path)
    term = server.terminal(cols=COLS, rows=ROWS)
    term.wait_for("ctrl+b then", timeout=30)
    return term


def _status(term: Terminal) -> str:
    return term.display[-1]


def _copied(term: Terminal) -> list[bytes]:
    return [base64.b64decode(payload.split(";", 1)[1]) for payload in term.clipboard]


def test_copy_mode_over_ten_thousand_lines_searches_selects_and_copies(
    server: IsolatedServer, run_termux: Callable[..., object]
) -> None:
    term = _tui(server)
    term.write(b"seq 1 5000; echo 'the MARKER-42 line'; seq 1 5000; echo done-$((2+3))\r")
    term.wait_for("done-5", timeout=60)
    term.write(PREFIX + b"[")
    term.wait_for(lambda t: "copy mode" in _status(t))
    term.write(b"?MARKER-4")  # backwards, incremental: found while typing
    # the typed command line holds it too: the nearest above the screen is the second of two
    term.wait_for(lambda t: "?MARKER-4  (2/2)" in _status(t), timeout=30)
    term.write(b"\r")  # keep the search; the cursor is on the match
    term.write(b"vE")  # select to the end of the WORD
    term.wait_for(lambda t: "[" in _status(t))
    term.write(b"y")
    term.wait_for(lambda t: "copy mode" not in _status(t) and "copied" in _status(t))
    assert _copied(term) == [b"MARKER-42"]
    shown = server.run("show-buffer")
    assert shown.stdout == "MARKER-42"
    term.write(b"echo after\r")  # keys reach the shell again
    term.wait_for("after")


def _paste_into(server: IsolatedServer, buffer: str, command: bytes) -> Terminal:
    """The TUI on a shell, `buffer` set as the newest paste buffer, the shell running `command` (a
    command line that says "ready", spelt so that its own echo does not, then reads its input),
    prefix ] pasted into it, and Enter."""
    term = _tui(server)
    server.run("set-buffer", buffer)
    term.write(command + b"\r")
    term.wait_for(lambda t: "\nready" in terminal_text(t).replace(" ", ""))  # the reader runs
    term.write(PREFIX + b"]")
    term.write(b"\r")
    return term


def test_prefix_bracket_pastes_the_newest_buffer_into_cat(server: IsolatedServer) -> None:
    term = _paste_into(server, "pasted-into-cat", b"echo rea''dy; cat")
    term.wait_for(lambda t: t.text.count("pasted-into-cat") >= 2)  # the echo and cat's copy


def _mouse(term: Terminal, kind: str, x: int, y: int) -> None:
    """A button-1 gesture at cell (x, y) of the terminal view, as the outer terminal reports it
    (SGR encoding, 1-based; the view starts after the sidebar)."""
    code, final = {"down": (0, "M"), "drag": (32, "M"), "up": (0, "m")}[kind]
    term.write(f"\x1b[<{code};{SIDEBAR + x + 1};{y + 1}{final}".encode())


def _row_of(term: Terminal, text: str) -> int:
    return next(y for y, line in enumerate(term.display) if line[SIDEBAR:].startswith(text))


def test_a_drag_over_a_shell_selects_and_copies_on_release(server: IsolatedServer) -> None:
    term = _tui(server)
    term.write(b"clear; echo 'alpha beta gamma'; echo 'delta epsilon'\r")
    term.wait_for(lambda t: any(line[SIDEBAR:].startswith("delta epsilon") for line in t.display))
    y = _row_of(term, "alpha beta gamma")
    _mouse(term, "down", 6, y)  # on "beta"
    _mouse(term, "drag", 8, y)
    _mouse(term, "drag", 4, y + 1)  # to "delta"'s last letter, a row down
    term.wait_for(lambda t: "copy mode" in _status(t))
    _mouse(term, "up", 4, y + 1)
    term.wait_for(lambda t: "copied" in _status(t))
    assert _copied(term) == [b"beta gamma\ndelta"]
    assert server.run("show-buffer").stdout == "beta gamma\ndelta"


def test_a_double_click_copies_a_word_and_a_triple_click_a_line(server: IsolatedServer) -> None:
    term = _tui(server)
    term.write(b"clear; echo 'one two-three four'\r")
    term.wait_for(lambda t: any(line[SIDEBAR:].startswith("one two-three four") for line in t.display))
    y = _row_of(term, "one two-three four")
    for _ in range(2):
        _mouse(term, "down", 5, y)
        _mouse(term, "up", 5, y)
    term.wait_for(lambda t: len(t.clipboard) == 1)
    assert _copied(term) == [b"two"]
    term.wait_for(lambda t: "copy mode" not in _status(t))
    for _ in range(3):
        _mouse(term, "down", 9, y)
        _mouse(term, "up", 9, y)
    term.wait_for(lambda t: len(t.clipboard) == 2)
    assert _copied(term)[1] == b"one two-three four"


def test_with_mouse_reporting_on_a_drag_is_the_programs_and_shift_drag_selects(server: IsolatedServer) -> None:
    term = _tui(server)
    # A program that asks for the mouse (button events, SGR) and shows what it gets, escaped.
    term.write(b"clear; echo 'pick me'; printf '\\033[?1000h\\033[?1006h'; stty raw -echo; od -c\r")
    term.wait_for(lambda t: any(line[SIDEBAR:].startswith("pick me") for line in t.display))
    y = _row_of(term, "pick me")
    _mouse(term, "down", 0, y)
    _mouse(term, "up", 0, y)
    term.write(b"x" * 16)  # od prints a line once it has 16 bytes
    term.wait_for(lambda t: "<" in terminal_text(t) and "M" in terminal_text(t))
    assert "copy mode" not in _status(term) and term.clipboard == []
    shift_down, shift_drag = 4, 36  # button 1 with shift, and its motion
    term.write(f"\x1b[<{shift_down};{SIDEBAR + 1};{y + 1}M".encode())
    term.write(f"\x1b[<{shift_drag};{SIDEBAR + 4};{y + 1}M".encode())
    term.write(f"\x1b[<{shift_down};{SIDEBAR + 4};{y + 1}m".encode())
    term.wait_for(lambda t: len(t.clipboard) == 1)
    assert _copied(term) == [b"pick"]


def terminal_text(term: Terminal) -> str:
    return "\n".join(line[SIDEBAR:] for line in term.display)


def test_prefix_bracket_pastes_bracketed_when_the_program_asked(server: IsolatedServer) -> None:
    term = _paste_into(server, "in-brackets", b"printf '\\033[?2004h'; stty -echo; echo rea''dy; cat -v")
    term.wait_for("^[[200~in-brackets^[[201~")


def test_a_programs_clipboard_reaches_the_outer_terminal_when_set_clipboard_is_on(
    server: IsolatedServer, tmp_path: Path
) -> None:
    term = _tui(server, 'set_clipboard = "on"\n', tmp_path)
    term.write(b"printf '\\033]52;c;%s\\007' $(printf 'from-vim' | base64); echo sent-it\r")
    term.wait_for(lambda t: "sent-it" in terminal_text(t).replace("echo sent-it", ""))
    term.wait_for(lambda t: len(t.clipboard) == 1)
    assert _copied(term) == [b"from-vim"]
    assert server.run("show-buffer").stdout == "from-vim"


def test_by_default_a_programs_clipboard_stays_inside(server: IsolatedServer) -> None:
    term = _tui(server)  # set_clipboard "external", tmux's default
    term.write(b"printf '\\033]52;c;%s\\007' $(printf 'from-vim' | base64); echo sent-it\r")
    term.wait_for(lambda t: "sent-it" in terminal_text(t).replace("echo sent-it", ""))
    term.write(b"echo and-later\r")  # anything pushed for the escape came before this echo
    term.wait_for(lambda t: "and-later" in terminal_text(t).replace("echo and-later", ""))
    assert term.clipboard == [] and server.run("buffers").stdout == ""


def test_a_hyperlink_reaches_the_outer_terminal_and_enter_in_copy_mode_copies_its_target(
    server: IsolatedServer,
) -> None:
    term = _tui(server)
    term.write(b"clear; printf 'go \\033]8;;https://example.org/docs\\033\\\\to the docs\\033]8;;\\033\\\\ now\\n'\r")
    term.wait_for(lambda t: any(line[SIDEBAR:].startswith("go to the docs now") for line in t.display))
    term.wait_for(lambda t: any(osc.endswith(";https://example.org/docs") for osc in t.osc))
    y = _row_of(term, "go to the docs now")
    term.write(PREFIX + b"[")
    term.wait_for(lambda t: "copy mode" in _status(t))
    term.write(b"k" * ROWS)  # up to the top of the screen, then down to the link's row
    term.write(b"j" * y + b"0w")  # "to", inside the link
    term.write(b"\r")
    term.wait_for(lambda t: len(t.clipboard) == 1)
    assert _copied(term) == [b"https://example.org/docs"]


def test_emacs_keys_search_mark_and_copy(server: IsolatedServer, tmp_path: Path) -> None:
    term = _tui(server, 'mode_keys = "emacs"\n', tmp_path)
    term.write(b"clear; echo 'first'; echo 'the target words here'; echo 'last'\r")
    term.wait_for(lambda t: any(line[SIDEBAR:].startswith("last") for line in t.display))
    term.write(PREFIX + b"[")
    term.wait_for(lambda t: "copy mode" in _status(t))
    term.write(b"\x12target\r")  # C-r: search backwards
    term.wait_for(lambda t: "?target" in _status(t) and "no match" not in _status(t))
    term.write(b"\x00")  # C-Space: set the mark
    term.write(b"\x1bf\x1bf")  # M-f twice: to the end of "words"
    term.write(b"\x1bw")  # M-w: copy
    term.wait_for(lambda t: len(t.clipboard) == 1)
    assert _copied(term) == [b"target words"]
