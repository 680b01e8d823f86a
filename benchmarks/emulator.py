"""Emulator throughput: stock pyte 0.8.2 against termux.emulator, side by side in one run.

Prints a markdown table of MB/s per workload (best of N runs) and the ratio termux / stock. Time is the
process's CPU time over the feeding loop only (time.process_time), so that other processes on a shared
machine do not count against whichever side happened to run while they were busy.
Workloads are generated deterministically in-process and fed through each emulator's
ByteStream in fixed-size chunks (default 4096 bytes, about what one PTY read returns).

    python benchmarks/emulator.py                  # full run (1 MB per workload, a few minutes)
    python benchmarks/emulator.py --size 0.25      # quicker: 0.25 MB per workload
    python benchmarks/emulator.py --only yes --profile   # profile termux's measured window only
    python benchmarks/emulator.py --baseline main --no-stock   # before/after: main's emulator beside this one
    python benchmarks/emulator.py --snapshot --baseline main    # snapshot ms per screen size, before/after

"With scrollback" means `pyte.HistoryScreen(history=10000)` for stock pyte and
`termux.emulator.Screen(history=10000)` for termux; "without" is `pyte.Screen` and
`termux.emulator.Screen(history=0)`.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import itertools
import random
import shutil
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyte

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import termux.emulator as temu  # noqa: E402

HISTORY = 10000
MB = 1_000_000

# --- workloads ---------------------------------------------------------------------------------


def gen_yes(size: int) -> bytes:
    """`yes` through a PTY: "y" lines with the tty's CR LF."""
    return b"y\r\n" * (size // 3)


_LEVELS = ["INFO ", "DEBUG", "WARN ", "ERROR", "INFO ", "INFO ", "TRACE"]
_WORDS = (
    "request handled upstream cache miss retry scheduled connection pool exhausted worker started "
    "shard rebalanced token refreshed payload validated checksum mismatch queue drained"
).split()


def _until(size: int, chunks: Iterator[str]) -> bytes:
    """The first of `chunks` (lines with their CR LF, or frames) that make at least `size` characters."""
    out: list[str] = []
    total = 0
    while total < size:
        chunk = next(chunks)
        out.append(chunk)
        total += len(chunk)
    return "".join(out).encode()


def gen_logs(size: int, length: int | None = None) -> bytes:
    """Long log lines (150-220 chars): timestamp, level, logger, message, key=value pairs; with
    `length`, every line is cut or padded to exactly that many characters."""
    return _until(size, _log_lines(length))


def _log_lines(length: int | None) -> Iterator[str]:
    rnd = random.Random(1)
    for n in itertools.count(1):
        ms = n * 37
        ts = f"2026-11-30T{(ms // 3_600_000) % 24:02d}:{(ms // 60_000) % 60:02d}:{(ms // 1000) % 60:02d}"
        ts += f".{ms % 1000:03d}Z"
        msg = " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(4, 9)))
        kv = " ".join(f"{k}={rnd.randint(0, 99999)}" for k in ("req_id", "user", "bytes", "elapsed_us", "shard"))
        line = f"{ts} {rnd.choice(_LEVELS)} [svc.worker-{rnd.randint(0, 15)}] {msg} path=/api/v1/items/"
        line += f"{rnd.randint(0, 10**6)} {kv} status={rnd.choice((200, 200, 201, 404, 500))}"
        while len(line) < (length or 150):
            line += " trace=" + format(rnd.getrandbits(64), "016x")
        if length is not None:
            line = line[:length]
        yield line + "\r\n"


_LS_COLORS = ["01;34", "01;32", "01;36", "00", "01;31", "01;35", "40;33;01", "34;42", "00"]


def gen_sgr(size: int) -> bytes:
    """`ls --color` style: colour-switching names in columns, and `ls -l` long lines."""
    return _until(size, _listing_lines())


def _listing_lines() -> Iterator[str]:
    rnd = random.Random(2)
    while True:
        if rnd.random() < 0.5:
            names = []
            for _ in range(4):
                name = "".join(rnd.choice("abcdefghijklmnop_") for _ in range(rnd.randint(4, 14)))
                names.append(f"\x1b[0m\x1b[{rnd.choice(_LS_COLORS)}m{name}\x1b[0m" + " " * (18 - len(name)))
            line = "".join(names)
        else:
            name = "".join(rnd.choice("abcdefghijklmnop_.") for _ in range(rnd.randint(6, 24)))
            line = (
                f"-rw-r--r-- 1 user group {rnd.randint(0, 10**7):>9} Nov 30 12:{rnd.randint(0, 59):02d} "
                f"\x1b[{rnd.choice(_LS_COLORS)}m{name}\x1b[0m"
            )
        yield line + "\r\n"


def gen_top(size: int, columns: int = 80, lines: int = 24) -> bytes:
    """`top`-like full-screen redraws: per row CUP, text (some SGR) and EL, then a cursor park."""
    return _until(size, _top_frames(columns, lines))


def _top_frames(columns: int, lines: int) -> Iterator[str]:
    rnd = random.Random(3)
    for frame in itertools.count(1):
        parts = [f"\x1b[H\x1b[1mtop - 12:{frame % 60:02d}:00 up 3 days, load average: 0.{frame % 100:02d}\x1b[m\x1b[K"]
        parts.append(f"\x1b[2;1HTasks: {200 + frame % 7} total,   1 running\x1b[K")
        parts.append(
            "\x1b[4;1H\x1b[7m    PID USER      PR  NI    VIRT    RES  %CPU  %MEM     TIME+ COMMAND"
            + " " * (columns - 71)
            + "\x1b[m\x1b[K"
        )
        for row in range(5, lines + 1):
            pid = 1000 + (row * 7919 + frame * 13) % 50000
            cpu = rnd.random() * 100
            bold = "\x1b[1m" if cpu > 80 else ""
            text = (
                f"{pid:>7} user      20   0 {rnd.randint(10**4, 10**7):>7} {rnd.randint(10**3, 10**6):>6} "
                f"{cpu:5.1f} {rnd.random() * 10:5.1f} {rnd.randint(0, 99):>3}:{rnd.randint(0, 59):02d}.00 "
                f"proc-{rnd.randint(0, 999)}"
            )[: columns - 1]
            parts.append(f"\x1b[{row};1H{bold}{text}\x1b[m\x1b[K")
        parts.append(f"\x1b[{lines};{columns}H")
        yield "".join(parts)


def gen_checks(size: int) -> bytes:
    """A test runner's report as modern runners print it: a coloured ✓ or ✗, the test's name, a
    bullet and its time (one-cell characters beyond ASCII, and SGR)."""
    return _until(size, _check_lines())


def _check_lines() -> Iterator[str]:
    rnd = random.Random(4)
    while True:
        mark = "\x1b[32m✓\x1b[0m" if rnd.random() < 0.95 else "\x1b[31m✗\x1b[0m"
        name = "_".join(rnd.choice(_WORDS) for _ in range(rnd.randint(2, 6)))
        yield f"  {mark} test_{name} \x1b[2m• {rnd.randint(1, 999)} ms\x1b[0m\r\n"


def gen_agent(size: int, unicode: bool = False) -> bytes:
    """An agent's TUI redrawing itself (e2e/programs/agent.py's frames, 120 columns): per row a
    CUP, several SGR runs and an EL, the rows already drawn by the frame before; with `unicode`,
    a box corner, bars, dotted rules and a prompt arrow beyond ASCII, as most agents draw."""
    programs = str(Path(__file__).resolve().parent.parent / "e2e" / "programs")
    if programs not in sys.path:
        sys.path.insert(0, programs)
    from agent import ASCII, UNICODE, frame  # (its own directory: it imports its neighbour `tally`)

    glyphs = UNICODE if unicode else ASCII
    return _until(size, (frame(n, glyphs=glyphs).decode() for n in itertools.count()))


def gen_agent_unicode(size: int) -> bytes:
    return gen_agent(size, unicode=True)


def gen_truecolour(size: int) -> bytes:
    """Lines of 150 cells, each in its own 24-bit colour (as tests/server/test_limits.py prints):
    a program that never repeats an SGR string."""
    return _until(size, _truecolour_lines())


def _truecolour_lines() -> Iterator[str]:
    for n in itertools.count():
        yield "".join(f"\x1b[38;2;{n % 256};{c};99m#" for c in range(150)) + "\x1b[0m\r\n"


WORKLOADS: dict[str, Callable[[int], bytes]] = {
    "yes": gen_yes,
    "logs": gen_logs,
    "sgr": gen_sgr,
    "top": gen_top,
    "agent": gen_agent,
    "agent-unicode": gen_agent_unicode,
    "checks": gen_checks,
    "truecolour": gen_truecolour,
}
DESCRIPTIONS = {
    "yes": "short lines (`yes`)",
    "logs": "long log lines (150+ chars)",
    "sgr": "SGR-heavy listing (`ls --color`)",
    "top": "full-screen redraws (`top`)",
    "agent": "an agent's redraws (several SGR runs a row)",
    "agent-unicode": "an agent's redraws, box drawing and bullets beyond ASCII",
    "checks": "a test runner's ✓ and • lines (SGR, beyond ASCII)",
    "truecolour": "a 24-bit colour per cell",
}

# --- emulators ---------------------------------------------------------------------------------


def stock(columns: int, lines: int, history: bool) -> tuple[object, Callable[[bytes], None]]:
    screen = pyte.HistoryScreen(columns, lines, history=HISTORY) if history else pyte.Screen(columns, lines)
    return screen, pyte.ByteStream(screen).feed


def termux(columns: int, lines: int, history: bool) -> tuple[object, Callable[[bytes], None]]:
    screen = temu.Screen(columns, lines, history=HISTORY if history else 0)
    return screen, temu.ByteStream(screen).feed


def reference(columns: int, lines: int, history: bool) -> tuple[object, Callable[[bytes], None]]:
    from termux.emulator import screen as ref_screen
    from termux.emulator import stream as ref_stream

    screen = ref_screen.Screen(columns, lines, history=HISTORY if history else 0)
    return screen, ref_stream.ByteStream(screen).feed


_baselines: dict[str, object] = {}


def load_baseline(ref: str) -> object:
    """termux.emulator as it is at git `ref`, imported beside this one (it only needs pyte and msgspec)."""
    import importlib.util
    import subprocess
    import tempfile

    if ref in _baselines:
        return _baselines[ref]
    root = Path(__file__).resolve().parent.parent
    where = Path(tempfile.mkdtemp(prefix="tx-emu-baseline-"))
    atexit.register(shutil.rmtree, where, ignore_errors=True)
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", ref, "termux/emulator"], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive.stdout, check=True)
    package = where / "termux" / "emulator"
    name = f"termux_baseline_{len(_baselines)}"
    spec = importlib.util.spec_from_file_location(
        name, package / "__init__.py", submodule_search_locations=[str(package)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _baselines[ref] = module
    return module


def baseline(ref: str) -> Callable[[int, int, bool], tuple[object, Callable[[bytes], None]]]:
    module: Any = load_baseline(ref)

    def make(columns: int, lines: int, history: bool) -> tuple[object, Callable[[bytes], None]]:
        screen = module.Screen(columns, lines, history=HISTORY if history else 0)
        return screen, module.ByteStream(screen).feed

    return make


def _secs(result: Result) -> float:
    return result.seconds


@dataclass
class Result:
    seconds: float
    mb_s: float


def chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def measure(
    make: Callable[[int, int, bool], tuple[object, Callable[[bytes], None]]],
    parts: Iterable[bytes],
    nbytes: int,
    args: argparse.Namespace,
    repeat: int,
    history: bool,
    profiler: object | None = None,
) -> Result:
    best = float("inf")
    parts = list(parts)
    for _ in range(repeat):
        _screen, feed = make(args.columns, args.lines, history)
        gc.collect()
        if profiler is not None:
            profiler.start()  # type: ignore[attr-defined]
        t0 = time.process_time()
        for part in parts:
            feed(part)
        dt = time.process_time() - t0
        if profiler is not None:
            profiler.stop()  # type: ignore[attr-defined]
            profiler = None  # profile one run only
        best = min(best, dt)
    return Result(best, nbytes / best / MB)


def make_profiler(kind: str) -> object:
    if kind == "pyinstrument":
        from pyinstrument import Profiler

        return Profiler(interval=0.0005)
    import cProfile

    prof = cProfile.Profile()
    prof.start = prof.enable  # type: ignore[method-assign]
    prof.stop = prof.disable  # type: ignore[method-assign]
    return prof


def report_profile(prof: object, kind: str) -> None:
    if kind == "pyinstrument":
        print(prof.output_text(unicode=False, color=False, show_all=False), file=sys.stderr)  # type: ignore[attr-defined]
    else:
        import pstats

        pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(25)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=float, default=1.0, help="MB of input per workload (default 1)")
    ap.add_argument("--repeat", type=int, default=3, help="termux: best of N runs (default 3)")
    # stock pyte runs take seconds each (HistoryScreen: ~1 min per MB), so one run already averages
    # out scheduler noise; raise this on a quiet machine.
    ap.add_argument("--stock-repeat", type=int, default=1, help="stock pyte: best of N runs (default 1)")
    ap.add_argument("--chunk", type=int, default=4096, help="bytes per feed() call (default 4096)")
    ap.add_argument("--columns", type=int, default=80)
    ap.add_argument("--lines", type=int, default=24)
    ap.add_argument("--only", action="append", choices=sorted(WORKLOADS), help="run only these workloads")
    ap.add_argument("--no-stock", action="store_true", help="skip stock pyte (no ratio column)")
    ap.add_argument("--scrollback", choices=("both", "on", "off"), default="both")
    ap.add_argument(
        "--reference",
        action="store_true",
        help="also measure termux's reference classes (termux.emulator.screen/.stream: no fast paths)",
    )
    ap.add_argument(
        "--baseline",
        metavar="GITREF",
        help="also measure termux.emulator as it is at GITREF (before/after in one run, runs interleaved)",
    )
    ap.add_argument(
        "--snapshot",
        action="store_true",
        help="only measure snapshot() of full SGR-heavy screens (80x24, 120x40, 300x100, 1000x1000) and its replay",
    )
    ap.add_argument("--per-feed", action="store_true", help="also report the cost of one small feed() call")
    ap.add_argument("--memory", action="store_true", help="also report scrollback bytes per line")
    ap.add_argument("--memory-lines", type=int, default=2000, help="lines kept for --memory (default 2000)")
    ap.add_argument("--profile", action="store_true", help="profile termux's measured window (stderr)")
    ap.add_argument("--profile-stock", action="store_true", help="profile stock pyte's measured window")
    ap.add_argument("--profiler", choices=("pyinstrument", "cprofile"), default="pyinstrument")
    args = ap.parse_args(argv)
    if args.snapshot:
        return report_snapshot(args)

    size = int(args.size * MB)
    names = args.only or list(WORKLOADS)
    modes = {"both": (False, True), "on": (True,), "off": (False,)}[args.scrollback]

    print(
        f"emulator throughput, {args.columns}x{args.lines}, {args.size:g} MB per workload, "
        f"{args.chunk}-byte feeds, best of {args.repeat} (stock: {args.stock_repeat}); "
        f"Python {sys.version.split()[0]}, pyte {pyte_version()}"
    )
    print()
    before = baseline(args.baseline) if args.baseline else None
    header = ["workload", "scrollback", "stock pyte MB/s"]
    if args.reference:
        header.append("termux, no fast paths MB/s")
    if before is not None:
        header.append(f"termux @{args.baseline} MB/s")
    header += ["termux MB/s", "ratio to stock"]
    if before is not None:
        header.append(f"ratio to @{args.baseline}")
    print("| " + " | ".join(header) + " |")
    print("| --- | --- | " + " | ".join(["---:"] * (len(header) - 2)) + " |")
    for name in names:
        data = WORKLOADS[name](size)
        parts = chunks(data, args.chunk)
        for history in modes:
            # termux's runs bracket the others in time (half before, half after), so that a change in
            # machine load during the run hits every side.
            prof = make_profiler(args.profiler) if args.profile else None
            first = (args.repeat + 1) // 2
            t_res = measure(termux, parts, len(data), args, first, history, prof)
            if prof is not None:
                report_profile(prof, args.profiler)
            b_res: Result | None = None
            if before is not None:
                b_res = measure(before, parts, len(data), args, first, history)
            s_res: Result | None = None
            if not args.no_stock:
                prof = make_profiler(args.profiler) if args.profile_stock else None
                s_res = measure(stock, parts, len(data), args, args.stock_repeat, history, prof)
                if prof is not None:
                    report_profile(prof, args.profiler)
            if args.repeat > 1:
                t_res = min(t_res, measure(termux, parts, len(data), args, args.repeat // 2, history), key=_secs)
                if before is not None and b_res is not None:
                    again = measure(before, parts, len(data), args, args.repeat // 2, history)
                    b_res = min(b_res, again, key=_secs)
            r_res: Result | None = None
            if args.reference:
                r_res = measure(reference, parts, len(data), args, args.stock_repeat, history)
            row = [DESCRIPTIONS[name], "on" if history else "off", f"{s_res.mb_s:.2f}" if s_res else "-"]
            if args.reference:
                row.append(f"{r_res.mb_s:.2f}" if r_res else "-")
            if b_res is not None:
                row.append(f"{b_res.mb_s:.2f}")
            row += [f"{t_res.mb_s:.2f}", f"{t_res.mb_s / s_res.mb_s:.1f}x" if s_res else "-"]
            if b_res is not None:
                row.append(f"{t_res.mb_s / b_res.mb_s:.2f}x")
            print("| " + " | ".join(row) + " |", flush=True)
    if args.per_feed:
        report_per_feed(args, before)
    if args.memory:
        print()
        print(f"scrollback memory, bytes per line ({args.memory_lines} lines kept, shared objects counted once)")
        print()
        print("| workload | pyte.HistoryScreen | termux Scrollback | ratio |")
        print("| --- | ---: | ---: | ---: |")
        for name in names:
            sizes = scrollback_bytes_per_line(name, args.memory_lines, args)
            if sizes is None:
                print(f"| {DESCRIPTIONS[name]} | - | - | (does not scroll) |", flush=True)
                continue
            stock_b, ours_b = sizes
            print(f"| {DESCRIPTIONS[name]} | {stock_b:.0f} | {ours_b:.0f} | {stock_b / ours_b:.1f}x |", flush=True)
    return 0


# --- the cost of one snapshot ------------------------------------------------------------------

SNAPSHOT_SIZES = ((80, 24), (120, 40), (300, 100), (1000, 1000))
RAINBOW_MAX_CELLS = 100_000  # a colour per cell on a larger screen takes minutes just to feed


def gen_rainbow(columns: int, lines: int) -> bytes:
    """A screen where every character has its own colours (256-colour fg and bg, some bold): the
    most runs a screen can hold, one per cell."""
    out = ["\x1b[H"]
    for y in range(lines):
        out.append(f"\x1b[{y + 1};1H")
        for x in range(columns):
            bold = "1;" if (x + y) % 5 == 0 else ""
            out.append(f"\x1b[{bold}38;5;{(x * 7 + y) % 256};48;5;{(x + y * 3) % 256}m{chr(33 + (x + y) % 94)}")
    return "".join(out).encode()


def snapshot_screens(module: Any, columns: int, lines: int) -> dict[str, object]:
    """The screens a snapshot is measured on, fed through `module`'s emulator."""
    listing = module.Screen(columns, lines, history=0)
    module.ByteStream(listing).feed(gen_sgr(columns * lines * 3))  # scrolled until full
    screens: dict[str, object] = {"`ls --color` listing": listing}
    if (columns, lines) == (120, 40):  # (the agent draws 120x40 frames)
        agent = screens["an agent's screen"] = module.Screen(columns, lines, history=0)
        module.ByteStream(agent).feed(gen_agent(256 << 10))
    if columns * lines <= RAINBOW_MAX_CELLS:
        rainbow = screens["a colour per cell"] = module.Screen(columns, lines, history=0)
        module.ByteStream(rainbow).feed(gen_rainbow(columns, lines))
    return screens


def snapshot_ms(module: Any, screen: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        module.snapshot(screen)
        best = min(best, time.process_time() - t0)
    return best * 1000


def replay_ms(module: Any, data: bytes, columns: int, lines: int, repeat: int, renewed: bool = False) -> float:
    """CPU ms to replay a snapshot (a view's resync): fed to a Screen just made at its size, or
    (`renewed`) to one made new in place, whose stream has replayed it before (the TUI's shadows)."""
    screen = module.Screen(columns, lines, history=0)
    stream = module.ByteStream(screen)
    stream.feed(data)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        if renewed:
            screen.renew()
            stream.restart()
            stream.feed(data)
        else:
            module.ByteStream(module.Screen(columns, lines, history=0)).feed(data)
        best = min(best, time.process_time() - t0)
    return best * 1000


def report_snapshot(args: argparse.Namespace) -> int:
    before: Any = load_baseline(args.baseline) if args.baseline else None
    print(f"snapshot() CPU ms, best of {args.repeat}; Python {sys.version.split()[0]}")
    print()
    header = ["screen", "content"] + ([f"@{args.baseline} ms"] if before is not None else []) + ["termux ms"]
    if before is not None:
        header.append("speed-up")
    # Replaying it, as a view resyncing does: on a new screen, and on one made new in place.
    header += ([f"replay @{args.baseline} ms"] if before is not None else []) + ["replay ms", "renewed ms"]
    print("| " + " | ".join(header) + " |")
    print("| --- | --- | " + " | ".join(["---:"] * (len(header) - 2)) + " |")
    for columns, lines in SNAPSHOT_SIZES:
        ours = snapshot_screens(temu, columns, lines)
        theirs = snapshot_screens(before, columns, lines) if before is not None else {}
        for content, screen in ours.items():
            repeat = args.repeat if columns * lines < 100_000 else 1
            # before/after interleaved, so that a change in machine load hits both sides
            now = snapshot_ms(temu, screen, (repeat + 1) // 2)
            old = snapshot_ms(before, theirs[content], repeat) if before is not None else None
            now = min(now, snapshot_ms(temu, screen, repeat // 2)) if repeat > 1 else now
            row = [f"{columns}x{lines}", content] + ([f"{old:.2f}"] if old is not None else []) + [f"{now:.2f}"]
            if old is not None:
                row.append(f"{old / now:.1f}x")
                row.append(f"{replay_ms(before, before.snapshot(theirs[content]), columns, lines, repeat):.2f}")
            data = temu.snapshot(screen)
            row.append(f"{replay_ms(temu, data, columns, lines, repeat):.2f}")
            row.append(f"{replay_ms(temu, data, columns, lines, repeat, renewed=True):.2f}")
            print("| " + " | ".join(row) + " |", flush=True)
    return 0


# --- the cost of one small feed ----------------------------------------------------------------

PER_FEED = {
    "one log line": b"2026-11-30T12:00:00.000Z INFO  [svc.worker-3] request handled upstream path=/api/v1/items/42\r\n",
    "one SGR line": b"\x1b[32mINFO \x1b[0m worker-03 handled \x1b[1;31mrequest\x1b[0m id=12345 path=/api/items/7\r\n",
    "a keystroke echo": b"a",
}


def per_feed_us(
    make: Callable[..., tuple[object, Callable[[bytes], None]]],
    data: bytes,
    args: argparse.Namespace,
    history: bool,
    calls: int = 20_000,
) -> float:
    """CPU microseconds per feed() of `data`, best of --repeat runs of `calls` calls."""
    best = float("inf")
    for _ in range(max(1, args.repeat)):
        _screen, feed = make(args.columns, args.lines, history)
        gc.collect()
        t0 = time.process_time()
        for _ in range(calls):
            feed(data)
        best = min(best, time.process_time() - t0)
    return best / calls * 1e6


def report_per_feed(
    args: argparse.Namespace, before: Callable[..., tuple[object, Callable[[bytes], None]]] | None
) -> None:
    """What a chatty session's chunk costs: one short piece of output per feed() call, as a program
    printing a line at a time (or echoing a keystroke) produces."""
    print()
    print(f"one feed() call, {args.columns}x{args.lines}, CPU microseconds per call (best of {args.repeat})")
    print()
    header = ["chunk", "scrollback"] + ([f"termux @{args.baseline} us"] if before else []) + ["termux us"]
    print("| " + " | ".join(header) + " |")
    print("| --- | --- | " + " | ".join(["---:"] * (len(header) - 2)) + " |")
    for name, data in PER_FEED.items():
        for history in (False, True):
            row = [name, "on" if history else "off"]
            if before is not None:
                row.append(f"{per_feed_us(before, data, args, history):.1f}")
            row.append(f"{per_feed_us(termux, data, args, history):.1f}")
            print("| " + " | ".join(row) + " |", flush=True)


# --- scrollback memory -------------------------------------------------------------------------


def deep_size(root: object, seen: set[int]) -> int:
    """Bytes held by `root` and everything it references that `seen` has not counted yet (objects
    shared between lines, like interned styles or cached cells, count once)."""
    total = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or obj is None or isinstance(obj, (bool, int, float)):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (tuple, list, deque)):
            stack.extend(obj)
        if hasattr(obj, "__dict__") and not isinstance(obj, type):
            stack.append(vars(obj))
    return total


def scrollback_bytes_per_line(name: str, lines_wanted: int, args: argparse.Namespace) -> tuple[float, float] | None:
    """Bytes per scrollback line: pyte.HistoryScreen's history against termux's Scrollback (None when
    the workload does not scroll, like `top`'s in-place redraws)."""
    gen = WORKLOADS[name]
    size = 4096
    while True:  # enough input to push `lines_wanted` lines into the scrollback
        data = gen(size)
        probe = temu.Screen(args.columns, args.lines, history=lines_wanted)
        temu.ByteStream(probe).feed(data)
        if len(probe.history) >= lines_wanted:
            break
        if size >= 4 * MB:
            if not probe.history:
                return None
            break
        size *= 2
    stock_screen = pyte.HistoryScreen(args.columns, args.lines, history=lines_wanted)
    pyte.ByteStream(stock_screen).feed(data)
    stock_lines = stock_screen.history.top
    stock_bytes = deep_size(stock_lines, set()) - sys.getsizeof(stock_lines)
    ours = [probe.history.stored(i) for i in range(len(probe.history))]  # as kept, not as read
    ours_bytes = deep_size(ours, set()) - sys.getsizeof(ours)
    return stock_bytes / max(1, len(stock_lines)), ours_bytes / max(1, len(ours))


def pyte_version() -> str:
    from importlib.metadata import version

    return version("pyte")


if __name__ == "__main__":
    raise SystemExit(main())
