"""The Textual TUI (being built: see issue 3)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def run_tui(args: argparse.Namespace, new_session: dict[str, Any] | None = None) -> int:
    print("termux: the TUI is not built yet; use `termux new -d` and the other verbs", file=sys.stderr)
    return 2
