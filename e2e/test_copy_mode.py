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


def test_prefix_bracket_pastes_the_newest_buffer_into_cat(server: IsolatedServer) -> None:
    term = _tui(server)
    server.run("set-buffer", "pasted-into-cat")
    term.write(b"cat\r")
    term.wait_for(lambda t: "cat" in t.text)
    term.write(PREFIX + b"]")
    term.write(b"\r")
    term.wait_for(lambda t: t.text.count("pasted-into-cat") >= 2)  # the echo and cat's copy
