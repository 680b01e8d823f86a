from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from event_helpers import serve_in_loop, shutdown

from termux.server.server import Server


@pytest.fixture
async def live(socket_dir: Path) -> AsyncIterator[Server]:
    """A server with default options on `socket_dir/default`, in this test's loop."""
    server, task = await serve_in_loop(socket_dir / "default")
    try:
        yield server
    finally:
        await shutdown(server, task)
