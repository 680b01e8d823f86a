"""Copy mode end to end: opening it on a long history, and searching back to a marker, in the real TUI.

    python -m benchmarks.copy_open                        # 10,000 lines, 5 runs, tmux beside
    python -m benchmarks.copy_open --lines 100000 --runs 3
    python -m benchmarks.copy_open --baseline /work/main  # also another checkout's termux

Set-up: a session (100x30 terminal) that printed `--lines` numbered lines with one `MARKER` line near
the top of history, then waits. Each run, in a real PTY:

- open: `prefix [` written, until the copy view's position indicator (`[0/N]`) is on the screen
  (the old read-only scrollback of an older checkout: its ` scrollback ` bar with the line count);
- search: `?MARKER` Enter written, until the marker's line is on the screen (termux and tmux);

then `q`. tmux beside it: the same program in `tmux -f /dev/null` with `history-limit` set to the
same length. Times are the wall clock from the write to the chunk that showed the result: they
include the TUI's and tmux's drawing, the server round trips and the terminal's reading.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from e2e.isolated import IsolatedServer, TmuxServer  # noqa: E402
from e2e.terminal import Terminal  # noqa: E402

COLS, ROWS = 100, 30


def program(lines: int) -> str:
    marker = lines // 50
    return f"seq 1 {marker}; echo 'the MARKER line'; seq {marker + 2} {lines}; echo rea''dy; exec cat"


def _time(term: Terminal, keys: bytes, shown: object, timeout: float = 120.0) -> float:
    expectation = term.expect(shown)  # type: ignore[arg-type]
    start = time.monotonic()
    term.write(keys)
    return expectation.wait(timeout) - start


def _runs(
    term: Terminal, opened: object, prompted: object, found: object, runs: int
) -> tuple[list[float], list[float]]:
    opens, searches = [], []
    for _ in range(runs):
        opens.append(_time(term, b"\x02[", opened))
        if found is not None:
            # The prompt first (tmux drops keys typed before its prompt is up), then the text.
            start = time.monotonic()
            _time(term, b"?", prompted)
            _time(term, b"MARKER\r", found)
            searches.append(time.monotonic() - start)
        term.write(b"q")
        time.sleep(0.3)  # let it leave (and the screen settle) before the next run
    return opens, searches


def termux(lines: int, runs: int, checkout: Path | None) -> tuple[list[float], list[float]]:
    server = IsolatedServer(checkout=checkout, extra_env={"SHELL": "/bin/sh"})
    server.start("--history", str(lines + 100))
    try:
        server.run("new", "-d", "-s", "log", "--", "sh", "-c", program(lines))
        term = server.terminal("attach", "-t", "log", cols=COLS, rows=ROWS)
        term.wait_for("ready", timeout=120)
        time.sleep(0.5)
        old = checkout is not None and not (checkout / "termux" / "tui" / "copyview.py").exists()
        if old:
            return _runs(term, lambda t: " scrollback " in t.display[-1], None, None, runs)
        opened = lambda t: "copy mode  [0/" in t.display[-1]  # noqa: E731
        prompted = lambda t: "copy mode  ?  [" in t.display[-1]  # noqa: E731
        found = lambda t: any("the MARKER line" in line for line in t.display) and "(1/1)" in t.display[-1]  # noqa: E731
        return _runs(term, opened, prompted, found, runs)
    finally:
        server.stop()


def tmux(lines: int, runs: int) -> tuple[list[float], list[float]]:
    server = TmuxServer("set", "-g", "history-limit", str(lines + 100), ";", "set", "-g", "mode-keys", "vi")
    try:
        term = server.terminal(["sh", "-c", program(lines)], cols=COLS, rows=ROWS)
        term.wait_for("ready", timeout=120)
        time.sleep(0.5)
        opened = lambda t: "[0/" in t.display[0]  # noqa: E731
        prompted = lambda t: t.display[-1].startswith("(search up)")  # noqa: E731
        found = lambda t: any("the MARKER line" in line for line in t.display)  # noqa: E731
        return _runs(term, opened, prompted, found, runs)
    finally:
        server.stop()


def _ms(values: list[float]) -> str:
    if not values:
        return "—"
    return f"{statistics.median(values) * 1000:.1f} ms (max {max(values) * 1000:.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another checkout's termux, measured the same way")
    args = parser.parse_args()
    rows = [("termux", *termux(args.lines, args.runs, None))]
    if args.baseline:
        rows.append((f"termux ({args.baseline})", *termux(args.lines, args.runs, args.baseline)))
    rows.append(("tmux", *tmux(args.lines, args.runs)))
    print(f"{args.lines:,} lines of history, {args.runs} runs, median (max)\n")
    print("| | open | search back to a marker |")
    print("| --- | --- | --- |")
    for name, opens, searches in rows:
        print(f"| {name} | {_ms(opens)} | {_ms(searches)} |")


if __name__ == "__main__":
    main()
