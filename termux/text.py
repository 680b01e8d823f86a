"""Showing text that came from a server or a program: control characters made visible.

Session names, titles, commands, error messages and anything else a peer or a program supplied
go through `visible` before they reach a terminal, so that a hostile string (`ESC ] 0 ; ... BEL`
sets the outer terminal's title; other sequences do worse) is shown, never obeyed. As tmux does
(vis(3), C style with octal): tab, newline, carriage return, bell, backspace, vertical tab and
form feed print as `\\t \\n \\r \\a \\b \\v \\f`; every other C0 control, DEL and every C1 control
prints as a backslash and three octal digits of its code point (`\\033` for ESC, `\\233` for CSI).
Unlike vis(3), a backslash stays a single backslash: termux's messages already quote names with
Python's repr, and doubling would make them unreadable.
"""

from __future__ import annotations

_NAMED = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}
_CONTROLS = [*range(0x20), 0x7F, *range(0x80, 0xA0)]
_TABLE = {code: _NAMED.get(chr(code), f"\\{code:03o}") for code in _CONTROLS}


def visible(text: str) -> str:
    """`text` with every control character replaced by its escape (linear in its length)."""
    return text.translate(_TABLE)


_TABLE_KEEPING_LINES = {code: escape for code, escape in _TABLE.items() if chr(code) not in "\n\t"}


def visible_lines(text: str) -> str:
    """`visible`, but newlines and tabs are kept: text of several lines (a paste buffer) shown on
    a terminal as lines, with every other control character escaped."""
    return text.translate(_TABLE_KEEPING_LINES)
