"""A screen's dirty lines that also know how the screen scrolled (for a renderer that draws only
what changed, termux/tui/render.py).

pyte's `dirty` is every line a change may have touched since it was last cleared, and a scroll
touches every line: a program printing a line at a time marks the whole screen dirty with each
line, and a renderer then checks every line to find the one that is new. `MovedLines` is that
same set (pyte's tests and the differential tests read it unchanged) plus what the fast screen
tells it as it scrolls the whole screen up: how many lines the content moved (`moved`), and which
lines changed other than by moving (`changed`, numbered as the lines are now). A renderer shifts
what it drew by `moved` and draws `changed` again. A scroll of part of the screen, or any other
change, marks its lines changed, so what `changed` leaves out is only ever content that moved.

Only the TUI's shadow screens use it (termux/tui/feed.py `make_screen`): the server draws nothing.
"""

from __future__ import annotations

from collections.abc import Iterable


class MovedLines(set[int]):
    """pyte's dirty lines, plus `moved` and `changed` since the last `clear`."""

    def __init__(self, lines: Iterable[int] = ()) -> None:
        super().__init__(lines)
        self.moved = 0  # lines the whole screen's content scrolled up
        self.changed: set[int] = set(self)  # lines whose content changed but by that scroll

    def add(self, line: int) -> None:
        set.add(self, line)
        self.changed.add(line)

    def update(self, *lines: Iterable[int]) -> None:
        for some in lines:
            some = list(some)
            set.update(self, some)
            self.changed.update(some)

    def clear(self) -> None:
        set.clear(self)
        self.moved = 0
        self.changed.clear()

    def scrolled(self, count: int, first_new: int, lines: int) -> None:
        """The content of all `lines` of the screen moved up `count` lines, and the lines from
        `first_new` to the bottom show new content. pyte counts every line dirty."""
        changed = self.changed
        if changed:
            changed = self.changed = {y - count for y in changed if y >= count}
        changed.update(range(max(0, first_new), lines))
        self.moved += count
        set.update(self, range(lines))
