"""TUI settings from `$XDG_CONFIG_HOME/termux/config.toml` (prefix, bindings, scrollback, colours).

    prefix = "ctrl+b"            # or tmux style: "C-b"
    sidebar = true               # shown at start
    activity = false             # the activity view, shown at start
    escape_delay_ms = 5          # how long a lone ESC waits for the rest of a key sequence
    window_size = "latest"       # sessions shown by views of different sizes: latest, smallest, largest

    [bindings]                   # command key (after the prefix) = action
    c = "new"
    "|" = "sidebar"

    [scrollback]
    lines = 10000                # history lines the scrollback view shows (the server keeps it)
    wheel_lines = 3              # lines per wheel step

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.color import Color, ColorParseError

from termux.clipboard import DEFAULT_SET_CLIPBOARD, SET_CLIPBOARD_POLICIES
from termux.keys import encode_key, encode_textual, parse_key_name, textual_key_model
from termux.server.sizing import POLICIES

ACTIONS = (
    "new",
    "next",
    "previous",
    *(f"select-{n}" for n in range(10)),
    "detach",
    "kill",
    "rename",
    "sidebar",
    "activity",
    "copy-mode",
    "paste-buffer",
    "help",
    "send-prefix",
)
# Old action names still taken in a config file, and what they mean now.
ACTION_ALIASES = {"scrollback": "copy-mode"}
ACTION_HELP = {
    "new": "create a session and focus it",
    "next": "focus the next session",
    "previous": "focus the previous session",
    "detach": "leave the TUI; sessions keep running",
    "kill": "kill the focused session (asks first)",
    "rename": "rename the focused session",
    "sidebar": "show or hide the sidebar",
    "activity": "show or hide the activity view",
    "copy-mode": "copy mode: browse, search and copy the focused session's history (q leaves)",
    "paste-buffer": "paste the newest paste buffer into the focused session",
    "help": "this help",
    "send-prefix": "send the prefix key itself to the session",
    **{f"select-{n}": f"focus session {n} in the sidebar" for n in range(10)},
}

DEFAULT_BINDINGS: dict[str, str] = {
    "c": "new",
    "n": "next",
    "p": "previous",
    **{str(n): f"select-{n}" for n in range(10)},
    "d": "detach",
    "x": "kill",
    ",": "rename",
    "s": "sidebar",
    "r": "activity",
    "[": "copy-mode",
    "]": "paste-buffer",
    "?": "help",
}


class ConfigError(Exception):
    """The config file is not valid; the message names the file and the line."""


@dataclass
class Config:
    prefix: str = "ctrl+b"
    bindings: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_BINDINGS))
    sidebar: bool = True
    activity: bool = False
    escape_delay_ms: int = 5
    window_size: str = "latest"  # the server's size policy (termux/server/sizing.py), sent on attach
    mode_keys: str = "vi"  # copy mode's keys, tmux's mode-keys: "vi" or "emacs"
    set_clipboard: str = DEFAULT_SET_CLIPBOARD  # tmux's set-clipboard (termux/clipboard.py), sent on attach
    scrollback_lines: int = 10_000
    wheel_lines: int = 3
    foreground: str | None = None
    background: str | None = None
    palette: dict[int, str] = field(default_factory=dict)
    path: Path | None = None


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


def load_config(path: Path | None = None) -> Config:
    """Read the config file (a missing file gives the defaults)."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None  # tomllib says "(at line N, column M)"
    return parse_config(data, text, path)


def parse_config(data: dict[str, Any], text: str = "", path: Path | None = None) -> Config:
    config = Config(path=path)

    def fail(key: str, message: str) -> ConfigError:
        line = _line_of(text, key)
        where = f"{path}:{line}" if line else f"{path}"
        return ConfigError(f"{where}: {key}: {message}")

    def want(key: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise fail(key, f"expected {what}, got {value!r}")
        return value

    def colour(key: str, value: Any) -> str:
        want(key, value, str, 'a colour such as "#1e1e1e"')
        try:
            Color.parse(value)
        except ColorParseError:
            raise fail(key, f"not a colour: {value!r}") from None
        return str(value)

    known = {
        "prefix", "bindings", "sidebar", "activity", "escape_delay_ms", "window_size", "mode_keys", "set_clipboard",
        "scrollback", "colours", "colors",
    }  # fmt: skip
    for key in data:
        if key not in known:
            raise fail(key, f"unknown setting (known: {', '.join(sorted(known))})")

    def key_name(setting: str, name: str) -> str:
        normalised = normalise_key(name) if len(name) > 1 else name
        if not key_bytes(normalised):
            raise fail(setting, f"unknown key {name!r} (expected {KEY_HINT})")
        return normalised

    if "prefix" in data:
        config.prefix = key_name("prefix", want("prefix", data["prefix"], str, 'a key such as "ctrl+b"'))
    if "sidebar" in data:
        config.sidebar = want("sidebar", data["sidebar"], bool, "true or false")
    if "activity" in data:
        config.activity = want("activity", data["activity"], bool, "true or false")
    if "escape_delay_ms" in data:
        config.escape_delay_ms = want("escape_delay_ms", data["escape_delay_ms"], int, "milliseconds")
        if not 0 <= config.escape_delay_ms <= 1000:
            raise fail("escape_delay_ms", "must be between 0 and 1000")
    if "window_size" in data:
        config.window_size = want("window_size", data["window_size"], str, '"latest", "smallest" or "largest"')
        if config.window_size not in POLICIES:
            raise fail("window_size", f'expected "latest", "smallest" or "largest", got {config.window_size!r}')
    if "mode_keys" in data:
        config.mode_keys = want("mode_keys", data["mode_keys"], str, '"vi" or "emacs"')
        if config.mode_keys not in ("vi", "emacs"):
            raise fail("mode_keys", f'expected "vi" or "emacs", got {config.mode_keys!r}')
    if "set_clipboard" in data:
        config.set_clipboard = want("set_clipboard", data["set_clipboard"], str, '"on", "external" or "off"')
        if config.set_clipboard not in SET_CLIPBOARD_POLICIES:
            raise fail("set_clipboard", f'expected "on", "external" or "off", got {config.set_clipboard!r}')
    bindings = want("bindings", data.get("bindings", {}), dict, "a table")
    for name, action in bindings.items():
        action = ACTION_ALIASES.get(action, action)
        if action not in ACTIONS and action != "none":
            raise fail(name, f"unknown action {action!r} (actions: {', '.join(ACTIONS)}, none)")
        normalised = key_name(name, name)
        # another spelling of the same key replaces (or removes) its binding
        same = key_bytes(normalised)
        for bound in [k for k in config.bindings if key_bytes(k) == same]:
            del config.bindings[bound]
        if action != "none":
            config.bindings[normalised] = action
    scrollback = want("scrollback", data.get("scrollback", {}), dict, "a table")
    for key, value in scrollback.items():
        if key == "lines":
            config.scrollback_lines = want(key, value, int, "a number of lines")
            if not 0 <= value <= 1_000_000:
                raise fail(key, "must be between 0 and 1000000")
        elif key == "wheel_lines":
            config.wheel_lines = want(key, value, int, "a number of lines")
            if not 1 <= value <= 100:
                raise fail(key, "must be between 1 and 100")
        else:
            raise fail(key, "unknown scrollback setting (known: lines, wheel_lines)")
    colours = data.get("colours", data.get("colors", {}))
    colours = want("colours", colours, dict, "a table")
    for key, value in colours.items():
        if key == "foreground":
            config.foreground = colour(key, value)
        elif key == "background":
            config.background = colour(key, value)
        elif key == "palette":
            want(key, value, list, "a list of up to 16 colours")
            if len(value) > 16:
                raise fail(key, "at most 16 colours")
            config.palette = {n: colour(key, v) for n, v in enumerate(value)}
        else:
            raise fail(key, "unknown colour setting (known: foreground, background, palette)")
    return config
