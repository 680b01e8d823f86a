"""`termux capture --grep REGEX`: the lines of a capture that match, with their line numbers.

One `session.grep` request: the server matches the rows in slices (RE2, linear in their length).
Numbers are capture's: negative in scrollback, so `-S N -E N` prints that line again.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def capture_grep(args: argparse.Namespace, request: dict[str, Any]) -> int:
    from termux.cli import UsageError, connect

    if args.escapes:
        raise UsageError("--grep matches the text: give it without -e")
    if request.pop("join", False):
        raise UsageError("--grep numbers the rows as -S takes them: give it without -J")
    request.pop("escapes", None)
    with connect(args) as client:
        matches = client.request("session.grep", pattern=args.grep, **request)["matches"]
    if args.json:
        print(json.dumps({"matches": matches}, ensure_ascii=False))
    else:
        sys.stdout.write("".join(f"{m['line']}:{m['text']}\n" for m in matches))
    return 0
