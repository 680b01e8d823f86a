"""Reading a command line before parsing it (termux/argv.py)."""

from __future__ import annotations

import pytest

from termux.argv import TUI_VERBS, socket_options, verb_named


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], (None, None)),
        (["attach", "-t", "x"], (None, None)),
        (["-L", "work", "attach"], ("work", None)),
        (["attach", "-L", "work"], ("work", None)),
        (["-Lwork"], ("work", None)),
        (["--socket-name=work", "new"], ("work", None)),
        (["--socket-name", "work"], ("work", None)),
        (["-S", "/tmp/s", "attach"], (None, "/tmp/s")),
        (["-S/tmp/s"], (None, "/tmp/s")),
        (["--socket", "/tmp/s"], (None, "/tmp/s")),
        (["--socket=/tmp/s"], (None, "/tmp/s")),
        (["-L", "a", "-L", "b"], ("b", None)),  # the last wins, as in argparse
        (["new", "--", "sh", "-c", "x", "-S", "y"], (None, None)),  # the command's own words
        (["-L"], ("", None)),  # no value: the parser will say so
    ],
)
def test_socket_options_are_read_as_the_parser_would(argv: list[str], expected: tuple[str | None, str | None]) -> None:
    assert socket_options(argv) == expected


def test_the_verb_is_the_first_word_that_is_no_option() -> None:
    assert verb_named(["-L", "work", "attach", "-t", "x"]) == "attach"
    assert verb_named(["-S", "/tmp/s", "new"]) == "new"
    assert verb_named([]) is None
    assert verb_named(["--", "ls"]) is None


def test_the_hosts_verbs_are_every_name_of_the_verbs_that_run_the_tui() -> None:
    from termux.commands import COMMANDS

    tui = {
        name for spec in COMMANDS if spec.run in ("termux.cli:cmd_attach", "termux.cli:cmd_new") for name in spec.names
    }
    assert set(TUI_VERBS) == {None, *tui}
