"""Regular expressions from people and scripts: RE2, so matching time is linear in the text searched
whatever the pattern (no backtracking blow-up as with `^(a+)+$`); backreferences and lookaround are
not part of RE2's syntax. A pattern's compiled program is at most MAX_PROGRAM instructions (its cost
per character). One compiler for `session.wait` (termux/server/matcher.py), `session.grep` and
copy mode's search; `^` and `$` match at the ends of each line.

Line patterns (`grep_pattern`, `search_pattern`) are compiled with `never_nl`: a match never spans
a newline, so many lines can be joined with "\\n" and searched in one call.
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


def compile_regex(text: str, *, never_nl: bool, literal: bool = False, ignore_case: bool = False) -> Any:
    """`text` as an RE2 pattern with `^`/`$` at line ends; PatternError saying why it cannot be one."""
    options = re2.Options()
    options.log_errors = False
    options.never_nl = never_nl
    options.literal = literal
    options.case_sensitive = not ignore_case
    try:
        pattern = re2.compile(text if literal else "(?m)" + text, options)
    except re2.error as exc:
        raise PatternError(
            f"bad regular expression {text!r}: {_reason(exc)} (RE2 syntax: no backreferences or lookaround)"
        ) from None
    if pattern.programsize > MAX_PROGRAM and not literal:  # plain text costs the same per character however long
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
    text = text[:MAX_PATTERN]
    ignore_case = not any(char.isupper() for char in _ESCAPED.sub("", text))
    try:
        regex, literal = compile_regex(text, never_nl=True, ignore_case=ignore_case), False
    except PatternError:
        regex, literal = compile_regex(text, never_nl=True, literal=True, ignore_case=ignore_case), True
    return Pattern(text, regex, literal, ignore_case)


def grep_pattern(text: str) -> Pattern:
    """`session.grep`: a regular expression, case-sensitive as grep's; PatternError when it is not
    a valid one."""
    if not text:
        raise PatternError("the regular expression is empty")
    if len(text) > MAX_PATTERN:
        raise PatternError(f"the regular expression is over {MAX_PATTERN} characters")
    return Pattern(text, compile_regex(text, never_nl=True), False, False)


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
