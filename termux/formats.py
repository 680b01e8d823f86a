"""tmux's format strings, as `termux ls -F` reads them (the part of tmux's FORMATS a list of
sessions uses), sans-I/O: `parse` once, then `render` for each session from the values it names.

    #{session_name}: #{pane_width}x#{pane_height}#{?session_attached, (attached),}

- `#{NAME}`: a variable; one that termux does not know expands to nothing, as in tmux.
- `#{?COND,THEN,ELSE}`: THEN when COND (a variable's name, or a format) is neither empty nor `0`,
  else ELSE (which may be left out); `#{?C1,A,C2,B,ELSE}` tries each condition in turn, as tmux.
- `#{==:A,B}`, `#{!=:A,B}`: `1` or `0` (A and B are formats).
- `#{t:NAME}`: a time variable (seconds since the epoch) as tmux shows a date; `#{=N:NAME}`: its
  first N characters (negative N: its last N).
- `##`, `#,` and `#}` are `#`, `,` and `}`; `#S`, `#D`, `#T`, `#W`, `#H`, `#h`, `#I`, `#P` are
  tmux's one-letter names of variables; any other character after `#` is kept with it.

The status line has its own template (termux/tui/statusline.py): `{field}`, where an unknown field
is an error worth showing at start; a script's tmux format expands what it does not know to nothing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

MAX_DEPTH = 32  # nested #{...}: deeper is refused (parsing recurses)

ALIASES = {
    "S": "session_name",
    "D": "pane_id",
    "T": "pane_title",
    "W": "window_name",
    "H": "host",
    "h": "host_short",
    "I": "window_index",
    "P": "pane_index",
}
_ESCAPES = {"#": "#", ",": ",", "}": "}"}
_TRUNCATE = re.compile(r"=(-?\d+):")
_OUTSIDE = re.compile(r"#")
_INSIDE = re.compile(r"[#,}]")


class FormatError(ValueError):
    """A format that cannot be read; the message says where, in termux's words."""


@dataclass(frozen=True, slots=True)
class Var:
    name: str
    modifier: str = ""  # "t": as a date; "=N": truncated to N characters


@dataclass(frozen=True, slots=True)
class Choose:
    """`#{?C1,A,C2,B,...,ELSE}`: `pieces` as given, conditions at the even places."""

    pieces: tuple[Format, ...]


@dataclass(frozen=True, slots=True)
class Compare:
    equal: bool  # `==` (else `!=`)
    left: Format
    right: Format


Node = str | Var | Choose | Compare
Format = tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Parsed:
    nodes: Format
    names: frozenset[str]  # every variable it may read: the values `render` needs

    def render(self, values: Mapping[str, str]) -> str:
        return _render(self.nodes, values)


def parse(text: str) -> Parsed:
    """`text` as a format; FormatError for a `#{` never closed or nested too deeply."""
    names: set[str] = set()
    nodes, _ = _sequence(text, 0, 0, names)
    return Parsed(nodes, frozenset(names))


def _sequence(text: str, i: int, depth: int, names: set[str]) -> tuple[Format, int]:
    """Text and expressions from i: the whole rest at depth 0; inside `#{...}` (depth > 0) up to
    an unescaped `,` or `}`, whose index is returned with the nodes."""
    nodes: list[Node] = []
    special = _INSIDE if depth else _OUTSIDE
    while True:
        found = special.search(text, i)
        stop = len(text) if found is None else found.start()
        if stop > i:
            nodes.append(text[i:stop])
        if found is None:
            if depth:
                raise FormatError("a `#{` is never closed by `}`")
            return tuple(nodes), stop
        if text[stop] != "#":
            return tuple(nodes), stop  # `,` or `}`: the caller's
        after = text[stop + 1 : stop + 2]
        if after == "{":
            node, i = _expression(text, stop + 2, depth + 1, names)
            nodes.append(node)
        elif after in ALIASES:
            names.add(ALIASES[after])
            nodes.append(Var(ALIASES[after]))
            i = stop + 2
        else:
            nodes.append(_ESCAPES.get(after, "#" + after))
            i = stop + 2


def _expression(text: str, i: int, depth: int, names: set[str]) -> tuple[Node, int]:
    """What follows `#{` at i, up to its `}`; returns the node and the index after the `}`."""
    if depth > MAX_DEPTH:
        raise FormatError(f"formats nest at most {MAX_DEPTH} deep")
    modifier = ""
    if text.startswith("?", i):
        kind, i = "?", i + 1
    elif text.startswith(("==:", "!=:"), i):
        kind, i = text[i : i + 2], i + 3
    elif text.startswith("t:", i):
        kind, modifier, i = "var", "t", i + 2
    elif (truncate := _TRUNCATE.match(text, i)) is not None:
        kind, modifier, i = "var", "=" + truncate.group(1), truncate.end()
    else:
        kind = "var"
    pieces: list[Format] = []
    while True:
        piece, i = _sequence(text, i, depth, names)
        pieces.append(piece)
        if text[i] == "}":
            break
        i += 1  # past the `,`
    i += 1  # past the `}`
    if kind == "?":
        for condition in pieces[0:-1:2]:
            if (name := _name(condition)) is not None:
                names.add(name)
        return Choose(tuple(pieces)), i
    if kind in ("==", "!="):
        return Compare(kind == "==", pieces[0], pieces[1] if len(pieces) > 1 else ()), i
    name = _name(pieces[0]) if len(pieces) == 1 else None
    if name is None:
        return "", i  # not a variable's name (`#{a,b}`, `#{#{x}}`): nothing, as tmux
    names.add(name)
    return Var(name, modifier), i


def _name(piece: Format) -> str | None:
    """A piece that is plain text names a variable."""
    return piece[0] if len(piece) == 1 and isinstance(piece[0], str) else None


def _render(nodes: Format, values: Mapping[str, str]) -> str:
    out: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, Var):
            out.append(_variable(node, values))
        elif isinstance(node, Choose):
            out.append(_render(_chosen(node.pieces, values), values))
        else:
            same = _render(node.left, values) == _render(node.right, values)
            out.append("1" if same == node.equal else "0")
    return "".join(out)


def _chosen(pieces: tuple[Format, ...], values: Mapping[str, str]) -> Format:
    if len(pieces) < 2:
        return ()  # `#{?COND}`: nothing to choose
    for k in range(0, len(pieces) - 1, 2):
        condition = pieces[k]
        name = _name(condition)
        value = values.get(name, "") if name is not None else _render(condition, values)
        if value not in ("", "0"):
            return pieces[k + 1]
    return pieces[-1] if len(pieces) % 2 else ()


def _variable(var: Var, values: Mapping[str, str]) -> str:
    value = values.get(var.name, "")
    if var.modifier == "t":
        try:
            return time.strftime("%a %b %e %H:%M:%S %Y", time.localtime(int(value)))
        except (ValueError, OverflowError, OSError):
            return ""
    if var.modifier:
        n = int(var.modifier[1:])
        return value[:n] if n >= 0 else value[n:]
    return value
