"""Copy mode's model: opening on a long history, and searching it in bounded steps.

Prints a markdown table: for each history length, the lines read and the CPU time to open copy mode
and draw its first view, and for a search that has to count every match (a marker near the top, a
common word everywhere), the steps taken, the longest step and the scan's speed. The lines are
90-character log lines held in memory (`ListSource`), so this is the model's own cost, without the
server round trips a view adds. No tmux column: tmux's copy mode is not driven here.

The test lines are frozen out of the cycle collector once made (gc.freeze, as termux's processes
freeze their start-up objects): a million tracked lines would otherwise make each full collection
a pause of its own, counted against whichever step it fell in.

    python -m benchmarks.copymode                 # 10,000 / 100,000 / 1,000,000 lines
    python -m benchmarks.copymode --lines 100000
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termux.copymode import CopyMode, ListSource  # noqa: E402
from termux.copymode.scan import STEP_LINES  # noqa: E402

WORDS = "request handled upstream cache miss retry scheduled connection pool exhausted worker started".split()


def log_lines(count: int) -> list[str]:
    rng = random.Random(7)
    lines = []
    for i in range(count):
        words = " ".join(rng.choice(WORDS) for _ in range(12))
        lines.append(f"{i:08d} INFO  {words}"[:90])
    lines[count // 50] = lines[count // 50][:60] + " MARKER"
    return lines


def measure(count: int) -> list[str]:
    history = log_lines(count)
    source = ListSource(history, history[-24:], width=120)
    gc.freeze()
    start = time.process_time()
    mode = CopyMode(source, 24, cursor=(23, 0))
    mode.view()
    opened = time.process_time() - start
    rows = [f"| {count:,} | open + first view | {source.reads} lines read | {opened * 1000:.2f} ms |"]
    for pattern in ("MARKER", "cache"):
        mode = CopyMode(source, 24, cursor=(23, 0))
        for key in ("?", *pattern, "Enter"):
            mode.feed(key)
        steps: list[float] = []
        first_jump = None
        begin = time.process_time()
        while mode.busy:
            t0 = time.process_time()
            mode.work()
            steps.append(time.process_time() - t0)
            if first_jump is None and mode.state.search and mode.state.search.current is not None:
                first_jump = time.process_time() - begin
        total = time.process_time() - begin
        status = mode.view().search
        assert status is not None
        megabytes = sum(len(line) + 1 for line in history) / 1e6
        rows.append(
            f"| {count:,} | search {pattern!r}: {status.total:,} matches | {len(steps)} steps of {STEP_LINES} lines, "
            f"longest {max(steps) * 1000:.1f} ms, median {statistics.median(steps) * 1000:.1f} ms | "
            f"{total * 1000:.0f} ms in all ({megabytes / total:.0f} MB/s); jumped after "
            f"{(first_jump or 0) * 1000:.1f} ms |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, action="append", help="history lengths (repeatable)")
    args = parser.parse_args()
    print("| history | what | work | CPU time |")
    print("| --- | --- | --- | --- |")
    for count in args.lines or [10_000, 100_000, 1_000_000]:
        for row in measure(count):
            print(row)


if __name__ == "__main__":
    main()
