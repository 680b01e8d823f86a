"""Named layouts in config.toml: parsed, checked with the line, built into a layout tree, and
opened against a real server (sessions created as the layout says, named ones reused)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from termux.client import AsyncClient
from termux.tui.config import ConfigError, load_config
from termux.tui.layout import Split
from termux.tui.layouts import LayoutSpec, LayoutSpecError, PaneSpec, SplitSpec, build, open_layout, parse_layout
from tests.conftest import RunningServer

# The example of docs/tui.md, as it is there.
DOC = Path(__file__).parents[2] / "docs" / "tui.md"


def doc_example() -> str:
    text = DOC.read_text()
    match = re.search(r"```toml\n(\[layouts\.dev\].*?)```", text, re.S)
    assert match, "docs/tui.md shows a [layouts.dev] example"
    return match.group(1)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_the_documented_example_parses(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, doc_example()))
    assert set(config.layouts) >= {"dev", "split"}
    dev = config.layouts["dev"]
    assert dev.preset == "main-vertical"
    editor, build_pane, shell = dev.panes()
    assert editor.name == "editor" and editor.focus and editor.command == ["vim", "."]
    assert build_pane.command == ["make", "watch"]  # a string is split into words, no shell
    assert shell.command is None and shell.cwd == str(Path("~/src/app").expanduser())  # the layout's cwd
    split = config.layouts["split"]
    assert isinstance(split.root, SplitSpec) and split.root.orientation == "h"
    assert [c.size for c in split.root.children] == [2, 1]
    assert [p.name for p in split.panes()] == ["left", "top", "bottom"]


def test_a_tree_layout_is_built_with_its_relative_sizes() -> None:
    spec = parse_layout(
        "t",
        {"split": "h", "panes": [{"name": "a", "size": 2}, {"split": "v", "panes": [{"name": "b"}, {"name": "c"}]}]},
    )
    layout = build(spec, ["%0", "%1", "%2"], 91, 24)
    assert layout.panes() == ["%0", "%1", "%2"] and layout.focus == "%0"
    frames = {b.session: b.frame for b in layout.geometry().panes}
    assert frames["%0"].width == 60 and frames["%1"].width == frames["%2"].width == 30
    assert frames["%1"].x == frames["%2"].x == 61 and frames["%2"].y == 12


def test_a_preset_layout_and_its_focus() -> None:
    spec = parse_layout("p", {"preset": "even-vertical", "panes": [{}, {"focus": True}, {}]})
    layout = build(spec, ["%0", "%1", "%2"], 80, 30)
    assert isinstance(layout.root, Split) and layout.root.orientation == "v" and layout.focus == "%1"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"panes": []}, "layouts.x.panes: expected a list of panes"),
        ({"panes": [{"nmae": "a"}]}, "layouts.x.panes[0]: unknown key 'nmae'"),
        ({"split": "diagonal", "panes": [{}, {}]}, 'layouts.x.split: expected "h"'),
        ({"preset": "spiral", "panes": [{}]}, "layouts.x.preset: expected one of"),
        ({"preset": "tiled", "split": "h", "panes": [{}]}, "not both"),
        ({"panes": [{"command": []}]}, "layouts.x.panes[0].command"),
        ({"panes": [{"command": "vim 'unclosed"}]}, "layouts.x.panes[0].command"),
        ({"panes": [{"command": ["ls", 3]}]}, "every argument is a string"),
        ({"panes": [{"name": "%1"}]}, ".name: expected a session name"),
        ({"panes": [{"focus": True}, {"focus": True}]}, "one at most"),
        ({"panes": [{"name": "a"}, {"name": "a"}]}, "same name"),
        ({"panes": [{"size": 0}, {}]}, ".size: expected a relative size"),
        ({"panes": [{"env": {"A": 1}}]}, ".env: expected a table of strings"),
        ({"panes": [{}] * 300}, "at most 256 panes"),
    ],
)
def test_a_malformed_layout_is_refused_saying_where(data: dict[str, object], words: str) -> None:
    with pytest.raises(LayoutSpecError) as caught:
        parse_layout("x", data)
    assert words in str(caught.value)


def test_a_bad_layout_in_the_config_file_names_the_file_and_the_line(tmp_path: Path) -> None:
    text = 'prefix = "C-a"\n\n[layouts.good]\npanes = [{}]\n\n[layouts.bad]\npanes = [{ nmae = "x" }]\n'
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}:6: layouts.bad.panes[0]: unknown key 'nmae'")


def test_deep_nesting_is_bounded() -> None:
    node: dict[str, object] = {"name": "leaf"}
    for n in range(40):
        node = {"split": "h", "panes": [node, {"name": f"p{n}"}]}
    with pytest.raises(LayoutSpecError, match="nest"):
        parse_layout("deep", node)


async def test_opening_a_layout_creates_its_sessions_and_reuses_named_ones(
    server: RunningServer, tmp_path: Path
) -> None:
    with server.client() as c:
        existing = c.request("session.new", name="shell", command=["/bin/cat"])["session"]["id"]
    spec = LayoutSpec(
        "dev",
        SplitSpec(
            "h",
            [
                PaneSpec(name="build", command=["/bin/sh", "-c", "pwd; echo $MODE; exec cat"], cwd=str(tmp_path),
                         env={"MODE": "watching"}),
                PaneSpec(name="shell"),
                PaneSpec(command=["/bin/cat"], focus=True),
            ],
        ),
    )  # fmt: skip
    client = await AsyncClient.connect(server.path, autostart=False)
    try:
        layout = await open_layout(client, spec, 100, 30)
        sessions = {s["id"]: s for s in (await client.request("session.list"))["sessions"]}
    finally:
        await client.close()
    build_id, shell_id, unnamed = layout.panes()
    assert shell_id == existing and len(sessions) == 3  # the named session was shown, not made again
    assert sessions[build_id]["name"] == "build" and sessions[build_id]["cwd"] == str(tmp_path)
    assert sessions[unnamed]["command"] == ["/bin/cat"] and layout.focus == unnamed
    from tests.conftest import wait_for_screen

    wait_for_screen(server.path, build_id, "watching")
    with server.client() as c:
        assert c.request("session.capture", target=build_id)["lines"][0] == str(tmp_path)


def test_attach_with_an_unknown_layout_says_which_there_are(termux_env: dict[str, str], tmp_path: Path) -> None:
    from tests.conftest import run_cli

    (tmp_path / "termux").mkdir()
    write(tmp_path / "termux", "[layouts.dev]\npanes = [{}]\n[layouts.ops]\npanes = [{}]\n")
    done = run_cli({**termux_env, "XDG_CONFIG_HOME": str(tmp_path)}, "attach", "--layout", "nope")
    assert done.returncode == 1
    assert done.stderr.strip() == f"termux: no layout named 'nope' in {tmp_path}/termux/config.toml (layouts: dev, ops)"
