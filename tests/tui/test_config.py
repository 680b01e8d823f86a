"""config.toml: defaults, overrides, and bad files reported with the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from termux.tui.config import DEFAULT_BINDINGS, ConfigError, config_path, key_bytes, load_config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path / "none.toml")
    assert config.prefix == "ctrl+b" and config.bindings == DEFAULT_BINDINGS


def test_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_path() == tmp_path / "termux" / "config.toml"


def test_settings(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            'prefix = "C-a"\nsidebar = false\nescape_delay_ms = 20\nwindow_size = "smallest"\n'
            '[bindings]\n"|" = "sidebar"\nx = "none"\n'
            '[scrollback]\nlines = 500\nwheel_lines = 5\n[colours]\nbackground = "#101010"\n'
            'palette = ["#000000", "#ff0000"]\n',
        )
    )
    assert config.prefix == "ctrl+a"
    assert not config.sidebar and config.escape_delay_ms == 20 and config.window_size == "smallest"
    assert config.bindings["|"] == "sidebar" and "x" not in config.bindings
    assert (config.scrollback_lines, config.wheel_lines) == (500, 5)
    assert config.background == "#101010" and config.palette == {0: "#000000", 1: "#ff0000"}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('prefix = "ctrl+b"\nsidebar = maybe\n', 2, "line 2"),
        ('prefix = "ctrl+b"\n\nprefx = "C-a"\n', 3, "unknown setting"),
        ('[bindings]\nc = "new"\nq = "explode"\n', 3, "unknown action"),
        ('[scrollback]\nlines = "many"\n', 2, "expected a number"),
        ('[colours]\nforeground = "#zzzzzz"\n', 2, "not a colour"),
        ('sidebar = true\nwindow_size = "biggest"\n', 2, '"latest", "smallest" or "largest"'),
        ('sidebar = true\nprefix = "bogus"\n', 2, "unknown key 'bogus'"),
        ('[bindings]\nc = "new"\n"ctrl+nope" = "help"\n', 3, "unknown key 'ctrl+nope'"),
        ("sidebar = true\nsidebar_width = 5\n", 2, "between 12 and 100"),
        ('[status]\nleft = "x"\nright = "{clock}"\n', 3, "right: unknown field {clock}"),
        ('[status]\nleft = "{session"\n', 2, "unbalanced braces"),
        ('[status]\nmiddle = ""\n', 2, "unknown status setting"),
    ],
)
def test_bad_file_names_the_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message and words in message
    assert f":{line}:" in message or f"line {line}" in message


def test_a_bad_config_stops_the_tui_at_start_naming_the_line(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    (tmp_path / "termux").mkdir()
    (tmp_path / "termux" / "config.toml").write_text('prefix = "C-a"\n\n[bindings]\nq = "explode"\n')
    env = {k: v for k, v in os.environ.items() if k != "TERMUX"}
    env.update(XDG_CONFIG_HOME=str(tmp_path), TERMUX_SOCKET_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "termux"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert "config.toml:4: q: unknown action 'explode'" in done.stderr
    assert not list(tmp_path.glob("default*"))  # no server was started for a TUI that cannot run


def test_no_tui_inside_its_own_session(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path), TERMUX=f"{tmp_path}/default,%0")
    done = subprocess.run(
        [sys.executable, "-m", "termux"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1 and "nested" in done.stderr


def test_every_spelling_of_a_key_is_that_key(tmp_path: Path) -> None:
    """Keys are matched by what the terminal sends: tmux's C-Space is Textual's ctrl+@ (NUL), a
    binding spelt another way replaces the default one for the same key."""
    config = load_config(write(tmp_path, 'prefix = "C-Space"\n[bindings]\n"C-c" = "new"\nquestion_mark = "none"\n'))
    assert key_bytes(config.prefix) == key_bytes("ctrl+@") == b"\x00"
    assert key_bytes("F12") == key_bytes("f12") and key_bytes("M-x") == key_bytes("alt+x") == b"\x1bx"
    assert config.bindings["ctrl+c"] == "new" and "?" not in config.bindings
    assert key_bytes("bogus") == b""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("escape_delay_ms = 5000\n", ":1: escape_delay_ms: must be between 0 and 1000"),
        ("[scrollback]\nwheel_lines = 0\n", ":2: wheel_lines: must be between 1 and 100"),
        ("[scrollback]\nspeed = 3\n", ":2: speed: unknown scrollback setting (known: lines, wheel_lines)"),
        ('[colours]\npalette = ["#000000", 5]\n', ':2: palette: expected a colour such as "#1e1e1e", got 5'),
        ("[colours]\npalette = [" + ", ".join(['"#000000"'] * 17) + "]\n",
         ":2: palette: expected a list of up to 16 colours, got 17"),
        ("[colours]\nshade = 1\n", ":2: shade: unknown colours setting (known: foreground, background, palette)"),
        ("sidebar = 1\n", ":1: sidebar: expected true or false, got 1"),
        ("bindings = 3\n", ":1: bindings: expected a table, got 3"),
        ("prefix = 3\n", ':1: prefix: expected a key such as "ctrl+b", got 3'),
        ("window_size = 3\n", ':1: window_size: expected "latest", "smallest" or "largest", got 3'),
        ("[bindings]\nq = 5\n", ":2: q: unknown action 5 (actions: new, kill, rename, next,"),
    ],
)  # fmt: skip
def test_a_bad_value_is_told_in_termux_words_with_the_file_line_and_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}{message}")


def test_bindings_take_tmux_names_for_commands_and_tui_actions(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[bindings]\nD = "detach-client"\nC = "new-session"\n"?" = "list-keys"\n'))
    assert (config.bindings["D"], config.bindings["C"], config.bindings["?"]) == ("detach", "new", "help")
    assert config.bindings["c"] == "new" and config.bindings["d"] == "detach"  # the defaults stay


def test_status_templates_and_sidebar_width(tmp_path: Path) -> None:
    config = load_config(
        write(tmp_path, 'sidebar_width = 40\n[status]\nleft = "[{index}:{session}]"\nright = "{marks} {time:%H:%M}"\n')
    )
    assert config.sidebar_width == 40
    assert config.status_left.render({"index": 2, "session": "db"}) == "[2:db]"
    assert config.status_left.tick() is None and config.status_right.tick() == 60.0
    default = load_config(tmp_path / "none.toml")
    assert default.status_left.tick() is None and default.status_right.tick() is None  # no clock by default
    assert [default.bindings[k] for k in ("w", "l", "f", "'")] == ["grid", "last", "find", "find-number"]
