"""Paste-buffer commands: `buffer.list`, `buffer.get`, `buffer.set`, `buffer.delete`,
`buffer.paste`. The store is sans-I/O (termux/server/buffers.py); each change commits an event
(`buffer.changed`, `buffer.deleted`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from termux import keys
from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.events import BufferDeleted, BufferDeletedData
from termux.protocol.messages import Args, NoArgs, SendArgs, Target
from termux.protocol.results import BufferDataResult, BufferResult, BuffersResult
from termux.server.buffers import Buffer, PasteBuffers
from termux.server.handlers import Context, session_send

if TYPE_CHECKING:
    from termux.server.server import Server

# -- arguments -----------------------------------------------------------------------------------


Index = Annotated[int, msgspec.Meta(ge=0)]


class WhichArgs(Args):
    """A buffer by `index` (0, the newest, by default) or by `name`."""

    index: Index | None = None
    name: str | None = None


class SetArgs(Args):
    data: bytes | None = None  # base64 on the wire
    text: str | None = None  # or text, stored as UTF-8
    name: str | None = None
    append: bool = False


class PasteArgs(Args):
    target: Target
    index: Index | None = None
    name: str | None = None
    bracketed: bool = False  # bracket the paste if the program enabled bracketed paste (tmux's -p)
    delete: bool = False  # delete the buffer once pasted (tmux's -d)


# -- commands ------------------------------------------------------------------------------------


def _which(buffers: PasteBuffers, args: WhichArgs | PasteArgs) -> Buffer:
    if args.index is not None and args.name is not None:
        raise ProtocolError(ErrorCode.BAD_ARGS, "give `index` or `name`, not both")
    return buffers.get(args.index, args.name)


def _deleted(server: Server, buffer: Buffer, why: Literal["deleted", "limit"]) -> None:
    server.events.commit(BufferDeleted(data=BufferDeletedData(buffer.name, why)))


def buffer_list(ctx: Context, args: NoArgs) -> BuffersResult:
    return BuffersResult([buffer.info(i) for i, buffer in enumerate(ctx.server.buffers)])


def buffer_get(ctx: Context, args: WhichArgs) -> BufferDataResult:
    buffers = ctx.server.buffers
    buffer = _which(buffers, args)
    return BufferDataResult(buffer.info(buffers.index(buffer)), buffer.data)


def buffer_set(ctx: Context, args: SetArgs) -> BufferResult:
    if (args.data is None) == (args.text is None):
        raise ProtocolError(ErrorCode.BAD_ARGS, "give exactly one of `data` (base64) or `text`")
    if args.data is not None:
        data = args.data
    else:
        assert args.text is not None
        data = args.text.encode()  # JSON text holds no lone surrogates (msgspec refuses them)
    buffer = ctx.server.set_buffer(data, name=args.name, append=args.append)
    return BufferResult(buffer.info(0))


def buffer_delete(ctx: Context, args: WhichArgs) -> BufferResult:
    buffers = ctx.server.buffers
    buffer = _which(buffers, args)
    info = buffer.info(buffers.index(buffer))
    buffers.delete(name=buffer.name)
    _deleted(ctx.server, buffer, "deleted")
    return BufferResult(info)


def buffer_paste(ctx: Context, args: PasteArgs) -> Any:
    """Type a buffer into a session as a paste (keys.encode_paste: line ends as CR, escapes
    dropped, bracketed when asked and the program enabled it), through session.send."""
    buffers = ctx.server.buffers
    buffer = _which(buffers, args)
    session = ctx.server.find(args.target)
    mode = session.screen.mode if args.bracketed else ()
    data = keys.encode_paste(buffer.data.decode("utf-8", "surrogateescape"), mode)
    sent = session_send(ctx, SendArgs(target=session.id, data=data))
    if args.delete:
        buffers.delete(name=buffer.name)
        _deleted(ctx.server, buffer, "deleted")
    return sent
