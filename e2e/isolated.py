"""An isolated termux server for e2e tests and benchmarks: its own short socket directory, its own env.

termux always runs as `[sys.executable, "-m", "termux", ...]` with PYTHONPATH set to the repository
root, so the code under test is this checkout's, never an installed console script (a benchmark's
`--baseline REV` runs another one beside it: `checkout`). Used by `e2e/conftest.py` (fixtures) and
by the harnesses in `benchmarks/` (context manager).
"""

from __future__ import annotations

import itertools
import json
import os
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from e2e.terminal import Terminal

REPO_ROOT = Path(__file__).resolve().parent.parent
TERMUX = [sys.executable, "-m", "termux"]


def make_socket_dir() -> Path:
    """A short private directory under /tmp (Unix socket paths are limited to ~107 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="tx-", dir="/tmp"))
    path.chmod(0o700)
    return path


def termux_env(socket_dir: Path, base: Mapping[str, str] | None = None, checkout: Path = REPO_ROOT) -> dict[str, str]:
    """os.environ (or `base`) with TERMUX_SOCKET_DIR pointing at `socket_dir` and `checkout` (this
    repo unless told) importable."""
    env = dict(os.environ if base is None else base)
    env["TERMUX_SOCKET_DIR"] = str(socket_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(checkout), *filter(None, [env.get("PYTHONPATH")])])
    # Inside a termux or tmux session these would point the CLI at that session's server.
    for inherited in ("TERMUX", "TMUX", "XDG_RUNTIME_DIR"):
        env.pop(inherited, None)
    env.setdefault("TERM", "xterm-256color")
    # Sessions run $SHELL: the user's shell reads the user's rc files (version managers that rehash
    # under a lock, prompts that run programs), which makes tests depend on this machine's setup.
    # Tests that need bash start it themselves.
    env["SHELL"] = "/bin/sh"
    return env


def default_socket_path(socket_dir: Path) -> Path:
    """Where the server in `socket_dir` listens when no -L/-S is given."""
    from termux.paths import DEFAULT_NAME

    return socket_dir / DEFAULT_NAME


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (read from /proc), children before grandchildren."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    frontier = [pid]
    while frontier:
        nxt = [c for p in frontier for c in children.get(p, [])]
        out.extend(nxt)
        frontier = nxt
    return out


def on_terminal(pid: int) -> list[int]:
    """Every process other than `pid` whose standard input is `pid`'s terminal (a TUI host's child
    drawing on the terminal of the `termux` that was started, say)."""
    tty = os.readlink(f"/proc/{pid}/fd/0")
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != pid:
            try:
                if os.readlink(f"/proc/{entry}/fd/0") == tty:
                    found.append(int(entry))
            except OSError:
                continue
    return found


def kill_pids(pids: Sequence[int], sig: int = signal.SIGKILL) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


class IsolatedServer:
    """`termux server` in the foreground, in a private socket directory; `stop()` cleans up everything."""

    def __init__(
        self,
        socket_dir: Path | None = None,
        extra_env: Mapping[str, str] | None = None,
        checkout: Path | None = None,
    ) -> None:
        self.socket_dir = socket_dir or make_socket_dir()
        self._own_dir = socket_dir is None
        self.checkout = checkout or REPO_ROOT  # whose termux runs (server, CLI and TUI)
        self.env = termux_env(self.socket_dir, checkout=self.checkout)
        self.env.update(extra_env or {})
        self.socket_path = default_socket_path(self.socket_dir)
        self.log_path = self.socket_dir / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._terminals: list[Terminal] = []

    @property
    def pid(self) -> int:
        assert self.proc is not None, "server not started"
        return self.proc.pid

    def start(
        self, *server_args: str, timeout: float = 30.0, nofile: tuple[int, int] | None = None
    ) -> IsolatedServer:
        """Start the server and block until it says it is listening (on --ready-fd, no polling).
        `nofile`: the RLIMIT_NOFILE (soft, hard) the server process starts with."""
        limit = None if nofile is None else lambda: resource.setrlimit(resource.RLIMIT_NOFILE, nofile)
        ready_r, ready_w = os.pipe()
        try:
            try:
                with open(self.log_path, "wb") as log:
                    self.proc = subprocess.Popen(
                        [*TERMUX, "server", "--ready-fd", str(ready_w), *server_args],
                        env=self.env,
                        cwd=str(self.checkout),
                        pass_fds=(ready_w,),
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                        preexec_fn=limit,
                    )
            finally:
                os.close(ready_w)
            readable, _, _ = select.select([ready_r], [], [], timeout)
            said = os.read(ready_r, 16) if readable else b""
        finally:
            os.close(ready_r)
        if not said.startswith(b"ready"):
            log_text = self.server_log()
            self.stop()
            raise RuntimeError(f"termux server did not start:\n{log_text}")
        return self

    def run(
        self, *args: str, input: str | bytes | None = None, timeout: float = 60.0, check: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """`termux ARGS...` against this server; text output."""
        data = input.decode() if isinstance(input, bytes) else input
        return subprocess.run(
            [*TERMUX, *args],
            env=self.env,
            cwd=str(self.checkout),
            input=data,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )

    def captured_lines(self, target: str, *args: str) -> list[str]:
        """`capture --json` of `target` from 100 lines back (more ARGS after), its lines with the
        trailing empty ones dropped; fails the test if the CLI does."""
        result = self.run("capture", "-t", target, "-S", "-100", "--json", *args)
        assert result.returncode == 0, result.stderr
        lines: list[str] = json.loads(result.stdout)["lines"]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    def terminal(self, *args: str, cols: int = 100, rows: int = 30) -> Terminal:
        """`termux ARGS...` (the TUI when no args) in a real PTY; closed by `stop()`."""
        term = Terminal([*TERMUX, *args], cols=cols, rows=rows, env=self.env, cwd=self.checkout)
        self._terminals.append(term)
        return term

    def server_log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self, timeout: float = 5.0) -> None:
        """Close every terminal, end the server (SIGTERM, then SIGKILL) and everything it started."""
        for term in self._terminals:
            term.close()
        self._terminals.clear()
        if self.proc is not None:
            tree = descendants(self.proc.pid)
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            # Sessions lead their own process groups; anything the server failed to end goes now.
            kill_pids(tree)
            self.proc = None
        if self._own_dir:
            shutil.rmtree(self.socket_dir, ignore_errors=True)

    def __enter__(self) -> IsolatedServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class TmuxServer:
    """tmux on its own -L socket with no config file, for running the same workloads beside termux."""

    def __init__(self, *options: str) -> None:
        self.socket = f"termux-bench-{os.getpid()}-{next(_tmux_ids)}"
        self.env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TERMUX")}
        self.env.setdefault("TERM", "xterm-256color")
        self.options = options  # tmux commands run at start, e.g. ("set", "-g", "history-limit", "10000")
        self._terminals: list[Terminal] = []

    def argv(self, *args: str) -> list[str]:
        return ["tmux", "-L", self.socket, "-f", "/dev/null", *args]

    def run(self, *args: str, timeout: float = 600.0) -> str:
        """A tmux command; raises with tmux's message when it fails."""
        done = subprocess.run(self.argv(*args), env=self.env, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout.strip()

    def terminal(self, command: Sequence[str], *, cols: int = 80, rows: int = 24, emulate: bool = True) -> Terminal:
        """A tmux client in a real PTY running `command` in a new session (options applied first)."""
        setup: list[str] = []
        for option in self._option_commands():
            setup += [*option, ";"]
        argv = self.argv(*setup, "new-session", "-s", "main", shlex.join(command))
        term = Terminal(argv, cols=cols, rows=rows, env=self.env, emulate=emulate)
        self._terminals.append(term)
        return term

    def start_detached(self, command: Sequence[str], *, cols: int = 80, rows: int = 24) -> None:
        """A tmux server with a detached session running `command` (no client)."""
        setup: list[str] = []
        for option in self._option_commands():
            setup += [*option, ";"]
        size = ["-x", str(cols), "-y", str(rows)]
        self.run(*setup, "new-session", "-d", "-s", "main", *size, shlex.join(command))

    def _option_commands(self) -> list[list[str]]:
        # "start-server" first so `set -g` has a server to act on.
        return [["start-server"], *([list(self.options)] if self.options else [])]

    def pid(self) -> int:
        return int(self.run("display-message", "-p", "#{pid}"))

    def stop(self) -> None:
        for term in self._terminals:
            term.close()
        self._terminals.clear()
        subprocess.run(self.argv("kill-server"), env=self.env, capture_output=True, timeout=30)


_tmux_ids = itertools.count()
