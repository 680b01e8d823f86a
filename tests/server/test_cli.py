"""Every CLI verb against a real server: output, errors and exit codes."""

from __future__ import annotations

import json
import os
import signal

from tests.conftest import RunningServer, run_cli, wait_for_screen


def test_new_prints_the_name_and_ls_lists_the_session(server: RunningServer) -> None:
    created = server.run("new", "-d", "-s", "work", "-x", "100", "-y", "30", "--", "sleep", "60")
    assert (created.returncode, created.stdout, created.stderr) == (0, "work\n", "")
    listed = server.run("ls", "--json")
    assert listed.returncode == 0
    (session,) = json.loads(listed.stdout)
    assert session["name"] == "work"
    assert session["command"] == ["sleep", "60"]
    assert (session["cols"], session["rows"], session["state"]) == (100, 30, "running")
    assert session["id"].startswith("%")
    os.kill(session["pid"], 0)  # the child really runs
    human = server.run("ls")
    assert human.stdout.splitlines()[0].split()[:3] == ["ID", "NAME", "STATE"]
    assert "work" in human.stdout.splitlines()[1]


def test_default_names_count_up_and_names_are_unique(server: RunningServer) -> None:
    assert server.run("new", "-d", "--", "sleep", "60").stdout == "0\n"
    assert server.run("new", "-d", "--", "sleep", "60").stdout == "1\n"
    taken = server.run("new", "-d", "-s", "1", "--", "sleep", "60")
    assert taken.returncode == 1
    assert "exists" in taken.stderr


def test_send_types_text_and_keys_and_capture_reads_the_screen(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "sh", "--", "sh")
    assert server.run("send", "-t", "sh", "echo $((6*7))", "Enter").returncode == 0
    lines = wait_for_screen(server.path, "sh", "42")
    assert "42" in [line.strip() for line in lines]
    captured = server.run("capture", "-t", "sh")
    assert captured.returncode == 0
    assert "42" in captured.stdout.splitlines()
    as_json = json.loads(server.run("capture", "-t", "sh", "--json").stdout)
    assert as_json["cols"] == 80 and "42" in as_json["lines"]


def test_send_literal_types_key_names_as_text(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "cat", "--", "cat")
    server.run("send", "-t", "cat", "-l", "Enter")
    server.run("send", "-t", "cat", "Enter")
    wait_for_screen(server.path, "cat", "Enter")


def test_send_stdin_passes_bytes_unchanged(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "od", "--", "sh", "-c", "od -c | head -2")
    sent = run_cli(server.env, "send", "-t", "od", "--stdin", input=b"\x01\xff\n\x04")  # binary: not text
    assert sent.returncode == 0
    wait_for_screen(server.path, "od", "001 377")


def test_rename_resize_and_kill(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "old", "--", "sleep", "60")
    assert server.run("rename", "-t", "old", "new").returncode == 0
    assert server.run("resize", "-t", "new", "120", "40").returncode == 0
    (session,) = json.loads(server.run("ls", "--json").stdout)
    assert (session["name"], session["cols"], session["rows"]) == ("new", 120, 40)
    assert server.run("kill", "-t", "new").returncode == 0
    assert json.loads(server.run("ls", "--json").stdout) == []


def test_unknown_target_is_a_clear_error_for_every_verb(server: RunningServer) -> None:
    for verb in (["send", "-t", "nope", "x"], ["capture", "-t", "nope"], ["kill", "-t", "nope"],
                 ["rename", "-t", "nope", "x"], ["resize", "-t", "nope", "80", "24"]):  # fmt: skip
        result = server.run(*verb)
        assert result.returncode == 1, verb
        assert "no session 'nope'" in result.stderr and "no_session" in result.stderr
        assert "Traceback" not in result.stderr


def test_usage_errors_exit_2_without_a_traceback(server: RunningServer) -> None:
    for argv in (
        ["resize", "-t", "x", "wide", "24"],
        ["send"],
        ["bogus-verb"],
        ["new", "-d", "-e", "NOEQUALS"],
    ):
        result = server.run(*argv)
        assert result.returncode == 2, (argv, result)
        assert "Traceback" not in result.stderr and result.stderr


def test_out_of_range_sizes_are_refused(server: RunningServer) -> None:
    result = server.run("new", "-d", "-x", "0", "--", "true")
    assert result.returncode == 1 and "bad_args" in result.stderr
    server.run("new", "-d", "-s", "s", "--", "sleep", "60")
    result = server.run("resize", "-t", "s", "80", "100000")
    assert result.returncode == 1 and "bad_args" in result.stderr


def test_missing_command_is_spawn_failed(server: RunningServer) -> None:
    result = server.run("new", "-d", "--", "/no/such/program")
    assert result.returncode == 1 and "spawn_failed" in result.stderr
    result = server.run("new", "-d", "-c", "/no/such/dir", "--", "true")
    assert result.returncode == 1 and "spawn_failed" in result.stderr


def test_stats_and_kill_server(server: RunningServer) -> None:
    stats = json.loads(server.run("stats", "--json").stdout)
    assert stats["pid"] == server.process.pid
    assert server.run("kill-server").returncode == 0
    assert server.process.wait(10) == 0
    gone = server.run("stats")
    assert (gone.returncode, gone.stderr) == (1, f"termux: no server running on {server.path} (no_server)\n")


# Every verb that only reads or acts on what exists; with no server, each says so as tmux does.
READING_VERBS = [
    ["ls"], ["ls", "--json"], ["send", "-t", "x", "a"], ["capture", "-t", "x"], ["kill", "-t", "x"],
    ["rename", "-t", "x", "y"], ["resize", "-t", "x", "80", "24"], ["wait", "-t", "x", "--exit"],
    ["events", "--timeout", "1"], ["stats"], ["kill-server"],
]  # fmt: skip


def test_verbs_that_only_read_say_no_server_running_and_start_none(run_termux, socket_dir) -> None:  # type: ignore[no-untyped-def]
    for verb in READING_VERBS:
        result = run_termux(*verb)
        assert (result.returncode, result.stdout) == (1, ""), verb
        assert result.stderr == f"termux: no server running on {socket_dir / 'default'} (no_server)\n", verb
    assert not (socket_dir / "default").exists()
    assert not (socket_dir / "default.log").exists()  # nobody tried to start one


def test_new_starts_a_server_when_none_runs(run_termux, socket_dir) -> None:  # type: ignore[no-untyped-def]
    try:
        assert run_termux("new", "-d", "-s", "made", "--", "sleep", "60").stdout == "made\n"
        assert "made" in run_termux("ls").stdout
    finally:
        run_termux("kill-server")


def test_version(run_termux) -> None:  # type: ignore[no-untyped-def]
    from termux import __version__

    assert run_termux("--version").stdout == f"termux {__version__}\n"


def test_termux_variable_names_socket_and_session(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "inner", "--", "sh", "-c", 'echo "[$TERMUX] [$TERM]"; sleep 60')
    lines = wait_for_screen(server.path, "inner", "[")
    (session,) = json.loads(server.run("ls", "--json").stdout)
    assert f"[{server.path},{session['id']}] [xterm-256color]" in lines


def test_cwd_and_env_reach_the_child(server: RunningServer, socket_dir) -> None:  # type: ignore[no-untyped-def]
    result = server.run("new", "-d", "-s", "e", "-c", str(socket_dir), "-e", "GREETING=hello there",
                        "--", "sh", "-c", 'echo "$PWD|$GREETING"; sleep 60')  # fmt: skip
    assert result.returncode == 0, result.stderr
    wait_for_screen(server.path, "e", f"{socket_dir}|hello there")


def test_exit_code_and_signal_are_recorded(server: RunningServer) -> None:
    with server.client() as client:
        client.request("client.attach")
        client.request("session.new", name="three", command=["sh", "-c", "exit 3"])
        client.request("session.new", name="term", command=["sh", "-c", "kill -TERM $$"])
        pending = {"three", "term"}
        while pending:
            push = client.next_push(20)
            assert push is not None, "no exit event"
            if push.get("push") == "event" and push["event"]["type"] == "session.exited":
                pending.discard(push["event"]["name"])
    sessions = {s["name"]: s for s in json.loads(server.run("ls", "--json").stdout)}
    assert (sessions["three"]["state"], sessions["three"]["exit_code"]) == ("exited", 3)
    assert sessions["term"]["exit_signal"] == signal.SIGTERM
    assert "exited 3" in server.run("ls").stdout
    # an exited session still answers capture until it is killed
    assert server.run("capture", "-t", "three").returncode == 0
    assert server.run("kill", "-t", "three").returncode == 0


def test_capture_reports_the_last_column_while_the_cursor_waits_to_wrap(server: RunningServer) -> None:
    # 80 characters fill the line; the cursor waits past the end to wrap, but it is on the last
    # column (tmux's cursor_x), never on a column 80 that does not exist.
    server.run("new", "-d", "-s", "full", "-x", "80", "-y", "5", "--", "sh", "-c", "printf %080d 0; sleep 60")
    wait_for_screen(server.path, "full", "0" * 80)
    cursor = json.loads(server.run("capture", "-t", "full", "--json").stdout)["cursor"]
    assert (cursor["x"], cursor["y"]) == (79, 0)
    # One more character wraps: the cursor is then after it on the next line.
    server.run("new", "-d", "-s", "wrapped", "-x", "80", "-y", "5", "--", "sh", "-c", "printf %081d 0; sleep 60")
    wait_for_screen(server.path, "wrapped", "0" * 80)
    cursor = json.loads(server.run("capture", "-t", "wrapped", "--json").stdout)["cursor"]
    assert (cursor["x"], cursor["y"]) == (1, 1)
