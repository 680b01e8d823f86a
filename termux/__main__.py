"""`python -m termux` and the `termux` command (`entry`)."""

from __future__ import annotations

import os
import sys


def entry() -> None:
    """Run the command line (through the TUI host when it may attach: then nothing else is
    loaded here), then leave without the interpreter's teardown: freeing every module and
    object one by one costs a one-shot call more than its request. Nothing is left to do at exit
    (every verb has closed what it opened and logs as it goes): only the standard streams'
    buffers are flushed here."""
    from termux.argv import TUI_VERBS, verb_named
    from termux.trace import TRACE

    if TRACE.on:
        TRACE.mark("caller.entry")

    status = None
    if verb_named(sys.argv[1:]) in TUI_VERBS:  # else a one-shot verb: it never loads the host's side
        from termux.tui import host

        try:
            status = host.command_line(sys.argv[1:])
        except host.HostRefused as exc:
            from termux.text import visible

            print(visible(f"termux: {exc} (untrusted)"), file=sys.stderr)
            status = 1
    if status is None:
        from termux.cli import main

        status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`termux ls | head -1`), or a closed stream
            pass
    os._exit(status)


if __name__ == "__main__":
    entry()
