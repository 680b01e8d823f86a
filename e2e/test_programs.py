"""The programs the latency benchmark runs behave as it relies on (in a real PTY, no multiplexer)."""

from __future__ import annotations

import subprocess

from e2e.terminal import Terminal
from e2e.test_latency import ECHO, FLOOD_PROGRAMS, Typist


def test_echo_numbers_each_byte_on_one_redrawn_line() -> None:
    with Terminal(ECHO, cols=40, rows=5) as term:
        term.wait_for("echo ready")
        term.write(b"ab")
        term.wait_for("echo #2 b")
        assert "echo #1" not in term.text  # the line is redrawn, not appended
        term.write(b"\x03")  # Ctrl-C ends it (raw mode: a byte, not a signal)
        assert term.wait_exit() == 0


def test_the_typist_times_each_key_and_reports_a_missing_echo() -> None:
    with Terminal(ECHO, cols=40, rows=5) as term:
        term.wait_for("echo ready")
        typist = Typist(term, seed=1)
        latency = typist.key(10.0)
        assert latency is not None and latency >= 0
        term.write(b"z")  # an extra byte the typist did not count: its next marker never appears
        assert typist.key(0.2) is None


def test_colorlog_stops_after_the_requested_bytes() -> None:
    done = subprocess.run([*FLOOD_PROGRAMS["colorlog"], "100000"], capture_output=True, timeout=60)
    assert done.returncode == 0
    assert 100_000 <= len(done.stdout) < 200_000
    assert b"\x1b[32mINFO" in done.stdout and done.stdout.endswith(b"\n")
