"""Attach: from `termux attach` to first paint, with 50 sessions and 1,000 events of backlog.

    python -m benchmarks.attach                   # 50 sessions, 1,000 events, 5 attaches
    python -m benchmarks.attach --runs 2          # quicker
    python -m benchmarks.attach --profile         # profile the server over the attaches
    python -m benchmarks.attach --baseline /tmp/old   # also another checkout's termux, same server
    python -m benchmarks.attach --trace           # the first paint through the host, by stage
    python -m benchmarks.attach --installed       # also termux as `pip install .` lays it out

Set-up: an isolated server with 50 sessions, each having printed a few lines (a listing, then
`attach-bench N`) and then waiting in `cat`, and 1,000 events in the log (renames). Each run starts
`termux attach -t <the middle session>` in a real PTY (120x40) and times, from the spawn:

- first byte: the TUI wrote anything to its terminal (Python start-up and imports are in here);
- first paint: the focused session's own text (`attach-bench N`) is visible on the screen.

The first attach finds no TUI host, runs the TUI in its own process and forks the host
(termux/tui/host.py); the later ones are drawn by the host's child. `first` is that first attach;
`termux (no host)` runs every attach in-process (`TERMUX_TUI_HOST=0`), the path before the host.

After the last attach, once its client has used no CPU for 0.3 s (termux replays the other
sessions' snapshots after its first paint), `prefix n` is pressed `--switches` times, each timed
from the keys' write until the next session's text is drawn (the switch). Then the cold start: the client (`termux`,
`tmux new-session`) spawned with no server, on a fresh socket, until its first session (a
`$SHELL` that prints a marker and waits) is drawn. The TUI runs with bytecode caching on
(`with_bytecode`), as an installed termux does.

CPU to paint: the CPU time the client's processes (the one spawned, its children, a TUI host's
child drawing on its terminal) and the server used until first paint, from /proc schedstat.

Stages (`--trace`): the termux attaches through the TUI host run with `TERMUX_TRACE`, and each
stage the caller, the host's child and its TUI stamp (termux/trace.py `Tracer.mark`) is timed
from the spawn; `driver.wrote` is the first write that drew (more than a lone escape sequence),
`seen` the first paint as above.

With `--installed`, termux is also run as a normal (not editable) install has it (`termux
(installed)`: benchmarks/cli.py `installed`, its dependencies this environment's, run from outside
the checkout): an editable install's import hook, which site loads in every Python start in this
environment, is not in its figures.

Round trips: one more attach goes through a counting Unix-socket proxy in front of the server, which
records every request line the TUI sends; the requests sent before first paint are the round trips
that attach took (listed by command). tmux beside it: `tmux attach -t main:N` with 50 windows.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.cli import installed
from benchmarks.procstat import cpu_ns
from benchmarks.report import markdown_table, ms, profile_server, server_profile_env, with_bytecode
from e2e.isolated import (
    REPO_ROOT,
    TERMUX,
    IsolatedServer,
    TmuxServer,
    descendants,
    make_socket_dir,
    on_terminal,
    termux_env,
)
from e2e.terminal import Terminal

COLS, ROWS = 120, 40
COLD_PROMPT = "cold-start$ "


def session_command(n: int) -> list[str]:
    """A listing, then the marker, then a last line (what the sidebar previews, so that the marker is
    seen only in the session's own view). The marker is below the listing: a narrower view reflows
    the listing's long lines, which pushes the screen's top rows into the scrollback."""
    return ["sh", "-c", f"ls -la /usr/bin | head -n 20; printf 'attach-bench {n}\\nlisted\\n'; exec cat"]


class CountingProxy:
    """A Unix-socket proxy that forwards both ways and records each request line clients send."""

    def __init__(self, upstream: Path, listen: Path) -> None:
        self.upstream = upstream
        self.listen = listen
        self.requests: list[tuple[float, str]] = []
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(listen))
        self._server.listen(8)
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name="counting-proxy", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._server, selectors.EVENT_READ, "accept")
        sel.register(self._wake_r, selectors.EVENT_READ, "stop")
        peers: dict[socket.socket, tuple[socket.socket, bool]] = {}  # sock -> (peer, is_client)
        partial: dict[socket.socket, bytes] = {}
        try:
            while True:
                for key, _ in sel.select():
                    if key.data == "stop":
                        return
                    if key.data == "accept":
                        client, _ = self._server.accept()
                        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                        up.connect(str(self.upstream))
                        peers[client], peers[up] = (up, True), (client, False)
                        partial[client] = b""
                        sel.register(client, selectors.EVENT_READ, "io")
                        sel.register(up, selectors.EVENT_READ, "io")
                        continue
                    sock = key.fileobj
                    assert isinstance(sock, socket.socket)
                    peer, is_client = peers[sock]
                    try:
                        data = sock.recv(1 << 16)
                    except ConnectionResetError:  # a client that exits with unread replies
                        data = b""
                    if not data:
                        for s in (sock, peer):
                            sel.unregister(s)
                            peers.pop(s, None)
                            s.close()
                        continue
                    if is_client:
                        self._record(sock, data, partial)
                    peer.sendall(data)
        finally:
            sel.close()

    def _record(self, sock: socket.socket, data: bytes, partial: dict[socket.socket, bytes]) -> None:
        now = time.monotonic()
        lines = (partial[sock] + data).split(b"\n")
        partial[sock] = lines.pop()
        for line in lines:
            try:
                cmd = str(json.loads(line).get("cmd"))
            except (ValueError, AttributeError):
                cmd = "?"
            self.requests.append((now, cmd))

    def close(self) -> None:
        os.write(self._wake_w, b"x")
        self._thread.join(5)
        self._server.close()
        os.close(self._wake_r)
        os.close(self._wake_w)


def attach_once(
    argv: list[str], env: dict[str, str], marker: str, cwd: Path = REPO_ROOT, server_pid: int | None = None
) -> tuple[float, float, float, float, Terminal]:
    """(spawn time, first byte time, first paint time, CPU seconds to first paint, terminal) for one
    attach. The CPU: the processes on the terminal (what was spawned, its children, a TUI host's
    child drawing there) from their start, and the server's since the spawn."""
    before = cpu_ns(server_pid) if server_pid else 0
    start = time.monotonic()
    term = Terminal(argv, cols=COLS, rows=ROWS, env=env, cwd=cwd)
    # Both awaited from the spawn: one registered only once the other is met would be dated when
    # this thread got to it, if its screen came meanwhile.
    firsts, paints = term.expect(lambda t: t.bytes_read > 0), term.expect(marker)
    first_byte = firsts.wait(timeout=120)
    painted = paints.wait(timeout=120)
    cpu = (cpu_ns(server_pid) - before) if server_pid else 0
    for pid in {term.pid, *descendants(term.pid), *on_terminal(term.pid)}:
        try:
            cpu += cpu_ns(pid)
        except (FileNotFoundError, ProcessLookupError):  # gone meanwhile
            pass
    return start, first_byte, painted, cpu / 1e9, term


def setup_termux(server: IsolatedServer, sessions: int, events: int) -> None:
    from termux.client import Client

    with Client.connect(server.socket_path, autostart=False) as client:
        ids = []
        for n in range(sessions):
            info = client.request(
                "session.new", name=f"s{n}", command=session_command(n), cwd="/", cols=COLS, rows=ROWS
            )
            ids.append(info["session"]["id"])
        for n in range(sessions):
            client.request("session.wait", target=f"s{n}", match=f"attach-bench {n}", timeout=60)
        # Fill the log up to `events` with renames of the first session (one event each).
        missing = events - int(client.request("server.stats")["events"])
        for i in range(max(0, missing)):
            client.request("session.rename", target=ids[0], name=f"s0-{i % 2}")


@dataclass
class Client:
    """One attaching program and how it is run: termux, a baseline checkout's termux, or tmux."""

    name: str
    env: dict[str, str]
    cwd: Path
    server_pid: int | None = None  # the server whose CPU an attach costs is counted in
    firsts: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    switch_cpus: list[float] = field(default_factory=list)
    opening: float | None = None  # the first attach's paint, when it differs (it forks the TUI host)
    paints: list[float] = field(default_factory=list)
    switches: list[float] = field(default_factory=list)
    colds: list[float] = field(default_factory=list)
    trips: str = "n/a"
    stages: list[dict[str, float]] = field(default_factory=list)  # --trace: stage -> seconds from the spawn
    trace: bool = False
    command: list[str] = field(default_factory=lambda: list(TERMUX))  # how termux is run
    installed: bool = False  # run as a normal install (no PYTHONPATH to the checkout)


def measure_attach(client: Client, argv: list[str], marker: str, runs: int) -> Terminal:
    """`runs` attaches (after the opening one, if the client has one); the last one's terminal is
    returned open (for the switches)."""
    if client.opening is not None:
        start, _first, painted, _cpu, term = attach_once(argv, client.env, marker, client.cwd, client.server_pid)
        client.opening = painted - start
        term.close()
    for run in range(runs):
        trace = Path(tempfile.mkdtemp(prefix="attach-trace-")) / "trace" if client.trace else None
        env = client.env if trace is None else client.env | {"TERMUX_TRACE": str(trace)}
        start, first, painted, cpu, term = attach_once(argv, env, marker, client.cwd, client.server_pid)
        if trace is not None:
            client.stages.append(read_stages(trace, start) | {"seen": painted - start})
            shutil.rmtree(trace.parent, ignore_errors=True)
        client.firsts.append(first - start)
        client.cpus.append(cpu)
        client.paints.append(painted - start)
        if run < runs - 1:
            term.close()
    return term


def read_stages(trace: Path, start: float) -> dict[str, float]:
    """The first stamp of each attach stage in a trace file, in seconds from `start` (monotonic)."""
    stages: dict[str, float] = {}
    for line in trace.read_text().splitlines():
        ns, _, rest = line.partition(" ")
        stage, *more = rest.split(" ")
        if not more:
            continue  # a keystroke's stage (no pid)
        if stage == "driver.wrote" and int(more[0]) <= LONE:
            continue
        stages.setdefault(stage, int(ns) / 1e9 - start)
    return stages


LONE = 64  # bytes: a write this short is a mode set or a query, not a drawing


def stage_table(client: Client) -> str:
    """Each stage's p50 from the spawn and after the stage before it (in the order of the p50s)."""
    names = {name for stages in client.stages for name in stages}
    p50 = {name: statistics.median(s[name] for s in client.stages if name in s) for name in names}
    rows, before = [], 0.0
    for name in sorted(names, key=p50.__getitem__):
        rows.append([name, ms(p50[name]), ms(p50[name] - before)])
        before = p50[name]
    return markdown_table(["stage", "p50 ms from the spawn", "after the stage before"], rows)


def measure_switches(client: Client, term: Terminal, prefix: bytes, first: int, count: int) -> None:
    """`prefix n` `count` times, from session `first - 1`: each until the next one's text is drawn,
    with the CPU the client's processes (a TUI host's child included) used meanwhile."""
    drawers = [term.pid, *on_terminal(term.pid)]
    settle(drawers)
    for n in range(first, first + count):
        drawn = term.expect(f"attach-bench {n}")
        before = sum(cpu_ns(pid) for pid in drawers)
        sent = time.monotonic()
        term.write(prefix + b"n")
        client.switches.append(drawn.wait(60) - sent)
        client.switch_cpus.append((sum(cpu_ns(pid) for pid in drawers) - before) / 1e9)
    term.close()


def settle(pids: list[int], quiet: float = 0.3, limit: float = 20.0) -> None:
    """Wait until `pids` used no CPU for `quiet` seconds (at most `limit`): what an attach left
    to do after its first paint (termux replays the other sessions' snapshots) is done before the
    switches are timed, for every client alike."""
    deadline = time.monotonic() + limit
    used = sum(cpu_ns(pid) for pid in pids)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = sum(cpu_ns(pid) for pid in pids)
        if now == used:
            return
        used = now


def measure_cold(client: Client, argv: Callable[[Path], list[str]], stop: Callable[[Path], None], runs: int) -> None:
    """`runs` starts with no server: from spawning the client until its first session is drawn."""
    for _ in range(runs):
        socket_dir = make_socket_dir()
        shell = socket_dir / "shell"  # the first session's $SHELL: says it is up, then waits
        shell.write_text(f"#!/bin/sh\nprintf '{COLD_PROMPT}'\nexec cat\n")
        shell.chmod(0o700)
        env = termux_env(socket_dir, client.env) | {"SHELL": str(shell)}
        if client.installed:
            env.pop("PYTHONPATH", None)
        try:
            start = time.monotonic()
            term = Terminal(argv(socket_dir), cols=COLS, rows=ROWS, env=env, cwd=client.cwd)
            try:
                client.colds.append(term.wait_for(COLD_PROMPT, timeout=120) - start)
            finally:
                term.close()
        finally:
            stop(socket_dir)
            shutil.rmtree(socket_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="attach to first paint, termux and tmux")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--switches", type=int, default=20, help="prefix n presses after the last attach")
    parser.add_argument("--skip-tmux", action="store_true")
    parser.add_argument("--baseline", type=Path, help="a checkout whose termux runs beside (before/after in one run)")
    parser.add_argument("--profile", action="store_true", help="profile the server over the attaches")
    parser.add_argument("--trace", action="store_true", help="break termux's first paint down by stage")
    parser.add_argument("--installed", action="store_true", help="also termux as a normal install lays it out")
    args = parser.parse_args(argv)
    middle = args.sessions // 2
    marker = f"attach-bench {middle}"
    switches = min(args.switches, args.sessions - middle - 1)

    server = IsolatedServer(extra_env=server_profile_env(args.profile)).start()
    env = with_bytecode(server.env)
    clients = [
        Client("termux", env, REPO_ROOT, opening=0.0, server_pid=server.pid, trace=args.trace),
        Client("termux (no host)", env | {"TERMUX_TUI_HOST": "0"}, REPO_ROOT, server_pid=server.pid),
    ]
    if args.baseline is not None:
        old = args.baseline.resolve()
        clients.append(Client("baseline", env | {"PYTHONPATH": str(old)}, old, server_pid=server.pid))
    if args.installed:
        scratch = Path(tempfile.mkdtemp(prefix="attach-installed-"))
        bin_dir = installed(REPO_ROOT, scratch / "venv", packages=Path(sysconfig.get_paths()["purelib"]))
        plain = {key: value for key, value in env.items() if key != "PYTHONPATH"}
        clients.append(
            Client("termux (installed)", plain, scratch, server_pid=server.pid, trace=args.trace,
                   command=[str(bin_dir / "termux")], installed=True)
        )  # fmt: skip
    try:
        setup_termux(server, args.sessions, args.events)
        with profile_server(args.profile, server.socket_path, "attach"):
            for client in clients:
                term = measure_attach(client, [*client.command, "attach", "-t", f"s{middle}"], marker, args.runs)
                measure_switches(client, term, b"\x02", middle + 1, switches)
        for client in clients:
            client.trips = count_round_trips(server, client, marker, f"s{middle}")
    finally:
        server.stop()

    def stop_termux(client: Client) -> Callable[[Path], None]:
        def stop(socket_dir: Path) -> None:
            env = termux_env(socket_dir, client.env)
            subprocess.run([*TERMUX, "kill-server"], env=env, cwd=client.cwd, capture_output=True, timeout=60)

        return stop

    for client in clients:
        measure_cold(client, lambda _dir, client=client: list(client.command), stop_termux(client), args.runs)

    if not args.skip_tmux:
        tmux = TmuxServer()
        client = Client("tmux", tmux.env, REPO_ROOT)
        try:
            tmux.start_detached(session_command(0), cols=COLS, rows=ROWS)
            client.server_pid = tmux.pid()
            for n in range(1, args.sessions):
                tmux.run("new-window", "-d", "-t", f"main:{n}", shlex.join(session_command(n)))
            term = measure_attach(client, tmux.argv("attach", "-t", f"main:{middle}"), marker, args.runs)
            measure_switches(client, term, b"\x02", middle + 1, switches)
        finally:
            tmux.stop()
        # A fresh socket each start: a client can reach the last start's server while it exits
        # (tmux: "server exited unexpectedly").
        colds: list[TmuxServer] = []

        def tmux_new(_dir: Path) -> list[str]:
            colds.append(TmuxServer())
            return colds[-1].argv("new-session")

        measure_cold(client, tmux_new, lambda _dir: colds[-1].stop(), args.runs)
        clients.append(client)

    print("## Attach\n")
    header = [
        "client", "first paint p50 ms", "min", "max", "CPU to paint p50 ms", "first byte p50 ms", "first attach ms",
        "switch p50 ms", "switch max", "switch CPU p50 ms", "cold start p50 ms", "round trips",
    ]  # fmt: skip
    print(markdown_table(header, [_row(c) for c in clients]))
    for client in clients:
        if client.stages:
            print(f"\n### {client.name}: first paint by stage ({len(client.stages)} attaches)\n")
            print(stage_table(client))
    print(
        f"\n{args.runs} attaches each (for termux after a first one, which forks the TUI host) to the middle of"
        f" {args.sessions} sessions with {args.events:,} events in"
        f" the log, {COLS}x{ROWS}; times from spawning the client. Switch: `prefix n` ({switches} times after"
        " the last attach, once its client is idle) until the next session's text is drawn. Cold start:"
        " the client started with no"
        f" server until its first session is drawn ({args.runs} times, a fresh socket each)."
        " Round trips: the requests the TUI sent before first paint. CPU to paint: the processes on the"
        " client's terminal (the client, a TUI host's child) from their start and the server's from the"
        " spawn, until first paint: what the attach cost the machine, whatever else ran (the wall times"
        " are the machine's load too). Switch CPU: the client's processes' (the TUI's) during a switch."
    )
    return 0


def count_round_trips(server: IsolatedServer, client: Client, marker: str, target: str) -> str:
    """One more attach through a counting proxy: the requests sent before first paint, by command."""
    proxy_path = server.socket_dir / "proxy"
    proxy = CountingProxy(server.socket_path, proxy_path)
    try:
        _, _, painted, _cpu, term = attach_once(  # in-process: a TUI host's own requests are not the attach's
            [*TERMUX, "-S", str(proxy_path), "attach", "-t", target],
            client.env | {"TERMUX_TUI_HOST": "0"},
            marker,
            client.cwd,
        )
        term.close()
    finally:
        proxy.close()
        proxy_path.unlink(missing_ok=True)
    before = [cmd for t, cmd in proxy.requests if t <= painted]
    counts: dict[str, int] = {}
    for c in before:
        counts[c] = counts.get(c, 0) + 1
    return f"{len(before)} (" + ", ".join(f"{c}×{n}" if n > 1 else c for c, n in counts.items()) + ")"


def _row(client: Client) -> list[str]:
    def p50(samples: list[float]) -> str:
        return ms(statistics.median(samples)) if samples else "n/a"

    paints = client.paints
    return [
        client.name, p50(paints), ms(min(paints)), ms(max(paints)), p50(client.cpus), p50(client.firsts),
        "n/a" if client.opening is None else ms(client.opening), p50(client.switches),
        ms(max(client.switches)) if client.switches else "n/a", p50(client.switch_cpus), p50(client.colds),
        client.trips,
    ]  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
