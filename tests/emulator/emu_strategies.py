"""Hypothesis strategies for terminal byte streams: escape-heavy, malformed on purpose, chunked; and
`rows_built`, which counts the rows the emulator's frame path builds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from termux.emulator import ByteStream

TEXT = st.sampled_from([
    "a", "hello", "x" * 30, " ", "é", "e\u0301", "\u0301", "中", "中文字", "👨\u200d👩\u200d👧", "❤\ufe0f",
    "🇫🇷", "\u200b", "\u00ad", "q", "lqk", "\t", "²", "٣",
])
C0 = st.sampled_from(["\r", "\n", "\x08", "\x07", "\t", "\x0b", "\x0c", "\x0e", "\x0f", "\x00", "\x7f",
                      "\x18", "\x1a", "\x05"])
PARAM = st.one_of(st.integers(0, 120).map(str), st.just(""), st.just("99999"), st.just("²"),
                  st.sampled_from(["1:2", "38:2::1:2:3", "38:5:200", "4:3", "58:2::1:2:3"]))
CSI_FINALS = "@ABCDEFGHIJKLMPSTXZ`abcdefghlmnpqrstu"
PRIVATE_MODES = st.sampled_from(["1", "3", "6", "7", "9", "12", "25", "47", "66", "1000", "1002", "1003",
                                 "1004", "1006", "1047", "1049", "2004", "9999"])


@st.composite
def csi(draw: st.DrawFn) -> str:
    marker = draw(st.sampled_from(["", "", "", "?", ">", "=", "<", "!"]))
    params = draw(st.lists(PARAM, max_size=6))
    inter = draw(st.sampled_from(["", "", "", "", " ", "!", "$", '"', "'"]))
    final = draw(st.sampled_from(CSI_FINALS))
    return "\x1b[" + marker + ";".join(params) + inter + final


@st.composite
def private_mode(draw: st.DrawFn) -> str:
    modes = draw(st.lists(PRIVATE_MODES, min_size=1, max_size=3))
    return "\x1b[?" + ";".join(modes) + draw(st.sampled_from("hl"))


@st.composite
def sgr(draw: st.DrawFn) -> str:
    params = draw(st.lists(st.one_of(
        st.sampled_from(["0", "1", "2", "3", "4", "5", "7", "8", "9", "22", "23", "24", "27", "28", "29",
                         "31", "39", "42", "49", "53", "55", "91", "105", "38;5;196", "48;5;17",
                         "38;2;10;20;30", "48;2;300;0;1", "38:2::1:2:3", "58;5;3", "38;5", "38"]),
        st.integers(0, 120).map(str)), max_size=5))
    return "\x1b[" + ";".join(params) + "m"


OSC = st.one_of(
    st.builds(lambda n, t, end: f"\x1b]{n};{t}{end}",
              st.sampled_from(["0", "1", "2", "10", "11", "133", "8", "52", "x"]),
              st.sampled_from(["title", "t;i;t", "?", "", "a\x05b", ";http://x"]),
              st.sampled_from(["\x07", "\x1b\\", "\x9c", ""])),
    st.just("\x1b]8;;http://example.com\x1b\\link\x1b]8;;\x1b\\"),
)
OTHER = st.sampled_from([
    "\x1b7", "\x1b8", "\x1bD", "\x1bE", "\x1bH", "\x1bM", "\x1bc", "\x1b=", "\x1b>", "\x1b(0", "\x1b(B",
    "\x1b)0", "\x1b#8", "\x1b%G", "\x1bZ", "\x1bPqfoo\x1b\\", "\x1b_apc\x1b\\", "\x1b", "\x9b2J",
    "\x9d0;c1\x07", "\x85", "\x1b[", "\x1b[?", "\x1b[1;", "\x1b[2\n;3H", "\x1b[!p", "\x1b[ q",
    "\x1b[1;2;3H", "\x1b[3K", "\x1b[?r", "\x1b[?4m", "\x1b[?6h\x1b[5d", "\x1b[?6n", "\x1b[>c",
    "\x1b[2;5r", "\x1b[3J", "\x1b[10S", "\x1b[3T", "\x1b[5b", "\x1b[Z", "\x1b[s", "\x1b[u",
    "\x1b[?2004s", "\x1b[?2004r", "\x1b[22;2t", "\x1b[23;2t", "\x1b[18t", "\x1b[5 q", "\x1b[?1$p",
    "\x1b[4$p", "\x1b]10;?\x07", "\x1b]11;?;?\x1b\\", "\x1b[?1049h", "\x1b[?1049l", "\x1b[?47h",
    "\x1b[?47l", "\x1b[2I", "\x1b[4h", "\x1b[4l", "\x1b[2;4r\x1b[?6h", "\x1b7\x1b[3;3H\x1b8",
])
PIECE = st.one_of(TEXT, TEXT, C0, csi(), private_mode(), sgr(), OSC, OTHER)


@st.composite
def streams(draw: st.DrawFn, max_pieces: int = 40) -> bytes:
    pieces = draw(st.lists(PIECE, max_size=max_pieces))
    data = "".join(pieces).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        junk = draw(st.binary(max_size=8))  # invalid UTF-8 too
        at = draw(st.integers(0, len(data)))
        data = data[:at] + junk + data[at:]
    return data


@st.composite
def chunked(draw: st.DrawFn, max_pieces: int = 40) -> tuple[bytes, list[bytes]]:
    data = draw(streams(max_pieces))
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=8)))
    chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    return data, chunks


def rows_built(monkeypatch: pytest.MonkeyPatch, screen: Any, data: bytes) -> int:
    """Feed `data` to a stream on `screen`: the rows the frame path built (`Packed.of_runs`)."""
    import termux.emulator.fast as fast

    built: list[int] = []
    real = fast.Packed.of_runs

    def counted(*args: Any) -> Any:
        built.append(1)
        return real(*args)

    monkeypatch.setattr(fast.Packed, "of_runs", counted)
    ByteStream(screen).feed(data)
    monkeypatch.undo()
    return len(built)
