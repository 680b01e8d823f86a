"""What the CLI prints when the server is missing, broken or hostile: one line, the documented
exit status, never a traceback, and peer-supplied text with its control characters escaped."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from termux.client import Client, TermuxError
from termux.text import visible
from tests.conftest import TERMUX, RunningServer, run_cli, wait_for_screen
from tests.server.fakes import HOSTILE, SHOWN, FakeServer, answering, fake_session


@pytest.fixture
def fake_path(socket_dir: Path) -> Iterator[Path]:
    yield socket_dir / "fake"


def test_visible_escapes_every_control_character_and_nothing_else() -> None:
    assert visible(HOSTILE) == SHOWN
    assert visible("\t\n\r\b\f\v\x00\x7f\x9b") == "\\t\\n\\r\\b\\f\\v\\000\\177\\233"
    plain = "é ü 中文 \\ [b]x[/b] ~"
    assert visible(plain) == plain
    assert not [ch for ch in visible("".join(map(chr, range(0x100)))) if unicodedata.category(ch) == "Cc"]


# -- escaping ------------------------------------------------------------------------------------


def test_text_from_the_server_is_escaped_in_every_human_output(fake_path: Path, termux_env: dict[str, str]) -> None:
    event = {"seq": 1, "time": 0.0, "type": "session.renamed", "session": "%0", "name": HOSTILE}
    event["data"] = {"name": HOSTILE}
    replies = {
        "session.list": {"sessions": [fake_session(HOSTILE)]},
        "session.new": {"session": fake_session(HOSTILE)},
        "session.wait": {"session": fake_session(HOSTILE), "match": HOSTILE, "where": "output"},
        "server.stats": {"pid": HOSTILE},
        "events.stream": {"events": [event], "cursor": 1},
        "session.kill": {"error": {"code": "no_session", "message": f"no session {HOSTILE}"}},
    }
    with FakeServer(fake_path, answering(replies)):

        def cli(*argv: str) -> subprocess.CompletedProcess[str]:
            result = run_cli(termux_env, "-S", str(fake_path), *argv)
            assert "\x1b" not in result.stdout + result.stderr and "\x07" not in result.stdout + result.stderr
            return result

        row = cli("ls").stdout.splitlines()[1].split()
        assert row[:5] + row[7:] == ["%0", SHOWN, "running", "1", "80x24", "0", SHOWN, "sh", "-c", SHOWN]
        assert cli("new", "-d", "--", "true").stdout == f"{SHOWN}\n"
        assert cli("wait", "-t", "x", "--match", ".").stdout == f"{SHOWN}\n"
        assert cli("stats").stdout == f"pid: {SHOWN}\n"
        assert f"session.renamed %0 {SHOWN} name={SHOWN}" in cli("events", "--timeout", "0.1").stdout
        refused = cli("kill", "-t", "x")
        assert (refused.returncode, refused.stderr) == (1, f"termux: no session {SHOWN} (no_session)\n")
        # --json stays JSON, exactly what the server said
        assert json.loads(run_cli(termux_env, "-S", str(fake_path), "ls", "--json").stdout)[0]["name"] == HOSTILE


def test_a_command_with_escapes_is_shown_escaped_by_a_real_server(server: RunningServer) -> None:
    # No fake needed: a command line may hold anything, and ls prints it.
    with server.client() as client:
        client.request("session.new", name="t", command=["sh", "-c", "sleep 60", HOSTILE])
    human = server.run("ls").stdout
    assert "\x1b" not in human and f"sh -c sleep 60 {SHOWN}" in human
    (session,) = json.loads(server.run("ls", "--json").stdout)
    assert session["command"][3] == HOSTILE


# -- a connection lost before the reply ----------------------------------------------------------


def _hang_up(conn: socket.socket) -> None:
    """Accept, read nothing, close: what a server at its connection cap does after saying so."""


def _full(conn: socket.socket) -> None:
    conn.sendall(b'{"id": null, "ok": false, "error": {"code": "capacity", "message": "too many clients"}}\n')


@pytest.mark.parametrize("verb", [["ls"], ["new", "-d", "--", "true"], ["kill", "-t", "x"]])
def test_a_server_that_hangs_up_before_replying_is_an_error(
    fake_path: Path, termux_env: dict[str, str], verb: list[str]
) -> None:
    with FakeServer(fake_path, _hang_up):
        result = run_cli(termux_env, "-S", str(fake_path), *verb)
    assert (result.returncode, result.stdout) == (3, "")
    assert result.stderr == "termux: the server closed the connection (disconnected)\n"


@pytest.mark.parametrize("verb", [["ls"], ["new", "-d", "--", "true"]])
def test_a_server_at_its_connection_cap_is_an_error(
    fake_path: Path, termux_env: dict[str, str], verb: list[str]
) -> None:
    with FakeServer(fake_path, _full):
        result = run_cli(termux_env, "-S", str(fake_path), *verb)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "termux: too many clients (capacity)\n")


def test_a_request_to_a_closed_connection_raises_disconnected(socket_dir: Path) -> None:
    # Deterministically closed before the request is written: the listener goes away with the
    # connection still queued, so sending gets EPIPE (it was a BrokenPipeError, which the CLI
    # took for a closed stdout and so for success).
    path = socket_dir / "gone"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    client = Client.connect(path, autostart=False)
    listener.close()
    with client, pytest.raises(TermuxError) as refused:
        client.request("session.list")
    assert refused.value.code == "disconnected"


def test_a_line_that_is_not_json_is_bad_reply(fake_path: Path, termux_env: dict[str, str]) -> None:
    def garbage(conn: socket.socket) -> None:
        conn.recv(4096)
        conn.sendall(b"\xff not json\n")

    with FakeServer(fake_path, garbage):
        result = run_cli(termux_env, "-S", str(fake_path), "ls")
    assert result.returncode == 3
    assert result.stderr.startswith("termux: the server sent a line that is not JSON")
    assert result.stderr.endswith("(bad_reply)\n")


def test_only_a_closed_stdout_is_a_quiet_exit(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "a", "--", "sleep", "60")
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will read what ls prints
    try:
        result = subprocess.run([*TERMUX, "ls"], env=server.env, stdout=write_end, stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(write_end)
    assert (result.returncode, result.stderr) == (0, b"")


# -- bad paths and numbers -----------------------------------------------------------------------


def test_a_missing_socket_directory_is_one_line(termux_env: dict[str, str]) -> None:
    for verb in (["ls"], ["new", "-d", "--", "true"], ["server"]):
        result = run_cli(termux_env, "-S", "/nonexistent/dir/sock", *verb)
        assert (result.returncode, result.stderr) == (3, "termux: socket directory /nonexistent/dir does not exist\n")


def test_a_socket_path_too_long_says_so(socket_dir: Path, termux_env: dict[str, str]) -> None:
    path = socket_dir / ("x" * 120)
    for verb in (["ls"], ["new", "-d", "--", "true"], ["server"]):
        result = run_cli(termux_env, "-S", str(path), *verb)
        assert result.returncode == 3
        size = len(os.fsencode(path))
        why = f"({size} bytes; a Unix socket path holds at most 107)"
        assert result.stderr == f"termux: socket path {path} is too long {why}\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["wait", "-t", "x", "--exit", "--timeout", "inf"],
        ["wait", "-t", "x", "--quiet", "inf"],
        ["wait", "-t", "x", "--quiet", "nan"],
        ["wait", "-t", "x", "--exit", "--timeout", "1e300"],
        ["events", "--timeout", "inf"],
        ["server", "--quiet-after", "inf"],
    ],
)
def test_seconds_must_be_finite(termux_env: dict[str, str], argv: list[str]) -> None:
    result = run_cli(termux_env, *argv)
    assert result.returncode == 2
    assert "must be a finite number of seconds up to 2592000 (30 days)" in result.stderr.splitlines()[-1]


CURSOR_USAGE = "termux events: error: argument --cursor: must be an integer of 0 or more,"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["server", "--history", "-1"], "termux: --history must be 0 to 1000000 lines, not -1"),
        (["server", "--history", "1000001"], "termux: --history must be 0 to 1000000 lines, not 1000001"),
        (["events", "--cursor", "abc"], f"{CURSOR_USAGE} not 'abc'"),
        (["events", "--cursor", "-5"], f"{CURSOR_USAGE} not '-5'"),
        # these raised NameError once the one-shot path stopped importing argparse
        (["server", "--own-nice", "5"], "termux server: error: argument --own-nice: must be -20 to 0, not 5"),
        (
            ["new", "--background-idle", "maybe"],
            "termux new: error: argument --background-idle: must be on or off, not 'maybe'",
        ),
    ],
)
def test_numbers_out_of_range_are_bad_usage_in_termux_words(
    termux_env: dict[str, str], argv: list[str], message: str
) -> None:
    # `server --history -1` used to start a server; `--cursor abc` named a Python function
    result = run_cli(termux_env, *argv)
    assert (result.returncode, result.stderr.splitlines()[-1]) == (2, message)


def test_termux_names_the_socket_absolutely(socket_dir: Path, termux_env: dict[str, str]) -> None:
    # A server started by `-S rel` in one directory; $TERMUX is used from others: it must be absolute.
    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [*TERMUX, "-S", "rel", *argv]
        return subprocess.run(command, env=termux_env, cwd=socket_dir, capture_output=True, text=True, timeout=60)

    created = cli("new", "-d", "-s", "v", "--", "sh", "-c", 'echo "<$TERMUX>"; sleep 60')
    try:
        assert created.returncode == 0, created.stderr
        wait_for_screen(socket_dir / "rel", "v", f"<{socket_dir / 'rel'},%0>")
    finally:
        cli("kill-server")
