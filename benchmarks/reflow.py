"""Reflow cost: how long a resize holds the loop, for a session with a full scrollback.

A Screen of 120x40 with 10,000 lines of scrollback (each workload's lines) is resized to 80 columns,
then back to 120: the resize itself (the visible screen and the scrollback rows it needs) and each
bounded step that re-cuts the rest of the scrollback (`Screen.reflow_step(REFLOW_STEP)`, one per pass
of the server's loop) are timed apart, beside re-cutting the whole scrollback in one go (what a
reflow without steps would hold the loop for). CPU time (time.process_time), best of --runs.

tmux beside: the same lines `cat` into a detached 120x40 tmux session (history-limit as --lines),
then `resize-window -x 80` and `display -p` in one client command, timed from outside (wall clock,
best of --runs), minus the same command on a session with no history: what tmux's own reflow (in
C, in one go) holds its server for.

    python -m benchmarks.reflow
    python -m benchmarks.reflow --lines 100000
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import termux.emulator as temu  # noqa: E402
from termux.server.session import REFLOW_STEP  # noqa: E402

WORKLOADS: dict[str, Callable[[int], str]] = {
    # 150-column log lines: each wraps once at 120, twice at 80
    "wrapped logs": lambda i: f"2026-12-02 00:{i % 60:02d} INFO worker.{i % 7} " + "payload=" + "x" * 110,
    # 70-column lines: no wrap at either width (the common case: kept as they are)
    "short lines": lambda i: f"{i:06d} " + "word " * 12 + "end",
    # SGR-coloured 100-column lines: one row at 120, two at 80
    "coloured": lambda i: "".join(f"\x1b[3{k % 8}m{'col':<9}\x1b[0m " for k in range(10)),
}


def filled(lines: int, make: Callable[[int], str]) -> temu.Screen:
    screen = temu.Screen(120, 40, history=lines)
    stream = temu.ByteStream(screen)
    stream.feed("".join(make(i) + "\r\n" for i in range(lines + 40)).encode())
    return screen


def measure(lines: int, make: Callable[[int], str]) -> dict[str, float]:
    screen = filled(lines, make)
    t = time.process_time()
    screen.resize(40, 80)
    resize = time.process_time() - t
    steps = []
    while True:
        t = time.process_time()
        more = screen.reflow_step(REFLOW_STEP)
        steps.append(time.process_time() - t)
        if not more:
            break
    t = time.process_time()
    screen.resize(40, 120)
    back = time.process_time() - t
    while screen.reflow_step(REFLOW_STEP):
        pass
    whole = filled(lines, make)
    t = time.process_time()
    whole.resize(40, 80)
    whole.reflow_step(10**9)
    at_once = time.process_time() - t
    return {
        "resize": resize * 1000,
        "back": back * 1000,
        "steps": len(steps),
        "max_step": max(steps) * 1000,
        "all_steps": sum(steps) * 1000,
        "at_once": at_once * 1000,
    }


def tmux_reflow(lines: int, make: Callable[[int], str], runs: int) -> float | None:
    """Milliseconds tmux's server spends reflowing 120 -> 80 columns with `lines` of history
    (the difference to a session without history); None without tmux."""
    if shutil.which("tmux") is None:
        return None
    where = Path(tempfile.mkdtemp(prefix="tx-reflow-"))
    text = where / "lines.txt"
    text.write_text("".join(make(i) + "\n" for i in range(lines + 40)))
    config = where / "tmux.conf"
    config.write_text(f"set -g history-limit {lines}\n")
    tmux = ["tmux", "-L", f"txreflow{os.getpid()}", "-f", str(config)]
    try:
        # A session that stays, so that the server does not exit between the measured ones.
        subprocess.run([*tmux, "new", "-d", "-s", "keep", "sleep 600"], check=True)
        best: dict[bool, float] = {}
        for with_history in (True, False):
            for run in range(runs):
                name = f"s{int(with_history)}{run}"
                program = f"cat {text}; echo END-OF-LINES; sleep 600" if with_history else "sleep 600"
                subprocess.run([*tmux, "new", "-d", "-s", name, "-x", "120", "-y", "40", program], check=True)
                while with_history:  # until every line is in
                    screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", name],
                                            capture_output=True, text=True, check=True).stdout
                    if "END-OF-LINES" in screen:
                        break
                    time.sleep(0.05)
                t = time.perf_counter()
                subprocess.run([*tmux, "resize-window", "-t", name, "-x", "80", "-y", "40", ";",
                                "display", "-p", "-t", name, "x"], capture_output=True, check=True)
                elapsed = time.perf_counter() - t
                best[with_history] = min(best.get(with_history, elapsed), elapsed)
                subprocess.run([*tmux, "kill-session", "-t", name], check=True)
        return max(0.0, best[True] - best[False]) * 1000
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
        shutil.rmtree(where, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000, help="scrollback lines (default 10000)")
    parser.add_argument("--runs", type=int, default=3, help="best of N (default 3)")
    args = parser.parse_args()
    print(f"Reflow of a 120x40 screen with {args.lines:,} lines of scrollback, 120 -> 80 -> 120 columns")
    print(f"(ms of CPU, best of {args.runs}; steps of {REFLOW_STEP} rows, one per pass of the loop)\n")
    print("| workload | resize 120->80 | steps | longest step | all steps | in one go | resize 80->120 | tmux |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, make in WORKLOADS.items():
        runs = [measure(args.lines, make) for _ in range(args.runs)]
        best = {key: min(run[key] for run in runs) for key in runs[0]}
        tmux = tmux_reflow(args.lines, make, args.runs)
        print(
            f"| {name} | {best['resize']:.1f} | {best['steps']:.0f} | {best['max_step']:.1f} | "
            f"{best['all_steps']:.1f} | {best['at_once']:.1f} | {best['back']:.1f} | "
            f"{'-' if tmux is None else f'{tmux:.1f}'} |"
        )


if __name__ == "__main__":
    main()
