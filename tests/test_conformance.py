"""Conformance: real programs in real PTYs (80x24, TERM=xterm-256color), drawn by termux.emulator.

Each program is driven the way a person would (keys through the PTY) and the screen is checked: text,
colours, the alternate screen entered and left cleanly, the main screen and scrollback intact after.
Where tmux is installed, the static outputs are also compared with tmux's own rendering of the same
bytes. Waiting is on PTY readiness (select), never on sleeps.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from ptyprocess import PtyProcess

from termux.emulator import ByteStream, Screen, capture

COLS, ROWS = 80, 24
ALT = 1049 << 5


class Pty:
    """A program on a real PTY whose output feeds a termux Screen; replies go back to the program."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.screen = Screen(COLS, ROWS)
        self.stream = ByteStream(self.screen)
        self.proc = PtyProcess.spawn(argv, cwd=str(cwd), env=env, dimensions=(ROWS, COLS))
        self.screen.write_process_input = self._answer  # type: ignore[method-assign]
        self.eof = False

    def _answer(self, data: str) -> None:
        self.proc.write(data.encode())

    def send(self, data: str) -> None:
        self.proc.write(data.encode())

    def pump(self, timeout: float) -> None:
        """Wait (on the fd) up to `timeout` for output and feed whatever is there."""
        if self.eof:
            return
        ready, _, _ = select.select([self.proc.fd], [], [], max(0.0, timeout))
        if not ready:
            return
        try:
            data = os.read(self.proc.fd, 65536)
        except OSError:
            data = b""
        if not data:
            self.eof = True
            return
        self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(capture(self.screen))

    def wait_for(self, what: str | Callable[[Screen], bool], timeout: float = 30.0) -> None:
        def done() -> bool:
            if not isinstance(what, str):
                return bool(what(self.screen))
            if "\n" in what:  # across lines: match the trimmed lines joined by newlines
                return what in self.text()
            return any(what in line for line in self.screen.display)

        deadline = time.monotonic() + timeout
        while not done():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.eof:
                state = "exited" if self.eof else "timed out"
                raise AssertionError(f"{state} waiting for {what!r}; screen:\n{self.text()}")
            self.pump(remaining)

    def wait_exit(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.eof and time.monotonic() < deadline:
            self.pump(deadline - time.monotonic())
        assert self.eof, f"program did not exit; screen:\n{self.text()}"

    def close(self) -> None:
        if self.proc.isalive():
            self.proc.terminate(force=True)
        self.proc.close(force=True)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("".join(f"line {i}\n" for i in range(1, 61)))
    return tmp_path


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PS1": "$ ",
        "INPUTRC": "/dev/null",
        "LESSHISTFILE": "-",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }


@pytest.fixture
def shell(home: Path, env: dict[str, str]) -> Iterator[Pty]:
    pty = Pty(["bash", "--norc", "--noprofile", "-i"], home, env)
    try:
        pty.wait_for("$ ")
        yield pty
    finally:
        pty.close()


def need(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed (CI installs it in .ci/run)")


def mark(shell: Pty, word: str) -> None:
    """Print a marker line and wait for the next prompt."""
    shell.send(f"echo {word}\r")
    shell.wait_for(lambda s: any(line.rstrip() == word for line in s.display))
    shell.wait_for(lambda s: s.display[s.cursor.y].startswith("$ ") and s.cursor.x == 2)


def test_bash_readline_editing(shell: Pty) -> None:
    # Type, jump to the start (C-a), forward one word (M-f), insert, run.
    shell.send("echo world")
    shell.wait_for("$ echo world")
    shell.send("\x01\x1bf hello")
    shell.wait_for("$ echo hello world")
    shell.send("\r")
    shell.wait_for(lambda s: "hello world" in [line.rstrip() for line in s.display])
    # Only once the next prompt is drawn: readline takes the tty back to raw mode before it draws
    # it, so a key sent earlier is echoed by the cooked tty instead (`^[[A`).
    shell.wait_for(lambda s: s.display[s.cursor.y].rstrip() == "$" and s.cursor.y > 1)
    # History (Up) brings the line back; C-u kills it; a long line wraps and stays editable.
    shell.send("\x1b[A")
    shell.wait_for(lambda s: s.display[s.cursor.y].rstrip() == "$ echo hello world")
    shell.send("\x15echo " + "x" * 100)
    shell.wait_for("x" * 70)
    shell.send("\x08" * 10 + "\r")  # C-h deletes backwards: 90 x's are printed, wrapped at 80
    shell.wait_for("\n" + "x" * 80 + "\n" + "x" * 10 + "\n$")


def test_python_repl(home: Path, env: dict[str, str]) -> None:
    pty = Pty(["python3", "-q"], home, env)
    try:
        pty.wait_for(">>> ")
        pty.send("print(6 * 7)\r")
        pty.wait_for("\n42\n")
        # Type only once the next prompt is drawn: readline switches the tty to raw mode before it
        # draws the prompt, so keys sent earlier would be echoed by the cooked tty instead.
        pty.wait_for(lambda s: s.display[s.cursor.y].startswith(">>> ") and s.cursor.y > 1)
        # Line editing: type "23*3", two Lefts (the cursor is before "*3"), insert "0": "230*3".
        pty.send("23*3\x1b[D\x1b[D0\r")
        pty.wait_for(">>> 230*3\n690")
        pty.wait_for(lambda s: s.display[s.cursor.y] == ">>> " + " " * (s.columns - 4))
        pty.send("exit()\r")
        pty.wait_exit()
    finally:
        pty.close()


def test_vim_uses_the_alternate_screen_and_restores_the_shell(shell: Pty) -> None:
    need("vim")
    mark(shell, "BEFORE-VIM")
    history = list(shell.screen.history)
    shell.send("vim -u NONE -N -i NONE -n notes.txt\r")
    shell.wait_for(lambda s: ALT in s.mode and s.display[0].startswith("line 1 "))
    shell.wait_for('"notes.txt" 60L')
    assert shell.screen.display[22].startswith("line 23")
    shell.send("G")
    shell.wait_for(lambda s: s.display[22].startswith("line 60"))
    shell.send("ggOnew first\x1b")
    shell.wait_for(lambda s: s.display[0].startswith("new first") and s.display[1].startswith("line 1 "))
    shell.send(":q!\r")
    shell.wait_for(lambda s: ALT not in s.mode and s.display[s.cursor.y].startswith("$ "))
    text = shell.text()
    assert "BEFORE-VIM" in text and "line 1" not in text and "new first" not in text
    assert list(shell.screen.history) == history  # vim's screen never reached the scrollback


def test_less_pages_and_leaves_cleanly(shell: Pty) -> None:
    need("less")
    mark(shell, "BEFORE-LESS")
    shell.send("less notes.txt\r")
    shell.wait_for(lambda s: ALT in s.mode and s.display[0].startswith("line 1 "))
    shell.send(" ")
    shell.wait_for(lambda s: s.display[0].startswith("line 24"))
    shell.send("G")
    shell.wait_for("(END)")
    shell.send("q")
    shell.wait_for(lambda s: ALT not in s.mode and s.display[s.cursor.y].startswith("$ "))
    assert "BEFORE-LESS" in shell.text() and "line 1" not in shell.text()


def test_top_draws_and_quits(shell: Pty) -> None:
    need("top")
    mark(shell, "BEFORE-TOP")
    shell.send("top -d 30\r")
    shell.wait_for(lambda s: s.display[0].startswith("top - ") and any("PID" in line for line in s.display))
    header = next(line for line in shell.screen.display if "PID" in line)
    assert "USER" in header and "COMMAND" in header
    shell.send("q")
    shell.wait_for(lambda s: ALT not in s.mode and s.display[s.cursor.y].startswith("$ "))


def test_git_log_through_its_pager(shell: Pty, home: Path, env: dict[str, str]) -> None:
    need("git")
    need("less")
    repo = home / "repo"
    repo.mkdir()
    run = {"cwd": repo, "env": env, "check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q"], **run)  # type: ignore[call-overload]
    for i in range(1, 13):
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", f"change number {i}"], **run)  # type: ignore[call-overload]
    shell.send("cd repo && git log\r")
    # Twelve commits need more than a screen: less (git's default LESS=FRX) waits at a prompt.
    shell.wait_for("change number 12")
    shell.wait_for(lambda s: s.display[-1].startswith(":"))
    row = next(y for y, line in enumerate(shell.screen.display) if line.startswith("commit "))
    assert shell.screen.buffer[row][0].fg == "brown"  # git colours the commit line yellow (SGR 33)
    shell.send("q")
    shell.wait_for(lambda s: s.display[s.cursor.y].startswith("$ "))
    # LESS=FRX: no alternate screen, so the page stays on the main screen after quitting.
    assert "change number 12" in shell.text()


def test_ls_color(home: Path, env: dict[str, str]) -> None:
    (home / "adir").mkdir()
    script = home / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    pty = Pty(["ls", "--color=always", "-1"], home, env)
    try:
        pty.wait_exit()
        display = pty.screen.display
        rows = {line.rstrip(): y for y, line in enumerate(display) if line.strip()}
        adir, run, notes = (pty.screen.buffer[rows[name]][0] for name in ("adir", "run.sh", "notes.txt"))
        assert (adir.fg, adir.bold) == ("blue", True)
        assert (run.fg, run.bold) == ("green", True)
        assert (notes.fg, notes.bold) == ("default", False)
    finally:
        pty.close()


# ---------------------------------------------------------------------- side by side with tmux

FIDELITY_SCRIPT = r"""
printf '\033[1;31mred\033[0m \033[38;5;208morange\033[0m \033[48;2;10;20;30mrgb\033[0m\n'
printf 'wide: 中文字 | emoji: \xe2\x9d\xa4\xef\xb8\x8f ok | e\xcc\x81\n'
printf 'tab\there\tand\tthere\n'
printf 'over\033[2Dwrite\n'
printf '%s\n' "$(seq -s ' ' 1 40)"
printf 'a\033[5bz\n'
printf 'insert: abcdef\033[4D\033[2@XY\033[2C\033[P\n'
printf 'erase: 0123456789\033[5D\033[3X\n'
printf 'region: 1\n2\n3\n4\n5\033[12;15r\033[15;1H\033[1S\033[r\033[16;1H'
printf 'line\033[K\033[1;70Htop-right\033[17;1H'
"""


def _tmux_capture(home: Path, env: dict[str, str], command: str) -> list[str]:
    sock = f"termux-conf-{os.getpid()}"
    tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
    try:
        subprocess.run([*tmux, "new-session", "-d", "-x", str(COLS), "-y", str(ROWS),
                        f"{command}; tmux -L {sock} wait-for -S done; sleep 60"],
                       cwd=home, env=env, check=True)
        subprocess.run([*tmux, "wait-for", "done"], env=env, check=True, timeout=30)
        out = subprocess.run([*tmux, "capture-pane", "-p"], env=env, check=True, capture_output=True,
                             text=True)
        return out.stdout.rstrip("\n").split("\n")
    finally:
        subprocess.run([*tmux, "kill-server"], env=env, capture_output=True)


def test_static_output_matches_tmux(home: Path, env: dict[str, str]) -> None:
    """The same bytes drawn by tmux and by termux give the same text (capture-pane -p). DEC line
    drawing is left out: tmux's capture prints the designated characters ("lqk") as stored."""
    need("tmux")
    (home / "fidelity.sh").write_text(FIDELITY_SCRIPT)
    (home / "adir").mkdir()
    command = "clear; sh fidelity.sh; ls --color=always -1"
    expected = _tmux_capture(home, env, command)
    pty = Pty(["sh", "-c", command], home, env)
    try:
        pty.wait_exit()
        ours = capture(pty.screen)
        while ours and not ours[-1]:
            ours.pop()
        while expected and not expected[-1]:
            expected.pop()
        assert ours == expected
    finally:
        pty.close()
