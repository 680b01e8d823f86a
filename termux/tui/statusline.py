"""The status line's template, sans-I/O: parse `left` and `right` from the config, render them
from the values they name, and say when a clock in them next changes.

    left = " [{session}] {prefix} then: c new  n next  d detach  ? help"
    right = "{marks} {host} {time:%H:%M}"

Fields: `{session}` (the focused session's name), `{index}` (its number in the sidebar),
`{sessions}` (how many there are), `{host}` (this machine's short name), `{prefix}` (the prefix
key), `{unseen}` and `{bells}` (how many sessions have output not seen, a bell not seen), `{marks}`
(`3* 1!` from those two, empty when both are 0) and `{time}` or `{time:FORMAT}` (strftime; `%H:%M`
by default). `{{` and `}}` are braces.
"""

from __future__ import annotations

import string
import time
from collections.abc import Mapping
from dataclasses import dataclass

FIELDS = ("session", "index", "sessions", "host", "prefix", "unseen", "bells", "marks", "time")
DEFAULT_LEFT = " [{session}] {prefix} then: c new  n next  d detach  ? help"
DEFAULT_RIGHT = "{marks} "
DEFAULT_TIME = "%H:%M"
# strftime directives whose text changes every second; any other format changes at most once a minute
_SECONDS = ("%S", "%T", "%X", "%c", "%s", "%r", "%+")


class TemplateError(ValueError):
    """A template that cannot be used; the message says why in termux's words."""


@dataclass(frozen=True)
class Field:
    name: str
    format: str = ""


Part = str | Field


@dataclass(frozen=True)
class Template:
    parts: tuple[Part, ...]

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(part.name for part in self.parts if isinstance(part, Field))

    def tick(self) -> float | None:
        """How often what it shows can change by itself (its clock's resolution, in seconds);
        None when it has no time field, so nothing needs a timer."""
        clocks = [part for part in self.parts if isinstance(part, Field) and part.name == "time"]
        formats = [part.format or DEFAULT_TIME for part in clocks]
        if not formats:
            return None
        return 1.0 if any(code in fmt for fmt in formats for code in _SECONDS) else 60.0

    def render(self, values: Mapping[str, object], now: float | None = None) -> str:
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            elif part.name == "time":
                out.append(time.strftime(part.format or DEFAULT_TIME, time.localtime(now)))
            else:
                out.append(str(values.get(part.name, "")))
        return "".join(out)


def parse_template(text: str) -> Template:
    """`text` as literal parts and fields; TemplateError for an unknown field or a stray brace."""
    parts: list[Part] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        raise TemplateError(f"unbalanced braces in {text!r} (write {{{{ and }}}} for braces)") from None
    for literal, name, spec, conversion in parsed:
        if literal:
            parts.append(literal)
        if name is None:
            continue
        if name not in FIELDS or conversion:
            raise TemplateError(f"unknown field {{{name}}} (fields: {', '.join(FIELDS)})")
        if spec and name != "time":
            raise TemplateError(f"only {{time}} takes a format, not {{{name}:{spec}}}")
        parts.append(Field(name, spec or ""))
    return Template(tuple(parts))


def next_change(tick: float, now: float) -> float:
    """Seconds from `now` until the next whole `tick` of the clock (a minute's or a second's
    turn), when a time field shows something new."""
    return tick - now % tick  # (every time zone is a whole number of minutes from UTC)


def marks(unseen: int, bells: int) -> str:
    """`3* 1!`: sessions with unseen output and with a bell; empty when there are none."""
    return " ".join(text for count, mark in ((unseen, "*"), (bells, "!")) if count for text in [f"{count}{mark}"])
