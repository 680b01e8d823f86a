"""One-shot verbs start lean: what they import, and the parser built for the verb alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from termux import cli
from tests.conftest import RunningServer

# What a one-shot call has no use for: the TUI and its toolkit, the server, the emulator, asyncio
# (only AsyncClient needs it) and msgspec (the server's validation; the client uses json).
HEAVY = ("textual", "rich", "termux.tui", "termux.server", "termux.emulator", "pyte", "asyncio", "msgspec")

# Runs the CLI's own main() for one verb, then writes the names of every module it imported.
PROBE = """
import json, sys
from termux.cli import main
status = main(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    json.dump({"status": status, "modules": sorted(sys.modules)}, out)
"""


def _imported_by(server: RunningServer, tmp_path: Path, *verb: str) -> set[str]:
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *verb], env=server.env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["status"] == 0
    return set(report["modules"])


@pytest.mark.parametrize(
    "verb",
    [["ls"], ["ls", "--json"], ["send", "-t", "cat", "hello", "Enter"], ["capture", "-t", "cat"], ["stats"]],
    ids=lambda verb: " ".join(verb),
)
def test_a_one_shot_verb_imports_neither_the_tui_nor_asyncio(
    server: RunningServer, tmp_path: Path, verb: list[str]
) -> None:
    assert server.run("new", "-d", "-s", "cat", "--", "cat").returncode == 0
    modules = _imported_by(server, tmp_path, *verb)
    assert "termux.client" in modules  # the probe really ran the verb
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))
    assert heavy == []


def test_the_parser_for_a_known_verb_builds_that_verb_alone() -> None:
    assert cli.verb_named(["-L", "work", "capture", "-S", "-5"]) == "capture"
    assert cli.verb_named(["--socket", "/tmp/x", "ls"]) == "ls"
    assert cli.verb_named(["-Lwork", "--socket-name=x", "send", "-t", "a"]) == "send"
    assert cli.verb_named(["--version"]) is None
    assert cli.verb_named(["--", "ls"]) is None
    (ls,) = _subparsers(cli.build_parser(only="ls"))
    assert ls == "ls"
    every = _subparsers(cli.build_parser())
    assert {"ls", "send", "capture", "new", "events", "wait", "server", "kill-server"} <= set(every)
    assert _subparsers(cli.build_parser(only="no-such-verb")) == every  # unknown: the full list, for the error


def test_a_mistyped_verb_is_told_every_verb(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["lss"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'lss'" in err and "'capture'" in err and "'wait'" in err


def _subparsers(parser: object) -> list[str]:
    import argparse

    assert isinstance(parser, argparse.ArgumentParser)
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(action.choices)


# `termux` with no server, through the CLI's main, noting what was imported when the server's
# start began (the ServerStart made before the TUI's modules load).
COLD_PROBE = """
import json, sys
import termux.client as client
made = client.ServerStart.__init__
def noting(self, *args, **kwargs):
    with open(sys.argv[1], "w") as out:
        json.dump(sorted(sys.modules), out)
    made(self, *args, **kwargs)
client.ServerStart.__init__ = noting
from termux.cli import main
sys.exit(main([]))
"""


def test_termux_with_no_server_starts_it_before_loading_the_tui(socket_dir: Path, termux_env: dict[str, str]) -> None:
    from e2e.terminal import Terminal

    out = socket_dir / "modules.json"
    term = Terminal([sys.executable, "-c", COLD_PROBE, str(out)], cols=100, rows=30, env=termux_env)
    try:
        term.wait_for("ctrl+b then", timeout=60)  # it attached to the server it started
        term.write(b"\x02d")
        term.wait_for("[detached]")
    finally:
        term.close()
        subprocess.run([sys.executable, "-m", "termux", "kill-server"], env=termux_env, capture_output=True, timeout=30)
    before = set(json.loads(out.read_text()))
    assert not {"textual", "termux.tui.app", "termux.emulator", "asyncio"} & before


# `python -m termux ARGS`, with an exit handler that says whether the interpreter's teardown ran.
TEARDOWN_PROBE = """
import atexit, runpy, sys
atexit.register(lambda: print("teardown ran", file=sys.stderr))
sys.argv = ["termux", *sys.argv[1:]]
runpy.run_module("termux", run_name="__main__")
"""


def test_a_one_shot_call_leaves_without_the_teardown_and_with_its_output_flushed(server: RunningServer) -> None:
    for n in range(3):
        assert server.run("new", "-d", "-s", f"s{n}", "--", "cat").returncode == 0
    done = subprocess.run(
        [sys.executable, "-c", TEARDOWN_PROBE, "ls"], env=server.env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert "teardown ran" not in done.stderr
    assert len(done.stdout.splitlines()) == 4  # the header and every session
    assert server.run("ls").stdout == done.stdout


# `python -m termux ARGS` through its entry, writing the modules loaded when it leaves.
ENTRY_PROBE = """
import json, os, runpy, sys
out, leave = sys.argv[1], os._exit
def noting(status):
    with open(out, "w") as f:
        json.dump({"status": status, "modules": sorted(sys.modules)}, f)
    leave(status)
os._exit = noting
sys.argv = ["termux", *sys.argv[2:]]
runpy.run_module("termux", run_name="__main__")
"""


@pytest.mark.parametrize("verb", [["ls"], ["send", "-t", "cat", "x"], ["capture", "-t", "cat"]], ids=" ".join)
def test_the_entry_of_a_one_shot_verb_loads_nothing_of_the_tui(
    server: RunningServer, tmp_path: Path, verb: list[str]
) -> None:
    assert server.run("new", "-d", "-s", "cat", "--", "cat").returncode == 0
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", ENTRY_PROBE, str(out), *verb], env=server.env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["status"] == 0 and "termux.client" in report["modules"]
    assert sorted(m for m in report["modules"] if m.startswith(HEAVY)) == []
    bare = subprocess.run(
        [sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"],
        env=server.env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    # Nor what a one-shot line is parsed, typed or connected without: argparse (the line is read
    # by cli.quick_parse), typing (for the type checker only) and socket's enums (the blocking
    # client speaks through _socket).
    loaded = set(report["modules"]) - set(json.loads(bare.stdout))
    assert loaded & {"argparse", "gettext", "typing", "socket", "selectors"} == set()
