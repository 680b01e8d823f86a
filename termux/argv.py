"""Reading a command line before parsing it: which verb, which socket (standard library only).

`termux` builds its parser for one verb (`verb_named`), and `termux attach` finds the TUI host of
the server its command line names before loading the parser at all (`socket_options`).
"""

from __future__ import annotations

# The verbs that may run the TUI (None: `termux` alone), by every name termux/commands.py gives
# them (a test checks the two agree): `termux` reads this before loading the table.
TUI_VERBS = (None, "attach", "attach-session", "a", "new", "new-session")
SOCKET_NAME = ("-L", "--socket-name")
SOCKET_PATH = ("-S", "--socket")


def verb_named(argv: list[str]) -> str | None:
    """The verb on a command line, found before parsing it (None: no verb, or only options)."""
    args = iter(argv)
    for arg in args:
        if arg in SOCKET_NAME + SOCKET_PATH:
            next(args, None)  # the option's value
        elif arg == "--" or not arg.startswith("-"):
            return None if arg == "--" else arg
    return None


def socket_options(argv: list[str]) -> tuple[str | None, str | None]:
    """(-L NAME, -S PATH) as given anywhere before `--` (None when absent; the last one wins, as
    with argparse). A guess for a command whose own arguments hold such words (`new sh -c '-S x'`):
    who uses it checks it against the parsed command line (the TUI host's child does)."""
    name = path = None
    args = iter(argv)
    for arg in args:
        if arg == "--":
            break
        option, equals, value = arg.partition("=")
        if option in SOCKET_NAME + SOCKET_PATH and not equals:
            value = next(args, None) or ""
        elif option in ("--socket-name", "--socket"):
            pass  # --socket=PATH
        elif arg[:2] in ("-L", "-S") and len(arg) > 2:
            option, value = arg[:2], arg[2:]  # -LNAME
        else:
            continue
        if option in SOCKET_NAME:
            name = value
        else:
            path = value
    return name, path
