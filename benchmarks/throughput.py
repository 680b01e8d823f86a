"""Throughput: a session prints a few MB of a workload; MB/s for a raw PTY, tmux and termux.

    python -m benchmarks.throughput                    # 5 MB of each workload, both modes
    python -m benchmarks.throughput --mb 2 --only yes  # quicker
    python -m benchmarks.throughput --profile          # profile the termux server's measured window
    python -m benchmarks.throughput --baseline main    # termux at another revision beside this one

Workloads (generators in benchmarks/emulator.py): `yes` lines, log lines of 90 characters, SGR-heavy
`ls --color` listings, full-screen `top`-like redraws. Each is written to a file first and printed by
`cat` in a session whose tty passes bytes unchanged (`stty -opost -echo`). The session first waits
for a line on its input (`read`), so the clock starts when everything is in place: it runs from
the newline sent to the session until termux reports `session.exited` (sent only once every byte the
program wrote has been parsed) or, for tmux, until the shell in the window signals `tmux wait-for`
after `cat` returned. MB/s = workload bytes / that time.

- raw PTY: the same `cat` on a plain PTY whose master a tight loop reads (os.read of 64 KiB until
  EOF): the ceiling, what the kernel and `cat` cost without any multiplexer.
- background: a client looks at another session. termux: the TUI attached to an idle session;
  tmux: a client whose current window is idle. The session is 120x39 in both.
- focused: the client looks at the session. termux: the TUI attached to it (`termux attach -t`);
  tmux: the window is current. The session takes the client's size (tmux 120x39; termux the TUI's
  pane). `top`-like redraws are drawn for the session's size, as the program would redraw for it:
  termux's focused run makes its file again for the pane's size once the TUI has resized the
  session (frames for 120 columns on a narrower pane would wrap and scroll instead).

Every client runs in a 120x40 PTY read by a fast sink (the harness counts the bytes and does not
emulate them, once the client has drawn). Scrollback is on, as by default: termux keeps its default
10,000 lines, tmux runs with `history-limit 10000` to match. CPU: the server and the client (the
TUI: the `termux attach` started and the TUI host's child that runs it) over the run, from
/proc/PID/task/*/schedstat, per MB printed (termux's also split: the server's, the TUI's).
"""

from __future__ import annotations

import argparse
import os
import pty
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.emulator import gen_logs, gen_sgr, gen_top, gen_yes
from benchmarks.procstat import cpu_ns
from benchmarks.report import baseline_checkout, markdown_table, profile_server, server_profile_env
from e2e.isolated import IsolatedServer, TmuxServer, descendants, on_terminal
from e2e.terminal import Terminal

MB = 1_000_000
COLS, ROWS = 120, 40  # the client's terminal
SESSION_COLS, SESSION_ROWS = 120, 39  # tmux's window in that terminal (one row of status line)
HISTORY = 10_000
TIMEOUT = 900.0  # one run; far above what any workload should take
# Workloads that draw for the screen's size: (bytes, columns, lines) -> output.
SIZED: dict[str, Callable[[int, int, int], bytes]] = {"top": gen_top}
WORKLOADS: dict[str, Callable[[int], bytes]] = {
    "yes": gen_yes,
    "logs90": partial(gen_logs, length=90),
    "sgr": gen_sgr,
    "top": partial(gen_top, columns=SESSION_COLS, lines=SESSION_ROWS),
}
DESCRIPTIONS = {
    "yes": "`yes`",
    "logs90": "log lines (90 chars)",
    "sgr": "`ls --color`-style SGR lines",
    "top": "full-screen redraws (`top`)",
}


def printer(path: Path, stamp: Path | None = None) -> list[str]:
    """`cat` of `path` on a tty that passes bytes unchanged; with `stamp`, only after one line of
    input, and the wall-clock time `cat` returned is then written to `stamp`."""
    if stamp is None:
        return ["sh", "-c", f"stty -opost -echo; exec cat {shlex.quote(str(path))}"]
    done = f"date +%s.%N > {shlex.quote(str(stamp))}"
    return ["sh", "-c", f"stty -opost -echo; read go; cat {shlex.quote(str(path))}; {done}"]


@dataclass(frozen=True)
class Timed:
    seconds: float  # until every byte was consumed (termux: parsed)
    cpu: float  # server + client CPU seconds over the run (0 for the raw PTY)
    program: float  # until the program itself was done writing
    server_cpu: float = 0.0  # the server's part of `cpu`


def _program_time(stamp: Path, started: float) -> float:
    """Seconds from `started` (time.time()) until the printer wrote its stamp."""
    return float(stamp.read_text()) - started


def raw_pty_run(path: Path) -> Timed:
    """`cat` on a plain PTY, its master read as fast as the loop can: the ceiling."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: exec the printer with the PTY as its terminal
        argv = printer(path)
        os.execvp(argv[0], argv)
    start = time.monotonic()
    try:
        while True:
            try:
                if not os.read(fd, 1 << 16):
                    break
            except OSError:  # EIO: the child closed its side
                break
        elapsed = time.monotonic() - start
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    return Timed(elapsed, 0.0, elapsed)


def _cpu(pids: list[int]) -> int:
    return sum(cpu_ns(pid) for pid in pids)


def _ready(term: Terminal, text: str) -> None:
    """Wait until the client shows `text`, then read it as a fast sink (no emulation)."""
    term.wait_for(text, timeout=60)
    term.emulate = False


def _attached_size(client: Any, sid: str) -> tuple[int, int]:
    """The session's size once the TUI attached to it gave it its pane's (it starts at
    SESSION_COLS x SESSION_ROWS; the resize follows the attach)."""
    deadline = time.monotonic() + 10
    while True:
        screen = client.request("session.capture", target=sid, start=0, end=0)
        size = (screen["cols"], screen["rows"])
        if size != (SESSION_COLS, SESSION_ROWS) or time.monotonic() > deadline:
            return size
        time.sleep(0.05)


def termux_run(
    server: IsolatedServer, path: Path, focused: bool, label: str, redraw: Callable[[int, int], bytes] | None = None
) -> Timed:
    """From the newline that starts `cat` until session.exited, the TUI attached (to it or not).
    `redraw`: the workload draws for its screen's size (`top`): focused, the file is made again for
    the size of the TUI's pane, as the program would redraw for it."""
    from termux.client import Client

    stamp = path.with_name(f"{label}-{server.socket_dir.name}.done")
    with Client.connect(server.socket_path, autostart=False) as client:
        client.request("client.attach", follow=[])  # events only
        command = printer(path, stamp)
        info = client.request("session.new", name=label, command=command, cols=SESSION_COLS, rows=SESSION_ROWS, cwd="/")
        sid = info["session"]["id"]
        tui = server.terminal("attach", "-t", label if focused else "home", cols=COLS, rows=ROWS)
        try:
            _ready(tui, label)  # its name in the sidebar: the TUI knows the session
            if focused and redraw is not None:
                path.write_bytes(redraw(*_attached_size(client, sid)))
            # The TUI may run in a child of the TUI host, drawing on the caller's terminal.
            pids = [server.pid, tui.pid, *on_terminal(tui.pid)]
            cpu_before = _cpu(pids)
            server_before = cpu_ns(server.pid)
            start, wall = time.monotonic(), time.time()
            client.request("session.send", target=sid, keys=["Enter"])
            while True:
                message = client.next_push(TIMEOUT)
                if message is None:
                    raise TimeoutError(f"session {sid} did not exit within {TIMEOUT}s")
                event: dict[str, Any] = message.get("event") or {}
                if event.get("type") == "session.exited" and event.get("session") == sid:
                    break
            elapsed = time.monotonic() - start
            cpu = (_cpu(pids) - cpu_before) / 1e9
            server_cpu = (cpu_ns(server.pid) - server_before) / 1e9
        finally:
            tui.close()
        client.request("session.kill", target=sid)
    return Timed(elapsed, cpu, _program_time(stamp, wall), server_cpu)


def tmux_run(tmux: TmuxServer, term: Terminal, path: Path, focused: bool, channel: str) -> Timed:
    """From the newline that starts `cat` until the window's shell signals that `cat` returned."""
    stamp = path.with_name(f"{channel}-tmux.done")
    command = f"{shlex.join(printer(path, stamp))}; tmux -L {tmux.socket} wait-for -S {channel}"
    window = tmux.run("new-window", *([] if focused else ["-d"]), "-P", "-F", "#{window_id}", command)
    server = tmux.pid()
    client = next((p for p in [term.pid, *descendants(term.pid)] if p != server), term.pid)
    pids = [server, client]
    cpu_before = _cpu(pids)
    start, wall = time.monotonic(), time.time()
    tmux.run("send-keys", "-t", window, "Enter")
    tmux.run("wait-for", channel, timeout=TIMEOUT)
    elapsed = time.monotonic() - start
    cpu = (_cpu(pids) - cpu_before) / 1e9
    if focused:
        tmux.run("select-window", "-t", "main:0")
    return Timed(elapsed, cpu, _program_time(stamp, wall))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="session output throughput: raw PTY, tmux, termux")
    parser.add_argument("--mb", type=float, default=5.0, help="MB printed per run (default 5)")
    parser.add_argument("--only", default="", help=f"workloads, comma-separated, of {', '.join(WORKLOADS)}")
    parser.add_argument("--modes", default="background,focused", help="background,focused")
    parser.add_argument("--skip-tmux", action="store_true", help="measure termux (and the raw PTY) only")
    parser.add_argument("--profile", action="store_true", help="profile the termux server's measured runs")
    parser.add_argument("--baseline", metavar="REV", help="also measure termux at this git revision")
    args = parser.parse_args(argv)

    names = [n for n in args.only.split(",") if n] or list(WORKLOADS)
    if unknown := [n for n in names if n not in WORKLOADS]:
        parser.error(f"unknown workload {unknown[0]!r}")
    modes = [m for m in args.modes.split(",") if m]
    size = int(args.mb * MB)
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="tx-tp-") as tmp, baseline_checkout(args.baseline) as checkout:
        files: dict[str, Path] = {}
        for name in names:
            files[name] = Path(tmp) / f"{name}.bin"
            files[name].write_bytes(WORKLOADS[name](size)[:size])

        server = IsolatedServer(extra_env=server_profile_env(args.profile)).start()
        before = IsolatedServer(checkout=checkout).start() if checkout else None
        tmux = TmuxServer("set", "-g", "history-limit", str(HISTORY))
        try:
            for each in (server, before):
                if each is not None:
                    each.run("new", "-d", "-s", "home", "--", "cat", check=True, timeout=30)
            term = None
            if not args.skip_tmux:
                term = tmux.terminal(["cat"], cols=COLS, rows=ROWS)  # main:0, idle
                term.wait_for(lambda t: t.bytes_read > 0, timeout=30)
                term.emulate = False
            for name in names:
                nbytes = files[name].stat().st_size
                raw = raw_pty_run(files[name])
                for mode in modes:
                    focused = mode == "focused"
                    label = f"tp-{name}-{mode}"
                    sized = SIZED.get(name)
                    redraw = None if sized is None else partial(_sized_bytes, sized, size)
                    with profile_server(args.profile, server.socket_path, f"throughput-{name}-{mode}"):
                        t_termux = termux_run(server, files[name], focused, label, redraw)
                    files[name].write_bytes(WORKLOADS[name](size)[:size])  # (as made for the others)
                    t_tmux = None if term is None else tmux_run(tmux, term, files[name], focused, label)
                    t_before = None if before is None else termux_run(before, files[name], focused, label, redraw)
                    files[name].write_bytes(WORKLOADS[name](size)[:size])
                    rows.append(_row(name, mode, nbytes, raw, t_termux, t_tmux, t_before))
                    print(f"  {name} {mode}: termux {t_termux.seconds:.2f}s", file=sys.stderr, flush=True)
        finally:
            tmux.stop()
            server.stop()
            if before is not None:
                before.stop()

    print("## Throughput\n")
    header = [
        "workload", "mode", "MB", "raw PTY MB/s", "tmux MB/s", "termux MB/s", "termux/tmux",
        "tmux CPU s/MB", "termux CPU s/MB", "termux server / TUI CPU s/MB", "tmux program MB/s",
        "termux program MB/s",
    ]  # fmt: skip
    if args.baseline:
        header += [f"{args.baseline} MB/s", f"{args.baseline} CPU s/MB", f"{args.baseline} program MB/s"]
    print(markdown_table(header, rows))
    print(
        f"\n`cat` of a prepared file; clock from the newline that starts it to its end (termux: every byte"
        f" parsed); clients in {COLS}x{ROWS} PTYs (termux: the TUI); scrollback {HISTORY} lines on both;"
        " CPU: server + client; program MB/s: until `cat` itself returned. termux/tmux > 1 means termux"
        " is faster."
    )
    return 0


def _sized_bytes(make: Callable[[int, int, int], bytes], size: int, columns: int, lines: int) -> bytes:
    return make(size, columns, lines)[:size]


def _row(
    name: str, mode: str, nbytes: int, raw: Timed, termux: Timed, tmux: Timed | None, before: Timed | None
) -> list[str]:
    mb = nbytes / MB
    row = [DESCRIPTIONS[name], mode, f"{mb:.1f}", f"{mb / raw.seconds:.1f}"]
    row += [f"{mb / tmux.seconds:.2f}" if tmux else "", f"{mb / termux.seconds:.2f}"]
    row += [f"{tmux.seconds / termux.seconds:.2f}×" if tmux else ""]
    row += [f"{tmux.cpu / mb:.2f}" if tmux else "", f"{termux.cpu / mb:.2f}"]
    row += [f"{termux.server_cpu / mb:.3f} / {(termux.cpu - termux.server_cpu) / mb:.3f}"]
    row += [f"{mb / tmux.program:.2f}" if tmux else "", f"{mb / termux.program:.2f}"]
    if before is not None:
        row += [f"{mb / before.seconds:.2f}", f"{before.cpu / mb:.2f}", f"{mb / before.program:.2f}"]
    return row


if __name__ == "__main__":
    sys.exit(main())
