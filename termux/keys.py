"""Key, paste and mouse encoding: the exact bytes xterm sends, for a session's current modes.

One encoder serves the CLI/socket (`encode_send`, tmux send-keys names), pastes (`encode_paste`)
and the TUI (`encode_textual`, Textual key names). All of them reduce to `encode_key(key, mods,
mode)`, where `key` is a canonical name (`"Up"`, `"F5"`, `"Enter"`, `"KP7"`, …) or one character,
`mods` is a bit set of SHIFT/ALT/CTRL/META, and `mode` is the session's `screen.mode` (pyte stores
private mode N as `N << 5`; named in termux.modes).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from termux.modes import APP_CURSOR, APP_KEYPAD, BRACKETED_PASTE, MOUSE_CLICKS, MOUSE_DRAG, MOUSE_MOTION, MOUSE_SGR

__all__ = [
    "ALT",
    "CTRL",
    "META",
    "SHIFT",
    "encode_key",
    "encode_mouse",
    "encode_paste",
    "encode_send",
    "encode_textual",
    "mouse_tracking",
    "parse_key_name",
]

# Modifier bits, chosen so that xterm's modifier parameter is 1 + mods.
SHIFT = 1
ALT = 2
CTRL = 4
META = 8


ESC = "\x1b"
CSI = "\x1b["
SS3 = "\x1bO"

# Cursor keys: final byte. SS3 in application cursor mode, CSI otherwise; CSI 1;m X when modified.
_CURSOR = {"Up": "A", "Down": "B", "Right": "C", "Left": "D", "Home": "H", "End": "F"}
# Editing keys: CSI n ~ (CSI n;m ~ when modified).
_TILDE = {"Insert": 2, "Delete": 3, "PageUp": 5, "PageDown": 6}
# F1–F4 are SS3 P..S (CSI 1;m P when modified); F5–F12 are CSI n ~.
_FKEYS_SS3 = {"F1": "P", "F2": "Q", "F3": "R", "F4": "S"}
_FKEYS_TILDE = {"F5": 15, "F6": 17, "F7": 18, "F8": 19, "F9": 20, "F10": 21, "F11": 23, "F12": 24}
# Keypad: (normal-mode text, application-mode SS3 final byte).
_KEYPAD = {
    **{f"KP{d}": (str(d), "pqrstuvwxy"[d]) for d in range(10)},
    "KP/": ("/", "o"),
    "KP*": ("*", "j"),
    "KP-": ("-", "m"),
    "KP+": ("+", "k"),
    "KP.": (".", "n"),
    "KP,": (",", "l"),
    "KP=": ("=", "X"),
    "KPEnter": ("\r", "M"),
}
_SIMPLE = {"Enter": "\r", "Tab": "\t", "BSpace": "\x7f", "Escape": ESC, "Space": " "}

KEY_NAMES: frozenset[str] = frozenset([*_CURSOR, *_TILDE, *_FKEYS_SS3, *_FKEYS_TILDE, *_KEYPAD, *_SIMPLE, "BTab"])

# tmux names (matched case-insensitively) → canonical names.
_ALIASES: dict[str, str] = {name.lower(): name for name in KEY_NAMES}
_ALIASES.update(
    {
        "pgup": "PageUp",
        "ppage": "PageUp",
        "pgdn": "PageDown",
        "npage": "PageDown",
        "ic": "Insert",
        "dc": "Delete",
        "backspace": "BSpace",
        "esc": "Escape",
        "return": "Enter",
    }
)

# Ctrl with a non-letter: what xterm sends (C-2/C-@/C-Space → NUL … C-8/C-? → DEL).
_CTRL_PUNCT = {
    "@": "\x00",
    " ": "\x00",
    "2": "\x00",
    "[": "\x1b",
    "3": "\x1b",
    "\\": "\x1c",
    "4": "\x1c",
    "]": "\x1d",
    "5": "\x1d",
    "^": "\x1e",
    "~": "\x1e",
    "6": "\x1e",
    "_": "\x1f",
    "/": "\x1f",
    "-": "\x1f",
    "7": "\x1f",
    "?": "\x7f",
    "8": "\x7f",
}


def _has(mode: Collection[int], flag: int) -> bool:
    return flag in mode


def encode_key(key: str, mods: int = 0, mode: Collection[int] = ()) -> bytes:
    """The bytes xterm sends for `key` with modifier bits `mods` in a terminal in `mode`.

    `key` is a canonical key name (see KEY_NAMES) or a single character. Raises ValueError for
    anything else.
    """
    return _encode_key(key, mods, mode).encode("utf-8", "surrogateescape")


def _encode_key(key: str, mods: int, mode: Collection[int]) -> str:
    alt = bool(mods & (ALT | META))
    param = 1 + (mods & (SHIFT | ALT | CTRL | META))
    if key in _CURSOR:
        final = _CURSOR[key]
        if param > 1:
            return f"{CSI}1;{param}{final}"
        return (SS3 if _has(mode, APP_CURSOR) else CSI) + final
    if key in _TILDE:
        n = _TILDE[key]
        return f"{CSI}{n};{param}~" if param > 1 else f"{CSI}{n}~"
    if key in _FKEYS_SS3:
        final = _FKEYS_SS3[key]
        return f"{CSI}1;{param}{final}" if param > 1 else SS3 + final
    if key in _FKEYS_TILDE:
        n = _FKEYS_TILDE[key]
        return f"{CSI}{n};{param}~" if param > 1 else f"{CSI}{n}~"
    if key in _KEYPAD:
        text, final = _KEYPAD[key]
        out = SS3 + final if _has(mode, APP_KEYPAD) else text
        return ESC + out if alt else out
    prefix = ESC if alt else ""
    if key == "BTab" or (key == "Tab" and mods & SHIFT):
        return prefix + CSI + "Z"
    if key == "BSpace":
        return prefix + ("\x08" if mods & CTRL else "\x7f")
    if key == "Space":
        return prefix + ("\x00" if mods & CTRL else " ")
    if key in _SIMPLE:
        return prefix + _SIMPLE[key]
    if len(key) != 1:
        raise ValueError(f"unknown key {key!r}")
    char = key
    if mods & CTRL:
        if "a" <= char.lower() <= "z" and char.isascii():
            char = chr(ord(char.upper()) - 64)
        else:
            char = _CTRL_PUNCT.get(char, char)
    elif mods & SHIFT and char.isalpha():
        char = char.upper()
    return prefix + char


_MOD_PREFIX = re.compile(r"^([CcMmSs])-(.+)$", re.S)


def parse_key_name(name: str) -> tuple[str, int] | None:
    """Parse a tmux key name (`C-M-Up`, `S-F5`, `^C`, `Enter`, `x`) into (key, mods), or None."""
    mods = 0
    rest = name
    while True:
        m = _MOD_PREFIX.match(rest)
        if m is None:
            break
        mods |= {"c": CTRL, "m": ALT, "s": SHIFT}[m.group(1).lower()]
        rest = m.group(2)
    if len(rest) == 2 and rest[0] == "^":
        mods |= CTRL
        rest = rest[1]
    if len(rest) == 1:
        return rest, mods
    canonical = _ALIASES.get(rest.lower())
    if canonical is None:
        return None
    return canonical, mods


def encode_send(args: list[str], *, literal: bool = False, mode: Collection[int] = ()) -> bytes:
    """tmux send-keys: each arg naming a key is encoded for `mode`, anything else typed as UTF-8.

    With `literal=True` every arg is typed as it is.
    """
    out: list[bytes] = []
    for arg in args:
        if not literal:
            parsed = parse_key_name(arg)
            if parsed is not None:
                out.append(encode_key(parsed[0], parsed[1], mode))
                continue
        out.append(arg.encode("utf-8", "surrogateescape"))
    return b"".join(out)


# ESC and the C1 controls (U+0080–U+009F, which include the 8-bit CSI) could end a bracketed paste or
# be read as keys; a paste is text, so they are dropped. So are raw C1 bytes, which arrive as
# surrogates from bytes decoded with surrogateescape (a paste buffer's).
_PASTE_UNSAFE = re.compile("[\x1b\x80-\x9f\udc80-\udc9f]")


def encode_paste(text: str, mode: Collection[int] = ()) -> bytes:
    """A paste: line ends become CR (as terminals send them), escapes removed, bracketed if enabled."""
    clean = _PASTE_UNSAFE.sub("", text).replace("\r\n", "\r").replace("\n", "\r")
    data = clean.encode("utf-8", "surrogateescape")
    if _has(mode, BRACKETED_PASTE):
        return b"\x1b[200~" + data + b"\x1b[201~"
    return data


# ---------------------------------------------------------------------------------------------
# Textual key events → key model

_TEXTUAL_NAMED = {
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "home": "Home",
    "end": "End",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "insert": "Insert",
    "delete": "Delete",
    "enter": "Enter",
    "return": "Enter",
    "tab": "Tab",
    "backspace": "BSpace",
    "escape": "Escape",
    "space": "Space",
    **{f"f{n}": f"F{n}" for n in range(1, 13)},
}
# Textual's names for the characters that have ctrl codes (`ctrl+backslash` …).
_TEXTUAL_CHARS = {
    "at": "@",
    "@": "@",
    "backslash": "\\",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
    "circumflex_accent": "^",
    "underscore": "_",
    "slash": "/",
    "minus": "-",
    "question_mark": "?",
    "tilde": "~",
    "grave_accent": "`",
}
_TEXTUAL_MODS = {"shift": SHIFT, "alt": ALT, "ctrl": CTRL, "meta": META, "super": 0, "hyper": 0}


def textual_key_model(key: str, character: str | None) -> tuple[str, int] | None:
    """Map a Textual key event (`key`, `character`) to (canonical key, mods), or None if unknown."""
    if key == "shift+tab":  # Textual's BackTab
        return "Tab", SHIFT
    parts = key.split("+")
    # A bare "+" key arrives as "plus"; a trailing empty part means the key itself was '+'.
    base = parts[-1] if parts[-1] else "+"
    mods = 0
    for part in parts[:-1]:
        if part not in _TEXTUAL_MODS:
            return None
        mods |= _TEXTUAL_MODS[part]
    if base in _TEXTUAL_NAMED:
        return _TEXTUAL_NAMED[base], mods
    if base.startswith("f") and base[1:].isdigit() and 13 <= int(base[1:]) <= 24:
        # Textual names xterm's shift+F1..F12 as F13..F24.
        return f"F{int(base[1:]) - 12}", mods | SHIFT
    if len(base) == 1:
        if character and len(character) == 1 and not mods & CTRL and character.isprintable():
            # The character already carries shift (and keyboard layout).
            return character, mods & ~SHIFT
        return base, mods
    if base in _TEXTUAL_CHARS:
        return _TEXTUAL_CHARS[base], mods
    if character and character.isprintable():
        # Named printable characters (`exclamation_mark`, `euro_sign`, …): the character is the key.
        return character, mods & ~SHIFT
    return None


def encode_textual(key: str, character: str | None, mode: Collection[int] = ()) -> bytes:
    """The bytes for a Textual key event, for a session in `mode` (b"" when it has no encoding)."""
    if character is not None and len(character) == 1 and (ord(character) < 0x20 or character == "\x7f"):
        # A control character that reached us raw (ctrl+h as BS, ctrl+j …): send it as it came,
        # except those Textual names as keys with mode-dependent or alternative encodings.
        if key not in ("escape", "tab", "enter", "backspace") or character in ("\x08",):
            return character.encode()
    model = textual_key_model(key, character)
    if model is None:
        if character:
            return character.encode("utf-8", "surrogateescape")
        return b""
    try:
        return encode_key(model[0], model[1], mode)
    except ValueError:
        return b""


# ---------------------------------------------------------------------------------------------
# Mouse


def mouse_tracking(mode: Collection[int]) -> int:
    """Which mouse mode the program enabled: 0 (none), 1000, 1002 or 1003."""
    if _has(mode, MOUSE_MOTION):
        return 1003
    if _has(mode, MOUSE_DRAG):
        return 1002
    if _has(mode, MOUSE_CLICKS):
        return 1000
    return 0


def encode_mouse(
    kind: str,
    button: int,
    x: int,
    y: int,
    mods: int = 0,
    mode: Collection[int] = (),
) -> bytes:
    """Encode a mouse event for the program, or b"" when its mouse mode does not report it.

    `kind` is "press", "release", "move" or "wheel"; `button` is 1/2/3 (left/middle/right), 0 for
    a move with no button held, or for "wheel" 4 (up) / 5 (down); `x`, `y` are 0-based cells.
    """
    tracking = mouse_tracking(mode)
    if tracking == 0:
        return b""
    if kind == "move":
        if tracking == 1000 or (tracking == 1002 and button == 0):
            return b""
    sgr = _has(mode, MOUSE_SGR)
    if kind == "wheel":
        code = 64 + (0 if button == 4 else 1)
    elif kind == "move":
        code = 32 + ((button - 1) if button else 3)
    elif kind == "release" and not sgr:
        code = 3
    else:
        code = max(button - 1, 0)
    if mods & SHIFT:
        code |= 4
    if mods & (ALT | META):
        code |= 8
    if mods & CTRL:
        code |= 16
    if sgr:
        final = "m" if kind == "release" else "M"
        return f"{CSI}<{code};{x + 1};{y + 1}{final}".encode()
    if x + 1 + 32 > 255 or y + 1 + 32 > 255:
        return b""  # the X10 form cannot express it
    return bytes([0x1B, 0x5B, 0x4D, 32 + code, 32 + x + 1, 32 + y + 1])
