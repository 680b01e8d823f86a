# Vendored from pyte 0.8.2 (https://github.com/selectel/pyte), LGPL-3.0: see LICENSE and AUTHORS here.
# Not part of pyte: the switch that points pyte's own tests at termux's classes.
"""`pyte` as the vendored tests see it: pyte with Screen, ByteStream and Stream replaced by termux's.

`PYTE_SUITE_TARGET=stock` runs the same tests against stock pyte, `PYTE_SUITE_TARGET=reference`
against termux's classes without the fast paths (to compare the pass sets).
"""

from __future__ import annotations

import os
import types

import pyte as _pyte

import termux.emulator as _temu
import termux.emulator.screen as _temu_screen
import termux.emulator.stream as _temu_stream

TARGET = os.environ.get("PYTE_SUITE_TARGET", "termux")

pyte = types.ModuleType("pyte")
pyte.__dict__.update({k: v for k, v in vars(_pyte).items() if not k.startswith("__")})
if TARGET in ("termux", "reference"):
    # "reference": termux's classes without the fast paths (termux.emulator.screen / .stream).
    _classes = (
        _temu
        if TARGET == "termux"
        else types.SimpleNamespace(
            Screen=_temu_screen.Screen, ByteStream=_temu_stream.ByteStream, Stream=_temu_stream.Stream
        )
    )
    pyte.Screen = _classes.Screen  # type: ignore[attr-defined]
    pyte.ByteStream = _classes.ByteStream  # type: ignore[attr-defined]
    pyte.Stream = _classes.Stream  # type: ignore[attr-defined]

    class DiffScreen(_classes.Screen):  # type: ignore[misc,name-defined]
        """pyte 0.8's DiffScreen is Screen (its dirty tracking moved into Screen)."""

    pyte.DiffScreen = DiffScreen  # type: ignore[attr-defined]
