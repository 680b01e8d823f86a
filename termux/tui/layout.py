"""The panes of a TUI: a layout tree, its geometry, and what a person does to it (pure: no Textual).

A layout divides the terminal area into panes, each showing one session (a session is in at most
one pane). The tree's inner nodes are splits: `h` puts its children side by side (left to right,
tmux's `split-window -h`, prefix `%`), `v` stacks them (top to bottom, prefix `"`). Each child of a
split has a weight; its size is its share of the split's room by weight, never below its minimum.
An explicit change (a split, a resize, a drag, a preset) sets the weights of the splits it touches
to their children's sizes in cells, so the geometry reproduces them exactly at the same area and
scales them in proportion when the area changes (shrinking and growing back restores them).

Borders are one cell, as in tmux with `pane-border-status top`: while more than one pane is on
screen every pane has a title row on top (the session's name, the focused pane marked), and the
children of an `h` split are separated by a one-column line. The title row of a lower pane is the
border between it and the pane above; dragging it, or a separator column, resizes.

The focused pane can be zoomed to the whole area (no title row) and back. An area too small for
every pane at its minimum shows the focused pane alone, as if zoomed, until it is large enough.

Focus by direction follows tmux: the panes whose edge touches the focused pane's edge on that side
and that overlap it along it; of several, the one focused most recently; at the area's edge it
wraps around to the panes on the opposite edge.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

Orientation = Literal["h", "v"]
Direction = Literal["left", "right", "up", "down"]
ORIENTATIONS: tuple[Orientation, ...] = ("h", "v")

MIN_COLS = 2  # a pane's content: the protocol's smallest session
MIN_ROWS = 1
TITLE = 1  # a pane's title row, shown while more than one pane is on screen
SEPARATOR = 1  # the column between side-by-side panes

PRESETS = ("even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled")
MAIN_PANE_WIDTH = 80  # tmux's main-pane-width: the first pane's width in main-vertical
MAIN_PANE_HEIGHT = 24  # tmux's main-pane-height: the first pane's height in main-horizontal
# A saved layout is read back from the config file or the server: its size is bounded.
MAX_PANES = 256
MAX_DEPTH = 32


class LayoutError(Exception):
    """An operation the layout cannot do (no room, no such pane) or a malformed saved layout."""


@dataclass(frozen=True, slots=True)
class Rect:
    x: int
    y: int
    width: int
    height: int

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height


@dataclass(eq=False)
class Pane:
    session: str


@dataclass(eq=False)
class Split:
    orientation: Orientation
    children: list[Node]
    weights: list[int]


Node = Pane | Split


@dataclass(frozen=True, slots=True)
class PaneBox:
    """Where one pane is: `frame` is all of it, `content` where its session's screen is drawn (the
    size the session is offered), `title` its title row (None while it is alone on screen)."""

    session: str
    frame: Rect
    content: Rect
    title: Rect | None


@dataclass(frozen=True, slots=True)
class Border:
    """The border between children `index` and `index + 1` of `split`: a separator column for an
    `h` split, the title row of the lower child for a `v` one."""

    split: Split
    index: int
    rect: Rect

    @property
    def orientation(self) -> Orientation:
        return self.split.orientation


@dataclass(frozen=True)
class Geometry:
    panes: list[PaneBox]
    borders: list[Border]
    alone: bool  # one pane fills the area (a single pane, zoomed, or an area too small)

    def box(self, session: str) -> PaneBox | None:
        return next((b for b in self.panes if b.session == session), None)


def _share(room: int, weights: list[int], minimums: list[int]) -> list[int]:
    """`room` cells divided by weight (largest remainders first, ties to the earlier child), no
    child below its minimum: children that would be are pinned at it and the rest divided again.
    The caller makes sure `room` holds every minimum."""
    sizes = [0] * len(weights)
    free = list(range(len(weights)))
    while free:
        total = sum(max(weights[i], 1) for i in free)
        exact = [room * max(weights[i], 1) / total for i in free]
        shares = [int(e) for e in exact]
        left = room - sum(shares)
        for k in sorted(range(len(free)), key=lambda k: shares[k] - exact[k])[:left]:
            shares[k] += 1
        pinned = [i for i, s in zip(free, shares, strict=True) if s < minimums[i]]
        if not pinned:
            for i, s in zip(free, shares, strict=True):
                sizes[i] = s
            return sizes
        for i in pinned:
            sizes[i] = minimums[i]
            room -= minimums[i]
        free = [i for i in free if i not in pinned]
    return sizes


def _minimum(node: Node, titles: bool) -> tuple[int, int]:
    """The smallest (width, height) `node` can be laid out in."""
    if isinstance(node, Pane):
        return MIN_COLS, MIN_ROWS + (TITLE if titles else 0)
    sizes = [_minimum(child, titles) for child in node.children]
    if node.orientation == "h":
        return sum(w for w, _ in sizes) + SEPARATOR * (len(sizes) - 1), max(h for _, h in sizes)
    return max(w for w, _ in sizes), sum(h for _, h in sizes)


def _room(split: Split, rect: Rect) -> int:
    """The cells a split divides among its children (its extent less the separators)."""
    if split.orientation == "h":
        return rect.width - SEPARATOR * (len(split.children) - 1)
    return rect.height


def _child_rects(split: Split, rect: Rect, titles: bool) -> list[Rect]:
    along = [(_minimum(c, titles)[0] if split.orientation == "h" else _minimum(c, titles)[1]) for c in split.children]
    sizes = _share(_room(split, rect), split.weights, along)
    rects = []
    at = rect.x if split.orientation == "h" else rect.y
    for size in sizes:
        if split.orientation == "h":
            rects.append(Rect(at, rect.y, size, rect.height))
            at += size + SEPARATOR
        else:
            rects.append(Rect(rect.x, at, rect.width, size))
            at += size
    return rects


class Layout:
    """The panes of one TUI over an area of `width` × `height` cells, and the focused pane."""

    def __init__(self, session: str, width: int = 80, height: int = 24) -> None:
        self.root: Node = Pane(session)
        self.width = width
        self.height = height
        self.focus = session
        self.zoomed = False
        self.preset: int | None = None  # the preset applied last (prefix space goes to the next)
        self._stamps: dict[str, int] = {session: 0}  # when each pane was last focused
        self._clock = 0

    # -- reading ---------------------------------------------------------------------------------

    def panes(self) -> list[str]:
        """The sessions shown, in the tree's order (left to right, top to bottom)."""
        return [pane.session for pane in self._leaves(self.root)]

    def __contains__(self, session: object) -> bool:
        return session in self._stamps

    def __len__(self) -> int:
        return len(self._stamps)

    def _leaves(self, node: Node) -> Iterator[Pane]:
        if isinstance(node, Pane):
            yield node
        else:
            for child in node.children:
                yield from self._leaves(child)

    def fits(self) -> bool:
        """Every pane fits the area at its minimum size."""
        width, height = _minimum(self.root, titles=isinstance(self.root, Split))
        return width <= self.width and height <= self.height

    def geometry(self) -> Geometry:
        area = Rect(0, 0, self.width, self.height)
        if isinstance(self.root, Pane) or self.zoomed or not self.fits():
            return Geometry([PaneBox(self.focus, area, area, None)], [], alone=True)
        panes: list[PaneBox] = []
        borders: list[Border] = []
        self._place(self.root, area, panes, borders)
        return Geometry(panes, borders, alone=False)

    def _place(self, node: Node, rect: Rect, panes: list[PaneBox], borders: list[Border]) -> None:
        if isinstance(node, Pane):
            title = Rect(rect.x, rect.y, rect.width, TITLE)
            content = Rect(rect.x, rect.y + TITLE, rect.width, rect.height - TITLE)
            panes.append(PaneBox(node.session, rect, content, title))
            return
        rects = _child_rects(node, rect, titles=True)
        for index, (child, child_rect) in enumerate(zip(node.children, rects, strict=True)):
            self._place(child, child_rect, panes, borders)
            if index + 1 < len(rects):
                if node.orientation == "h":
                    line = Rect(child_rect.x + child_rect.width, rect.y, SEPARATOR, rect.height)
                else:
                    line = Rect(rect.x, rects[index + 1].y, rect.width, TITLE)
                borders.append(Border(node, index, line))

    def border_now(self, border: Border) -> Border | None:
        """Where `border` (of an earlier geometry) is now, if its split still has it."""
        return next(
            (b for b in self.geometry().borders if b.split is border.split and b.index == border.index), None
        )

    def border_at(self, x: int, y: int) -> Border | None:
        """The border under a cell: a separator column, or the title row of a lower pane (a click
        there focuses the pane; a drag moves the border)."""
        return next((b for b in self.geometry().borders if b.rect.contains(x, y)), None)

    # -- focus -----------------------------------------------------------------------------------

    def focus_pane(self, session: str) -> None:
        if session not in self._stamps:
            raise LayoutError(f"no pane shows {session}")
        if session != self.focus:
            self.zoomed = False
        self.focus = session
        self._clock += 1
        self._stamps[session] = self._clock

    def neighbour(self, direction: Direction) -> str | None:
        """The pane beside the focused one in `direction` (tmux's rule, see the module's doc)."""
        boxes = self._unzoomed_boxes()
        here = next((b.frame for b in boxes if b.session == self.focus), None)
        if here is None or len(boxes) < 2:
            return None
        candidates = [b for b in boxes if b.session != self.focus and self._adjacent(here, b.frame, direction)]
        if not candidates:
            candidates = [b for b in boxes if b.session != self.focus and self._wraps(here, b.frame, direction)]
        if not candidates:
            return None
        return max(candidates, key=lambda b: self._stamps[b.session]).session

    def _unzoomed_boxes(self) -> list[PaneBox]:
        if isinstance(self.root, Pane) or not self.fits():
            return []
        panes: list[PaneBox] = []
        self._place(self.root, Rect(0, 0, self.width, self.height), panes, [])
        return panes

    @staticmethod
    def _overlap(a_start: int, a_size: int, b_start: int, b_size: int) -> bool:
        return a_start < b_start + b_size and b_start < a_start + a_size

    def _adjacent(self, here: Rect, other: Rect, direction: Direction) -> bool:
        if direction == "left":
            edge = other.x + other.width + SEPARATOR == here.x
        elif direction == "right":
            edge = here.x + here.width + SEPARATOR == other.x
        elif direction == "up":
            edge = other.y + other.height == here.y
        else:
            edge = here.y + here.height == other.y
        return edge and self._along(here, other, direction)

    def _wraps(self, here: Rect, other: Rect, direction: Direction) -> bool:
        if direction == "left":
            edge = here.x == 0 and other.x + other.width == self.width
        elif direction == "right":
            edge = here.x + here.width == self.width and other.x == 0
        elif direction == "up":
            edge = here.y == 0 and other.y + other.height == self.height
        else:
            edge = here.y + here.height == self.height and other.y == 0
        return edge and self._along(here, other, direction)

    def _along(self, here: Rect, other: Rect, direction: Direction) -> bool:
        if direction in ("left", "right"):
            return self._overlap(here.y, here.height, other.y, other.height)
        return self._overlap(here.x, here.width, other.x, other.width)

    def move_focus(self, direction: Direction) -> str | None:
        """Focus the pane in `direction`; returns it (None: there is none, nothing changes)."""
        target = self.neighbour(direction)
        if target is not None:
            self.focus_pane(target)
        return target

    def cycle(self, step: int = 1) -> str:
        """Focus the next pane in the tree's order (`step` -1: the previous), wrapping."""
        order = self.panes()
        target = order[(order.index(self.focus) + step) % len(order)]
        self.focus_pane(target)
        return target

    def toggle_zoom(self) -> bool:
        """Zoom the focused pane to the whole area, or back; a lone pane does not zoom."""
        self.zoomed = not self.zoomed and isinstance(self.root, Split)
        return self.zoomed

    # -- structure -------------------------------------------------------------------------------

    def _parent(self, target: Node) -> tuple[Split, int] | None:
        stack: list[Node] = [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node, Split):
                for index, child in enumerate(node.children):
                    if child is target:
                        return node, index
                    stack.append(child)
        return None

    def _leaf(self, session: str) -> Pane:
        leaf = next((p for p in self._leaves(self.root) if p.session == session), None)
        if leaf is None:
            raise LayoutError(f"no pane shows {session}")
        return leaf

    def _rect_of(self, target: Node) -> Rect:
        """Where `target` is laid out (titles on: structural changes happen with several panes)."""
        rect = Rect(0, 0, self.width, self.height)
        path: list[tuple[Split, int]] = []
        node = target
        while (found := self._parent(node)) is not None:
            path.append(found)
            node = found[0]
        for split, index in reversed(path):
            rect = _child_rects(split, rect, titles=True)[index]
        return rect

    def _freeze(self, split: Split) -> list[int]:
        """Set `split`'s weights to its children's sizes in cells now (and return them)."""
        rect = self._rect_of(split)
        rects = _child_rects(split, rect, titles=True)
        split.weights = [r.width if split.orientation == "h" else r.height for r in rects]
        return split.weights

    def split_refused(self, orientation: Orientation) -> str | None:
        """Why the focused pane cannot be split that way now (None: it can): it must hold two
        panes at their minimum."""
        if len(self._stamps) >= MAX_PANES:
            return f"at most {MAX_PANES} panes"
        if not self.fits():
            return "no space for a new pane"
        rect = self._rect_of(self._leaf(self.focus))
        min_w, min_h = MIN_COLS, MIN_ROWS + TITLE
        if orientation == "h" and (rect.width < 2 * min_w + SEPARATOR or rect.height < min_h):
            return "no space for a new pane"
        if orientation == "v" and (rect.height < 2 * min_h or rect.width < min_w):
            return "no space for a new pane"
        return None

    def split(self, new: str, orientation: Orientation, *, before: bool = False) -> None:
        """Split the focused pane: `new` takes half of it (right of or below it; `before`: left
        of or above) and the focus. Refused when the pane cannot hold two panes at their minimum."""
        if new in self._stamps:
            raise LayoutError(f"{new} is shown in a pane already")
        if (refused := self.split_refused(orientation)) is not None:
            raise LayoutError(refused)
        leaf = self._leaf(self.focus)
        self.zoomed = False
        rect = self._rect_of(leaf)
        room = rect.width - SEPARATOR if orientation == "h" else rect.height
        first = (room + 1) // 2  # the existing pane keeps the larger half, as in tmux
        halves = [first, room - first]
        pair: list[Node] = [Pane(new), leaf] if before else [leaf, Pane(new)]
        if before:
            halves.reverse()
        found = self._parent(leaf)
        if found is not None and found[0].orientation == orientation:
            parent, index = found
            weights = self._freeze(parent)
            parent.children[index : index + 1] = pair
            weights[index : index + 1] = halves
        else:
            if found is not None:
                self._freeze(found[0])
            node = Split(orientation, pair, halves)
            if found is None:
                self.root = node
            else:
                found[0].children[found[1]] = node
        self._stamps[new] = self._clock
        self.focus_pane(new)

    def close(self, session: str) -> str | None:
        """Remove `session`'s pane; the neighbour after it (before it, if it was last) takes its
        space. Returns the pane focused now (the one focused most recently if the focus closed);
        None when it was the only pane (the layout is left as it was: the caller replaces it)."""
        leaf = self._leaf(session)
        found = self._parent(leaf)
        if found is None:
            return None
        parent, index = found
        weights = self._freeze(parent)
        taker = index + 1 if index + 1 < len(parent.children) else index - 1
        weights[taker] += weights[index] + (SEPARATOR if parent.orientation == "h" else 0)
        del parent.children[index]
        del weights[index]
        if len(parent.children) == 1:
            self._collapse(parent)
        del self._stamps[session]
        if self.focus == session:
            self.zoomed = False
            self.focus_pane(max(self._stamps, key=lambda s: self._stamps[s]))
        return self.focus

    def _collapse(self, parent: Split) -> None:
        """`parent` has one child left: the child takes its place (merged into the grandparent when
        it splits the same way, so the tree stays as flat as it looks)."""
        child = parent.children[0]
        found = self._parent(parent)
        if found is None:
            self.root = child
            return
        grand, index = found
        if isinstance(child, Split) and child.orientation == grand.orientation:
            self._freeze(grand)
            inner = self._freeze(child)
            grand.children[index : index + 1] = child.children
            grand.weights[index : index + 1] = inner
        else:
            grand.children[index] = child

    def replace(self, old: str, new: str) -> None:
        """Show `new` in `old`'s pane (the focus stays on the pane if it was there)."""
        if new in self._stamps:
            raise LayoutError(f"{new} is shown in a pane already")
        self._leaf(old).session = new
        self._stamps[new] = self._stamps.pop(old)
        if self.focus == old:
            self.focus = new

    def show(self, session: str) -> None:
        """Focus `session`: its pane if it has one, else it replaces the focused pane's session."""
        if session in self._stamps:
            self.focus_pane(session)
        else:
            self.replace(self.focus, session)

    # -- sizes -----------------------------------------------------------------------------------

    def resize_area(self, width: int, height: int) -> None:
        self.width, self.height = max(width, 0), max(height, 0)

    def move_border(self, border: Border, delta: int) -> int:
        """Move a border `delta` cells (right or down when positive). The children on the side it
        moves towards shrink, the nearest first, none below its minimum; the one on the other side
        grows. Returns how far it moved."""
        split = border.split
        weights = self._freeze(split)
        axis = 0 if split.orientation == "h" else 1
        minimums = [_minimum(c, titles=True)[axis] for c in split.children]
        if delta > 0:
            grower, shrinkers = border.index, range(border.index + 1, len(weights))
        else:
            grower, shrinkers = border.index + 1, range(border.index, -1, -1)
        wanted = abs(delta)
        moved = 0
        for i in shrinkers:
            take = min(wanted - moved, weights[i] - minimums[i])
            if take > 0:
                weights[i] -= take
                moved += take
            if moved == wanted:
                break
        weights[grower] += moved
        return moved if delta > 0 else -moved

    def resize(self, direction: Direction, cells: int = 1) -> int:
        """tmux's resize-pane -L/-R/-U/-D on the focused pane: the nearest split across that axis
        moves the pane's right (bottom) border, or its left (top) one for the last child, `cells`
        in `direction`. Returns how far it moved (0: nothing to resize)."""
        if self.zoomed or not self.fits():
            return 0
        orientation: Orientation = "h" if direction in ("left", "right") else "v"
        node: Node = self._leaf(self.focus)
        while (found := self._parent(node)) is not None:
            split, index = found
            if split.orientation == orientation:
                border_index = index if index + 1 < len(split.children) else index - 1
                delta = cells if direction in ("right", "down") else -cells
                return self.move_border(Border(split, border_index, Rect(0, 0, 0, 0)), delta)
            node = split
        return 0

    # -- presets ---------------------------------------------------------------------------------

    def apply_preset(self, name: str) -> None:
        """Arrange every pane by one of tmux's presets, in the panes' current order (the first is
        the main pane of main-horizontal and main-vertical)."""
        if name not in PRESETS:
            raise LayoutError(f"unknown layout {name!r} (known: {', '.join(PRESETS)})")
        order = self.panes()
        self.zoomed = False
        self.preset = PRESETS.index(name)
        if len(order) < 2:
            return
        leaves: list[Node] = [Pane(s) for s in order]
        if name == "even-horizontal":
            self.root = Split("h", list(leaves), [1] * len(leaves))
        elif name == "even-vertical":
            self.root = Split("v", list(leaves), [1] * len(leaves))
        elif name == "main-vertical":
            self.root = self._main(leaves, "h", MAIN_PANE_WIDTH, self.width - SEPARATOR, MIN_COLS)
        elif name == "main-horizontal":
            self.root = self._main(leaves, "v", MAIN_PANE_HEIGHT + TITLE, self.height, MIN_ROWS + TITLE)
        else:
            self.root = self._tiled(leaves)

    @staticmethod
    def _main(leaves: list[Node], orientation: Orientation, main: int, room: int, minimum: int) -> Split:
        across: Orientation = "v" if orientation == "h" else "h"
        others: Node = leaves[1] if len(leaves) == 2 else Split(across, leaves[1:], [1] * (len(leaves) - 1))
        main = max(minimum, min(main, room - minimum))  # the others keep at least their minimum
        return Split(orientation, [leaves[0], others], [main, max(room - main, 1)])

    @staticmethod
    def _tiled(leaves: list[Node]) -> Split:
        rows = columns = 1
        while rows * columns < len(leaves):
            rows += 1
            if rows * columns < len(leaves):
                columns += 1
        lines: list[Node] = []
        for start in range(0, len(leaves), columns):
            row = leaves[start : start + columns]
            lines.append(row[0] if len(row) == 1 else Split("h", row, [1] * len(row)))
        return Split("v", lines, [1] * len(lines))  # two panes or more make two rows or more

    def next_preset(self) -> str:
        """tmux's next-layout: the preset after the one applied last (the first to begin with)."""
        name = PRESETS[0 if self.preset is None else (self.preset + 1) % len(PRESETS)]
        self.apply_preset(name)
        return name

    # -- saving ----------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form: `from_dict` gives the same panes, weights, focus and zoom back."""
        return {"focus": self.focus, "zoomed": self.zoomed, "root": _node_to_dict(self.root)}

    @classmethod
    def of(cls, root: Node, width: int = 80, height: int = 24) -> Layout:
        """A layout of the tree `root` (each session in one pane), focused on its first pane."""
        layout = cls("", width, height)
        layout.root = root
        sessions = layout.panes()
        if len(set(sessions)) != len(sessions):
            raise LayoutError("a session is in two panes")
        layout._stamps = dict.fromkeys(sessions, 0)
        layout.focus = sessions[0]
        return layout

    @classmethod
    def from_dict(cls, data: Any, width: int = 80, height: int = 24) -> Layout:
        """A layout saved by `to_dict`; LayoutError names what is wrong with a malformed one."""
        if not isinstance(data, dict) or "root" not in data:
            raise LayoutError("a layout is an object with a `root`")
        root = _node_from_dict(data["root"], set(), 0)
        layout = cls.of(root, width, height)
        seen = set(layout.panes())
        focus = data.get("focus")
        layout.focus_pane(focus if isinstance(focus, str) and focus in seen else layout.panes()[0])
        layout.zoomed = bool(data.get("zoomed")) and isinstance(root, Split)
        return layout

    def keep_only(self, sessions: set[str]) -> bool:
        """Close the panes of sessions not in `sessions` (gone while the layout was saved). False
        when none would be left."""
        if not any(s in sessions for s in self._stamps):
            return False
        for session in [s for s in self.panes() if s not in sessions]:
            self.close(session)
        return True


def _node_to_dict(node: Node) -> dict[str, Any]:
    if isinstance(node, Pane):
        return {"session": node.session}
    return {
        "split": node.orientation,
        "children": [_node_to_dict(c) for c in node.children],
        "weights": list(node.weights),
    }


def _node_from_dict(data: Any, seen: set[str], depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise LayoutError(f"a layout nests at most {MAX_DEPTH} splits")
    if not isinstance(data, dict):
        raise LayoutError('a layout node is an object: {"session": …} or {"split": …, "children": […]}')
    if "session" in data:
        session = data["session"]
        if not isinstance(session, str) or not session:
            raise LayoutError("a pane's `session` is a session id")
        if session in seen:
            raise LayoutError(f"{session} is in two panes")
        if len(seen) >= MAX_PANES:
            raise LayoutError(f"at most {MAX_PANES} panes")
        seen.add(session)
        return Pane(session)
    orientation = data.get("split")
    if orientation not in ORIENTATIONS:
        raise LayoutError(f'`split` is "h" (side by side) or "v" (stacked), not {orientation!r}')
    children = data.get("children")
    if not isinstance(children, list) or len(children) < 2:
        raise LayoutError("a split has at least two `children`")
    weights = data.get("weights", [1] * len(children))
    if (
        not isinstance(weights, list)
        or len(weights) != len(children)
        or not all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= 100_000 for w in weights)
    ):
        raise LayoutError("a split's `weights` are one whole number (1–100000) per child")
    nodes = [_node_from_dict(c, seen, depth + 1) for c in children]
    return Split(orientation, nodes, list(weights))


__all__ = [
    "MIN_COLS",
    "MIN_ROWS",
    "PRESETS",
    "Border",
    "Direction",
    "Geometry",
    "Layout",
    "LayoutError",
    "Orientation",
    "Pane",
    "PaneBox",
    "Rect",
    "Split",
]
