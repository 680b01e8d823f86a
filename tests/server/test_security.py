"""Another local user against termux: planted symbolic links, a foreign server, side files.

Tests that need a second user run as root and create a throwaway one (tests/server/fakes.py); they
skip with the reason otherwise. The attacker works in a sticky world-writable directory, as
/tmp is, where the `/tmp/termux-$UID` fallback and `-S /tmp/...` sockets live.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.isolated import TERMUX
from e2e.terminal import Terminal
from tests.conftest import RunningServer, run_cli
from tests.server.fakes import foreign_server, run_as, throwaway_user


@pytest.fixture
def attacker() -> Iterator[pwd.struct_passwd]:
    with throwaway_user() as user:
        yield user


@pytest.fixture
def sticky_dir() -> Iterator[Path]:
    """A world-writable sticky directory owned by us, like /tmp."""
    path = Path(tempfile.mkdtemp(prefix="tx-st-", dir="/tmp"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _env(termux_env: dict[str, str], **changes: str) -> dict[str, str]:
    return {**termux_env, **changes}


# -- the socket directory ------------------------------------------------------------------------


def test_a_symlink_planted_for_the_socket_directory_is_refused(
    attacker: pwd.struct_passwd, sticky_dir: Path, socket_dir: Path, termux_env: dict[str, str]
) -> None:
    # The attack of /tmp/termux-0: a link, owned by the attacker, to a private directory of the
    # victim's (so that the old check, which followed it, passed), to be swapped later.
    link = sticky_dir / "termux-0"
    run_as(attacker, lambda: os.symlink(socket_dir, link))
    env = _env(termux_env, TERMUX_SOCKET_DIR=str(link))
    for verb in (["ls"], ["new", "-d", "--", "sleep", "60"]):
        result = run_cli(env, *verb)
        assert result.returncode == 3, (verb, result.stderr)
        assert result.stderr == (
            f"termux: socket directory {link} is a symbolic link; termux does not follow it (name the real directory)\n"
        )
    assert list(socket_dir.iterdir()) == []  # no server, no log, no lock where the link pointed


def test_a_symlink_to_our_own_directory_is_refused_too(socket_dir: Path, termux_env: dict[str, str]) -> None:
    # Without a second user: the rule is about links, whoever owns them.
    real = socket_dir / "real"
    real.mkdir(mode=0o700)
    link = socket_dir / "link"
    link.symlink_to(real)
    for env, argv in (
        (_env(termux_env, TERMUX_SOCKET_DIR=str(link)), ["ls"]),
        (termux_env, ["-S", str(link / "sock"), "new", "-d", "--", "true"]),
    ):
        result = run_cli(env, *argv)
        assert result.returncode == 3 and "is a symbolic link" in result.stderr, result.stderr
    assert list(real.iterdir()) == []


def test_a_socket_that_is_a_symlink_is_not_followed(server: RunningServer, socket_dir: Path) -> None:
    link = socket_dir / "alias"
    link.symlink_to(server.path)
    result = run_cli(server.env, "-S", str(link), "ls")
    assert result.returncode == 3
    assert result.stderr == f"termux: socket {link} is a symbolic link; termux does not follow it\n"


def test_a_directory_owned_by_another_user_is_refused_for_s(
    attacker: pwd.struct_passwd, sticky_dir: Path, termux_env: dict[str, str]
) -> None:
    theirs = sticky_dir / "theirs"
    run_as(attacker, lambda: theirs.mkdir(mode=0o755))
    result = run_cli(termux_env, "-S", str(theirs / "sock"), "new", "-d", "--", "true")
    assert result.returncode == 3
    assert f"socket directory {theirs} is owned by uid {attacker.pw_uid}" in result.stderr
    assert list(theirs.iterdir()) == []


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_directory_others_may_write_is_refused_for_s_unless_sticky(
    socket_dir: Path, termux_env: dict[str, str], mode: int
) -> None:
    shared = socket_dir / "shared"
    shared.mkdir()
    shared.chmod(mode)
    result = run_cli(termux_env, "-S", str(shared / "sock"), "new", "-d", "--", "true")
    assert result.returncode == 3
    assert "is writable by group or others and not sticky" in result.stderr
    assert list(shared.iterdir()) == []
    shared.chmod(mode | 0o1000)  # sticky, like /tmp: others cannot replace what is ours
    try:
        assert run_cli(termux_env, "-S", str(shared / "sock"), "new", "-d", "--", "sleep", "60").returncode == 0
    finally:
        run_cli(termux_env, "-S", str(shared / "sock"), "kill-server")


# -- the peer ------------------------------------------------------------------------------------


def test_a_server_of_another_user_is_refused_before_anything_is_sent(
    attacker: pwd.struct_passwd, sticky_dir: Path, termux_env: dict[str, str]
) -> None:
    path = sticky_dir / "shared.sock"
    inside = {**termux_env, "TERMUX": f"{path},%0"}  # a program in a session: $TERMUX names the socket
    refusal = f"termux: the server on {path} runs as uid {attacker.pw_uid} ({attacker.pw_name}), pid "
    with foreign_server(attacker, path) as bytes_received:
        for env, argv in (
            (termux_env, ["-S", str(path), "ls"]),
            (termux_env, ["-S", str(path), "new", "-d", "--", "true"]),
            (inside, ["ls"]),
            (inside, ["send", "x"]),
        ):
            result = run_cli(env, *argv)
            assert (result.returncode, result.stdout) == (3, ""), (argv, result.stderr)
            assert result.stderr.startswith(refusal), result.stderr
            assert result.stderr.endswith("not as you (uid 0 (root)); refusing to talk to it (untrusted)\n")
            assert bytes_received() == 0, argv  # the request never left the client


def test_termux_variable_through_a_planted_link_is_checked(
    attacker: pwd.struct_passwd, sticky_dir: Path, server: RunningServer
) -> None:
    # Inside a session no race was needed: $TERMUX named the socket and no check ran. A link to
    # the victim's real directory works until the attacker swaps it; it must be refused at once.
    link = sticky_dir / "termux-0"
    run_as(attacker, lambda: os.symlink(server.path.parent, link))
    env = {**server.env, "TERMUX": f"{link / server.path.name},%0"}
    result = run_cli(env, "ls")
    assert result.returncode == 3 and f"socket directory {link} is a symbolic link" in result.stderr


# -- files beside the socket ---------------------------------------------------------------------


def test_side_files_planted_as_symlinks_are_never_followed(
    attacker: pwd.struct_passwd, sticky_dir: Path, socket_dir: Path, termux_env: dict[str, str]
) -> None:
    precious = socket_dir / "precious"  # a root-only file the attacker wants root to append to
    precious.write_text("keep\n")
    victim = socket_dir / "created-by-root"  # a file the attacker wants root to create
    sock = sticky_dir / "x.sock"

    def plant() -> None:
        os.symlink(precious, sticky_dir / "x.sock.log")
        os.symlink(victim, sticky_dir / "x.sock.start.lock")
        os.symlink(victim, sticky_dir / "x.sock.lock")

    run_as(attacker, plant)
    started = run_cli(termux_env, "-S", str(sock), "new", "-d", "--", "sleep", "60")
    assert started.returncode == 3, started.stderr
    lock = sticky_dir / "x.sock.start.lock"
    assert started.stderr == f"termux: {lock} is a symbolic link; termux does not follow it\n"
    os.unlink(lock)  # only the log and the bind lock are left planted
    started = run_cli(termux_env, "-S", str(sock), "new", "-d", "--", "sleep", "60")
    assert started.returncode == 3 and "x.sock.log is a symbolic link" in started.stderr, started.stderr
    foreground = run_cli(termux_env, "-S", str(sock), "server")  # no log: the server's own lock file
    assert foreground.returncode == 3
    assert "x.sock.lock is a symbolic link; termux does not follow it" in foreground.stderr
    assert precious.read_text() == "keep\n"
    assert not victim.exists()
    assert not sock.exists()


def test_a_side_file_owned_by_another_user_is_refused(
    attacker: pwd.struct_passwd, sticky_dir: Path, termux_env: dict[str, str]
) -> None:
    planted = sticky_dir / "y.sock.start.lock"
    run_as(attacker, lambda: planted.write_text(""))
    result = run_cli(termux_env, "-S", str(sticky_dir / "y.sock"), "new", "-d", "--", "true")
    assert result.returncode == 3
    refusals = (
        f"termux: {planted} is owned by uid {attacker.pw_uid}, not by you; not using it\n",
        f"termux: cannot open {planted}: Permission denied\n",  # fs.protected_regular says no first
    )
    assert result.stderr in refusals
    assert not (sticky_dir / "y.sock").exists()


def test_a_stale_socket_of_another_user_is_left_alone(
    attacker: pwd.struct_passwd, sticky_dir: Path, termux_env: dict[str, str]
) -> None:
    path = sticky_dir / "s.sock"

    def leave_a_stale_socket() -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.bind(str(path))  # bound, never listening, closed: what a killed server leaves

    run_as(attacker, leave_a_stale_socket)
    result = run_cli(termux_env, "-S", str(path), "server")
    assert result.returncode == 1
    assert result.stderr == f"termux server: {path} is a socket of uid {attacker.pw_uid}, not yours; not touching it\n"
    assert path.lstat().st_uid == attacker.pw_uid  # still there, still theirs
    started = run_cli(termux_env, "-S", str(path), "new", "-d", "--", "true")
    assert started.returncode == 3 and "not yours; not touching it" in started.stderr, started.stderr


# -- the TUI host (termux/tui/host.py) -----------------------------------------------------------


def test_a_tui_host_of_another_user_never_gets_the_terminal(
    attacker: pwd.struct_passwd, sticky_dir: Path, termux_env: dict[str, str]
) -> None:
    path = sticky_dir / "shared.sock"
    planted = path.with_name("shared.sock.tui2")
    with foreign_server(attacker, planted) as bytes_received:
        term = Terminal([*TERMUX, "-S", str(path), "attach"], cols=300, rows=10, env=termux_env)
        try:
            assert term.wait_exit(30) == 1
            text = term.text
        finally:
            term.close()
        assert f"termux: the TUI host on {planted} runs as uid {attacker.pw_uid}, pid " in text
        assert "not as you (uid 0); refusing to talk to it (untrusted)" in text
        assert bytes_received() == 0  # not a byte, so no descriptor either (they ride on the first)


def test_a_tui_host_refuses_a_caller_of_another_user(
    attacker: pwd.struct_passwd, sticky_dir: Path, termux_env: dict[str, str]
) -> None:
    from e2e.test_host import drawing, host_pid, spares_of

    path = sticky_dir / "s.sock"
    host_socket = path.with_name("s.sock.tui2")
    assert run_cli(termux_env, "-S", str(path), "new", "-d", "--", "sleep", "60").returncode == 0
    try:
        first = Terminal([*TERMUX, "-S", str(path), "attach"], cols=100, rows=30, env=termux_env)
        first.wait_for("ctrl+b then", timeout=30)
        first.write(b"\x02d")  # detached: the host it forked stays
        status = first.wait_exit()
        assert status == 0, first.text
        host = host_pid(path)
        host_socket.chmod(0o666)  # as if its mode let others in: the uid check must hold alone
        read_r, read_w = os.pipe()

        def intrude() -> None:
            os.close(read_r)
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(str(host_socket))
                null = os.open(os.devnull, os.O_RDWR)
                hello = b'{"identity": "", "run": {}, "env": {}, "cwd": "/"}\n'
                try:
                    sock.sendmsg([hello], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("3i", null, null, null))])
                except OSError:
                    pass
                os.write(read_w, sock.makefile("rb").readline())

        run_as(attacker, intrude)
        os.close(read_w)
        with os.fdopen(read_r, "rb") as replies:
            answer = replies.read()
        assert answer == b"refused this TUI host belongs to another user\n"
        with open(f"/proc/{host}/task/{host}/children") as f:
            # no TUI was forked for it, nor was the spare (forked ahead of a caller) handed it
            assert [int(pid) for pid in f.read().split()] == spares_of(host)
        assert all(os.readlink(f"/proc/{pid}/fd/0") == os.devnull for pid in spares_of(host))
        again = Terminal([*TERMUX, "-S", str(path), "attach"], cols=100, rows=30, env=termux_env)
        try:
            again.wait_for("ctrl+b then", timeout=30)
            assert len(drawing(again)) == 1  # the host still serves its own user
        finally:
            again.close()
    finally:
        run_cli(termux_env, "-S", str(path), "kill-server")
