"""The PTY driver the e2e tests and the latency benchmark stand on, tested against real programs."""

from __future__ import annotations

import os
import sys
import textwrap
import time

import pytest

from e2e.terminal import Terminal, TerminalClosed

BASH_ENV = {**os.environ, "PS1": "$ ", "HISTFILE": "/dev/null"}


def test_cat_echoes_what_is_typed() -> None:
    with Terminal(["cat"], cols=40, rows=5) as term:
        term.write(b"hello world\r")
        term.wait_for("hello world")
        assert term.display[0].rstrip() == "hello world"
        assert len(term.display) == 5 and len(term.display[0]) == 40


def test_utf8_text_round_trips() -> None:
    with Terminal(["cat"], cols=40, rows=5) as term:
        term.write("héllo → wörld\r")
        term.wait_for("héllo → wörld")


def test_bash_runs_a_command_at_the_given_size() -> None:
    with Terminal(["bash", "--norc", "--noprofile"], cols=33, rows=7, env=BASH_ENV) as term:
        term.wait_for("$")
        term.write("echo $((6*7)); stty size\r")
        term.wait_for("42")
        term.wait_for("7 33")


def test_resize_reaches_the_program_and_the_screen() -> None:
    with Terminal(["bash", "--norc", "--noprofile"], cols=40, rows=10, env=BASH_ENV) as term:
        term.wait_for("$")
        term.resize(50, 12)
        assert len(term.display) == 12 and len(term.display[0]) == 50
        term.write("stty size\r")
        term.wait_for("12 50")


def test_multiline_text_matches_trimmed_lines() -> None:
    with Terminal(["cat"], cols=20, rows=5) as term:
        term.write(b"one\rtwo\r")
        term.wait_for("one\ntwo")


def test_predicate_sees_the_terminal_and_returns_the_read_time() -> None:
    with Terminal(["cat"], cols=20, rows=5) as term:
        before = time.monotonic()
        term.write(b"x")
        seen = term.wait_for(lambda t: t.display[0].startswith("x") and t.cursor == (1, 0))
        assert before <= seen <= time.monotonic()
        assert term.last_read_at is not None and term.bytes_read >= 1


def test_wait_for_times_out_with_the_screen_in_the_message() -> None:
    with Terminal(["cat"], cols=20, rows=3) as term:
        term.write(b"shown\r")
        term.wait_for("shown")
        with pytest.raises(TimeoutError, match="shown"):
            term.wait_for("never printed", timeout=0.2)


def test_a_raising_predicate_is_reported_to_the_waiter() -> None:
    def boom(term: Terminal) -> bool:
        if term.bytes_read:
            raise ValueError("bad predicate")
        return False

    with Terminal(["cat"], cols=20, rows=3) as term:
        term.write(b"x")
        with pytest.raises(ValueError, match="bad predicate"):
            term.wait_for(boom, timeout=10)


def test_output_ending_fails_the_wait_instead_of_timing_out() -> None:
    with Terminal(["sh", "-c", "echo bye"], cols=20, rows=3) as term:
        with pytest.raises(TerminalClosed, match="bye"):
            term.wait_for("never printed", timeout=60)


def test_wait_exit_reaps_and_reports_the_status() -> None:
    term = Terminal(["sh", "-c", "exit 3"], cols=20, rows=3)
    try:
        assert term.wait_exit() == 3
        assert term.exited
    finally:
        term.close()


def test_close_reaps_the_child_and_its_process_group() -> None:
    term = Terminal(["sh", "-c", "sleep 1000 & echo started $!; wait"], cols=40, rows=3)
    term.wait_for(lambda t: t.display[0].rstrip()[-1:].isdigit())
    sleeper = int(term.display[0].split()[1])
    pid = term.pid
    term.close()
    with pytest.raises(ProcessLookupError):  # reaped: not even a zombie is left
        os.kill(pid, 0)
    # The background sleep got the hangup too: it is gone, or a zombie waiting for init to reap it.
    try:
        with open(f"/proc/{sleeper}/stat") as f:
            assert f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        pass
    term.close()  # idempotent


def test_queries_are_answered_like_a_real_terminal() -> None:
    script = textwrap.dedent(
        """
        import os, sys, tty
        tty.setraw(0)
        os.write(1, b"\\x1b[3;5H\\x1b[6n")
        reply = b""
        while not reply.endswith(b"R"):
            reply += os.read(0, 1)
        os.write(1, b"\\x1b[5;1Hreply=" + reply[1:])
        """
    )
    with Terminal([sys.executable, "-c", script], cols=20, rows=6) as term:
        term.wait_for("reply=[3;5R")


def test_a_sink_counts_bytes_without_emulating() -> None:
    with Terminal(["sh", "-c", "printf 0123456789; cat"], cols=20, rows=3, emulate=False) as term:
        term.wait_for(lambda t: t.bytes_read >= 10)
        assert term.text.strip() == ""


def test_a_synchronized_update_is_seen_whole() -> None:
    """Mode 2026: what is drawn between its start and its end is shown (and awaited conditions
    checked) only when it ends, as a terminal with synchronized output does."""
    script = textwrap.dedent(
        """
        import os, sys
        os.write(1, b"before\\r\\n\\x1b[?2026hframe-one")
        sys.stdin.readline()
        os.write(1, b" complete\\x1b[?2026l")
        sys.stdin.readline()
        """
    )
    with Terminal([sys.executable, "-c", script], cols=40, rows=5) as term:
        term.wait_bytes(len(b"before\r\n\x1b[?2026hframe-one"))
        assert term.text.strip() == "before" and term.frames == 0  # the update has not ended
        pending = term.expect("frame-one")
        assert pending.satisfied_at is None
        term.write(b"\r")
        pending.wait()
        # the tty's echo of the newline came inside the update too
        assert [line.strip() for line in term.display[:3]] == ["before", "frame-one", "complete"]
        assert term.frames == 1
