"""The termux TUI (Textual). `run()` attaches to a server, starting it and a first session if needed."""

from __future__ import annotations

import os
import sys

from termux.text import visible

# `termux attach` imports this package before anything else (termux/tui/host.py): not even typing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from types import SimpleNamespace
    from typing import Any

__all__ = ["run", "run_tui"]

# Textual draws on a fixed grid of TEXTUAL_FPS frames a second (60 by default): an echo that lands
# just after a frame would wait up to a whole period for the next one. termux paces the terminal
# view itself (FramePacer), so Textual may draw as soon as it is asked; its frame timer still
# sleeps while nothing is dirty. Read once, when Textual is first imported: hence here, before it.
TEXTUAL_FPS = 1000
os.environ.setdefault("TEXTUAL_FPS", str(TEXTUAL_FPS))


def run_tui(args: SimpleNamespace, new_session: dict[str, Any] | None = None) -> int:
    """The CLI's entry: `termux`, `termux attach [-t T]`, `termux new` (without -d). In a TUI
    host's child (termux/tui/host.py: `termux` found a host before loading the command line)
    the caller is told the TUI starts, and its socket watched."""
    run_args: dict[str, Any] = {
        "path": getattr(args, "socket_path", None),
        "name": getattr(args, "socket_name", None),
        "target": getattr(args, "target", None),
        "new": new_session,
        "layout": getattr(args, "layout", None),
        "detach_others": getattr(args, "detach_others", False),
    }
    from termux.tui import host

    if host.serving():
        from termux.paths import socket_path

        run_args["watch"] = host.caller_for(socket_path(run_args["name"], run_args["path"]))
    return run(**run_args)


def run(
    *,
    path: Path | str | None = None,
    name: str | None = None,
    target: str | None = None,
    new: dict[str, Any] | None = None,
    create: bool = True,
    layout: str | None = None,
    watch: int | None = None,
    detach_others: bool = False,
) -> int:
    """Attach a TUI; returns the exit status for the `termux` command.

    `target` focuses that session; `new` (session.new arguments) creates a session and focuses it;
    `create` starts a first session running `$SHELL` when the server has none; `layout` opens the
    config file's layout of that name (its sessions created as it says). `watch` is the socket to a
    TUI host's caller (the host runs the TUI in a child): signals come on it, and it closing means
    the caller is gone. Without it, this process forks a TUI host as it leaves, unless one runs.
    `detach_others`: every other view is detached as this one attaches (tmux's attach -d).
    A TUI that leads its own session (a TUI host's child, or one started as a session's first
    process) takes the CPU priority termux gives its own processes, where it may (OWN_NICE).
    """
    from termux.trace import TRACE

    if TRACE.on:
        TRACE.mark("tui.run")
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
        server = socket_path(name, path)
        starting = ServerStart(server)
        try:
            # After the server start began: everything from here overlaps it.
            import asyncio

            from termux.defaults import OWN_NICE
            from termux.server.priority import raise_own_priority

            raise_own_priority(OWN_NICE)

            _preload()
            starting.wait()
            from termux.heap import freeze_startup_objects

            freeze_startup_objects()
            if TRACE.on:
                TRACE.mark("tui.loop")
            reason = asyncio.run(_main(config, path, name, target, new, create, watch, layout, detach_others))
        finally:
            starting.close()
        if watch is None:
            from termux.tui import host

            if host.enabled():
                # Once this TUI is done (its loop closed, its threads ended), this process has all
                # a host needs loaded: fork one from it. Not before: nothing an attach or a start
                # with no server waits for pays for the fork or the pages it copies.
                host.start_host(server)
    except Exception as exc:  # the server is gone, a target is wrong, …
        code = getattr(exc, "code", None)
        message = getattr(exc, "message", None) or str(exc)
        print(visible(f"termux: {message}" if code else f"termux: {type(exc).__name__}: {exc}"), file=sys.stderr)
        return 1
    if reason:
        import contextlib  # (not at the top: the caller of a TUI host imports this package)

        with contextlib.suppress(OSError):  # the terminal may have hung up (SIGHUP)
            print(visible(f"[{reason}]"), flush=True)
    return 0 if not reason or reason.startswith("detached") else 1


async def _main(
    config: Any,
    path: Path | str | None,
    name: str | None,
    target: str | None,
    new: dict[str, Any] | None,
    create: bool,
    watch: int | None,
    layout_name: str | None = None,
    detach_others: bool = False,
) -> str:
    from termux.client import AsyncClient
    from termux.trace import TRACE
    from termux.tui.app import TermuxApp, attach_request
    from termux.tui.driver import TermuxDriver

    client = await AsyncClient.connect(path, name=name, autostart=True)
    if TRACE.on:
        TRACE.mark("tui.connected")
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
            if detach_others:  # found before any other view is detached (else in the reply)
                target = (await client.request("session.get", target=target))["session"]["id"]
        elif create:
            sessions = (await client.request("session.list"))["sessions"]
            if not sessions:
                from termux.tui.app import start_directory

                cwd = start_directory()  # the first shell starts where termux was started
                await client.request("session.new", **({"cwd": cwd} if cwd else {}))
        # Sent before the app is made: the reply comes meanwhile. (After the requests above: a
        # session they make is in it, and a target not found detaches no other view.)
        attaching = attach_request(client, config, detach_others)
        app = TermuxApp(
            client,
            attaching=attaching,
            config=config,
            focus=target,
            driver_class=TermuxDriver,
            layout=layout,
            preset=spec.preset if layout is not None else None,
            detach_others=detach_others,
        )
        if TRACE.on:
            TRACE.mark("tui.app")
        # The reply before Textual starts (a target found in it, not asked for first): the
        # driver draws the focused screen from it as it takes the terminal (`first_paint`).
        await app.take_attach()
        if watch is not None:
            _relay_signals(watch)
        result = await app.run_async()
        return result or app.exit_reason
    finally:
        await client.close()


# What the first paint imports, some of it lazily: loaded before a TUI host forks its children
# (and while a server starts).
PRELOAD = (
    "termux.tui.app",
    "termux.tui.driver",
    "termux.client.aio",
    "termux.heap",
    "textual.pilot",
    "textual.drivers.headless_driver",
    "textual.layouts.factory",
    "textual.layouts.horizontal",
    "textual.layouts.stream",
    "textual.scrollbar",
    "concurrent.futures.thread",
)


def _preload() -> None:
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)


def _relay_signals(watch: int) -> None:
    """A TUI host's child: raise in this process each signal its caller relays (one number a
    line); the caller gone is a hang-up."""
    import asyncio
    import signal

    from termux.tui.host import RELAYED

    loop = asyncio.get_running_loop()
    allowed = {int(sig) for sig in RELAYED}
    pending = bytearray()  # a line not ended yet

    def readable() -> None:
        try:
            data = os.read(watch, 4096)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(watch)
            signal.raise_signal(signal.SIGHUP)
            return
        pending.extend(data)
        *lines, rest = pending.split(b"\n")
        pending[:] = rest[:16]  # a line is a signal's number: a longer one is not ours
        for line in lines:
            if line.isdigit() and int(line) in allowed:
                signal.raise_signal(int(line))

    loop.add_reader(watch, readable)
