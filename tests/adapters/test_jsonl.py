from __future__ import annotations

from pathlib import Path

import pytest

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

    from smig_tui.adapters.jsonl import no_cyclic_gc

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
