"""Where a keystroke's time goes, stage by stage: termux's trace stamps lined up with typed keys.

A process started with `TERMUX_TRACE=FILE` stamps each stage a keystroke passes (termux/trace.py).
A benchmark that typed keys knows, for each, when it wrote the key and when its echo was seen;
`stage_times` finds each stage's stamp inside that window, in the order of the keystroke's way,
and `stage_table` reports how long each stage took after the one before it (p50, p99), from the
write (`typed`) to the echo seen on the benchmark's terminal (`seen`).

    python -m e2e.test_latency --trace        # the latency benchmark, with the breakdown
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from pathlib import Path

from benchmarks.report import markdown_table, ms, percentile
from termux.trace import STAGES

TYPED, SEEN = "typed", "seen"


def read_stamps(path: Path) -> list[tuple[float, str]]:
    """(monotonic seconds, stage) for every stamp in a trace file, in time order."""
    stamps = []
    for line in path.read_text().splitlines():
        ns, _, stage = line.partition(" ")
        if stage in STAGES:
            stamps.append((int(ns) / 1e9, stage))
    return sorted(stamps)


def stage_times(
    window: tuple[float, float], stamps: Sequence[tuple[float, str]], until: float | None = None
) -> dict[str, float]:
    """The time of each stage of the key typed at `window[0]` and seen at `window[1]`: the first
    stamp of each stage, in the way's order, after the stage before it, up to `until` (the next
    key; the TUI may stamp its write after the benchmark saw it). Stages not stamped (the
    socket-only path has no TUI) are left out."""
    typed, seen = window
    end = max(seen, until if until is not None else seen)
    times = {TYPED: typed}
    inside = stamps[bisect.bisect_left(stamps, (typed, "")) : bisect.bisect_right(stamps, (end, "~"))]
    last = typed
    for stage in STAGES:
        for t, name in inside:
            if name == stage and t >= last:
                times[stage] = last = t
                break
    times[SEEN] = seen
    return times


def stage_table(phases: dict[str, list[tuple[float, float]]], stamps: Sequence[tuple[float, str]]) -> str:
    """One row per stage (the time from the stage before it), p50 and p99 per phase in columns."""
    order = [TYPED, *STAGES, SEEN]
    deltas: dict[str, dict[str, list[float]]] = {}
    for phase, windows in phases.items():
        per_stage = deltas.setdefault(phase, {})
        for n, window in enumerate(windows):
            until = windows[n + 1][0] if n + 1 < len(windows) else None
            times = stage_times(window, stamps, until)
            previous = None
            for stage in order:
                if stage not in times:
                    continue
                if previous is not None:  # the last write may be stamped just after it was seen
                    per_stage.setdefault(stage, []).append(max(0.0, times[stage] - times[previous]))
                previous = stage
    header = ["stage (time since the one before)"]
    for phase in phases:
        header += [f"{phase} p50", "p99"]
    rows = []
    for stage in order[1:]:
        if not any(stage in d for d in deltas.values()):
            continue
        row = [stage]
        for phase in phases:
            samples = deltas[phase].get(stage, [])
            row += [ms(percentile(samples, 50)), ms(percentile(samples, 99))] if samples else ["n/a", ""]
        rows.append(row)
    return markdown_table(header, rows)
