"""Fixtures for e2e tests: an isolated real server, the termux CLI against it, the TUI in a real PTY.

- `socket_dir`: a short private socket directory under /tmp (mode 0700), removed afterwards.
- `termux_env`: os.environ + TERMUX_SOCKET_DIR (that directory) + PYTHONPATH (this repo); also set in
  this process's environment, so in-process clients find the isolated server.
- `server`: a real `python -m termux server` listening there; yields the IsolatedServer (`.socket_path`,
  `.pid`, `.run(...)`, `.terminal(...)`); kills it and everything it started afterwards.
- `run_termux(*args, input=None)`: `python -m termux ARGS` against that server -> CompletedProcess.
- `tui(*args, cols=100, rows=30)`: `python -m termux ARGS` (the TUI) in a Terminal, closed afterwards.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from e2e.isolated import IsolatedServer, make_socket_dir
from e2e.isolated import termux_env as _termux_env
from e2e.terminal import Terminal


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    path = make_socket_dir()
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def termux_env(socket_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    env = _termux_env(socket_dir)
    monkeypatch.setenv("TERMUX_SOCKET_DIR", env["TERMUX_SOCKET_DIR"])
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    monkeypatch.delenv("TMUX", raising=False)
    return env


@pytest.fixture
def server(socket_dir: Path, termux_env: dict[str, str]) -> Iterator[IsolatedServer]:
    srv = IsolatedServer(socket_dir)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def run_termux(server: IsolatedServer) -> Callable[..., subprocess.CompletedProcess[str]]:
    def run(*args: str, input: str | bytes | None = None, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        return server.run(*args, input=input, timeout=timeout)

    return run


@pytest.fixture
def tui(server: IsolatedServer) -> Callable[..., Terminal]:
    def start(*args: str, cols: int = 100, rows: int = 30) -> Terminal:
        return server.terminal(*args, cols=cols, rows=rows)

    return start
