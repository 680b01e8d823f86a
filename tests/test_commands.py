"""The table of commands (termux/commands.py) against what it feeds: the server's structs and
handlers, the CLI's verbs and tmux names, docs/cli.md, and the TUI's bindings."""

from __future__ import annotations

import typing
from pathlib import Path

import msgspec
import msgspec.inspect as mi
import pytest

from termux import cli
from termux.commands import (
    ACTIONS,
    COMMANDS,
    FILTER,
    SESSION,
    CommandSpec,
    Opt,
    action_names,
    bindable,
    count,
    env_pair,
    first_line,
    last_line,
    nice,
    on_off,
    resolve,
    seconds,
    seconds_or_zero,
    verb_names,
)
from tests.conftest import RunningServer, wait_for_screen

DOCS = Path(__file__).parent.parent / "docs" / "cli.md"
PROTOCOL = [spec for spec in COMMANDS if spec.cmd is not None]


def _kinds(info: mi.Type) -> set[type[mi.Type]]:
    """The msgspec type kinds a field accepts (a union's members, Annotated's inner type)."""
    if isinstance(info, mi.UnionType):
        return {kind for member in info.types for kind in _kinds(member)}
    return {type(info)}


def _wants(opt: Opt) -> type[mi.Type]:
    """The kind of struct field an option's value must fill."""
    if opt.switch or opt.type is on_off:
        return mi.BoolType
    if opt.nargs in ("*", "...") or (opt.repeat and opt.type is not env_pair):
        return mi.ListType
    if opt.repeat:
        return mi.DictType  # KEY=VALUE pairs become an object
    if opt.type in (int, count, nice, first_line, last_line):
        return mi.IntType
    if opt.type in (seconds, seconds_or_zero):
        return mi.FloatType
    assert opt.type is None, f"{opt.dest}: an option type this test does not know"
    return mi.StrType


def _fields(spec: CommandSpec) -> dict[str, mi.Field]:
    info = mi.type_info(resolve(spec.args))
    assert isinstance(info, mi.StructType)
    return {field.name: field for field in info.fields}


@pytest.mark.parametrize("spec", PROTOCOL, ids=lambda spec: spec.cmd)
def test_each_command_names_its_struct_and_a_handler_taking_it(spec: CommandSpec) -> None:
    struct = resolve(spec.args)
    assert issubclass(struct, msgspec.Struct) and struct.__struct_config__.forbid_unknown_fields
    assert spec.handler is not None, "every protocol command has a handler"
    hints = typing.get_type_hints(resolve(spec.handler))
    assert hints["args"] is struct  # the handler's own annotation agrees with the table


@pytest.mark.parametrize("spec", [s for s in COMMANDS if s.verb is not None], ids=lambda spec: spec.verb)
def test_each_option_fills_a_field_of_its_struct_with_a_value_it_takes(spec: CommandSpec) -> None:
    if spec.cmd is None:  # `server`: every option is the command line's own
        assert all(opt.fills is None for opt in spec.opts)
        return
    fields = _fields(spec)
    for opt in spec.opts:
        if opt.buffer:
            assert {"index", "name"} <= set(fields)
            continue
        if opt.fills is None:
            continue
        assert opt.fills in fields, f"{spec.verb} {opt.flags or opt.dest}: no field `{opt.fills}` in {spec.args}"
        accepted = _kinds(fields[opt.fills].type)
        assert _wants(opt) in accepted or mi.AnyType in accepted, (spec.verb, opt.dest, accepted)
    if spec.target == SESSION:
        assert fields["target"].required
    if spec.target == FILTER:
        assert "session" in fields
    # a required field the command line cannot fill would make the verb unusable
    filled = {opt.fills for opt in spec.opts} | ({"target"} if spec.target == SESSION else set())
    for field in fields.values():
        assert not field.required or field.name in filled, f"{spec.verb}: nothing fills `{field.name}`"


def test_names_are_unique_across_the_table() -> None:
    cmds = [spec.cmd for spec in PROTOCOL]
    assert len(cmds) == len(set(cmds))
    verbs = [name for spec in COMMANDS for name in spec.names]
    assert len(verbs) == len(set(verbs)) == len(verb_names())
    actions = [name for action in bindable() for name in (action.name, *action.aliases)]
    assert len(actions) == len(set(actions)) == len(action_names())
    keys = [action.key for action in bindable() if action.key is not None]
    assert len(keys) == len(set(keys))  # no default key runs two things


def test_every_handler_in_the_server_is_in_the_table() -> None:
    """No command registers itself elsewhere: the dispatch is exactly the table's."""
    from termux.server import dispatch

    assert set(dispatch.COMMANDS) == {spec.cmd for spec in PROTOCOL}
    for spec in PROTOCOL:
        assert dispatch.COMMANDS[str(spec.cmd)].handler is resolve(str(spec.handler))


def test_docs_cli_md_lists_the_verbs_as_the_table_says() -> None:
    text = DOCS.read_text()
    begin, end = text.index(cli.VERBS_BEGIN), text.index(cli.VERBS_END) + len(cli.VERBS_END) + 1
    assert text[begin:end] == cli.verbs_markdown(), "docs/cli.md is stale: `python -m termux.cli` prints the table"


def test_the_synopsis_comes_from_the_options() -> None:
    named = verb_names()
    assert cli.synopsis(named["wait"]) == "wait -t TARGET (--exit | --match REGEX | --quiet S) [--timeout S] [--json]"
    assert cli.synopsis(named["new"]).endswith(
        "[-e KEY=VALUE]... [--background-nice N] [--background-idle on|off] [--json] [-- CMD [ARG...]]"
    )
    assert cli.synopsis(named["attach"]) == "attach [-t TARGET] [-d] [--layout NAME]"
    assert cli.synopsis(named["server"]).startswith("server [--history N]")  # --daemon, --ready-fd are hidden


def test_a_tmux_name_builds_its_verb_alone_under_that_name() -> None:
    import argparse

    parser = cli.build_parser(only="list-sessions")
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(action.choices) == ["list-sessions"]
    args = parser.parse_args(["list-sessions", "--json"])
    assert args.spec is verb_names()["ls"] and args.json
    full = cli.build_parser()
    (every,) = [a for a in full._actions if isinstance(a, argparse._SubParsersAction)]
    assert {"attach-session", "a", "new-session", "send-keys", "capture-pane", "kill-session"} <= set(every.choices)


def test_bindings_can_name_commands_and_tui_actions_by_their_tmux_names() -> None:
    names = action_names()
    assert names["new-session"].name == names["new"].name == "new"  # a command with a key's help
    assert names["detach-client"].name == "detach"  # a TUI action
    assert "ls" not in names  # a command no key runs
    assert {action.name for action in ACTIONS} <= set(names)


# -- the aliases against a real server -----------------------------------------------------------


def test_tmux_names_run_their_verbs(server: RunningServer) -> None:
    def ok(*argv: str) -> str:
        done = server.run(*argv)
        assert done.returncode == 0, (argv, done.stderr)
        return done.stdout

    assert ok("new-session", "-d", "-s", "cat", "--", "cat") == "cat\n"
    assert ok("list-sessions").splitlines()[1].split()[1] == "cat"
    ok("send-keys", "-t", "cat", "typed", "Enter")
    wait_for_screen(server.path, "cat", "typed")
    assert "typed" in ok("capture-pane", "-t", "cat")
    ok("rename-session", "-t", "cat", "dog")
    ok("has-session", "-t", "dog")
    ok("setb", "clip")
    assert ok("showb") == "clip"
    assert ok("lsb").startswith("buffer0: 4 bytes")
    ok("kill-session", "-t", "dog")
    gone = server.run("has-session", "-t", "dog")
    assert (gone.returncode, gone.stderr) == (1, "termux: no session 'dog' (no_session)\n")


def test_tmux_capture_pane_p_prints_as_capture_does(server: RunningServer) -> None:
    """`capture-pane -p` is how a tmux user prints a pane; termux's capture always prints."""
    assert server.run("new-session", "-d", "-s", "cat", "--", "cat").returncode == 0
    server.run("send-keys", "-t", "cat", "typed", "Enter")
    wait_for_screen(server.path, "cat", "typed")
    for argv in (["capture-pane", "-p", "-t", "cat"], ["capture-pane", "-pt", "cat"], ["capture", "-p", "-t", "cat"]):
        done = server.run(*argv)
        assert done.returncode == 0, (argv, done.stderr)
        assert "typed" in done.stdout


def test_capture_pane_s_dash_and_e_dash_are_the_history_start_and_screen_end(server: RunningServer) -> None:
    """tmux's `-S -` is the oldest history line and `-E -` the last line of the screen."""
    assert server.run("new", "-d", "-s", "seq", "-y", "10", "--", "sh", "-c", "seq 1 40; exec cat").returncode == 0
    wait_for_screen(server.path, "seq", "40")
    done = server.run("capture-pane", "-p", "-t", "seq", "-S", "-", "-E", "-")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["1", "2"] and "40" in lines
    assert server.run("capture", "-t", "seq", "-S", "-", "-E", "-").stdout == done.stdout
    bad = server.run("capture", "-t", "seq", "-S", "x")
    assert bad.returncode == 2 and "a line number or - (tmux's" in bad.stderr


def test_new_session_a_uses_the_session_of_that_name_when_there_is_one(server: RunningServer) -> None:
    """tmux's `new -A -s NAME`: attach to NAME if it exists, else create it (with -d: print its name)."""
    for _ in range(2):
        done = server.run("new-session", "-A", "-d", "-s", "main", "--", "cat")
        assert (done.returncode, done.stdout, done.stderr) == (0, "main\n", "")
    assert [line.split()[1] for line in server.run("ls").stdout.splitlines()[1:]] == ["main"]
    taken = server.run("new-session", "-d", "-s", "main", "--", "cat")  # without -A the name is taken
    assert taken.returncode == 1 and "exists" in taken.stderr


def test_a_tmux_window_or_pane_target_is_explained(server: RunningServer) -> None:
    assert server.run("new-session", "-d", "-s", "cat", "--", "cat").returncode == 0
    done = server.run("send-keys", "-t", "cat:0.1", "x")
    assert done.returncode == 1
    assert done.stderr == (
        "termux: no session 'cat:0.1' (no_session); -t names a session (termux has no windows): try -t cat\n"
    )


def test_an_unknown_option_names_the_verb_and_its_help(server: RunningServer) -> None:
    done = server.run("list-sessions", "-f", "#{session_attached}")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "termux list-sessions: error: unrecognized arguments: -f #{session_attached} "
        "(`termux list-sessions --help` lists its options)"
    )


def test_has_session_needs_a_target(server: RunningServer) -> None:
    done = server.run("has-session")
    assert done.returncode == 2 and "no target session" in done.stderr


def test_a_verbs_request_is_read_from_its_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TERMUX", raising=False)

    def request(*argv: str) -> dict[str, object]:
        args = cli.build_parser(only=argv[0]).parse_args(list(argv))
        return cli.request_of(args.spec, args)

    assert request("paste-buffer", "-t", "w", "-b", "2", "-p") == {
        "target": "w", "index": 2, "bracketed": True, "delete": False,
    }  # fmt: skip
    assert request("pasteb", "-t", "w", "-b", "clip") == {"target": "w", "name": "clip", "bracketed": False,
                                                          "delete": False}  # fmt: skip
    assert request("new", "-d", "-s", "x", "-e", "A=1", "-e", "B=2=3", "--", "cat") == {
        "name": "x", "env": {"A": "1", "B": "2=3"}, "command": ["--", "cat"],  # cmd_new drops the "--"
    }  # fmt: skip
    assert request("events", "-t", "w", "--cursor", "3") == {"session": "w", "cursor": 3}
    assert request("resize", "-t", "w", "100", "30") == {"target": "w", "cols": 100, "rows": 30}
    with pytest.raises(cli.UsageError, match="no target session"):
        request("kill")
