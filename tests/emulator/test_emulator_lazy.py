"""Scrollback lines kept as they came (lazy blocks) and the SGR state after a block.

Lines of text and SGR that scroll away as a block are stored unexpanded (`history.Lazy`: the block's
text and the attributes it started with) and expanded when read; the state after the block is
walked only from its last SGR reset (`FastStreamMixin._state_after`). These tests check the
mechanism (lazy entries are stored, untracked by the cycle collector, expanded once per block)
and hold the result against the reference classes: read at any time (between feeds, after
DECSCNM changed, after a resize), with the bytes cut anywhere.
"""

from __future__ import annotations

import gc
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_differential import EXAMPLES, full_state

import termux.emulator as temu
import termux.emulator.screen as reference_screen
import termux.emulator.stream as reference_stream

LINK = "\x1b]8;;http://example.com/\x1b\\"


def _lazy(screen: Any) -> list[Any]:
    return [line for line in screen.history._lines if line.__class__ is tuple and line[0].__class__ is tuple]


def _ls_lines(n: int) -> str:
    colours = ["01;34", "01;32", "00", "40;33;01", "7", "38;5;202", "48;2;1;2;3"]
    out = []
    for i in range(n):
        if i % 3:
            out.append("".join(f"\x1b[0m\x1b[{colours[(i + k) % 7]}mname{i}-{k}\x1b[0m   " for k in range(3)))
        else:
            out.append(f"-rw-r--r-- 1 user {i:>6} \x1b[{colours[i % 7]}mfile{i}\x1b[0m")
    return "".join(line + "\r\n" for line in out)


class Pair:
    """The fast classes and the reference ones, fed the same chunks; `same()` compares all state."""

    def __init__(self, columns: int, lines: int, history: int) -> None:
        self.sides = []
        for screen_cls, stream_cls in (
            (reference_screen.Screen, reference_stream.ByteStream),
            (temu.Screen, temu.ByteStream),
        ):
            screen = screen_cls(columns, lines, history=history)
            replies: list[str] = []
            screen.write_process_input = replies.append
            self.sides.append((screen, stream_cls(screen), replies))

    @property
    def fast(self) -> Any:
        return self.sides[1][0]

    def feed(self, data: bytes) -> None:
        for _, stream, _ in self.sides:
            stream.feed(data)

    def resize(self, lines: int, columns: int) -> None:
        for screen, _, _ in self.sides:
            screen.resize(lines, columns)

    def same(self) -> None:
        want, have = (full_state(screen, replies) for screen, _, replies in self.sides)
        for key in want:
            assert have[key] == want[key], key


def test_a_block_that_scrolls_away_is_kept_lazily_and_reads_as_the_reference() -> None:
    pair = Pair(80, 10, 10000)
    pair.feed(_ls_lines(200).encode())
    lazy = _lazy(pair.fast)
    # Every line but the first rows (drawn onto the screen one by one, until the cursor reaches the
    # blank bottom row) and the last (left on the screen).
    assert len(lazy) == 200 - 9 - 9
    assert len({id(line[0]) for line in lazy}) == 1  # one block
    pair.same()


def test_lazy_lines_are_invisible_to_the_cycle_collector() -> None:
    pair = Pair(80, 10, 10000)
    pair.feed((LINK + "\x1b[1;31m" + _ls_lines(100)).encode())
    for _ in range(3):  # each pass untracks the tuples whose items are all untracked by then
        gc.collect()
    lazy = _lazy(pair.fast)
    assert lazy and not any(map(gc.is_tracked, lazy))
    assert not gc.is_tracked(lazy[0][0])


def test_a_block_is_expanded_once_when_read_in_order() -> None:
    screen = temu.Screen(80, 10, history=10000)
    stream = temu.ByteStream(screen)
    stream.feed(_ls_lines(300).encode())
    calls = []
    expand = screen.history.expander
    screen.history.expander = lambda block: calls.append(block) or expand(block)
    lines = list(screen.history)
    assert len(lines) == 291 and len(calls) == 1


def test_reading_between_feeds_leaves_the_cursor_and_the_attributes_as_they_were() -> None:
    pair = Pair(40, 6, 10000)
    pair.feed((_ls_lines(50) + "\x1b[1;35mgoing on").encode())  # the block ends in a coloured state
    attrs = pair.fast.cursor.attrs
    assert list(pair.fast.history)  # expands the block
    assert pair.fast.cursor.attrs is attrs
    pair.feed(b" still\r\n" + _ls_lines(30).encode())
    pair.same()


def test_read_after_decscnm_changed_reads_as_stored() -> None:
    """SGR 0 resets to the default cell, which DECSCNM changes: a block expanded after DECSCNM
    was switched reads as the lines were drawn."""
    for before, after in (("", "\x1b[?5h"), ("\x1b[?5h", "\x1b[?5l")):
        pair = Pair(80, 5, 10000)
        pair.feed((before + _ls_lines(40) + after).encode())
        pair.same()
        assert (temu.screen.mo.DECSCNM in pair.fast.mode) == (after == "\x1b[?5h")


def test_a_link_before_the_block_carries_through_its_resets() -> None:
    pair = Pair(80, 5, 10000)
    pair.feed((LINK + _ls_lines(40) + "after\x1b]8;;\x1b\\ done\r\n").encode())
    pair.same()


def test_a_block_without_a_reset_walks_every_sgr() -> None:
    lines = "".join(f"\x1b[3{i % 8}mred{i}\x1b[1mbold\x1b[4{i % 7}m bg\r\n" for i in range(60))
    pair = Pair(80, 5, 10000)
    pair.feed(lines.encode())
    pair.feed(b"tail")
    pair.same()


def test_reflow_of_lazy_lines_as_the_reference() -> None:
    pair = Pair(80, 8, 10000)
    pair.feed(_ls_lines(120).encode())
    pair.resize(8, 30)  # narrower: lines are re-cut (pending ones in steps)
    while pair.fast.reflow_step(50):
        pass
    for screen, _, _ in pair.sides[:1]:
        while screen.reflow_step(50):
            pass
    pair.same()
    pair.resize(8, 100)
    pair.feed(_ls_lines(20).encode())
    pair.same()


def test_the_scrollback_bound_drops_lazy_lines_first_in_first_out() -> None:
    pair = Pair(60, 5, 50)
    for n in (30, 70, 10, 200):
        pair.feed(_ls_lines(n).encode())
        pair.same()
    assert len(pair.fast.history) == 50


def test_ed3_clears_lazy_lines() -> None:
    pair = Pair(60, 5, 1000)
    pair.feed(_ls_lines(100).encode())
    list(pair.fast.history)
    pair.feed(b"\x1b[3J" + _ls_lines(30).encode())
    pair.same()


sgr = st.sampled_from(
    ["\x1b[0m", "\x1b[m", "\x1b[00m", "\x1b[0;31m", "\x1b[;1m", "\x1b[1m", "\x1b[7m", "\x1b[32m", "\x1b[38;5;9m",
     "\x1b[48;2;1;2;3m", "\x1b[0m\x1b[01;34m", "\x1b[2m", "\x1b[22m", "\x1b[1;0m", "\x1b[53m"]
)  # fmt: skip
piece = st.one_of(st.just(""), st.text(alphabet="ab xyz_.-", min_size=1, max_size=30))
line = st.lists(st.tuples(st.one_of(st.just(""), sgr), piece).map("".join), max_size=6).map(
    lambda pieces: "".join(pieces) + "\r\n"
)
between = st.sampled_from(
    ["", "\x1b[?5h", "\x1b[?5l", LINK, "\x1b]8;;\x1b\\", "\x1b[31mmid", "x", "\x1b[2;4r", "\x1b[r"]
)


@settings(max_examples=max(20, EXAMPLES // 2), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(8, 40),
    st.integers(2, 8),
    st.sampled_from([0, 7, 10000]),
    st.lists(st.tuples(st.lists(line, max_size=30), between, st.booleans()), min_size=1, max_size=5),
    st.lists(st.integers(1, 4000), max_size=8),
)
def test_styled_blocks_read_at_any_time_same_as_reference(
    columns: int, lines: int, history: int, parts: list[tuple[list[str], str, bool]], cuts: list[int]
) -> None:
    """Blocks of styled lines, with mode and link changes between them, the bytes cut anywhere,
    and the scrollback read (expanding lazy blocks) at random points between feeds."""
    pair = Pair(columns, lines, history)
    for texts, extra, read in parts:
        data = ("".join(texts) + extra).encode()
        points = sorted({c % (len(data) + 1) for c in cuts})
        for a, b in zip([0, *points], [*points, len(data)], strict=True):
            pair.feed(data[a:b])
        if read:
            pair.same()
    pair.same()


# --- rows deferred: the rows a block leaves on the screen are built only when read ----------------


def _count_builds(monkeypatch: Any) -> list[int]:
    import termux.emulator.fast as fast

    built: list[int] = []
    real = fast.FastStreamMixin._build_deferred

    def counted(self: Any, deferred: Any) -> Any:
        built.append(len(deferred.lines))
        return real(self, deferred)

    monkeypatch.setattr(fast.FastStreamMixin, "_build_deferred", counted)
    return built


def test_rows_that_scroll_away_before_anyone_reads_them_are_never_built(monkeypatch: Any) -> None:
    """A stream of styled lines in small feeds, each cut inside a line (as PTY reads come): the rows
    each feed leaves on the screen are deferred, move up with the next feeds' lines and go into the
    scrollback as they came; none is built until the state is read, and then only the screenful."""
    built = _count_builds(monkeypatch)
    data = _ls_lines(600).encode()
    for history in (0, 10000):
        built.clear()
        pair = Pair(80, 10, history)
        for i in range(0, len(data), 1000):
            pair.feed(data[i : i + 1000])
            assert pair.fast.buffer.deferred  # (the feed left its rows unbuilt)
        assert built == []
        pair.same()
        assert 0 < sum(built) <= 9  # the rows on the screen, built once read


def test_reading_a_row_builds_only_its_stretch(monkeypatch: Any) -> None:
    built = _count_builds(monkeypatch)
    screen = temu.Screen(40, 10, history=100)
    stream = temu.ByteStream(screen)
    stream.feed(_ls_lines(20).encode())  # a first stretch: the 9 rows above the bottom one
    stream.feed(b"\x1b[1mbold part")  # a row of its own on the bottom row
    stream.feed(b"\r\n" + _ls_lines(3).encode())  # and a second stretch below it
    assert len(screen.buffer.deferred) == 2
    assert screen.buffer.peek(screen.buffer.deferred[1].first) is not None
    assert built == [3]  # only the stretch that row is in
    assert len(screen.buffer.deferred) == 1


def test_deferred_rows_partly_scrolled_keep_their_attributes() -> None:
    """Attributes carried from line to line without a reset, a stretch of deferred rows scrolled
    out a few rows at a time (line feeds and short blocks): the rows left start from the state
    after those that went."""
    lines = "".join(f"\x1b[3{i % 8}mfg{i}\r\n{'plain' * (i % 3)}\r\n\x1b[1;4{i % 7}mbg\r\n" for i in range(12))
    for history in (0, 10000):
        for cut in (7, 31, 64, 1 << 20):
            pair = Pair(30, 8, history)
            data = (lines + "x\r\ny\r\n\x1b[0m\r\n" + lines).encode()
            for i in range(0, len(data), cut):
                pair.feed(data[i : i + cut])
            pair.same()


def test_deferred_rows_under_a_scroll_region_change_and_edits() -> None:
    """What reads or edits rows builds the deferred ones first: erase, insert lines, a scroll
    region set, the alternate screen, a resize."""
    edits = (b"\x1b[2;5r\r\nmore\r\n", b"\x1b[3A\x1b[K", b"\x1b[2L", b"\x1b[?1049hx\x1b[?1049l", b"\x1b[S", b"\x1bM")
    for extra in edits:
        pair = Pair(40, 8, 10000)
        pair.feed(_ls_lines(20).encode() + extra + _ls_lines(5).encode())
        pair.same()
    pair = Pair(40, 8, 10000)
    pair.feed(_ls_lines(20).encode())
    pair.resize(6, 30)
    pair.feed(_ls_lines(3).encode())
    pair.same()


def test_spans_after_a_line_feed_that_are_not_lines() -> None:
    """The line-block pattern takes a whole span of text, CR, LF and SGR after a line feed: a span
    with a lone CR or LF is cut to its exact lines, one that holds none goes token by token (an
    escape the fast path does not know included), as the reference."""
    cases = [
        b"x\r\n\x1b]0;title\x07y\r\nz\r\nw\r\n",  # an OSC right after a line feed
        b"p\r\n50%\r60%\r100%\r\ndone\r\nok\r\n",  # a progress line: lone CRs
        b"a\r\nb\nc\r\nd\r\ne\r\n",  # a lone LF
        b"q\r\n\x1b(0lqk\x1b(B\r\nr\r\ns\r\n",  # a charset designation after a line feed
        b"one\r\ntwo\r\nthree",  # lines, then a line not ended yet
    ]
    for data in cases:
        for cut in (1, 3, len(data)):
            pair = Pair(20, 4, 100)
            for i in range(0, len(data), cut):
                pair.feed(data[i : i + cut])
            pair.same()
