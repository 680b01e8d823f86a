"""Event transports side by side: polling at 4 Hz, long-polling, and the pushed stream.

    python -m benchmarks.events                      # 50 listeners, 10 s steady window, 150-event burst
    python -m benchmarks.events --steady 5 --only stream,longpoll

For each transport, in the same run and on a fresh server each (the same setup every time):

1. 5 sessions (`cat`, silent) and 50 listeners, spread over worker processes, all starting at the
   same cursor. A listener is what a script following events would run:
   - `poll`: every 250 ms, a new connection and one `events.read` (the short-polling CLI of the seed
     write-up; phases staggered);
   - `longpoll`: one connection, `events.read` with `wait_ms` (the server parks the request until an
     event commits);
   - `stream`: one connection, `events.stream`, then one pushed line per event.
2. A steady window with nothing happening: the server's CPU and wake-ups (voluntary context
   switches of every thread, as benchmarks/idle.py counts them) from /proc.
3. 20 lone events, 50 ms apart (`session.rename` on one connection): the delivery latency of an
   event when nothing else is happening.
4. A burst of 150 events (`session.rename`, pipelined on one connection). Burst CPU is the
   server's CPU time from the first rename to the last delivery.

Latency is commit (the event's `time`, stamped by the server) to receipt (the listener's clock when
the bytes arrive, before any parsing: 10 listeners share a worker process). Every listener must
receive every event.

The report is markdown (paste it into benchmarks/README.md). Numbers on a shared machine are noisy:
read the ratios between rows, not the absolute values.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TRANSPORTS = ("poll", "longpoll", "stream")
POLL_INTERVAL = 0.25  # 4 Hz
LONG_POLL_MS = 30_000
SESSIONS = 5
TRICKLE_GAP = 0.05
LINE_LIMIT = 64 << 20


# -- listeners (run in worker processes) ---------------------------------------------------------


def _request(request_id: int, cmd: str, args: dict[str, Any]) -> bytes:
    return json.dumps({"id": request_id, "cmd": cmd, "args": args}).encode() + b"\n"


def _reply(line: bytes) -> dict[str, Any]:
    message = json.loads(line)
    if not message.get("ok"):
        raise RuntimeError(f"server error: {message.get('error')}")
    result: dict[str, Any] = message["result"]
    return result


class Listener:
    """One listener. Receipt is stamped when the bytes arrive, before any JSON is parsed: 10
    listeners share a worker process, and one listener's parsing must not count as another's
    delivery latency. Stream lines are parsed once every listener is done; a read reply is parsed
    at once (the next request needs its cursor)."""

    def __init__(self, path: str, cursor: int, expected: int) -> None:
        self.path = path
        self.cursor = cursor
        self.expected = expected
        self.samples: list[tuple[int, float]] = []  # (seq, latency)
        self.seen = 0
        self.ready = asyncio.get_running_loop().create_future()
        self.arrived: list[tuple[bytes, float]] = []  # stream: raw bytes and when they arrived

    def record(self, events: list[dict[str, Any]], now: float) -> None:
        for event in events:
            if event["seq"] > self.cursor:
                self.samples.append((event["seq"], now - event["time"]))
                self.cursor = event["seq"]
                self.seen += 1

    def done(self) -> bool:
        return self.seen >= self.expected

    async def read_reply(self, reader: asyncio.StreamReader) -> None:
        line = await reader.readline()
        now = time.time()
        result = _reply(line)
        self.record(result["events"], now)
        self.cursor = max(self.cursor, result["cursor"])

    async def stream(self) -> None:
        reader, writer = await asyncio.open_unix_connection(self.path, limit=LINE_LIMIT)
        writer.write(_request(1, "events.stream", {"cursor": self.cursor}))
        await self.read_reply(reader)
        self.ready.set_result(None)
        lines = 0
        while self.seen + lines < self.expected:
            data = await reader.read(1 << 16)
            now = time.time()
            if not data:
                raise RuntimeError("stream closed")
            self.arrived.append((data, now))
            lines += data.count(b"\n")
        writer.close()

    def parse_arrived(self) -> None:
        """Parse what the stream received, once every listener is done (off the measured path)."""
        buffer = b""
        for data, now in self.arrived:
            buffer += data
            *complete, buffer = buffer.split(b"\n")
            for line in complete:
                message = json.loads(line)
                if message.get("push") == "event":
                    self.record([message["event"]], now)

    async def longpoll(self) -> None:
        reader, writer = await asyncio.open_unix_connection(self.path, limit=LINE_LIMIT)
        request_id = 0
        while not self.done():
            request_id += 1
            args = {"cursor": self.cursor, "wait_ms": LONG_POLL_MS, "limit": 1000}
            writer.write(_request(request_id, "events.read", args))
            if not self.ready.done():
                self.ready.set_result(None)
            await self.read_reply(reader)
        writer.close()

    async def poll(self) -> None:
        loop = asyncio.get_running_loop()
        next_poll = loop.time() + random.uniform(0, POLL_INTERVAL)
        while not self.done():
            await asyncio.sleep(max(0.0, next_poll - loop.time()))
            next_poll += POLL_INTERVAL
            reader, writer = await asyncio.open_unix_connection(self.path, limit=LINE_LIMIT)
            writer.write(_request(1, "events.read", {"cursor": self.cursor, "limit": 1000}))
            await self.read_reply(reader)
            writer.close()
            await writer.wait_closed()
            if not self.ready.done():
                self.ready.set_result(None)


async def worker(transport: str, path: str, count: int, cursor: int, expected: int, limit: float) -> None:
    listeners = [Listener(path, cursor, expected) for _ in range(count)]
    tasks = [asyncio.create_task(getattr(listener, transport)()) for listener in listeners]
    await asyncio.wait([asyncio.ensure_future(x.ready) for x in listeners])
    print("ready", flush=True)
    _, pending = await asyncio.wait(tasks, timeout=limit)
    for task in pending:
        task.cancel()
    for listener in listeners:
        listener.parse_arrived()
    print(json.dumps({"counts": [x.seen for x in listeners], "samples": [v for x in listeners for v in x.samples]}))


# -- the driver ------------------------------------------------------------------------------------


def burst(path: Path, count: int, names: list[str]) -> None:
    """`count` renames pipelined on one connection: `count` events committed as fast as possible."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(path))
        lines = [_request(i, "session.rename", {"target": f"%{i % len(names)}", "name": f"b{i}"}) for i in range(count)]
        sock.sendall(b"".join(lines))
        buffer = b""
        while buffer.count(b"\n") < count:
            data = sock.recv(1 << 16)
            if not data:
                raise RuntimeError("server closed during the burst")
            buffer += data
        for line in buffer.split(b"\n")[:count]:
            _reply(line)


def run_transport(transport: str, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.procstat import cpu_ns, usage
    from e2e.isolated import IsolatedServer
    from termux.client import Client

    with IsolatedServer() as server:
        with Client.connect(server.socket_path, autostart=False) as control:
            names = []
            for i in range(SESSIONS):
                names.append(control.request("session.new", name=f"s{i}", command=["cat"])["session"]["id"])
            cursor = control.request("events.read")["cursor"]
        per_worker = [args.listeners // args.workers + (i < args.listeners % args.workers) for i in range(args.workers)]
        limit = args.steady + 120.0
        workers = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "benchmarks.events",
                    "--worker",
                    transport,
                    str(server.socket_path),
                    str(n),
                    str(cursor),
                    str(args.trickle + args.events),
                    str(limit),
                ],
                stdout=subprocess.PIPE,
                env=server.env,
                cwd=str(Path(__file__).resolve().parent.parent),
            )  # fmt: skip
            for n in per_worker
            if n
        ]
        for proc in workers:
            assert proc.stdout is not None
            if proc.stdout.readline().strip() != b"ready":
                raise RuntimeError(f"a {transport} worker failed to start")
        time.sleep(0.5)  # let the last requests park

        before = usage(server.pid)
        t0 = time.monotonic()
        time.sleep(args.steady)
        steady = usage(server.pid) - before
        window = time.monotonic() - t0

        with Client.connect(server.socket_path, autostart=False) as control:
            for i in range(args.trickle):  # one event at a time: delivery latency of a lone event
                control.request("session.rename", target=names[i % len(names)], name=f"t{i}")
                time.sleep(TRICKLE_GAP)
        cpu_burst = cpu_ns(server.pid)
        burst(server.socket_path, args.events, names)
        results = []
        for proc in workers:
            out, _ = proc.communicate(timeout=limit + 30)
            results.append(json.loads(out))
        cpu_end = cpu_ns(server.pid)
    counts = [c for r in results for c in r["counts"]]
    first_burst = cursor + args.trickle + 1
    samples = [v for r in results for v in r["samples"]]
    return {
        "transport": transport,
        "steady_cpu": steady.cpu / window * 100,
        "steady_wakeups": steady.voluntary / window,
        "burst_cpu_ms": (cpu_end - cpu_burst) / 1e6,
        "trickle": [lat for seq, lat in samples if seq < first_burst],
        "burst": [lat for seq, lat in samples if seq >= first_burst],
        "counts": counts,
    }


def report(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    from benchmarks.report import markdown_table, ms, percentile

    table = []
    for row in rows:
        trickle, lat = row["trickle"], row["burst"]
        complete = sum(1 for c in row["counts"] if c == args.trickle + args.events)
        table.append([
            row["transport"],
            f"{row['steady_cpu']:.2f}",
            f"{row['steady_wakeups']:.1f}",
            f"{row['burst_cpu_ms']:.0f}",
            ms(percentile(trickle, 50)) if trickle else "-",
            ms(percentile(trickle, 95)) if trickle else "-",
            ms(percentile(lat, 50)) if lat else "-",
            ms(percentile(lat, 95)) if lat else "-",
            f"{complete}/{len(row['counts'])}",
            f"{min(row['counts'])}–{max(row['counts'])}" if row["counts"] else "-",
        ])  # fmt: skip
    header = [
        "transport", "steady server CPU %", "server wake-ups/s", "burst server CPU ms",
        "lone event p50 ms", "lone event p95 ms", "burst p50 ms", "burst p95 ms",
        "listeners complete", "events per listener",
    ]  # fmt: skip
    title = (
        f"### Event transports: {args.listeners} listeners, {args.steady:g} s steady window, "
        f"{args.trickle} lone events {TRICKLE_GAP * 1000:g} ms apart, then a burst of {args.events}\n\n"
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.system()} {platform.release()}. "
        "Latency: commit (server clock) to receipt by the listener; CPU and wake-ups: the server process.\n\n"
    )
    return title + markdown_table(header, table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listeners", type=int, default=50)
    parser.add_argument("--events", type=int, default=150, help="events in the burst")
    parser.add_argument("--trickle", type=int, default=20, help="lone events before the burst")
    parser.add_argument("--steady", type=float, default=10.0, help="seconds of the steady window")
    parser.add_argument("--workers", type=int, default=5, help="listener processes")
    parser.add_argument("--only", default=",".join(TRANSPORTS), help="comma-separated transports")
    parser.add_argument("--worker", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        transport, path, count, cursor, expected, limit = args.worker
        asyncio.run(worker(transport, path, int(count), int(cursor), int(expected), float(limit)))
        return 0
    chosen = [t for t in args.only.split(",") if t]
    unknown = set(chosen) - set(TRANSPORTS)
    if unknown:
        parser.error(f"unknown transport(s): {', '.join(sorted(unknown))}")
    rows = []
    for transport in chosen:
        print(f"running {transport} ...", file=sys.stderr, flush=True)
        rows.append(run_transport(transport, args))
    print(report(rows, args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
