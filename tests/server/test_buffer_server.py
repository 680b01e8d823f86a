"""Paste buffers against a real server: the protocol commands, their events, the CLI verbs, and
pastes typed into real programs (bracketed when the program asked)."""

from __future__ import annotations

import base64
import json

from tests.conftest import RunningServer, run_cli, wait_for_screen


def test_set_list_get_delete_and_their_events(server: RunningServer) -> None:
    with server.client() as client:
        cursor = client.request("events.read")["cursor"]
        first = client.request("buffer.set", text="hello")["buffer"]
        second = client.request("buffer.set", data=base64.b64encode(b"\x00\xff bytes").decode(), name="raw")["buffer"]
        assert (first["name"], first["size"], second["name"], second["index"]) == ("buffer0", 5, "raw", 0)
        listed = client.request("buffer.list")["buffers"]
        assert [(b["index"], b["name"], b["sample"]) for b in listed] == [
            (0, "raw", "\x00\ufffd bytes"),
            (1, "buffer0", "hello"),
        ]
        got = client.request("buffer.get", index=1)
        assert base64.b64decode(got["data"]) == b"hello" and got["buffer"]["index"] == 1
        assert base64.b64decode(client.request("buffer.get", name="raw")["data"]) == b"\x00\xff bytes"
        assert client.request("buffer.delete")["buffer"]["name"] == "raw"
        events = client.request("events.read", cursor=cursor, types=["buffer.changed", "buffer.deleted"])["events"]
        assert [(e["type"], e["session"], e["data"]) for e in events] == [
            ("buffer.changed", None, {"buffer": "buffer0", "size": 5}),
            ("buffer.changed", None, {"buffer": "raw", "size": 8}),
            ("buffer.deleted", None, {"buffer": "raw", "reason": "deleted"}),
        ]
        assert "buffer.paste" in client.request("server.hello")["capabilities"]


def test_bad_requests_get_clear_errors_and_the_server_goes_on(server: RunningServer) -> None:
    with server.client() as client:
        for args, code, words in [
            ({}, "bad_args", "exactly one of `data` (base64) or `text`"),
            ({"text": "a", "data": "YQ=="}, "bad_args", "exactly one of"),
            ({"data": "not base64!"}, "bad_args", "`data` is not valid base64"),
            ({"text": "a", "name": "bad\x1bname"}, "bad_args", "invalid buffer name"),
        ]:
            reply = _error(client, "buffer.set", **args)
            assert (reply.code, words in reply.message) == (code, True), reply.message
        assert _error(client, "buffer.get").code == "no_buffer"
        assert _error(client, "buffer.get", index=-1).code == "bad_args"
        assert _error(client, "buffer.get", index=0, name="x").message == "give `index` or `name`, not both"
        client.request("buffer.set", text="x")
        assert _error(client, "buffer.paste", target="nope").code == "no_session"
        client.request("session.new", name="gone", command=["true"])
        client.request("session.wait", target="gone", exit=True)
        assert _error(client, "buffer.paste", target="gone").code == "not_running"
        assert _error(client, "buffer.delete", name="nope").message == "no paste buffer named 'nope'"
        assert client.request("buffer.list")["buffers"][0]["name"] == "buffer0"


def _error(client, cmd: str, **args):  # type: ignore[no-untyped-def]
    from termux.client import TermuxError

    try:
        client.request(cmd, **args)
    except TermuxError as exc:
        return exc
    raise AssertionError(f"{cmd} {args} did not fail")


def test_the_limit_drops_the_oldest_and_says_so(server: RunningServer) -> None:
    with server.client() as client:
        for i in range(51):
            client.request("buffer.set", text=f"text {i}")
        listed = client.request("buffer.list")["buffers"]
        assert len(listed) == 50 and listed[-1]["sample"] == "text 1"
        dropped = client.request("events.read", cursor=0, types=["buffer.deleted"])["events"]
        assert [e["data"] for e in dropped] == [{"buffer": "buffer0", "reason": "limit"}]


def test_paste_types_the_buffer_into_a_real_program(server: RunningServer) -> None:
    """Line ends become CR, the terminal turns them into new lines, and the program reads lines."""
    server.run("new", "-d", "-s", "sed", "--", "sed", "-u", "s/^/got: /")
    assert server.run("set-buffer", "first line\nsecond line\n").returncode == 0
    pasted = server.run("paste-buffer", "-t", "sed")
    assert (pasted.returncode, pasted.stderr) == (0, "")
    lines = wait_for_screen(server.path, "sed", "got: second line")
    # The terminal echoes the paste as it arrives and sed answers line by line: in some order.
    expected = ["first line", "got: first line", "got: second line", "second line"]
    assert sorted(line for line in lines if line) == expected


BRACKETING = "printf '\\033[?2004hready\\n'; exec cat"  # asks for bracketed paste, then echoes input


def test_paste_is_bracketed_when_asked_and_the_program_enabled_it(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "asks", "--", "sh", "-c", BRACKETING)
    server.run("new", "-d", "-s", "plain", "--", "cat")
    wait_for_screen(server.path, "asks", "ready")
    server.run("set-buffer", "pasted")
    # The terminal echoes what it is sent, ESC as ^[ : the brackets show on the screen.
    assert server.run("paste-buffer", "-t", "asks", "-p").returncode == 0
    wait_for_screen(server.path, "asks", "^[[200~pasted^[[201~")
    # Without -p, never bracketed (as tmux) …
    server.run("send", "-t", "asks", "Enter")
    server.run("delete-buffer")
    server.run("set-buffer", "second")
    server.run("paste-buffer", "-t", "asks")
    lines = wait_for_screen(server.path, "asks", "second")
    assert [line for line in lines if "second" in line] == ["second"]
    # … and with -p, bracketed only if the program asked: cat did not.
    server.run("paste-buffer", "-t", "plain", "-p", "-d")
    lines = wait_for_screen(server.path, "plain", "second")
    assert not any("200~" in line for line in lines)
    assert server.run("buffers").stdout == ""  # -d deleted it once pasted


def test_show_buffer_prints_the_bytes_exactly(server: RunningServer) -> None:
    data = b"tab\there\nesc \x1b[31m red\n\xff end"
    assert run_cli(server.env, "set-buffer", "--stdin", input=data).returncode == 0
    shown = _run_bytes(server, "show-buffer")
    assert shown == data


def _run_bytes(server: RunningServer, *args: str) -> bytes:
    import subprocess

    from e2e.isolated import TERMUX

    return subprocess.run([*TERMUX, *args], env=server.env, capture_output=True, check=True).stdout


def test_show_buffer_on_a_terminal_escapes_control_characters(server: RunningServer) -> None:
    server.run("set-buffer", "title \x1b]0;pwned\x07 here\nnext\tline")
    term = server.terminal("show-buffer")
    assert term.wait_exit() == 0
    text = term.text
    assert "title \\033]0;pwned\\a here" in text and "next" in text and "pwned\x07" not in text
    assert term.screen.title != "pwned"


def test_set_buffer_from_stdin_in_chunks(server: RunningServer) -> None:
    data = bytes(range(256)) * 5000  # 1.28 MB: three requests of 512 KiB
    made = run_cli(server.env, "set-buffer", "--stdin", "-b", "big", "--json", input=data)
    assert made.returncode == 0 and json.loads(made.stdout)["size"] == len(data)
    assert _run_bytes(server, "show-buffer", "-b", "big") == data
    (listed,) = server.run("buffers").stdout.splitlines()
    sample = "".join(f"\\{c:03o}" for c in range(32)).replace("\\007", "\\a").replace("\\010", "\\b")
    for code, name in ((9, "t"), (10, "n"), (11, "v"), (12, "f"), (13, "r")):
        sample = sample.replace(f"\\{code:03o}", f"\\{name}")
    assert listed == f'big: {len(data)} bytes: "{sample} !"#$%&\'()*+,-./01"'  # the first 50, escaped


def test_buffer_verbs(server: RunningServer) -> None:
    assert server.run("set-buffer", "one").returncode == 0
    assert server.run("set-buffer", "-b", "named", "two").returncode == 0
    assert server.run("set-buffer", "-a", "-b", "named", " more").returncode == 0
    assert server.run("list-buffers").stdout == 'named: 8 bytes: "two more"\nbuffer0: 3 bytes: "one"\n'
    assert [b["name"] for b in json.loads(server.run("buffers", "--json").stdout)] == ["named", "buffer0"]
    assert server.run("show-buffer").stdout == "two more"
    assert server.run("show-buffer", "-b", "1").stdout == "one"
    assert server.run("show-buffer", "-b", "buffer0").stdout == "one"
    assert server.run("delete-buffer", "-b", "named").returncode == 0
    assert server.run("buffers").stdout == 'buffer0: 3 bytes: "one"\n'
    missing = server.run("show-buffer", "-b", "7")
    assert missing.returncode == 1
    assert missing.stderr == "termux: no paste buffer 7: there are 1 (0 is the newest) (no_buffer)\n"
    usage = server.run("set-buffer")
    assert (usage.returncode, usage.stderr) == (2, "termux: give the buffer's TEXT or --stdin (not both)\n")
    no_target = server.run("paste-buffer")
    assert no_target.returncode == 2 and "no target session" in no_target.stderr


def test_buffer_verbs_start_no_server(run_termux) -> None:  # type: ignore[no-untyped-def]
    result = run_termux("buffers")
    assert result.returncode == 1 and "no server running" in result.stderr and "(no_server)" in result.stderr
