"""The `termux` command: one verb a subcommand, each a thin layer over one protocol command.

Exit statuses (docs/cli.md): 0 success, 1 the server refused the request (its error code and
message on stderr) or no server is running, 2 bad usage, 3 no server could be talked to (unsafe
socket, another user's server, the connection lost before the reply, a failed start), 124 a wait
timed out, 130 interrupted. Text from the server is printed with its control characters escaped
(termux.text.visible); only a closed stdout ends the command quietly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from termux import __version__
from termux.client import Client, TermuxError
from termux.paths import SocketDirError, inherited_session, socket_path
from termux.text import visible

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_NO_SERVER, EXIT_TIMEOUT, EXIT_INTERRUPTED = 0, 1, 2, 3, 124, 130
STDIN_CHUNK = 512 * 1024  # raw bytes per session.send; base64 keeps each request under 1 MiB
# Client error codes that mean the server could not be talked to (exit 3); `no_server`, nothing
# listening, is exit 1 as in tmux.
UNREACHABLE = ("unreachable", "untrusted", "disconnected", "bad_reply", "start_failed")

Verb = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """A mistake on the command line that argparse could not catch."""


def _socket_options(parser: argparse.ArgumentParser, top: bool, short_s: bool = True) -> None:
    """-L NAME / -S PATH on the command and on every verb (`capture` keeps tmux's -S START, so
    there the path is given as --socket PATH or before the verb)."""
    default = None if top else argparse.SUPPRESS
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-L", "--socket-name", dest="socket_name", metavar="NAME", default=default, help="socket name")
    flags = ["-S", "--socket"] if short_s else ["--socket"]
    group.add_argument(*flags, dest="socket_path", metavar="PATH", default=default, help="socket path, exactly")


def connect(args: argparse.Namespace, autostart: bool = False) -> Client:
    """Only verbs that make something (`new`, the TUI, `server`) start a server."""
    return Client.connect(args.socket_path, name=args.socket_name, autostart=autostart)


def target(args: argparse.Namespace) -> str:
    if args.target:
        return str(args.target)
    if (own := inherited_session()) is not None:
        return own
    raise UsageError("no target session: give -t NAME (or run inside a termux session)")


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=None, ensure_ascii=False))


# -- verbs ---------------------------------------------------------------------------------------


def cmd_server(args: argparse.Namespace) -> int:
    from termux.server.main import run

    path = socket_path(args.socket_name, args.socket_path)
    if args.event_capacity < 1 or args.max_streams < 0:
        raise UsageError("--event-capacity must be at least 1, --max-streams 0 or more")
    if not 0 <= args.history <= 1_000_000:  # the bound session.new's `history` obeys
        raise UsageError(f"--history must be 0 to 1000000 lines, not {args.history}")
    return run(
        path,
        daemon=args.daemon,
        ready_fd=args.ready_fd,
        history=args.history,
        event_capacity=args.event_capacity,
        max_streams=args.max_streams,
        quiet_after=args.quiet_after,
        background_nice=args.background_nice,
    )


def _parse_env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"-e expects KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def cmd_attach(args: argparse.Namespace) -> int:
    from termux.tui import run_tui

    return run_tui(args)


def cmd_new(args: argparse.Namespace) -> int:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    request: dict[str, Any] = {"cwd": os.path.abspath(args.cwd) if args.cwd else os.getcwd()}
    if args.name is not None:
        request["name"] = args.name
    if command:
        request["command"] = command
    if args.env:
        request["env"] = _parse_env(args.env)
    if args.cols is not None:
        request["cols"] = args.cols
    if args.rows is not None:
        request["rows"] = args.rows
    if args.background_nice is not None:
        request["background_nice"] = args.background_nice
    if not args.detached:
        from termux.tui import run_tui

        return run_tui(args, new_session=request)
    with connect(args, autostart=True) as client:
        session = client.request("session.new", **request)["session"]
    print_json(session) if args.json else print(visible(session["name"]))
    return EXIT_OK


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


def cmd_ls(args: argparse.Namespace) -> int:
    with connect(args) as client:
        sessions = client.request("session.list")["sessions"]
    if args.json:
        print_json(sessions)
    elif sessions:
        header = ["ID", "NAME", "STATE", "PID", "SIZE", "CREATED", "BYTES", "TITLE", "COMMAND"]
        print_table(header, [_format_session(s) for s in sessions])
    return EXIT_OK


def cmd_send(args: argparse.Namespace) -> int:
    name = target(args)
    if args.stdin and args.keys:
        raise UsageError("--stdin sends standard input unchanged; give no ARG with it")
    if not args.stdin and not args.keys:
        raise UsageError("nothing to send: give ARG... or --stdin")
    with connect(args) as client:
        if args.stdin:
            while chunk := sys.stdin.buffer.read(STDIN_CHUNK):
                client.request("session.send", target=name, data=chunk)  # bytes go as base64
        else:
            client.request("session.send", target=name, keys=args.keys, literal=args.literal)
    return EXIT_OK


def cmd_capture(args: argparse.Namespace) -> int:
    request: dict[str, Any] = {"target": target(args), "escapes": args.escapes}
    if args.start is not None:
        request["start"] = args.start
    if args.end is not None:
        request["end"] = args.end
    if args.grep is not None:
        from termux.client.grep import capture_grep

        return capture_grep(args, request)
    with connect(args) as client:
        result = client.request("session.capture", **request)
    if args.json:
        print_json(result)
    else:
        sys.stdout.write("".join(line + "\n" for line in result["lines"]))
    return EXIT_OK


def cmd_kill(args: argparse.Namespace) -> int:
    with connect(args, autostart=False) as client:
        client.request("session.kill", target=target(args))
    return EXIT_OK


def cmd_rename(args: argparse.Namespace) -> int:
    with connect(args, autostart=False) as client:
        client.request("session.rename", target=target(args), name=args.name)
    return EXIT_OK


def cmd_resize(args: argparse.Namespace) -> int:
    with connect(args, autostart=False) as client:
        client.request("session.resize", target=target(args), cols=args.cols, rows=args.rows)
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    with connect(args, autostart=False) as client:
        stats = client.request("server.stats")
    if args.json:
        print_json(stats)
    else:
        for key, value in stats.items():
            print(visible(f"{key}: {value}"))
    return EXIT_OK


def cmd_kill_server(args: argparse.Namespace) -> int:
    with connect(args, autostart=False) as client:
        client.request("server.kill")
    return EXIT_OK


# -- the parser ----------------------------------------------------------------------------------


def with_target(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-t", dest="target", metavar="TARGET", help="session name or id")


def with_json(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--json", action="store_true", help="print JSON")


def _server_options(sub: argparse.ArgumentParser) -> None:
    from termux.client.events import positive_seconds

    sub.add_argument("--daemon", action="store_true", help=argparse.SUPPRESS)
    sub.add_argument("--ready-fd", type=int, help=argparse.SUPPRESS)
    sub.add_argument("--history", type=int, default=10_000, help="scrollback lines per session (default 10000)")
    sub.add_argument("--event-capacity", type=int, default=10_000, metavar="N", help="events kept (default 10000)")
    sub.add_argument("--max-streams", type=int, default=256, metavar="N", help="event streams (default 256)")
    sub.add_argument(
        "--quiet-after", type=positive_seconds, default=5.0, metavar="S",
        help="seconds without output before session.quiet",
    )  # fmt: skip
    from termux.server.priority import DEFAULT_BACKGROUND_NICE

    sub.add_argument(
        "--background-nice", type=_nice, default=DEFAULT_BACKGROUND_NICE, metavar="N",
        help=f"CPU priority (nice 0-19) of sessions no view shows (default {DEFAULT_BACKGROUND_NICE}; 0: off)",
    )  # fmt: skip


def _nice(text: str) -> int:
    """An argparse type: a nice value, 0 to 19."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a nice value: {text!r}") from None
    if not 0 <= value <= 19:
        raise argparse.ArgumentTypeError(f"must be 0 to 19, not {value}")
    return value


def _new_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-d", dest="detached", action="store_true", help="do not attach")
    sub.add_argument("-s", dest="name", metavar="NAME", help="session name")
    sub.add_argument("-c", dest="cwd", metavar="DIR", help="working directory")
    sub.add_argument("-x", dest="cols", type=int, metavar="COLS", help="width")
    sub.add_argument("-y", dest="rows", type=int, metavar="ROWS", help="height")
    sub.add_argument("-e", dest="env", action="append", default=[], metavar="KEY=VALUE", help="environment")
    sub.add_argument(
        "--background-nice", type=_nice, metavar="N",
        help="its CPU priority while no view shows it (nice 0-19; 0: never lowered; default: the server's)",
    )  # fmt: skip
    with_json(sub)
    sub.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD [ARG...]")


def _send_options(sub: argparse.ArgumentParser) -> None:
    with_target(sub)
    sub.add_argument("-l", dest="literal", action="store_true", help="type every ARG literally")
    sub.add_argument("--stdin", action="store_true", help="send standard input unchanged")
    sub.add_argument("keys", nargs="*", metavar="ARG")


def _capture_options(sub: argparse.ArgumentParser) -> None:
    with_target(sub)
    sub.add_argument("-e", dest="escapes", action="store_true", help="keep colours and attributes as escapes")
    sub.add_argument("-S", dest="start", type=int, metavar="START", help="first line (negative: scrollback)")
    sub.add_argument("-E", dest="end", type=int, metavar="END", help="last line")
    sub.add_argument("--grep", metavar="REGEX", help="only the lines that match, numbered (-S: history's start)")
    with_json(sub)


def _rename_options(sub: argparse.ArgumentParser) -> None:
    with_target(sub)
    sub.add_argument("name", metavar="NAME")


def _resize_options(sub: argparse.ArgumentParser) -> None:
    with_target(sub)
    sub.add_argument("cols", type=int, metavar="COLS")
    sub.add_argument("rows", type=int, metavar="ROWS")


def _no_options(sub: argparse.ArgumentParser) -> None:
    pass


class VerbSpec(NamedTuple):
    """One verb of the command line: what runs it, its help line, and its options."""

    name: str
    run: Verb
    help: str
    options: Callable[[argparse.ArgumentParser], None]
    short_s: bool = True  # -S is the socket path (capture keeps tmux's -S START)


def _verbs() -> list[VerbSpec]:
    from termux.client.buffers import VERBS as BUFFER_VERBS
    from termux.client.events import VERBS as EVENT_VERBS

    return [
        VerbSpec("server", cmd_server, "run the server in the foreground", _server_options),
        VerbSpec("attach", cmd_attach, "attach the TUI (focused on -t TARGET)", with_target),
        VerbSpec("new", cmd_new, "create a session (and attach, unless -d)", _new_options),
        VerbSpec("ls", cmd_ls, "list sessions", with_json),
        VerbSpec("send", cmd_send, "type keys or text into a session", _send_options),
        VerbSpec("capture", cmd_capture, "print a session's screen", _capture_options, short_s=False),
        VerbSpec("kill", cmd_kill, "kill a session", with_target),
        VerbSpec("rename", cmd_rename, "rename a session", _rename_options),
        VerbSpec("resize", cmd_resize, "resize a session", _resize_options),
        VerbSpec("stats", cmd_stats, "show server statistics", with_json),
        VerbSpec("kill-server", cmd_kill_server, "kill the server and every session", _no_options),
        *(VerbSpec(*spec) for spec in EVENT_VERBS),
        *(VerbSpec(*spec) for spec in BUFFER_VERBS),
    ]


def verb_named(argv: list[str]) -> str | None:
    """The verb on a command line, found before parsing it (None: no verb, or only options)."""
    args = iter(argv)
    for arg in args:
        if arg in ("-L", "-S", "--socket-name", "--socket"):
            next(args, None)  # the option's value
        elif arg == "--" or not arg.startswith("-"):
            return None if arg == "--" else arg
    return None


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, given the terminal's width: argparse makes one for every option it
    adds, and without a width each imports shutil to measure the terminal (most of a one-shot
    call's imports)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)  # argparse's own margin


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
    """The command line's parser. With `only` (a known verb), that verb's options are the only ones
    built: argparse's cost grows with every option, and a one-shot call needs its own verb's."""
    parser = argparse.ArgumentParser(
        prog="termux", description="A terminal multiplexer where typing never waits.", formatter_class=_HelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"termux {__version__}")
    _socket_options(parser, top=True)
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")
    specs = _verbs()
    if any(spec.name == only for spec in specs):
        specs = [spec for spec in specs if spec.name == only]
    for spec in specs:
        sub = verbs.add_parser(spec.name, help=spec.help, description=spec.help, formatter_class=_HelpFormatter)
        _socket_options(sub, top=False, short_s=spec.short_s)
        sub.set_defaults(run=spec.run)
        spec.options(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    args = build_parser(only=verb_named(words)).parse_args(words)
    if getattr(args, "socket_name", None) is None:
        args.socket_name = None
    if getattr(args, "socket_path", None) is None:
        args.socket_path = None
    run: Verb | None = getattr(args, "run", None)
    if run is None:
        from termux.tui import run_tui

        run = run_tui
    try:
        status = run(args)
        sys.stdout.flush()  # a closed stdout shows here, where BrokenPipeError is handled
        return status
    except UsageError as exc:
        print(visible(f"termux: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except SocketDirError as exc:
        print(visible(f"termux: {exc}"), file=sys.stderr)
        return EXIT_NO_SERVER
    except TermuxError as exc:
        print(visible(f"termux: {exc.message} ({exc.code})"), file=sys.stderr)
        return EXIT_NO_SERVER if exc.code in UNREACHABLE else EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stdout was closed (`termux ls | head -1`); the socket's are TermuxErrors
        _discard_stdout()
        return EXIT_OK


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail a second time."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
