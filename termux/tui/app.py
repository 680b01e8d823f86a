"""The termux TUI: a Textual app attached to a termux server.

The app is the thin part that does the I/O. What the TUI knows about the sessions and what each
push, event or parsed slice changes is the session model's (termux/tui/model.py); where each key
goes is the input router's (termux/tui/router.py). Both are sans-I/O and tested on their own; the
app feeds them, carries out what they return (requests on the socket, widgets, timers), and runs
the pump.

The loop's priorities (docs/architecture.md, "Priorities"):

1. Input. The driver reads the terminal on the event loop and hands keys and pastes on in the
   callback that read them (`TermuxDriver.input_hook`), ahead of Textual's message queue, and they are
   written to the socket at once (`send_nowait`). Textual's bindings never see a key meant for a
   session: while no modal screen is open, `route_key` takes every key.
2. The visible sessions. The pump (`_pump`) parses their queued output first.
3. Background sessions, in bounded slices (`Feeder.step`), with a yield between slices, so a
   keystroke that arrives meanwhile waits for at most one slice. A background session that falls
   too far behind is dropped and resynced from a server snapshot.

Nothing here polls: the pump sleeps on an event until a push arrives, and every timer exists only
while it has something to do.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

from rich.style import Style
from textual import events
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from termux.clipboard import MAX_OUTER_BYTES, osc52
from termux.commands import action_names
from termux.protocol.events import Event
from termux.protocol.pushes import DetachPush, OutputPush, Push
from termux.protocol.results import AttachResult, SessionResult, SnapshotResult
from termux.rest import Rest
from termux.trace import TRACE
from termux.tui.activity import ActivityView
from termux.tui.config import Config
from termux.tui.driver import shared_stylesheet
from termux.tui.feed import Feeder
from termux.tui.finder import FindScreen
from termux.tui.grid import GridScreen
from termux.tui.layout import Direction, Layout, LayoutError, Orientation
from termux.tui.model import MARK_PERIOD, Changes, SessionModel, SessionRow, find_session
from termux.tui.panes import PaneArea, PaneLabel, border_position
from termux.tui.render import Palette
from termux.tui.router import InputRouter, Pending, Run, Say, Send
from termux.tui.screens import ConfirmScreen, HelpScreen, RenameScreen
from termux.tui.widgets import KeptVertical, Sidebar, StatusLine, TerminalView, fitted_width

if TYPE_CHECKING:
    from termux.tui.copyview import CopyView

# Rests shorter than this are owed rather than taken: a timer per small slice would cost more than
# the slice itself.
MIN_REST = 0.001
# Background output waits at most this long to be parsed, with what follows it: what is on view of
# it (the sidebar's previews and marks, the grid's tiles) is applied once a mark period anyway, and
# a feed of many queued lines costs far less per line than a feed of a few.
BACKGROUND_BATCH = MARK_PERIOD
# Sidebar rows redrawn per loop turn when the marks are applied: a key read meanwhile waits for
# these rows, not for every changed row (the rest follow on the next turns).
MARK_ROWS_PER_TURN = 2
MARKS_EARLY = 0.001  # a marks timer this early (clocks differ) applies them
MAX_SIZE = 1000  # the protocol's largest session side; a larger view draws it padded
ACTIONS = action_names()  # what a binding may run (termux/commands.py), by every name it goes by
FIRST_PAINT_BASE = Style(color="default", bgcolor="default")  # TerminalView's ansi_default colours
NO_SESSIONS = "No sessions are running.\n\nPress c (or Enter) to start a new one, q to leave."


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
        self.sidebar = Sidebar(id="sidebar")
        self.sidebar.set_class(not config.sidebar, "-hidden")
        self.panes = PaneArea(Palette(config.palette, config.foreground, config.background), id="terminal")
        self.activity = ActivityView(id="activity")
        self.activity.set_class(not config.activity, "-hidden")
        self.status = StatusLine(config.prefix, config.status_left, config.status_right, id="status")
        self.banner = Static("", id="banner")

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield self.sidebar
            with KeptVertical(id="right"):
                yield self.banner
                yield self.panes
                yield self.activity
        yield self.status

    def on_resize(self, event: events.Resize) -> None:
        self.sidebar.fit(self.config.sidebar_width, event.size.width)

    def on_screen_suspend(self) -> None:
        if not isinstance(self.app.screen, ModalScreen):  # (a modal one leaves the status line in view)
            self.status.stop_clock()

    def on_screen_resume(self) -> None:
        self.status.start_clock()

    def show_banner(self, shown: bool) -> None:
        """No session to show: say so in place of the terminal view."""
        if shown:
            self.banner.update(NO_SESSIONS)
        self.banner.set_class(shown, "-shown")
        self.panes.display = not shown


def attach_request(client: Any, config: Config, detach_others: bool) -> asyncio.Future[AttachResult]:
    """Send `client.attach` (the TUI's entry does, before it makes the app: its reply comes while
    the app is made). It carries no size: the panes offer theirs with client.view once the
    layout is known."""
    # coalesce: background sessions come within a byte budget, as snapshots past it; the
    # sidebar and the activity view need their latest screens, not every byte of a flood.
    return asyncio.ensure_future(
        client.request_as(
            AttachResult,
            "client.attach",
            coalesce=True,
            window_size=config.window_size,
            set_clipboard=config.set_clipboard,
            **({"detach_others": True} if detach_others else {}),
        )
    )


DETACHED_BY_ANOTHER = "detached (by another client's attach -d)"


class TermuxApp(App[str]):
    """Attached to one server through `client` (a termux.client.AsyncClient)."""

    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = []  # Textual's quit (ctrl+q) and friends belong to the session
    TITLE = "termux"

    def __init__(
        self,
        client: Any,
        *,
        config: Config | None = None,
        focus: str | None = None,
        feeder: Feeder | None = None,
        driver_class: Any = None,
        layout: Layout | None = None,
        preset: str | None = None,
        detach_others: bool = False,
        attaching: asyncio.Future[AttachResult] | None = None,
    ) -> None:
        super().__init__(driver_class=driver_class, ansi_color=True)
        self.stylesheet = shared_stylesheet(self.stylesheet)  # before anything is added to it
        self.detach_others = detach_others  # client.attach detaches every other view (attach -d)
        self.client = client
        self.config = config or Config()
        self.model = SessionModel(feeder)
        self.model.observe_activity = self.config.activity
        self.router = InputRouter(self.config.prefix, self.config.bindings)
        self.initial_focus = focus
        self._attaching = attaching  # the client.attach request (`attach_request`), once sent
        # The reply and the session to focus, once the model took them (`take_attach`).
        self._attached_reply: tuple[AttachResult, str | None] | None = None
        # The panes (termux/tui/layout.py): given (`--layout`), else restored from the server's
        # last layout on attach, else one pane; None while no session is shown.
        self.layout: Layout | None = layout
        self._preset = preset  # the given layout's preset, applied once the area is known
        self._view_sent: tuple[Any, ...] | None = None  # the last client.view sent (sent again on change)
        self._undrawn: set[str] = set()  # panes beside the focus with output parsed and not drawn yet
        self._pane_timer: asyncio.TimerHandle | None = None  # armed only while a pane's output is undrawn
        self.attached = asyncio.Event()
        self.exit_reason = ""
        self._work = asyncio.Event()
        self._rest = Rest()  # the pump's rest; visible output ends it
        self._frame_timer: asyncio.TimerHandle | None = None  # armed only while output is undrawn
        self.echoes_at_once = 0  # focused output parsed as it was received (_echo_now), not by the pump
        self.pump_runs = 0  # times the pump woke up for work (tests count them)
        self._marks_timer: asyncio.TimerHandle | None = None  # armed only while marks are pending
        self._marks_rows: dict[str, None] = {}  # sessions whose marks were taken, rows not drawn yet (in order)
        self._marks_turn: asyncio.Handle | None = None  # the next turn that draws them (call_soon)
        self._background_timer: asyncio.TimerHandle | None = None  # armed by unparsed background output
        self._tasks: set[asyncio.Task[Any]] = set()
        self._main = MainScreen(self.config)
        # The main screen's widgets, made with it and never replaced.
        self.panes: PaneArea = self._main.panes
        self.sidebar: Sidebar = self._main.sidebar
        self.status: StatusLine = self._main.status
        self.activity: ActivityView = self._main.activity
        self._grid: GridScreen | None = None  # made on first use (prefix w)
        self._grid_open = False  # (its tiles are part of what this view shows: client.view)
        self.snapshots_pending = 0  # snapshot requests on their way (tests wait for 0)
        self.sent: list[bytes] = []  # what input sent (kept short; tests and debugging)
        self.copy: CopyView | None = None  # copy mode on the focused session, while it is on
        self._copy_view: TerminalView | None = None  # the pane it is drawn in
        self._mouse_down: tuple[int, int] | None = None  # where button 1 went down outside copy mode
        # Writes to the outer terminal between frames (TermuxDriver sets it when it starts).
        self.write_to_terminal: Callable[[str], None] | None = None

    @property
    def view(self) -> TerminalView:
        """The focused pane's view (it changes with the focus)."""
        return self.panes.focused_view()

    # -- set-up ---------------------------------------------------------------------------------

    def on_mount(self) -> None:
        if TRACE.on:
            TRACE.mark("app.mount")
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
        if isinstance(exc, TermuxError):
            # a refused request (a name taken, a command not found, a session gone): say so, go on
            self.status.message = f"{exc.message} ({exc.code})"
            return
        if self.exit_reason:
            return  # leaving already (a detach): what a task met on the way out is not the reason
        self.exit_reason = f"error: {type(exc).__name__}: {exc}"
        self.exit(self.exit_reason)

    def begin_attach(self) -> None:
        """Send `client.attach` now (the TUI's entry does, before Textual starts): its reply comes
        while Textual starts, and the first frame is drawn with the sessions in it. It carries no
        size: the panes offer theirs with client.view once the layout is known."""
        if self._attaching is None:
            self._attaching = attach_request(self.client, self.config, self.detach_others)

    async def take_attach(self) -> None:
        """Wait for the `client.attach` reply and give it to the model (only the focused screen is
        parsed), before Textual starts when the TUI's entry calls it: the first paint
        (`first_paint`) draws that screen while Textual makes its widgets. A target given by
        name or id is found in the reply as the server finds one; one it does not name is asked
        of the server (`session.get`: its error says what is wrong)."""
        if self._attached_reply is not None:
            return
        self.begin_attach()
        assert self._attaching is not None
        reply = await self._attaching
        if TRACE.on:
            TRACE.mark("attach.reply")
        target = self.initial_focus
        if target is not None and self.layout is None:
            found = find_session(reply.sessions, target)
            if found is not None:
                self.initial_focus = found.id
            else:
                self.initial_focus = (await self.client.request("session.get", target=target))["session"]["id"]
        wanted = self.layout.focus if self.layout is not None else self.initial_focus
        self._attached_reply = (reply, self.model.attach(reply, wanted))

    def first_paint(self, columns: int, lines: int) -> str | None:
        """The focused session's screen, drawn where its pane will be on a terminal of that
        size, for the driver to write as soon as the terminal is the TUI's (before Textual's
        first frame, which draws the same lines and everything around them); None when there
        is nothing to draw yet or its place is not known before Textual lays the screen out.
        Its lines are the view's own (`TerminalView`'s renderer and padding)."""
        if self._attached_reply is None or self.layout is not None:
            return None  # (a layout given is laid out by Textual first)
        if self.config.activity or os.environ.get("NO_COLOR"):
            return None  # (the activity view takes room; NO_COLOR: Textual filters every line)
        reply, focus = self._attached_reply
        shadow = self.model.shadow(focus) if focus is not None else None
        left = fitted_width(self.config.sidebar_width, columns) if self.config.sidebar else 0
        width, height = columns - left, lines - 1  # (the status line under the panes)
        if shadow is None or width <= 0 or height <= 0:
            return None
        layout = self._first_layout(reply.last_layout, focus, width, height)
        box = layout.geometry().box(layout.focus) if layout is not None else None
        if box is None or layout is None or layout.focus != focus:
            return None
        area = box.content
        screen = shadow.screen
        view = TerminalView(self.panes.palette)
        view.screen_ = screen
        view._base_style = FIRST_PAINT_BASE  # its CSS's (it is not mounted yet)
        view.renderer.take_dirty(screen, show_cursor=not screen.cursor.hidden)
        console = self.console
        top, x = area.y + 1, left + area.x + 1
        return "".join(
            f"\x1b[{top + y};{x}H{view.line_for(y, area.width).render(console)}" for y in range(area.height)
        )

    async def _attach_server(self) -> None:
        """One round trip: sessions, a snapshot of each, and the offsets output continues from
        (taken before Textual started, when the TUI's entry did)."""
        await self.take_attach()
        # The reply comes before Textual composed the screen now: the panes need their area.
        # (It may come before the layout: the panes are sized by PaneArea.Resized then.)
        await self.panes.composed.wait()
        assert self._attached_reply is not None
        reply, focus = self._attached_reply
        self.layout = self._first_layout(reply.last_layout, focus, self.panes.size.width, self.panes.size.height)
        if self.layout is not None:
            focus = self.layout.focus
        self._refresh_sidebar()
        self._take_pushes()
        self._spawn(self._watch_server())
        # The pump starts once the focused screen is drawn: the other sessions' snapshots it
        # replays would take turns with the first frame (pushed output waits in the feeder).
        self.call_after_refresh(self._start_pump)
        self.focus_session(focus)
        if TRACE.on:
            TRACE.mark("attach.focused")
        self.attached.set()
        for key, character in self.router.attached():
            self.route_key(events.Key(key, character))

    def _start_pump(self) -> None:
        self._spawn(self._pump())  # (returns nothing: Textual would await a task it was given)
        from termux.tui import host

        host.first_frame_drawn()  # (in a host's child: the host may make its next spare now)

    def _first_layout(self, saved: Any, focus: str | None, width: int, height: int) -> Layout | None:
        """The panes to start with on an area of that size: the ones given, else the last layout
        a view saved (panes of gone sessions left out; a target asked for is shown in it), else
        `focus` alone."""
        if self.layout is not None:
            self.layout.resize_area(width, height)
            if self._preset is not None:
                self.layout.apply_preset(self._preset)
            return self.layout
        if focus is None:
            return None
        if saved is not None:
            try:
                layout = Layout.from_dict(saved, width, height)
            except LayoutError:
                layout = None  # written by another version: start afresh
            if layout is not None and layout.keep_only(set(self.model.infos)):
                if self.initial_focus is not None:
                    layout.show(focus)
                return layout
        return Layout(focus, width, height)

    # -- carrying out what the model says -------------------------------------------------------

    def _apply(self, changes: Changes) -> None:
        model = self.model
        if changes.sessions:
            self._refresh_sidebar()
        for sid in changes.gone:
            self.activity.forget(sid)
        for sid in changes.rows:
            if (row := model.rows.get(sid)) is not None:
                self.sidebar.update_row(row)
        for sid in changes.screens:
            view = self.panes.views.get(sid)
            if view is not None:
                shadow = model.shadow(sid)
                view.show(shadow.screen if shadow is not None else None, paint=True)
        if changes.name and model.focused in model.rows:
            self.status.session = model.rows[model.focused].name
        if changes.message is not None:
            self.status.message = changes.message
        if changes.bell:
            self.bell()
        if changes.clipboard is not None and self.config.set_clipboard == "on":
            # A program in the focused session set the clipboard, and the server's policy let it.
            self.write_clipboard(changes.clipboard.data, changes.clipboard.selection)
        if model.focused in changes.frames:
            if TRACE.on:
                TRACE.stamp("tui.parsed", model.focused)
            self._frame()
        if others := changes.frames - {model.focused}:
            self._undrawn |= others
            self._pane_frame()
        if changes.marks is not None:
            self._arm_marks(changes.marks)
        if changes.wake:
            self._work.set()
        if changes.end_rest:
            self._rest.end()
        if changes.batch:
            self._background_output()
        if changes.gone and self.layout is not None:
            self._panes_gone(changes.gone)
        if changes.rows and self.layout is not None:
            self._pane_rows_changed(changes.rows)
        if changes.refocus:
            self.call_later(self._focus_after_exit)

    # -- pushes ---------------------------------------------------------------------------------

    def _take_pushes(self) -> None:
        """From now on the client hands each push to `handle_push` in the loop callback that read
        it (queuing is cheap; parsing is the pump's), a bounded batch a turn so that keys read
        meanwhile are not kept waiting by a flood (`AsyncClient.on_push`); what came before the
        attach reply first."""
        pushes = self.client.pushes
        while not pushes.empty():
            self.handle_push(pushes.get_nowait())
        # The client reads in the loop's own context, where Textual does not know the app (each
        # `self.app` there walks the widget tree up): pushes are handled in a copy of this
        # task's context, the app's.
        context = contextvars.copy_context()
        self.client.on_push = lambda push: context.copy().run(self.handle_push, push)

    async def _watch_server(self) -> None:
        await self.client.closed.wait()
        if self.model.server_error:
            # the server dropped this client (it fell too far behind); the sessions are still there
            self.exit_reason = f"dropped by the server: {self.model.server_error}; `termux attach` comes back"
        else:
            self.exit_reason = "the server went away"
        self.exit(self.exit_reason)

    def handle_push(self, push: Push) -> None:
        if TRACE.on and isinstance(push, OutputPush):
            TRACE.stamp("tui.received", push.session)
        if isinstance(push, DetachPush):  # another view attached with -d: leave as a detach does
            self.exit_reason = DETACHED_BY_ANOTHER
            self.exit(DETACHED_BY_ANOTHER)
            return
        changes = self.model.push(push)
        if not (isinstance(push, OutputPush) and push.session == self.model.focused and self.model.pacer.delay() <= 0):
            self._apply(changes)
            return
        # The focused session's output with its frame due (a key's echo, or the frame period
        # passed): parsed and drawn in this call. The pump is woken only for what is left.
        changes.wake = changes.end_rest = False
        self._apply(changes)
        self._echo_now(push.session)

    def _echo_now(self, sid: str) -> None:
        """Output of the focused session whose frame is due: one slice parsed and drawn in this
        call, not on the pump task's next pass (two loop passes later); the pump is woken if the
        slice left some, or a snapshot is wanted."""
        model = self.model
        shadow = model.feeder.shadows.get(sid)
        if shadow is not None and shadow.ready and (done := model.step()) is not None:
            self.echoes_at_once += 1
            self._apply(model.after_slice(done))
        if (shadow is not None and shadow.ready) or model.feeder.need_snapshot:
            self._work.set()
            self._rest.end()

    def handle_event(self, event: Event) -> None:
        self._apply(self.model.event(event))

    def _focus_after_exit(self) -> None:
        """The focused session ended: move to a live one, or say none is left. With several panes
        its pane stays until dismissed (or closes at once, `exited_pane = "close"`); the focus
        stays with it meanwhile."""
        layout = self.layout
        if layout is not None and len(layout) > 1 and layout.focus == self.model.focused:
            return
        what, sid = self.model.after_exit()
        if what == "focus":
            self.focus_session(sid)
        elif what == "banner":
            self._main.show_banner(True)

    # -- the pump -------------------------------------------------------------------------------

    async def _pump(self) -> None:
        """Parse queued output: visible first, background in slices, yielding after each slice."""
        model = self.model
        while True:
            await self._work.wait()
            self._work.clear()
            self.pump_runs += 1
            if self._background_timer is not None:  # this run parses what it was armed for
                self._background_timer.cancel()
                self._background_timer = None
            self._request_snapshots()
            owed = 0.0  # rest not taken yet (waiting for work above was rest too)
            while (done := model.step()) is not None:
                self._apply(model.after_slice(done))
                # Keystrokes queued meanwhile run now. After background slices the pump rests
                # (BACKGROUND_SHARE), so background parsing cannot take the whole CPU from the
                # server; a backlog that grows meanwhile is coalesced by a snapshot.
                if not done.focused:
                    owed += model.background_rest(done.seconds)
                if owed >= MIN_REST:  # (at most MIN_REST past one slice's rest, MAX_REST)
                    await self._rest.take(owed)
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

    def _request_snapshots(self) -> None:
        for sid in self.model.snapshots_wanted():
            self._spawn(self._resync(sid))

    async def _resync(self, sid: str) -> None:
        from termux.client import TermuxError

        self.snapshots_pending += 1
        try:
            reply = await self.client.request_as(SnapshotResult, "session.snapshot", target=sid)
        except TermuxError as exc:
            if exc.code == "no_session":
                self._apply(self.model.remove(sid))
                return
            raise
        finally:
            self.snapshots_pending -= 1
        self._apply(self.model.snapshot_reply(sid, reply))

    # -- frames: the visible sessions' output, paced -------------------------------------------

    def _frame(self) -> None:
        """Visible output was parsed: draw it now (a key's echo) or at the next frame."""
        delay = self.model.pacer.delay()
        if delay <= 0:
            self._draw()
        elif self._frame_timer is None:
            self._frame_timer = asyncio.get_running_loop().call_later(delay, self._draw)

    def _draw(self) -> None:
        if self._frame_timer is not None:
            self._frame_timer.cancel()
            self._frame_timer = None
        if (view := self.panes.views.get(self.model.focused or "")) is not None:
            dirty = view.take_dirty()
            if TRACE.on:
                TRACE.stamp("tui.drawn", self.model.focused)
            view.repaint(dirty)
        self.model.pacer.drawn()

    def _pane_frame(self) -> None:
        """Output of a pane beside the focus was parsed: drawn at most once per pane frame period,
        and not while a key's echo is awaited (that frame goes first)."""
        pacer = self.model.pane_pacer
        delay = pacer.period if self.model.pacer.key_pending else pacer.delay()
        if delay <= 0:
            self._draw_panes()
        elif self._pane_timer is None:
            self._pane_timer = asyncio.get_running_loop().call_later(delay, self._draw_panes)

    def _draw_panes(self) -> None:
        self._pane_timer = None
        undrawn, self._undrawn = self._undrawn, set()
        for sid in undrawn:
            if sid != self.model.focused and (view := self.panes.views.get(sid)) is not None:
                view.update_dirty()
        self.model.pane_pacer.drawn()

    # -- background marks: the sidebar's rows and the activity view, at a bounded rate -----------

    def _arm_marks(self, delay: float = 0.0) -> None:
        """One timer while marks are pending, due a mark period after the last application (a
        longer one while someone types: `SessionModel.marks_delay`)."""
        if self._marks_timer is None:
            loop = asyncio.get_running_loop()
            self._marks_timer = loop.call_later(max(delay, self.model.marks_delay()), self._marks_due)

    def _marks_due(self) -> None:
        self._marks_timer = None
        wait = self.model.marks_delay()
        if wait > MARKS_EARLY:  # someone started typing since it was armed: the longer period
            self._marks_timer = asyncio.get_running_loop().call_later(wait, self._marks_due)
            return
        self._apply_marks()

    def _apply_marks(self) -> None:
        """Harvest activity words and redraw the rows whose content changed since the last time,
        a few rows per loop turn (`_draw_marks`)."""
        if self._marks_timer is not None:
            self._marks_timer.cancel()
            self._marks_timer = None
        rows, tails = self.model.take_marks()
        for row in rows:
            self._marks_rows[row.id] = None  # (drawn as the model has it when its turn comes)
        if isinstance(self.screen, GridScreen):
            self.screen.touched(row.id for row in rows)  # (their tiles, if in view)
        for sid, tail in tails.items():
            self.activity.observe(sid, tail)
        self._count_marks()
        if self._marks_turn is None:
            self._draw_marks()

    def _draw_marks(self) -> None:
        """Redraw up to MARK_ROWS_PER_TURN of the rows taken; the next turn does the next ones,
        after whatever the loop has ready (a key, its echo) ran."""
        self._marks_turn = None
        rows = self._marks_rows
        model = self.model.rows
        turn: list[SessionRow] = []
        redrawn = 0  # rows that show nothing new, or are scrolled out of view, cost a comparison
        while rows and redrawn < MARK_ROWS_PER_TURN:
            sid = next(iter(rows))
            del rows[sid]
            if (row := model.get(sid)) is not None:  # (gone meanwhile: nothing to draw)
                redrawn += self.sidebar.shows_new(row)
                turn.append(row)
        self.sidebar.update_rows(turn)  # one write
        if rows:
            self._marks_turn = asyncio.get_running_loop().call_soon(self._draw_marks)

    def _count_marks(self) -> None:
        """The status line's counts of sessions with unseen output and bells, if it shows them."""
        if self.status.shows("unseen") or self.status.shows("bells"):
            self.status.unseen, self.status.bells = self.model.marked()

    # -- focus and size -------------------------------------------------------------------------

    def focus_session(self, sid: str | None) -> None:
        """Show `sid`: its pane if it has one, else in the focused pane (None: no session)."""
        if sid is not None and sid in self.model.rows:
            if self.layout is None:
                self.layout = Layout(sid, self.panes.size.width, self.panes.size.height)
            else:
                self.layout.show(sid)
        elif sid is None:
            self.layout = None
        self._focus_changed()

    def _focus_changed(self) -> None:
        """The layout's focus (or its panes) changed: tell the model, the widgets, the server."""
        layout = self.layout
        sid = layout.focus if layout is not None else None
        if self.copy is not None and self.copy.target != sid:
            self.copy.close()
        changes = self.model.focus(sid)
        self._main.show_banner(sid is None)
        changes.screens -= self._place_panes()  # a screen it just showed is drawn already
        if sid is None:
            self.view.show(None)
        self.sidebar.set_focus(sid)  # the rows are the same: redraw the two whose mark moved
        if not self.view.has_focus:  # (Textual's focus() draws the widget again even so)
            self.view.focus()
        self.status.index = self.model.number(sid)
        self._count_marks()
        self._apply(changes)

    def _place_panes(self) -> set[str]:
        """Lay the panes out from the layout, show each one's screen, and tell the server what
        this view shows and at which sizes (client.view; the server sizes the sessions).
        Returns the sessions whose screen a view was given (and drew) anew."""
        layout = self.layout
        panes = self.panes
        if layout is None:
            panes.clear()
            self.model.show(set())
            return set()
        geometry = layout.geometry()
        before = set(panes.views)
        moved = panes.place(geometry, self._labels(), layout.focus)
        shown = set()
        for box in geometry.panes:
            view = panes.views[box.session]
            if box.session not in before or view.screen_ is None:
                shadow = self.model.shadow(box.session)
                # Written at once where it is (a switch: one write), drawn by Textual where it moves.
                view.show(shadow.screen if shadow is not None else None, paint=not moved)
                shown.add(box.session)
        self.model.show({box.session for box in geometry.panes})
        self._send_view()
        return shown

    def _labels(self) -> dict[str, PaneLabel]:
        labels = {}
        for sid in self.layout.panes() if self.layout is not None else []:
            row = self.model.rows.get(sid)
            if row is None:
                continue
            ended = None
            if row.state != "running":
                ended = row.exit_signal or (f"exit {row.exit_code}" if row.exit_code is not None else "ended")
            labels[sid] = PaneLabel(row.name, ended)
        return labels

    def _send_view(self) -> None:
        """client.view, when what this view shows changed since it was last sent."""
        layout = self.layout
        if layout is None:
            return
        panes = []
        for box in layout.geometry().panes:
            if box.session not in self.model.rows:
                continue
            cols, rows = min(box.content.width, MAX_SIZE), min(box.content.height, MAX_SIZE)
            offer = {"cols": cols, "rows": rows} if cols >= 2 and rows >= 1 else {}
            panes.append({"target": box.session, **offer})
        saved = layout.to_dict()
        # The grid, while it is open, shows every session as a tile: the server then brings them
        # up to date as often as panes (a session no view shows gets a snapshot once a second).
        tiles = list(self.model.rows) if self._grid_open else []
        sent = (tuple((p["target"], p.get("cols"), p.get("rows")) for p in panes), repr(saved), tuple(tiles))
        if sent == self._view_sent or not panes:
            return
        self._view_sent = sent
        focus = layout.focus if any(p["target"] == layout.focus for p in panes) else None
        self.client.send_nowait("client.view", panes=panes, focus=focus, layout=saved, tiles=tiles)

    def _view_size(self) -> dict[str, int]:
        """`cols` and `rows` of the focused pane, once it has been laid out (else nothing)."""
        width, height = self.view.size.width, self.view.size.height
        return {"cols": min(width, MAX_SIZE), "rows": min(height, MAX_SIZE)} if width >= 2 and height >= 1 else {}

    def on_terminal_view_resized(self, message: TerminalView.Resized) -> None:
        if self.copy is not None and self._copy_view is not None:
            self.copy.resize(self._copy_view.size.height)

    def on_pane_area_resized(self, message: PaneArea.Resized) -> None:
        # The panes are laid out again and offer their new sizes; the server decides (and says
        # `session.resized`, which resyncs the shadows).
        if self.layout is not None:
            self.layout.resize_area(message.width, message.height)
            self._place_panes()

    def on_pane_area_clicked(self, message: PaneArea.Clicked) -> None:
        if self.layout is not None and message.session in self.layout:
            self.layout.focus_pane(message.session)
            self._focus_changed()

    def on_pane_area_dragged(self, message: PaneArea.Dragged) -> None:
        layout = self.layout
        border = layout.border_now(message.border) if layout is not None else None
        if layout is not None and border is not None:
            if layout.move_border(border, message.position - border_position(border)):
                self._place_panes()

    def _panes_gone(self, gone: set[str]) -> None:
        """Sessions went (killed, closed elsewhere): their panes close, the last one excepted
        (the focus moves on in it, _focus_after_exit)."""
        layout = self.layout
        assert layout is not None
        changed = False
        for sid in gone:
            if sid in layout and len(layout) > 1:
                layout.close(sid)
                changed = True
        if changed:
            self._focus_changed()

    def _pane_rows_changed(self, rows: set[str]) -> None:
        """Sessions that ended or were renamed: their panes' titles say so, and an ended one's pane
        closes when the config says so (exited_pane)."""
        layout = self.layout
        assert layout is not None
        if not any(sid in layout for sid in rows):
            return
        ended = [sid for sid in rows if sid in layout and not self.model.running(sid)]
        if ended and self.config.exited_pane == "close" and len(layout) > 1:
            for sid in ended:
                if len(layout) > 1:
                    layout.close(sid)
            self._focus_changed()
            return
        self.panes.place(layout.geometry(), self._labels(), layout.focus)

    # -- input ----------------------------------------------------------------------------------

    def input_from_driver(self, message: Message) -> None:
        """Keys and pastes from the driver, on the loop, ahead of Textual's queue
        (TermuxDriver calls it)."""
        if not (self._passthrough() and self._routed(message)):
            self.post_message(message)

    def input_text(self, data: bytes) -> bool:
        """Printable ASCII as the driver read it: sent to the focused session as it is when each
        key of it would be (`route_key` sends a printable key as its character), nothing else
        being on: no modal screen, no copy mode, the prefix not armed nor among the bytes, a
        running session focused. False: nothing was done, the driver parses it into keys."""
        router, model = self.router, self.model
        if (
            not router.ready
            or router.pending
            or self.copy is not None
            or router.prefix in data
            or not self._passthrough()
            or not model.running(model.focused)
        ):
            return False
        self.send_bytes(data)
        return True

    def _passthrough(self) -> bool:
        return bool(self.screen_stack) and self.screen is self._main

    def _routed(self, message: Message) -> bool:
        """Whether `message` was a key or a paste, now routed (`route_key`, `route_paste`)."""
        if isinstance(message, events.Key):
            self.route_key(message)
            return True
        if isinstance(message, events.Paste):
            self.route_paste(message.text)
            return True
        return False

    async def on_event(self, event: events.Event) -> None:
        # Keys that came through Textual's queue (tests, or while the app starts): same routing.
        if not (self._passthrough() and not event.is_forwarded and self._routed(event)):
            await super().on_event(event)

    def route_key(self, event: events.Key) -> None:
        """Every key while no modal screen is open: the router says where it goes."""
        model = self.model
        if self.copy is not None and not self.router.takes(event.key, event.character):
            self.copy.key(event.key, event.character)  # copy mode has every key but the prefix's
            return
        mode = model.mode(model.focused) if model.running(model.focused) else None
        ended_pane = mode is None and self.layout is not None and len(self.layout) > 1
        for route in self.router.key(event.key, event.character, mode, model.any_running(), ended_pane):
            if isinstance(route, Send):
                self.send_bytes(route.data)
            elif isinstance(route, Pending):
                self.status.pending = route.on
            elif isinstance(route, Say):
                self.status.message = route.message
            elif isinstance(route, Run):
                self.run_prefix_action(route.action)

    def route_paste(self, text: str) -> None:
        if self.model.focused is not None:
            self.send_bytes(self.router.paste(text, self.model.mode(self.model.focused)))

    def send_bytes(self, data: bytes) -> None:
        sid = self.model.focused
        if sid is None:
            return
        self.model.pacer.key_sent()
        self.sent.append(data)
        del self.sent[:-64]
        if TRACE.on:  # before the write: the server may stamp its receipt before this process runs again
            TRACE.stamp("tui.sent", sid)
        # Last: the server may be woken on this CPU and wait for what this turn still does.
        self.client.send_nowait("session.send", target=sid, data=data)

    def on_terminal_view_input(self, message: TerminalView.Input) -> None:
        self.send_bytes(message.data)

    def on_terminal_view_scrolled(self, message: TerminalView.Scrolled) -> None:
        shadow = self.model.shadow(self.model.focused)
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
        if copy is not None and message.view is not self._copy_view:
            return  # another pane: the click focuses it, which ends copy mode
        if copy is None:
            sid = next((sid for sid, view in self.panes.views.items() if view is message.view), None)
            if sid is None:
                return
            if message.kind == "down":
                self._mouse_down = (message.y, message.x)
                return
            if message.kind not in ("drag", "word", "line"):
                self._mouse_down = None
                return
            if self.layout is not None and sid != self.layout.focus:
                self.layout.focus_pane(sid)  # a drag in another pane selects there
                self._focus_changed()
            copy = self.open_copy_mode()
            if copy is None:
                return
            if message.kind == "drag" and self._mouse_down is not None:
                copy.mouse("down", *self._mouse_down)
            self._mouse_down = None
        copy.mouse(message.kind, message.y, message.x)

    def on_sidebar_selected(self, message: Sidebar.Selected) -> None:
        self.focus_session(message.session_id)

    # -- prefix actions, dispatched by name -----------------------------------------------------

    def run_prefix_action(self, name: str) -> None:
        """Carry out a binding's action by its name. Its entry in the tables of termux/commands.py
        names the method: `prefix_<name>`, dashes as underscores, or one shared with arguments
        (`select-N` is `prefix_select(N)`)."""
        action = ACTIONS.get(name)
        if action is None:
            self.status.message = f"no action {name}"
        else:
            getattr(self, action.handler)(*action.args)

    def prefix_new(self) -> None:
        self._spawn(self.new_session())

    def prefix_next(self) -> None:
        if (sid := self.model.cycle(1)) is not None:
            self.focus_session(sid)

    def prefix_previous(self) -> None:
        if (sid := self.model.cycle(-1)) is not None:
            self.focus_session(sid)

    def prefix_select(self, n: int) -> None:
        sid = self.model.numbered(n)
        if sid is None:
            self.status.message = f"no session {n}"
        else:
            self.focus_session(sid)

    def prefix_detach(self) -> None:
        self.exit_reason = "detached"
        self.exit("detached")

    def prefix_kill(self) -> None:
        sid = self.model.focused
        if sid is None:
            return
        name = self.model.rows[sid].name

        def done(yes: bool | None) -> None:
            if yes:
                self._spawn(self.client.request("session.kill", target=sid))

        self.push_screen(ConfirmScreen(f"Kill session {name}?"), done)

    def prefix_rename(self) -> None:
        sid = self.model.focused
        if sid is None:
            return

        def done(name: str | None) -> None:
            if name:
                self._spawn(self.client.request("session.rename", target=sid, name=name))  # refusals: _task_done

        self.push_screen(RenameScreen(self.model.rows[sid].name), done)

    def prefix_sidebar(self) -> None:
        self.sidebar.toggle_class("-hidden")  # the pane area's Resized fits the sessions

    def prefix_activity(self) -> None:
        self.activity.toggle_class("-hidden")
        self.model.observe_activity = not self.activity.has_class("-hidden")

    def prefix_copy_mode(self) -> None:
        self.open_copy_mode()

    def prefix_paste_buffer(self) -> None:
        """The newest buffer, bracketed if the program asked for bracketed paste (tmux's -p);
        written at once, so the keys typed after it reach the program after it."""
        if self.model.focused is not None:
            self._spawn(self.client.submit("buffer.paste", target=self.model.focused, bracketed=True))

    def prefix_help(self) -> None:
        self.push_screen(HelpScreen(self.config))

    def prefix_send_prefix(self) -> None:
        self.send_bytes(self.router.prefix)

    def prefix_grid(self) -> None:
        """Every session's screen at once, drawn from the shadows."""

        def screen_of(sid: str) -> Any:
            shadow = self.model.shadow(sid)
            return shadow.screen if shadow is not None else None

        if self._grid is None:
            self._grid = GridScreen(self.model.ordered(), screen_of, self.model.focused, self.view.palette)
            self.install_screen(self._grid, "grid")  # kept, so that opening it again lays out nothing new
        else:
            self._grid.reopen(self.model.ordered(), self.model.focused)
        self.push_screen(self._grid, self._grid_closed)
        self._grid_open = True
        self._send_view()  # (its tiles)

    def _grid_closed(self, sid: str | None) -> None:
        self._grid_open = False
        self._chosen(sid)
        self._send_view()  # (no tiles now)

    def prefix_last(self) -> None:
        last = self.model.last_focus
        if last in self.model.rows:
            self.focus_session(last)
        else:
            self.status.message = "no session was focused before this one"

    def prefix_find(self) -> None:
        self.push_screen(FindScreen(self.model.ordered()), self._chosen)

    def _chosen(self, sid: str | None) -> None:
        """The grid or the finder closed: focus the session chosen, if any."""
        if sid is not None and sid in self.model.rows:
            self.focus_session(sid)

    async def new_session(self, split: Orientation | None = None) -> None:
        """A session in the focused session's current directory (tmux's
        `-c '#{pane_current_path}'`), else in the directory termux was started in: shown in the
        focused pane, or (`split`) in a new pane beside it, at that pane's size."""
        model = self.model
        focused = model.infos.get(model.focused) if model.focused is not None else None
        pid = focused.get("pid") if focused is not None and focused.get("state") == "running" else None
        cwd = (current_directory(pid) if isinstance(pid, int) else None) or start_directory()
        size = self._view_size()
        if split is not None and self.layout is not None:
            size = self._split_size(self.layout, split)
        where = {"cwd": cwd} if cwd else {}
        reply = await self.client.request_as(SessionResult, "session.new", **size, **where)
        sid = reply.session.id
        if sid not in model.infos:
            model.add(reply.session, None)
            self._refresh_sidebar()
        await self._resync(sid)
        layout = self.layout
        if split is not None and layout is not None and sid not in layout:
            try:
                layout.split(sid, split)
            except LayoutError as exc:  # the area changed meanwhile: the session is in the sidebar
                self.status.message = str(exc)
                return
            self._focus_changed()
        else:
            self.focus_session(sid)

    @staticmethod
    def _split_size(layout: Layout, orientation: Orientation) -> dict[str, int]:
        """The size the new pane of a split will have, so that its session starts at it."""
        trial = Layout.from_dict(layout.to_dict(), layout.width, layout.height)
        trial.split("\0new", orientation)
        box = trial.geometry().box("\0new")
        if box is None or box.content.width < 2 or box.content.height < 1:
            return {}
        return {"cols": min(box.content.width, MAX_SIZE), "rows": min(box.content.height, MAX_SIZE)}

    # -- panes ------------------------------------------------------------------------------------

    def _split(self, orientation: Orientation) -> None:
        layout = self.layout
        if layout is None:
            return
        refused = layout.split_refused(orientation)
        if refused is not None:
            self.status.message = refused
            return
        self._spawn(self.new_session(split=orientation))

    def prefix_split_right(self) -> None:
        self._split("h")

    def prefix_split_down(self) -> None:
        self._split("v")

    def _move_focus(self, direction: Direction) -> None:
        if self.layout is not None and self.layout.move_focus(direction) is not None:
            self._focus_changed()

    def prefix_pane_left(self) -> None:
        self._move_focus("left")

    def prefix_pane_right(self) -> None:
        self._move_focus("right")

    def prefix_pane_up(self) -> None:
        self._move_focus("up")

    def prefix_pane_down(self) -> None:
        self._move_focus("down")

    def prefix_next_pane(self) -> None:
        if self.layout is not None and len(self.layout) > 1:
            self.layout.cycle()
            self._focus_changed()

    def prefix_zoom(self) -> None:
        if self.layout is not None:
            self.layout.toggle_zoom()
            self._place_panes()

    def _resize(self, direction: Direction, cells: int) -> None:
        if self.layout is not None and self.layout.resize(direction, cells):
            self._place_panes()

    def prefix_resize_left(self, cells: int) -> None:
        self._resize("left", cells)

    def prefix_resize_right(self, cells: int) -> None:
        self._resize("right", cells)

    def prefix_resize_up(self, cells: int) -> None:
        self._resize("up", cells)

    def prefix_resize_down(self, cells: int) -> None:
        self._resize("down", cells)

    def prefix_break_pane(self) -> None:
        """Close the focused pane; its session keeps running (in the sidebar)."""
        layout = self.layout
        if layout is None or len(layout) < 2:
            self.status.message = "only one pane"
            return
        layout.close(layout.focus)
        self._focus_changed()

    def prefix_dismiss_pane(self) -> None:
        """Close an ended session's pane (the session stays listed until killed)."""
        layout = self.layout
        if layout is not None and len(layout) > 1:
            layout.close(layout.focus)
            self._focus_changed()

    def prefix_next_layout(self) -> None:
        if self.layout is not None and len(self.layout) > 1:
            self.status.message = f"layout {self.layout.next_preset()}"
            self._place_panes()

    # -- copy mode and the clipboard -------------------------------------------------------------

    def open_copy_mode(self, leave_at_bottom: bool = False) -> CopyView | None:
        """Copy mode on the focused session (termux/tui/copyview.py): keys and the mouse go to it
        until it copies or is left; the view draws it once its first page has come."""
        from termux.copymode import key_table  # (not before: the first paint does not need it)
        from termux.tui.copyview import CopyView

        sid = self.model.focused
        if self.copy is not None or sid is None or sid not in self.model.rows:
            return self.copy
        shadow = self.model.shadow(sid)
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
            palette=self.view.palette,
        )
        self.copy = self.view.copy = copy
        self._copy_view = self.view
        self.status.mode = copy.status()
        self._spawn(copy.start(rows))
        return copy

    def _copy_changed(self, lines: bool) -> None:
        if self.copy is not None:
            self.status.mode = self.copy.status()
            if lines and self._copy_view is not None:
                self._copy_view.refresh()

    def _copy_done(self, text: str | None) -> None:
        copy, self.copy = self.copy, None
        view, self._copy_view = self._copy_view, None
        self.status.mode = ""
        if copy is not None and copy.message:
            self.status.message = copy.message
        if view is not None and copy is not None:
            view.copy = None
            shadow = self.model.shadow(copy.target)
            view.show(shadow.screen if shadow is not None else None)
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
        self.status.message = f"copied {len(text)} characters to {buffer.get('name', 'a buffer')}{note}"

    def write_clipboard(self, data: bytes, selection: str = "c") -> None:
        """Set the outer terminal's clipboard (OSC 52, which reaches it over SSH too)."""
        if self.write_to_terminal is not None and len(data) <= MAX_OUTER_BYTES:
            self.write_to_terminal(osc52(data, selection))

    # -- sidebar --------------------------------------------------------------------------------

    def _refresh_sidebar(self) -> None:
        rows = self.model.ordered()
        self.sidebar.set_rows(rows, self.model.focused)
        self.activity.names = {sid: row.name for sid, row in self.model.rows.items()}
        if isinstance(self.screen, GridScreen):
            self.screen.set_rows(rows)
        self.status.sessions = len(rows)
        self.status.index = self.model.number(self.model.focused)
        self._count_marks()

    async def on_unmount(self) -> None:
        for timer in (self._frame_timer, self._marks_timer, self._background_timer, self._pane_timer, self._marks_turn):
            if timer is not None:
                timer.cancel()
        self._frame_timer = self._marks_timer = self._background_timer = self._pane_timer = self._marks_turn = None
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
