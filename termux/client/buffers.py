"""The paste-buffer verbs, as tmux's: `buffers` (`list-buffers`), `show-buffer`, `set-buffer`,
`paste-buffer`, `delete-buffer`. Each is one `buffer.*` request (set-buffer --stdin, one a chunk).

`-b` names a buffer by its index (a number: 0 is the newest) or by its name.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from termux.client import Client
from termux.text import visible, visible_lines

STDIN_CHUNK = 512 * 1024  # raw bytes per request; base64 keeps each under the 1 MiB line limit
EXIT_OK = 0


def _client(args: argparse.Namespace) -> Client:
    """These verbs never start a server (as tmux: `no server running on PATH`)."""
    return Client.connect(args.socket_path, name=args.socket_name, autostart=False)


def which(value: str | None) -> dict[str, Any]:
    """`-b N` (an index) or `-b NAME` as request arguments."""
    if value is None:
        return {}
    return {"index": int(value)} if value.isascii() and value.isdigit() else {"name": value}


def _sample(info: dict[str, Any]) -> str:
    return visible(info["sample"])


def cmd_buffers(args: argparse.Namespace) -> int:
    with _client(args) as client:
        buffers = client.request("buffer.list")["buffers"]
    if args.json:
        print(json.dumps(buffers, ensure_ascii=False))
    else:
        for info in buffers:  # tmux's format: `buffer0: 5 bytes: "hello"`
            print(f'{visible(info["name"])}: {info["size"]} bytes: "{_sample(info)}"')
    return EXIT_OK


def cmd_show_buffer(args: argparse.Namespace) -> int:
    """The buffer's bytes, exactly; on a terminal its control characters other than newlines and
    tabs are escaped (a buffer may hold what a program printed)."""
    import base64  # the plain client leaves bytes in a result as the protocol sends them

    with _client(args) as client:
        data = base64.b64decode(client.request("buffer.get", **which(args.buffer))["data"])
    out = sys.stdout
    if out.isatty():
        out.write(visible_lines(data.decode("utf-8", "replace")))
    else:
        out.flush()
        out.buffer.write(data)
    return EXIT_OK


def cmd_set_buffer(args: argparse.Namespace) -> int:
    from termux.cli import UsageError

    if args.stdin == (args.text is not None):
        raise UsageError("give the buffer's TEXT or --stdin (not both)")
    request: dict[str, Any] = {} if args.name is None else {"name": args.name}
    with _client(args) as client:
        if args.text is not None:
            buffer = client.request("buffer.set", text=args.text, append=args.append, **request)["buffer"]
        else:
            # In chunks: the first sets (or appends, with -a), the rest append to that buffer.
            # Bytes go as base64 (the client encodes them).
            chunk = sys.stdin.buffer.read(STDIN_CHUNK)
            buffer = client.request("buffer.set", data=chunk, append=args.append, **request)["buffer"]
            while chunk := sys.stdin.buffer.read(STDIN_CHUNK):
                buffer = client.request("buffer.set", data=chunk, name=buffer["name"], append=True)["buffer"]
    if args.json:
        print(json.dumps(buffer, ensure_ascii=False))
    return EXIT_OK


def cmd_paste_buffer(args: argparse.Namespace) -> int:
    from termux.cli import target

    name = target(args)
    with _client(args) as client:
        client.request(
            "buffer.paste", target=name, bracketed=args.bracketed, delete=args.delete, **which(args.buffer)
        )
    return EXIT_OK


def cmd_delete_buffer(args: argparse.Namespace) -> int:
    with _client(args) as client:
        client.request("buffer.delete", **which(args.buffer))
    return EXIT_OK


def _with_buffer(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-b", dest="buffer", metavar="N|NAME", help="buffer index (0: the newest) or name")


def _list_options(sub: argparse.ArgumentParser) -> None:
    from termux.cli import with_json

    with_json(sub)


def _set_options(sub: argparse.ArgumentParser) -> None:
    from termux.cli import with_json

    sub.add_argument("-b", dest="name", metavar="NAME", help="name it (replacing a buffer of that name)")
    sub.add_argument("-a", dest="append", action="store_true", help="append to the buffer (the newest, or -b's)")
    sub.add_argument("--stdin", action="store_true", help="store standard input's bytes unchanged")
    with_json(sub)
    sub.add_argument("text", nargs="?", metavar="TEXT")


def _paste_options(sub: argparse.ArgumentParser) -> None:
    from termux.cli import with_target

    with_target(sub)
    _with_buffer(sub)
    sub.add_argument("-p", dest="bracketed", action="store_true", help="bracketed, if the program enabled it")
    sub.add_argument("-d", dest="delete", action="store_true", help="delete the buffer once pasted")


# The buffer verbs for the CLI's parser (termux/cli.py): name, handler, help, options.
VERBS: list[tuple[str, Callable[[argparse.Namespace], int], str, Callable[[argparse.ArgumentParser], None]]] = [
    ("buffers", cmd_buffers, "list paste buffers, the newest first", _list_options),
    ("list-buffers", cmd_buffers, "list paste buffers, the newest first", _list_options),
    ("show-buffer", cmd_show_buffer, "print a paste buffer (the newest by default)", _with_buffer),
    ("set-buffer", cmd_set_buffer, "store TEXT (or standard input) as the newest paste buffer", _set_options),
    ("paste-buffer", cmd_paste_buffer, "type a paste buffer into a session as a paste", _paste_options),
    ("delete-buffer", cmd_delete_buffer, "delete a paste buffer (the newest by default)", _with_buffer),
]
