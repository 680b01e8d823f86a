"""Keystroke-to-screen latency of termux and tmux, idle and while background sessions flood output.

Off by default (marked `bench`); run it with

    python -m pytest e2e -m bench -s          # or: python -m e2e.test_latency [--keys K] [--floods 4,16]
    python -m e2e.test_latency --trace        # and where each key's time goes, stage by stage

Each multiplexer runs in a real PTY (read through a terminal emulator, as a user's terminal would),
showing a session that runs a small raw-mode echo program (e2e/programs/echo.py). One key at a time
is written to the outer PTY; its latency is the time from that write until the chunk that makes its
echo (`echo #N C`) visible is read back from what the multiplexer draws. Phases: idle, then N
background sessions flooding `yes` or a coloured log generator, N chatty sessions (50 short log lines
a second each), N agents (each redrawing a 120x40 screen 20 times a second), all started over the
socket with `termux new -d` (for tmux with `new-window -d` on its own -L socket) and never typed
into the TUI; and N visible panes flooding `yes` beside the focused echo pane (termux: split with
prefix % and ", tiled with prefix space; tmux: `split-window -d` and `select-layout tiled`; the
socket view shows them with `client.view`). A phase whose key does not settle within the bound
stops and is reported SATURATED.

Prints one markdown table: a row per phase, termux and tmux as columns (p50/p95/p99/max in ms, the
p50 ratio to the same multiplexer's idle phase, and the CPU the multiplexer's own processes used
while the phase's keys were typed: termux's server and TUI, tmux's server and client). Figures are
reported, never asserted.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import os
import random
import select
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest

from benchmarks.procstat import cpu_ns, thread_wakeups, usage
from benchmarks.report import baseline_checkout, markdown_table, ms, summary
from e2e.isolated import IsolatedServer, TmuxServer, descendants
from e2e.terminal import Terminal, TerminalClosed

PROGRAMS = Path(__file__).resolve().parent / "programs"
ECHO = [sys.executable, str(PROGRAMS / "echo.py")]
FLOOD_PROGRAMS: dict[str, list[str]] = {
    "yes": ["yes"],
    "colorlog": [sys.executable, str(PROGRAMS / "colorlog.py")],
    # Not floods: moderate output, as most busy sessions print.
    "chatty": [sys.executable, str(PROGRAMS / "chatty.py")],
    "agent": [sys.executable, str(PROGRAMS / "agent.py")],
    # The same agent drawing as most do, with one-cell characters beyond ASCII.
    "agent-unicode": [sys.executable, str(PROGRAMS / "agent.py"), "--unicode"],
}
# Not a flood: busy loops that print nothing (`--programs spin`). The control that shows how much
# of a flood phase is the machine's CPUs being taken, whatever the multiplexer does.
CONTROL_PROGRAMS: dict[str, list[str]] = {"spin": ["sh", "-c", "while :; do :; done"]}
COLS, ROWS = 120, 40
# The agents draw a 120x40 screen: their termux sessions are that size (tmux's windows take the
# client's, 120x39).
SESSION_SIZE: dict[str, tuple[int, int]] = {"agent": (120, 40), "agent-unicode": (120, 40)}
ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def _ints(text: str) -> list[int]:
    return [int(n) for n in text.split(",") if n]


@dataclass
class Settings:
    keys: int = int(os.environ.get("TERMUX_BENCH_KEYS", "100"))
    floods: list[int] = field(default_factory=lambda: _ints(os.environ.get("TERMUX_BENCH_FLOODS", "4,16")))
    chatty: list[int] = field(default_factory=lambda: _ints(os.environ.get("TERMUX_BENCH_CHATTY", "16,48")))
    agents: list[int] = field(default_factory=lambda: _ints(os.environ.get("TERMUX_BENCH_AGENTS", "4,16")))
    panes: list[int] = field(default_factory=lambda: _ints(os.environ.get("TERMUX_BENCH_PANES", "4")))
    programs: list[str] = field(default_factory=lambda: list(FLOOD_PROGRAMS))
    settle: float = float(os.environ.get("TERMUX_BENCH_SETTLE", "5"))  # per key, else SATURATED
    warmup: float = 1.0  # floods run this long before the first key of their phase
    seed: int = 7
    trace: bool = False  # termux stamps each stage of each key (termux/trace.py); a breakdown follows
    compare: list[str] = field(default_factory=list)  # server arguments of a second termux column


@dataclass
class PhaseResult:
    name: str
    samples: list[float]
    keys: int
    saturated: bool = False
    diagnosis: str | None = None  # what the multiplexer said about itself at the end of the phase
    cpu: dict[str, float] = field(default_factory=dict)  # process -> share of a core while keys were typed
    cpu_seconds: dict[str, float] = field(default_factory=dict)  # process -> CPU seconds while keys were typed
    wakeups: dict[str, dict[str, int]] = field(default_factory=dict)  # process -> thread -> times it woke
    windows: list[tuple[float, float]] = field(default_factory=list)  # each key: (written, echo seen)
    programs_cpu: float | None = None  # CPUs the sessions' programs (floods, echo) took while keys were typed


@dataclass
class MuxResult:
    name: str
    phases: dict[str, PhaseResult] = field(default_factory=dict)
    error: str | None = None
    trace: Path | None = None  # the trace file its termux processes stamped


class Awaited(Protocol):
    def wait(self, timeout: float = 10.0) -> float: ...


class View(Protocol):
    """What the typist needs: a Terminal, or the echo session seen through the socket."""

    def write(self, data: bytes | str) -> None: ...

    def expect(self, what: str) -> Awaited: ...

    def wait_for(self, what: str, timeout: float = 10.0) -> float: ...


class Multiplexer(Protocol):
    name: str

    def start(self) -> View: ...

    def flood(self, argv: Sequence[str], size: tuple[int, int] | None = None) -> str: ...

    def stop_flood(self, handle: str) -> None: ...

    def pane(self, argv: Sequence[str], index: int) -> str:
        """A pane beside the focused echo pane, running `argv`, shown (the echo keeps the focus
        once `panes_shown` is called); a handle for `stop_flood`."""
        ...

    def panes_shown(self) -> None: ...

    def diagnose(self) -> str | None: ...

    def processes(self) -> dict[str, int]:
        """The multiplexer's own processes (name -> pid), whose CPU a phase reports."""
        ...

    def root_pid(self) -> int | None: ...

    def close(self) -> None: ...


class Tmux:
    """tmux on its own -L socket, no config; floods are detached windows of the same session."""

    name = "tmux"

    def __init__(self) -> None:
        self.tmux = TmuxServer()
        self.term: Terminal | None = None

    def start(self) -> Terminal:
        self.term = self.tmux.terminal(ECHO, cols=COLS, rows=ROWS)
        return self.term

    def flood(self, argv: Sequence[str], size: tuple[int, int] | None = None) -> str:
        return self.tmux.run("new-window", "-d", "-P", "-F", "#{window_id}", shlex.join(argv))

    def processes(self) -> dict[str, int]:
        assert self.term is not None, "not started"
        server, term = self.tmux.pid(), self.term.pid
        return {"server": server, "client": next((p for p in [term, *descendants(term)] if p != server), term)}

    def stop_flood(self, handle: str) -> None:
        kind = "kill-pane" if handle.startswith("%") else "kill-window"
        self.tmux.run(kind, "-t", handle)

    def pane(self, argv: Sequence[str], index: int) -> str:
        pane = self.tmux.run("split-window", "-d", "-t", "main", "-P", "-F", "#{pane_id}", shlex.join(argv))
        self.tmux.run("select-layout", "-t", "main", "tiled")  # room for the next split
        return pane

    def panes_shown(self) -> None:
        pass  # -d: the echo pane kept the focus

    def diagnose(self) -> str | None:
        return None

    def root_pid(self) -> int | None:
        return self.tmux.pid()

    def close(self) -> None:
        self.tmux.stop()


class Termux:
    """An isolated termux server; the TUI attached to the echo session; floods via `termux new -d`."""

    name = "termux"

    def __init__(
        self,
        trace: Path | None = None,
        server_args: Sequence[str] = (),
        checkout: Path | None = None,
        name: str | None = None,
    ) -> None:
        self.trace = trace  # TERMUX_TRACE for the server and the TUI
        env = {"TERMUX_TRACE": str(trace)} if trace else None
        self.server = IsolatedServer(extra_env=env, checkout=checkout)
        self.server_args = list(server_args)
        self.name = name or (f"{self.name} {' '.join(server_args)}" if server_args else self.name)
        self.floods = 0
        self.tui: Terminal | None = None

    def _termux(self, *args: str) -> str:
        done = self.server.run(*args, timeout=30)
        if done.returncode != 0:
            raise RuntimeError(f"termux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout.strip()

    def start(self) -> View:
        self.server.start(*self.server_args)
        self._termux("new", "-d", "-s", "echo", "--", *ECHO)
        self.tui = self.server.terminal("attach", "-t", "echo", cols=COLS, rows=ROWS)
        return self.tui

    def flood(self, argv: Sequence[str], size: tuple[int, int] | None = None) -> str:
        self.floods += 1
        name = f"flood{self.floods}"
        dims = ["-x", str(size[0]), "-y", str(size[1])] if size else []
        self._termux("new", "-d", "-s", name, *dims, "--", *argv)
        return name

    def processes(self) -> dict[str, int]:
        assert self.tui is not None, "not started"
        return {"server": self.server.pid, "TUI": self.tui.pid}

    def stop_flood(self, handle: str) -> None:
        self._termux("kill", "-t", handle)  # a pane's session: its pane closes with it

    def _sessions(self) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = json.loads(self._termux("ls", "--json"))
        return listed

    def pane(self, argv: Sequence[str], index: int) -> str:
        """prefix % (or ", in turn) in the TUI: a new session in a new pane, focused; the flood is
        typed into its shell through the socket, then the pane is waited for on screen."""
        assert self.tui is not None, "not started"
        before = {s["id"] for s in self._sessions()}
        self.tui.write(b"\x02" + (b"%" if index % 2 == 0 else b'"'))
        deadline = time.monotonic() + 30
        while not (new := [s for s in self._sessions() if s["id"] not in before]):
            if time.monotonic() > deadline:
                raise RuntimeError("prefix % made no session")
            time.sleep(0.05)
        name = new[0]["name"]
        mark = f"▌ {name} "  # its pane is there and focused (a predicate: the whole screen is looked at)
        self.tui.wait_for(lambda t: any(mark in line for line in t.display), timeout=30)
        self._termux("send", "-t", name, "exec " + shlex.join(argv), "Enter")
        return str(name)

    def panes_shown(self) -> None:
        """Back to the echo pane (the first: prefix o from the last), then the tiled preset (the
        fifth of prefix space)."""
        assert self.tui is not None, "not started"
        self.tui.write(b"\x02o" + b"\x02 " * 5)
        self.tui.wait_for(lambda t: "layout tiled" in t.display[-1], timeout=30)

    def diagnose(self) -> str | None:
        """The server's loop gauge (termux stats), read while the phase's floods still run."""
        done = self.server.run("stats", "--json", timeout=30)
        if done.returncode != 0:
            return None
        loop = json.loads(done.stdout).get("loop") or {}
        if not loop:
            return None
        return f"server loop {loop['utilisation']:.0%} busy, longest iteration {loop['busy_max_ms']:.0f} ms"

    def root_pid(self) -> int | None:
        return self.server.pid

    def close(self) -> None:
        self.server.stop()


class SocketView:
    """The echo session through the protocol, no TUI: a client attached to and focused on it.

    `write` sends `session.send` without waiting for its reply; `expect(text).wait()` reads lines
    until an output push of the session contains `text`, and returns when that line was read. This
    is the server's share of the keystroke path (socket in, PTY, parse, forward, socket out).
    """

    def __init__(self, path: Path, target: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.buffer = b""
        self.seen = b""  # the tail of what the session printed, where markers are looked for
        self.ids = itertools.count(1)
        self._send("client.attach", follow=[target], focus=target)
        reply = self._line(time.monotonic() + 30)
        while reply is not None and "id" not in reply:
            reply = self._line(time.monotonic() + 30)
        if reply is None or not reply.get("ok"):
            raise RuntimeError(f"client.attach failed: {reply}")
        self.session = self._id_of(reply, target)
        snapshot = reply["result"]["snapshots"].get(self.session, {}).get("data", "")
        self.seen = base64.b64decode(snapshot)
        self.target = target
        self.panes: list[str] = []  # sessions shown beside the echo (client.view)

    def show_panes(self) -> None:
        """client.view: the echo focused, the panes beside it (the reply is read with the pushes)."""
        panes = [{"target": t, "cols": COLS // 2, "rows": ROWS // 3} for t in [self.target, *self.panes]]
        self._send("client.view", focus=self.target, panes=panes)

    @staticmethod
    def _id_of(reply: dict[str, Any], target: str) -> str:
        for info in reply["result"]["sessions"]:
            if target in (info["id"], info["name"]):
                return str(info["id"])
        raise RuntimeError(f"no session {target!r}")

    def _send(self, cmd: str, **args: Any) -> None:
        self.sock.sendall(json.dumps({"id": next(self.ids), "cmd": cmd, "args": args}).encode() + b"\n")

    def _line(self, deadline: float) -> dict[str, Any] | None:
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.sock], [], [], remaining)[0]:
                return None
            data = self.sock.recv(1 << 16)
            if not data:
                raise TerminalClosed("the server closed the connection")
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def write(self, data: bytes | str) -> None:
        raw = data.encode() if isinstance(data, str) else data
        self._send("session.send", target=self.target, data=base64.b64encode(raw).decode())

    def expect(self, what: str) -> Awaited:
        view = self
        needle = what.encode()

        class Pending:
            def wait(self, timeout: float = 10.0) -> float:
                deadline = time.monotonic() + timeout
                arrived = time.monotonic()  # already there: now
                while needle not in view.seen:
                    message = view._line(deadline)
                    if message is None:
                        raise TimeoutError(f"{what!r} not printed within {timeout}s")
                    if message.get("push") == "output" and message.get("session") == view.session:
                        view.seen = (view.seen + base64.b64decode(message["data"]))[-4096:]
                        arrived = time.monotonic()
                view.seen = view.seen[view.seen.index(needle) + len(needle) :]
                return arrived

        return Pending()

    def wait_for(self, what: str, timeout: float = 10.0) -> float:
        """`what` on the session's screen now (session.capture), else in what it prints next."""
        deadline = time.monotonic() + timeout
        self._send("session.capture", target=self.target)
        while (message := self._line(deadline)) is not None:
            if message.get("push") == "output" and message.get("session") == self.session:
                self.seen = (self.seen + base64.b64decode(message["data"]))[-4096:]
            elif "id" in message:
                if any(what in line for line in message.get("result", {}).get("lines", [])):
                    return time.monotonic()
                break
        return self.expect(what).wait(max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        self.sock.close()


class TermuxSocket(Termux):
    """The same server and floods, the echo session read through the socket instead of the TUI."""

    name = "termux (socket)"

    def __init__(self, trace: Path | None = None) -> None:
        super().__init__(trace)
        self.view: SocketView | None = None

    def start(self) -> View:
        self.server.start()
        self._termux("new", "-d", "-s", "echo", "--", *ECHO)
        self._termux("wait", "-t", "echo", "--match", "echo ready", "--timeout", "60")
        self.view = SocketView(self.server.socket_path, "echo")
        return self.view

    def processes(self) -> dict[str, int]:
        return {"server": self.server.pid}

    def pane(self, argv: Sequence[str], index: int) -> str:
        """A session shown beside the echo: the view lists it with `client.view`."""
        assert self.view is not None, "not started"
        name = self.flood(argv, (COLS // 2, ROWS // 3))
        self.view.panes.append(name)
        return name

    def panes_shown(self) -> None:
        assert self.view is not None, "not started"
        self.view.show_panes()

    def stop_flood(self, handle: str) -> None:
        super().stop_flood(handle)
        if self.view is not None and handle in self.view.panes:
            self.view.panes.remove(handle)
            self.view.show_panes()

    def close(self) -> None:
        if self.view is not None:
            self.view.close()
        super().close()


class Typist:
    """Types one key at a time into the echo program and times until its echo is drawn."""

    def __init__(self, term: View, seed: int) -> None:
        self.term = term
        self.count = 0
        self.rng = random.Random(seed)
        self.windows: list[tuple[float, float]] = []  # each key echoed: (written, echo seen)

    def key(self, timeout: float) -> float | None:
        """Latency of one key in seconds, or None if its echo did not appear within `timeout`."""
        self.count += 1
        char = ALPHABET[self.count % len(ALPHABET)]
        marker = f"echo #{self.count} {char}"  # the space after N: #1 never matches #12
        echo = self.term.expect(marker)  # registered first: the reader checks it from the first chunk
        sent = time.monotonic()
        self.term.write(char.encode())
        try:
            seen = echo.wait(timeout)
        except TimeoutError:
            return None
        self.windows.append((sent, seen))
        return seen - sent

    def pause(self) -> None:
        # Human-like gaps, randomised so keys do not phase-lock with a renderer's frame timer.
        time.sleep(self.rng.uniform(0.005, 0.025))


def run_phase(mux: Multiplexer, typist: Typist, phase: Phase, cfg: Settings) -> PhaseResult:
    if phase.panes and phase.argv:
        handles = [mux.pane(phase.argv, n) for n in range(phase.count)]
        mux.panes_shown()
    else:
        handles = [mux.flood(phase.argv, phase.size) for _ in range(phase.count)] if phase.argv else []
    result = PhaseResult(phase.name, [], cfg.keys)
    try:
        if handles:
            time.sleep(cfg.warmup)
        pids = mux.processes()
        cpu_before = {name: cpu_ns(pid) for name, pid in pids.items()}
        wakes_before = {name: thread_wakeups(pid) for name, pid in pids.items()}
        root = mux.root_pid()
        began, programs_before = time.monotonic(), programs_cpu(root)
        for _ in range(cfg.keys):
            typist.pause()
            latency = typist.key(cfg.settle)
            if latency is None:
                result.saturated = True
                break
            result.samples.append(latency)
            result.windows.append(typist.windows[-1])
        elapsed = time.monotonic() - began
        result.cpu_seconds = {name: (cpu_ns(pid) - cpu_before[name]) / 1e9 for name, pid in pids.items()}
        result.cpu = {name: seconds / elapsed for name, seconds in result.cpu_seconds.items()}
        for name, pid in pids.items():
            before, after = wakes_before[name], thread_wakeups(pid)
            result.wakeups[name] = {t: n - before.get(t, 0) for t, n in after.items() if n > before.get(t, 0)}
        result.programs_cpu = (programs_cpu(root) - programs_before) / elapsed
        result.diagnosis = mux.diagnose()
    finally:
        for handle in handles:
            mux.stop_flood(handle)
    # Recovered before the next phase: the echo answers again once the floods are gone.
    typist.key(60.0)
    return result


def programs_cpu(root: int | None) -> float:
    """CPU seconds used so far by every live process under `root` (the multiplexer's sessions)."""
    total = 0.0
    for pid in descendants(root) if root is not None else []:
        try:
            total += usage(pid).cpu
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended while we looked
    return total


@dataclass(frozen=True)
class Phase:
    name: str
    argv: list[str] | None  # what each background session runs (None: idle)
    count: int
    size: tuple[int, int] | None = None  # termux's session size, when not the default
    panes: bool = False  # shown in panes beside the focused echo, not hidden sessions


def phases(cfg: Settings) -> list[Phase]:
    out = [Phase("idle", None, 0)]
    for program in cfg.programs:
        argv = FLOOD_PROGRAMS.get(program) or CONTROL_PROGRAMS[program]
        counts = {"chatty": cfg.chatty, "agent": cfg.agents, "agent-unicode": cfg.agents}.get(program, cfg.floods)
        out += [Phase(f"{n}× {program}", argv, n, SESSION_SIZE.get(program)) for n in counts]
    out += [Phase(f"{n}× yes in panes", FLOOD_PROGRAMS["yes"], n, panes=True) for n in cfg.panes]
    return out


def measure(mux: Multiplexer, cfg: Settings) -> MuxResult:
    result = MuxResult(mux.name, trace=getattr(mux, "trace", None))
    try:
        term = mux.start()
        term.wait_for("echo ready", timeout=60)
        typist = Typist(term, cfg.seed)
        if typist.key(60.0) is None:  # first key: start-up and first paint are not measured
            raise RuntimeError("the first key was never echoed")
        for phase in phases(cfg):
            result.phases[phase.name] = run_phase(mux, typist, phase, cfg)
    except (RuntimeError, TimeoutError, TerminalClosed, OSError, subprocess.TimeoutExpired) as exc:
        result.error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    finally:
        mux.close()
    return result


def render(results: Sequence[MuxResult], cfg: Settings) -> str:
    header = ["phase"]
    for r in results:
        header += [f"{r.name} p50", "p95", "p99", "max", "×idle", "CPU %"]
    rows = []
    for name in (p.name for p in phases(cfg)):
        row = [name]
        for r in results:
            phase = r.phases.get(name)
            idle = r.phases.get("idle")
            if phase is None:
                row += ["n/a"] * 6
            elif phase.saturated or not phase.samples:
                row += [f"SATURATED ({len(phase.samples)}/{phase.keys})", "", "", "", "", _cpu(phase)]
            else:
                s = summary(phase.samples)
                base = summary(idle.samples)["p50"] if idle and idle.samples and not idle.saturated else None
                ratio = f"{s['p50'] / base:.1f}×" if base else "n/a"
                row += [ms(s["p50"]), ms(s["p95"]), ms(s["p99"]), ms(s["max"]), ratio, _cpu(phase)]
        rows.append(row)
    notes = [
        f"keystroke to screen, ms; {cfg.keys} keys per phase, one at a time; {COLS}x{ROWS} outer terminal;"
        f" a key not echoed within {cfg.settle:g} s ends its phase as SATURATED (keys echoed/keys).",
        "CPU %: the multiplexer's own processes while the phase's keys were typed, in % of one core, in all"
        " (server+TUI for termux, server only for termux (socket), server+client for tmux).",
    ]
    notes += [f"{r.name}: not measured: {r.error}" for r in results if r.error]
    for r in results:
        diagnoses = [f"{name}: {p.diagnosis}" for name, p in r.phases.items() if p.diagnosis]
        if diagnoses:
            notes.append(f"{r.name} at the end of each phase: " + "; ".join(diagnoses) + ".")
    for r in results:
        taken = [f"{name} {p.programs_cpu:.2f}" for name, p in r.phases.items() if p.programs_cpu is not None]
        if taken:
            notes.append(f"{r.name}: CPUs its sessions' programs took while keys were typed: " + ", ".join(taken) + ".")
    notes += [line for r in results if (line := _per_key(r))]
    out = markdown_table(header, rows) + "\n\n" + "\n".join(notes) + "\n"
    if cfg.trace:
        out += render_stages(results)
    return out


def render_stages(results: Sequence[MuxResult]) -> str:
    """Per termux run that traced: where each key's time went, stage by stage (benchmarks/stages.py)."""
    from benchmarks.stages import read_stamps, stage_table

    out = ""
    for r in results:
        if r.trace is None or not r.trace.exists():
            continue
        phases = {name: p.windows for name, p in r.phases.items() if p.windows}
        out += f"\n### {r.name}: where a keystroke's time goes (ms)\n\n"
        out += stage_table(phases, read_stamps(r.trace)) + "\n"
    return out


def _per_key(r: MuxResult) -> str:
    """What one keystroke cost the multiplexer's processes, per phase: CPU milliseconds (in the
    idle phase that is all the keys' own) and the times each of its threads was woken."""
    parts = []
    for name, p in r.phases.items():
        keys = len(p.samples)
        if not keys or not p.cpu_seconds:
            continue
        cpu = " + ".join(f"{proc} {s * 1e3 / keys:.2f}" for proc, s in p.cpu_seconds.items())
        woken = "; ".join(
            f"{proc} " + ", ".join(f"{thread} {n / keys:.1f}" for thread, n in sorted(threads.items()))
            for proc, threads in p.wakeups.items()
            if threads
        )
        parts.append(f"{name}: CPU ms {cpu}; wake-ups {woken or 'none'}")
    return f"{r.name}, per key: " + " | ".join(parts) + "." if parts else ""


def _cpu(phase: PhaseResult) -> str:
    if not phase.cpu:
        return "n/a"
    shares = list(phase.cpu.values())
    total = f"{sum(shares) * 100:.0f}"
    return total if len(shares) == 1 else f"{total} ({'+'.join(f'{s * 100:.0f}' for s in shares)})"


def run(
    cfg: Settings, only: Sequence[str] = ("termux", "termux (socket)", "tmux"), baseline: str | None = None
) -> tuple[list[MuxResult], str]:
    """Every multiplexer in `only`, one after another; with `baseline` (a git revision) first the
    TUI of termux at that revision, as "termux REV"."""
    traces = Path(tempfile.mkdtemp(prefix="termux-trace-")) if cfg.trace else None
    muxes: list[Multiplexer] = [
        m
        for m in (
            Termux(traces / "tui" if traces else None),
            TermuxSocket(traces / "socket" if traces else None),
            Tmux(),
        )
        if m.name in only
    ]
    if cfg.compare:  # a second termux column: the same, with other server arguments
        muxes.insert(1, Termux(traces / "compare" if traces else None, cfg.compare))
    try:
        with baseline_checkout(baseline) as checkout:
            if checkout is not None:
                muxes.insert(0, Termux(checkout=checkout, name=f"termux {baseline}"))
            results = [measure(m, cfg) for m in muxes]
        return results, render(results, cfg)
    finally:
        if traces is not None:
            shutil.rmtree(traces, ignore_errors=True)


@pytest.mark.bench
@pytest.mark.timeout(3600)
def test_keystroke_latency(capsys: pytest.CaptureFixture[str]) -> None:
    results, table = run(Settings())
    with capsys.disabled():
        print("\n\n## Keystroke-to-screen latency\n\n" + table)
    if out := os.environ.get("TERMUX_BENCH_OUT"):
        Path(out).write_text(table)
    tmux = next(r for r in results if r.name == "tmux")
    assert tmux.error is None, tmux.error  # the harness itself works; termux figures are reported
    assert tmux.phases["idle"].samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--keys", type=int, default=Settings.keys, help="keys per phase")
    parser.add_argument("--floods", default="4,16", help="flood (and spin) session counts, comma-separated")
    parser.add_argument("--chatty", default="16,48", help="chatty session counts, comma-separated")
    parser.add_argument("--agents", default="4,16", help="agent session counts, comma-separated")
    parser.add_argument("--panes", default="4", help="visible panes flooding beside the echo, comma-separated")
    parser.add_argument(
        "--programs",
        default=",".join(FLOOD_PROGRAMS),
        help=f"background programs, of {', '.join([*FLOOD_PROGRAMS, *CONTROL_PROGRAMS])}"
        " (spin prints nothing: a control)",
    )
    parser.add_argument(
        "--only", default="termux,termux (socket),tmux", help="what to measure: termux, termux (socket), tmux"
    )
    parser.add_argument("--settle", type=float, default=Settings.settle, help="seconds a key may take")
    parser.add_argument("--baseline", metavar="REV", help="also measure termux's TUI at this git revision")
    parser.add_argument("--trace", action="store_true", help="termux stamps each stage: a breakdown by stage")
    parser.add_argument(
        "--compare", default="", metavar="ARGS", help="a second termux column whose server gets ARGS (shell words)"
    )
    args = parser.parse_args(argv)
    unknown = [p for p in args.programs.split(",") if p and p not in {**FLOOD_PROGRAMS, **CONTROL_PROGRAMS}]
    if unknown:
        parser.error(f"unknown program {unknown[0]!r}")
    cfg = Settings(
        keys=args.keys,
        floods=_ints(args.floods),
        chatty=_ints(args.chatty),
        agents=_ints(args.agents),
        panes=_ints(args.panes),
        programs=[p for p in args.programs.split(",") if p],
        settle=args.settle,
        trace=args.trace,
        compare=shlex.split(args.compare),
    )
    _, table = run(cfg, only=args.only.split(","), baseline=args.baseline)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
