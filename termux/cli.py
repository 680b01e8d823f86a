"""The `termux` command (placeholder until the foundation lands)."""

import sys

from termux import __version__


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        print(f"termux {__version__}")
        return 0
    print("termux: not yet implemented", file=sys.stderr)
    return 1
