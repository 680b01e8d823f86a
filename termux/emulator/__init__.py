"""Terminal state: a pyte-compatible Screen and ByteStream (placeholder until the emulator lands)."""

import pyte

from .fast import FastByteStreamMixin, FastScreenBase, FastScreenMixin, FastStreamMixin


class Screen(FastScreenMixin, FastScreenBase):
    """pyte's Screen with termux's fast paths; the emulator work adds scrollback and fidelity."""


class ByteStream(FastByteStreamMixin, pyte.ByteStream):
    """pyte's ByteStream with termux's fast parser."""


class Stream(FastStreamMixin, pyte.Stream):
    """pyte's (str) Stream with termux's fast parser."""


__all__ = ["ByteStream", "Screen", "Stream"]
