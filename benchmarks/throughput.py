"""Throughput: a session prints 20 MB of a workload until it exits; MB/s for termux and tmux.

    python -m benchmarks.throughput                    # 20 MB of each workload, both modes
    python -m benchmarks.throughput --mb 5 --only yes  # quicker
    python -m benchmarks.throughput --profile          # profile the termux server's measured window

Workloads are the emulator benchmark's (benchmarks/emulator.py: short `yes` lines, long log lines,
SGR-heavy `ls --color` listings, full-screen `top`-like redraws), written to a file first and then
printed by `cat` in a session of 80x24 whose tty passes bytes unchanged (`stty -opost`).

- background: nobody looks at the session. termux: one attached client that follows no session;
  tmux: a detached window while a client shows another one.
- focused: the session is what a client looks at. termux: an attached client that follows and
  focuses it and reads every output push; tmux: the window is current in a client whose terminal
  is a fast sink.

The clock runs from the request that creates the session until termux reports `session.exited`
(sent only once every byte the program wrote has been parsed) or, for tmux, until the shell in the
window signals `tmux wait-for` after `cat` returns. MB/s = workload bytes / that time.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import markdown_table, profile_server, server_profile_env
from e2e.isolated import IsolatedServer, TmuxServer

MB = 1_000_000
COLS, ROWS = 80, 24
TIMEOUT = 900.0  # one run; far above what any workload should take


def workloads() -> dict[str, Callable[[int], bytes]]:
    try:
        from benchmarks.emulator import WORKLOADS  # the emulator benchmark's generators
    except ImportError:
        # Until the emulator benchmark is in this checkout: the latency benchmark's two floods.
        print("benchmarks/emulator.py is not here: workloads are `yes` and colorlog", file=sys.stderr)
        return {"yes": _yes, "colorlog": _colorlog}
    return dict(WORKLOADS)


def _yes(size: int) -> bytes:
    return b"y\r\n" * (size // 3 + 1)


def _colorlog(size: int) -> bytes:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "e2e" / "programs"))
    from colorlog import block  # type: ignore[import-not-found]

    out, n = [], 0
    while n * 100 < size:  # each line is well over 100 bytes
        out.append(block(n).replace(b"\n", b"\r\n"))
        n += 256
    return b"".join(out)


def printer(path: Path) -> list[str]:
    return ["sh", "-c", f"stty -opost; exec cat {shlex.quote(str(path))}"]


def termux_run(server: IsolatedServer, path: Path, focused: bool) -> float:
    """Seconds from session.new until session.exited, with a client attached (focused or not)."""
    from termux.client import Client

    with Client.connect(server.socket_path, autostart=False) as client:
        client.request("client.attach", follow=None if focused else [])
        start = time.monotonic()
        info = client.request("session.new", command=printer(path), cols=COLS, rows=ROWS, cwd="/")
        sid = info["session"]["id"]
        if focused:
            client.request("client.focus", target=sid)
        while True:
            message = client.next_push(TIMEOUT)
            if message is None:
                raise TimeoutError(f"session {sid} did not exit within {TIMEOUT}s")
            event: dict[str, Any] = message.get("event") or {}
            if event.get("type") == "session.exited" and event.get("session") == sid:
                break
        elapsed = time.monotonic() - start
        client.request("session.kill", target=sid)
    return elapsed


def tmux_run(tmux: TmuxServer, path: Path, focused: bool, channel: str) -> float:
    """Seconds from new-window until the window's shell signals that `cat` returned."""
    command = f"{shlex.join(printer(path))}; tmux -L {tmux.socket} wait-for -S {channel}"
    start = time.monotonic()
    tmux.run("new-window", *([] if focused else ["-d"]), command)
    tmux.run("wait-for", channel, timeout=TIMEOUT)
    return time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="session output throughput, termux and tmux")
    parser.add_argument("--mb", type=float, default=20.0, help="MB printed per run (default 20)")
    parser.add_argument("--only", default="", help="workloads, comma-separated (default: all)")
    parser.add_argument("--modes", default="background,focused", help="background,focused")
    parser.add_argument("--skip-tmux", action="store_true", help="measure termux only")
    parser.add_argument("--profile", action="store_true", help="profile the termux server's measured runs")
    args = parser.parse_args(argv)

    gens = workloads()
    names = [n for n in args.only.split(",") if n] or list(gens)
    modes = [m for m in args.modes.split(",") if m]
    size = int(args.mb * MB)
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="tx-tp-") as tmp:
        files: dict[str, Path] = {}
        for name in names:
            files[name] = Path(tmp) / f"{name}.bin"
            files[name].write_bytes(gens[name](size)[:size])

        server = IsolatedServer(extra_env=server_profile_env(args.profile)).start()
        tmux = TmuxServer()
        try:
            if not args.skip_tmux:
                # A client (in a fast sink terminal) shows an idle window; focused runs open over it.
                term = tmux.terminal(["cat"], cols=COLS, rows=ROWS + 1, emulate=False)
                term.wait_for(lambda t: t.bytes_read > 0, timeout=30)
            for name in names:
                nbytes = files[name].stat().st_size
                for mode in modes:
                    focused = mode == "focused"
                    with profile_server(args.profile, server.socket_path, f"throughput-{name}-{mode}"):
                        t_termux = termux_run(server, files[name], focused)
                    row = [name, mode, f"{nbytes / MB:.1f}", f"{nbytes / MB / t_termux:.2f}"]
                    if args.skip_tmux:
                        row += ["", ""]
                    else:
                        t_tmux = tmux_run(tmux, files[name], focused, f"done-{name}-{mode}")
                        row += [f"{nbytes / MB / t_tmux:.2f}", f"{t_tmux / t_termux:.2f}×"]
                    rows.append(row)
                    print(f"  {name} {mode}: termux {t_termux:.2f}s", file=sys.stderr, flush=True)
        finally:
            tmux.stop()
            server.stop()

    print("## Throughput\n")
    print(markdown_table(["workload", "mode", "MB", "termux MB/s", "tmux MB/s", "termux/tmux"], rows))
    print(
        f"\n{COLS}x{ROWS} sessions; `cat` of a prepared file; clock from session creation to exit"
        " (termux: every byte parsed). termux/tmux > 1 means termux is faster."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
