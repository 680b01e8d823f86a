"""`session.grep`: the lines of a session's history and screen that match a regular expression,
numbered as `session.capture` numbers them. The rows are copied at once, as capture copies them, then
rendered and matched a batch at a time, in slices (termux/server/slices.py): RE2 is linear in the
text, so a slice's cost is bounded by its rows whatever the pattern."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec

import termux.emulator as emulator
from termux.patterns import MAX_PATTERN, PatternError, grep, grep_pattern
from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.messages import Args, Target
from termux.protocol.results import GrepMatch, GrepResult
from termux.server.handlers import Context
from termux.server.scheduler import FOCUSED_BUDGET
from termux.server.slices import CHECK_ROWS, in_slices


class GrepArgs(Args):
    target: Target
    pattern: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_PATTERN)]
    start: int | None = None  # default: the oldest history line
    end: int | None = None  # default: the bottom row of the screen


def session_grep(ctx: Context, args: GrepArgs) -> Any:
    session = ctx.server.find(args.target)
    try:
        pattern = grep_pattern(args.pattern)
    except PatternError as exc:
        raise ProtocolError(ErrorCode.BAD_ARGS, str(exc)) from None
    screen = session.screen
    history = len(screen.history)
    start = -history if args.start is None else args.start
    rows = emulator.capture_rows(screen, start, args.end)
    first = max(-history, min(start, screen.lines - 1))  # the number of rows[0], as capture clamps
    result = GrepResult([], history, session.bytes_parsed)

    def match(lo: int, hi: int) -> None:
        texts = [emulator.render_row(row) for row in rows[lo:hi]]
        result.matches.extend(GrepMatch(n, text) for n, text in grep(texts, first + lo, pattern))

    if len(rows) <= CHECK_ROWS:
        match(0, len(rows))
        return result
    return _in_slices(len(rows), match, result)


async def _in_slices(count: int, match: Callable[[int, int], None], result: GrepResult) -> GrepResult:
    await in_slices(count, match, FOCUSED_BUDGET)
    return result

