"""Event commands: `events.read` (with long poll), `events.stream` (push), `session.wait`.

The log is sans-I/O (termux/server/events.py); the loop-side glue is termux/server/event_io.py.
Nothing here polls: a waiting request wakes on a committed event or on parsed output, and the
only timer is the deadline the request itself asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.event_types import MAX_WAIT_MS, MAX_WAIT_SECONDS, SESSION_CLOSED, SESSION_EXITED
from termux.protocol.messages import Args, Target
from termux.protocol.results import EventsPage, StreamStart, WaitExit, WaitMatch, WaitQuiet
from termux.server.event_io import EventStream
from termux.server.events import (
    DEFAULT_READ_LIMIT,
    MAX_READ_LIMIT,
    ActivityTracker,
    EventFilter,
    EventLog,
    ReadResult,
    Subscriber,
    parse_cursor,
    parse_types,
)
from termux.server.handlers import Context
from termux.server.matcher import Pattern, ScreenWatch, compile_pattern

if TYPE_CHECKING:
    from termux.server.server import Server
    from termux.server.session import Session

WaitResult = WaitExit | WaitMatch | WaitQuiet

# -- arguments -----------------------------------------------------------------------------------

Types = list[str] | str | None
WaitMs = Annotated[int, msgspec.Meta(ge=0, le=MAX_WAIT_MS)]
Limit = Annotated[int, msgspec.Meta(ge=1, le=MAX_READ_LIMIT)]
Seconds = Annotated[float, msgspec.Meta(gt=0, le=MAX_WAIT_SECONDS)]


class EventsReadArgs(Args):
    # `Any`, checked by parse_cursor, so a malformed cursor gets `bad_cursor` rather than `bad_args`.
    cursor: Any = None
    limit: Limit = DEFAULT_READ_LIMIT
    types: Types = None
    session: Target | None = None
    wait_ms: WaitMs = 0


class EventsStreamArgs(Args):
    cursor: Any = None
    types: Types = None
    session: Target | None = None


class WaitArgs(Args):
    target: Target
    exit: bool = False
    match: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)] | None = None
    quiet: Seconds | None = None
    timeout: Seconds | None = None


def _filter(server: Server, types: Types, session: str | None) -> EventFilter:
    session_id = None
    if session is not None:
        try:
            session_id = server.find(session).id
        except ProtocolError:
            if not session.startswith("%"):
                raise
            session_id = session  # a closed session's id: its past events are still in the log
    return EventFilter(parse_types(types), session_id)


def _page(result: ReadResult) -> EventsPage[msgspec.Raw]:
    return EventsPage([e.raw for e in result.events], result.cursor, result.more)


# -- events.read ---------------------------------------------------------------------------------


def events_read(ctx: Context, args: EventsReadArgs) -> Any:
    log = ctx.server.events
    filter = _filter(ctx.server, args.types, args.session)
    result = log.read(parse_cursor(args.cursor), args.limit, filter)
    if result.events or args.wait_ms == 0:
        return _page(result)
    # Long poll: a one-shot subscriber wakes us on the first matching commit; the only timer is
    # this request's own deadline.
    # Everything is armed here, synchronously: a commit that lands before the coroutine's first
    # step still wakes it.
    waiter = log.waiter(result.cursor, filter)
    woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not woken.done():
            woken.set_result(None)

    waiter.on_ready = wake
    return _long_poll(log, waiter, woken, result.cursor, args.limit, filter, args.wait_ms / 1000)


async def _long_poll(
    log: EventLog,
    waiter: Subscriber,
    woken: asyncio.Future[None],
    cursor: int,
    limit: int,
    filter: EventFilter,
    timeout: float,
) -> EventsPage[msgspec.Raw]:
    try:
        await asyncio.wait_for(woken, timeout)
    except TimeoutError:
        pass
    finally:
        waiter.close()
    return _page(log.read(cursor, limit, filter))


# -- events.stream -------------------------------------------------------------------------------


def events_stream(ctx: Context, args: EventsStreamArgs) -> StreamStart[msgspec.Raw]:
    conn = ctx.conn
    if conn.stream is not None:
        raise ProtocolError(ErrorCode.BUSY, "this connection already has an event stream")
    if conn.attached:
        raise ProtocolError(ErrorCode.BUSY, "this connection is attached: it already gets every event")
    filter = _filter(ctx.server, args.types, args.session)
    # Subscribe before replay: the subscriber is registered first, so whatever is committed after
    # the backlog's cursor lands in its queue and is written after this reply, exactly once.
    sub, backlog = ctx.server.events.subscribe(parse_cursor(args.cursor), filter)
    conn.stream = EventStream(conn, sub)
    return StreamStart([e.raw for e in backlog.events], backlog.cursor, backlog.more, in_sync=True)


# -- session.wait --------------------------------------------------------------------------------


def _no_match(session: Session) -> ProtocolError:
    return ProtocolError(ErrorCode.NOT_RUNNING, f"session {session.name!r} exited without a match")


def _exit_result(session: Session) -> WaitExit:
    return WaitExit(session.info(), session.exit_code, session.exit_signal)


def session_wait(ctx: Context, args: WaitArgs) -> Any:
    session = ctx.server.find(args.target)
    if sum((args.exit, args.match is not None, args.quiet is not None)) != 1:
        raise ProtocolError(ErrorCode.BAD_ARGS, "give exactly one of `exit`, `match` or `quiet`")
    pattern = compile_pattern(args.match) if args.match is not None else None
    if args.exit and session.state == "exited":
        return _exit_result(session)
    done, cleanups = _arm_wait(ctx.server, session, args, pattern)
    return _finish_wait(done, cleanups, args.timeout, session.name)


def _arm_wait(
    server: Server, session: Session, args: WaitArgs, pattern: Pattern | None
) -> tuple[asyncio.Future[WaitResult], list[Callable[[], None]]]:
    """Register every trigger now, synchronously, so nothing between this request and the
    coroutine's first step is missed: the end of the session, its output, the quiet timer."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[WaitResult] = loop.create_future()
    cleanups: list[Callable[[], None]] = []

    def finish(result: WaitResult | ProtocolError) -> None:
        if done.done():
            return
        if isinstance(result, ProtocolError):
            done.set_exception(result)
        else:
            done.set_result(result)

    # The end of the session ends every kind of wait; it arrives as a pushed event, not a poll.
    ended = server.events.waiter(
        server.events.cursor, EventFilter(frozenset({SESSION_EXITED, SESSION_CLOSED}), session.id)
    )
    cleanups.append(ended.close)

    watch: ScreenWatch | None = None
    if pattern is not None:
        # The screen first, then each batch of output lines and the screen again, one match in
        # flight at a time, on the match worker (termux/server/matcher.py).
        watch = ScreenWatch(
            server.matcher,
            pattern,
            screen=session.screen_text,
            found=lambda where, text: finish(WaitMatch(session.info(), text, where)),
            ended=lambda: finish(_no_match(session)),
        )
        cleanups.append(watch.close)
        cleanups.append(server.activity.watch(session.id, watch.output))
        if session.state == "exited":
            watch.session_ended()
        else:
            watch.start()

    def on_end() -> None:
        if args.exit:
            finish(_exit_result(session))
        elif watch is not None:
            watch.session_ended()  # one last look at the screen, then not_running
        # --quiet: an ended session prints nothing more; its quiet deadline still decides.

    ended.on_ready = on_end

    if args.quiet is not None:
        # Quiet counts from the later of the last output and the start of the wait. One timer,
        # re-armed lazily: output only moves the deadline; the timer checks it when it fires.
        seconds = args.quiet
        quiet = ActivityTracker(seconds)
        quiet.output(session.id, loop.time())
        timer: list[asyncio.TimerHandle] = []

        def arm() -> None:
            deadline = quiet.next_deadline()
            assert deadline is not None
            timer[:] = [loop.call_at(deadline, fire, deadline)]

        def fire(deadline: float) -> None:
            if quiet.expire(max(loop.time(), deadline)):
                finish(WaitQuiet(session.info(), seconds))
            else:
                arm()

        arm()

        def on_quiet_output(chunk: bytes) -> None:
            quiet.output(session.id, loop.time())

        cleanups.append(server.activity.watch(session.id, on_quiet_output))
        cleanups.append(lambda: timer[0].cancel())

    return done, cleanups


async def _finish_wait(
    done: asyncio.Future[WaitResult], cleanups: list[Callable[[], None]], timeout: float | None, name: str
) -> WaitResult:
    try:
        return await asyncio.wait_for(done, timeout)
    except TimeoutError:
        raise ProtocolError(ErrorCode.TIMEOUT, f"timed out after {timeout:g}s waiting for session {name!r}") from None
    finally:
        for cleanup in cleanups:
            cleanup()
