"""The `termux` command: one verb a subcommand, each built from its entry in the command table
(termux/commands.py) — its options, help, tmux names, target rule — and most a single request.

Exit statuses (docs/cli.md): 0 success, 1 the server refused the request (its error code and
message on stderr) or no server is running, 2 bad usage, 3 no server could be talked to (unsafe
socket, another user's server, the connection lost before the reply, a failed start), 124 a wait
timed out, 130 interrupted. Text from the server is printed with its control characters escaped
(termux.text.visible); only a closed stdout ends the command quietly.
"""

from __future__ import annotations

import json
import os
import sys
import time
from types import SimpleNamespace

from termux import __version__
from termux.argv import SOCKET_NAME, SOCKET_PATH, verb_named
from termux.client import Client, TermuxError
from termux.commands import COMMANDS, FILTER, SESSION, CommandSpec, Opt, resolve, verb_names
from termux.defaults import MAX_HISTORY
from termux.paths import SocketDirError, inherited_session, socket_path
from termux.text import visible, visible_lines

# A one-shot call parses its command line without argparse (`quick_parse`) and imports neither it
# nor typing; both are for the type checker here, argparse also for --help and mistakes.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

    # A verb's runner: the parsed command line and the request its table entry built from it.
    Verb = Callable[[SimpleNamespace, dict[str, Any]], int]

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_NO_SERVER, EXIT_TIMEOUT, EXIT_INTERRUPTED = 0, 1, 2, 3, 124, 130
STDIN_CHUNK = 512 * 1024  # raw bytes per request; base64 keeps each request under 1 MiB
# Client error codes that mean the server could not be talked to (exit 3); `no_server`, nothing
# listening, is exit 1 as in tmux.
UNREACHABLE = ("unreachable", "untrusted", "disconnected", "bad_reply", "start_failed")


class UsageError(Exception):
    """A mistake on the command line that argparse could not catch."""


def connect(args: SimpleNamespace, autostart: bool = False) -> Client:
    """Only verbs that make something (`new`, the TUI, `server`) start a server; every other one
    says `no server running on PATH`, as tmux."""
    return Client.connect(args.socket_path, name=args.socket_name, autostart=autostart)


def target(args: SimpleNamespace) -> str:
    if args.target:
        return str(args.target)
    if (own := inherited_session()) is not None:
        return own
    raise UsageError("no target session: give -t NAME (or run inside a termux session)")


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=None, ensure_ascii=False))


def which(value: str | None) -> dict[str, Any]:
    """`-b N` (an index) or `-b NAME` as request arguments."""
    if value is None:
        return {}
    return {"index": int(value)} if value.isascii() and value.isdigit() else {"name": value}


def request_of(spec: CommandSpec, args: SimpleNamespace) -> dict[str, Any]:
    """The request's arguments, read from the command line by the spec's target rule and options."""
    request: dict[str, Any] = {}
    if spec.target == SESSION:
        request["target"] = target(args)
    elif spec.target == FILTER and args.target:
        request["session"] = args.target
    for opt in spec.opts:
        value = getattr(args, opt.dest)
        if opt.fills is None or value is None or value == []:
            continue  # the command line's own, or left to the server's default
        if opt.buffer:
            request.update(which(value))
        elif opt.repeat and isinstance(value[0], tuple):
            request[opt.fills] = dict(value)
        else:
            request[opt.fills] = value
    return request


# -- verbs ---------------------------------------------------------------------------------------


def run_request(args: SimpleNamespace, request: dict[str, Any]) -> int:
    """A verb that is one request: send it, print the result with --json, else nothing."""
    spec: CommandSpec = args.spec
    assert spec.cmd is not None
    with connect(args, autostart=spec.starts_server) as client:
        result = client.request(spec.cmd, **request)
    if getattr(args, "json", False):
        print_json(result)
    return EXIT_OK


def cmd_server(args: SimpleNamespace, request: dict[str, Any]) -> int:
    from termux.server.main import run

    path = socket_path(args.socket_name, args.socket_path)
    if args.event_capacity < 1 or args.max_streams < 0:
        raise UsageError("--event-capacity must be at least 1, --max-streams 0 or more")
    if not 0 <= args.history <= MAX_HISTORY:  # the bound session.new's `history` obeys
        raise UsageError(f"--history must be 0 to {MAX_HISTORY} lines, not {args.history}")
    return run(path, **{opt.dest: getattr(args, opt.dest) for opt in args.spec.opts})  # by the names run() takes


def cmd_attach(args: SimpleNamespace, request: dict[str, Any]) -> int:
    from termux.tui import run_tui

    return run_tui(args)


def cmd_new(args: SimpleNamespace, request: dict[str, Any]) -> int:
    command = request.pop("command", [])
    if command[:1] == ["--"]:
        command = command[1:]
    if command:
        request["command"] = command
    request["cwd"] = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    if args.attach_existing and "name" in request and _session_exists(args, request["name"]):
        if args.detached:
            print(visible(request["name"]))
            return EXIT_OK
        from termux.tui import run_tui

        args.target = request["name"]
        return run_tui(args)
    if not args.detached:
        from termux.tui import run_tui

        return run_tui(args, new_session=request)
    with connect(args, autostart=True) as client:
        session = client.request("session.new", **request)["session"]
    print_json(session) if args.json else print(visible(session["name"]))
    return EXIT_OK


def _session_exists(args: SimpleNamespace, name: str) -> bool:
    """Whether a session is named `name` (`new -A`), starting a server when none answers."""
    with connect(args, autostart=True) as client:
        try:
            client.request("session.get", target=name)
        except TermuxError as exc:
            if exc.code != "no_session":
                raise
            return False
    return True


def _format_session(s: dict[str, Any]) -> list[str]:
    if s["state"] == "running":
        state = "running"
    elif s["exit_signal"]:
        state = f"killed by signal {s['exit_signal']}"
    else:
        state = f"exited {s['exit_code']}"
    created = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(s["created"]))
    cells = [
        s["id"], s["name"], state, str(s["pid"]), f"{s['cols']}x{s['rows']}", created,
        str(s["bytes_out"]), s["title"], " ".join(s["command"]),
    ]  # fmt: skip
    return [visible(cell) for cell in cells]


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def cmd_ls(args: SimpleNamespace, request: dict[str, Any]) -> int:
    if args.format is not None and args.json:
        raise UsageError("-F prints lines in its format: give it without --json")
    with connect(args) as client:
        result = client.request("session.list", **request)
    sessions = result["sessions"]
    if args.format is not None:  # the server expanded it (termux/formats.py), its values escaped
        sys.stdout.write("".join(line + "\n" for line in result["lines"]))
    elif args.json:
        print_json(sessions)
    elif sessions:
        header = ["ID", "NAME", "STATE", "PID", "SIZE", "CREATED", "BYTES", "TITLE", "COMMAND"]
        print_table(header, [_format_session(s) for s in sessions])
    return EXIT_OK


def cmd_send(args: SimpleNamespace, request: dict[str, Any]) -> int:
    if args.copy_command is not None:
        raise UsageError(
            f"send -X {args.copy_command}: termux's copy mode is the TUI's own (prefix [), not the session's,"
            " so no command line runs its commands; to copy a session's text from a script, use"
            " `termux capture -S START -E END` (or --grep) and `termux set-buffer --stdin`"
        )
    if args.stdin and args.keys:
        raise UsageError("--stdin sends standard input unchanged; give no ARG with it")
    if not args.stdin and not args.keys:
        raise UsageError("nothing to send: give ARG... or --stdin")
    with connect(args) as client:
        if args.stdin:
            while chunk := sys.stdin.buffer.read(STDIN_CHUNK):
                client.request("session.send", target=request["target"], data=chunk)  # bytes go as base64
        else:
            client.request("session.send", **request)
    return EXIT_OK


def cmd_capture(args: SimpleNamespace, request: dict[str, Any]) -> int:
    """The screen; with --grep, the lines that match (`session.grep`: the server matches, in
    slices), numbered as capture's -S takes them."""
    if args.grep is not None:
        if args.escapes:
            raise UsageError("--grep matches the text: give it without -e")
        if args.join:
            raise UsageError("--grep numbers the rows as -S takes them: give it without -J")
        request.pop("escapes")
        request.pop("join", None)
        with connect(args) as client:
            matches = client.request("session.grep", pattern=args.grep, **request)["matches"]
        if args.json:
            print_json({"matches": matches})
        else:
            sys.stdout.write("".join(f"{m['line']}:{m['text']}\n" for m in matches))
        return EXIT_OK
    with connect(args) as client:
        result = client.request("session.capture", **request)
    if args.json:
        print_json(result)
    else:
        sys.stdout.write("".join(line + "\n" for line in result["lines"]))
    return EXIT_OK


def cmd_stats(args: SimpleNamespace, request: dict[str, Any]) -> int:
    with connect(args) as client:
        stats = client.request("server.stats")
    if args.json:
        print_json(stats)
    else:
        for key, value in stats.items():
            print(visible(f"{key}: {value}"))
    return EXIT_OK


def cmd_events(args: SimpleNamespace, request: dict[str, Any]) -> int:
    from termux.client.events import Follower, parse_types

    follower = Follower(
        lambda first: connect(args),
        cursor=args.cursor,
        types=parse_types(args.types),
        session=args.target,
        poll=args.poll,
        timeout=args.timeout,
        as_json=args.json,
        out=sys.stdout,
        err=sys.stderr,
    )
    follower.run()
    return EXIT_OK


def cmd_wait(args: SimpleNamespace, request: dict[str, Any]) -> int:
    with connect(args) as client:
        try:
            result = client.request("session.wait", **request)
        except TermuxError as exc:
            if exc.code == "timeout":
                print(visible(f"termux wait: {exc.message}"), file=sys.stderr)
                return EXIT_TIMEOUT
            raise
    if args.json:
        print_json(result)
    elif args.exit:
        print(result["exit_code"] if result["exit_code"] is not None else f"signal {result['exit_signal']}")
    elif args.match is not None:
        print(visible(result["match"]))
    return EXIT_OK


def cmd_buffers(args: SimpleNamespace, request: dict[str, Any]) -> int:
    with connect(args) as client:
        buffers = client.request("buffer.list")["buffers"]
    if args.json:
        print_json(buffers)
    else:
        for info in buffers:  # tmux's format: `buffer0: 5 bytes: "hello"`
            print(f'{visible(info["name"])}: {info["size"]} bytes: "{visible(info["sample"])}"')
    return EXIT_OK


def cmd_show_buffer(args: SimpleNamespace, request: dict[str, Any]) -> int:
    """The buffer's bytes, exactly; on a terminal its control characters other than newlines and
    tabs are escaped (a buffer may hold what a program printed)."""
    import base64  # the plain client leaves bytes in a result as the protocol sends them

    with connect(args) as client:
        data = base64.b64decode(client.request("buffer.get", **request)["data"])
    out = sys.stdout
    if out.isatty():
        out.write(visible_lines(data.decode("utf-8", "replace")))
    else:
        out.flush()
        out.buffer.write(data)
    return EXIT_OK


def cmd_set_buffer(args: SimpleNamespace, request: dict[str, Any]) -> int:
    if args.stdin == (args.text is not None):
        raise UsageError("give the buffer's TEXT or --stdin (not both)")
    with connect(args) as client:
        if args.text is not None:
            buffer = client.request("buffer.set", **request)["buffer"]
        else:
            # In chunks: the first sets (or appends, with -a), the rest append to that buffer.
            # Bytes go as base64 (the client encodes them).
            chunk = sys.stdin.buffer.read(STDIN_CHUNK)
            buffer = client.request("buffer.set", data=chunk, **request)["buffer"]
            while chunk := sys.stdin.buffer.read(STDIN_CHUNK):
                buffer = client.request("buffer.set", data=chunk, name=buffer["name"], append=True)["buffer"]
    if args.json:
        print_json(buffer)
    return EXIT_OK


# -- the parser ----------------------------------------------------------------------------------


def _socket_options(parser: argparse.ArgumentParser, top: bool, short_s: bool = True) -> None:
    """-L NAME / -S PATH on the command and on every verb (`capture` keeps tmux's -S START, so
    there the path is given as --socket PATH or before the verb)."""
    import argparse

    default = None if top else argparse.SUPPRESS
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-L", "--socket-name", dest="socket_name", metavar="NAME", default=default, help="socket name")
    flags = ["-S", "--socket"] if short_s else ["--socket"]
    group.add_argument(*flags, dest="socket_path", metavar="PATH", default=default, help="socket path, exactly")


def _add_option(parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup, opt: Opt) -> None:
    import argparse

    shown = argparse.SUPPRESS if opt.help is None and opt.flags else opt.help
    if opt.switch:
        parser.add_argument(*opt.flags, dest=opt.dest, action="store_true", help=shown)
        return
    kwargs: dict[str, Any] = {"metavar": opt.metavar, "help": shown}
    if opt.type is not None:
        kwargs["type"] = opt.type
    if not opt.flags:
        if opt.nargs is not None:
            kwargs["nargs"] = argparse.REMAINDER if opt.nargs == "..." else opt.nargs
        parser.add_argument(opt.dest, **kwargs)
    elif opt.repeat:
        parser.add_argument(*opt.flags, dest=opt.dest, action="append", default=[], **kwargs)
    else:
        parser.add_argument(*opt.flags, dest=opt.dest, default=opt.default, **kwargs)


def add_verb(
    verbs: argparse._SubParsersAction[argparse.ArgumentParser], spec: CommandSpec, name: str, aliases: list[str]
) -> None:
    """A verb's parser from its spec: the socket options, -t by its target rule, its options."""
    sub = verbs.add_parser(
        name, aliases=aliases, help=spec.help, description=spec.help, formatter_class=_help_formatter
    )
    _socket_options(sub, top=False, short_s=spec.short_s)
    sub.set_defaults(run=resolve(spec.run) if spec.run else run_request, spec=spec)
    if spec.target is not None:
        sub.add_argument("-t", dest="target", metavar="TARGET", help="session name or id")
    groups: dict[str, argparse._MutuallyExclusiveGroup] = {}
    for opt in spec.opts:
        if opt.group is not None and opt.group not in groups:
            groups[opt.group] = sub.add_mutually_exclusive_group(required=True)
        _add_option(groups[opt.group] if opt.group is not None else sub, opt)
    if spec.json:
        sub.add_argument("--json", action="store_true", help="print JSON")


def _help_formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter, given the terminal's width: argparse makes one for every option it
    adds, and without a width each imports shutil to measure the terminal."""
    import argparse

    return argparse.HelpFormatter(prog, width=_columns() - 2)  # argparse's own margin


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size() reports it: $COLUMNS, else stdout's."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser. With `only` (a verb or one of its tmux names), that verb alone is
    built, under the name given: argparse's cost grows with every option, and a one-shot call
    needs its own verb's."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="termux", description="A terminal multiplexer where typing never waits.", formatter_class=_help_formatter
    )
    parser.add_argument("--version", action="version", version=f"termux {__version__}")
    _socket_options(parser, top=True)
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")
    if only is not None and (spec := verb_names().get(only)) is not None:
        add_verb(verbs, spec, only, [])  # the name typed is the one parsed, and its errors say
        return parser
    for spec in COMMANDS:
        if spec.verb is not None:
            add_verb(verbs, spec, spec.verb, list(spec.aliases))
    return parser


def quick_parse(words: list[str]) -> SimpleNamespace | None:
    """The command line as `build_parser` would parse it, for a line written the plain way (each
    option's exact name, given once; values and arguments that do not start with `-`, but `-`
    and negative numbers; no `--`, no abbreviation, no `-tNAME`): without argparse, whose import
    and parser a one-shot call would otherwise pay. None for any other line (`--help`, a
    mistake, a value an option's type refuses): argparse parses those, with its messages.
    tests/test_cli_parse.py holds the two to the same results."""
    parsed = SimpleNamespace(socket_name=None, socket_path=None, verb=None)
    rest = iter(words)
    word = next(rest, None)
    if word is not None and word.startswith("-"):  # -L NAME or -S PATH before the verb
        dest = _SOCKET_DESTS.get(word)
        value = next(rest, None)
        if dest is None or value is None or not _is_value(value):
            return None
        setattr(parsed, dest, value)
        word = next(rest, None)
    if word is None:
        return parsed  # `termux`: the TUI
    name, spec = word, verb_names().get(word)
    if spec is None or any(opt.nargs == "..." for opt in spec.opts):
        return None  # not a verb, or `new`'s command (argparse's REMAINDER)
    values = _verb_defaults(spec)
    flags = _verb_flags(spec)
    given: set[str] = set()
    arguments: list[str] = []
    runs = 0  # runs of arguments between options
    after_argument = False
    for word in rest:
        opt = flags.get(word)
        if opt is None:
            if not _is_value(word):
                return None
            runs += not after_argument
            after_argument = True
            arguments.append(word)
            continue
        after_argument = False
        if isinstance(opt, str):  # -L, -S, -t, --json
            if opt == "json":
                values["json"] = True
                continue
            value = next(rest, None)
            if opt in given or value is None or not _is_value(value):
                return None
            given.add(opt)
            values[opt] = value
            continue
        if opt.dest in given and not opt.repeat:
            return None
        given.add(opt.dest)
        if opt.switch:
            values[opt.dest] = True
            continue
        value = next(rest, None)
        if value is None or not _is_value(value) or (converted := _converted(opt, value)) is None:
            return None
        values[opt.dest] = [*values[opt.dest], converted[0]] if opt.repeat else converted[0]
    if {"socket_name", "socket_path"} <= given:
        return None  # argparse: not allowed together
    groups = [opt.group for opt in spec.opts if opt.group is not None]
    if any(sum(opt.dest in given for opt in spec.opts if opt.group == group) != 1 for group in groups):
        return None  # one of each group, exactly
    positionals = [opt for opt in spec.opts if not opt.flags]
    if runs > 1 and any(opt.nargs is not None for opt in positionals):
        return None  # argparse's matching of optional arguments split by options is its own
    for opt in positionals:
        if opt.nargs == "*":
            taken, arguments = arguments, []
        elif opt.nargs == "?" and not arguments:
            taken = []
        elif not arguments:
            return None  # a required argument missing
        else:
            taken, arguments = arguments[:1], arguments[1:]
        items = []
        for argument in taken:
            if (converted := _converted(opt, argument)) is None:
                return None
            items.append(converted[0])
        values[opt.dest] = items if opt.nargs == "*" else (items[0] if items else None)
    if arguments:
        return None  # more arguments than the verb takes
    for dest, value in values.items():
        setattr(parsed, dest, value)
    parsed.verb, parsed.spec = name, spec
    parsed.run = resolve(spec.run) if spec.run else run_request
    return parsed


# The socket options, by every name, to what they set (`capture` keeps -S for its START).
_SOCKET_DESTS = dict.fromkeys(SOCKET_NAME, "socket_name") | dict.fromkeys(SOCKET_PATH, "socket_path")


def _is_value(word: str) -> bool:
    """A word argparse takes as a value, not as an option: one not starting with `-`, `-` alone,
    or a negative integer (no parser here has an option that looks like one)."""
    return not word.startswith("-") or word == "-" or (word[1:].isascii() and word[1:].isdigit())


def _verb_flags(spec: CommandSpec) -> dict[str, Opt | str]:
    """A verb's option names: to the option, or to the attribute set (the socket's, -t, --json)."""
    flags: dict[str, Opt | str] = {flag: dest for flag, dest in _SOCKET_DESTS.items() if spec.short_s or flag != "-S"}
    if spec.target is not None:
        flags["-t"] = "target"
    for opt in spec.opts:
        flags |= dict.fromkeys(opt.flags, opt)
    if spec.json:
        flags["--json"] = "json"
    return flags


def _verb_defaults(spec: CommandSpec) -> dict[str, Any]:
    """What argparse sets for a verb whose options are all left out."""
    values: dict[str, Any] = {}
    if spec.target is not None:
        values["target"] = None
    for opt in spec.opts:
        if opt.switch:
            values[opt.dest] = False
        elif opt.repeat or opt.nargs == "*":
            values[opt.dest] = []
        else:
            values[opt.dest] = opt.default
    if spec.json:
        values["json"] = False
    return values


def _converted(opt: Opt, word: str) -> tuple[Any] | None:
    """(the option's value from `word`,), or None when its type refuses it (argparse says why)."""
    if opt.type is None:
        return (word,)
    try:
        return (opt.type(word),)
    except Exception:
        return None


def synopsis(spec: CommandSpec) -> str:
    """A verb's usage line as docs/cli.md gives it: `new [-d] [-s NAME] ... [-- CMD [ARG...]]`."""
    words = [str(spec.verb)]
    if spec.target == SESSION:
        words.append("-t TARGET")
    elif spec.target is not None:
        words.append("[-t TARGET]")
    shown = [opt for opt in spec.opts if opt.help is not None or not opt.flags]
    groups: dict[str, list[str]] = {}
    for opt in (opt for opt in shown if opt.flags):
        word = opt.flags[0] if opt.switch else f"{opt.flags[0]} {opt.metavar}"
        if opt.group is not None:
            if opt.group not in groups:
                groups[opt.group] = []
                words.append(opt.group)  # where the group goes; filled in below
            groups[opt.group].append(word)
        else:
            words.append(f"[{word}]..." if opt.repeat else f"[{word}]")
    words = [f"({' | '.join(groups[word])})" if word in groups else word for word in words]
    if spec.json:
        words.append("[--json]")
    for opt in (opt for opt in shown if not opt.flags):
        words.append(
            {None: f"{opt.metavar}", "?": f"[{opt.metavar}]", "*": f"{opt.metavar}..."}.get(
                opt.nargs, f"[{opt.metavar}]"
            )
        )
    return " ".join(words)


VERBS_BEGIN = "<!-- verbs: generated from termux/commands.py by `python -m termux.cli`; edit the table there -->"
VERBS_END = "<!-- end of verbs -->"


def verbs_markdown() -> str:
    """docs/cli.md's table of verbs, from the command table (tests/test_commands.py checks it)."""
    rows = [VERBS_BEGIN, "", "| verb | tmux's name | what it does |", "| --- | --- | --- |"]
    for spec in COMMANDS:
        if spec.verb is not None:
            also = ", ".join(f"`{alias}`" for alias in spec.aliases)
            cells = [f"`termux {synopsis(spec)}`", also, spec.doc or spec.help]
            rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join([*rows, "", VERBS_END]) + "\n"


def parse(words: list[str]) -> SimpleNamespace | int:
    """The command line parsed (`quick_parse`, else argparse), or the exit status of a line that
    is bad usage (argparse exits itself for --help and most mistakes)."""
    if (quick := quick_parse(words)) is not None:
        return quick
    verb = verb_named(words)
    parser = build_parser(only=verb)
    args, unknown = parser.parse_known_args(words, namespace=SimpleNamespace())
    if unknown:  # argparse's own message would show the command's usage, not the verb's
        if verb is None or getattr(args, "verb", None) is None:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        print(
            visible(
                f"termux {verb}: error: unrecognized arguments: {' '.join(unknown)} "
                f"(`termux {verb} --help` lists its options)"
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args
    if getattr(args, "socket_name", None) is None:
        args.socket_name = None
    if getattr(args, "socket_path", None) is None:
        args.socket_path = None
    try:
        run: Verb | None = getattr(args, "run", None)
        if run is None:
            from termux.tui import run_tui

            status = run_tui(args)
        else:
            status = run(args, request_of(args.spec, args))
        sys.stdout.flush()  # a closed stdout shows here, where BrokenPipeError is handled
        return status
    except UsageError as exc:
        print(visible(f"termux: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except SocketDirError as exc:
        print(visible(f"termux: {exc}"), file=sys.stderr)
        return EXIT_NO_SERVER
    except TermuxError as exc:
        print(visible(f"termux: {exc.message} ({exc.code}){_window_hint(exc, args)}"), file=sys.stderr)
        return EXIT_NO_SERVER if exc.code in UNREACHABLE else EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stdout was closed (`termux ls | head -1`); the socket's are TermuxErrors
        _discard_stdout()
        return EXIT_OK


def _window_hint(exc: TermuxError, args: SimpleNamespace) -> str:
    """For tmux's `-t SESSION:WINDOW.PANE` that names no session: what to give instead."""
    given = getattr(args, "target", None) or ""
    session, colon, _ = given.partition(":")
    if exc.code != "no_session" or not colon or not session:
        return ""
    return f"; -t names a session (termux has no windows): try -t {session}"


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail a second time."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":  # `python -m termux.cli`: docs/cli.md's table of verbs
    print(verbs_markdown(), end="")
