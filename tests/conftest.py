"""Fixtures for tests that run a real server on a real Unix socket with real PTYs."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from termux.client import Client

REPO = Path(__file__).resolve().parent.parent
TERMUX = [sys.executable, "-m", "termux"]


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    """A short private directory (Unix socket paths are limited to about 100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="tx-", dir="/tmp"))
    path.chmod(0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def termux_env(socket_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TERMUX", "XDG_RUNTIME_DIR")}
    env["TERMUX_SOCKET_DIR"] = str(socket_dir)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["SHELL"] = "/bin/sh"
    return env


@dataclass
class RunningServer:
    path: Path
    process: subprocess.Popen[bytes]
    env: dict[str, str]

    def client(self) -> Client:
        return Client.connect(self.path, autostart=False)

    def run(self, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[str]:
        return run_cli(self.env, "-S", str(self.path), *args, input=input)


def run_cli(env: dict[str, str], *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run([*TERMUX, *args], env=env, input=input, capture_output=True, timeout=60, check=False)
    return subprocess.CompletedProcess(
        completed.args, completed.returncode, completed.stdout.decode(errors="replace"),
        completed.stderr.decode(errors="replace"),
    )  # fmt: skip


def start_server(env: dict[str, str], path: Path, *extra: str) -> subprocess.Popen[bytes]:
    """A foreground server; returns once its socket accepts connections (it says so on a pipe)."""
    ready_r, ready_w = os.pipe()
    process = subprocess.Popen(
        [*TERMUX, "-S", str(path), "server", "--ready-fd", str(ready_w), *extra],
        env=env,
        pass_fds=(ready_w,),
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(ready_w)
    readable, _, _ = select.select([ready_r], [], [], 30)
    said = os.read(ready_r, 16) if readable else b""
    os.close(ready_r)
    if not said.startswith(b"ready"):
        process.kill()
        _, err = process.communicate()
        raise RuntimeError(f"server did not start: {err.decode(errors='replace')}")
    return process


def stop_server(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stderr is not None:
        process.stderr.close()


@pytest.fixture
def server(termux_env: dict[str, str], socket_dir: Path) -> Iterator[RunningServer]:
    path = socket_dir / "default"
    process = start_server(termux_env, path)
    yield RunningServer(path, process, termux_env)
    stop_server(process)


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
