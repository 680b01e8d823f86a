"""TUI settings from `$XDG_CONFIG_HOME/termux/config.toml` (prefix, bindings, scrollback, colours).

    prefix = "ctrl+b"            # or tmux style: "C-b"
    sidebar = true               # shown at start
    sidebar_width = 28           # columns; at most two fifths of a narrow terminal
    activity = false             # the activity view, shown at start
    escape_delay_ms = 5          # how long a lone ESC waits for the rest of a key sequence
    window_size = "latest"       # sessions shown by views of different sizes: latest, smallest, largest

    [bindings]                   # command key (after the prefix) = action
    c = "new"
    "|" = "sidebar"

    [scrollback]
    lines = 10000                # history lines the scrollback view shows (the server keeps it)
    wheel_lines = 3              # lines per wheel step

    [status]                     # templates: termux/tui/statusline.py
    left = " [{session}] {prefix} then: c new  n next  d detach  ? help"
    right = "{marks} {host} {time}"

    [colours]
    foreground = "#d0d0d0"       # default foreground/background (unset: the terminal's own)
    background = "#101010"
    palette = ["#000000", "#cd0000"]   # overrides for ANSI colours 0, 1, … (up to 16)

A bad file raises ConfigError naming the file and the line.
"""

from __future__ import annotations

import os
import re
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import msgspec.inspect as mi
from rich.color import Color, ColorParseError

from termux.commands import action_names, bindable
from termux.defaults import HISTORY, MAX_HISTORY
from termux.keys import encode_key, encode_textual, parse_key_name, textual_key_model
from termux.server.sizing import DEFAULT_POLICY, Policy
from termux.tui.layouts import LayoutSpec, LayoutSpecError, parse_layouts
from termux.tui.statusline import DEFAULT_LEFT, DEFAULT_RIGHT, Template, TemplateError, parse_template

# What a binding may name: the commands with a key's help and the TUI's actions (termux/commands.py).
ACTIONS = tuple(action.name for action in bindable())
ACTION_HELP = {action.name: action.help for action in bindable()}
DEFAULT_BINDINGS: dict[str, str] = {action.key: action.name for action in bindable() if action.key is not None}


MIN_SIDEBAR = 12  # columns; a terminal too narrow for this many leaves the sidebar out
MAX_SIDEBAR = 100
ExitedPane = Literal["keep", "close"]


class ConfigError(Exception):
    """The config file is not valid; the message names the file and the line."""


@dataclass
class Config:
    prefix: str = "ctrl+b"
    bindings: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_BINDINGS))
    sidebar: bool = True
    sidebar_width: int = 28  # columns, its border included; narrower on a narrow terminal
    activity: bool = False
    escape_delay_ms: int = 5
    window_size: Policy = DEFAULT_POLICY  # the server's size policy (termux/server/sizing.py), sent on attach
    scrollback_lines: int = HISTORY  # as many as a session keeps by default
    wheel_lines: int = 3
    foreground: str | None = None
    background: str | None = None
    palette: dict[int, str] = field(default_factory=dict)
    status_left: Template = field(default_factory=lambda: parse_template(DEFAULT_LEFT))
    status_right: Template = field(default_factory=lambda: parse_template(DEFAULT_RIGHT))
    layouts: dict[str, LayoutSpec] = field(default_factory=dict)  # [layouts.NAME] (termux/tui/layouts.py)
    exited_pane: ExitedPane = "keep"  # a pane whose session ended: kept until dismissed, or closed at once
    path: Path | None = None


# -- the file, as msgspec validates it (each `description` is what the error says was expected) ---


def _said(what: str) -> msgspec.Meta:
    return msgspec.Meta(description=what)


Colour = Annotated[str, _said('a colour such as "#1e1e1e"')]
Lines = Annotated[int, msgspec.Meta(ge=0, le=MAX_HISTORY, description="a number of lines")]


class Scrollback(msgspec.Struct, forbid_unknown_fields=True):
    lines: Lines = Config.scrollback_lines
    wheel_lines: Annotated[int, msgspec.Meta(ge=1, le=100, description="a number of lines")] = Config.wheel_lines


class Colours(msgspec.Struct, forbid_unknown_fields=True):
    foreground: Colour | None = None
    background: Colour | None = None
    palette: Annotated[list[Colour], msgspec.Meta(max_length=16, description="a list of up to 16 colours")] = []


class Status(msgspec.Struct, forbid_unknown_fields=True):
    left: Annotated[str, _said('a template such as " [{session}]"')] = DEFAULT_LEFT
    right: Annotated[str, _said('a template such as "{marks} {time}"')] = DEFAULT_RIGHT


class ConfigFile(msgspec.Struct, forbid_unknown_fields=True):
    prefix: Annotated[str, _said('a key such as "ctrl+b"')] = Config.prefix
    sidebar: Annotated[bool, _said("true or false")] = Config.sidebar
    sidebar_width: Annotated[int, msgspec.Meta(ge=MIN_SIDEBAR, le=MAX_SIDEBAR, description="a number of columns")] = (
        Config.sidebar_width
    )
    activity: Annotated[bool, _said("true or false")] = Config.activity
    escape_delay_ms: Annotated[int, msgspec.Meta(ge=0, le=1000, description="milliseconds")] = Config.escape_delay_ms
    window_size: Policy = Config.window_size
    bindings: Annotated[dict[str, Any], _said("a table")] = {}  # each action is checked against the table
    scrollback: Annotated[Scrollback, _said("a table")] = msgspec.field(default_factory=Scrollback)
    status: Annotated[Status, _said("a table")] = msgspec.field(default_factory=Status)
    colours: Annotated[Colours, _said("a table")] | None = None
    colors: Annotated[Colours, _said("a table")] | None = None  # the American spelling, as well
    exited_pane: ExitedPane = Config.exited_pane
    layouts: Annotated[dict[str, Any], _said("a table of layouts ([layouts.NAME])")] = {}  # layouts.py checks each


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "termux" / "config.toml"


_TMUX_MOD = {"C": "ctrl", "M": "alt", "S": "shift"}
KEY_HINT = 'a Textual key name ("ctrl+b", "f12", "alt+x"), tmux style ("C-b", "M-x", "F12") or one character'


def normalise_key(key: str) -> str:
    """`C-b` → `ctrl+b`, `M-x` → `alt+x`; Textual names pass through."""
    parts = []
    rest = key
    while len(rest) > 2 and rest[1] == "-" and rest[0] in _TMUX_MOD:
        parts.append(_TMUX_MOD[rest[0]])
        rest = rest[2:]
    return "+".join([*parts, rest.lower() if parts else rest])


def key_bytes(name: str) -> bytes:
    """What a terminal sends for the key `name` (b"" for a name no key has). Keys are matched by
    these bytes, so every spelling of a key is the same key, whatever the terminal reports it as
    (ctrl+space arrives as Textual's ctrl+@: both are NUL, as in tmux)."""
    if len(name) == 1:
        return name.encode()
    from textual.keys import key_to_character  # here: `termux` starts a server before loading Textual

    if textual_key_model(name, key_to_character(name)) is not None:
        return encode_textual(name, key_to_character(name))
    tmux = parse_key_name(name)
    if tmux is None:
        return b""
    try:
        return encode_key(*tmux)
    except ValueError:
        return b""


def _line_of(text: str, key: str) -> int:
    """The line where `key` is set (best effort: the first `key =`), 1-based; 0 when not found."""
    pattern = re.compile(rf'^[ \t]*("?){re.escape(key)}\1[ \t]*=', re.M)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else 0


def _line_of_table(text: str, table: str) -> int:
    """The line of the table header `[table]` (or `[table.…]`), 1-based; 0 when not found."""
    match = re.search(rf"^[ \t]*\[[ \t]*{re.escape(table)}[ \t]*[\].]", text, re.M)
    return text.count("\n", 0, match.start()) + 1 if match else 0


def load_config(path: Path | None = None) -> Config:
    """Read the config file (a missing file gives the defaults)."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config(path=path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None  # tomllib says "(at line N, column M)"
    return parse_config(data, text, path)


_AT = re.compile(r"(?P<why>.*?)(?: - at `\$(?P<at>[^`]*)`)?")
_STEP = re.compile(r"\.(\w+)|\[(\d+|\.\.\.)\]")


def _explain(message: str, data: dict[str, Any]) -> tuple[str, str]:
    """A msgspec validation message about the file, as (the key it is about, termux's words)."""
    found = _AT.fullmatch(message)
    assert found is not None  # the pattern matches any text
    why = found["why"]
    steps = [name or int(index) for name, index in _STEP.findall(found["at"] or "") if index != "..."]
    info: mi.Type = mi.type_info(ConfigFile)
    parent: type = ConfigFile  # the struct the last key is a field of
    value: Any = data
    keys: list[str] = []
    for step in steps:
        info = _inner(info)
        if isinstance(step, str):
            assert isinstance(info, mi.StructType)
            parent = info.cls
            info = next(f.type for f in info.fields if f.name == step)
            keys.append(step)
        else:
            assert isinstance(info, mi.ListType)
            info = info.item_type
        value = value[step]
    key = keys[-1] if keys else ""
    if unknown := re.fullmatch(r"Object contains unknown field `(?P<name>[^`]+)`", why):
        inner = _inner(info)
        assert isinstance(inner, mi.StructType)
        section = f"{key} " if key else ""
        known = ", ".join(f.name for f in inner.fields)
        return unknown["name"], f"unknown {section}setting (known: {known})"
    schema = info.extra_json_schema if isinstance(info, mi.Metadata) else None
    described = (schema or {}).get("description")
    inner = _inner(info)
    if isinstance(inner, mi.LiteralType):
        choices = [f'"{choice}"' for choice in typing.get_args(typing.get_type_hints(parent)[key])]  # in order
        return key, f"expected {', '.join(choices[:-1])} or {choices[-1]}, got {value!r}"
    if isinstance(inner, mi.ListType) and " of length " in why:
        return key, f"expected {described}, got {len(value)}"
    if ", got `" in why or described is None:
        return key, f"expected {described or 'something else'}, got {value!r}"
    if isinstance(inner, mi.IntType) and inner.ge is not None and inner.le is not None:
        return key, f"must be between {inner.ge} and {inner.le}"
    return key, f"expected {described}, got {value!r}"


def _inner(info: mi.Type) -> mi.Type:
    """The type under Annotated metadata and `| None`."""
    while True:
        if isinstance(info, mi.Metadata):
            info = info.type
        elif isinstance(info, mi.UnionType):
            (info,) = [member for member in info.types if not isinstance(member, mi.NoneType)]
        else:
            return info


def parse_config(data: dict[str, Any], text: str = "", path: Path | None = None) -> Config:
    def fail(key: str, message: str) -> ConfigError:
        line = _line_of(text, key)
        where = f"{path}:{line}" if line else f"{path}"
        return ConfigError(f"{where}: {key}: {message}")

    try:
        file = msgspec.convert(data, ConfigFile)
    except msgspec.ValidationError as exc:
        raise fail(*_explain(str(exc), data)) from None

    def colour(key: str, value: str) -> str:
        try:
            Color.parse(value)
        except ColorParseError:
            raise fail(key, f"not a colour: {value!r}") from None
        return value

    def key_name(setting: str, name: str) -> str:
        normalised = normalise_key(name) if len(name) > 1 else name
        if not key_bytes(normalised):
            raise fail(setting, f"unknown key {name!r} (expected {KEY_HINT})")
        return normalised

    colours = file.colours or file.colors or Colours()
    config = Config(
        prefix=key_name("prefix", file.prefix), sidebar=file.sidebar, sidebar_width=file.sidebar_width,
        activity=file.activity,
        escape_delay_ms=file.escape_delay_ms, window_size=file.window_size, scrollback_lines=file.scrollback.lines,
        wheel_lines=file.scrollback.wheel_lines, exited_pane=file.exited_pane, path=path,
    )  # fmt: skip
    try:
        config.layouts = parse_layouts(file.layouts)
    except LayoutSpecError as exc:
        layout = str(exc).split(":", 1)[0].split(".")[1:2]  # "layouts.NAME.…: why"
        line = _line_of_table(text, f"layouts.{layout[0]}") if layout else 0
        raise ConfigError(f"{path}:{line}: {exc}" if line else f"{path}: {exc}") from None
    try:
        config.status_left = parse_template(file.status.left)
    except TemplateError as exc:
        raise fail("left", str(exc)) from None
    try:
        config.status_right = parse_template(file.status.right)
    except TemplateError as exc:
        raise fail("right", str(exc)) from None
    if colours.foreground is not None:
        config.foreground = colour("foreground", colours.foreground)
    if colours.background is not None:
        config.background = colour("background", colours.background)
    config.palette = {n: colour("palette", value) for n, value in enumerate(colours.palette)}
    names = action_names()  # tmux's names too: "detach-client" is "detach"
    for name, action in file.bindings.items():
        if action != "none" and action not in names:
            raise fail(name, f"unknown action {action!r} (actions: {', '.join(ACTIONS)}, none)")
        normalised = key_name(name, name)
        # another spelling of the same key replaces (or removes) its binding
        same = key_bytes(normalised)
        for bound in [k for k in config.bindings if key_bytes(k) == same]:
            del config.bindings[bound]
        if action != "none":
            config.bindings[normalised] = names[action].name
    return config
