"""Many moderately busy sessions: server and TUI CPU for termux, server and client CPU for tmux.

    python -m benchmarks.chatty                        # N = 8, 32, 128 chatty sessions, both modes
    python -m benchmarks.chatty --sessions 32 --modes background --seconds 5   # quicker
    python -m benchmarks.chatty --program agent --sessions 4,16                # agents redrawing
    python -m benchmarks.chatty --program agent-unicode --sessions 8           # with box drawing, bullets
    python -m benchmarks.chatty --profile              # profile the termux server's measured window
    python -m benchmarks.chatty --baseline main        # termux at another revision beside this one
    python -m benchmarks.chatty --spy /tmp/spy         # py-spy the termux server and TUI, window only

N sessions each run a program that prints moderately (e2e/programs/chatty.py: 50 short log lines a
second, `print(..., flush=True)` then `sleep(0.02)`; or e2e/programs/agent.py: a 120x40 full-screen
redraw 20 times a second, in ASCII or, `agent-unicode`, with one-cell characters beyond it as most
agents draw). One client in a real 120x40 PTY looks at the multiplexer:

- background: the client shows one more session that prints nothing (`cat`); all N are background.
  termux: the TUI (`termux attach -t home`); tmux: a client whose current window runs `cat`.
- focused: the same, but the client shows the first of the N sessions.

After a warm-up (sessions started, the client drawn), CPU time of the server and of the client
(termux: the TUI) is read from /proc/PID/task/*/schedstat (every thread, in nanoseconds) at the
start and the end of the window. Each program writes a tally of what it printed when it is closed
(lines or frames: one write() each, a "chunk"; and bytes), so chunks and bytes printed inside the
window are its rate times the window, whatever the multiplexer slowed down. CPU per chunk and per
byte are the server's and the client's CPU together over the window divided by those.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.procstat import cpu_ns
from benchmarks.report import baseline_checkout, markdown_table, profile_server, server_profile_env
from e2e.isolated import IsolatedServer, TmuxServer, descendants
from e2e.terminal import Terminal

PROGRAMS_DIR = Path(__file__).resolve().parent.parent / "e2e" / "programs"
PROGRAMS = {"chatty": ["chatty.py"], "agent": ["agent.py"], "agent-unicode": ["agent.py", "--unicode"]}
COLS, ROWS = 120, 40
SPY_RATE = 1000  # samples a second (py-spy)


def program(name: str, tally: Path) -> list[str]:
    """The argv of a chatty or agent session that tallies into `tally`."""
    script, *options = PROGRAMS[name]
    return [sys.executable, str(PROGRAMS_DIR / script), *options, str(tally)]


@dataclass(frozen=True)
class Tally:
    """What the sessions printed, per second of their lives (summed over sessions)."""

    sessions: int
    chunks_per_s: float
    bytes_per_s: float


def read_tally(directory: Path, expected: int, timeout: float = 10.0) -> Tally:
    """Sum the tallies the programs wrote into `directory` when they were closed (they write them
    on SIGHUP; this waits up to `timeout` for all `expected`)."""
    deadline = time.monotonic() + timeout
    while len(list(directory.iterdir())) < expected and time.monotonic() < deadline:
        time.sleep(0.05)
    chunks = nbytes = 0.0
    count = 0
    for path in directory.iterdir():
        fields = path.read_text().split()
        if len(fields) != 3 or float(fields[2]) <= 0:
            continue  # written as it was closed; an incomplete tally does not count
        lines, written, seconds = int(fields[0]), int(fields[1]), float(fields[2])
        chunks += lines / seconds
        nbytes += written / seconds
        count += 1
    return Tally(count, chunks, nbytes)


@dataclass
class Run:
    """CPU seconds of the server and the client over a window of `seconds`, and what was printed."""

    server_cpu: float
    client_cpu: float
    seconds: float
    tally: Tally
    drawn: int  # bytes the client wrote to its terminal in the window

    @property
    def cpu(self) -> float:
        return self.server_cpu + self.client_cpu

    def row(self, label: list[str]) -> list[str]:
        chunks = self.tally.chunks_per_s * self.seconds
        nbytes = self.tally.bytes_per_s * self.seconds
        both = self.cpu
        return [
            *label,
            f"{self.tally.chunks_per_s:.0f}",
            f"{self.tally.bytes_per_s / 1000:.0f}",
            f"{self.drawn / self.seconds / 1000:.0f}",
            f"{self.server_cpu / self.seconds * 100:.1f}",
            f"{self.client_cpu / self.seconds * 100:.1f}",
            f"{both / self.seconds * 100:.1f}",
            f"{both / chunks * 1e6:.0f}" if chunks else "n/a",
            f"{both / nbytes * 1e9:.0f}" if nbytes else "n/a",
        ]


def window(pids: tuple[int, int], seconds: float, term: Terminal) -> tuple[float, float, int]:
    """CPU seconds each of `pids` used over the next `seconds`, and the bytes the client wrote
    to its terminal meanwhile."""
    before = [cpu_ns(pid) for pid in pids]
    drawn = term.bytes_read
    time.sleep(seconds)
    after = [cpu_ns(pid) for pid in pids]
    return (after[0] - before[0]) / 1e9, (after[1] - before[1]) / 1e9, term.bytes_read - drawn


def spy(directory: str | None, pids: dict[str, int], seconds: float, label: str) -> list[subprocess.Popen[bytes]]:
    """py-spy records each of `pids` ({"server": pid, "tui": pid}) for `seconds` into
    `directory/<label>-<name>.txt` (collapsed stacks, one "stack count" a line); none without a
    directory. py-spy samples from its own process, so the profiled process runs unchanged."""
    if directory is None:
        return []
    Path(directory).mkdir(parents=True, exist_ok=True)
    exe = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    out = Path(directory)
    options = ["--duration", f"{seconds:g}", "--rate", str(SPY_RATE), "--format", "raw", "--nonblocking"]
    return [
        subprocess.Popen(
            [exe, "record", "--pid", str(pid), *options, "--output", str(out / f"{label}-{name}.txt")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, pid in pids.items()
    ]


def settle(term: Terminal, args: argparse.Namespace) -> None:
    """Wait until the client drew something, then stop emulating its output (the harness reads it
    as a fast sink: stock pyte in this process would compete with what is measured) and warm up."""
    term.wait_for(lambda t: t.bytes_read > 0, timeout=60)
    term.emulate = False
    time.sleep(args.warmup)


def measure_termux(n: int, focused: bool, args: argparse.Namespace, checkout: Path | None = None) -> Run:
    from termux.client import Client

    with tempfile.TemporaryDirectory(prefix="tx-tally-") as tmp:
        tally = Path(tmp)
        server = IsolatedServer(extra_env=server_profile_env(args.profile), checkout=checkout).start()
        try:
            with Client.connect(server.socket_path, autostart=False) as client:
                client.request("session.new", name="home", command=["cat"], cwd="/")
                # The size of the client's terminal, as tmux's windows are (an agent draws at its
                # terminal's size; the one a view focuses is then resized to the view).
                for i in range(n):
                    command = program(args.program, tally)
                    client.request("session.new", name=f"c{i}", command=command, cwd="/", cols=COLS, rows=ROWS)
            term = server.terminal("attach", "-t", "c0" if focused else "home", cols=COLS, rows=ROWS)
            settle(term, args)
            label = f"chatty-{args.program}-{n}-{'focused' if focused else 'background'}"
            if checkout is not None:
                label += "-baseline"
            spies = spy(args.spy, {"server": server.pid, "tui": term.pid}, args.seconds, label)
            with profile_server(args.profile, server.socket_path, label):
                server_cpu, client_cpu, drawn = window((server.pid, term.pid), args.seconds, term)
            for process in spies:
                process.wait()
        finally:
            server.stop()  # closes the sessions: each program writes its tally
        return Run(server_cpu, client_cpu, args.seconds, read_tally(tally, n), drawn)


def measure_tmux(n: int, focused: bool, args: argparse.Namespace) -> Run:
    with tempfile.TemporaryDirectory(prefix="tx-tally-") as tmp:
        tally = Path(tmp)
        tmux = TmuxServer()
        try:
            term = tmux.terminal(["cat"], cols=COLS, rows=ROWS)
            term.wait_for(lambda t: t.bytes_read > 0, timeout=30)
            argv = " ".join(program(args.program, tally))
            for i in range(n):
                # The first of them becomes the current window when focused.
                tmux.run("new-window", *([] if focused and i == 0 else ["-d"]), argv)
            server_pid = tmux.pid()
            client_pid = next((p for p in [term.pid, *descendants(term.pid)] if p != server_pid), term.pid)
            settle(term, args)
            server_cpu, client_cpu, drawn = window((server_pid, client_pid), args.seconds, term)
        finally:
            tmux.stop()
        return Run(server_cpu, client_cpu, args.seconds, read_tally(tally, n), drawn)


def measure_all(n: int, focused: bool, args: argparse.Namespace, baseline: Path | None) -> list[list[str]]:
    """Rows for N sessions in one mode: termux (and the baseline's) and tmux, one after another."""
    runs: list[tuple[str, Run]] = []
    if baseline is not None:
        runs.append((f"termux {args.baseline}", measure_termux(n, focused, args, baseline)))
    runs.append(("termux", measure_termux(n, focused, args)))
    if not args.skip_tmux:
        runs.append(("tmux", measure_tmux(n, focused, args)))
    tmux_cpu = runs[-1][1].cpu if not args.skip_tmux else None
    mode = "focused" if focused else "background"
    print(f"  {n} {mode}: {' '.join(f'{k} {r.cpu:.2f}s' for k, r in runs)}", file=sys.stderr, flush=True)
    rows = []
    for name, run in runs:
        ratio = f"{run.cpu / tmux_cpu:.1f}×" if tmux_cpu and name != "tmux" else ""
        rows.append([*run.row([str(n), mode, name]), ratio])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CPU of many moderately busy sessions, termux and tmux")
    parser.add_argument("--sessions", default="8,32,128", help="session counts, comma-separated")
    parser.add_argument("--program", choices=sorted(PROGRAMS), default="chatty")
    parser.add_argument("--modes", default="background,focused", help="background,focused")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window per run")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds between drawn and measured")
    parser.add_argument("--skip-tmux", action="store_true")
    parser.add_argument("--profile", action="store_true", help="profile the termux server's measured window")
    parser.add_argument("--spy", metavar="DIR", help="py-spy the termux server and TUI over the window into DIR")
    parser.add_argument("--baseline", metavar="REV", help="also measure termux at this git revision")
    args = parser.parse_args(argv)

    rows: list[list[str]] = []
    with baseline_checkout(args.baseline) as baseline:
        for n in [int(x) for x in args.sessions.split(",") if x]:
            for mode in [m for m in args.modes.split(",") if m]:
                rows += measure_all(n, mode == "focused", args, baseline)

    unit = "lines" if args.program == "chatty" else "frames"
    print(f"## Many busy sessions ({args.program})\n")
    header = [
        "sessions", "mode", "mux", f"{unit}/s", "kB/s", "drawn kB/s", "server CPU %", "client CPU %", "together %",
        "µs CPU / chunk", "ns CPU / byte", "termux/tmux CPU",
    ]  # fmt: skip
    print(markdown_table(header, rows))
    print(
        f"\n{args.seconds:g} s windows; client: termux's TUI, tmux's client, in a {COLS}x{ROWS} PTY;"
        f" a chunk is one write() of the program (one {unit[:-1]}); CPU per chunk and per byte: server"
        " and client together; drawn: what the client wrote to its terminal. background: the client shows an"
        " idle session; focused: the first busy one."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
