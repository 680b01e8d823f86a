# Vendored from pyte 0.8.2 (https://github.com/selectel/pyte), LGPL-3.0: see LICENSE and AUTHORS here.
# Not part of pyte: the switch that points pyte's own tests at termux's classes.
"""`pyte` as the vendored tests see it: pyte with Screen, ByteStream and Stream replaced by termux's.

`PYTE_SUITE_TARGET=stock` runs the same tests against stock pyte (to compare the pass sets).
"""

from __future__ import annotations

import os
import types

import pyte as _pyte

import termux.emulator as _temu

TARGET = os.environ.get("PYTE_SUITE_TARGET", "termux")

pyte = types.ModuleType("pyte")
pyte.__dict__.update({k: v for k, v in vars(_pyte).items() if not k.startswith("__")})
if TARGET == "termux":
    pyte.Screen = _temu.Screen  # type: ignore[attr-defined]
    pyte.ByteStream = _temu.ByteStream  # type: ignore[attr-defined]
    pyte.Stream = getattr(_temu, "Stream", _pyte.Stream)  # type: ignore[attr-defined]

    class DiffScreen(_temu.Screen):  # type: ignore[misc,valid-type]
        """pyte 0.8's DiffScreen is Screen (its dirty tracking moved into Screen)."""

    pyte.DiffScreen = DiffScreen  # type: ignore[attr-defined]
