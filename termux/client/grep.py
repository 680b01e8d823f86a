"""`termux capture --grep REGEX`: the lines of a capture that match, with their line numbers.

The capture is one `session.capture` request (from the oldest history line unless -S says
otherwise); the lines are matched here, with RE2 (termux/copymode/pattern.py: linear in their
length). Numbers are capture's: negative in scrollback, so `-S N` takes one back.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

OLDEST = -1_000_000  # before the oldest line a history can hold: capture clamps it to the first


def capture_grep(args: argparse.Namespace, request: dict[str, Any]) -> int:
    from termux.cli import UsageError, connect
    from termux.copymode.pattern import PatternError, grep, grep_pattern

    try:
        pattern = grep_pattern(args.grep)
    except PatternError as exc:
        raise UsageError(str(exc)) from None
    if args.escapes:
        raise UsageError("--grep matches the text: give it without -e")
    request.setdefault("start", OLDEST)
    with connect(args) as client:
        result = client.request("session.capture", **request)
    lines: list[str] = result["lines"]
    last = result["rows"] - 1
    first = max(-result["history"], min(request["start"], last))  # as capture clamps it
    matched = grep(lines, first, pattern)
    if args.json:
        print(json.dumps({"matches": [{"line": n, "text": text} for n, text in matched]}, ensure_ascii=False))
    else:
        sys.stdout.write("".join(f"{n}:{text}\n" for n, text in matched))
    return 0
