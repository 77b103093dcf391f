from __future__ import annotations

from pathlib import Path

import pytest
from text_spill_state import open_files

from smig_tui.adapters.jsonl import iter_records
from smig_tui.core.models import ReadWarning


def _write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def test_records_carry_line_numbers_and_offsets(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", b'{"a":1}\n{"b":2}\n\n{"c":3}\n')
    warnings: list[ReadWarning] = []
    records = list(iter_records(path, warnings.append))
    assert [(r.line, r.offset, r.data) for r in records] == [
        (1, 0, {"a": 1}),
        (2, 8, {"b": 2}),
        (4, 17, {"c": 3}),
    ]
    assert warnings == []


def test_corrupt_middle_line_is_reported_and_skipped(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", b'{"a":1}\n{"b":\n{"c":3}\n')
    warnings: list[ReadWarning] = []
    records = list(iter_records(path, warnings.append))
    assert [r.data for r in records] == [{"a": 1}, {"c": 3}]
    assert len(warnings) == 1
    assert warnings[0].line == 2 and "corrupt JSON" in warnings[0].message
    assert str(warnings[0]).startswith(f"{path}:2: ")


def test_truncated_last_line_is_called_out_as_live_write(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", b'{"a":1}\n{"b": "half')
    warnings: list[ReadWarning] = []
    records = list(iter_records(path, warnings.append))
    assert [r.data for r in records] == [{"a": 1}]
    assert "truncated last line" in warnings[0].message and warnings[0].line == 2


def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", b'{"a":"caf\xe9"}\n')
    warnings: list[ReadWarning] = []
    [record] = list(iter_records(path, warnings.append))
    assert record.data == {"a": "caf\ufffd"}
    assert "invalid UTF-8" in warnings[0].message


def test_non_object_lines_are_skipped(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", b'[1,2]\n"x"\n{"ok":true}\n')
    warnings: list[ReadWarning] = []
    assert [r.data for r in iter_records(path, warnings.append)] == [{"ok": True}]
    assert len(warnings) == 2


def test_skip_predicate_avoids_parsing(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", b'{"type":"snap", broken\n{"type":"user"}\n')
    warnings: list[ReadWarning] = []
    records = list(iter_records(path, warnings.append, skip=lambda raw: b'"snap"' in raw))
    assert [r.data for r in records] == [{"type": "user"}]
    assert warnings == []  # the broken line was never parsed


def test_long_lines_across_read_chunks(tmp_path: Path) -> None:
    big = "x" * (3 << 20)
    path = _write(tmp_path / "a.jsonl", f'{{"big":"{big}"}}\n{{"n":2}}\n'.encode())
    records = list(iter_records(path, lambda w: None))
    assert len(records[0].data["big"]) == len(big)
    assert records[1].offset == len(big) + 11


def test_empty_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", b"")
    assert list(iter_records(path, lambda w: None)) == []


def test_full_reads_pause_the_cyclic_gc_and_always_restore_it() -> None:
    import gc

    from smig_tui.adapters.gc_pause import no_cyclic_gc

    assert gc.isenabled()
    with no_cyclic_gc():
        assert not gc.isenabled()
        with no_cyclic_gc():  # nested: the inner one must not switch it back on early
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), no_cyclic_gc():
        raise ValueError("a reader failed")
    assert gc.isenabled()


def test_deeply_nested_line_is_one_warning_and_reading_goes_on(tmp_path: Path) -> None:
    nested = b"[" * 5000 + b"]" * 5000
    path = _write(tmp_path / "a.jsonl", b'{"a":1}\n' + nested + b'\n{"b":' + nested + b'}\n{"c":3}\n')
    warnings: list[ReadWarning] = []
    records = list(iter_records(path, warnings.append))
    assert [r.data for r in records] == [{"a": 1}, {"c": 3}]
    assert [(w.path, w.line, w.message) for w in warnings] == [
        (path, 2, "JSON nested too deeply to read; line skipped"),
        (path, 3, "JSON nested too deeply to read; line skipped"),
    ]


def test_a_line_spanning_many_chunks_keeps_its_bytes_offsets_and_numbers(tmp_path: Path) -> None:
    from smig_tui.adapters import jsonl

    long = b'{"t":"' + bytes(range(97, 123)) * ((3 * jsonl._CHUNK) // 26) + b'"}'
    data = b'{"a":1}\n' + long + b"\n\n" + b"x" * (jsonl._CHUNK + 5)
    path = _write(tmp_path / "a.jsonl", data)
    lines = list(jsonl.iter_lines(path))
    assert [(n, off, len(raw), done) for n, off, raw, done in lines] == [
        (1, 0, 7, True),
        (2, 8, len(long), True),
        (3, 9 + len(long), 0, True),
        (4, 10 + len(long), jsonl._CHUNK + 5, False),
    ]
    assert lines[1][2] == long
    assert b"\n".join(raw for _, _, raw, _ in lines) == data
    assert all(type(raw) is bytes for _, _, raw, _ in lines)  # gathered in a buffer, handed out as bytes


def test_a_chunk_ending_exactly_on_a_newline_splits_nothing(tmp_path: Path) -> None:
    from smig_tui.adapters import jsonl

    first = b"y" * (jsonl._CHUNK - 1)
    path = _write(tmp_path / "a.jsonl", first + b"\n" + b'{"b":2}\n')
    assert [raw for _, _, raw, _ in jsonl.iter_lines(path)] == [first, b'{"b":2}']


def test_the_decoders_reason_reads_without_a_doubled_at(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", b'{"a":"open\n{"b":2}\n')
    warnings: list[ReadWarning] = []
    list(iter_records(path, warnings.append))
    assert [w.message for w in warnings] == ["corrupt JSON line skipped (Unterminated string starting at column 6)"]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open files in /proc/self/fd")
@pytest.mark.parametrize("name", ["a.jsonl", "a.jsonl.zst"])
def test_a_read_left_before_its_end_closes_its_file(tmp_path: Path, name: str) -> None:
    """Readers stop early (a listing's head, a branch's tip): the file closes when the lines are dropped,
    compiled too (setup.py), where a generator freed midway runs no `finally`; warnings are errors here."""
    from smig_tui.adapters.jsonl import iter_lines
    from smig_tui.adapters.zstd_files import compress

    data = b'{"a":1}\n' * 1000
    path = _write(tmp_path / name, compress(data) if name.endswith(".zst") else data)

    def open_here() -> int:
        return open_files(lambda opened: opened == path)

    lines = iter_lines(path)
    assert next(lines)[2] == b'{"a":1}' and open_here() == 1
    del lines
    assert open_here() == 0
    for _ in iter_records(path, lambda warning: None):
        break
    assert open_here() == 0
