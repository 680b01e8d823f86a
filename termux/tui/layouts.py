"""Named layouts from the config file, opened with `termux attach --layout NAME` (in the spirit of
tmuxp's and zellij's layout files): the panes, how they are split, and the session each runs.

    [layouts.dev]
    cwd = "~/src/app"                  # every pane's directory unless it names its own
    preset = "main-vertical"           # arrange the panes by one of tmux's presets
    panes = [
      { name = "editor", command = ["vim", "."], focus = true },
      { name = "build", command = "make watch" },
      { name = "shell" },
    ]

    [layouts.split]                    # or split them yourself: "h" side by side, "v" stacked
    split = "h"
    panes = [
      { name = "left", size = 2 },     # sizes are relative weights
      { split = "v", panes = [{ name = "top" }, { name = "bottom", command = ["htop"] }] },
    ]

A pane whose `name` names a session that exists shows it; otherwise the session is created with
the pane's `command` (a list, or a string split as a shell would split words, without running a
shell), `cwd` (`~` expanded) and `env`; the TUI then sizes it to its pane. Parsing is pure;
`open_layout` talks to the server.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from typing import Any

from termux.tui.layout import MAX_DEPTH, MAX_PANES, ORIENTATIONS, PRESETS, Layout, Node, Orientation, Pane, Split


class LayoutSpecError(Exception):
    """A layout in the config file is malformed; the message says where (`layouts.dev.panes[1]`)."""


@dataclass(frozen=True)
class PaneSpec:
    name: str | None = None
    command: list[str] | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    focus: bool = False
    size: int = 1


@dataclass(frozen=True)
class SplitSpec:
    orientation: Orientation
    children: list[PaneSpec | SplitSpec]
    size: int = 1


NodeSpec = PaneSpec | SplitSpec


@dataclass(frozen=True)
class LayoutSpec:
    name: str
    root: NodeSpec
    preset: str | None = None

    def panes(self) -> list[PaneSpec]:
        found: list[PaneSpec] = []
        stack: list[NodeSpec] = [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node, PaneSpec):
                found.append(node)
            else:
                stack.extend(reversed(node.children))
        return found


PANE_KEYS = {"name", "command", "cwd", "env", "focus", "size"}
SPLIT_KEYS = {"split", "panes", "size"}
LAYOUT_KEYS = {"split", "preset", "panes", "cwd"}


def parse_layouts(data: Any) -> dict[str, LayoutSpec]:
    """The `[layouts]` table of the config file: name → spec."""
    if not isinstance(data, dict):
        raise LayoutSpecError("layouts: expected a table of layouts ([layouts.NAME])")
    return {str(name): parse_layout(str(name), value) for name, value in data.items()}


def parse_layout(name: str, data: Any) -> LayoutSpec:
    where = f"layouts.{name}"
    if not isinstance(data, dict):
        raise LayoutSpecError(f"{where}: expected a table with `panes`")
    _known(where, data, LAYOUT_KEYS)
    preset = data.get("preset")
    if preset is not None and preset not in PRESETS:
        raise LayoutSpecError(f"{where}.preset: expected one of {', '.join(PRESETS)}, got {preset!r}")
    if preset is not None and "split" in data:
        raise LayoutSpecError(f"{where}: a `preset` arranges the panes itself: give `split` or `preset`, not both")
    cwd = data.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise LayoutSpecError(f"{where}.cwd: expected a directory, got {cwd!r}")
    count = [0]
    if preset is not None:
        panes = _list(f"{where}.panes", data.get("panes"))
        children: list[NodeSpec] = [_pane(f"{where}.panes[{i}]", p, cwd, count) for i, p in enumerate(panes)]
        if any(isinstance(p, dict) and "split" in p for p in panes):
            raise LayoutSpecError(f"{where}.panes: a preset takes a flat list of panes")
        root: NodeSpec = children[0] if len(children) == 1 else SplitSpec("h", children)
    else:
        root = _node(where, {**data, "split": data.get("split", "h")}, cwd, count, 0, top=True)
    spec = LayoutSpec(name, root, preset)
    focused = [p for p in spec.panes() if p.focus]
    if len(focused) > 1:
        raise LayoutSpecError(f"{where}: `focus = true` on {len(focused)} panes: one at most")
    names = [p.name for p in spec.panes() if p.name is not None]
    if len(names) != len(set(names)):
        raise LayoutSpecError(f"{where}: two panes have the same name (a session is shown in one pane)")
    return spec


def _known(where: str, data: dict[str, Any], keys: set[str]) -> None:
    for key in data:
        if key not in keys:
            raise LayoutSpecError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(keys))})")


def _list(where: str, value: Any) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise LayoutSpecError(f"{where}: expected a list of panes, got {value!r}")
    return value


def _size(where: str, data: dict[str, Any]) -> int:
    size = data.get("size", 1)
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= 1000:
        raise LayoutSpecError(f"{where}.size: expected a relative size from 1 to 1000, got {size!r}")
    return size


def _node(where: str, data: Any, cwd: str | None, count: list[int], depth: int, top: bool = False) -> NodeSpec:
    if not isinstance(data, dict):
        raise LayoutSpecError(f"{where}: expected a pane or a split (a table), got {data!r}")
    if "split" not in data:
        return _pane(where, data, cwd, count)
    if depth >= MAX_DEPTH:
        raise LayoutSpecError(f"{where}: splits nest {MAX_DEPTH} deep at most")
    if not top:
        _known(where, data, SPLIT_KEYS)
    orientation = data["split"]
    if orientation not in ORIENTATIONS:
        raise LayoutSpecError(f'{where}.split: expected "h" (side by side) or "v" (stacked), got {orientation!r}')
    panes = _list(f"{where}.panes", data.get("panes"))
    children = [_node(f"{where}.panes[{i}]", p, cwd, count, depth + 1) for i, p in enumerate(panes)]
    if len(children) == 1:
        return children[0]
    return SplitSpec(orientation, children, 1 if top else _size(where, data))


def _pane(where: str, data: Any, cwd: str | None, count: list[int]) -> PaneSpec:
    if not isinstance(data, dict):
        raise LayoutSpecError(f'{where}: expected a pane (a table such as {{ name = "build" }}), got {data!r}')
    _known(where, data, PANE_KEYS)
    count[0] += 1
    if count[0] > MAX_PANES:
        raise LayoutSpecError(f"{where}: at most {MAX_PANES} panes")
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or not name or name.startswith("%")):
        raise LayoutSpecError(f"{where}.name: expected a session name, got {name!r}")
    command = data.get("command")
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as exc:
            raise LayoutSpecError(f"{where}.command: {exc}") from None
    if command is not None and (
        not isinstance(command, list) or not command or not all(isinstance(a, str) and a for a in command[:1])
    ):
        raise LayoutSpecError(f"{where}.command: expected a program and its arguments, got {data.get('command')!r}")
    if command is not None and not all(isinstance(a, str) for a in command):
        raise LayoutSpecError(f"{where}.command: every argument is a string")
    pane_cwd = data.get("cwd", cwd)
    if pane_cwd is not None and not isinstance(pane_cwd, str):
        raise LayoutSpecError(f"{where}.cwd: expected a directory, got {pane_cwd!r}")
    env = data.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise LayoutSpecError(f"{where}.env: expected a table of strings")
    focus = data.get("focus", False)
    if not isinstance(focus, bool):
        raise LayoutSpecError(f"{where}.focus: expected true or false")
    return PaneSpec(
        name=name,
        command=command,
        cwd=os.path.expanduser(pane_cwd) if pane_cwd else None,
        env={str(k): v for k, v in env.items()},
        focus=focus,
        size=_size(where, data),
    )


def build(spec: LayoutSpec, sessions: list[str], width: int, height: int, preset: bool = True) -> Layout:
    """The layout of `spec` with its panes (in order) showing `sessions`; its preset, if any, is
    applied for the area given (`preset` False: left to the caller, who knows the area)."""
    it = iter(sessions)

    def node(s: NodeSpec) -> Node:
        if isinstance(s, PaneSpec):
            return Pane(next(it))
        return Split(s.orientation, [node(c) for c in s.children], [c.size for c in s.children])

    panes = spec.panes()
    layout = Layout.of(node(spec.root), width, height)
    if spec.preset is not None and preset:
        layout.apply_preset(spec.preset)
    focus = next((sid for sid, p in zip(sessions, panes, strict=True) if p.focus), sessions[0])
    layout.focus_pane(focus)
    return layout


async def open_layout(client: Any, spec: LayoutSpec, width: int = 80, height: int = 24) -> Layout:
    """Create the sessions `spec` asks for (a pane naming an existing session shows it) and lay
    them out (its preset not applied: that needs the area, which the TUI knows once laid out);
    `client` is an AsyncClient."""
    existing = {s["name"]: s["id"] for s in (await client.request("session.list"))["sessions"]}
    panes = spec.panes()
    sessions: list[str] = []
    for pane in panes:
        if pane.name is not None and pane.name in existing:
            sessions.append(existing[pane.name])
            continue
        args: dict[str, Any] = {}
        if pane.name is not None:
            args["name"] = pane.name
        if pane.command is not None:
            args["command"] = pane.command
        if pane.cwd is not None:
            args["cwd"] = pane.cwd
        if pane.env:
            args["env"] = pane.env
        reply = await client.request("session.new", **args)
        sessions.append(reply["session"]["id"])
    return build(spec, sessions, width, height, preset=False)
