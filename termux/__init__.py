"""termux: a terminal multiplexer where typing never waits."""

__version__ = "0.1.0"
