"""Terminal state: a pyte-compatible Screen and ByteStream (placeholder until the emulator lands)."""

import pyte


class Screen(pyte.Screen):
    """pyte's Screen; the emulator work replaces this with termux's own subclass."""


class ByteStream(pyte.ByteStream):
    """pyte's ByteStream; the emulator work replaces this with termux's own parser."""


__all__ = ["ByteStream", "Screen"]
