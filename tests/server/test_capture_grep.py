"""`termux capture --grep` against a real session: the lines that match, numbered as -S takes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import RunningServer, wait_for_screen
from tests.server.slicing import answered_midway

PROGRAM = "seq 1 300; echo 'marker one'; seq 1 40; echo 'marker two'; echo done; exec cat"


def test_grep_numbers_lines_as_capture_takes_them(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "log", "-y", "24", "--", "sh", "-c", PROGRAM)
    wait_for_screen(server.path, "log", "done")
    found = server.run("capture", "-t", "log", "--grep", "^marker")
    assert found.returncode == 0, found.stderr
    (one, two) = found.stdout.splitlines()
    n_one, text_one = one.split(":", 1)
    n_two, text_two = two.split(":", 1)
    assert (text_one, text_two) == ("marker one", "marker two")
    assert int(n_one) < 0 <= int(n_two)  # the first is in scrollback, the second on the screen
    assert int(n_two) - int(n_one) == 41
    for number, text in ((n_one, "marker one"), (n_two, "marker two")):  # -S N -E N is that line
        assert server.run("capture", "-t", "log", "-S", number, "-E", number).stdout == text + "\n"
    oldest = server.run("capture", "-t", "log", "--grep", "^1$").stdout.splitlines()
    assert len(oldest) == 2 and int(oldest[0].split(":")[0]) < int(n_one)  # seq's 1s, both
    first = oldest[0].split(":")[0]
    assert server.run("capture", "-t", "log", "-S", first, "-E", first).stdout == "1\n"
    as_json = json.loads(server.run("capture", "-t", "log", "--grep", "marker", "--json").stdout)
    expected = [{"line": int(n_one), "text": "marker one"}, {"line": int(n_two), "text": "marker two"}]
    assert as_json == {"matches": expected}


def test_grep_within_a_range(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "log", "-y", "24", "--", "sh", "-c", PROGRAM)
    wait_for_screen(server.path, "log", "done")
    assert server.run("capture", "-t", "log", "--grep", "marker", "-S", "0").stdout.count("marker") == 1
    assert server.run("capture", "-t", "log", "--grep", "nothing matches this").stdout == ""


def test_bad_patterns_are_refused_in_words(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "log", "--", "cat")
    bad = server.run("capture", "-t", "log", "--grep", "(")
    assert (bad.returncode, bad.stderr) == (
        1, "termux: bad regular expression '(': missing ): ( (RE2 syntax: no backreferences or lookaround) (bad_args)\n"
    )
    lookaround = server.run("capture", "-t", "log", "--grep", "a(?=b)")
    assert lookaround.returncode == 1 and "no backreferences or lookaround" in lookaround.stderr
    escapes = server.run("capture", "-t", "log", "--grep", "x", "-e")
    assert (escapes.returncode, escapes.stderr) == (2, "termux: --grep matches the text: give it without -e\n")


async def test_a_long_grep_is_matched_in_slices_that_let_other_requests_through(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from termux.server import grep_commands

    session = {"name": "s", "command": ["sh", "-c", "seq 1 3000; echo 'the end'"], "rows": 10}
    at_list, rendered, result = await answered_midway(
        socket_dir, monkeypatch, grep_commands, session, "session.grep", target="s", pattern="^(7|the end)"
    )
    assert 0 < at_list < rendered  # session.list was answered in the middle of the grep
    texts = [m["text"] for m in result["matches"]]
    assert texts[:3] == ["7", "70", "71"] and texts[-1] == "the end" and len(texts) == 1 + 10 + 100 + 1  # 7, 7x, 7xx
    assert rendered >= 3000 and result["history"] >= 2990
