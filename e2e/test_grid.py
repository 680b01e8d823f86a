"""The live grid and navigation at scale in the real TUI (`python -m termux`) in a real PTY, against a
real server: open the grid with 12 sessions, filter, pick one and see it focused; find a session by
name; hide the sidebar and bring it back."""

from __future__ import annotations

from collections.abc import Callable

from e2e.isolated import IsolatedServer
from e2e.terminal import Terminal

Start = Callable[..., Terminal]
PREFIX = b"\x02"  # ctrl+b
SIDEBAR = 28  # columns the sidebar takes (27 + its border)


def started(tui: Start, *args: str, cols: int = 100, rows: int = 30) -> Terminal:
    term = tui(*args, cols=cols, rows=rows)
    term.wait_for("ctrl+b then", timeout=30)
    return term


def twelve_sessions(server: IsolatedServer) -> None:
    for n in range(12):
        server.run("new", "-d", "-s", f"job{n}", "--", "/bin/sh", "-c", f"echo hello-from-{n}; exec cat")


def on_job0(tui: Start, server: IsolatedServer) -> Terminal:
    """The TUI over twelve sessions, showing the first."""
    twelve_sessions(server)
    term = started(tui, "attach", "-t", "job0")
    term.wait_for(lambda t: "hello-from-0" in terminal_area(t))
    return term


def terminal_area(term: Terminal) -> str:
    return "\n".join(line[SIDEBAR:] for line in term.display[:-1])


def test_the_grid_shows_twelve_sessions_and_enter_focuses_the_one_picked(tui: Start, server: IsolatedServer) -> None:
    term = on_job0(tui, server)
    term.write(PREFIX + b"w")
    term.wait_for("type to filter")
    # every session's screen in its tile, side by side: four tiles to a row on 100 columns
    term.wait_for(lambda t: all(f"hello-from-{n}" in t.text for n in range(12)))
    term.wait_for("11:job11 quiet since")  # the server's quiet mark (an event, or the info at attach)
    first_row = next(line for line in term.display if "hello-from-0" in line)
    assert "hello-from-1" in first_row and "hello-from-3" in first_row
    term.write(b"job1")  # job1, job10, job11
    term.wait_for("filter: job1")
    term.wait_for(lambda t: "hello-from-5" not in t.text and "hello-from-11" in t.text)
    term.write(b"\x1b[C")  # right: job10
    term.write(b"\r")
    term.wait_for(lambda t: "hello-from-10" in terminal_area(t) and "type to filter" not in t.text)
    term.wait_for("[job10]")  # the status line names the focused session
    term.write(b"typed-here\r")  # keys go to the session picked: its echo, then cat's copy
    term.wait_for(lambda t: terminal_area(t).count("typed-here") == 2)


def test_find_a_session_by_name_and_go_back_to_the_last(tui: Start, server: IsolatedServer) -> None:
    term = on_job0(tui, server)
    term.write(PREFIX + b"f")
    term.wait_for("Find a session")
    term.write(b"b11\r")
    term.wait_for(lambda t: "hello-from-11" in terminal_area(t) and "Find a session" not in t.text)
    term.write(PREFIX + b"'")
    term.wait_for("Find a session")
    term.write(b"7\r")  # past 9 or not, by its number
    term.wait_for(lambda t: "hello-from-7" in terminal_area(t) and "Find a session" not in t.text)
    term.write(PREFIX + b"l")  # the last session
    term.wait_for(lambda t: "hello-from-11" in terminal_area(t))


def test_the_sidebar_hides_and_comes_back(tui: Start, server: IsolatedServer) -> None:
    twelve_sessions(server)
    term = started(tui, "new", "-s", "shell", "--", "/bin/sh")
    term.wait_for("1:job1")
    term.write(PREFIX + b"s")
    term.wait_for(lambda t: "1:job1" not in t.text)
    term.write(b"clear; stty size\r")
    term.wait_for("29 100")  # the session has the whole width
    term.write(PREFIX + b"s")
    term.wait_for("1:job1")
    term.write(b"clear; stty size\r")
    term.wait_for(f"29 {100 - SIDEBAR}")


def test_attach_again_comes_back_to_the_last_focus(tui: Start, server: IsolatedServer) -> None:
    twelve_sessions(server)
    term = started(tui, "attach", "-t", "job0")
    term.write(PREFIX + b"f")
    term.wait_for("Find a session")
    term.write(b"job9\r")
    term.wait_for("[job9]")
    term.write(PREFIX + b"d")
    assert term.wait_exit() == 0
    again = started(tui, "attach")
    again.wait_for("[job9]")
    again.wait_for(lambda t: "hello-from-9" in terminal_area(t))
