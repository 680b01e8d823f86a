"""The termux TUI: a Textual app attached to a termux server.

The loop's priorities (docs/architecture.md, "Priorities"):

1. Input. Keys and pastes come from the driver's input thread straight onto the event loop
   (`TermuxDriver.input_hook`, `call_soon_threadsafe`), ahead of Textual's message queue, and are
   written to the socket at once (`send_nowait`). Textual's bindings never see a key meant for a
   session: while no modal screen is open, `route_key` takes every key.
2. The focused session. The pump (`_pump`) parses the focused session's queued output first.
3. Background sessions, in bounded slices (`Feeder.step`), with a yield between slices, so a
   keystroke that arrives meanwhile waits for at most one slice. A background session that falls
   too far behind is dropped and resynced from a server snapshot.

Nothing here polls: the pump sleeps on an event until a push arrives, and the activity view's
timer exists only while it has words to reveal.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import functools
import os
from collections.abc import Awaitable
from typing import Any, ClassVar

import textual.screen
from textual import events
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from termux import emulator
from termux.clipboard import MAX_OUTER_BYTES, osc52
from termux.copymode import key_table
from termux.keys import encode_paste, encode_textual
from termux.trace import TRACE
from termux.tui.activity import TAIL_BYTES, ActivityView
from termux.tui.config import Config, key_bytes
from termux.tui.copyview import CopyView
from termux.tui.feed import Feeder, FramePacer, Shadow, Step
from termux.tui.render import Palette
from termux.tui.screens import ConfirmScreen, HelpScreen, RenameScreen
from termux.tui.widgets import SessionRow, Sidebar, StatusLine, TerminalView

EARLY_KEYS = 256  # keys typed before the attach completes, replayed after it
PUSH_BATCH = 64  # pushed lines taken from the client's queue before yielding to the loop
BACKGROUND_SHARE = 0.5  # at most this share of the TUI's time goes to parsing background sessions
TEXTUAL_FRAME = 0.001  # Textual's own frame period; see TermuxApp.__init__
MAX_REST = 0.02  # the longest rest after background work (a key never waits for it: it wakes the pump)
# Rests shorter than this are owed rather than taken: a timer per small slice would cost more than
# the slice itself.
MIN_REST = 0.001
# What background output changes in the sidebar (previews, the * and ! marks) and the activity
# view's harvest are applied by one timer at most this often, whatever the rate of chunks.
MARK_PERIOD = 0.25
BACKGROUND_BATCH = 0.1  # background output waits at most this long to be parsed, with what follows it
MAX_SIZE = 1000  # the protocol's largest session side; a larger view draws it padded


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes:
    return base64.b64decode(text) if text else b""


class MainScreen(Screen[None]):
    """The sidebar, the terminal view, the activity view and the status line. No bindings: every
    key is the session's unless it is the prefix."""

    BINDINGS: ClassVar[list[BindingType]] = []

    DEFAULT_CSS = """
    MainScreen { layout: vertical; }
    #body { height: 1fr; }
    #right { width: 1fr; }
    #banner { height: auto; padding: 1 2; display: none; }
    #banner.-shown { display: block; }
    """

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            sidebar = Sidebar(id="sidebar")
            sidebar.set_class(not self.config.sidebar, "-hidden")
            yield sidebar
            with Vertical(id="right"):
                yield Static("", id="banner")
                yield TerminalView(
                    Palette(self.config.palette, self.config.foreground, self.config.background),
                    id="terminal",
                )
                activity = ActivityView(id="activity")
                activity.set_class(not self.config.activity, "-hidden")
                yield activity
        yield StatusLine(self.config.prefix, id="status")


class TermuxApp(App[str]):
    """Attached to one server through `client` (a termux.client.AsyncClient)."""

    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = []  # Textual's quit (ctrl+q) and friends belong to the session
    TITLE = "termux"

    class Ended(Message):
        """The server went away."""

    def __init__(
        self,
        client: Any,
        *,
        config: Config | None = None,
        focus: str | None = None,
        feeder: Feeder | None = None,
        driver_class: Any = None,
    ) -> None:
        super().__init__(driver_class=driver_class, ansi_color=True)
        # Textual draws on a fixed 60 Hz grid (textual.screen.UPDATE_PERIOD, read when a screen's
        # frame timer is made): an echo that lands just after a frame would wait up to 16.7 ms for
        # the next one. termux paces the terminal view itself (FramePacer), so Textual may draw as
        # soon as it is asked. The timer still sleeps while nothing is dirty.
        textual.screen.UPDATE_PERIOD = TEXTUAL_FRAME  # type: ignore[misc]
        self.client = client
        self.config = config or Config()
        self._prefix = key_bytes(self.config.prefix)
        self._actions = {key_bytes(name): action for name, action in self.config.bindings.items()}
        self.initial_focus = focus
        self.feeder = feeder or Feeder()
        self.infos: dict[str, dict[str, Any]] = {}  # session id → SessionInfo, in sidebar order
        self.rows: dict[str, SessionRow] = {}
        self.focused_id: str | None = None
        self.prefix_pending = False
        self.attached = asyncio.Event()
        self.exit_reason = ""
        self._work = asyncio.Event()
        self._rest_waiter: asyncio.Future[None] | None = None  # the pump's rest; focused output ends it
        self.pacer = FramePacer(clock=self.feeder.clock)
        self._frame_timer: asyncio.TimerHandle | None = None  # armed only while output is undrawn
        self._tasks: set[asyncio.Task[Any]] = set()
        self._bells: dict[str, int] = {}
        self._early_keys: list[events.Key] = []
        self._server_error = ""  # the last `error` push (sent before the server drops a client)
        self._touched: set[str] = set()  # sessions whose sidebar row may show something new
        self._activity_tails: dict[str, bytes] = {}  # each session's newest output not harvested yet
        self.marks_pacer = FramePacer(MARK_PERIOD, clock=self.feeder.clock)
        self._marks_timer: asyncio.TimerHandle | None = None  # armed only while marks are pending
        self._background_timer: asyncio.TimerHandle | None = None  # armed by unparsed background output
        self._main: MainScreen | None = None
        self.snapshots_pending = 0  # snapshot requests on their way (tests wait for 0)
        self.sent: list[bytes] = []  # what input sent (kept short; tests and debugging)
        self.copy: CopyView | None = None  # copy mode on the focused session, while it is on
        self._mouse_down: tuple[int, int] | None = None  # where button 1 went down outside copy mode

    # -- set-up ---------------------------------------------------------------------------------

    def on_mount(self) -> None:
        from termux.tui.driver import TermuxDriver

        driver = self._driver
        if isinstance(driver, TermuxDriver):
            driver.input_context = contextvars.copy_context()
            driver.input_hook = self._input_from_driver
        self._main = MainScreen(self.config)
        self.push_screen(self._main)
        self._spawn(self._attach_server())

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        from termux.client import TermuxError

        self._tasks.discard(task)
        if task.cancelled() or (exc := task.exception()) is None:
            return
        if isinstance(exc, TermuxError) and exc.code == "disconnected":
            return  # a request the server's going cut short: _watch_server says why the TUI ends
        if isinstance(exc, TermuxError) and self._main is not None:
            # a refused request (a name taken, a command not found, a session gone): say so, go on
            self.status.set_state(message=f"{exc.message} ({exc.code})")
            return
        self.exit_reason = f"error: {type(exc).__name__}: {exc}"
        self.exit(self.exit_reason)

    # The main screen's widgets, looked up once (the pump asks for them per slice).

    @functools.cached_property
    def view(self) -> TerminalView:
        assert self._main is not None
        return self._main.query_one(TerminalView)

    @functools.cached_property
    def sidebar(self) -> Sidebar:
        assert self._main is not None
        return self._main.query_one(Sidebar)

    @functools.cached_property
    def status(self) -> StatusLine:
        assert self._main is not None
        return self._main.query_one(StatusLine)

    @functools.cached_property
    def activity(self) -> ActivityView:
        assert self._main is not None
        return self._main.query_one(ActivityView)

    async def _attach_server(self) -> None:
        """One round trip: sessions, a snapshot of each, and the offsets output continues from."""
        # coalesce: background sessions come within a byte budget, as snapshots past it; the
        # sidebar and the activity view need their latest screens, not every byte of a flood.
        reply = await self.client.request(
            "client.attach",
            coalesce=True,
            window_size=self.config.window_size,
            set_clipboard=self.config.set_clipboard,
            **self._view_size(),
        )
        snapshots = reply.get("snapshots") or {}
        infos = reply.get("sessions") or []
        focus = self._initial_focus(infos, reply.get("last_focus"))
        for info in infos:
            # Only the focused screen is parsed before the first paint; the pump replays the
            # others' snapshots after it, in background slices.
            self._add_session(info, snapshots.get(info["id"]) or {}, replay_later=info["id"] != focus)
        self._refresh_sidebar()
        self._spawn(self._read_pushes())
        self._spawn(self._watch_server())
        self._spawn(self._pump())
        self.focus_session(focus)
        self.attached.set()
        early, self._early_keys = self._early_keys, []
        for event in early:
            self.route_key(event)

    def _initial_focus(self, infos: list[dict[str, Any]], last: str | None) -> str | None:
        """The session asked for (an id or a name), else the one a view focused last (as tmux
        re-attaches to the most recently used session) if it runs, else the first running one."""
        target = self.initial_focus
        chosen = next((i for i in infos if target in (i["id"], i.get("name"))), None) if target else None
        running = [i for i in infos if i.get("state") == "running"]
        chosen = chosen or next((i for i in running if i["id"] == last), None) or next(iter(running), None)
        return None if chosen is None else str(chosen["id"])

    def _add_session(self, info: dict[str, Any], snap: dict[str, Any], replay_later: bool = False) -> Shadow:
        sid = info["id"]
        self.infos[sid] = info
        self.rows[sid] = SessionRow(sid, info.get("name", sid), title=info.get("title") or "")
        self._apply_state(sid, info)
        cols = snap.get("cols") or info.get("cols") or 80
        rows = snap.get("rows") or info.get("rows") or 24
        data = _unb64(snap.get("data") or snap.get("snapshot"))
        shadow = self.feeder.add(sid, cols, rows, data, snap.get("offset", 0), deferred=replay_later)
        if not snap:
            # created elsewhere: buffer its output until the snapshot arrives
            shadow.resyncing = True
            self.feeder.need_snapshot.add(sid)
        elif not replay_later:  # else its preview comes with the replay (_after_step)
            self._bells[sid] = getattr(shadow.screen, "bell_count", 0)
            self.rows[sid].preview = emulator_preview(shadow.screen)
        return shadow

    def _apply_state(self, sid: str, info: dict[str, Any]) -> None:
        row = self.rows[sid]
        row.state = info.get("state", "running")
        row.exit_code = info.get("exit_code")
        row.exit_signal = info.get("signal_name") or (
            f"signal {info['exit_signal']}" if info.get("exit_signal") else None
        )

    # -- pushes ---------------------------------------------------------------------------------

    async def _read_pushes(self) -> None:
        """Move pushed lines into the feeder (queuing is cheap; parsing is the pump's), a bounded
        batch at a time so that keys queued meanwhile are not kept waiting by a flood."""
        pushes: asyncio.Queue[dict[str, Any]] = self.client.pushes
        while True:
            self.handle_push(await pushes.get())
            taken = 1
            while taken < PUSH_BATCH and not pushes.empty():
                self.handle_push(pushes.get_nowait())
                taken += 1
            if taken == PUSH_BATCH:
                await asyncio.sleep(0)

    async def _watch_server(self) -> None:
        await self.client.closed.wait()
        if self._server_error:
            # the server dropped this client (it fell too far behind); the sessions are still there
            self.exit_reason = f"dropped by the server: {self._server_error}; `termux attach` comes back"
        else:
            self.exit_reason = "the server went away"
        self.exit(self.exit_reason)

    def handle_push(self, push: dict[str, Any]) -> None:
        kind = push.get("push")
        if kind == "output":
            sid = push.get("session", "")
            if TRACE.on:
                TRACE.stamp("tui.received", sid)
            self.feeder.push(sid, int(push.get("offset", 0)), _unb64(push.get("data")), self.focused_id)
            if sid == self.focused_id:
                self._end_rest()
                self._work.set()
            else:
                self._background_output()
        elif kind == "snapshot":
            sid = push.get("session", "")
            self._reset_from(sid, push)
        elif kind == "event":
            self.handle_event(push.get("event") or {})
        elif kind == "clipboard":
            # A program set the clipboard and the server's policy let it (set_clipboard "on").
            data = _unb64(push.get("data"))
            if self.config.set_clipboard == "on" and push.get("session") == self.focused_id:
                self.write_clipboard(data, str(push.get("selection") or "c"))
        elif kind == "error":
            error = push.get("error") or {}
            self._server_error = str(error.get("message", error))
            self.status.set_state(message=f"server: {self._server_error}")

    def handle_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        sid = event.get("session")
        data = {**event, **(event.get("data") or {})}
        if kind == "session.created" and sid and sid not in self.infos:
            info = {"id": sid, "name": data.get("name") or sid, "state": "running"}
            self._add_session(info, {})
            self._refresh_sidebar()
            self._work.set()  # the pump asks for its snapshot; it never takes focus
        elif sid not in self.rows:
            return
        elif kind == "session.exited":
            self.infos[sid].update(
                state="exited",
                exit_code=data.get("exit_code"),
                exit_signal=data.get("exit_signal"),
                signal_name=data.get("signal_name"),
            )
            self._apply_state(sid, self.infos[sid])
            self.sidebar.update_row(self.rows[sid])
            if sid == self.focused_id:
                self.call_later(self._focus_after_exit)
        elif kind == "session.closed":
            self._remove_session(sid)
        elif kind == "session.renamed":
            self.infos[sid]["name"] = data.get("name", sid)
            self.rows[sid].name = self.infos[sid]["name"]
            self.sidebar.update_row(self.rows[sid])
            if sid == self.focused_id:
                self.status.set_state(session=self.rows[sid].name)
        elif kind == "session.resized":
            shadow = self.feeder.shadows.get(sid)
            size = (data.get("cols"), data.get("rows"))
            if shadow is not None and size != (shadow.screen.columns, shadow.screen.lines):
                self.feeder.resync(sid)  # another view resized it: our screen is the old size
                self._work.set()
        elif kind == "session.title":
            self.rows[sid].title = data.get("title") or ""
            self._mark(sid)
        elif kind == "session.bell":
            if sid == self.focused_id:
                self.bell()  # the focused session rang: ring the outer terminal
            else:
                self.rows[sid].bell = True
                self._mark(sid)

    def _remove_session(self, sid: str) -> None:
        self.infos.pop(sid, None)
        self.rows.pop(sid, None)
        self.feeder.remove(sid)
        self.activity.harvester.forget(sid)
        if sid == self.focused_id:
            self.focused_id = None
            self.call_later(self._focus_after_exit)
        self._refresh_sidebar()

    def _focus_after_exit(self) -> None:
        """The focused session ended: move to a live one, or say none is left."""
        current = self.focused_id
        if current is not None and self.rows.get(current, SessionRow("", "")).state == "running":
            return
        live = [s for s in self.infos if self.rows[s].state == "running"]
        if live:
            order = list(self.infos)
            start = order.index(current) if current in order else 0
            after = [s for s in order[start + 1 :] + order[: start + 1] if s in live]
            self.focus_session(after[0])
        elif current is None or current not in self.infos:
            self.focus_session(None)
        else:
            self._show_banner(True)

    def _reset_from(self, sid: str, snap: dict[str, Any]) -> None:
        if sid not in self.feeder.shadows:
            return
        before = self.feeder.shadows[sid].offset
        shadow = self.feeder.reset(
            sid,
            int(snap.get("cols") or 80),
            int(snap.get("rows") or 24),
            _unb64(snap.get("data") or snap.get("snapshot")),
            int(snap.get("offset", 0)),
        )
        self._bells[sid] = getattr(shadow.screen, "bell_count", 0)
        row = self.rows.get(sid)
        if row is not None:
            if sid != self.focused_id and shadow.offset > before:
                row.unseen = True  # output we only learnt of through the snapshot
            self._mark(sid, delay=self.marks_pacer.period if sid == self.focused_id else 0.0)
        if sid == self.focused_id:
            # Drawn at whatever size the server chose (padded or clipped): a snapshot never makes
            # this view ask for a size, so views of different sizes cannot fight over it.
            self.view.show(shadow.screen)
        self._work.set()

    # -- the pump -------------------------------------------------------------------------------

    async def _pump(self) -> None:
        """Parse queued output: focused first, background in slices, yielding after each slice."""
        while True:
            await self._work.wait()
            self._work.clear()
            if self._background_timer is not None:  # this run parses what it was armed for
                self._background_timer.cancel()
                self._background_timer = None
            self._request_snapshots()
            owed = 0.0  # rest not taken yet (waiting for work above was rest too)
            clock = self.feeder.clock
            while True:
                started = clock()
                step = self.feeder.step(self.focused_id)
                if step is None:
                    break
                elapsed = clock() - started
                self._after_step(step)
                # Keystrokes queued meanwhile run now. After background slices the pump rests as
                # long again (BACKGROUND_SHARE), so background parsing cannot take the whole CPU from
                # the server; a backlog that grows meanwhile is coalesced by a snapshot.
                if not step.focused:
                    owed += self.background_rest(elapsed)
                if owed >= MIN_REST:  # (at most MIN_REST past one slice's rest, MAX_REST)
                    await self._rest(owed)
                    owed = 0.0
                else:
                    await asyncio.sleep(0)
                self._request_snapshots()

    def _background_output(self) -> None:
        """Background output is parsed at most every BACKGROUND_BATCH, all that came meanwhile at
        once (what is on view of it, the sidebar's rows, changes only a few times a second): one
        timer, armed by the first chunk, instead of a wake-up of the pump per chunk."""
        if self._background_timer is None:
            loop = asyncio.get_running_loop()
            self._background_timer = loop.call_later(BACKGROUND_BATCH, self._background_due)

    def _background_due(self) -> None:
        self._background_timer = None
        self._work.set()

    async def _rest(self, seconds: float) -> None:
        """Rest after background work; output for the focused session ends the rest at once."""
        loop = asyncio.get_running_loop()
        waiter = self._rest_waiter = loop.create_future()
        timer = loop.call_later(seconds, _settle, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._rest_waiter = None

    def _end_rest(self) -> None:
        if self._rest_waiter is not None:
            _settle(self._rest_waiter)

    @staticmethod
    def background_rest(elapsed: float) -> float:
        """How long the pump rests after a background slice that took `elapsed` seconds."""
        return min(elapsed * (1 / BACKGROUND_SHARE - 1), MAX_REST)

    def _request_snapshots(self) -> None:
        for sid in list(self.feeder.need_snapshot):
            self.feeder.need_snapshot.discard(sid)
            self._spawn(self._resync(sid))

    async def _resync(self, sid: str) -> None:
        from termux.client import TermuxError

        self.snapshots_pending += 1
        try:
            reply = await self.client.request("session.snapshot", target=sid)
        except TermuxError as exc:
            if exc.code == "no_session":
                self._remove_session(sid)
                return
            raise
        finally:
            self.snapshots_pending -= 1
        info = reply.get("session")
        if info and sid in self.infos:
            self.infos[sid].update(info)
            self.rows[sid].name = info.get("name", sid)
            self._apply_state(sid, self.infos[sid])
        self._reset_from(sid, reply)

    def _after_step(self, step: Step) -> None:
        sid = step.session
        shadow = self.feeder.shadows.get(sid)
        row = self.rows.get(sid)
        if shadow is None or row is None:
            return
        if sid == self.focused_id:
            if TRACE.on:
                TRACE.stamp("tui.parsed", sid)
            self._frame()
            # Its preview too, but never sooner than a mark period away, so that a key's echo is
            # drawn alone, not with a sidebar row.
            self._mark(sid, delay=self.marks_pacer.period)
        elif step.replay:  # its screen as of the attach: nothing the user has not seen
            self._bells[sid] = getattr(shadow.screen, "bell_count", 0)
            self._mark(sid)
        else:
            row.unseen = True
            bells = getattr(shadow.screen, "bell_count", 0)
            if bells != self._bells.get(sid, 0):
                row.bell = True
                self._bells[sid] = bells
            self._mark(sid)
        if step.chunks and not step.replay and not self.activity.has_class("-hidden"):
            self._observe_activity(sid, step.chunks[-1])

    def _frame(self) -> None:
        """Focused output was parsed: draw it now (a key's echo) or at the next frame."""
        delay = self.pacer.delay()
        if delay <= 0:
            self._draw()
        elif self._frame_timer is None:
            self._frame_timer = asyncio.get_running_loop().call_later(delay, self._draw)

    def _draw(self) -> None:
        if self._frame_timer is not None:
            self._frame_timer.cancel()
            self._frame_timer = None
        self.view.update_dirty()
        if TRACE.on:
            TRACE.stamp("tui.drawn", self.focused_id)
        self.pacer.drawn()

    # -- background marks: the sidebar's rows and the activity view, at a bounded rate -----------

    def _mark(self, sid: str, delay: float = 0.0) -> None:
        """What `sid`'s sidebar row shows may have changed (output, a bell, a title, a snapshot);
        applied at least `delay` seconds from now."""
        self._touched.add(sid)
        self._arm_marks(delay)

    def _observe_activity(self, sid: str, chunk: bytes) -> None:
        """Keep the newest output's tail; the words in it are harvested with the other marks."""
        keep = TAIL_BYTES + 1  # the tail and the byte before it (was the tail's first word cut?)
        if len(chunk) < keep:
            chunk = self._activity_tails.get(sid, b"") + chunk
        self._activity_tails[sid] = chunk[-keep:]
        self._arm_marks()

    def _arm_marks(self, delay: float = 0.0) -> None:
        """One timer while marks are pending, due a mark period after the last application."""
        if self._marks_timer is None:
            loop = asyncio.get_running_loop()
            self._marks_timer = loop.call_later(max(delay, self.marks_pacer.delay()), self._apply_marks)

    def _apply_marks(self) -> None:
        """Redraw the rows whose content changed since the last time and harvest activity words."""
        if self._marks_timer is not None:
            self._marks_timer.cancel()
            self._marks_timer = None
        self.marks_pacer.drawn()
        touched, self._touched = self._touched, set()
        for sid in touched:
            row = self.rows.get(sid)
            if row is None:
                continue
            self._refresh_preview(sid)
            self.sidebar.update_row(row)  # a no-op when the row shows nothing new
        tails, self._activity_tails = self._activity_tails, {}
        for sid, tail in tails.items():
            if sid in self.rows:
                self.activity.observe(sid, tail)

    def _refresh_preview(self, sid: str) -> None:
        shadow = self.feeder.shadows.get(sid)
        row = self.rows.get(sid)
        if shadow is not None and row is not None:
            row.preview = emulator_preview(shadow.screen)

    # -- focus and size -------------------------------------------------------------------------

    def focus_session(self, sid: str | None) -> None:
        """Show `sid`, and offer it this view's size (the server sizes sessions, sizing.py)."""
        if self.focused_id is not None and self.focused_id != sid:
            self._refresh_preview(self.focused_id)  # up to date now, not a mark period later
            if self.copy is not None:
                self.copy.close()
        self.focused_id = sid
        self._show_banner(sid is None)
        shadow = self.feeder.shadows.get(sid) if sid else None
        self.view.show(shadow.screen if shadow else None)
        if sid is not None and sid in self.rows:
            row = self.rows[sid]
            row.unseen = row.bell = False
            self.status.set_state(session=row.name)
            self.client.send_nowait("client.focus", target=sid, **self._view_size())
        self.sidebar.set_focus(sid)  # the rows are the same: redraw the two whose mark moved
        self.view.focus()
        self._work.set()
        self._end_rest()  # a pump resting after background work parses the new focus now

    def _show_banner(self, shown: bool) -> None:
        if self._main is None:
            return
        banner = self._main.query_one("#banner", Static)
        if shown:
            banner.update("No sessions are running.\n\nPress c (or Enter) to start a new one, q to leave.")
        banner.set_class(shown, "-shown")
        self.view.display = not shown

    def _view_size(self) -> dict[str, int]:
        """`cols` and `rows` of the terminal view, once it has been laid out (else nothing: its
        first layout offers it, on_terminal_view_resized)."""
        try:
            width, height = self.view.size.width, self.view.size.height
        except NoMatches:  # the main screen is not composed yet
            return {}
        return {"cols": min(width, MAX_SIZE), "rows": min(height, MAX_SIZE)} if width >= 2 and height >= 1 else {}

    def on_terminal_view_resized(self, message: TerminalView.Resized) -> None:
        if self.copy is not None:
            self.copy.resize(self.view.size.height)
        # The new size is offered to the focused session; the server decides (and says
        # `session.resized`, which resyncs the shadow).
        if self.focused_id is not None and self.focused_id in self.rows and (size := self._view_size()):
            self.client.send_nowait("client.focus", target=self.focused_id, **size)

    # -- input ----------------------------------------------------------------------------------

    def _input_from_driver(self, message: Message) -> None:
        """Keys and pastes from the input thread, on the loop, ahead of Textual's queue."""
        if self._passthrough():
            if isinstance(message, events.Key):
                self.route_key(message)
                return
            if isinstance(message, events.Paste):
                self.route_paste(message.text)
                return
        self.post_message(message)

    def _passthrough(self) -> bool:
        return self._main is not None and bool(self._screen_stack) and self.screen is self._main

    async def on_event(self, event: events.Event) -> None:
        # Keys that came through Textual's queue (tests, or while the app starts): same routing.
        if self._passthrough() and not event.is_forwarded:
            if isinstance(event, events.Key):
                self.route_key(event)
                return
            if isinstance(event, events.Paste):
                self.route_paste(event.text)
                return
        await super().on_event(event)

    def route_key(self, event: events.Key) -> None:
        """Every key while no modal screen is open: the prefix, a command after it, or the session."""
        if not self.attached.is_set():
            # typed before the attach reply: kept (bounded) and replayed once there is a session
            if len(self._early_keys) < EARLY_KEYS:
                self._early_keys.append(event)
            return
        key = encode_textual(event.key, event.character)  # keys are matched by their bytes
        if self.prefix_pending:
            self.prefix_pending = False
            self.status.set_state(pending=False)
            if key == self._prefix:
                self.send_key(event)  # the prefix twice sends it
                return
            action = self._actions.get(key)
            if action is None:
                self.status.set_state(message=f"no binding for {event.key}")
            else:
                self.run_prefix_action(action)
            return
        if key == self._prefix:
            self.prefix_pending = True
            self.status.set_state(pending=True, message="")
            return
        if self.copy is not None:
            self.copy.key(event.key, event.character)
            return
        if self.focused_id is None or self.rows[self.focused_id].state != "running":
            self._key_without_session(event)
            return
        self.send_key(event)

    def _key_without_session(self, event: events.Key) -> None:
        if any(row.state == "running" for row in self.rows.values()):
            # an ended session was chosen while others live: keys have nowhere to go
            self.status.set_state(message="this session has ended: prefix n/p switches, prefix x removes it")
        elif event.key in ("c", "enter"):
            self._spawn(self.new_session())
        elif event.key in ("q", "d"):
            self.detach()

    def send_key(self, event: events.Key) -> None:
        sid = self.focused_id
        if sid is None:
            return
        shadow = self.feeder.shadows.get(sid)
        mode = shadow.screen.mode if shadow else ()
        data = encode_textual(event.key, event.character, mode)
        if data:
            self.send_bytes(data)

    def route_paste(self, text: str) -> None:
        sid = self.focused_id
        if sid is None:
            return
        shadow = self.feeder.shadows.get(sid)
        self.send_bytes(encode_paste(text, shadow.screen.mode if shadow else ()))

    def send_bytes(self, data: bytes) -> None:
        if self.focused_id is None:
            return
        if TRACE.on:  # before the write: the server may stamp its receipt before this process runs again
            TRACE.stamp("tui.sent", self.focused_id)
        self.client.send_nowait("session.send", target=self.focused_id, data=_b64(data))
        self.pacer.key_sent()
        self.sent.append(data)
        del self.sent[:-64]

    def on_terminal_view_input(self, message: TerminalView.Input) -> None:
        self.send_bytes(message.data)

    def on_terminal_view_scrolled(self, message: TerminalView.Scrolled) -> None:
        shadow = self.feeder.shadows.get(self.focused_id) if self.focused_id else None
        if shadow is not None and shadow.screen.alternate:
            return  # a full-screen program's own screen has no history to scroll (tmux does nothing either)
        if message.lines < 0 and self.copy is None:
            # The wheel scrolls up from where the screen is; scrolling back down leaves (tmux's -e).
            copy = self.open_copy_mode(leave_at_bottom=True)
            if copy is not None:
                copy.mouse("wheel-up", 0, 0)

    def on_terminal_view_select(self, message: TerminalView.Select) -> None:
        """A mouse gesture for copy mode: a drag (or a double or triple click) over a program
        that does not take the mouse opens it, and the release copies."""
        copy = self.copy
        if copy is None:
            if message.kind == "down":
                self._mouse_down = (message.y, message.x)
                return
            if message.kind not in ("drag", "word", "line"):
                self._mouse_down = None
                return
            copy = self.open_copy_mode()
            if copy is None:
                return
            if message.kind == "drag" and self._mouse_down is not None:
                copy.mouse("down", *self._mouse_down)
            self._mouse_down = None
        copy.mouse(message.kind, message.y, message.x)

    def on_sidebar_selected(self, message: Sidebar.Selected) -> None:
        self.focus_session(message.session_id)

    # -- prefix commands ------------------------------------------------------------------------

    def run_prefix_action(self, action: str) -> None:
        order = list(self.infos)
        if action == "new":
            self._spawn(self.new_session())
        elif action in ("next", "previous") and order:
            index = order.index(self.focused_id) if self.focused_id in order else -1
            step = 1 if action == "next" else -1
            self.focus_session(order[(index + step) % len(order)])
        elif action.startswith("select-"):
            n = int(action.split("-", 1)[1])
            if n < len(order):
                self.focus_session(order[n])
            else:
                self.status.set_state(message=f"no session {n}")
        elif action == "detach":
            self.detach()
        elif action == "kill" and self.focused_id is not None:
            self._confirm_kill(self.focused_id)
        elif action == "rename" and self.focused_id is not None:
            self._rename(self.focused_id)
        elif action == "sidebar":
            self.sidebar.toggle_class("-hidden")  # the view's Resized fits the session
        elif action == "activity":
            self.activity.toggle_class("-hidden")
        elif action == "copy-mode":
            self.open_copy_mode()
        elif action == "paste-buffer" and self.focused_id is not None:
            # The newest buffer, bracketed if the program asked for bracketed paste (tmux's -p).
            self._spawn(self.client.submit("buffer.paste", target=self.focused_id, bracketed=True))
        elif action == "help":
            self.push_screen(HelpScreen(self.config))
        elif action == "send-prefix":
            self.send_bytes(self._prefix)

    async def new_session(self) -> None:
        """A session at this view's size, in the focused session's current directory (tmux's
        `-c '#{pane_current_path}'`), else in the directory termux was started in."""
        focused = self.infos.get(self.focused_id) if self.focused_id is not None else None
        pid = focused.get("pid") if focused is not None and focused.get("state") == "running" else None
        cwd = (current_directory(pid) if isinstance(pid, int) else None) or start_directory()
        reply = await self.client.request("session.new", **self._view_size(), **({"cwd": cwd} if cwd else {}))
        info = reply["session"]
        sid = info["id"]
        if sid not in self.infos:
            self._add_session(info, {})
            self._refresh_sidebar()
        await self._resync(sid)
        self.focus_session(sid)

    def detach(self) -> None:
        self.exit_reason = "detached"
        self.exit("detached")

    def _confirm_kill(self, sid: str) -> None:
        name = self.rows[sid].name

        def done(yes: bool | None) -> None:
            if yes:
                self._spawn(self.client.request("session.kill", target=sid))

        self.push_screen(ConfirmScreen(f"Kill session {name}?"), done)

    def _rename(self, sid: str) -> None:
        def done(name: str | None) -> None:
            if name:
                self._spawn(self._do_rename(sid, name))

        self.push_screen(RenameScreen(self.rows[sid].name), done)

    async def _do_rename(self, sid: str, name: str) -> None:
        await self.client.request("session.rename", target=sid, name=name)  # refusals: _task_done

    # -- copy mode and the clipboard -------------------------------------------------------------

    def open_copy_mode(self, leave_at_bottom: bool = False) -> CopyView | None:
        """Copy mode on the focused session (termux/tui/copyview.py): keys and the mouse go to it
        until it copies or is left; the view draws it once its first page has come."""
        sid = self.focused_id
        if self.copy is not None or sid is None or sid not in self.rows:
            return self.copy
        shadow = self.feeder.shadows.get(sid)
        rows = shadow.screen.lines if shadow is not None else self.view.size.height
        copy = CopyView(
            self.client.request,
            sid,
            self.view.size.height,
            bindings=key_table("emacs" if self.config.mode_keys == "emacs" else "vi"),
            on_done=self._copy_done,
            on_change=self._copy_changed,
            wheel_lines=self.config.wheel_lines,
            leave_at_bottom=leave_at_bottom,
        )
        self.copy = self.view.copy = copy
        self.status.set_state(mode=copy.status())
        self._spawn(copy.start(rows))
        return copy

    def _copy_changed(self) -> None:
        if self.copy is not None:
            self.status.set_state(mode=self.copy.status())
            self.view.refresh()

    def _copy_done(self, text: str | None) -> None:
        copy, self.copy = self.copy, None
        self.view.copy = None
        self.status.set_state(mode="", message=copy.message if copy is not None else "")
        shadow = self.feeder.shadows.get(self.focused_id) if self.focused_id else None
        self.view.show(shadow.screen if shadow is not None else None)
        if text:
            self._spawn(self._store_copy(text))

    async def _store_copy(self, text: str) -> None:
        """A copy goes to a paste buffer and, unless set_clipboard is off, to the outer terminal."""
        data = text.encode()
        note = ""
        if self.config.set_clipboard != "off":
            if len(data) <= MAX_OUTER_BYTES:
                self.write_clipboard(data)
            else:
                note = f" (too large for the terminal's clipboard: over {MAX_OUTER_BYTES} bytes)"
        reply = await self.client.request("buffer.set", text=text)
        buffer = reply.get("buffer") or {}
        self.status.set_state(message=f"copied {len(text)} characters to {buffer.get('name', 'a buffer')}{note}")

    def write_clipboard(self, data: bytes, selection: str = "c") -> None:
        """Set the outer terminal's clipboard (OSC 52, which reaches it over SSH too)."""
        driver = self._driver
        if driver is not None and len(data) <= MAX_OUTER_BYTES:
            driver.write(osc52(data, selection))

    # -- sidebar --------------------------------------------------------------------------------

    def _refresh_sidebar(self) -> None:
        if self._main is None:
            return
        self.sidebar.set_rows([self.rows[s] for s in self.infos], self.focused_id)
        self.activity.names = {sid: row.name for sid, row in self.rows.items()}

    async def on_unmount(self) -> None:
        for timer in (self._frame_timer, self._marks_timer, self._background_timer):
            if timer is not None:
                timer.cancel()
        self._frame_timer = self._marks_timer = self._background_timer = None
        for task in list(self._tasks):
            task.cancel()


def current_directory(pid: int) -> str | None:
    """The working directory of what runs in the foreground of a session's terminal: its
    foreground process group's (the group leader's), else the session's first process's. The
    TUI runs as the server's user on the server's machine, so /proc answers it as it would the
    server."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            foreground = int(f.read().rsplit(")", 1)[1].split()[5])  # tpgid
    except (OSError, ValueError, IndexError):
        foreground = -1
    for candidate in (foreground, pid):
        if candidate > 0:
            try:
                return os.readlink(f"/proc/{candidate}/cwd")
            except OSError:
                continue
    return None


def start_directory() -> str | None:
    """The directory termux was started in (None if it is gone)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def emulator_preview(screen: Any) -> str:
    preview = getattr(emulator, "preview", None)
    if preview is not None:
        return str(preview(screen))
    for line in reversed(screen.display):
        if line.strip():
            return str(line.strip())
    return ""
