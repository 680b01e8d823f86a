"""tmux's format strings (termux/formats.py), sans-I/O. Each expected string is what tmux 3.3a's
`ls -F` printed for the same format and values (checked by hand against a real tmux)."""

from __future__ import annotations

import time

import pytest

from termux.formats import MAX_DEPTH, FormatError, parse

VALUES = {"session_name": "gamma", "session_created": "1796183030", "session_windows": "1", "session_attached": "0"}


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("#{session_name}x|#{nosuch}|", "gammax||"),
        ("##|#,|#}|a#b #x|trail#", "#|,|}|a#b #x|trail#"),  # an unknown `#X` is kept, a last `#` too
        ("#S", "gamma"),
        ("#{?session_attached,yes,no}|#{?nosuch,y}|#{?,yes,no}", "no||no"),
        ("#{?session_name,#,,c}|#{?session_name,a\\,b,c}", ",|a\\"),  # `#,` escapes; a backslash does not
        ("#{?#{session_name},y,n}|#{?0,a,#{session_name},b,c}", "y|b"),  # a format as condition; chained
        ("#{?session_windows,#{?session_attached,A,N},x}", "N"),
        ("#{==:#{session_name},gamma}|#{!=:a,b}", "1|1"),
        ("#{=2:session_name}|#{=-2:session_name}", "ga|ma"),
        ("#{a,b}|#{s/a/b/:session_name}", "|"),  # not variables termux reads: nothing
        ("", ""),
    ],
)
def test_formats_expand_as_tmux(fmt: str, expected: str) -> None:
    assert parse(fmt).render(VALUES) == expected


def test_t_shows_a_time_as_tmux_does() -> None:
    expected = time.strftime("%a %b %e %H:%M:%S %Y", time.localtime(1796183030))
    assert parse("#{t:session_created}").render(VALUES) == expected
    assert parse("#{t:session_name}").render(VALUES) == ""  # not a time


def test_names_are_the_variables_it_reads_and_no_other() -> None:
    parsed = parse("#{?session_attached,#{pane_pid},#S} #{==:#{pane_width},1} #{t:session_created}")
    assert parsed.names == {"session_attached", "pane_pid", "session_name", "pane_width", "session_created"}


@pytest.mark.parametrize("fmt", ["#{session_name", "#{?a,#{b}", "x #{==:a,b"])
def test_a_format_never_closed_is_refused(fmt: str) -> None:
    with pytest.raises(FormatError, match="never closed"):
        parse(fmt)


def test_nesting_is_bounded() -> None:
    inside = "#{?a," * (MAX_DEPTH - 1) + "#{session_name}" + ",}" * (MAX_DEPTH - 1)
    assert parse(inside).render({"a": "1", **VALUES}) == "gamma"
    with pytest.raises(FormatError, match=f"nest at most {MAX_DEPTH} deep"):
        parse("#{?a," * MAX_DEPTH + "#{x}" + ",}" * MAX_DEPTH)
