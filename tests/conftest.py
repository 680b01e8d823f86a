"""Fixtures for tests that run a real server on a real Unix socket with real PTYs."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.isolated import TERMUX, IsolatedServer, make_socket_dir
from e2e.isolated import termux_env as isolated_env
from termux.client import Client


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    """A short private directory (Unix socket paths are limited to about 100 bytes)."""
    path = make_socket_dir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def termux_env(socket_dir: Path) -> dict[str, str]:
    env = isolated_env(socket_dir)
    env["SHELL"] = "/bin/sh"
    return env


class RunningServer(IsolatedServer):
    """The e2e harness's isolated server, with the names these tests use."""

    @property
    def path(self) -> Path:
        return self.socket_path

    @property
    def process(self) -> subprocess.Popen[bytes]:
        assert self.proc is not None, "server not started"
        return self.proc

    def client(self) -> Client:
        return Client.connect(self.socket_path, autostart=False)


def run_cli(env: dict[str, str], *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """`termux ARGS` with `env`, whether or not a server runs (some verbs start one)."""
    completed = subprocess.run([*TERMUX, *args], env=env, input=input, capture_output=True, timeout=60, check=False)
    return subprocess.CompletedProcess(
        completed.args, completed.returncode, completed.stdout.decode(errors="replace"),
        completed.stderr.decode(errors="replace"),
    )  # fmt: skip


@pytest.fixture
def server(termux_env: dict[str, str], socket_dir: Path) -> Iterator[RunningServer]:
    running = RunningServer(socket_dir, extra_env={"SHELL": "/bin/sh"})
    running.start()
    yield running
    running.stop()


@pytest.fixture
def run_termux(termux_env: dict[str, str]):  # type: ignore[no-untyped-def]
    def run(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess[str]:
        return run_cli(termux_env, *args, input=input)

    return run


def wait_for_screen(path: Path, target: str, text: str, timeout: float = 20.0) -> list[str]:
    """Wait until `text` is on the session's screen; woken by pushed output, never by polling."""
    import time

    with Client.connect(path, autostart=False) as watcher:
        watcher.request("client.attach", follow=[target])
        deadline = time.monotonic() + timeout
        while True:
            lines: list[str] = watcher.request("session.capture", target=target)["lines"]
            if any(text in line for line in lines):
                return lines
            remaining = deadline - time.monotonic()
            if remaining <= 0 or watcher.next_push(remaining) is None:
                raise AssertionError(f"{text!r} never appeared; the screen shows:\n" + "\n".join(lines))
