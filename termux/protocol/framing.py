"""Newline framing with a size limit, sans-I/O: feed bytes, get complete lines back.

Imported by the one-shot CLI: standard library only, nothing heavy (not even typing)."""

from __future__ import annotations

MAX_REQUEST_LINE = 1 << 20  # 1 MiB, newline excluded (docs/protocol.md)
MAX_REPLY_LINE = 64 << 20  # what clients accept from the server


class Oversized:
    """Stands in for a line that went over the limit; its bytes were discarded."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Oversized) and other.size == self.size

    def __hash__(self) -> int:
        return hash(self.size)

    def __repr__(self) -> str:
        return f"Oversized({self.size})"


class LineSplitter:
    """Splits a byte stream into lines of at most `limit` bytes.

    Memory stays bounded: an over-long line is not kept. Its bytes are counted and dropped until
    the next newline, and it comes out as one `Oversized` marker, so the stream stays framed.
    """

    def __init__(self, limit: int = MAX_REQUEST_LINE) -> None:
        self.limit = limit
        self._partial = bytearray()
        self._discarding = 0  # bytes dropped so far of an oversized line, 0 when not discarding

    def feed(self, data: bytes) -> list[bytes | Oversized]:
        out: list[bytes | Oversized] = []
        start = 0
        while True:
            newline = data.find(b"\n", start)
            piece = data[start:] if newline < 0 else data[start:newline]
            if self._discarding:
                self._discarding += len(piece)
            elif len(self._partial) + len(piece) > self.limit:
                self._discarding = len(self._partial) + len(piece)
                self._partial.clear()
            else:
                self._partial += piece
            if newline < 0:
                return out
            if self._discarding:
                out.append(Oversized(self._discarding))
                self._discarding = 0
            else:
                out.append(bytes(self._partial))
                self._partial.clear()
            start = newline + 1

    @property
    def buffered(self) -> int:
        return len(self._partial)
