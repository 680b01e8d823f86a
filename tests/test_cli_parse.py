"""The one-shot command line's own parser (`cli.quick_parse`) against argparse's (`build_parser`):
the same result for every line it takes, and it takes the plain lines scripts write."""

from __future__ import annotations

import contextlib
import io
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termux import cli
from termux.commands import COMMANDS

VERBS = sorted({name for spec in COMMANDS for name in spec.names})
# Words a line may hold besides a verb's own option names: values, arguments, and the forms the
# quick parser leaves to argparse (abbreviations, attached values, `--`, help).
WORDS = [
    "x", "s", "%1", "5", "0", "-5", "-", "3.5", "", "a b", "-x", "-5.5", "--", "-h", "--help", "--js", "--json=1",
    "-tfoo", "-Lname", "--socket=p", "-S", "-L", "--socket", "--socket-name", "-t", "--json", "K=V", "NAME=",
    "Enter", "--version",
]  # fmt: skip


def flags_of(verb: str) -> list[str]:
    spec = next(spec for spec in COMMANDS if verb in spec.names)
    return [flag for opt in spec.opts for flag in opt.flags]


def by_argparse(words: list[str]) -> dict[str, object] | None:
    """What argparse makes of the line (as `cli.parse` runs it), None when it refuses it."""
    parser = cli.build_parser(only=cli.verb_named(words))
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            args, unknown = parser.parse_known_args(words, namespace=SimpleNamespace())
        except SystemExit:
            return None
    return None if unknown else vars(args)


@st.composite
def lines(draw: st.DrawFn) -> list[str]:
    verb = draw(st.sampled_from(VERBS))
    vocabulary = WORDS + flags_of(verb)
    before = draw(st.sampled_from([[], ["-L", "work"], ["-S", "/tmp/p"], ["--socket", "/tmp/p"], ["-L"], ["x"]]))
    return [*before, verb, *draw(st.lists(st.sampled_from(vocabulary), max_size=7))]


@settings(max_examples=3000, deadline=None)
@given(lines())
def test_a_line_the_quick_parser_takes_is_parsed_as_argparse_parses_it(words: list[str]) -> None:
    quick = cli.quick_parse(words)
    if quick is not None:
        assert vars(quick) == by_argparse(words)


PLAIN = [
    [],
    ["-L", "work"],
    ["ls"],
    ["ls", "--json"],
    ["-L", "work", "ls"],
    ["list-sessions", "-S", "/tmp/sock"],
    ["send", "-t", "s", "hello", "Enter"],
    ["send-keys", "-t", "s", "-l", "echo hi"],
    ["send", "-t", "s", "--stdin"],
    ["send", "-t", "s", "C-c"],
    ["capture", "-t", "s"],
    ["capture", "-t", "s", "-p", "-S", "-100", "-E", "-", "-e", "-J"],
    ["capture", "--socket", "/tmp/sock", "-t", "s", "--grep", "error", "--json"],
    ["capture-pane", "-p", "-t", "s", "-S", "-"],
    ["wait", "-t", "s", "--match", "ready", "--timeout", "5"],
    ["wait", "-t", "s", "--exit"],
    ["has-session", "-t", "s"],
    ["kill", "-t", "s"],
    ["rename", "-t", "s", "new-name"],
    ["resize", "-t", "s", "100", "30"],
    ["stats", "--json"],
    ["events", "--cursor", "0", "--type", "exited", "--timeout", "1"],
    ["set-buffer", "-b", "clip", "text"],
    ["show-buffer", "-b", "0"],
    ["paste-buffer", "-t", "s", "-p", "-d"],
    ["attach", "-t", "s"],
    ["a"],
]


@pytest.mark.parametrize("words", PLAIN, ids=" ".join)
def test_the_quick_parser_takes_the_plain_lines_as_argparse_reads_them(words: list[str]) -> None:
    quick = cli.quick_parse(words)
    assert quick is not None
    assert vars(quick) == by_argparse(words)


@pytest.mark.parametrize(
    "words",
    [
        ["ls", "--help"],  # argparse's help
        ["--version"],
        ["ls", "--js"],  # an abbreviation argparse accepts
        ["capture", "-ts"],  # an attached value
        ["send", "-t", "s", "--", "-x"],
        ["wait", "-t", "s"],  # none of a required group: argparse's message
        ["wait", "-t", "s", "--quiet", "soon"],  # a value its type refuses: argparse says why, in termux's words
        ["resize", "-t", "s", "100"],
        ["new", "-d", "--", "cat"],  # a command: argparse's REMAINDER
        ["lss"],
    ],
    ids=" ".join,
)
def test_the_quick_parser_leaves_the_rest_to_argparse(words: list[str]) -> None:
    assert cli.quick_parse(words) is None


def test_a_bad_value_is_reported_in_termuxs_words(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["wait", "-t", "s", "--quiet", "soon"])
    assert exited.value.code == 2
    assert "not a number of seconds: 'soon'" in capsys.readouterr().err
