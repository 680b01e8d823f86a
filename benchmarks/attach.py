"""Attach: from `termux attach` to first paint, with 50 sessions and 1,000 events of backlog.

    python -m benchmarks.attach                   # 50 sessions, 1,000 events, 5 attaches
    python -m benchmarks.attach --runs 2          # quicker
    python -m benchmarks.attach --profile         # profile the server over the attaches

Set-up: an isolated server with 50 sessions, each having printed a few lines (`attach-bench N` and
a listing) and then waiting in `cat`, and 1,000 events in the log (renames). Each run starts
`termux attach -t <the middle session>` in a real PTY (120x40) and times, from the spawn:

- first byte: the TUI wrote anything to its terminal (Python start-up and imports are in here);
- first paint: the focused session's own text (`attach-bench N`) is visible on the screen.

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
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import markdown_table, ms, profile_server, server_profile_env
from e2e.isolated import TERMUX, IsolatedServer, TmuxServer
from e2e.terminal import Terminal

COLS, ROWS = 120, 40


def session_command(n: int) -> list[str]:
    return ["sh", "-c", f"printf 'attach-bench {n}\\n'; ls -la /usr/bin | head -n 20; exec cat"]


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
                    data = sock.recv(1 << 16)
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


def attach_once(argv: list[str], env: dict[str, str], marker: str) -> tuple[float, float, float, Terminal]:
    """(spawn time, first byte time, first paint time, terminal) for one attach."""
    start = time.monotonic()
    term = Terminal(argv, cols=COLS, rows=ROWS, env=env)
    first_byte = term.wait_for(lambda t: t.bytes_read > 0, timeout=120)
    painted = term.wait_for(marker, timeout=120)
    return start, first_byte, painted, term


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="attach to first paint, termux and tmux")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-tmux", action="store_true")
    parser.add_argument("--profile", action="store_true", help="profile the server over the attaches")
    args = parser.parse_args(argv)
    middle = args.sessions // 2
    marker = f"attach-bench {middle}"
    rows: list[list[str]] = []
    trips_note = ""

    server = IsolatedServer(extra_env=server_profile_env(args.profile)).start()
    try:
        setup_termux(server, args.sessions, args.events)
        cmd = [*TERMUX, "attach", "-t", f"s{middle}"]
        firsts, paints = [], []
        with profile_server(args.profile, server.socket_path, "attach"):
            for _ in range(args.runs):
                start, first, painted, term = attach_once(cmd, server.env, marker)
                firsts.append(first - start)
                paints.append(painted - start)
                term.close()
        rows.append(_row("termux attach", firsts, paints))

        proxy_path = server.socket_dir / "proxy"
        proxy = CountingProxy(server.socket_path, proxy_path)
        try:
            start, _, painted, term = attach_once(
                [*TERMUX, "-S", str(proxy_path), "attach", "-t", f"s{middle}"], server.env, marker
            )
            term.close()
        finally:
            proxy.close()
        before = [cmd for t, cmd in proxy.requests if t <= painted]
        counts: dict[str, int] = {}
        for c in before:
            counts[c] = counts.get(c, 0) + 1
        listed = ", ".join(f"{c}×{n}" if n > 1 else c for c, n in counts.items())
        trips_note = f"termux: {len(before)} requests before first paint ({listed})"
        rows[-1].append(str(len(before)))
    finally:
        server.stop()

    if not args.skip_tmux:
        tmux = TmuxServer()
        try:
            tmux.start_detached(session_command(0), cols=COLS, rows=ROWS)
            for n in range(1, args.sessions):
                tmux.run("new-window", "-d", "-t", f"main:{n}", shlex.join(session_command(n)))
            firsts, paints = [], []
            for _ in range(args.runs):
                attach = tmux.argv("attach", "-t", f"main:{middle}")
                start, first, painted, term = attach_once(attach, tmux.env, marker)
                firsts.append(first - start)
                paints.append(painted - start)
                term.close()
            rows.append(_row("tmux attach", firsts, paints) + ["n/a"])
        finally:
            tmux.stop()

    print("## Attach\n")
    header = ["client", "first byte p50 ms", "first paint p50 ms", "min", "max", "round trips"]
    print(markdown_table(header, rows))
    print(
        f"\n{args.runs} attaches each to the middle of {args.sessions} sessions with {args.events:,} events in"
        f" the log, {COLS}x{ROWS}; times from spawning the client. {trips_note}" + "."
    )
    return 0


def _row(name: str, firsts: list[float], paints: list[float]) -> list[str]:
    return [name, ms(statistics.median(firsts)), ms(statistics.median(paints)), ms(min(paints)), ms(max(paints))]


if __name__ == "__main__":
    sys.exit(main())
