"""Search patterns: RE2 regular expressions, so matching time is linear in the text searched
whatever the pattern (no backtracking blow-up as with `^(a+)+$`); backreferences and lookaround are
not part of RE2's syntax. Shared by copy mode's search and `termux capture --grep`.

Every pattern is compiled with `never_nl`: a match never spans a newline, so many lines can be
joined with "\\n" and searched in one call, with `^` and `$` matching at each line's ends.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import re2

MAX_PATTERN = 4096  # characters of a pattern
MAX_PROGRAM = 2000  # RE2 instructions: the cost of a pattern per character searched

_ESCAPED = re.compile(r"\\.", re.S)


class PatternError(ValueError):
    """A pattern termux refuses, with the reason in termux's words."""


@dataclass(frozen=True, slots=True)
class Pattern:
    text: str  # as typed
    regex: Any  # the compiled RE2 pattern (re2 ships no type hints)
    literal: bool  # `text` is not a valid regular expression, so it is matched as plain text
    ignore_case: bool

    def spans(self, text: str | bytes, empty: bool = False) -> Iterator[tuple[int, int]]:
        """(start, end) of every match in `text`, in order. Empty matches (`a*` finds one between
        any two characters) are left out unless `empty`: they show and select nothing."""
        for found in self.regex.finditer(text):
            start, end = found.span()
            if end > start or empty:
                yield start, end


def _compile(text: str, *, literal: bool, ignore_case: bool) -> Any:
    options = re2.Options()
    options.log_errors = False
    options.never_nl = True
    options.literal = literal
    options.case_sensitive = not ignore_case
    pattern = re2.compile(text if literal else "(?m)" + text, options)
    if pattern.programsize > MAX_PROGRAM:
        raise PatternError(
            f"regular expression {text!r} is too complex ({pattern.programsize} instructions, at most "
            f"{MAX_PROGRAM}): use fewer or smaller repetitions"
        )
    return pattern


def _reason(exc: Exception) -> str:
    reason = exc.args[0] if exc.args else exc
    text = reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)
    return text.replace("(?m)", "", 1)  # RE2 quotes the pattern it was given: ours has the flag


def search_pattern(text: str) -> Pattern:
    """Copy mode's search, as tmux's: case is ignored unless the text has a capital letter (one
    after a backslash, as in `\\S`, does not count); text that is not a valid (or is too complex a)
    regular expression is searched for as plain text, so `f(x` finds "f(x"."""
    if len(text) > MAX_PATTERN:
        text = text[:MAX_PATTERN]
    ignore_case = not any(char.isupper() for char in _ESCAPED.sub("", text))
    try:
        return Pattern(text, _compile(text, literal=False, ignore_case=ignore_case), False, ignore_case)
    except (re2.error, PatternError):
        return Pattern(text, _compile(text, literal=True, ignore_case=ignore_case), True, ignore_case)


def grep_pattern(text: str) -> Pattern:
    """`capture --grep`: a regular expression, case-sensitive as grep's; PatternError when it is
    not a valid one."""
    if not text:
        raise PatternError("the regular expression is empty")
    if len(text) > MAX_PATTERN:
        raise PatternError(f"the regular expression is over {MAX_PATTERN} characters")
    try:
        return Pattern(text, _compile(text, literal=False, ignore_case=False), False, False)
    except re2.error as exc:
        raise PatternError(
            f"bad regular expression {text!r}: {_reason(exc)} (RE2 syntax: no backreferences or lookaround)"
        ) from None


def grep(lines: Sequence[str], first: int, pattern: Pattern) -> list[tuple[int, str]]:
    """(number, line) of each line that matches, numbered from `first` (capture's numbering:
    negative in scrollback). The lines are searched joined, as UTF-8 (RE2's own form, so no offset
    is converted); after a match the search goes on from the next line: linear in their length."""
    if not lines:
        return []
    data = "\n".join(lines).encode("utf-8", "surrogateescape")
    starts = list(accumulate((len(line.encode("utf-8", "surrogateescape")) + 1 for line in lines), initial=0))
    matched: list[tuple[int, str]] = []
    pos = 0
    while pos <= len(data) and (found := pattern.regex.search(data, pos)) is not None:
        index = bisect_right(starts, found.start()) - 1
        matched.append((first + index, lines[index]))
        pos = starts[index + 1]  # `^` matches every line, as grep's: an empty match counts
    return matched
