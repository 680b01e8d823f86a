"""The session model's marks for the grid and the status line: quiet since, counts, numbers."""

from __future__ import annotations

from typing import Any

import pytest

from termux.protocol.pushes import Push
from termux.protocol.results import AttachResult
from termux.tui.feed import Feeder
from termux.tui.model import SessionModel
from tests.tui.test_model import BYTES_ONLY, attached, decoded, info, snap, wire


def event(kind: str, sid: str, time: float = 0.0, **data: Any) -> Push:
    return decoded({"push": "event", "event": {"type": kind, "session": sid, "time": time, "data": data}})


def test_quiet_since_comes_from_session_quiet_and_goes_with_activity() -> None:
    model, _ = attached("a", "b")
    model.take_marks()
    changes = model.push(event("session.quiet", "%1", 1000.0, seconds=5))
    assert model.rows["%1"].quiet_since == 995.0  # when the output stopped, not when it was noticed
    assert changes.marks is not None and "%1" in model.touched  # its row and tile are drawn again
    model.push(event("session.activity", "%1", 1010.0))
    assert model.rows["%1"].quiet_since is None
    model.push(event("session.quiet", "%9", 1.0, seconds=5))  # a session it does not know: nothing
    assert "%9" not in model.rows


def test_counts_of_unseen_and_bells_and_numbers() -> None:
    model, focus = attached("a", "b", "c")
    assert focus == "%0" and model.marked() == (0, 0)
    model.rows["%1"].unseen = model.rows["%2"].unseen = True
    model.push(event("session.bell", "%2"))
    assert model.marked() == (2, 1)
    model.focus("%2")  # seen now
    assert model.marked() == (1, 0)
    assert model.number("%2") == 2 and model.number(None) is None
    assert model.last_focus == "%0"


def test_an_exit_or_a_rename_touches_the_row() -> None:
    model, _ = attached("a", "b")
    model.take_marks()
    model.push(event("session.exited", "%1", exit_code=3))
    model.push(event("session.renamed", "%0", old="a"))
    assert model.touched == {"%0", "%1"}


def test_a_session_quiet_before_the_attach_says_since_when() -> None:
    model = SessionModel(Feeder(**BYTES_ONLY))
    reply = {
        "sessions": [{**info("%0", "a"), "quiet_since": 1234.5}, info("%1", "b")],
        "snapshots": {"%0": snap(b"a\r\n", 3), "%1": snap(b"b\r\n", 3)},
        "cursor": 0,
        "in_sync": True,
        "last_focus": None,
    }
    model.attach(wire(AttachResult, reply), None)
    assert model.rows["%0"].quiet_since == 1234.5 and model.rows["%1"].quiet_since is None


def test_the_marks_wait_longer_while_someone_types() -> None:
    """A mark period after the last application; while keys are being sent (within TYPING_HOLD
    of the last one), the longer TYPING_MARK_PERIOD; the normal one again once typing stops."""
    from termux.tui.model import MARK_PERIOD, TYPING_HOLD, TYPING_MARK_PERIOD

    now = [100.0]
    model, _ = attached("a", "b")
    model.pacer.clock = model.marks_pacer.clock = lambda: now[0]
    model.take_marks()  # applied at 100
    assert model.marks_delay() == pytest.approx(MARK_PERIOD)
    now[0] += 0.1
    model.pacer.key_sent()  # someone types
    model.pacer.drawn()  # (its echo drawn: typing is about keys, not a pending echo)
    assert model.marks_delay() == pytest.approx(TYPING_MARK_PERIOD - 0.1)
    now[0] += TYPING_HOLD  # no key since: the normal period, long past
    assert model.marks_delay() == 0.0
    assert TYPING_MARK_PERIOD > MARK_PERIOD
