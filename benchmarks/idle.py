"""Idle cost: CPU time and wake-ups of the server and the TUI when nothing happens; tmux beside it.

    python -m benchmarks.idle                     # 50 sessions, 50 event streams, one TUI, 20 s
    python -m benchmarks.idle --seconds 5         # quicker
    python -m benchmarks.idle --profile           # profile the server over the measured window

Set-up: an isolated server with 50 sessions running `cat` (blocked on their terminals, printing
nothing), 50 connections each holding an `events.stream` subscription, and the TUI attached in a
real PTY (120x40). After everything has settled (start-up output drawn, activity timers expired),
the harness touches nothing for the window and reads, before and after, /proc/PID/stat (user +
system CPU time) and the voluntary context switches of every thread (/proc/PID/task/*/status): a
voluntary switch is a thread blocking again after it woke, so switches per second is wake-ups per
second. tmux: 50 windows of `cat` and one attached client, the same window.

Also shown: the loop gauge's count of loop iterations in the window (server.stats, read before
and after; what a reading costs is measured and subtracted, to within a couple of iterations).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.procstat import Usage, usage
from benchmarks.report import markdown_table, profile_server, server_profile_env
from e2e.isolated import IsolatedServer, TmuxServer, descendants
from e2e.terminal import Terminal, TerminalClosed

COLS, ROWS = 120, 40
SETTLE = 7.0  # past the 5 s activity -> quiet timer, so no timer is legitimately pending


def _row(name: str, delta: Usage, seconds: float, note: str = "") -> list[str]:
    return [
        name, f"{delta.cpu * 1000:.0f}", f"{delta.cpu / seconds * 100:.2f}",
        str(delta.voluntary), f"{delta.voluntary / seconds:.2f}", note,
    ]  # fmt: skip


def _loop_iterations(server: IsolatedServer) -> int | None:
    from termux.client import Client

    with Client.connect(server.socket_path, autostart=False) as client:
        loop = client.request("server.stats").get("loop")
    return None if not loop else int(loop["iterations_total"])


def measure_termux(args: argparse.Namespace, rows: list[list[str]]) -> None:
    from termux.client import Client

    server = IsolatedServer(extra_env=server_profile_env(args.profile)).start()
    streams: list[Client] = []
    try:
        for i in range(args.sessions):
            with Client.connect(server.socket_path, autostart=False) as client:
                client.request("session.new", name=f"idle{i}", command=["cat"], cwd="/")
        for _ in range(args.streams):
            client = Client.connect(server.socket_path, autostart=False)
            client.request("events.stream")
            streams.append(client)
        tui: Terminal | None = server.terminal(cols=COLS, rows=ROWS)
        tui_note = ""
        try:
            assert tui is not None
            tui.wait_for(lambda t: t.bytes_read > 0, timeout=60)
        except (TerminalClosed, TimeoutError) as exc:
            tui_note = "TUI did not start: " + (str(exc).strip().splitlines() or [""])[-1].strip("|").strip()
            tui = None
        time.sleep(SETTLE)
        if tui is not None and tui.exited:
            tui_note = "TUI exited: " + " ".join(tui.text.split())[:80]
            tui = None
        tui_pid = _tui_pid(tui)
        first = _loop_iterations(server)
        time.sleep(1.0)  # as before the window: the reading's EOF is handled on its own
        before = _loop_iterations(server)  # before - first: what one stats reading costs
        time.sleep(1.0)  # let the server finish with that connection (its EOF) before the window
        s0 = usage(server.pid)
        t0 = usage(tui_pid) if tui_pid else None
        with profile_server(args.profile, server.socket_path, "idle"):
            time.sleep(args.seconds)
        s1 = usage(server.pid)
        t1 = usage(tui_pid) if tui_pid else None
        after = _loop_iterations(server)
        note = ""
        if first is not None and before is not None and after is not None:
            note = f"{max(0, after - before - (before - first))} loop iterations (±2)"
        rows.append(_row("termux server", s1 - s0, args.seconds, note))
        if t0 is not None and t1 is not None:
            drawn = f"{tui.bytes_read if tui else 0} bytes drawn in all"
            rows.append(_row("termux TUI", t1 - t0, args.seconds, drawn))
        else:
            rows.append(["termux TUI", "n/a", "n/a", "n/a", "n/a", tui_note or "not measured"])
    finally:
        for client in streams:
            client.close()
        server.stop()


def _tui_pid(tui: Terminal | None) -> int | None:
    """The TUI process: the PTY's child itself (python -m termux)."""
    if tui is None or tui.exited:
        return None
    return tui.pid


def measure_tmux(args: argparse.Namespace, rows: list[list[str]]) -> None:
    tmux = TmuxServer()
    try:
        term = tmux.terminal(["cat"], cols=COLS, rows=ROWS)
        term.wait_for(lambda t: t.bytes_read > 0, timeout=30)
        for _ in range(args.sessions - 1):
            tmux.run("new-window", "-d", "cat")
        server_pid = tmux.pid()
        client_pid = next((p for p in [term.pid, *descendants(term.pid)] if p != server_pid), term.pid)
        time.sleep(SETTLE)
        s0, c0 = usage(server_pid), usage(client_pid)
        time.sleep(args.seconds)
        s1, c1 = usage(server_pid), usage(client_pid)
        rows.append(_row("tmux server", s1 - s0, args.seconds))
        rows.append(_row("tmux client", c1 - c0, args.seconds))
    finally:
        tmux.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="idle CPU and wake-ups, termux and tmux")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--skip-tmux", action="store_true")
    parser.add_argument("--profile", action="store_true", help="profile the server over the window")
    args = parser.parse_args(argv)

    rows: list[list[str]] = []
    measure_termux(args, rows)
    if not args.skip_tmux:
        measure_tmux(args, rows)
    print("## Idle\n")
    header = ["process", "CPU ms", "CPU %", "wake-ups", "wake-ups/s", "note"]
    print(markdown_table(header, rows))
    print(
        f"\n{args.seconds:g} s with nothing happening: {args.sessions} sessions running `cat`,"
        f" {args.streams} event streams (termux), one attached client ({COLS}x{ROWS});"
        " wake-ups = voluntary context switches of every thread."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
