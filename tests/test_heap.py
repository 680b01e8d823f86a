"""termux/heap.py: what is alive at start-up is frozen without a full collection; a process that
worked before frees its garbage first."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from termux.heap import freeze_startup_objects, freeze_survivors


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of each collection that starts meanwhile; the freeze is undone after."""
    started: list[int] = []

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(callback)
    try:
        yield started
    finally:
        gc.callbacks.remove(callback)
        gc.unfreeze()


def garbage_cycle() -> weakref.ref[Node]:
    return weakref.ref(Node())


@pytest.mark.parametrize(("freeze", "collects"), [(freeze_startup_objects, False), (freeze_survivors, True)])
def test_a_start_freezes_what_lives_without_walking_it(
    collections: list[int], freeze: Callable[[], None], collects: bool
) -> None:
    gc.disable()  # (no collection of the young generations between here and the freeze)
    try:
        cycle = garbage_cycle()
        alive = Node()
        freeze()
        assert (2 in collections) is collects
        assert (cycle() is None) is collects  # a start's garbage is frozen with it, a host's is freed
        assert not any(tracked is alive for tracked in gc.get_objects())  # out of the collector's sight
        assert gc.get_freeze_count() > 0
    finally:
        gc.enable()
