# Not part of pyte: marks the vendored tests that termux fails on purpose (it follows xterm there).
"""Expected differences between termux and stock pyte 0.8.2 in pyte's own test suite.

Every test that passes for stock pyte passes for termux, except those listed in DELIBERATE with the
xterm behaviour termux follows instead. Run `PYTE_SUITE_TARGET=stock python -m pytest
tests/emulator/pyte_suite` for stock pyte's own pass set (all pass but pyte's one xfail).
"""

from __future__ import annotations

import pytest

from ._target import TARGET

# test node name (without the module) -> why termux differs from stock pyte there
DELIBERATE: dict[str, str] = {}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if TARGET != "termux":
        return
    for item in items:
        reason = DELIBERATE.get(item.name)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
