"""A history read a block at a time (`history_file.read_history`) is the history read whole
(`history.restore`): the same messages, lines, runs, notices and damage, on the real client's files,
on generated ones and on odd ones; and a long text left in the file reads back as the text itself."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from smig_devtools.aider_corpus import generate_aider
from smig_devtools.corpus import SessionEntry
from smig_tui.adapters.agents.aider import history_file
from smig_tui.adapters.agents.aider.history import History, decode, restore
from smig_tui.adapters.agents.aider.source import AiderSource
from smig_tui.adapters.stored_text import HEAD_CHARS, SpanText, read_texts
from smig_tui.core.errors import SourceChangedError

PROJECTS = Path(__file__).parents[1] / "fixtures" / "real" / "aider" / "projects"
REAL = sorted(path for path in PROJECTS.rglob(".aider*") if path.is_file())


def _facts(history: History) -> tuple[Any, ...]:
    messages = [(m.role, m.whole, m.line) for m in history.messages]
    return messages, history.runs, history.model, history.version, history.title, history.not_text


def _same_as_whole(path: Path, monkeypatch: Any, block: int = history_file.BLOCK) -> History:
    """Read `path` block by block, its texts held and then every one left in the file: both are `restore`'s."""
    whole = restore(*decode(path.read_bytes()))
    monkeypatch.setattr(history_file, "BLOCK", block)
    held = history_file.read_history(path, leave=False)
    assert all(isinstance(m.text, str) for m in held.messages)
    assert _facts(held) == _facts(whole)
    monkeypatch.setattr(history_file, "TEXT_CHARS", 0)
    left = history_file.read_history(path, leave=True)
    assert _facts(left) == _facts(whole)
    for message in left.messages:
        assert isinstance(message.text, SpanText)
        text = message.text.read()
        assert message.text.length == len(text) and message.text.head == text[:HEAD_CHARS]
    return left


@pytest.mark.parametrize("path", REAL, ids=lambda path: f"{path.parent.name}/{path.name}")
@pytest.mark.parametrize("block", [history_file.BLOCK, 1, 7, 100])
def test_the_real_clients_histories_read_as_whole(path: Path, block: int, monkeypatch: Any) -> None:
    assert _same_as_whole(path, monkeypatch, block).messages


def _entry(folder: Path, size: int) -> SessionEntry:
    return SessionEntry("aider", "main", "s", "", str(folder), prompt="Refactor the parser", size=size)


def test_a_generated_history_over_several_blocks_reads_as_whole(tmp_path: Path, monkeypatch: Any) -> None:
    generate_aider(tmp_path / "corpus", [_entry(tmp_path / "p", 300_000)])
    path = tmp_path / "p" / ".aider.chat.history.md"
    left = _same_as_whole(path, monkeypatch, block=4096)
    assert len(left.runs) > 2 and len(left.messages) > 40


ODD = {
    "a run header at the very end": b"#### hi  \n\nreply\n\n# aider chat started at 2026-01-02 03:04:05\n",
    "a run header without its line end": b"#### hi  \n\nreply\n\n# aider chat started at 2026-01-02 03:04:05",
    "CRLF": b"# aider chat started at 2026-01-02 03:04:05\r\n\r\n> Main model: gpt-x  \r\n#### hi  \r\n\r\nreply\r\n",
    "no line end at the end": b"#### hi  \n\nthe last reply, cut",
    "a prompt without its line end": b"#### hi  \n\nreply\n#### last",
    "a lone CR at the end": b"#### hi  \n\nreply\r",
    "CR line ends": b"#### hi\r# hidden\rreply\r\r> notice\r#### again\r",
    "odd line ends": "#### a\u2028# hidden\x0b> gone\r\n\rreply\x1c#### b\x85c\u2029\x0c\n".encode(),
    "not UTF-8": b"#### caf\xe9  \n\nr\xe9ply \xe2\x80\n# hidden \xff\n> Aider v1 \xfe \n",
    "whitespace only": b"#### \n\n \t \n\x1c\n> note\n   \n",
    "empty": b"",
    "headers only": b"# aider chat started at nonsense\n\n> notice  \n",
}


@pytest.mark.parametrize("name", ODD)
@pytest.mark.parametrize("block", [history_file.BLOCK, 1, 5])
def test_odd_histories_read_as_whole(name: str, block: int, tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "h.md"
    path.write_bytes(ODD[name])
    _same_as_whole(path, monkeypatch, block)


def test_a_huge_single_reply_past_a_block_reads_as_whole(tmp_path: Path, monkeypatch: Any) -> None:
    rng = random.Random(5)
    lines = ["".join(rng.choice("ab é✓#>  ") for _ in range(rng.randint(0, 60))) for _ in range(200_000)]
    reply = "\n".join(f"x{line}" for line in lines)  # no line of it starts with `#` or `>`
    path = tmp_path / "h.md"
    path.write_text(f"\n# aider chat started at 2026-01-02 03:04:05\n\n#### go  \n\n{reply}\n\n> Tokens: 1k\n")
    assert path.stat().st_size > history_file.BLOCK
    left = _same_as_whole(path, monkeypatch)
    assert [m.role for m in left.messages] == ["user", "assistant"] and left.messages[1].whole == f"\n{reply}\n\n"


def test_random_histories_read_as_whole(tmp_path: Path, monkeypatch: Any) -> None:
    """Lines of every kind with every line end, cut at any byte by blocks of a few bytes."""
    kinds = [b"# aider chat started at 2026-01-02 03:04:05", b"# x", b"#### hi", b"#### ", b"####", b"##", b"#", b">"]
    kinds += [b"> Main model: m", b"> Aider v2 ", b"> smig: T", b">q", b"reply", b" ", b"", b"\xc3\xa9\xe2\x9c\x93"]
    kinds += [b"\xe9", b"\xe2\x80", b"y" * 300, b"a\rb"]
    ends = [b"\n", b"\n", b"\r\n", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9"]
    rng = random.Random(11)
    path = tmp_path / "h.md"
    for _ in range(150):
        usual = rng.random() < 0.5
        parts = [rng.choice(kinds) + (b"\n" if usual else rng.choice(ends)) for _ in range(rng.randint(0, 25))]
        data = b"".join(parts)
        path.write_bytes(data[: rng.randint(0, len(data))] if rng.random() < 0.3 else data)
        with monkeypatch.context() as patched:
            _same_as_whole(path, patched, rng.choice([1, 2, 9, 64]))


def test_a_big_history_leaves_its_long_texts_in_the_file_and_reads_them_back(tmp_path: Path, monkeypatch: Any) -> None:
    generate_aider(tmp_path / "corpus", [_entry(tmp_path / "p", 200_000)])
    path = tmp_path / "p" / ".aider.chat.history.md"
    source = AiderSource(lambda: ([], [path]))
    info = source.describe(path, lambda warning: None, whole=True)
    assert info is not None
    held = source.load(info, lambda warning: None)
    monkeypatch.setattr(history_file, "FILE_BYTES", 100_000)
    left = source.load(info, lambda warning: None)
    long = [m for m in left.messages if isinstance(m.body, SpanText)]
    assert len(long) > 10 and all(m.text_length > history_file.TEXT_CHARS for m in long)
    assert [(m.id, m.role, m.text, m.line) for m in left.messages] == [
        (m.id, m.role, m.text, m.line) for m in held.messages
    ]
    assert read_texts(left.messages) == [m.text for m in held.messages]  # one open, in file order
    assert len({m.body.fingerprint() for m in long}) == len(long)
    with path.open("r+b") as handle:  # rewritten in place (its first line hidden): a text read back says so
        handle.seek(long[3].body.offset)
        handle.write(b"# ")
    with pytest.raises(SourceChangedError):
        read_texts(left.messages)
    with path.open("r+b") as handle:  # cut short: the last text is not all there
        handle.truncate(long[-1].body.offset + 10)
    with pytest.raises(SourceChangedError):
        long[-1].body.read()


def test_a_big_history_read_a_block_at_a_time_holds_a_fraction_of_the_whole_read(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Traced allocations (no clock, no RSS): the peak of reading a generated 4 MB history in 256 KB
    blocks, long texts left in the file, against `restore` of its text (what `load` did before)."""
    generate_aider(tmp_path / "corpus", [_entry(tmp_path / "p", 4_000_000)])
    path = tmp_path / "p" / ".aider.chat.history.md"

    def peak(read: Any) -> int:
        tracemalloc.start()
        try:
            assert len(read().messages) > 500
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    whole = peak(lambda: restore(*decode(path.read_bytes())))
    monkeypatch.setattr(history_file, "BLOCK", 256 << 10)
    left = peak(lambda: history_file.read_history(path, leave=True))
    assert whole > 4 * path.stat().st_size
    assert left < 0.1 * whole, (left, whole)  # 0.06 (1.3 of 23 MB): the blocks, the heads of 650 texts
