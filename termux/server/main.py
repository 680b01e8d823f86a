"""Starting the server: in the foreground (`termux server`) or as a daemon for an auto-start."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

from termux.defaults import HISTORY, OWN_NICE
from termux.heap import freeze_startup_objects
from termux.paths import log_path, open_side_file
from termux.server import gauge
from termux.server.priority import raise_own_priority
from termux.server.server import Server, ServerError


def run(
    socket_path: Path,
    *,
    daemon: bool = False,
    ready_fd: int | None = None,
    history: int = HISTORY,
    own_nice: int = OWN_NICE,
    **options: Any,
) -> int:
    """Run a server on `socket_path` until it is told to stop. Returns the exit status.

    With `daemon`, the process double-forks so that it is adopted by init (no zombie for the
    client that started it) and logs to a file beside the socket. `ready_fd` is written to once
    the socket accepts connections, so a starting client can wait on it instead of polling.
    `options` go to Server (event_capacity, max_streams, quiet_after, background_nice,
    background_idle). `own_nice`: the server's own CPU priority, where it may have it
    (priority.raise_own_priority).
    """
    if daemon:
        if os.fork() > 0:
            os._exit(0)  # the intermediate process: the client reaps it at once
        os.setsid()
        if os.fork() > 0:
            os._exit(0)
        _redirect_to_log(socket_path)
        logging.basicConfig(
            level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr
        )
    else:
        logging.basicConfig(level=logging.INFO, format="termux server: %(message)s", stream=sys.stderr)

    def ready() -> None:
        if ready_fd is not None:
            os.write(ready_fd, b"ready\n")
            os.close(ready_fd)

    raise_own_priority(own_nice)
    freeze_startup_objects()
    loop_gauge = gauge.LoopGauge()
    try:
        with asyncio.Runner(loop_factory=lambda: gauge.metered_loop(loop_gauge)) as runner:
            runner.run(Server(socket_path, history=history, loop_gauge=loop_gauge, **options).serve(ready))
    except ServerError as exc:
        print(f"termux server: {exc}", file=sys.stderr)
        return 1
    return 0


def _redirect_to_log(socket_path: Path) -> None:
    log_fd = open_side_file(log_path(socket_path), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(null_fd)
    os.close(log_fd)
