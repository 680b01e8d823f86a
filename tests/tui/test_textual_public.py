"""termux uses Textual's public API only, except in termux/tui/driver.py (which checks what it uses,
textual_changes): no import of a private Textual module or name, and no access to an attribute
that only Textual defines with a leading underscore. The names are read from Textual's own source."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import textual

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = ROOT / "termux" / "tui" / "driver.py"


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def sources(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py") if p != ALLOWED)


def defined_names(tree: ast.AST) -> set[str]:
    """The private names a module defines: `self._x = …`, `_x = …` (in a class or a module),
    `def _x`, `class _X`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                names.add(node.attr)  # (not `other._x = …`: that writes someone else's)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return {n for n in names if private(n)}


@cache
def textual_private_names() -> frozenset[str]:
    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        names |= defined_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


def private_imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [
                a.name for a in node.names if a.name.startswith("textual.") and any(map(private, a.name.split(".")))
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
            module = node.module or ""
            if any(map(private, module.split("."))):
                found.append(module)
            found += [f"{module}.{a.name}" for a in node.names if private(a.name)]
    return found


def test_no_module_imports_a_private_textual_name() -> None:
    found = {
        str(path.relative_to(ROOT)): names
        for path in sources("termux", "tests", "e2e", "benchmarks")
        if (names := private_imports(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert found == {}


def other_modules(tree: ast.AST) -> set[str]:
    """Names bound by `import x` of a module that is not Textual's (`os._exit` is not Textual's)."""
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.split(".")[0] != "textual"
    }


def textual_private_reads(path: Path, tree: ast.AST, textual_names: frozenset[str], ours: set[str]) -> set[str]:
    modules = other_modules(tree)
    return {
        f"{path.relative_to(ROOT)}:{node.lineno}: {node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in textual_names
        and node.attr not in ours
        and not (isinstance(node.value, ast.Name) and node.value.id in modules)
    }


@cache
def asyncio_private_names() -> frozenset[str]:
    """asyncio's private names: an attribute of the same name is asyncio's as likely as Textual's
    (`loop._selector`); those are issue 15's other half, not this test's."""
    import asyncio

    names: set[str] = set()
    for path in Path(asyncio.__file__).parent.glob("*.py"):
        names |= defined_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


def test_no_code_reads_an_attribute_only_textual_defines_privately() -> None:
    textual_names = textual_private_names()
    assert {"_screen_stack", "_driver", "_timeout_time", "_file", "_refresh_layout"} <= textual_names  # it sees them
    trees = {
        path: ast.parse(path.read_text(encoding="utf-8")) for path in sources("termux", "tests", "e2e", "benchmarks")
    }
    ours = set().union(*(defined_names(tree) for tree in trees.values())) | asyncio_private_names()
    found = set().union(*(textual_private_reads(path, tree, textual_names, ours) for path, tree in trees.items()))
    assert found == set()


def test_the_scan_finds_what_it_looks_for() -> None:
    assert "_refresh_layout" not in defined_names(ast.parse("screen._refresh_layout = f"))  # writing another's
    tree = ast.parse(
        "from textual._xterm_parser import XTermParser\nimport textual._time\nfrom textual.app import _x\n"
    )
    assert private_imports(tree) == ["textual._xterm_parser", "textual._time", "textual.app._x"]
    assert "_screen_stack" not in defined_names(ast.parse("app._screen_stack"))
    code = ast.parse("import os\nos._exit(0)\nself._screen_stack\n")
    assert textual_private_reads(ROOT / "x.py", code, frozenset({"_exit", "_screen_stack"}), set()) == {
        "x.py:3: _screen_stack"
    }


def textual_module_writes(tree: ast.AST) -> list[str]:
    """Assignments to a Textual module's attributes (`textual.screen.UPDATE_PERIOD = …`, a process-
    wide change to a constant Textual reads): `from textual import constants` then `constants.X = …`."""
    bound = {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and ((node.module or "") if isinstance(node, ast.ImportFrom) else "textual").startswith("textual")
        for alias in node.names
        if isinstance(node, ast.ImportFrom) or alias.name.startswith("textual")
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in bound:
                found.append(ast.unparse(node))
    return found


def test_no_textual_constant_is_overwritten() -> None:
    found = {
        str(path.relative_to(ROOT)): writes
        for path in [*sources("termux"), ALLOWED]
        if (writes := textual_module_writes(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert found == {}
    old = "import textual.screen\nfrom textual import constants\n"
    old += "textual.screen.UPDATE_PERIOD = 1\nconstants.ESCAPE_DELAY = 2\n"
    assert textual_module_writes(ast.parse(old)) == ["textual.screen.UPDATE_PERIOD", "constants.ESCAPE_DELAY"]


def test_textual_draws_at_the_rate_termux_asks_for() -> None:
    """TEXTUAL_FPS is set before Textual is first imported (termux/tui/__init__.py), so that
    Textual's frame grid does not hold an echo back."""
    import os
    import subprocess
    import sys

    code = "import termux.tui.app, textual.screen; print(textual.screen.UPDATE_PERIOD)"
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    from termux.tui import TEXTUAL_FPS

    assert float(out) == 1 / TEXTUAL_FPS
