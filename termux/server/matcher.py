"""`session.wait` with `match`: a client's regular expression, never run on the server's loop.

- Patterns are RE2 (termux/patterns.py): matching time grows linearly with the text, so no pattern
  can blow up the way `^(a+)+$` does under backtracking; backreferences and lookaround are refused.
- Every match runs on one worker thread (RE2 releases the GIL while it matches), so the loop goes
  on serving requests and parsing output whatever a pattern costs. A costly pattern delays only
  the matching of waits queued behind it.
- Each wait has at most one match in flight. Output lines that arrive meanwhile are batched into
  its next match, at most MAX_PENDING characters of them: past that the oldest are skipped (the
  screen is still checked against the latest text, so a match that stays on screen is found).

`LineSplitter` keeps the output side sans-I/O: bytes in, complete lines (escapes removed) out.
"""

from __future__ import annotations

import asyncio
import codecs
import queue
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from termux.patterns import PatternError, compile_regex
from termux.protocol.errors import ErrorCode, ProtocolError

MATCH_LINE_LIMIT = 64 << 10  # characters of an unterminated output line kept for matching
MAX_PENDING = 1 << 20  # characters of output lines waiting for a wait's next match

# Escape sequences and control characters, removed from output before a line is tested.
_ESCAPES = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (title, hyperlinks)
    r"|\x1b[P^_][^\x1b]*(?:\x1b\\)?"  # DCS, PM, APC
    r"|\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI
    r"|\x1b[ -/]*[0-~]?"  # other escapes
    r"|[\x00-\x08\x0b-\x1f\x7f]"
)
_NEWLINES = re.compile(r"\r\n|\n|\r")

Pattern = Any  # re2's compiled pattern (the package ships no type hints)


def compile_pattern(text: str) -> Pattern:
    """A `match` argument as a multiline RE2 pattern (a match may span lines); `bad_args` saying
    why it cannot be one."""
    try:
        return compile_regex(text, never_nl=False)
    except PatternError as exc:
        raise ProtocolError(ErrorCode.BAD_ARGS, str(exc)) from None


class LineSplitter:
    """Output bytes to complete lines with escapes removed, across chunks; the unterminated last
    line (a prompt) is kept, up to MATCH_LINE_LIMIT characters, and offered with every batch."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.partial = ""

    def feed(self, chunk: bytes) -> list[str]:
        lines = _NEWLINES.split(self.partial + self._decoder.decode(chunk))
        self.partial = lines.pop()[-MATCH_LINE_LIMIT:]
        return lines


Result = tuple[str, str] | None  # (where, matched text): "output" or "screen"


@dataclass(eq=False)
class _Job:
    pattern: Pattern
    lines: list[str]  # output lines, escapes not yet removed (the worker does it)
    screen: str
    deliver: Callable[[Result], None]  # called on the loop
    loop: asyncio.AbstractEventLoop
    cancelled: bool = False  # set on the loop; the worker skips the rest of a cancelled job


class MatchWorker:
    """One daemon thread that runs matches; results come back to the loop (call_soon_threadsafe).
    The thread starts with the first job and ends at `close`."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.in_flight = 0  # jobs submitted and not delivered yet (server.stats)

    def submit(self, job: _Job) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="termux-match", daemon=True)
            self._thread.start()
        self.in_flight += 1
        self._jobs.put(job)

    def close(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread = None

    def _delivered(self, job: _Job, result: Result) -> None:
        self.in_flight -= 1
        if not job.cancelled:
            job.deliver(result)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                result = None if job.cancelled else search(job)
            except Exception:  # a bug in matching must not end the worker: report no match
                result = None
            try:
                job.loop.call_soon_threadsafe(self._delivered, job, result)
            except RuntimeError:  # the loop is closed: the server is gone
                return


def search(job: _Job) -> Result:
    """What the worker runs for one job: the output lines in order, then the screen."""
    for line in job.lines:
        if job.cancelled:
            return None
        if (found := job.pattern.search(_ESCAPES.sub("", line))) is not None:
            return "output", found.group(0)
    if (found := job.pattern.search(job.screen)) is not None:
        return "screen", found.group(0)
    return None


@dataclass(eq=False)
class ScreenWatch:
    """One wait's matching: batches output lines and the screen into jobs, one in flight at a time.

    `screen()` returns the session's screen text now; `found(where, text)` is called once, on the
    loop, for the first match; `ended()` says the session ended and the last match found nothing.
    """

    worker: MatchWorker
    pattern: Pattern
    screen: Callable[[], str]
    found: Callable[[str, str], None]
    ended: Callable[[], None]
    splitter: LineSplitter = field(default_factory=LineSplitter)
    pending: deque[str] = field(default_factory=deque)
    pending_chars: int = 0
    skipped_lines: int = 0
    _job: _Job | None = None
    _dirty: bool = True  # the screen may have changed since the last job copied it
    _ending: bool = False
    closed: bool = False

    def start(self) -> None:
        self._kick()

    def output(self, chunk: bytes) -> None:
        for line in self.splitter.feed(chunk):
            self.pending.append(line)
            self.pending_chars += len(line)
        while self.pending_chars > MAX_PENDING and self.pending:
            self.pending_chars -= len(self.pending.popleft())
            self.skipped_lines += 1
        self._dirty = True
        self._kick()

    def session_ended(self) -> None:
        self._ending = self._dirty = True
        self._kick()

    def close(self) -> None:
        self.closed = True
        if self._job is not None:
            self._job.cancelled = True

    def _kick(self) -> None:
        if self.closed or self._job is not None or not (self._dirty or self.pending):
            return
        lines = [*self.pending, self.splitter.partial] if self.splitter.partial else list(self.pending)
        self.pending.clear()
        self.pending_chars, self._dirty = 0, False
        ending = self._ending
        loop = asyncio.get_running_loop()
        self._job = _Job(self.pattern, lines, self.screen(), lambda result: self._done(result, ending), loop)
        self.worker.submit(self._job)

    def _done(self, result: Result, ending: bool) -> None:
        self._job = None
        if self.closed:
            return
        if result is not None:
            self.found(*result)
        elif ending and not self._dirty and not self.pending:
            self.ended()
        else:
            self._kick()
