"""The real TUI (`python -m termux`) in a real PTY, against a real server, read through an emulator."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyte
import pytest

from e2e.isolated import TERMUX, IsolatedServer
from e2e.terminal import Terminal

Start = Callable[..., Terminal]
PREFIX = b"\x02"  # ctrl+b
SIDEBAR = 28  # columns the sidebar takes (27 + its border)
STATUS = 1  # the status line


def started(tui: Start, *args: str, cols: int = 100, rows: int = 30) -> Terminal:
    term = tui(*args, cols=cols, rows=rows)
    term.wait_for("ctrl+b then", timeout=30)
    return term


def terminal_area(term: Terminal) -> str:
    """What the session's view shows (the sidebar's previews left out)."""
    return "\n".join(line[SIDEBAR:] for line in term.display)


def test_type_into_a_shell_and_see_the_echo(tui: Start) -> None:
    term = started(tui)
    term.write(b"echo hello-$((6*7))\r")
    term.wait_for("hello-42")


def test_a_paste_from_the_outer_terminal_reaches_the_shell(tui: Start) -> None:
    term = started(tui)
    # the outer terminal sends a bracketed paste (Textual enabled mode 2004 on it)
    term.write(b"\x1b[200~echo pasted-$((8*8))\x1b[201~")
    term.write(b"\r")
    term.wait_for("pasted-64")


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
    assert "before-marker" not in terminal_area(term)
    term.write(b"\r")
    term.wait_for(lambda t: "before-marker" in terminal_area(t) and "ALT-SCREEN" not in terminal_area(t))
    # every frame came as one synchronized update, each showing one moment of the session's
    # screen: never the new top line over the old lines below it
    assert term.frames > 0


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


def test_attach_d_detaches_the_other_tui_which_gives_its_terminal_back(tui: Start) -> None:
    first = started(tui)
    first.write(b"echo from-$((5*5))-first\r")
    first.wait_for("from-25-first")
    second = started(tui, "attach", "-d")
    first.wait_for("[detached (by another client's attach -d)]")
    assert first.wait_exit() == 0
    # the outer terminal is given back, as after its own detach: cursor shown, no mouse or paste modes
    assert not first.screen.cursor.hidden
    assert not {1000 << 5, 1003 << 5, 1006 << 5, 2004 << 5} & set(first.screen.mode)
    second.wait_for("from-25-first")
    second.write(b"echo still-$((6*6))\r")
    second.wait_for("still-36")


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


def test_the_focused_screen_is_painted_first_where_textual_then_draws_it(tui: Start, server: IsolatedServer) -> None:
    """As it takes the terminal, the TUI draws the focused session's screen from the attach
    reply (before Textual's first frame): in one synchronized update with the modes it sets,
    the sidebar and status line left for Textual's frame, which draws the same lines there."""
    cols, rows = 100, 30
    size = ["-x", str(cols - SIDEBAR), "-y", str(rows - STATUS)]  # nothing to resize or reflow
    server.run("new", "-d", "-s", "other", "--", "/bin/sh", "-c", "echo other-screen; exec cat")
    server.run("new", "-d", "-s", "shown", *size, "--", "/bin/sh", "-c", "printf 'painted\\nfirst\\n'; exec cat")
    server.run("wait", "-t", "shown", "first")
    seen: dict[str, tuple[list[str], int]] = {}

    def when(name: str, text: str) -> Callable[[Terminal], bool]:
        def check(t: Terminal) -> bool:
            if text in t.text and name not in seen:
                seen[name] = (t.display, t.frames)
            return name in seen

        return check

    term = tui("attach", "-t", "shown", cols=cols, rows=rows)
    first, full = term.expect(when("first", "painted")), term.expect(when("full", "ctrl+b then"))
    first.wait(30)
    full.wait(30)
    painted, frames = seen["first"]
    textual, _ = seen["full"]
    assert frames == 1  # the first synchronized update the terminal saw
    assert [line[:SIDEBAR].strip() for line in painted] == [""] * rows  # no sidebar yet
    assert not painted[rows - 1].strip()  # nor status line
    assert [line[SIDEBAR:] for line in painted[: rows - STATUS]] == [
        line[SIDEBAR:] for line in textual[: rows - STATUS]
    ]
    assert painted[0][SIDEBAR:].rstrip() == "painted"


def test_an_attach_to_a_target_asks_client_attach_first_and_nothing_else_to_find_it(server: IsolatedServer) -> None:
    """`termux attach -t NAME`: `client.attach` is its first request, and the target is found in
    its reply (no `session.get`), counted by a proxy in front of the server."""
    from benchmarks.attach import CountingProxy

    server.run("new", "-d", "-s", "shown", "--", "/bin/sh", "-c", "echo counted-screen; exec cat")
    server.run("wait", "-t", "shown", "counted-screen")
    proxy_path = server.socket_dir / "proxy"
    proxy = CountingProxy(server.socket_path, proxy_path)
    try:
        argv = [*TERMUX, "-S", str(proxy_path), "attach", "-t", "shown"]
        term = Terminal(argv, cols=100, rows=30, env=server.env | {"TERMUX_TUI_HOST": "0"}, cwd=server.checkout)
        try:
            term.wait_for("counted-screen", timeout=30)
            term.wait_for("ctrl+b then", timeout=30)
        finally:
            term.close()
    finally:
        proxy.close()
    sent = [cmd for _, cmd in proxy.requests]
    assert sent[0] == "client.attach"  # the first request, and no lookup of the target at all
    assert not {"session.get", "session.list"} & set(sent)


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
    assert "first-3" not in terminal_area(term)
    term.write(PREFIX + b"p")
    term.wait_for(lambda t: "first-3" in terminal_area(t))
    term.write(PREFIX + PREFIX)  # the prefix twice types one ctrl+b into the shell
    term.write(PREFIX + b"x")
    term.wait_for("(y/n)")
    term.write(b"y")
    term.wait_for(lambda t: "0:0" not in t.text)
    assert "z" not in terminal_area(term).replace("ctrl+b", "")


@pytest.mark.bench
def test_bench_lone_escape_next_to_a_plain_key(tui: Start) -> None:
    """Prints keystroke-to-screen for a lone Escape and for a plain key, side by side in one run.

    The difference is the wait that tells a lone ESC from the start of a sequence (escape_delay_ms,
    5 ms; Textual's stock driver: 100 ms plus up to a 100 ms poll). Run: pytest e2e -m bench -s -k escape
    """
    term = started(tui, cols=100, rows=12)
    term.write(b"stty raw -echo; cat -v\r")
    term.wait_for(lambda t: "cat -v" in terminal_area(t))
    results: dict[str, list[float]] = {}
    for label, key, shown in (("lone ESC", b"\x1b", "^["), ("plain key", b"Z", "Z")):
        times: list[float] = []
        for _ in range(20):
            count = terminal_area(term).count(shown)
            sent = time.monotonic()
            term.write(key)
            seen = term.wait_for(lambda t, c=count, s=shown: terminal_area(t).count(s) > c)
            times.append((seen - sent) * 1000)
            time.sleep(0.03)
        results[label] = sorted(times)
    print("\n| key | p50 ms | max ms |\n| --- | ---: | ---: |")
    for label, times in results.items():
        print(f"| {label} | {times[len(times) // 2]:.1f} | {times[-1]:.1f} |")


def test_attach_to_a_missing_session_says_so(tui: Start, server: IsolatedServer) -> None:
    server.run("new", "-d", "-s", "here", "--", "/bin/cat")
    term = tui("attach", "-t", "nope")
    term.wait_for("nope")
    assert term.wait_exit() == 1


WINCH = [sys.executable, str(Path(__file__).resolve().parent / "programs" / "winch.py")]


def resizes(server: IsolatedServer, name: str) -> list[tuple[int, int]]:
    from termux.client import Client

    with Client.connect(server.socket_path, autostart=False) as client:
        sid = client.request("session.get", target=name)["session"]["id"]
        events = client.request("events.read", cursor=0, types=["session.resized"], session=sid, limit=1000)
    return [(event["data"]["cols"], event["data"]["rows"]) for event in events["events"]]


def view_row(term: Terminal, y: int) -> str:
    return term.display[y][SIDEBAR:]


def test_two_tuis_of_different_sizes_never_fight_over_a_session(tui: Start, server: IsolatedServer) -> None:
    """One size policy in the server (latest): each real resize or switch of the active view is one
    resize of the session; a view of another size draws it padded or clipped, and receiving the
    redrawn screen never makes a view ask for its own size back."""
    server.run("new", "-d", "-s", "w", "--", *WINCH)
    big = started(tui, "attach", "-t", "w", cols=140, rows=40)
    big.wait_for("size 112x39 winches 1")
    small = started(tui, "attach", "-t", "w", cols=100, rows=30)
    for term in (big, small):  # the latest view's size, drawn by both
        term.wait_for("size 72x29 winches 2")
    big.wait_for(lambda t: view_row(t, 1) == "=" * 72 + " " * (112 - 72))  # padded, not stretched
    big.resize(150, 45)  # a real resize of the big view's terminal: it is the latest view again
    for term in (big, small):
        term.wait_for("size 122x44 winches 3")
    small.wait_for(lambda t: view_row(t, 1) == "=" * 72)  # clipped to the view, not wrapped
    big.write(b"a")  # the big view is the latest already: typing changes no size
    for term in (big, small):
        term.wait_for("keys a")
    small.write(b"b")  # typing makes the small view the latest (tmux's `latest`)
    for term in (big, small):
        term.wait_for("keys ab")
        term.wait_for("size 72x29 winches 4")
    # both views have drawn the last screen and each sent a key after anything it did on the
    # screens before: the server has every resize either asked for
    assert resizes(server, "w") == [(112, 39), (72, 29), (122, 44), (72, 29)]


def fresh_terminal_state(cols: int, rows: int) -> tuple[set[int], list[Any]]:
    """The modes of a terminal nobody has drawn on, and a fresh PTY's line discipline."""
    master, slave = os.openpty()
    try:
        attributes = termios.tcgetattr(slave)
    finally:
        os.close(master)
        os.close(slave)
    return set(pyte.Screen(cols, rows).mode), attributes


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT], ids=lambda s: s.name)
def test_a_signal_ends_the_tui_and_gives_the_terminal_back(tui: Start, sig: signal.Signals) -> None:
    modes, attributes = fresh_terminal_state(100, 30)
    term = started(tui)
    assert 1049 << 5 in term.screen.mode  # the TUI is on the alternate screen, with the mouse on
    assert {1000 << 5, 1003 << 5} & term.screen.mode
    os.kill(term.pid, sig)
    assert term.wait_exit() == 1
    assert set(term.screen.mode) == modes  # alternate screen, mouse, paste, focus modes: all off
    assert not term.screen.cursor.hidden
    iflag, oflag, cflag, lflag = term.tty_attributes()[:4]
    assert (iflag, oflag, cflag, lflag) == tuple(attributes[:4])  # echo, canonical mode, signals


def test_a_streaming_session_reaches_the_outer_terminal_as_the_session_has_it(
    tui: Start, server: IsolatedServer
) -> None:
    """A streaming view's frames are its changed lines, written by the view itself
    (TerminalView.paint); read through a reference emulator, the outer terminal shows what the
    session's screen holds, colours included."""
    term = started(tui)
    line = b"printf '\\033[3%dmline %d\\033[0m %*s|\\n' $((i%7+1)) $i $((i%40)) ''"
    term.write(b"for i in $(seq 1 300); do " + line + b"; done\r")
    term.write(b"echo done-$((6*7))\r")
    term.wait_for("done-42")

    def same(t: Terminal) -> bool:
        lines = server.run("capture", "-t", "0").stdout.split("\n")[: 30 - STATUS]
        shown = [line[SIDEBAR:].rstrip() for line in t.display[: 30 - STATUS]]
        return shown == [*lines, *[""] * (30 - STATUS - len(lines))]

    term.wait_for(same)
    row = next(y for y, line in enumerate(term.display) if "line 299 " in line)
    cell = term.screen.buffer[row][SIDEBAR]
    assert (cell.data, cell.fg) == ("l", "cyan")  # 299 % 7 + 1 = 6
