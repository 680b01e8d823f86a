"""Reflow cost: how long a resize holds the loop, for a session with a full scrollback.

A Screen of 120x40 with 10,000 lines of scrollback (each workload's lines) is resized to 80 columns,
then back to 120: the resize itself (the visible screen and the scrollback rows it needs) and each
bounded step that re-cuts the rest of the scrollback (`Screen.reflow_step(REFLOW_STEP)`, one per pass
of the server's loop) are timed apart, beside re-cutting the whole scrollback in one go (what a
reflow without steps would hold the loop for). CPU time (time.process_time), best of --runs.

    python -m benchmarks.reflow
    python -m benchmarks.reflow --lines 100000
"""

from __future__ import annotations

import argparse
import sys
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000, help="scrollback lines (default 10000)")
    parser.add_argument("--runs", type=int, default=3, help="best of N (default 3)")
    args = parser.parse_args()
    print(f"Reflow of a 120x40 screen with {args.lines:,} lines of scrollback, 120 -> 80 -> 120 columns")
    print(f"(ms of CPU, best of {args.runs}; steps of {REFLOW_STEP} rows, one per pass of the loop)\n")
    print("| workload | resize 120->80 | steps | longest step | all steps | in one go | resize 80->120 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, make in WORKLOADS.items():
        runs = [measure(args.lines, make) for _ in range(args.runs)]
        best = {key: min(run[key] for run in runs) for key in runs[0]}
        print(
            f"| {name} | {best['resize']:.1f} | {best['steps']:.0f} | {best['max_step']:.1f} | "
            f"{best['all_steps']:.1f} | {best['at_once']:.1f} | {best['back']:.1f} |"
        )


if __name__ == "__main__":
    main()
