"""The server's dispatch: protocol command name → argument struct and handler, built once from the
table of commands (termux/commands.py), which names both for every command."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from termux.commands import COMMANDS as TABLE
from termux.commands import resolve
from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.messages import Args
from termux.server.handlers import Context

Handler = Callable[[Context, Any], Any | Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    args: type[Args]
    handler: Handler


COMMANDS: dict[str, Command] = {
    spec.cmd: Command(spec.cmd, resolve(spec.args), resolve(spec.handler))
    for spec in TABLE
    if spec.cmd is not None and spec.handler is not None
}


def lookup(name: str) -> Command:
    try:
        return COMMANDS[name]
    except KeyError:
        raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"unknown command {name!r}") from None
