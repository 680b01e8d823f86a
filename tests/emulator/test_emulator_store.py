"""The fast Screen's cell store (termux/emulator/rows.py), structurally.

Rows drawn with text stay runs; a row leaving the screen goes into the scrollback without being
turned into cells and back; reading a row through `screen.buffer` gives pyte's cells (once). That the
cells and the scrollback are exactly the reference's is test_differential.py's job; here the work
done is counted.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import emu_strategies
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyte.screens import StaticDefaultDict

import termux.emulator.fast as fast
import termux.emulator.history as history
import termux.emulator.rows as rows
import termux.emulator.screen as reference_screen
import termux.emulator.stream as reference_stream
from termux.emulator import ByteStream, Char, Screen, capture, preview, snapshot, wrapped
from termux.emulator.rows import Buffer, Cells, Packed
from termux.emulator.screen import DEFAULT_CHAR


def _workloads() -> Any:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "emulator.py"
    spec = importlib.util.spec_from_file_location("bench_emulator_store", path)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    return bench.WORKLOADS


class Counter:
    def __init__(self, real: Any) -> None:
        self.real = real
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.real(*args, **kwargs)


@pytest.mark.parametrize("name", ["yes", "logs", "sgr"])
@pytest.mark.parametrize("chunk", [4096, 100])
def test_rows_go_into_the_scrollback_without_becoming_cells(
    name: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _workloads()[name](60_000)
    materialize = Counter(Packed.materialize)
    compact = Counter(history.compact_line)
    cells = Counter(fast._compact_cells)
    monkeypatch.setattr(Packed, "materialize", materialize)
    monkeypatch.setattr(fast, "compact_line", compact)
    monkeypatch.setattr(rows, "compact_line", compact)
    monkeypatch.setattr(fast, "_compact_cells", cells)
    screen = Screen(80, 24, history=10_000)
    stream = ByteStream(screen)
    for i in range(0, len(data), chunk):
        stream.feed(data[i : i + chunk])
    assert len(screen.history) > 500
    # No row was turned into cells, and none was compacted cell by cell on its way out.
    assert (materialize.calls, compact.calls, cells.calls) == (0, 0, 0)
    assert all(row is None or type(row) is Packed for row in screen.buffer.rows)
    monkeypatch.undo()
    # ...and the scrollback is what the reference classes keep, line for line.
    ref = reference_screen.Screen(80, 24, history=10_000)
    reference_stream.ByteStream(ref).feed(data)
    assert list(screen.history) == list(ref.history)


def test_reading_a_row_through_buffer_makes_pyte_cells_once() -> None:
    screen = Screen(10, 3)
    ByteStream(screen).feed(b"ab\x1b[31mcd\x1b[0m")
    packed = screen.buffer.rows[0]
    assert type(packed) is Packed
    # view() reads without converting; [] converts, for good (pyte's code may write to the row).
    view = screen.buffer.view(0)
    assert view is not None and [view[x].data for x in range(5)] == ["a", "b", "c", "d", " "]
    assert screen.buffer.rows[0] is packed
    row = screen.buffer[0]
    assert type(row) is StaticDefaultDict and screen.buffer.rows[0] is row
    assert [row[x].data for x in range(5)] == ["a", "b", "c", "d", " "]
    assert row[2].fg == "red" and row[0].fg == "default"
    assert screen.buffer[0] is row
    # A row pyte never made is made on reading, as a defaultdict does; get() does not make one.
    assert screen.buffer.get(2) is None and 2 not in screen.buffer
    assert screen.buffer[2] == {} and 2 in screen.buffer


def test_reading_for_capture_snapshot_preview_and_display_keeps_rows_as_runs() -> None:
    screen = Screen(20, 4)
    ByteStream(screen).feed(b"one\r\n\x1b[1mtwo\x1b[0m\r\nthree")
    before = list(screen.buffer.rows)
    assert capture(screen) == ["one", "two", "three", ""]
    assert preview(screen) == "three"
    assert screen.display[1] == "two" + " " * 17
    copy = Screen(20, 4)
    ByteStream(copy).feed(snapshot(screen))
    assert copy.display == screen.display
    assert screen.buffer.rows == before and all(type(r) is Packed for r in before[:3])


def test_buffer_is_the_mapping_pyte_uses() -> None:
    screen = Screen(5, 3)
    buffer = screen.buffer
    assert isinstance(buffer, Buffer) and len(buffer) == 0 and not buffer
    buffer[1][2] = screen.default_char._replace(data="x")
    assert list(buffer) == [1] and len(buffer) == 1 and 1 in buffer
    assert [y for y, _ in buffer.items()] == [1] and buffer.values()[0][2].data == "x"
    moved = buffer.pop(1)
    assert moved[2].data == "x" and 1 not in buffer and buffer.pop(1, None) is None
    buffer.update({0: moved})
    assert buffer[0] is moved
    del buffer[0]
    with pytest.raises(KeyError):
        del buffer[0]
    buffer[0]
    buffer.clear()
    assert len(buffer) == 0


STYLES = [Cells(Char(" ")), Cells(Char(" ", fg="red")), Cells(Char(" ", bold=True)), Cells(Char(" ", reverse=True))]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 12), st.text(alphabet="ab ", min_size=1, max_size=6), st.integers(0, 3)), max_size=12
    ),
    st.booleans(),
)
def test_a_row_of_runs_holds_what_writing_its_cells_would(writes: list[tuple[int, str, int]], fill: bool) -> None:
    """Packed.write (append, splice, replace) against pyte's row model, a dict of cells."""
    packed = Packed(DEFAULT_CHAR)
    model: dict[int, Any] = {}
    for x, text, style in writes:
        cells = STYLES[style]
        if packed.write(x, text, cells):
            model.update({x + i: cells[ch] for i, ch in enumerate(text)})
        else:
            # Only a gap of unwritten columns is refused.
            assert x > max(model, default=-1) + 1 or x + len(text) < min(model, default=0)
            break
    if fill:
        packed.fill(STYLES[1])
        model = dict.fromkeys(model, STYLES[1][" "])
    assert dict(packed.materialize()) == model
    # Its scrollback line is compact_line's of those cells.
    assert history.unpack_line(packed.stored(DEFAULT_CHAR)) == history.compact_line(model, 20, DEFAULT_CHAR)
    assert packed.text().rstrip() == "".join(model.get(x, DEFAULT_CHAR).data for x in range(20)).rstrip()


# ---------------------------------------------------------------------- soft wraps (for reflow, capture -J)


def _wraps(screen: Any) -> tuple[list[bool], list[bool]]:
    return (
        [wrapped(screen, y) for y in range(screen.lines)],
        [wrapped(screen, -n) for n in range(len(screen.history), 0, -1)],
    )


@pytest.mark.parametrize(
    ("screen_cls", "stream_cls"), [(Screen, ByteStream), (reference_screen.Screen, reference_stream.ByteStream)]
)
def test_rows_autowrap_continues_are_marked_and_the_mark_goes_into_the_scrollback(
    screen_cls: Any, stream_cls: Any
) -> None:
    screen = screen_cls(10, 3, history=100)
    stream = stream_cls(screen)
    stream.feed(b"0123456789abc\r\n")  # 13 characters: the first row wraps
    assert _wraps(screen) == ([True, False, False], [])
    stream.feed(b"0123456789\r\n")  # exactly a row: the cursor waits at the edge, CR LF does not wrap
    assert _wraps(screen)[0] == [False, False, False] and _wraps(screen)[1] == [True]
    stream.feed(("\u4e2d" * 6 + "\r\n").encode())  # wide characters wrap too
    assert _wraps(screen) == ([True, False, False], [True, False, False])
    stream.feed(b"\x1b[1;1H\x1b[K")  # erasing the row's end: it no longer goes on
    assert _wraps(screen)[0] == [False, False, False]
    stream.feed(b"\x1b[3;1H" + b"x" * 25 + b"\r\n" + b"end\r\n" * 3)
    assert _wraps(screen) == ([False, False, False], [True, False, False, False, False, True, True, False, False])


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.integers(1, 30),
    st.integers(1, 8),
    st.sampled_from([0, 5, 10000]),
    st.one_of(
        emu_strategies.chunked().map(lambda case: case[1]),
        st.lists(
            st.tuples(
                st.one_of(
                    st.text(alphabet="abc \x1b[1m", max_size=70), st.sampled_from(["\x1b[31mxy\x1b[0m" * 9, "中文" * 9])
                ),
                st.sampled_from(["\r\n", "\r\n", "\n", "", "\x1b[K", "\x1b[2J", "\x1b[H"]),
            ).map(lambda t: (t[0] + t[1]).encode()),
            max_size=40,
        ),
    ),
)
def test_soft_wraps_are_the_reference_screens(
    columns: int, lines: int, history_lines: int, chunks: list[bytes]
) -> None:
    screens = []
    for screen_cls, stream_cls in ((Screen, ByteStream), (reference_screen.Screen, reference_stream.ByteStream)):
        screen = screen_cls(columns, lines, history=history_lines)
        stream = stream_cls(screen)
        for chunk in chunks:
            stream.feed(chunk)
        screens.append(screen)
    assert _wraps(screens[0]) == _wraps(screens[1])


def test_the_scrollback_forgets_the_wraps_of_the_lines_it_drops() -> None:
    kept = history.Scrollback(3)
    kept.append_stored("a", 10)
    kept.extend_stored(["b", "c", "d"], [0, 10, 0])  # "c" wrapped; "a" is dropped
    assert [line[0][0] for line in kept] == ["b", "c", "d"]
    assert [kept.wrapped(i) for i in range(3)] == [False, True, False]
    assert kept.wrapped(-2) is True and kept.wrap(-2) == 10
    kept.extend_stored(["e", "f", "g", "h"], [10, 0, 0, 10])  # more than it holds at once
    assert [line[0][0] for line in kept] == ["f", "g", "h"]
    assert [kept.wrapped(i) for i in range(3)] == [False, False, True]
    kept.clear()
    kept.append_stored("i")
    assert not kept.wrapped(0) and len(kept._wraps) == 1
    with pytest.raises(ValueError, match="one wrap per line"):
        kept.extend_stored(["j", "k"], [0])
