"""The termux TUI (Textual). `run()` attaches to a server, starting it and a first session if needed."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from termux.client import ServerStart

from termux.text import visible

__all__ = ["run", "run_tui"]

# Textual draws on a fixed grid of TEXTUAL_FPS frames a second (60 by default): an echo that lands
# just after a frame would wait up to a whole period for the next one. termux paces the terminal
# view itself (FramePacer), so Textual may draw as soon as it is asked; its frame timer still
# sleeps while nothing is dirty. Read once, when Textual is first imported: hence here, before it.
TEXTUAL_FPS = 1000
os.environ.setdefault("TEXTUAL_FPS", str(TEXTUAL_FPS))


def run_tui(args: argparse.Namespace, new_session: dict[str, Any] | None = None) -> int:
    """The CLI's entry: `termux`, `termux attach [-t T]`, `termux new` (without -d)."""
    return run(
        path=getattr(args, "socket_path", None),
        name=getattr(args, "socket_name", None),
        target=getattr(args, "target", None),
        new=new_session,
        layout=getattr(args, "layout", None),
    )


def run(
    *,
    path: Path | str | None = None,
    name: str | None = None,
    target: str | None = None,
    new: dict[str, Any] | None = None,
    create: bool = True,
    layout: str | None = None,
) -> int:
    """Attach a TUI; returns the exit status for the `termux` command.

    `target` focuses that session; `new` (session.new arguments) creates a session and focuses it;
    `create` starts a first session running `$SHELL` when the server has none; `layout` opens the
    config file's layout of that name (its sessions created as it says).
    """
    from termux.tui.config import ConfigError, load_config

    try:
        config = load_config()
    except ConfigError as exc:
        print(f"termux: bad config: {exc}", file=sys.stderr)
        return 1
    if layout is not None and layout not in config.layouts:
        known = ", ".join(sorted(config.layouts)) or "none"
        print(visible(f"termux: no layout named {layout!r} in {config.path} (layouts: {known})"), file=sys.stderr)
        return 1
    from termux.paths import inherited_session

    if inherited_session() is not None and path is None and name is None:
        # like tmux: a TUI inside one of its own sessions would draw itself forever
        print("termux: sessions should be nested with care, unset $TERMUX to force", file=sys.stderr)
        return 1
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print("termux: the TUI needs a terminal (stdin and stdout must be a tty)", file=sys.stderr)
        return 1
    try:
        from termux.client import ServerStart, socket_path

        # With no server, it starts while the TUI's modules load: the two take about as long.
        starting = ServerStart(socket_path(name, path))
        try:
            import asyncio  # after the server start began: everything from here overlaps it

            reason = asyncio.run(_main(config, path, name, target, new, create, starting, layout))
        finally:
            starting.close()
    except Exception as exc:  # the server is gone, a target is wrong, …
        code = getattr(exc, "code", None)
        message = getattr(exc, "message", None) or str(exc)
        print(visible(f"termux: {message}" if code else f"termux: {type(exc).__name__}: {exc}"), file=sys.stderr)
        return 1
    if reason:
        with contextlib.suppress(OSError):  # the terminal may have hung up (SIGHUP)
            print(visible(f"[{reason}]"), flush=True)
    return 0 if reason in ("detached", "", None) else 1


async def _main(
    config: Any,
    path: Path | str | None,
    name: str | None,
    target: str | None,
    new: dict[str, Any] | None,
    create: bool,
    starting: ServerStart,
    layout_name: str | None = None,
) -> str:
    from termux.client import AsyncClient
    from termux.heap import freeze_startup_objects
    from termux.tui.app import TermuxApp
    from termux.tui.driver import TermuxDriver

    freeze_startup_objects()

    starting.wait()
    client = await AsyncClient.connect(path, name=name, autostart=True)
    try:
        layout = None
        if layout_name is not None:
            from termux.tui.layouts import open_layout

            spec = config.layouts[layout_name]
            layout = await open_layout(client, spec)  # its sessions, created as it says
        elif new is not None:
            reply = await client.request("session.new", **new)
            target = reply["session"]["id"]
        elif target is not None:
            target = (await client.request("session.get", target=target))["session"]["id"]
        elif create:
            sessions = (await client.request("session.list"))["sessions"]
            if not sessions:
                from termux.tui.app import start_directory

                cwd = start_directory()  # the first shell starts where termux was started
                await client.request("session.new", **({"cwd": cwd} if cwd else {}))
        app = TermuxApp(
            client,
            config=config,
            focus=target,
            driver_class=TermuxDriver,
            layout=layout,
            preset=spec.preset if layout is not None else None,
        )
        result = await app.run_async()
        return result or app.exit_reason
    finally:
        await client.close()
