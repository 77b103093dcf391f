"""Long texts of a session that cannot be entered at a line's offset go to a spill: an unnamed file of
smig's own, read back at their offsets (`stored_text.TextSpill`), or packed in memory when it fails."""

from __future__ import annotations

import errno
import gc
import os
import stat
import weakref
from pathlib import Path

import pytest
from text_spill_state import block_the_spill, open_spills

from smig_tui.adapters import stored_text
from smig_tui.adapters.stored_text import HEAD_CHARS, PackedText, TextBlock, TextPacker, TextSpill
from smig_tui.core.text_classes import HEAD_CHARS as CLASS_CHARS

pytestmark = pytest.mark.skipif(not hasattr(os, "pwritev"), reason="the spill needs pwritev and pread")


def _texts(count: int) -> list[str]:
    alphabet = ["a", "é", "語", "😀", "\ud800", "\n", "tool output "]
    return [
        "".join(alphabet[(n * 7 + i * i) % (1 + n % len(alphabet))] for i in range(300 + (n * 577) % 9000))
        for n in range(count)
    ]


def test_texts_read_back_whole_in_any_order_while_it_fills_and_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text reads back exactly, as do its head and class head, from pieces not yet written and from
    the file, in any order; its fingerprint is the one a text packed in memory has."""
    monkeypatch.setattr(stored_text, "SPILL_BATCH", 1 << 16)
    packer = TextPacker()
    texts = _texts(200)
    packed = []
    for number, text in enumerate(texts):
        packed.append(PackedText.of(text, packer))
        assert isinstance(packed[-1].block, TextSpill)
        if number % 9 == 0:  # the newest is pending, an older one written
            assert packed[-1].read() == text and packed[number // 2].read() == texts[number // 2]
    spill = packed[0].block
    assert isinstance(spill, TextSpill) and all(p.block is spill for p in packed)
    assert os.fstat(spill._fd).st_size > 1 << 20  # most of it in the file, not in memory
    for index in [*reversed(range(len(texts))), 5, 199, 0, 64]:
        assert packed[index].read() == texts[index] and packed[index].length == len(texts[index])
        assert packed[index].head == texts[index][:HEAD_CHARS]
        assert packed[index].class_head == texts[index][:CLASS_CHARS]
    block_the_spill()
    in_memory = [PackedText.of(text, TextPacker()) for text in texts[:20]]
    assert all(isinstance(p.block, TextBlock) for p in in_memory)
    assert [p.fingerprint() for p in packed[:20]] == [p.fingerprint() for p in in_memory]


def test_the_spill_is_an_unnamed_private_file_in_smigs_cache_gone_with_its_texts(
    isolated_homes: dict[str, Path],
) -> None:
    """Nothing is left by name in smig's cache folder, only its owner may read the file, and the file is
    closed once no text points into it."""
    packer = TextPacker()
    text = PackedText.of("a long output " * 1000, packer)
    spill = text.block
    assert isinstance(spill, TextSpill)
    cache = isolated_homes["smig"] / "cache"
    assert cache.is_dir() and not any(cache.iterdir())
    status = os.fstat(spill._fd)
    assert status.st_nlink == 0 and stat.S_IMODE(status.st_mode) == 0o600
    file = weakref.ref(spill._file)
    del packer, text, spill
    gc.collect()
    assert file() is None


def test_a_write_cut_short_or_failing_loses_no_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that takes part of what it is given goes on from there; one that fails (a full disk) keeps
    what it did not write in memory, and the texts after it are packed in blocks: all read back."""
    monkeypatch.setattr(stored_text, "SPILL_BATCH", 1 << 14)
    real = os.pwritev
    calls = {"n": 0}

    def pwritev(fd: int, buffers: list[bytes], offset: int) -> int:
        calls["n"] += 1
        if calls["n"] == 6:
            raise OSError(errno.ENOSPC, "No space left on device")
        if calls["n"] % 2:  # every other write takes 5,000 bytes and a little
            return real(fd, [b"".join(buffers)[:5003]], offset)
        return real(fd, buffers, offset)

    monkeypatch.setattr(os, "pwritev", pwritev)
    packer = TextPacker()
    texts = _texts(120)
    packed = [PackedText.of(text, packer) for text in texts]
    assert calls["n"] == 6
    kinds = [type(p.block) for p in packed]
    first_block = kinds.index(TextBlock)
    assert TextSpill in kinds[:first_block] and set(kinds[first_block:]) == {TextBlock}
    spill = packed[0].block
    assert isinstance(spill, TextSpill) and spill.broken and spill._written > 0 and spill._pending
    assert [p.read() for p in packed] == texts
    assert [p.read() for p in reversed(packed)] == texts[::-1]


def test_where_no_spill_can_be_made_texts_are_packed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache folder that cannot be made (a file in its way) leaves the texts packed in memory."""
    blocked = Path(os.environ["SMIG_TUI_HOME"])
    blocked.mkdir(parents=True, exist_ok=True)
    (blocked / "cache").write_text("in the way")
    text = "x" * 5000
    packed = PackedText.of(text, TextPacker())
    assert isinstance(packed.block, TextBlock) and packed.read() == text


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files in /proc/self/fd")
def test_a_packer_makes_its_spill_only_with_its_first_text() -> None:
    """A reader makes a packer for every compressed file, most too small to set a text aside: no file
    is made for those."""
    before = open_spills()
    packer = TextPacker()
    assert open_spills() == before
    first, second = PackedText.of("x" * 5000, packer), PackedText.of("y" * 5000, packer)
    assert open_spills() == before + 1
    assert isinstance(first.block, TextSpill) and first.block is second.block
