"""tmux's flags a tmux user's scripts use, through the real CLI against a real server: `ls -F`,
`kill-session -a`, `attach -d` (the server's side; the TUI's is in tests/tui and e2e/test_tui.py)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from termux.client import Client
from tests.conftest import RunningServer, wait_for_screen
from tests.server.fakes import HOSTILE, SHOWN


def formatted(server: RunningServer, fmt: str) -> list[str]:
    done = server.run("ls", "-F", fmt)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout.splitlines()


def until(check: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    """`check()`'s first true value, trying until `timeout` (a process takes its time to start)."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)
    return value


def test_ls_F_prints_a_line_a_session_from_tmux_variables(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "one", "-x", "100", "-y", "30", "--", "sleep", "60")
    server.run("new", "-d", "-s", "two", "--", "sleep", "60")
    infos = {s["name"]: s for s in json.loads(server.run("ls", "--json").stdout)}
    fmt = "\t".join(  # a tab between fields, as scripts give it, is the format's own text: kept
        f"#{{{name}}}" for name in ("session_name", "session_id", "session_windows", "session_attached",
                                    "session_created", "pane_pid", "pane_width", "pane_height", "session_path")
    )  # fmt: skip
    lines = formatted(server, fmt)
    assert [line.split("\t") for line in lines] == [
        [s["name"], s["id"], "1", "0", str(int(s["created"])), str(s["pid"]), str(s["cols"]), str(s["rows"]), s["cwd"]]
        for s in infos.values()
    ]
    assert [line.split("\t")[6:8] for line in lines] == [["100", "30"], ["80", "24"]]


def test_ls_F_conditionals_escapes_and_unknown_variables_as_tmux(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "build", "--", "sleep", "60")
    server.run("new", "-d", "-s", "web", "--", "sleep", "60")
    # Each expected line is what tmux 3.3a prints for the same format (checked by hand).
    assert formatted(server, "#{nosuch}|#{?session_attached,yes,no}|##|#,|a#b|#S") == [
        "|no|#|,|a#b|build", "|no|#|,|a#b|web"
    ]  # fmt: skip
    assert formatted(server, "#{?#{==:#{session_name},web},W,#{=2:session_name}}#{?nosuch,x}") == ["bu", "W"]
    assert formatted(server, "#{!=:#{session_windows},1}#{?session_windows,#{?pane_dead,dead,live},none}") == [
        "0live", "0live"
    ]  # fmt: skip


def test_ls_F_session_attached_counts_the_views_showing_it(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "shown", "--", "sleep", "60")
    server.run("new", "-d", "-s", "hidden", "--", "sleep", "60")
    with server.client() as view, server.client() as other:
        view.request("client.attach", focus="shown")
        other.request("client.attach", focus="shown")
        assert formatted(server, "#{session_name}=#{session_attached}") == ["shown=2", "hidden=0"]
        other.request("client.focus", target="hidden")
        assert formatted(server, "#{session_name}=#{session_attached}") == ["shown=1", "hidden=1"]
    assert formatted(server, "#{session_attached}") == ["0", "0"]  # both views gone


def test_ls_F_pane_current_command_is_the_foreground_program(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "job", "--", "sh", "-i")  # interactive: job control, as a login shell
    until(lambda: formatted(server, "#{pane_current_command}") == ["sh"], "the shell in the foreground")
    server.run("send", "-t", "job", "sleep 60", "Enter")
    until(lambda: formatted(server, "#{pane_current_command}") == ["sleep"], "sleep in the foreground")
    server.run("send", "-t", "job", "C-c")
    until(lambda: formatted(server, "#{pane_current_command}") == ["sh"], "the shell back in the foreground")


def test_ls_F_session_activity_is_when_it_last_printed(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "late", "--", "sh", "-c", "sleep 1.5; echo late; exec sleep 60")
    (before,) = formatted(server, "#{session_created} #{session_activity}")
    created, activity = map(int, before.split())
    assert activity == created  # it has printed nothing yet
    wait_for_screen(server.path, "late", "late")
    (after,) = formatted(server, "#{session_created} #{session_activity}")
    assert int(after.split()[0]) == created and int(after.split()[1]) >= created + 1  # it printed 1.5 s in


def test_ls_F_escapes_control_characters_in_values(server: RunningServer, tmp_path: Path) -> None:
    hostile = tmp_path / HOSTILE  # a program's name is its file's: this one's sets a terminal's title
    hostile.symlink_to(shutil.which("sleep") or "/bin/sleep")
    assert server.run("new", "-d", "-s", "odd", "--", str(hostile), "60").returncode == 0
    shown = until(lambda: formatted(server, "[#{pane_current_command}]\t"), "the program started")
    assert shown == [f"[{SHOWN}]\t"]  # the value escaped, never the escape itself; the format's tab kept


def test_ls_F_refuses_a_format_never_closed_and_with_json(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "s", "--", "sleep", "60")
    done = server.run("ls", "-F", "#{session_name")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "termux: `format`: a `#{` is never closed by `}` (bad_args)\n"
    both = server.run("ls", "-F", "#{session_name}", "--json")
    assert both.returncode == 2 and "without --json" in both.stderr
    deep = server.run("ls", "-F", "#{?" * 40 + "}" * 40)
    assert deep.returncode == 1 and "nest at most 32 deep" in deep.stderr
    assert server.run("has-session", "-t", "s").returncode == 0  # the server serves on


def test_kill_session_a_kills_every_session_but_the_target(server: RunningServer) -> None:
    for name in ("a", "b", "c"):
        server.run("new", "-d", "-s", name, "--", "sleep", "60")
    pids = {s["name"]: s["pid"] for s in json.loads(server.run("ls", "--json").stdout)}
    done = server.run("kill-session", "-a", "-t", "b")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert [s["name"] for s in json.loads(server.run("ls", "--json").stdout)] == ["b"]
    for name in ("a", "c"):  # their programs are gone too
        assert not _alive(pids[name]), name
    assert _alive(pids["b"])


def test_kill_session_a_with_an_unknown_target_kills_nothing(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "keep", "--", "sleep", "60")
    done = server.run("kill", "-a", "-t", "nope")
    assert done.returncode == 1 and "no session 'nope'" in done.stderr
    assert [s["name"] for s in json.loads(server.run("ls", "--json").stdout)] == ["keep"]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def _pushes(client: Client, quiet: float = 0.5) -> list[dict[str, Any]]:
    """Every push that comes until none has for `quiet` seconds."""
    seen = []
    while (push := client.next_push(quiet)) is not None:
        seen.append(push)
    return seen


def test_attach_detach_others_detaches_every_other_view(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "work", "--", "cat")
    with server.client() as first, server.client() as second, server.client() as taker:
        first.request("client.attach", focus="work")
        second.request("client.attach")  # attached, focusing nothing: a view all the same
        _pushes(first), _pushes(second)
        before = first.request("server.stats")["events"]  # the event cursor now
        taker.request("client.attach", focus="work", detach_others=True)
        for detached in (first, second):
            got = _pushes(detached)
            assert got and got[-1] == {"push": "detach"}  # told to leave, and sent nothing after
        events = first.request("events.read", cursor=before, types=["client.detached", "client.attached"])["events"]
        assert [e["type"] for e in events] == ["client.detached", "client.detached", "client.attached"]
        stats = first.request("server.stats")  # a detached connection still answers requests
        assert (stats["clients"], stats["attached"]) == (3, 1)
        server.run("send", "-t", "work", "-l", "after")
        wait_for_screen(server.path, "work", "after")
        assert any(p.get("push") == "output" for p in _pushes(taker))  # the one attached sees the output
        assert _pushes(first) == [] and _pushes(second) == []  # the detached get nothing more
        mark = taker.request("server.stats")["events"]
    with server.client() as after:  # the detached closing commits no second client.detached
        until(lambda: after.request("server.stats")["clients"] == 1, "the three connections closed")
        events = after.request("events.read", cursor=mark, types=["client.detached"])["events"]
        assert len(events) == 1  # the taker's, closing


def test_attach_without_detach_others_leaves_the_other_views(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "work", "--", "cat")
    with server.client() as first, server.client() as second:
        first.request("client.attach", focus="work")
        second.request("client.attach", focus="work")
        assert not [p for p in _pushes(first) if p.get("push") == "detach"]
        assert first.request("server.stats")["attached"] == 2


def test_send_X_is_refused_saying_why_and_types_nothing(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "cat", "--", "cat")
    done = server.run("send-keys", "-t", "cat", "-X", "copy-selection", "Enter")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("termux: send -X copy-selection: termux's copy mode is the TUI's own (prefix [)")
    assert "termux capture -S START -E END" in done.stderr
    server.run("send", "-t", "cat", "-l", "typed")  # what comes after it reaches the session alone
    assert wait_for_screen(server.path, "cat", "typed")[0] == "typed"
