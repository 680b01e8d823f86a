"""Terminal state: a pyte-compatible Screen and ByteStream (placeholder until the emulator lands)."""

from __future__ import annotations

import pyte


class Screen(pyte.Screen):
    """pyte's Screen; the emulator work replaces this with termux's own subclass."""

    def __init__(self, columns: int, lines: int, history: int = 10_000) -> None:
        super().__init__(columns, lines)


class ByteStream(pyte.ByteStream):
    """pyte's ByteStream; the emulator work replaces this with termux's own parser."""


def capture(
    screen: Screen, start: int | None = None, end: int | None = None, escapes: bool = False
) -> list[str]:
    return [line.rstrip() for line in screen.display][start or 0 : None if end is None else end + 1]


def snapshot(screen: Screen) -> bytes:
    return ("\x1b[H\x1b[2J" + "\r\n".join(line.rstrip() for line in screen.display)).encode()


def preview(screen: Screen) -> str:
    return next((line.strip() for line in reversed(screen.display) if line.strip()), "")


__all__ = ["ByteStream", "Screen", "capture", "preview", "snapshot"]
