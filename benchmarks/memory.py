"""Memory: server RSS with 100 sessions each holding 10,000 lines of scrollback; tmux beside it.

    python -m benchmarks.memory                       # 100 sessions x 10,000 lines
    python -m benchmarks.memory --sessions 20         # quicker
    python -m benchmarks.memory --profile             # profile the server while the sessions load

Each session (80x24) prints 10,024 coloured log lines of 78 visible characters (a few SGR colour
changes per line, as real logs have) and exits; the server keeps every exited session's screen and
scrollback, as tmux keeps a dead pane with `remain-on-exit on` (`history-limit 10000`). Loading is
done when termux has pushed `session.exited` for each (sent after every byte was parsed) and, for
tmux, when each window's shell has signalled `tmux wait-for` after `cat`. RSS and its peak (VmRSS,
VmHWM) come from /proc/PID/status; "per session" subtracts the idle server's RSS.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.procstat import rss_kb
from benchmarks.report import markdown_table, profile_server, server_profile_env
from e2e.isolated import IsolatedServer, TmuxServer

COLS, ROWS = 80, 24
TIMEOUT = 1800.0
COLOURS = ["32", "33", "36", "1;31", "35", "34"]


def scrollback_text(lines: int) -> bytes:
    """`lines` log lines of 78 visible characters with SGR colours, CR LF terminated."""
    out = []
    for n in range(lines):
        colour = COLOURS[n % len(COLOURS)]
        head = f"{n:07d} \x1b[{colour}m{['INFO', 'WARN', 'DEBUG'][n % 3]:<5}\x1b[0m "
        body = f"worker-{n % 16:02d} handled request id={n * 7919 % 10**8:08d} path=/api/items/{n % 997}"
        visible = len(f"{n:07d} ") + 6 + len(body)
        out.append(head + body + "." * (78 - visible) + "\r\n")
    return "".join(out).encode()


def load_termux(server: IsolatedServer, path: Path, sessions: int) -> float:
    from termux.client import Client

    command = ["sh", "-c", f"stty -opost; exec cat {shlex.quote(str(path))}"]
    with Client.connect(server.socket_path, autostart=False) as client:
        client.request("client.attach", follow=[])  # events only: no output is forwarded
        start = time.monotonic()
        pending = set()
        for _ in range(sessions):
            info = client.request("session.new", command=command, cols=COLS, rows=ROWS, cwd="/")
            pending.add(info["session"]["id"])
        while pending:
            message = client.next_push(TIMEOUT)
            if message is None:
                raise TimeoutError(f"{len(pending)} sessions did not finish loading")
            event: dict[str, Any] = message.get("event") or {}
            if event.get("type") == "session.exited":
                pending.discard(event.get("session"))
        elapsed = time.monotonic() - start
        sample = next(iter(s["id"] for s in client.request("session.list")["sessions"]))
        held = client.request("session.capture", target=sample, start=-100_000, end=ROWS - 1)["lines"]
    print(f"  termux: a session holds {len(held)} lines (scrollback + screen)", file=sys.stderr)
    return elapsed


def load_tmux(tmux: TmuxServer, path: Path, sessions: int) -> float:
    start = time.monotonic()
    for i in range(sessions):
        command = f"stty -opost; cat {shlex.quote(str(path))}; tmux -L {tmux.socket} wait-for -S loaded-{i}"
        tmux.run("new-window", "-d", "sh -c " + shlex.quote(command))
    for i in range(sessions):
        tmux.run("wait-for", f"loaded-{i}", timeout=TIMEOUT)
    elapsed = time.monotonic() - start
    held = tmux.run("display-message", "-p", "-t", ":1", "#{history_size}")
    print(f"  tmux: a window holds {held} history lines", file=sys.stderr)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="server memory with many sessions of scrollback")
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--lines", type=int, default=10_000, help="scrollback lines per session")
    parser.add_argument("--skip-tmux", action="store_true")
    parser.add_argument("--profile", action="store_true", help="profile the server while sessions load")
    args = parser.parse_args(argv)

    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="tx-mem-") as tmp:
        path = Path(tmp) / "scrollback.txt"
        path.write_bytes(scrollback_text(args.lines + ROWS))

        server = IsolatedServer(extra_env=server_profile_env(args.profile))
        server.start("--history", str(args.lines))
        try:
            idle = rss_kb(server.pid)["VmRSS"]
            with profile_server(args.profile, server.socket_path, "memory-load"):
                elapsed = load_termux(server, path, args.sessions)
            rss = rss_kb(server.pid)
            rows.append(_row("termux", args.sessions, idle, rss, elapsed))
        finally:
            server.stop()

        if not args.skip_tmux:
            history = ["set", "-g", "history-limit", str(args.lines)]
            tmux = TmuxServer(*history, ";", "set", "-g", "remain-on-exit", "on")
            try:
                tmux.start_detached(["cat"], cols=COLS, rows=ROWS)
                pid = tmux.pid()
                idle = rss_kb(pid)["VmRSS"]
                elapsed = load_tmux(tmux, path, args.sessions)
                rows.append(_row("tmux", args.sessions, idle, rss_kb(pid), elapsed))
            finally:
                tmux.stop()

    print("## Memory\n")
    header = ["server", "sessions", "idle RSS MB", "RSS MB", "peak RSS MB", "per session MB", "load s"]
    print(markdown_table(header, rows))
    print(
        f"\n{args.sessions} sessions of {COLS}x{ROWS}, each holding {args.lines:,} lines of scrollback"
        " (coloured 78-column log lines); per session = (RSS - idle RSS) / sessions."
    )
    return 0


def _row(name: str, sessions: int, idle_kb: int, rss: dict[str, int], elapsed: float) -> list[str]:
    per = (rss["VmRSS"] - idle_kb) / sessions / 1024
    return [
        name, str(sessions), f"{idle_kb / 1024:.1f}", f"{rss['VmRSS'] / 1024:.1f}",
        f"{rss['VmHWM'] / 1024:.1f}", f"{per:.2f}", f"{elapsed:.1f}",
    ]  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
