"""The session model's marks for the grid and the status line: quiet since, counts, numbers."""

from __future__ import annotations

from tests.tui.test_model import attached


def test_quiet_since_comes_from_session_quiet_and_goes_with_activity() -> None:
    model, _ = attached("a", "b")
    model.take_marks()
    changes = model.event({"type": "session.quiet", "session": "%1", "time": 1000.0, "data": {"seconds": 5}})
    assert model.rows["%1"].quiet_since == 995.0  # when the output stopped, not when it was noticed
    assert changes.marks is not None and "%1" in model.touched  # its row and tile are drawn again
    model.event({"type": "session.activity", "session": "%1", "time": 1010.0, "data": {}})
    assert model.rows["%1"].quiet_since is None
    model.event({"type": "session.quiet", "session": "%9", "time": 1.0, "data": {"seconds": 5}})  # unknown: ignored
    assert "%9" not in model.rows


def test_counts_of_unseen_and_bells_and_numbers() -> None:
    model, focus = attached("a", "b", "c")
    assert focus == "%0" and model.marked() == (0, 0)
    model.rows["%1"].unseen = model.rows["%2"].unseen = True
    model.event({"type": "session.bell", "session": "%2", "data": {}})
    assert model.marked() == (2, 1)
    model.focus("%2")  # seen now
    assert model.marked() == (1, 0)
    assert model.number("%2") == 2 and model.number(None) is None
    assert model.last_focus == "%0"


def test_an_exit_or_a_rename_touches_the_row() -> None:
    model, _ = attached("a", "b")
    model.take_marks()
    model.event({"type": "session.exited", "session": "%1", "data": {"exit_code": 3}})
    model.event({"type": "session.renamed", "session": "%0", "data": {"name": "z"}})
    assert model.touched == {"%0", "%1"}
