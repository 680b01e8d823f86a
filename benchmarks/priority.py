"""What CPU priority following focus costs a background build: the CPU a busy session no view
shows gets, and the keystroke latency beside it, under each priority setting of the server.

    python -m benchmarks.priority [--seconds 4] [--builds 2] [--keys 40]

A "build" is a session running a busy loop (as a compiler keeps a core busy). For each server
setting (`--background-nice`, `--background-idle`) three phases, each `--seconds` long:

- **alone**: no view attached, so nothing is lowered: the builds' full share of the machine;
- **typing**: a view (the socket, focused on an echo session) attached and a key typed every
  5-25 ms, as a person types: what the builds keep while someone types, and the keys' latency;
- **busy focus**: the same view with the focused session busy too (a loop of its own): what a
  background build keeps when the session someone looks at wants the CPU.

Prints one markdown table: the builds' CPU (cores) per phase, and the typing phase's keystroke
latency. The machine's other load counts too (the figures are shares of what is left): run it on a
quiet machine, and read the columns against each other.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from benchmarks.procstat import usage
from benchmarks.report import markdown_table, ms, summary
from e2e.isolated import IsolatedServer
from e2e.test_latency import ECHO, SocketView, Typist

BUILD = ["sh", "-c", "while :; do :; done"]
SETTINGS: dict[str, list[str]] = {
    "off (nice 0, no SCHED_IDLE)": ["--background-nice", "0", "--background-idle", "off"],
    "nice 10": ["--background-nice", "10", "--background-idle", "off"],
    "nice 19": ["--background-nice", "19", "--background-idle", "off"],
    "nice 10 + SCHED_IDLE (default)": ["--background-nice", "10", "--background-idle", "on"],
    "nice 19 + SCHED_IDLE": ["--background-nice", "19", "--background-idle", "on"],
}


def cores(pids: Sequence[int], seconds: float, during: Typist | None = None) -> float:
    """The CPU the processes took over `seconds`, in cores (while `during`, if given, types)."""
    before = sum(usage(pid).cpu for pid in pids)
    began = time.monotonic()
    if during is not None:
        while time.monotonic() - began < seconds:
            during.pause()
            during.key(5.0)
    else:
        time.sleep(seconds)
    return (sum(usage(pid).cpu for pid in pids) - before) / (time.monotonic() - began)


def measure(args: Sequence[str], builds: int, seconds: float) -> list[str]:
    server = IsolatedServer()
    server.start(*args)
    try:
        server.run("new", "-d", "-s", "echo", "--", *ECHO)
        server.run("wait", "-t", "echo", "--match", "echo ready", "--timeout", "60")
        for n in range(builds):
            server.run("new", "-d", "-s", f"build{n}", "--", *BUILD)
        listed = json.loads(server.run("ls", "--json").stdout)
        pids = [s["pid"] for s in listed if s["name"].startswith("build")]
        alone = cores(pids, seconds)
        view = SocketView(server.socket_path, "echo")
        typist = Typist(view, 7)
        typist.key(60.0)
        began = len(typist.windows)
        typing = cores(pids, seconds, typist)
        latencies = [seen - sent for sent, seen in typist.windows[began:]]
        view.close()
        server.run("new", "-d", "-s", "busy", "--", *BUILD)
        view = SocketView(server.socket_path, "busy")  # the focus is busy now
        busy = cores(pids, seconds)
        view.close()
        s = summary(latencies)
        return [f"{alone:.2f}", f"{typing:.2f}", f"{busy:.2f}", ms(s["p50"]), ms(s["p99"])]
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds per phase")
    parser.add_argument("--builds", type=int, default=2, help="busy background sessions")
    parser.add_argument("--only", default="", help="settings to run, comma-separated prefixes")
    args = parser.parse_args(argv)
    rows = []
    for name, server_args in SETTINGS.items():
        if args.only and not any(name.startswith(p) for p in args.only.split(",")):
            continue
        rows.append([name, *measure(server_args, args.builds, args.seconds)])
    header = ["background setting", "builds alone", "builds, typing", "builds, busy focus", "key p50", "key p99"]
    print(markdown_table(header, rows))
    print(
        f"\n{args.builds} builds (busy loops) in sessions no view shows; CPU in cores over {args.seconds:g} s per"
        " phase; keys typed through the socket into a focused echo session, 5-25 ms apart (ms)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
