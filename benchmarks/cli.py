"""One-shot CLI calls and warm-connection requests: termux and tmux side by side.

    python -m benchmarks.cli                      # 40 runs of each command, 2,000 warm requests
    python -m benchmarks.cli --runs 10            # quicker
    python -m benchmarks.cli --importtime         # also: termux ls's slowest imports (best of 10)
    python -m benchmarks.cli --baseline /tmp/old  # also the CLI of another checkout, same server
    python -m benchmarks.cli --installed          # also termux as `pip install .` lays it out

Set-up: an isolated termux server and a tmux server (its own -L socket, no config), each with one
session `s` running `cat` that has printed a few lines. Then:

- One-shot: each command is spawned `--runs` times, the commands taking turns (so the machine's
  noise falls on all of them alike), timed from spawn to exit. `python -c pass` is the
  interpreter's own start-up, the floor under any Python CLI in this environment (site-packages,
  with an editable install's import hook when installed with `pip install -e`); `python -S -c
  pass` is the interpreter without site-packages at all.
- Warm: one connection, `--requests` requests one after another, each timed from write to reply:
  termux's Python `Client.request` (`session.list`, `session.capture`, `session.send`) and tmux in
  control mode (`tmux -C`: `list-sessions`, `capture-pane -p`, `send-keys`, reply to `%end`).

With `--installed`, termux is also run as a normal (not editable) install has it: a fresh venv
(`python -m venv --without-pip`) with this checkout's `termux/` copied into its site-packages and
the `termux` console script pip writes, run from outside the checkout (`installed termux ...`,
beside that venv's own `installed python -c pass`). The one-shot verbs need nothing but termux
itself, so the venv holds no other package: what an editable install adds to every start (its
import hook, loaded by site) is the difference between the two `python -c pass` rows.

Children run with bytecode caching on (in a private cache directory), as an installed termux runs:
pip compiles at install, while this environment may set PYTHONDONTWRITEBYTECODE.
"""

from __future__ import annotations

import argparse
import os
import resource
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import markdown_table, ms, summary, with_bytecode
from e2e.isolated import REPO_ROOT, TERMUX, IsolatedServer, TmuxServer

SESSION_COMMAND = ["sh", "-c", "printf 'cli-bench\\n'; ls -la /usr/bin | head -n 10; exec cat"]


@dataclass(frozen=True)
class Command:
    argv: list[str]
    env: dict[str, str]
    cwd: Path = REPO_ROOT  # `python -m` imports from the working directory first


def spawn_time(command: Command) -> tuple[float, float]:
    """Seconds from spawning the command to its exit, and the CPU seconds it used (user + system,
    from the children's rusage); raises with its stderr when it fails."""
    argv = command.argv
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=command.env, cwd=command.cwd, stdin=subprocess.DEVNULL, capture_output=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode().strip()}")
    return elapsed, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


# What pip writes for a console script (`[project.scripts] termux = "termux.__main__:entry"`).
CONSOLE_SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from termux.__main__ import entry
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(entry())
"""


def installed(checkout: Path, where: Path, packages: Path | None = None) -> Path:
    """A venv at `where` holding `checkout`'s termux as a normal install does; its bin directory.
    With `packages` (a site-packages directory), the packages there are importable too, as a
    normal install's dependencies are (a path in a .pth file: no .pth of that directory runs, so
    an editable install's import hook there is not loaded)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    (site_packages,) = where.glob("lib/python*/site-packages")
    shutil.copytree(checkout / "termux", site_packages / "termux", ignore=shutil.ignore_patterns("__pycache__"))
    if packages is not None:
        (site_packages / "dependencies.pth").write_text(f"{packages}\n")
    script = where / "bin" / "termux"
    script.write_text(CONSOLE_SCRIPT.format(python=where / "bin" / "python"))
    script.chmod(0o755)
    return where / "bin"


def one_shot(commands: dict[str, Command], runs: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each command's wall times and CPU times, `runs` of each."""
    for command in commands.values():
        spawn_time(command)  # warm-up: caches written, pages in
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            elapsed, cpu = spawn_time(command)
            times[name].append(elapsed)
            cpus[name].append(cpu)
    return times, cpus


def timed(request: Callable[[], object], count: int) -> list[float]:
    out = []
    for _ in range(count):
        start = time.perf_counter()
        request()
        out.append(time.perf_counter() - start)
    return out


class TmuxControl:
    """A tmux control-mode client on pipes: one command in, its %begin … %end block out."""

    def __init__(self, tmux: TmuxServer) -> None:
        self.proc = subprocess.Popen(
            tmux.argv("-C", "attach", "-t", "main"),
            env=tmux.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.buffer = b""
        self._block()  # the attach's own reply

    def _block(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            for line in self.buffer.split(b"\n")[:-1]:
                if line.startswith((b"%end", b"%error")):
                    self.buffer = self.buffer[self.buffer.index(line) + len(line) + 1 :]
                    return
            if not select.select([fd], [], [], 30)[0]:
                raise TimeoutError("tmux -C did not answer")
            data = os.read(fd, 1 << 16)
            if not data:
                raise RuntimeError("tmux -C exited")
            self.buffer += data

    def command(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        self._block()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def import_profile(env: dict[str, str], tries: int = 10, top: int = 15) -> str:
    """`termux ls`'s imports by cumulative time (best of `tries`), the slowest `top` of them."""
    best: dict[str, int] = {}
    for _ in range(tries):
        argv = [sys.executable, "-X", "importtime", *TERMUX[1:], "ls"]
        err = subprocess.run(argv, env=env, cwd=REPO_ROOT, capture_output=True)
        for line in err.stderr.decode().splitlines()[1:]:
            parts = line.split("|")
            if len(parts) == 3 and parts[1].strip().isdigit():
                name = parts[2].rstrip()
                best[name] = min(best.get(name, 1 << 60), int(parts[1]))
    rows = sorted(best.items(), key=lambda item: -item[1])[:top]
    header = ["module (indented: imported by a module above)", "cumulative ms"]
    return markdown_table(header, [[name, f"{us / 1000:.1f}"] for name, us in rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="one-shot CLI start-up and warm requests, termux and tmux")
    parser.add_argument("--runs", type=int, default=40, help="spawns of each one-shot command")
    parser.add_argument("--requests", type=int, default=2000, help="warm requests of each kind")
    parser.add_argument("--skip-tmux", action="store_true")
    parser.add_argument("--importtime", action="store_true", help="print termux ls's slowest imports")
    parser.add_argument("--baseline", type=Path, help="a checkout whose CLI runs beside (before/after in one run)")
    parser.add_argument("--installed", action="store_true", help="also termux as a normal install lays it out")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="termux-cli-bench-"))

    server = IsolatedServer().start()
    tmux = None if args.skip_tmux else TmuxServer()
    control: TmuxControl | None = None
    try:
        env = with_bytecode(server.env)
        server.run("new", "-d", "-s", "s", "--", *SESSION_COMMAND, check=True)
        server.run("wait", "-t", "s", "--match", "cli-bench", "--timeout", "30", check=True)
        verbs = {"ls": ["ls"], "send -t s x": ["send", "-t", "s", "x"], "capture -t s": ["capture", "-t", "s"]}
        commands = {
            "python -S -c pass": Command([sys.executable, "-S", "-c", "pass"], env),
            "python -c pass": Command([sys.executable, "-c", "pass"], env),
        }
        commands |= {f"termux {name}": Command([*TERMUX, *verb], env) for name, verb in verbs.items()}
        if args.baseline is not None:
            old = args.baseline.resolve()
            old_env = env | {"PYTHONPATH": str(old)}
            commands |= {f"baseline {name}": Command([*TERMUX, *verb], old_env, old) for name, verb in verbs.items()}
        if args.installed:
            bin_dir = installed(REPO_ROOT, scratch / "venv")
            plain = {k: v for k, v in env.items() if k != "PYTHONPATH"}
            commands["installed python -c pass"] = Command([str(bin_dir / "python"), "-c", "pass"], plain, scratch)
            commands |= {
                f"installed termux {name}": Command([str(bin_dir / "termux"), *verb], plain, scratch)
                for name, verb in verbs.items()
            }
        if tmux is not None:
            tmux.start_detached(SESSION_COMMAND)
            commands |= {
                "tmux ls": Command(tmux.argv("ls"), tmux.env),
                "tmux send-keys -t main x": Command(tmux.argv("send-keys", "-t", "main", "x"), tmux.env),
                "tmux capture-pane -p -t main": Command(tmux.argv("capture-pane", "-p", "-t", "main"), tmux.env),
            }
        times, cpus = one_shot(commands, args.runs)

        from termux.client import Client

        warm: dict[str, list[float]] = {}
        with Client.connect(server.socket_path, autostart=False) as client:
            warm["termux session.list"] = timed(lambda: client.request("session.list"), args.requests)
            warm["termux session.capture"] = timed(lambda: client.request("session.capture", target="s"), args.requests)
            warm["termux session.send"] = timed(
                lambda: client.request("session.send", target="s", keys=["x"]), args.requests
            )
        if tmux is not None:
            control = TmuxControl(tmux)
            warm["tmux -C list-sessions"] = timed(lambda: control.command("list-sessions"), args.requests)
            warm["tmux -C capture-pane -p"] = timed(lambda: control.command("capture-pane -p -t main"), args.requests)
            warm["tmux -C send-keys"] = timed(lambda: control.command("send-keys -t main x"), args.requests)
        profile = import_profile(env) if args.importtime else ""
    finally:
        if control is not None:
            control.close()
        if tmux is not None:
            tmux.stop()
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)

    floors = {prefix: statistics.median(times[f"{prefix}python -c pass"]) for prefix in ("", "installed ")
              if f"{prefix}python -c pass" in times}  # fmt: skip
    print("## One-shot CLI\n")
    rows = []
    for name, samples in times.items():
        s = summary(samples)
        floor = floors["installed " if name.startswith("installed") else ""]
        over = "" if "python" in name or name.startswith("tmux") else ms(s["p50"] - floor)  # termux, baseline
        rows.append([name, ms(s["p50"]), ms(s["p95"]), ms(min(samples)), over, ms(statistics.median(cpus[name]))])
    header = ["command", "p50 ms", "p95 ms", "min ms", "p50 over its python -c pass", "CPU p50 ms"]
    print(markdown_table(header, rows))
    print(
        f"\n{args.runs} spawns each, commands taking turns; spawn to exit. CPU: user + system time of the"
        " process (and any it waited for), which a loaded machine inflates less than the wall time.\n"
    )
    print("## Warm connection\n")
    rows = [[name, ms(summary(s)["p50"]), ms(summary(s)["p99"])] for name, s in warm.items()]
    print(markdown_table(["request", "p50 ms", "p99 ms"], rows))
    print(f"\n{args.requests} requests each on one connection, one at a time; write to reply.")
    if profile:
        print("\n## termux ls imports\n\n" + profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
