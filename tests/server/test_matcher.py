"""session.wait's matching (termux/server/matcher.py): RE2 patterns, one job in flight per wait,
output batched and bounded while a job runs."""

from __future__ import annotations

from typing import Any

import pytest

from termux.protocol.errors import ProtocolError
from termux.server import matcher
from termux.server.matcher import MAX_PENDING, LineSplitter, ScreenWatch, compile_pattern


class HeldWorker:
    """Takes jobs and runs them only when told: the test decides when a match "finishes"."""

    def __init__(self) -> None:
        self.jobs: list[Any] = []

    def submit(self, job: Any) -> None:
        self.jobs.append(job)

    def finish(self) -> None:
        job = self.jobs.pop(0)
        job.deliver(matcher.search(job))


def watch_on(worker: HeldWorker, pattern: str, screen: list[str]) -> tuple[ScreenWatch, list[Any]]:
    results: list[Any] = []
    watch = ScreenWatch(
        worker,  # type: ignore[arg-type]
        compile_pattern(pattern),
        screen=lambda: "\n".join(screen),
        found=lambda where, text: results.append((where, text)),
        ended=lambda: results.append("ended"),
    )
    return watch, results


async def test_one_job_in_flight_and_output_meanwhile_goes_into_the_next() -> None:
    worker = HeldWorker()
    screen = ["$ "]
    watch, results = watch_on(worker, r"^done \d+$", screen)
    watch.start()
    assert len(worker.jobs) == 1 and worker.jobs[0].lines == []  # the screen first
    watch.output(b"building\r\n")
    watch.output(b"\x1b[1mdone\x1b[0m 42\r\nmore")
    assert len(worker.jobs) == 1  # still one in flight
    worker.finish()  # no match on the first screen: the batch goes next
    (job,) = worker.jobs
    assert job.lines == ["building", "\x1b[1mdone\x1b[0m 42", "more"]
    worker.finish()
    assert results == [("output", "done 42")]  # escapes removed before matching


async def test_pending_output_is_bounded_while_a_job_runs_and_the_oldest_is_skipped() -> None:
    worker = HeldWorker()
    watch, results = watch_on(worker, "needle", ["$ "])
    watch.start()
    line = b"x" * 1000 + b"\n"
    for _ in range(3 * MAX_PENDING // 1000):
        watch.output(line)
    assert watch.pending_chars <= MAX_PENDING
    assert watch.skipped_lines >= 2 * MAX_PENDING // 1000 - 1
    watch.output(b"the needle\n")  # the newest line is kept
    worker.finish()
    worker.finish()
    assert results == [("output", "needle")]


async def test_an_ended_session_gets_one_last_screen_check_then_ended() -> None:
    worker = HeldWorker()
    screen = ["nothing here"]
    watch, results = watch_on(worker, "never", screen)
    watch.session_ended()
    worker.finish()
    assert results == ["ended"] and worker.jobs == []


async def test_a_closed_watch_submits_nothing_more_and_reports_nothing() -> None:
    worker = HeldWorker()
    watch, results = watch_on(worker, "x", [""])
    watch.start()
    watch.output(b"x\n")
    watch.close()
    assert worker.jobs[0].cancelled
    worker.finish()  # a cancelled job is delivered to nobody
    watch.output(b"x\n")
    assert worker.jobs == [] and results == []


def test_a_prompt_without_newline_is_offered_as_the_partial_line() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"one\r\ntw") == ["one"]
    assert splitter.partial == "tw"
    assert splitter.feed(b"o\n\xe2\x82") == ["two"]
    assert splitter.feed(b"\xac") == [] and splitter.partial == "\u20ac"  # UTF-8 across chunks


@pytest.mark.parametrize("pattern", [r"(a)\1", r"a(?!b)", "(", r"(x{1,1000}){1,1000}"])
def test_patterns_re2_refuses_are_bad_args_in_words(pattern: str) -> None:
    with pytest.raises(ProtocolError) as error:
        compile_pattern(pattern)
    assert error.value.code == "bad_args"
    assert repr(pattern) in error.value.message
