"""The TUI host (termux/tui/host.py): a pre-imported process runs the TUI on the caller's terminal.

The first TUI imports Textual itself and forks the host when it leaves; every later `termux attach` passes its
terminal to the host, which forks a child to draw on it. These tests tell the two paths apart by
processes, not by time: the process drawing on the terminal is the host's child, not the
`termux` that was started.
"""

from __future__ import annotations

import os
import select
import shlex
import signal
import site
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from e2e.isolated import TERMUX, IsolatedServer, on_terminal
from e2e.terminal import Terminal
from e2e.test_tui import PREFIX, SIDEBAR, STATUS, fresh_terminal_state, session_size, started, terminal_area

Start = Callable[..., Terminal]


def host_socket(server_socket: Path) -> Path:
    return server_socket.with_name(server_socket.name + ".tui2")


def host_pid(server_socket: Path) -> int:
    """The pid of the host listening beside the server (SO_PEERCRED of a connection to it)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(host_socket(server_socket)))
        pid, _uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    return int(pid)


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def ended(pid: int) -> bool:
    """The process has ended (or is a zombie), waiting a bounded while: the caller returns once
    the child has closed its socket, a moment before the kernel marks it exited."""
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not alive(pid)


def drawing(term: Terminal) -> list[int]:
    """Every process other than the one the terminal started whose stdin is this terminal."""
    return on_terminal(term.pid)


def with_host(tui: Start, server: IsolatedServer) -> int:
    """Attach once in-process and detach (it forks the host as it leaves); the host's pid."""
    first = started(tui)
    assert drawing(first) == []  # no host yet: the TUI runs in the process started
    first.write(PREFIX + b"d")
    assert first.wait_exit() == 0
    return host_pid(server.socket_path)


def drawn_then_detached(term: Terminal) -> None:
    """The TUI on `term` draws, then leaves with status 0 on prefix d; `term` is closed either way."""
    try:
        term.wait_for("ctrl+b then", timeout=30)
        term.write(PREFIX + b"d")
        assert term.wait_exit() == 0
    finally:
        term.close()


def through_host(tui: Start, host: int, *args: str) -> tuple[Terminal, int]:
    """A TUI drawn by the host's child: the terminal and the child's pid."""
    term = started(tui, *args)
    (child,) = drawing(term)
    assert parent_of(child) == host
    return term, child


def test_a_second_attach_runs_in_the_host_and_leaves_like_the_first(tui: Start, server: IsolatedServer) -> None:
    modes, attributes = fresh_terminal_state(100, 30)
    host = with_host(tui, server)
    term, child = through_host(tui, host)
    term.write("echo via-host\r")
    term.wait_for(lambda t: "via-host" in terminal_area(t))
    term.write(PREFIX + b"d")
    assert term.wait_exit() == 0  # the child's status, relayed by the caller
    assert "[detached]" in term.text
    assert set(term.screen.mode) == modes and not term.screen.cursor.hidden
    assert tuple(term.tty_attributes()[:4]) == tuple(attributes[:4])
    assert ended(child) and alive(host)  # the host stays for the next one


def test_a_refusal_reaches_the_caller_with_its_status(tui: Start, server: IsolatedServer, tmp_path: Path) -> None:
    host = with_host(tui, server)
    # A caller that cannot import Textual itself: only the host can have run its TUI.
    (tmp_path / "textual").mkdir()
    (tmp_path / "textual" / "__init__.py").write_text("raise ImportError('not in the caller')\n")
    env = {**server.env, "PYTHONPATH": f"{tmp_path}{os.pathsep}{server.env['PYTHONPATH']}"}
    term = Terminal([sys.executable, "-m", "termux", "attach", "-t", "nosuch"], cols=100, rows=30, env=env)
    try:
        assert term.wait_exit() == 1
        assert "termux: no session 'nosuch'" in term.text
    finally:
        term.close()
    assert alive(host)


def test_a_resize_of_the_callers_terminal_reaches_the_session(tui: Start, server: IsolatedServer) -> None:
    host = with_host(tui, server)
    term, _child = through_host(tui, host)
    term.write("stty size\r")
    term.wait_for(f"{30 - STATUS} {100 - SIDEBAR}")
    term.resize(90, 20)  # SIGWINCH goes to the caller's process group: relayed to the child
    term.wait_for(lambda t: "ctrl+b then" in t.display[20 - 1])  # laid out again at the new size
    deadline = time.monotonic() + 10  # as test_an_outer_resize_reaches_the_session: keys go first
    while session_size(server) != (90 - SIDEBAR, 20 - STATUS) and time.monotonic() < deadline:
        time.sleep(0.05)
    term.write(b"clear; stty size\r")
    term.wait_for(f"{20 - STATUS} {90 - SIDEBAR}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_to_the_caller_ends_the_tui_the_normal_way(
    tui: Start, server: IsolatedServer, sig: signal.Signals
) -> None:
    modes, attributes = fresh_terminal_state(100, 30)
    host = with_host(tui, server)
    term, child = through_host(tui, host)
    os.kill(term.pid, sig)
    assert term.wait_exit() == 1
    assert f"({sig.name})" in term.text  # the child's own words: it got the signal
    assert set(term.screen.mode) == modes
    assert tuple(term.tty_attributes()[:4]) == tuple(attributes[:4])
    assert ended(child)


def test_the_tui_killed_leaves_the_terminal_restored_by_the_caller(tui: Start, server: IsolatedServer) -> None:
    modes, attributes = fresh_terminal_state(100, 30)
    host = with_host(tui, server)
    term, child = through_host(tui, host)
    assert 1049 << 5 in term.screen.mode
    os.kill(child, signal.SIGKILL)  # it cannot restore anything itself
    assert term.wait_exit() == 1
    assert "[lost the TUI: it ended without a status]" in term.text
    assert set(term.screen.mode) == modes and not term.screen.cursor.hidden
    assert tuple(term.tty_attributes()[:4]) == tuple(attributes[:4])  # echo, canonical mode, signals
    assert alive(host)


def test_the_host_killed_leaves_its_tuis_running_and_the_next_attach_forks_another(
    tui: Start, server: IsolatedServer
) -> None:
    host = with_host(tui, server)
    term, child = through_host(tui, host)
    os.kill(host, signal.SIGKILL)
    term.write("echo still-here\r")
    term.wait_for(lambda t: "still-here" in terminal_area(t))  # the caller talks to the child
    term.write(PREFIX + b"d")
    assert term.wait_exit() == 0
    # its socket is left behind, unanswered: the next attach imports the TUI itself, and forks a
    # host when it leaves
    again = started(tui)
    assert drawing(again) == []
    again.write(PREFIX + b"d")
    assert again.wait_exit() == 0
    assert host_pid(server.socket_path) != host


def test_the_caller_killed_ends_its_tui(tui: Start, server: IsolatedServer) -> None:
    host = with_host(tui, server)
    term, child = through_host(tui, host)
    os.kill(term.pid, signal.SIGKILL)
    term.wait_exit()  # the terminal's end of file: every process holding it has left
    assert ended(child)


def test_a_host_of_another_build_steps_aside(tui: Start, server: IsolatedServer, tmp_path: Path) -> None:
    host = with_host(tui, server)
    other = tmp_path / "python"  # the same interpreter under another name: another build's identity
    other.symlink_to(sys.executable)
    packages = os.pathsep.join(site.getsitepackages())  # the link is outside the venv: name them
    env = {**server.env, "PYTHONPATH": f"{server.env['PYTHONPATH']}{os.pathsep}{packages}"}
    term = Terminal([str(other), "-m", "termux"], cols=100, rows=30, env=env, cwd=server.checkout)
    try:
        term.wait_for("ctrl+b then", timeout=30)
        assert drawing(term) == []  # it ran the TUI itself
        assert not alive(host)  # the stale host left
        term.write(PREFIX + b"d")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert host_pid(server.socket_path) != host  # the caller forked a fresh one as it left


def test_the_host_outlives_job_control_signals(tui: Start, server: IsolatedServer) -> None:
    """SIGCONT (a debugger attaching sends one), SIGTSTP then SIGCONT: the host keeps serving. The
    handlers the TUI it was forked from had set (Textual's for these two among them) are not its
    own: one of them ended the host, the other stopped it for good."""
    host = with_host(tui, server)
    for signals in ([signal.SIGCONT], [signal.SIGTSTP, signal.SIGCONT]):
        for sig in signals:
            os.kill(host, sig)
        term, child = through_host(tui, host)
        term.write(PREFIX + b"d")
        assert term.wait_exit() == 0
        assert ended(child) and alive(host)


def test_an_attach_from_a_removed_directory_runs_the_tui(server: IsolatedServer, tmp_path: Path) -> None:
    """A caller whose working directory was removed does not go through the host (it has no
    directory to give it): it runs the TUI itself, as it would with no host."""
    gone = tmp_path / "gone"
    gone.mkdir()
    where, python = shlex.quote(str(gone)), shlex.quote(sys.executable)
    command = f"cd {where} && rmdir {where} && exec {python} -m termux attach"
    drawn_then_detached(Terminal(["sh", "-c", command], cols=100, rows=30, env=server.env))


def test_the_host_leaves_with_its_server(tui: Start, server: IsolatedServer) -> None:
    host = with_host(tui, server)
    try:
        pidfd = os.pidfd_open(host)
    except ProcessLookupError:  # gone already
        pidfd = -1
    assert server.run("kill-server").returncode == 0
    if pidfd >= 0:
        try:
            assert select.select([pidfd], [], [], 30)[0]  # it exits when the server does
        finally:
            os.close(pidfd)
    assert not alive(host)
    assert not host_socket(server.socket_path).exists()


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="reads x86_64 syscall numbers from /proc/PID/syscall")
def test_the_idle_host_waits_with_no_timeout(tui: Start, server: IsolatedServer) -> None:
    host = with_host(tui, server)
    deadline = time.monotonic() + 10  # it may still be answering host_pid()'s connection
    while True:
        with open(f"/proc/{host}/syscall") as f:
            nr, *args = f.read().split()
        if nr.isdigit() and int(nr) in (23, 270) or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert int(nr) in (23, 270)  # select or pselect6: blocked, waiting for a caller or the server
    assert int(args[4], 16) == 0  # with no timeout: nothing wakes it while nobody attaches


def test_a_command_line_for_another_server_runs_outside_this_host(tui: Start, server: IsolatedServer) -> None:
    host = with_host(tui, server)
    made = server.run("-L", "other", "new", "-d", "--", "sh", "-c", "echo other-server; exec cat")
    assert made.returncode == 0  # a second server, `-L other`, in the same directory
    try:
        # An abbreviation argparse accepts and the host's caller does not read: it asks the host
        # of the default server, whose child parses the line, finds `other` and hands it back.
        term = started(tui, "--socket-nam", "other", "attach")
        term.wait_for("other-server")
        assert drawing(term) == []  # run in the caller's own process
        assert alive(host)
    finally:
        server.run("-L", "other", "kill-server")


# `termux ARGS` as the command runs it, noting every module loaded when it hands its terminal over
# (one name a line); then it hands it over, or with `--leave` first, exits.
CALLER_PROBE = """
import os, sys
from termux.tui import host
attached, path, leave = host._attached, sys.argv[1], sys.argv[2] == "--leave"
def noting(sock, argv):
    with open(path, "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
    if leave:
        os._exit(0)
    return attached(sock, argv)
host._attached = noting
sys.argv = ["termux", *sys.argv[3:]]
from termux.__main__ import entry
entry()
"""
MODULES = "import sys; print('\\n'.join(sorted(sys.modules)))"


def test_the_caller_loads_neither_the_command_line_nor_the_client(
    tui: Start, server: IsolatedServer, tmp_path: Path
) -> None:
    host = with_host(tui, server)
    out = tmp_path / "modules"
    probe = [sys.executable, "-c", CALLER_PROBE, str(out), "--stay", "attach"]
    term = Terminal(probe, cols=100, rows=30, env=server.env)
    try:
        term.wait_for("ctrl+b then", timeout=30)
        (child,) = drawing(term)
        assert parent_of(child) == host
    finally:
        term.close()
    bare = subprocess.run([sys.executable, "-c", MODULES], env=server.env, capture_output=True, text=True, check=True)
    loaded = set(out.read_text().split()) - set(bare.stdout.split())
    heavy = {"argparse", "typing", "socket", "termux.cli", "termux.client", "asyncio", "textual", "termux.tui.app"}
    assert loaded & (heavy | {"json"}) == set()
    assert "termux.tui.host" in loaded  # the probe saw the hand-over


def test_the_caller_as_installed_loads_nothing_it_can_do_without(
    tui: Start, server: IsolatedServer, tmp_path: Path
) -> None:
    """As `pip install .` lays termux out (no editable install's import hook, which loads pathlib
    and re as Python starts), the caller of a TUI host loads neither json, re, pathlib, enum nor
    contextlib, nor anything of the command line, before it hands its terminal over."""
    import sysconfig

    from benchmarks.cli import installed

    with_host(tui, server)
    bin_dir = installed(server.checkout, tmp_path / "venv", packages=Path(sysconfig.get_paths()["purelib"]))
    env = {key: value for key, value in server.env.items() if key != "PYTHONPATH"}
    out = tmp_path / "modules"
    python = str(bin_dir / "python")
    probe = [python, "-c", CALLER_PROBE, str(out), "--leave", "attach"]
    term = Terminal(probe, cols=100, rows=30, env=env, cwd=tmp_path)
    try:
        assert term.wait_exit(30) == 0
    finally:
        term.close()
    bare = subprocess.run([python, "-c", MODULES], env=env, cwd=tmp_path, capture_output=True, text=True, check=True)
    loaded = set(out.read_text().split()) - set(bare.stdout.split())
    assert {"termux.tui.host", "termux.paths"} <= loaded  # it found the host, as an installed termux
    heavy = {"json", "re", "pathlib", "enum", "contextlib", "typing", "socket", "signal", "argparse", "termux.cli"}
    assert loaded & heavy == set()


def test_no_host_runs_while_the_first_tui_does(tui: Start, server: IsolatedServer) -> None:
    first = started(tui)
    assert not host_socket(server.socket_path).exists()  # forked when it leaves, not while it starts
    first.write(PREFIX + b"d")
    assert first.wait_exit() == 0
    assert alive(host_pid(server.socket_path))


def spares_of(host: int) -> list[int]:
    """The host's children on no terminal (their stdin is the host's /dev/null): its spare."""
    spares = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            if parent_of(pid) == host and alive(pid) and os.readlink(f"/proc/{pid}/fd/0") == os.devnull:
                spares.append(pid)
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass
    return spares


def one_spare(host: int, not_this: int = 0) -> int:
    """The host's spare (other than `not_this`), once it has forked it."""
    deadline = time.monotonic() + 20
    while not (spares := [pid for pid in spares_of(host) if pid != not_this]) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(spares) == 1, spares
    return spares[0]


def test_the_next_attach_is_drawn_by_the_spare_forked_ahead_of_it(tui: Start, server: IsolatedServer) -> None:
    host = with_host(tui, server)
    spare = one_spare(host)  # forked as the host started, waiting for a caller
    term, child = through_host(tui, host)
    assert child == spare
    # Its TUI drew its first frame: the host forks the next one, which draws the next attach
    # (a hand-over again, whose socket may have the number the first one's had).
    second_spare = one_spare(host, not_this=spare)
    again, second = through_host(tui, host, "attach")
    assert second == second_spare
    term.write("echo first-one\r")
    again.wait_for(lambda t: "first-one" in terminal_area(t))
    for each in (again, term):
        each.write(PREFIX + b"d")
        assert each.wait_exit() == 0


def test_the_spare_leaves_with_the_host(tui: Start, server: IsolatedServer) -> None:
    host = with_host(tui, server)
    spare = one_spare(host)
    pidfd = os.pidfd_open(spare)
    try:
        os.kill(host, signal.SIGKILL)
        assert select.select([pidfd], [], [], 30)[0]  # its end of the host's socket closed: it left
    finally:
        os.close(pidfd)
    assert not alive(spare)


def test_no_spare_with_termux_tui_spare_0(server: IsolatedServer) -> None:
    env = server.env | {"TERMUX_TUI_SPARE": "0"}
    drawn_then_detached(Terminal([*TERMUX], cols=100, rows=30, env=env, cwd=server.checkout))
    host = host_pid(server.socket_path)
    term, child = through_host(lambda *a, **k: server.terminal(*a, **k), host)  # forked for it
    assert spares_of(host) == []
    term.write(PREFIX + b"d")
    assert term.wait_exit() == 0
    assert spares_of(host) == []
