"""Panes in the real TUI (`python -m termux`) in a real PTY, against a real server: split, move the
focus and type, zoom, resize the outer terminal, click, an ended session's pane, layouts."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from e2e.isolated import IsolatedServer
from e2e.terminal import Terminal

Start = Callable[..., Terminal]
PREFIX = b"\x02"  # ctrl+b
LEFT, RIGHT, UP, DOWN = b"\x1b[D", b"\x1b[C", b"\x1b[A", b"\x1b[B"
SIDEBAR = 28  # columns the sidebar takes (27 + its border)
COLS, ROWS = 100, 30
# The pane area is COLS - SIDEBAR wide and ROWS - 1 high (the status line). Split left/right: the
# left pane keeps the larger half of the width less the separator; each pane's first row is its
# title, so its session has one row less.
AREA_W, AREA_H = COLS - SIDEBAR, ROWS - 1
LEFT_W = (AREA_W - 1 + 1) // 2
RIGHT_X = SIDEBAR + LEFT_W + 1
RIGHT_W = AREA_W - 1 - LEFT_W


def started(tui: Start, *args: str, cols: int = COLS, rows: int = ROWS) -> Terminal:
    term = tui(*args, cols=cols, rows=rows)
    term.wait_for("ctrl+b then", timeout=30)
    return term


def sessions(server: IsolatedServer) -> list[dict[str, object]]:
    listed: list[dict[str, object]] = json.loads(server.run("ls", "--json").stdout)
    return listed


def wait_sessions(server: IsolatedServer, count: int, timeout: float = 20.0) -> list[dict[str, object]]:
    deadline = time.monotonic() + timeout
    while len(listed := sessions(server)) != count:
        assert time.monotonic() < deadline, f"expected {count} sessions, have {listed}"
        time.sleep(0.05)
    return listed


def columns(term: Terminal, x: int, width: int) -> list[str]:
    """What the screen shows in columns x .. x + width - 1, line by line."""
    return [line[x : x + width] for line in term.display]


def shows(term: Terminal, text: str, x: int, width: int) -> bool:
    return any(text in line for line in columns(term, x, width))


TOP_H = (AREA_H + 1) // 2  # split top/bottom: the upper pane's height (its title included)


def split(term: Terminal, server: IsolatedServer, key: bytes, count: int) -> None:
    """prefix KEY (`%` or `"`), and wait until the new pane is there and focused: its title row
    marked (keys typed before would go to the pane before)."""
    term.write(PREFIX + key)
    wait_sessions(server, count)
    x, y = (RIGHT_X, 0) if key == b"%" else (SIDEBAR, TOP_H)
    term.wait_for(lambda t: t.display[y][x] == "▌", timeout=20)


def type_and_see(term: Terminal, command: str, marker: str, x: int, width: int) -> None:
    term.write(command.encode() + b"\r")
    term.wait_for(lambda t: shows(t, marker, x, width), timeout=20)


def test_split_shows_both_sessions_side_by_side_and_focus_moves_to_the_other(
    tui: Start, server: IsolatedServer
) -> None:
    term = started(tui)
    split(term, server, b"%", 2)  # the new pane, on the right, has the focus
    type_and_see(term, "echo right-$((1+1))", "right-2", RIGHT_X, RIGHT_W)
    assert not shows(term, "right-2", SIDEBAR, LEFT_W)
    term.write(PREFIX + LEFT)  # the focus moves to the left pane: keys go there now
    type_and_see(term, "echo left-$((2+3))", "left-5", SIDEBAR, LEFT_W)
    assert not shows(term, "left-5", RIGHT_X, RIGHT_W)
    # the title rows: each session's name, the focused one marked (the mark may be drawn a frame
    # after the echo); the separator between them
    names = [s["name"] for s in sessions(server)]
    term.wait_for(lambda t: t.display[0][SIDEBAR] == "▌" and t.display[0][RIGHT_X] == "─", timeout=20)
    title = term.display[0]
    assert title[SIDEBAR : SIDEBAR + 4] == f"▌ {names[0]} " and title[RIGHT_X : RIGHT_X + 4] == f"─ {names[1]} "
    assert all(line[SIDEBAR + LEFT_W] == "│" for line in term.display[:AREA_H])
    term.write(PREFIX + b"o")  # cycles back to the right one
    type_and_see(term, "echo again-$((3*3))", "again-9", RIGHT_X, RIGHT_W)


def test_zoom_shows_the_focused_pane_alone_and_unzoom_brings_both_back(tui: Start, server: IsolatedServer) -> None:
    term = started(tui)
    type_and_see(term, "echo first-$((4+4))", "first-8", SIDEBAR, AREA_W)
    split(term, server, b'"', 2)  # top/bottom: the new one below, focused
    type_and_see(term, "echo below-$((5+5))", "below-10", SIDEBAR, AREA_W)
    term.write(PREFIX + b"z")
    term.wait_for(lambda t: not shows(t, "first-8", SIDEBAR, AREA_W))
    assert shows(term, "below-10", SIDEBAR, AREA_W) and "─" not in term.display[0][SIDEBAR:]  # no title alone
    wait_pane_sizes(server, {1: (AREA_W, AREA_H)})  # the zoomed pane's session has the whole area
    term.write(PREFIX + b"z")
    term.wait_for(lambda t: shows(t, "first-8", SIDEBAR, AREA_W) and shows(t, "below-10", SIDEBAR, AREA_W))


def wait_pane_sizes(server: IsolatedServer, want: dict[int, tuple[int, int]], timeout: float = 20.0) -> None:
    """Until session number N (in creation order) has size want[N] (cols, rows)."""
    deadline = time.monotonic() + timeout
    while True:
        listed = sessions(server)
        sizes = {n: (s["cols"], s["rows"]) for n, s in enumerate(listed)}
        if all(sizes.get(n) == size for n, size in want.items()):
            return
        assert time.monotonic() < deadline, f"sizes {sizes}, want {want}"
        time.sleep(0.05)


def stty_size(term: Terminal, x: int, width: int, tag: str) -> tuple[int, int]:
    """Run `stty size` in the focused pane; its (cols, rows) as the program sees them."""
    term.write(f"echo {tag}-$(stty size | tr ' ' x)-end\r".encode())
    pattern = re.compile(rf"{tag}-(\d+)x(\d+)-end")
    found: list[tuple[int, int]] = []

    def seen(t: Terminal) -> bool:
        for line in columns(t, x, width):
            if match := pattern.search(line):
                found.append((int(match.group(2)), int(match.group(1))))
                return True
        return False

    term.wait_for(seen, timeout=20)
    return found[-1]


def test_resizing_the_outer_terminal_resizes_every_pane_s_session(tui: Start, server: IsolatedServer) -> None:
    term = started(tui)
    split(term, server, b"%", 2)
    assert stty_size(term, RIGHT_X, RIGHT_W, "r1") == (RIGHT_W, AREA_H - 1)
    term.write(PREFIX + LEFT)
    assert stty_size(term, SIDEBAR, LEFT_W, "l1") == (LEFT_W, AREA_H - 1)
    term.write(b"clear\r")
    term.resize(120, 40)  # the area is 92 x 39 now: the two panes keep their proportions
    wide_w, high = 120 - SIDEBAR, 40 - 1
    left_w = round((wide_w - 1) * LEFT_W / (AREA_W - 1))
    right_w = wide_w - 1 - left_w
    wait_pane_sizes(server, {0: (left_w, high - 1), 1: (right_w, high - 1)})
    assert stty_size(term, SIDEBAR, left_w, "l2") == (left_w, high - 1)
    term.write(PREFIX + RIGHT)
    assert stty_size(term, SIDEBAR + left_w + 1, right_w, "r2") == (right_w, high - 1)


def test_resizing_a_pane_by_keys_and_by_dragging_its_border(tui: Start, server: IsolatedServer) -> None:
    term = started(tui)
    split(term, server, b"%", 2)
    term.write(PREFIX + LEFT)  # the left pane: ctrl+right moves its right border right
    term.write(PREFIX + b"\x1b[1;5C")
    wait_pane_sizes(server, {0: (LEFT_W + 1, AREA_H - 1), 1: (RIGHT_W - 1, AREA_H - 1)})
    term.write(PREFIX + b"\x1b[1;3D")  # alt+left: five cells back
    wait_pane_sizes(server, {0: (LEFT_W - 4, AREA_H - 1), 1: (RIGHT_W + 4, AREA_H - 1)})
    border = SIDEBAR + LEFT_W - 4 + 1  # its column, 1-based (SGR mouse reports)
    term.write(f"\x1b[<0;{border};10M\x1b[<32;{border + 6};10M\x1b[<0;{border + 6};10m".encode())
    wait_pane_sizes(server, {0: (LEFT_W + 2, AREA_H - 1), 1: (RIGHT_W - 2, AREA_H - 1)})


def test_a_click_focuses_the_pane_clicked(tui: Start, server: IsolatedServer) -> None:
    term = started(tui)
    split(term, server, b"%", 2)  # focus: the right pane
    x, y = SIDEBAR + 5 + 1, 10 + 1  # a cell of the left pane, 1-based
    term.write(f"\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m".encode())
    term.wait_for(lambda t: t.display[0][SIDEBAR] == "▌")
    type_and_see(term, "echo clicked-$((6+1))", "clicked-7", SIDEBAR, LEFT_W)


def test_an_ended_session_s_pane_shows_its_status_until_enter_closes_it(tui: Start, server: IsolatedServer) -> None:
    term = started(tui)
    split(term, server, b"%", 2)
    term.write(b"exit 3\r")
    term.wait_for(lambda t: "[exit 3: Enter closes]" in t.display[0], timeout=20)
    assert len(sessions(server)) == 2  # the pane stays, and so does the session
    term.write(b"\r")
    term.wait_for(lambda t: "─" not in t.display[0][SIDEBAR:])  # one pane again: no title
    type_and_see(term, "echo alone-$((2*4))", "alone-8", SIDEBAR, AREA_W)
    assert [s["state"] for s in sessions(server)] == ["running", "exited"]  # listed until killed


def test_breaking_a_pane_out_keeps_its_session(tui: Start, server: IsolatedServer) -> None:
    term = started(tui)
    split(term, server, b"%", 2)
    term.write(PREFIX + b"!")
    term.wait_for(lambda t: "─" not in t.display[0][SIDEBAR:])
    assert [s["state"] for s in sessions(server)] == ["running", "running"]
    wait_pane_sizes(server, {0: (AREA_W, AREA_H)})


def test_a_layout_from_the_config_file_and_attaching_again_restores_it(
    tui: Start, server: IsolatedServer, tmp_path: Path
) -> None:
    (tmp_path / "termux").mkdir()
    (tmp_path / "proj").mkdir()
    (tmp_path / "termux" / "config.toml").write_text(
        "[layouts.dev]\n"
        f'cwd = "{tmp_path / "proj"}"\n'
        'split = "h"\n'
        "panes = [\n"
        '  { name = "editor", command = ["sh", "-c", "echo in-$(basename $PWD)-ed; exec cat"] },\n'
        '  { name = "build", command = ["sh", "-c", "echo build-$((40+2)); exec cat"], focus = true },\n'
        "]\n"
    )
    server.env["XDG_CONFIG_HOME"] = str(tmp_path)
    term = started(tui, "attach", "--layout", "dev")
    term.wait_for(lambda t: shows(t, "in-proj-ed", SIDEBAR, LEFT_W) and shows(t, "build-42", RIGHT_X, RIGHT_W))
    listed = sessions(server)
    assert [s["name"] for s in listed] == ["editor", "build"] and listed[0]["cwd"] == str(tmp_path / "proj")
    assert term.display[0][RIGHT_X] == "▌"  # the pane the layout focuses
    term.write(PREFIX + b"d")
    term.wait_for("[detached]")
    again = started(tui, "attach")
    again.wait_for(lambda t: shows(t, "in-proj-ed", SIDEBAR, LEFT_W) and shows(t, "build-42", RIGHT_X, RIGHT_W))
    assert len(sessions(server)) == 2  # shown again, not made again


def test_a_layout_whose_session_cannot_start_says_why_and_keeps_the_others(
    tui: Start, server: IsolatedServer, tmp_path: Path
) -> None:
    (tmp_path / "termux").mkdir()
    (tmp_path / "termux" / "config.toml").write_text(
        '[layouts.bad]\npanes = [{ name = "fine", command = ["cat"] }, { name = "lost", cwd = "/no/such/dir" }]\n'
    )
    server.env["XDG_CONFIG_HOME"] = str(tmp_path)
    term = tui("attach", "--layout", "bad")
    assert term.wait_exit(timeout=30) == 1
    assert "termux: no such directory: /no/such/dir" in term.text
    assert [s["name"] for s in sessions(server)] == ["fine"]
