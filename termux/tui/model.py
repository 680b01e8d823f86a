"""The TUI's session model (sans-I/O: no Textual, no sockets, no timers).

It holds what the TUI knows about the server's sessions: their infos in sidebar order, what each
sidebar row shows (`SessionRow`), their shadow screens and the feed (`Feeder`), the focused
session, the last one focused before it, and the other sessions on view (`shown`, for views that
show several at once). The app feeds it the server's pushes, events and replies (the typed
messages of termux/protocol/), the feed's slices and the user's focus changes; each call returns
`Changes`, what the app must show or do, and the app does the I/O (requests, widgets, timers).

The pump's decisions are here too: which slices the feed runs (visible sessions first), how long
the pump rests after background work (`background_rest`), when a frame and the sidebar's marks
may be drawn (`pacer`, `marks_pacer`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from termux import emulator
from termux.clipboard import ClipboardSet
from termux.protocol.events import (
    Event,
    SessionActivity,
    SessionBell,
    SessionClosed,
    SessionCreated,
    SessionExited,
    SessionQuiet,
    SessionRenamed,
    SessionResized,
    SessionTitle,
)
from termux.protocol.messages import SessionInfo
from termux.protocol.pushes import ClipboardPush, ErrorPush, EventPush, OutputPush, Push, Snapshot, SnapshotPush
from termux.protocol.results import AttachResult, SnapshotResult
from termux.slicing import rest_after
from termux.tui.feed import Feeder, FramePacer, Shadow, ShadowSlice
from termux.tui.harvest import TAIL_BYTES

BACKGROUND_SHARE = 0.5  # at most this share of the TUI's time goes to parsing background sessions
# The longest rest after one background slice, however long it took (a key never waits for a
# rest: it is handled on the loop while the pump rests, and focused output ends the rest).
MAX_REST = 0.02
# What background output changes in the sidebar (previews, the * and ! marks) and the activity
# view's harvest are applied at most this often, whatever the rate of chunks.
MARK_PERIOD = 0.25
# While someone types (a key sent within TYPING_HOLD), they are applied at most once per
# TYPING_MARK_PERIOD: the background's rows then take a quarter of the terminal writes that
# compete with the echoes, and the previews still move.
TYPING_HOLD = 1.0
TYPING_MARK_PERIOD = 1.0
# The panes beside the focused one are drawn at most this often: a person watches them, but a
# flood in one must not cost the TUI a frame every 1/60 s while a key's echo waits for the loop.
PANE_FRAME_PERIOD = 1 / 20


@dataclass
class SessionRow:
    """What the sidebar shows for one session."""

    id: str
    name: str
    state: str = "running"
    exit_code: int | None = None
    exit_signal: str | None = None
    unseen: bool = False
    bell: bool = False
    preview: str = ""
    title: str = ""
    quiet_since: float | None = None  # when its output stopped (the server's session.quiet), else None


@dataclass
class Changes:
    """What one input to the model changed: what the app must draw again or do."""

    sessions: bool = False  # sessions came or went: the sidebar's list and the activity view's names
    rows: set[str] = field(default_factory=set)  # sidebar rows to draw again now
    screens: set[str] = field(default_factory=set)  # visible sessions whose screen was replaced: show it
    frames: set[str] = field(default_factory=set)  # visible sessions with newly parsed output: a frame
    marks: float | None = None  # marks are pending: apply them, no sooner than this many seconds from now
    wake: bool = False  # the pump has work now
    end_rest: bool = False  # ... and it must not finish a rest first (visible output, a focus change)
    batch: bool = False  # background output: parse it with the next batch
    message: str | None = None  # for the status line
    name: bool = False  # the focused session's name changed
    bell: bool = False  # the focused session rang: ring the outer terminal
    clipboard: ClipboardSet | None = None  # a program in the focused session set the clipboard (OSC 52)
    refocus: bool = False  # the focused session ended or went: choose another once this is handled
    gone: set[str] = field(default_factory=set)  # sessions that went

    def mark(self, delay: float = 0.0) -> None:
        self.marks = delay if self.marks is None else min(self.marks, delay)


# What `after_exit` decides once the focused session ended or went.
Refocus = tuple[Literal["stay", "focus", "banner"], str | None]


def find_session(infos: list[SessionInfo], target: str) -> SessionInfo | None:
    """The session `target` names among `infos` (in the server's order) as the server finds it
    (`Server.find`): by id, else the first by name."""
    by_id = next((i for i in infos if i.id == target), None)
    return by_id or next((i for i in infos if i.name == target), None)


class SessionModel:
    def __init__(self, feeder: Feeder | None = None, clock: Callable[[], float] | None = None) -> None:
        self.feeder = feeder or Feeder()
        clock = clock or self.feeder.clock
        self.infos: dict[str, dict[str, Any]] = {}  # session id → SessionInfo, in sidebar order
        self.rows: dict[str, SessionRow] = {}
        self.focused: str | None = None
        self.last_focus: str | None = None  # the session focused before this one
        self.shown: set[str] = set()  # sessions on view besides the focused one
        self.pacer = FramePacer(clock=clock)  # when the focused session's output is drawn
        self.pane_pacer = FramePacer(PANE_FRAME_PERIOD, clock=clock)  # ... and the other panes'
        self.marks_pacer = FramePacer(MARK_PERIOD, clock=clock)  # when the sidebar's marks are
        self.observe_activity = False  # the activity view is shown: keep each session's newest tail
        self.server_error = ""  # the last `error` push (sent before the server drops a client)
        self.touched: set[str] = set()  # sessions whose sidebar row may show something new
        self.activity_tails: dict[str, bytes] = {}  # each session's newest output not harvested yet
        self._bells: dict[str, int] = {}

    @property
    def visible(self) -> set[str]:
        """Every session on view: the focused one and the others shown."""
        return self.shown | {self.focused} if self.focused is not None else set(self.shown)

    def shadow(self, sid: str | None) -> Shadow | None:
        return self.feeder.shadows.get(sid) if sid is not None else None

    def mode(self, sid: str | None) -> Any:
        """The session's terminal modes (cursor keys, bracketed paste…), for encoding input."""
        shadow = self.shadow(sid)
        return shadow.screen.mode if shadow is not None else ()

    def running(self, sid: str | None) -> bool:
        return sid is not None and sid in self.rows and self.rows[sid].state == "running"

    def any_running(self) -> bool:
        return any(row.state == "running" for row in self.rows.values())

    # -- sessions -------------------------------------------------------------------------------

    def attach(self, reply: AttachResult, wanted: str | None) -> str | None:
        """The `client.attach` reply: every session and its snapshot. Returns the session to focus:
        the one asked for (an id or a name), else the one a view focused last (as tmux re-attaches
        to the most recently used session) if it runs, else the first running one."""
        infos = reply.sessions
        chosen = find_session(infos, wanted) if wanted else None
        running = [i for i in infos if i.state == "running"]
        last = reply.last_focus
        chosen = chosen or next((i for i in running if i.id == last), None) or next(iter(running), None)
        focus = None if chosen is None else chosen.id
        for info in infos:
            # Only the focused screen is parsed before the first paint; the pump replays the
            # others' snapshots after it, in background slices.
            self.add(info, reply.snapshots.get(info.id), replay_later=info.id != focus)
        return focus

    def add(self, info: SessionInfo | dict[str, Any], snap: Snapshot | None, replay_later: bool = False) -> Shadow:
        """A session and its shadow, from its snapshot (None: one created since, whose snapshot
        is asked for)."""
        # The model keeps its own record of each session, updated by events: a dict of the fields.
        record = msgspec.structs.asdict(info) if isinstance(info, SessionInfo) else info
        sid = record["id"]
        self.infos[sid] = record
        quiet = record.get("quiet_since")  # (quiet before this TUI attached: no event will say so)
        self.rows[sid] = SessionRow(sid, record.get("name") or sid, title=record.get("title") or "", quiet_since=quiet)
        self._apply_state(sid)
        if snap is None:
            # An empty screen that buffers its output until the snapshot arrives and replaces it
            # (its size with it).
            shadow = self.feeder.add(sid, record.get("cols") or 80, record.get("rows") or 24, b"", 0)
            shadow.resyncing = True
            self.feeder.need_snapshot.add(sid)
            return shadow
        shadow = self.feeder.add(sid, snap.cols, snap.rows, snap.data, snap.offset, deferred=replay_later)
        if not replay_later:  # else its preview comes with the replay (after_slice)
            self._bells[sid] = shadow.screen.bell_count
            self.rows[sid].preview = emulator.preview(shadow.screen)
        return shadow

    def _apply_state(self, sid: str) -> None:
        info, row = self.infos[sid], self.rows[sid]
        row.state = info.get("state", "running")
        row.exit_code = info.get("exit_code")
        row.exit_signal = info.get("signal_name") or (
            f"signal {info['exit_signal']}" if info.get("exit_signal") else None
        )

    def remove(self, sid: str) -> Changes:
        self.infos.pop(sid, None)
        self.rows.pop(sid, None)
        self.feeder.remove(sid)
        self.shown.discard(sid)
        self.touched.discard(sid)
        self.activity_tails.pop(sid, None)
        self._bells.pop(sid, None)
        if self.last_focus == sid:
            self.last_focus = None
        changes = Changes(sessions=True, gone={sid})
        if sid == self.focused:
            self.focused = None
            changes.refocus = True
        return changes

    def ordered(self) -> list[SessionRow]:
        return [self.rows[sid] for sid in self.infos]

    # -- pushes and events ----------------------------------------------------------------------

    def push(self, push: Push) -> Changes:
        match push:
            case OutputPush(session=sid):
                visible = self.visible
                self.feeder.push(sid, push.offset, push.data, visible)
                if sid == self.focused:
                    return Changes(wake=True, end_rest=True)
                if sid in visible:  # a pane beside the focus: parsed now, after the pump's rest
                    return Changes(wake=True)
                return Changes(batch=True)
            case SnapshotPush(session=sid):
                return self.reset_from(sid, push)  # a SnapshotPush is a Snapshot
            case EventPush(event=event):
                return self.event(event)
            case ErrorPush(error=error):
                self.server_error = error.message
                return Changes(message=f"server: {self.server_error}")
            case ClipboardPush(session=sid) if sid == self.focused:
                return Changes(clipboard=ClipboardSet(push.selection, push.data))
        return Changes()

    def event(self, event: Event) -> Changes:
        sid = event.session
        changes = Changes()
        if isinstance(event, SessionCreated):
            if sid is not None and sid not in self.infos:
                self.add({"id": sid, "name": event.name or sid, "state": "running"}, None)
                changes.sessions = changes.wake = True  # the pump asks for its snapshot; it never takes focus
            return changes
        if sid is None or sid not in self.rows:
            return changes
        match event:
            case SessionExited(data=exited):
                self.infos[sid].update(
                    state="exited",
                    exit_code=exited.exit_code,
                    exit_signal=exited.exit_signal,
                    signal_name=exited.signal_name,
                )
                self._apply_state(sid)
                changes.rows.add(sid)
                self._touch(sid, changes)  # (its tile in the grid)
                changes.refocus = sid == self.focused
            case SessionClosed():
                return self.remove(sid)
            case SessionRenamed():
                self.infos[sid]["name"] = self.rows[sid].name = event.name or sid
                changes.rows.add(sid)
                self._touch(sid, changes)  # (its tile in the grid)
                changes.name = sid == self.focused
            case SessionResized(data=size):
                shadow = self.feeder.shadows.get(sid)
                if shadow is not None and (size.cols, size.rows) != (shadow.screen.columns, shadow.screen.lines):
                    self.feeder.resync(sid)  # another view resized it: our screen is the old size
                    changes.wake = True
            case SessionTitle(data=title):
                self.rows[sid].title = title.title
                self._touch(sid, changes)
            case SessionQuiet(data=quiet):
                self.rows[sid].quiet_since = event.time - quiet.seconds  # when its output stopped
                self._touch(sid, changes)
            case SessionActivity():
                self.rows[sid].quiet_since = None
                self._touch(sid, changes)
            case SessionBell():
                if sid == self.focused:
                    changes.bell = True
                else:
                    self.rows[sid].bell = True
                    self._touch(sid, changes)
        return changes

    def snapshot_reply(self, sid: str, reply: SnapshotResult) -> Changes:
        """A `session.snapshot` reply: the session's info as of now, and its screen."""
        if sid in self.infos:
            self.infos[sid].update(msgspec.structs.asdict(reply.session))
            self.rows[sid].name = reply.session.name
            self._apply_state(sid)
        return self.reset_from(sid, reply)  # a SnapshotResult is a Snapshot

    def reset_from(self, sid: str, snap: Snapshot) -> Changes:
        """A snapshot (pushed, or the reply to a resync) replaces the session's screen."""
        changes = Changes()
        if sid not in self.feeder.shadows:
            return changes
        before = self.feeder.shadows[sid].offset
        shadow = self.feeder.reset(sid, snap.cols, snap.rows, snap.data, snap.offset)
        self._bells[sid] = shadow.screen.bell_count
        visible = sid in self.visible
        row = self.rows.get(sid)
        if row is not None:
            if not visible and shadow.offset > before:
                row.unseen = True  # output we only learnt of through the snapshot
            self._touch(sid, changes, delay=self.marks_pacer.period if sid == self.focused else 0.0)
        if visible:
            # Drawn at whatever size the server chose (padded or clipped): a snapshot never makes
            # this view ask for a size, so views of different sizes cannot fight over it.
            changes.screens.add(sid)
        changes.wake = True
        return changes

    def snapshots_wanted(self) -> list[str]:
        """Sessions whose shadow needs a server snapshot; each is asked for once."""
        wanted = list(self.feeder.need_snapshot)
        self.feeder.need_snapshot.clear()
        return wanted

    # -- the feed -------------------------------------------------------------------------------

    def step(self) -> ShadowSlice | None:
        """One slice of the feed: the focused session's output first, then the other visible ones'."""
        return self.feeder.step(self.visible, self.focused)

    @staticmethod
    def background_rest(seconds: float) -> float:
        """How long the pump rests after a background slice that took `seconds`."""
        return min(rest_after(seconds, BACKGROUND_SHARE), MAX_REST)

    def after_slice(self, done: ShadowSlice) -> Changes:
        changes = Changes()
        sid = done.session
        shadow = self.feeder.shadows.get(sid)
        row = self.rows.get(sid)
        if shadow is None or row is None:
            return changes
        if sid in self.visible:
            changes.frames.add(sid)
            # Its preview too, but never sooner than a mark period away, so that a key's echo is
            # drawn alone, not with a sidebar row.
            self._touch(sid, changes, delay=self.marks_pacer.period)
        elif done.replay:  # its screen as of the attach: nothing the user has not seen
            self._bells[sid] = shadow.screen.bell_count
            self._touch(sid, changes)
        else:
            row.unseen = True
            bells = shadow.screen.bell_count
            if bells != self._bells.get(sid, 0):
                row.bell = True
                self._bells[sid] = bells
            self._touch(sid, changes)
        if done.chunks and not done.replay and self.observe_activity:
            self._keep_tail(sid, done.chunks[-1])
            changes.mark()
        return changes

    def _keep_tail(self, sid: str, chunk: bytes) -> None:
        """Keep the newest output's tail; the words in it are harvested with the other marks."""
        keep = TAIL_BYTES + 1  # the tail and the byte before it (was the tail's first word cut?)
        if len(chunk) < keep:
            chunk = self.activity_tails.get(sid, b"") + chunk
        self.activity_tails[sid] = chunk[-keep:]

    # -- the sidebar's marks, at a bounded rate --------------------------------------------------

    def _touch(self, sid: str, changes: Changes, delay: float = 0.0) -> None:
        """What `sid`'s sidebar row shows may have changed; applied at least `delay` from now."""
        self.touched.add(sid)
        changes.mark(delay)

    def marks_delay(self) -> float:
        """Seconds until the marks may be applied: a mark period after the last application, a
        longer one while someone types."""
        marks = self.marks_pacer
        now = marks.clock()
        period = marks.period
        if now - self.pacer.last_key < TYPING_HOLD:
            period = max(period, TYPING_MARK_PERIOD)
        return max(0.0, marks.last_frame + period - now)

    def take_marks(self) -> tuple[list[SessionRow], dict[str, bytes]]:
        """The rows that may show something new (previews brought up to date) and the output
        tails for the activity view, since the last time."""
        self.marks_pacer.drawn()
        touched, self.touched = self.touched, set()
        rows = []
        # In the sidebar's order, not the set's (which changes with the hash seed): the rows
        # drawn first, a few a turn, are the top ones.
        for sid in [sid for sid in self.rows if sid in touched] if touched else ():
            self.refresh_preview(sid)
            rows.append(self.rows[sid])
        tails, self.activity_tails = self.activity_tails, {}
        return rows, {sid: tail for sid, tail in tails.items() if sid in self.rows}

    def refresh_preview(self, sid: str) -> None:
        shadow = self.feeder.shadows.get(sid)
        row = self.rows.get(sid)
        if shadow is not None and row is not None:
            row.preview = emulator.preview(shadow.screen)

    # -- focus ----------------------------------------------------------------------------------

    def focus(self, sid: str | None) -> Changes:
        """Focus `sid` (None: no session)."""
        if self.focused is not None and self.focused != sid:
            self.refresh_preview(self.focused)  # up to date now, not a mark period later
            self.last_focus = self.focused
        self.focused = sid
        row = self.rows.get(sid) if sid is not None else None
        if row is not None:
            self.shown.discard(row.id)
            row.unseen = row.bell = False
        # a pump resting after background work parses the new focus now
        return Changes(screens={sid} if sid is not None else set(), name=True, wake=True, end_rest=True)

    def show(self, sessions: set[str]) -> None:
        """The sessions on view besides the focused one (views that show several at once)."""
        self.shown = {sid for sid in sessions if sid in self.rows and sid != self.focused}

    def cycle(self, step: int) -> str | None:
        """The session `step` places after the focused one in sidebar order, wrapping around."""
        order = list(self.infos)
        if not order:
            return None
        index = order.index(self.focused) if self.focused in order else -1
        return order[(index + step) % len(order)]

    def marked(self) -> tuple[int, int]:
        """How many sessions have output not seen yet, and a bell not seen yet."""
        rows = self.rows.values()
        return sum(row.unseen for row in rows), sum(row.bell for row in rows)

    def number(self, sid: str | None) -> int | None:
        """The session's number in the sidebar (None for no session)."""
        order = list(self.infos)
        return order.index(sid) if sid in order else None

    def numbered(self, n: int) -> str | None:
        order = list(self.infos)
        return order[n] if 0 <= n < len(order) else None

    def after_exit(self) -> Refocus:
        """The focused session ended or went: move to the next live one, or say none is left."""
        current = self.focused
        if self.running(current):
            return ("stay", None)
        live = [s for s in self.infos if self.rows[s].state == "running"]
        if live:
            order = list(self.infos)
            start = order.index(current) if current in order else 0
            after = [s for s in order[start + 1 :] + order[: start + 1] if s in live]
            return ("focus", after[0])
        if current is None or current not in self.infos:
            return ("focus", None)
        return ("banner", None)
