"""The real TUI (`python -m termux`) in a real PTY, against a real server, read through an emulator."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from e2e.isolated import IsolatedServer
from e2e.terminal import Terminal

Start = Callable[..., Terminal]
PREFIX = b"\x02"  # ctrl+b
SIDEBAR = 28  # columns the sidebar takes (27 + its border)
STATUS = 1  # the status line


def started(tui: Start, *args: str, cols: int = 100, rows: int = 30) -> Terminal:
    term = tui(*args, cols=cols, rows=rows)
    term.wait_for("ctrl+b then", timeout=30)
    return term


def test_type_into_a_shell_and_see_the_echo(tui: Start) -> None:
    term = started(tui)
    term.write(b"echo hello-$((6*7))\r")
    term.wait_for("hello-42")


def test_ctrl_c_interrupts_a_sleep(tui: Start) -> None:
    term = started(tui)
    term.write(b"sleep 300\r")
    term.wait_for("sleep 300")
    term.write(b"\x03")
    term.write(b"echo back-$((40+2))\r")
    term.wait_for("back-42", timeout=20)  # long before the sleep would have ended


def test_alternate_screen_enters_and_leaves_cleanly(tui: Start) -> None:
    term = started(tui)
    term.write(b"echo before-marker\r")
    term.wait_for("before-marker")
    term.write(b"printf '\\033[?1049h\\033[H\\033[2JALT-%s' SCREEN; read x; printf '\\033[?1049l'\r")
    term.wait_for("ALT-SCREEN")
    assert "before-marker" not in term.text
    term.write(b"\r")
    term.wait_for(lambda t: "before-marker" in t.text and "ALT-SCREEN" not in t.text)


def test_detach_and_attach_again_keep_the_screens(tui: Start, run_termux: Callable[..., object]) -> None:
    term = started(tui)
    term.write(b"echo keep-$((1+1))-me\r")
    term.wait_for("keep-2-me")
    term.write(PREFIX + b"d")
    term.wait_for("[detached]")
    assert term.wait_exit() == 0
    # the outer terminal is given back: cursor shown, no mouse or paste modes left on
    assert not term.screen.cursor.hidden
    assert not {1000 << 5, 1003 << 5, 1006 << 5, 2004 << 5} & set(term.screen.mode)
    again = started(tui, "attach")
    again.wait_for("keep-2-me")
    again.write(b"echo still-$((2+3))\r")
    again.wait_for("still-5")


def test_two_tuis_attached_at_once(tui: Start) -> None:
    first = started(tui)
    second = started(tui, "attach")
    first.write(b"echo from-$((3*3))-first\r")
    first.wait_for("from-9-first")
    second.wait_for("from-9-first")
    second.write(b"echo from-$((4*4))-second\r")
    first.wait_for("from-16-second")


def session_size(server: IsolatedServer) -> tuple[int, int]:
    from termux.client import Client

    with Client.connect(server.socket_path, autostart=False) as client:
        info = client.request("session.list")["sessions"][0]
    return info["cols"], info["rows"]


def test_an_outer_resize_reaches_the_session(tui: Start, server: IsolatedServer) -> None:
    term = started(tui, cols=100, rows=30)
    term.write(b"stty size\r")
    term.wait_for(f"{30 - STATUS} {100 - SIDEBAR}")
    term.resize(90, 20)
    # the TUI has laid itself out again (its status line is on the new last row)
    term.wait_for(lambda t: "ctrl+b then" in t.display[20 - 1])
    # keys go first, so typing in the same millisecond could beat the resize request; wait for it
    deadline = time.monotonic() + 10
    while session_size(server) != (90 - SIDEBAR, 20 - STATUS) and time.monotonic() < deadline:
        time.sleep(0.05)
    term.write(b"clear; stty size\r")
    term.wait_for(f"{20 - STATUS} {90 - SIDEBAR}")


def test_new_attaches_focused_on_the_new_session(tui: Start, server: IsolatedServer) -> None:
    server.run("new", "-d", "-s", "first", "--", "/bin/sh", "-c", "echo first-session; exec cat")
    term = started(tui, "new", "-s", "second", "--", "/bin/sh", "-c", "echo second-session; exec cat")
    term.wait_for("second-session")
    assert "first-session" not in term.text or "second-session" in term.text
    listed = server.run("ls").stdout
    assert "first" in listed and "second" in listed


def test_termux_alone_starts_a_server_and_a_shell(socket_dir: Path, termux_env: dict[str, str]) -> None:
    env = {**termux_env, "SHELL": "/bin/sh"}
    term = Terminal([sys.executable, "-m", "termux"], cols=100, rows=30, env=env)
    try:
        term.wait_for("ctrl+b then", timeout=30)
        term.write(b"echo fresh-$((5*5))\r")
        term.wait_for("fresh-25")
        term.write(PREFIX + b"d")
        term.wait_for("[detached]")
    finally:
        term.close()
        subprocess.run([sys.executable, "-m", "termux", "kill-server"], env=env, capture_output=True, timeout=30)


def test_prefix_commands_in_a_real_terminal(tui: Start) -> None:
    """Prefix commands run from the input fast path (not Textual's queue) and still drive Textual."""
    term = started(tui)
    term.write(b"echo first-$((1+2))\r")
    term.wait_for("first-3")
    term.write(PREFIX + b"?")
    term.wait_for("termux keys")
    term.write(b"z")  # any key closes the help and is not typed
    term.wait_for(lambda t: "termux keys" not in t.text)
    term.write(PREFIX + b"c")
    term.wait_for("1:1")  # a second session in the sidebar
    term.write(b"echo second-$((2+2))\r")
    term.wait_for("second-4")
    assert "first-3" not in "\n".join(line[SIDEBAR:] for line in term.display)
    term.write(PREFIX + b"p")
    term.wait_for(lambda t: "first-3" in "\n".join(line[SIDEBAR:] for line in t.display))
    term.write(PREFIX + PREFIX)  # the prefix twice types one ctrl+b into the shell
    term.write(PREFIX + b"x")
    term.wait_for("(y/n)")
    term.write(b"y")
    term.wait_for(lambda t: "0:0" not in t.text)
    assert "z" not in "\n".join(line[SIDEBAR:] for line in term.display).replace("ctrl+b", "")
