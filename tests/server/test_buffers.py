"""The paste-buffer store, sans-I/O: order, names, the bounds and what happens at each."""

from __future__ import annotations

import pytest

from termux.keys import encode_paste
from termux.modes import BRACKETED_PASTE
from termux.protocol.errors import ProtocolError
from termux.server.buffers import BUFFER_LIMIT, PasteBuffers, check_name


def names(buffers: PasteBuffers) -> list[str]:
    return [b.name for b in buffers]


def test_newest_first_with_automatic_names() -> None:
    buffers = PasteBuffers()
    for i, text in enumerate((b"one", b"two", b"three")):
        buffer, dropped = buffers.set(text, now=float(i))
        assert (buffer.name, buffer.automatic, dropped) == (f"buffer{i}", True, [])
    assert names(buffers) == ["buffer2", "buffer1", "buffer0"]
    assert buffers.get().data == b"three" and buffers.get(2).data == b"one"
    assert buffers.get(name="buffer1").created == 1.0
    assert buffers.total_bytes == 11


def test_the_count_limit_drops_the_oldest() -> None:
    buffers = PasteBuffers()
    for _ in range(BUFFER_LIMIT):
        buffers.set(b"x", now=0)
    assert len(buffers) == BUFFER_LIMIT == 50  # tmux's buffer-limit
    buffer, dropped = buffers.set(b"new", now=1)
    assert [b.name for b in dropped] == ["buffer0"] and len(buffers) == 50
    assert buffers.get().name == buffer.name == "buffer50"


def test_the_byte_limit_drops_the_oldest_until_the_new_one_fits() -> None:
    buffers = PasteBuffers(max_total=100, max_buffer=60)
    for i in range(4):
        buffers.set(bytes([65 + i]) * 20, now=0)  # 80 bytes in all
    _, dropped = buffers.set(b"z" * 50, now=0)
    assert [b.name for b in dropped] == ["buffer0", "buffer1"]
    assert names(buffers) == ["buffer4", "buffer3", "buffer2"] and buffers.total_bytes == 90


def test_a_buffer_over_the_limit_is_refused_and_nothing_changes() -> None:
    buffers = PasteBuffers(max_total=100, max_buffer=60)
    buffers.set(b"a" * 40, now=0, name="keep")
    with pytest.raises(ProtocolError) as error:
        buffers.set(b"b" * 61, now=0)
    assert error.value.code == "too_large" and "at most 60 bytes, not 61" in error.value.message
    with pytest.raises(ProtocolError):  # an append that would make it too big, likewise
        buffers.set(b"c" * 30, now=0, name="keep", append=True)
    assert names(buffers) == ["keep"] and buffers.get().data == b"a" * 40 and buffers.total_bytes == 40


def test_a_name_replaces_the_buffer_of_that_name_and_it_becomes_the_newest() -> None:
    buffers = PasteBuffers()
    buffers.set(b"first", now=0, name="notes")
    buffers.set(b"other", now=1)
    buffer, _ = buffers.set(b"second", now=2, name="notes")
    assert names(buffers) == ["notes", "buffer0"] and buffer.data == b"second" and not buffer.automatic
    assert buffers.total_bytes == 11


def test_automatic_names_skip_names_someone_took() -> None:
    buffers = PasteBuffers()
    buffers.set(b"mine", now=0, name="buffer0")
    buffer, _ = buffers.set(b"auto", now=0)
    assert buffer.name == "buffer1"


def test_append() -> None:
    buffers = PasteBuffers()
    buffers.set(b"nothing yet", now=0, append=True)  # no buffer: a new one
    buffers.set(b"abc", now=0, name="n")
    buffers.set(b"x", now=0)
    buffer, _ = buffers.set(b"def", now=1, name="n", append=True)
    assert (buffer.name, buffer.data, buffer.automatic) == ("n", b"abcdef", False)
    buffer, _ = buffers.set(b"++", now=1, append=True)  # no name: the newest, which is n now
    assert (buffer.name, buffer.data) == ("n", b"abcdef++")
    assert names(buffers) == ["n", "buffer1", "buffer0"]
    assert buffers.total_bytes == len(b"abcdef++x" + b"nothing yet")


@pytest.mark.parametrize(
    ("index", "name", "message"),
    [(None, None, "there are no paste buffers"), (0, None, "there are no paste buffers"),
     (None, "x", "no paste buffer named 'x'")],
)  # fmt: skip
def test_asking_an_empty_store(index: int | None, name: str | None, message: str) -> None:
    with pytest.raises(ProtocolError) as error:
        PasteBuffers().get(index, name)
    assert (error.value.code, error.value.message) == ("no_buffer", message)


def test_an_index_past_the_end_and_delete() -> None:
    buffers = PasteBuffers()
    buffers.set(b"a", now=0)
    buffers.set(b"b", now=0)
    with pytest.raises(ProtocolError, match=r"no paste buffer 2: there are 2 \(0 is the newest\)"):
        buffers.get(2)
    assert buffers.delete(1).data == b"a" and names(buffers) == ["buffer1"] and buffers.total_bytes == 1
    assert buffers.delete(name="buffer1").data == b"b" and len(buffers) == 0 and buffers.total_bytes == 0


@pytest.mark.parametrize("name", ["", " lead", "trail ", "a\x1bb", "x" * 65, "tab\there", "del\x7f"])
def test_bad_names(name: str) -> None:
    with pytest.raises(ProtocolError) as error:
        check_name(name)
    assert error.value.code == "bad_args"
    with pytest.raises(ProtocolError):
        PasteBuffers().set(b"x", now=0, name=name)


def test_info_samples_the_start_as_text() -> None:
    buffers = PasteBuffers()
    buffer, _ = buffers.set("é".encode() * 100 + b"\xff", now=5)
    info = buffer.info(0)
    assert info.sample == "é" * 50 and info.size == 201 and info.index == 0


def test_a_paste_drops_raw_c1_bytes_as_it_drops_escapes() -> None:
    # A buffer's bytes reach encode_paste decoded with surrogateescape: a raw 0x9b (8-bit CSI)
    # must not get through any more than ESC does.
    text = b"a\x1b[201~b\x9b201~c\xffd\n".decode("utf-8", "surrogateescape")
    assert encode_paste(text) == b"a[201~b201~c\xffd\r"
    assert encode_paste(text, {BRACKETED_PASTE}) == b"\x1b[200~a[201~b201~c\xffd\r\x1b[201~"
