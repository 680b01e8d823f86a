"""Shared pieces of the benchmark reports: percentiles, markdown tables, and profiling a window.

Every harness prints markdown so its output can be pasted into benchmarks/README.md as is.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of `samples` (need not be sorted)."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summary(samples: Sequence[float]) -> dict[str, float]:
    """p50, p95, p99 and max of `samples`."""
    return {
        "p50": percentile(samples, 50),
        "p95": percentile(samples, 95),
        "p99": percentile(samples, 99),
        "max": max(samples),
    }


def ms(seconds: float) -> str:
    """Seconds as milliseconds, with precision that suits the size."""
    value = seconds * 1000
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub markdown table; cells are str()-ed, numbers right-aligned."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in [list(header), *cells]) for i in range(len(header))]
    numeric = [_numeric_column([r[i] for r in cells]) for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        out = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(row, widths, numeric, strict=True)]
        return "| " + " | ".join(out) + " |"

    rule = [("-" * (w - 1) + ":") if num else "-" * w for w, num in zip(widths, numeric, strict=True)]
    sep = "| " + " | ".join(rule) + " |"
    return "\n".join([line(list(header)), sep, *(line(r) for r in cells)])


def _numeric_column(column: Sequence[str]) -> bool:
    # Placeholders ("", "n/a", SATURATED ...) do not decide; one number among them does.
    values = [c for c in column if c and c != "n/a" and not c.startswith("SATURATED")]
    return bool(values) and all(_numeric(c) for c in values)


def _numeric(cell: str) -> bool:
    try:
        float(cell.rstrip("×x%"))
    except ValueError:
        return False
    return True


@contextmanager
def profiled(enabled: bool, label: str, out_dir: Path | None = None) -> Iterator[None]:
    """Profile only the enclosed (measured) window with pyinstrument, when `enabled`.

    The text report goes to stderr and an HTML report to `out_dir/<label>.html` (when given), so
    start-up and tear-down never show up in the profile.
    """
    if not enabled:
        yield
        return
    from pyinstrument import Profiler

    profiler = Profiler(async_mode="disabled")
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()
        print(f"\n--- profile: {label} ---", file=sys.stderr)
        print(profiler.output_text(unicode=True, color=False), file=sys.stderr)
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / f"{label}.html").write_text(profiler.output_html())


@contextmanager
def baseline_checkout(rev: str | None) -> Iterator[Path | None]:
    """The repository at git revision `rev`, exported to a temporary directory for as long as the
    block runs (None without a revision): a harness's `--baseline REV` runs that termux beside
    this checkout's, so a change's before and after are measured in one run."""
    if not rev:
        yield None
        return
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="tx-baseline-") as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", rev], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        yield Path(tmp)


def server_profile_env(enabled: bool) -> dict[str, str]:
    """Environment for a server that may be profiled (`server.profile` refuses otherwise)."""
    return {"TERMUX_PROFILE": "1"} if enabled else {}


@contextmanager
def profile_server(enabled: bool, socket_path: Path, label: str, out_dir: Path | None = None) -> Iterator[None]:
    """Profile a termux server (started with `server_profile_env(True)`) over the enclosed window
    only, through `server.profile start/stop`; the report goes to stderr (and `out_dir`)."""
    if not enabled:
        yield
        return
    from termux.client import Client

    with Client.connect(socket_path, autostart=False) as client:
        client.request("server.profile", action="start")
    try:
        yield
    finally:
        with Client.connect(socket_path, autostart=False) as client:
            text = client.request("server.profile", action="stop")["text"]
        print(f"\n--- server profile: {label} ---\n{text}", file=sys.stderr)
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / f"{label}.txt").write_text(text)


def with_bytecode(env: dict[str, str]) -> dict[str, str]:
    """`env` with bytecode caching on, in a private cache directory: start-up as an installed
    termux has it (pip compiles at install; this environment may set PYTHONDONTWRITEBYTECODE, and
    then every start compiles termux's modules again)."""
    out = dict(env)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    out["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / f"termux-bench-pycache-{os.getuid()}")
    return out
