"""The live grid's cost: 50 sessions shown in the grid (prefix w) against the sidebar alone, idle and
with every session printing; tmux's prefix w (choose-tree with its preview) beside.

    python -m benchmarks.grid                     # 50 sessions, 5 s windows
    python -m benchmarks.grid --sessions 20 --seconds 3 --skip-tmux

Two set-ups, each an isolated server with N sessions and the TUI attached in a real 120x40 PTY:
`idle`, every session running `cat` (printing nothing); `printing`, every session printing a short
line every 0.2 s. In each, after a settle, the harness reads the CPU time (every thread,
/proc/PID/task/*/schedstat) and voluntary context switches (wake-ups) of the TUI and the server
over a window with the main screen (sidebar) shown, then opens the grid (prefix w: the time until
its bar is drawn, and the TUI's CPU time meanwhile) and reads them over a second window of the
same length; then it leaves the grid and opens it once more ("again"). Bytes drawn = what the TUI
wrote to its terminal in the window. tmux: N windows running the same programs, one client, the
window with the client's normal view, then the same after prefix w (choose-tree).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.procstat import cpu_ns, usage
from benchmarks.report import markdown_table
from e2e.isolated import IsolatedServer, TmuxServer, descendants
from e2e.terminal import Terminal

COLS, ROWS = 120, 40
SETTLE = 7.0  # past the server's 5 s quiet timer, so no timer is legitimately pending
PREFIX = b"\x02"
PRINTER = [
    sys.executable,
    "-c",
    "import itertools, time\nfor n in itertools.count():\n    print(f'line {n} of a steady log', flush=True)\n"
    "    time.sleep(0.2)",
]
SETUPS = {"idle": ["cat"], "printing": PRINTER}


class Window:
    """CPU (ms) and wake-ups of some processes, and bytes a terminal read, over one window."""

    def __init__(self, pids: dict[str, int], term: Terminal) -> None:
        self.pids, self.term = pids, term

    def measure(self, seconds: float) -> dict[str, tuple[float, int]]:
        cpu0 = {name: cpu_ns(pid) for name, pid in self.pids.items()}
        woke0 = {name: usage(pid).voluntary for name, pid in self.pids.items()}
        drawn0 = self.term.bytes_read
        time.sleep(seconds)
        result = {
            name: ((cpu_ns(pid) - cpu0[name]) / 1e6, usage(pid).voluntary - woke0[name])
            for name, pid in self.pids.items()
        }
        result["drawn"] = (float(self.term.bytes_read - drawn0), 0)
        return result


def rows_for(
    system: str, setup: str, view: str, measured: dict[str, tuple[float, int]], seconds: float, opened: str
) -> list[list[str]]:
    out = []
    for name, (cpu, woke) in measured.items():
        if name == "drawn":
            continue
        out.append([
            system, setup, view, name, f"{cpu:.0f}", f"{cpu / seconds / 10:.2f}", f"{woke / seconds:.1f}",
            f"{measured['drawn'][0] / seconds / 1024:.1f}", opened if name != "server" else "",
        ])  # fmt: skip
    return out


def measure_termux(args: argparse.Namespace, setup: str, table: list[list[str]]) -> None:
    from termux.client import Client

    server = IsolatedServer().start()
    try:
        with Client.connect(server.socket_path, autostart=False) as client:
            for n in range(args.sessions):
                client.request("session.new", name=f"s{n}", command=SETUPS[setup], cwd="/")
        term = server.terminal("attach", "-t", "s0", cols=COLS, rows=ROWS)
        term.wait_for("ctrl+b then", timeout=60)
        time.sleep(SETTLE)
        window = Window({"TUI": term.pid, "server": server.pid}, term)
        table += rows_for("termux", setup, "sidebar", window.measure(args.seconds), args.seconds, "")
        cpu, sent = cpu_ns(term.pid), time.monotonic()
        term.write(PREFIX + b"w")
        shown = term.wait_for("type to filter", timeout=30)
        opened = f"{(shown - sent) * 1000:.0f} ms ({(cpu_ns(term.pid) - cpu) / 1e6:.0f} ms CPU)"
        time.sleep(1.0)  # the first tiles drawn
        measured = window.measure(args.seconds)
        term.write(b"\x1b")  # leave, and open it again: the screen is kept, so this is the usual cost
        term.wait_for(lambda t: "type to filter" not in t.text, timeout=30)
        cpu, sent = cpu_ns(term.pid), time.monotonic()
        term.write(PREFIX + b"w")
        again = term.wait_for("type to filter", timeout=30)
        opened += f", again {(again - sent) * 1000:.0f} ms ({(cpu_ns(term.pid) - cpu) / 1e6:.0f} ms CPU)"
        table += rows_for("termux", setup, "grid", measured, args.seconds, opened)
    finally:
        server.stop()


def measure_tmux(args: argparse.Namespace, setup: str, table: list[list[str]]) -> None:
    tmux = TmuxServer()
    try:
        term = tmux.terminal(SETUPS[setup], cols=COLS, rows=ROWS)
        term.wait_for(lambda t: t.bytes_read > 0, timeout=30)
        for _ in range(args.sessions - 1):
            tmux.run("new-window", "-d", shlex.join(SETUPS[setup]))
        server_pid = tmux.pid()
        client_pid = next((p for p in [term.pid, *descendants(term.pid)] if p != server_pid), term.pid)
        time.sleep(SETTLE)
        window = Window({"client": client_pid, "server": server_pid}, term)
        table += rows_for("tmux", setup, "window", window.measure(args.seconds), args.seconds, "")
        sent = time.monotonic()
        term.write(PREFIX + b"w")
        tree: Callable[[Terminal], bool] = lambda t: "windows" in t.text and "(attached)" in t.text  # noqa: E731
        shown = term.wait_for(tree, timeout=30)
        opened = f"{(shown - sent) * 1000:.0f} ms"
        time.sleep(1.0)
        measured = window.measure(args.seconds)
        term.write(b"q")  # leave choose-tree, and open it again
        term.wait_for(lambda t: not tree(t), timeout=30)
        sent = time.monotonic()
        term.write(PREFIX + b"w")
        again = term.wait_for(tree, timeout=30)
        opened += f", again {(again - sent) * 1000:.0f} ms"
        table += rows_for("tmux", setup, "choose-tree", measured, args.seconds, opened)
    finally:
        tmux.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the live grid's cost against the sidebar, tmux beside")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--setups", default="idle,printing")
    parser.add_argument("--skip-tmux", action="store_true")
    args = parser.parse_args(argv)
    table: list[list[str]] = []
    for setup in args.setups.split(","):
        measure_termux(args, setup, table)
        if not args.skip_tmux:
            measure_tmux(args, setup, table)
    print(f"## The grid, {args.sessions} sessions\n")
    header = ["", "set-up", "view", "process", "CPU ms", "CPU %", "wake-ups/s", "drawn KiB/s", "opened in"]
    print(markdown_table(header, table))
    print(
        f"\n{args.seconds:g} s windows, {COLS}x{ROWS}; idle: every session runs `cat`; printing: a line"
        " every 0.2 s in every session. CPU from schedstat (every thread), wake-ups = voluntary context switches."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
