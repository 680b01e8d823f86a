"""A program's OSC 52 against a real server: stored as a paste buffer and pushed to the views that
show the session when `set_clipboard` is "on"; ignored under tmux's default, "external"."""

from __future__ import annotations

import base64
from typing import Any

from termux.client import Client
from tests.conftest import RunningServer, wait_for_screen

# Sets the clipboard to "copied ✓" with OSC 52, then says so.
PROGRAM = "printf '\\033]52;c;%s\\007' \"$(printf 'copied \\342\\234\\223' | base64)\"; echo done; exec cat"


def _pushes_until(client: Client, kind: str) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    while not seen or seen[-1].get("push") != kind:
        push = client.next_push(20)
        assert push is not None, f"no {kind} push came; got {seen}"
        seen.append(push)
    return seen


def test_on_a_programs_clipboard_becomes_a_buffer_and_reaches_the_view_showing_it(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "idle", "--", "cat")
    with server.client() as view, server.client() as other:
        view.request("client.attach", set_clipboard="on")
        other.request("client.attach", focus="idle")
        view.request("session.new", name="app", command=["sh", "-c", "sleep 0.2; " + PROGRAM])
        view.request("client.focus", target="app")
        pushes = _pushes_until(view, "clipboard")
        clipboard = [p for p in pushes if p.get("push") == "clipboard"]
        # The output that held the escape came first, and the buffer was stored before the push.
        kinds = [p.get("event", {}).get("type", p["push"]) for p in pushes]
        assert kinds.index("output") < kinds.index("buffer.changed") < kinds.index("clipboard")
        assert clipboard[0]["session"] == view.request("session.get", target="app")["session"]["id"]
        assert (clipboard[0]["selection"], base64.b64decode(clipboard[0]["data"])) == ("c", "copied ✓".encode())
        assert server.run("show-buffer").stdout == "copied ✓"
        other_pushes = []
        while (push := other.next_push(0.5)) is not None:
            other_pushes.append(push)
        assert not [p for p in other_pushes if p.get("push") == "clipboard"]  # it shows another session


def test_by_default_a_programs_clipboard_is_ignored(server: RunningServer) -> None:
    with server.client() as view:
        view.request("client.attach")  # set_clipboard not given: tmux's default, external
        view.request("session.new", name="app", command=["sh", "-c", PROGRAM])
        view.request("client.focus", target="app")
        wait_for_screen(server.path, "app", "done")
        assert view.request("buffer.list")["buffers"] == []
