"""Paste buffers, as tmux's: a bounded list, newest first. Sans-I/O: the server keeps one and its
`buffer.*` commands (termux/server/buffer_commands.py) drive it; the caller passes the clock.

Bounds, and what happens at each (docs/protocol.md, "Paste buffers"):
- At most BUFFER_LIMIT buffers (tmux's `buffer-limit`, 50). One more drops the oldest.
- At most MAX_TOTAL_BYTES in all of them together. A buffer that would pass it drops the oldest
  others until it fits.
- A single buffer holds at most MAX_BUFFER_BYTES: a bigger one (or an append making one) is
  refused with `too_large` and nothing changes.
Unlike tmux, buffers named by the user count towards the limit too (tmux never drops those, so
their number has no bound there).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from termux.protocol.errors import ErrorCode, ProtocolError
from termux.protocol.results import BufferInfo

BUFFER_LIMIT = 50
MAX_BUFFER_BYTES = 8 << 20
MAX_TOTAL_BYTES = 32 << 20
MAX_NAME = 64
SAMPLE_CHARS = 50  # of a buffer's start, in `buffer.list` (tmux shows as many)


@dataclass(frozen=True, slots=True)
class Buffer:
    name: str
    data: bytes
    created: float  # Unix time it was set
    automatic: bool  # named by termux (`bufferN`), not by whoever set it

    def info(self, index: int) -> BufferInfo:
        sample = self.data[: SAMPLE_CHARS * 4].decode("utf-8", "replace")[:SAMPLE_CHARS]
        return BufferInfo(index, self.name, len(self.data), self.created, self.automatic, sample)


class PasteBuffers:
    def __init__(
        self, limit: int = BUFFER_LIMIT, max_total: int = MAX_TOTAL_BYTES, max_buffer: int = MAX_BUFFER_BYTES
    ) -> None:
        self.limit = limit
        self.max_total = max_total
        self.max_buffer = max_buffer
        self._buffers: list[Buffer] = []  # newest first
        self._next = 0  # the number in the next automatic name
        self.total_bytes = 0

    def __len__(self) -> int:
        return len(self._buffers)

    def __iter__(self) -> Iterator[Buffer]:
        return iter(self._buffers)

    def set(
        self, data: bytes, now: float, name: str | None = None, append: bool = False
    ) -> tuple[Buffer, list[Buffer]]:
        """Store `data` as the newest buffer, named `name` (replacing a buffer of that name) or
        `bufferN`; with `append`, after the data of buffer `name` (or of the newest, with no name;
        a new buffer if there is none). Returns the buffer and the ones dropped to make room."""
        if name is not None:
            check_name(name)
        old = None
        if append:
            old = self._find_name(name) if name is not None else (self._buffers[0] if self._buffers else None)
            if old is not None:
                data = old.data + data
                name = old.name
        elif name is not None:
            old = self._find_name(name)
        if len(data) > self.max_buffer:
            raise ProtocolError(
                ErrorCode.TOO_LARGE, f"a paste buffer holds at most {self.max_buffer} bytes, not {len(data)}"
            )
        automatic = name is None or (old is not None and old.automatic)
        if old is not None:
            self._remove(old)
        if name is None:
            name = self._automatic_name()
        buffer = Buffer(name, data, now, automatic)
        self._buffers.insert(0, buffer)
        self.total_bytes += len(data)
        dropped: list[Buffer] = []
        while len(self._buffers) > self.limit or self.total_bytes > self.max_total:
            dropped.append(self._buffers[-1])
            self._remove(self._buffers[-1])
        return buffer, dropped

    def get(self, index: int | None = None, name: str | None = None) -> Buffer:
        """Buffer `index` (0, the newest, by default) or the one named `name`."""
        if name is not None:
            buffer = self._find_name(name)
            if buffer is None:
                raise ProtocolError(ErrorCode.NO_BUFFER, f"no paste buffer named {name!r}")
            return buffer
        index = 0 if index is None else index
        if not self._buffers:
            raise ProtocolError(ErrorCode.NO_BUFFER, "there are no paste buffers")
        if not 0 <= index < len(self._buffers):
            raise ProtocolError(
                ErrorCode.NO_BUFFER, f"no paste buffer {index}: there are {len(self._buffers)} (0 is the newest)"
            )
        return self._buffers[index]

    def index(self, buffer: Buffer) -> int:
        return self._buffers.index(buffer)

    def delete(self, index: int | None = None, name: str | None = None) -> Buffer:
        buffer = self.get(index, name)
        self._remove(buffer)
        return buffer

    def _find_name(self, name: str) -> Buffer | None:
        return next((b for b in self._buffers if b.name == name), None)

    def _remove(self, buffer: Buffer) -> None:
        self._buffers.remove(buffer)
        self.total_bytes -= len(buffer.data)

    def _automatic_name(self) -> str:
        taken = {b.name for b in self._buffers}
        while (name := f"buffer{self._next}") in taken:  # a user may have taken it
            self._next += 1
        self._next += 1
        return name


def check_name(name: str) -> None:
    """Buffer names follow session names' rules: 1-64 characters, no control characters, no
    blanks around them."""
    if not 1 <= len(name) <= MAX_NAME or name != name.strip() or any(ch < " " or ch == "\x7f" for ch in name):
        raise ProtocolError(
            ErrorCode.BAD_ARGS,
            f"invalid buffer name {name!r}: 1-{MAX_NAME} characters, no control characters, no surrounding spaces",
        )
