"""Reflow end to end (issue 17 item 4): a real program's long line in a session shown by the real TUI
in a pseudo-terminal; resizing the outer terminal resizes the session, and the line re-wraps, in
the server's capture (`-J` joins it) and on the view the TUI draws."""

from __future__ import annotations

from collections.abc import Callable

from e2e.isolated import IsolatedServer
from e2e.terminal import Terminal

SIDEBAR = 28  # columns the TUI's sidebar takes (27 + its border)
LONG = "".join(f"{i:03d}," for i in range(25))  # 100 characters


def test_a_resize_round_trip_keeps_a_long_line_whole(tui: Callable[..., Terminal], server: IsolatedServer) -> None:
    server.run("new", "-d", "-s", "long", "--", "sh", "-c", f"printf 'start\\n{LONG}\\nend\\n'; sleep 600")
    term = tui("attach", "-t", "long", cols=SIDEBAR + 112, rows=30)  # the session is 112 columns wide
    term.wait_for(lambda t: any(line[SIDEBAR:].rstrip() == LONG for line in t.display), timeout=30)
    term.resize(SIDEBAR + 80, 30)  # 80 columns: the line takes two rows
    term.wait_for(lambda t: any(line[SIDEBAR:].rstrip() == LONG[80:] for line in t.display))
    assert server.captured_lines("long") == ["start", LONG[:80], LONG[80:], "end"]
    assert server.captured_lines("long", "-J") == ["start", LONG, "end"]
    term.resize(SIDEBAR + 112, 30)  # back: one row again, on the view too
    term.wait_for(lambda t: any(line[SIDEBAR:].rstrip() == LONG for line in t.display))
    assert server.captured_lines("long") == ["start", LONG, "end"]
