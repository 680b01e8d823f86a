"""The TUI's session model, fed messages as the server sends them (JSON lines decoded by the
client's codec): no Textual, no sockets."""

from __future__ import annotations

import base64
import subprocess
import sys
from typing import Any

import msgspec

from termux.emulator import ByteStream, Screen, snapshot
from termux.protocol.pushes import TYPED, Push, Unrecognized
from termux.protocol.results import AttachResult, SnapshotResult
from termux.tui.feed import Feeder
from termux.tui.model import Changes, SessionModel

BYTES_ONLY: dict[str, Any] = {"focused_budget": None, "background_budget": None}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def snap(text: bytes, offset: int, cols: int = 40, rows: int = 10) -> dict[str, Any]:
    screen = Screen(cols, rows)
    ByteStream(screen).feed(text)
    return {"cols": cols, "rows": rows, "offset": offset, "data": b64(snapshot(screen))}


def info(sid: str, name: str, state: str = "running") -> dict[str, Any]:
    return {
        "id": sid, "name": name, "command": ["/bin/sh"], "cwd": "/", "pid": 1, "state": state,
        "exit_code": None, "exit_signal": None, "cols": 40, "rows": 10, "created": 0.0, "bytes_out": 0,
        "title": "", "background_nice": 0, "nice": None,
    }  # fmt: skip


def wire(kind: type[Any], message: dict[str, Any]) -> Any:
    """`message` as the server writes it (JSON), decoded as the client decodes it."""
    return msgspec.json.decode(msgspec.json.encode(message), type=kind)


def decoded(message: dict[str, Any]) -> Push:
    push = TYPED.decode(msgspec.json.encode(message))
    assert not isinstance(push, Unrecognized)
    return push  # type: ignore[return-value]


def attached(*names: str, wanted: str | None = None, last: str | None = None) -> tuple[SessionModel, str | None]:
    model = SessionModel(Feeder(**BYTES_ONLY))
    reply = {
        "sessions": [info(f"%{n}", name) for n, name in enumerate(names)],
        "snapshots": {f"%{n}": snap(f"hello from {name}\r\n".encode(), 100) for n, name in enumerate(names)},
        "cursor": 0,
        "in_sync": True,
        "last_focus": last,
    }
    focus = model.attach(wire(AttachResult, reply), wanted)
    model.focus(focus)
    return model, focus


def output(sid: str, offset: int, data: bytes) -> Push:
    return decoded({"push": "output", "session": sid, "offset": offset, "data": b64(data)})


def event(kind: str, sid: str, name: str | None = None, **data: Any) -> Push:
    return decoded({"push": "event", "event": {"type": kind, "session": sid, "name": name, "data": data}})


def drain(model: SessionModel) -> list[tuple[str, Changes]]:
    done = []
    while (step := model.step()) is not None:
        done.append((step.session, model.after_slice(step)))
    return done


def test_the_model_and_the_router_import_no_textual() -> None:
    code = "import sys, termux.tui.model, termux.tui.router; print(sorted(m for m in sys.modules if 'textual' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_attach_focuses_what_was_asked_else_the_last_focus_else_the_first_running() -> None:
    assert attached("a", "b", "c", wanted="c")[1] == "%2"  # by name
    assert attached("a", "b", "c", wanted="%1")[1] == "%1"  # by id
    assert attached("a", "b", "c", last="%1")[1] == "%1"
    assert attached("a", "b")[1] == "%0"
    model, focus = attached("a", "b", "c", wanted="b")
    # only the focused screen was parsed at once; the others are replayed by the feed
    assert model.feeder.shadows["%1"].replay_until is None and "hello from b" in model.rows["%1"].preview
    assert model.feeder.shadows["%0"].replay_until == 100 and model.rows["%0"].preview == ""
    replayed = drain(model)
    assert {sid for sid, _ in replayed} == {"%0", "%2"}
    assert {row.id for row in model.take_marks()[0]} == {"%0", "%2"}  # previews are brought up to date with the marks
    assert model.rows["%0"].preview == "hello from a" and not model.rows["%0"].unseen  # a replay is nothing new


def test_visible_output_wakes_the_pump_now_and_background_output_waits_for_the_batch() -> None:
    model, focus = attached("a", "b", "c")
    drain(model)
    front = model.push(output("%0", 100, b"typed"))
    assert front.wake and front.end_rest and not front.batch
    back = model.push(output("%1", 100, b"log line"))
    assert back.batch and not back.wake
    model.show({"%2"})  # another view shows %2 (a pane): its output is visible output too
    assert model.visible == {"%0", "%2"}
    side = model.push(output("%2", 100, b"pane"))
    assert side.wake and not side.end_rest and not side.batch  # parsed now, but after a rest: the focus first


def test_every_visible_session_is_parsed_before_the_background_and_gets_a_frame() -> None:
    model, _ = attached("a", "b", "c", "d")
    drain(model)
    model.show({"%2"})
    for sid in ("%1", "%3", "%2", "%0"):
        model.push(output(sid, 100, b"x" * 10))
    done = drain(model)
    assert [sid for sid, _ in done[:2]] == ["%0", "%2"]  # the focus, then the pane beside it, whatever came first
    assert all(changes.frames == {sid} for sid, changes in done[:2])
    background = done[2:]
    assert {sid for sid, _ in background} == {"%1", "%3"}
    assert all(not changes.frames for _, changes in background)
    assert model.rows["%1"].unseen and not model.rows["%2"].unseen and not model.rows["%0"].unseen


def test_a_background_bell_marks_its_row_and_a_focused_one_rings() -> None:
    model, _ = attached("a", "b")
    drain(model)
    model.touched.clear()
    rang = model.push(event("session.bell", "%0"))
    assert rang.bell and not model.rows["%0"].bell
    marked = model.push(event("session.bell", "%1"))
    assert not marked.bell and model.rows["%1"].bell and marked.marks == 0.0
    rows, _ = model.take_marks()
    assert [row.id for row in rows] == ["%1"]
    assert model.take_marks() == ([], {})  # applied once


def test_the_focused_session_ending_moves_the_focus_to_the_next_live_one() -> None:
    model, _ = attached("a", "b", "c")
    exited = model.push(event("session.exited", "%0", exit_code=3))
    assert exited.refocus and exited.rows == {"%0"}
    assert model.rows["%0"].state == "exited" and model.rows["%0"].exit_code == 3
    assert model.after_exit() == ("focus", "%1")
    model.focus("%1")
    assert model.last_focus == "%0"
    closed = model.push(event("session.closed", "%1"))
    assert closed.refocus and closed.sessions and closed.gone == {"%1"} and model.focused is None
    assert "%1" not in model.rows and "%1" not in model.feeder.shadows
    assert model.after_exit() == ("focus", "%2")
    model.focus("%2")
    model.push(event("session.exited", "%2", exit_code=0))
    assert model.after_exit() == ("banner", None)  # nothing runs: the banner, the ended session kept


def test_a_background_exit_needs_no_refocus() -> None:
    model, _ = attached("a", "b")
    assert not model.push(event("session.exited", "%1", exit_code=0)).refocus


def test_rename_title_and_a_session_created_elsewhere() -> None:
    model, _ = attached("a", "b")
    renamed = model.push(event("session.renamed", "%0", name="new", old="a"))
    assert renamed.rows == {"%0"} and renamed.name and model.rows["%0"].name == model.infos["%0"]["name"] == "new"
    assert not model.push(event("session.renamed", "%1", name="other", old="b")).name  # not the focused one
    model.push(event("session.title", "%1", title="vim"))
    assert model.rows["%1"].title == "vim" and "%1" in model.touched
    created = model.push(event("session.created", "%7", name="late", command=["/bin/sh"], pid=7))
    assert created.sessions and created.wake and model.focused == "%0"  # it never takes the focus
    assert model.snapshots_wanted() == ["%7"] and model.snapshots_wanted() == []  # asked for once
    model.push(output("%7", 0, b"queued meanwhile"))
    assert model.step() is None or model.step() is None  # nothing parsed before its snapshot
    reset = model.snapshot_reply("%7", wire(SnapshotResult, {"session": info("%7", "late"), **snap(b"its screen", 0)}))
    assert reset.wake and not reset.screens  # not on view: nothing to show
    drain(model)
    assert "queued meanwhile" in "".join(model.feeder.shadows["%7"].screen.display)


def test_a_snapshot_reply_read_after_the_exit_event_does_not_bring_the_session_back() -> None:
    """The server answers a snapshot request, then the session exits: the exit event is handled as
    it is read, the reply's coroutine a turn later. The reply says "running"; exited stays."""
    model, _ = attached("a", "b")
    model.push(event("session.exited", "%1", exit_code=3))
    model.snapshot_reply("%1", wire(SnapshotResult, {"session": info("%1", "b"), **snap(b"before", 0)}))
    assert model.rows["%1"].state == "exited" and model.rows["%1"].exit_code == 3


def test_an_event_for_an_unknown_session_changes_nothing() -> None:
    model, _ = attached("a")
    assert model.push(event("session.exited", "%9", exit_code=1)) == Changes()


def test_a_resize_elsewhere_resyncs_and_a_snapshot_of_a_visible_session_is_shown() -> None:
    model, _ = attached("a", "b")
    same = model.push(event("session.resized", "%0", cols=40, rows=10))
    assert not same.wake and not model.feeder.need_snapshot  # our size: nothing to do
    other = model.push(event("session.resized", "%0", cols=50, rows=12))
    assert other.wake and model.snapshots_wanted() == ["%0"]
    shown = model.push(decoded({"push": "snapshot", "session": "%0", **snap(b"bigger", 200, 50, 12)}))
    assert shown.screens == {"%0"}
    screen = model.feeder.shadows["%0"].screen
    assert (screen.columns, screen.lines) == (50, 12)
    background = model.push(decoded({"push": "snapshot", "session": "%1", **snap(b"news", 300)}))
    assert not background.screens and model.rows["%1"].unseen  # output learnt of through a snapshot


def test_focus_clears_the_marks_and_remembers_the_last_focus() -> None:
    model, _ = attached("a", "b")
    drain(model)
    model.push(output("%1", 100, b"\r\nnew output"))
    drain(model)
    assert model.rows["%1"].unseen
    changes = model.focus("%1")
    assert changes.screens == {"%1"} and changes.wake and changes.end_rest
    assert not model.rows["%1"].unseen and model.last_focus == "%0" and model.visible == {"%1"}
    assert model.cycle(1) == "%0" and model.cycle(-1) == "%0" and model.numbered(1) == "%1"
    assert model.numbered(5) is None


def test_an_error_push_is_kept_and_said() -> None:
    model, _ = attached("a")
    changes = model.push(decoded({"push": "error", "error": {"code": "dropped", "message": "too far behind"}}))
    assert changes.message == "server: too far behind" and model.server_error == "too far behind"


def test_activity_tails_are_kept_only_while_the_activity_view_is_shown() -> None:
    model, _ = attached("a", "b")
    drain(model)
    model.push(output("%1", 100, b"compiling things"))
    drain(model)
    assert model.take_marks()[1] == {}
    model.observe_activity = True
    model.push(output("%1", 116, b" more words"))
    drain(model)
    assert model.take_marks()[1] == {"%1": b" more words"}
