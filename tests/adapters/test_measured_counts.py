"""The counts of a plan's own texts kept between processes: a plan of counted messages counts nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plan_helpers import EveryTextCounter, huge_session, services_with

from smig_tui.adapters.storage import measured_counts
from smig_tui.adapters.storage.measured_counts import MeasuredCounts
from smig_tui.core.models import Strategy


def test_the_next_process_reads_the_counts_an_earlier_one_saved(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "measured-tokens.json"
    first = MeasuredCounts(path)
    assert first.get("o200k_base", "[12 earlier messages dropped]") is None
    first.put("o200k_base", "[12 earlier messages dropped]", 9)
    first.put("cl100k_base", "[12 earlier messages dropped]", 8)
    first.save()
    later = MeasuredCounts(path)
    assert later.get("o200k_base", "[12 earlier messages dropped]") == 9
    assert later.get("cl100k_base", "[12 earlier messages dropped]") == 8  # by counter
    assert later.get("o200k_base", "[13 earlier messages dropped]") is None
    stamp = path.stat().st_mtime_ns
    later.save()  # nothing new: nothing written
    assert path.stat().st_mtime_ns == stamp


def test_two_processes_saving_keep_both_their_counts(tmp_path: Path) -> None:
    path = tmp_path / "measured-tokens.json"
    one, two = MeasuredCounts(path), MeasuredCounts(path)
    assert one.get("o200k_base", "a") is None and two.get("o200k_base", "b") is None  # both read the empty file
    one.put("o200k_base", "a", 1)
    one.save()
    two.put("o200k_base", "b", 2)
    two.save()  # merged with what the first wrote meanwhile
    after = MeasuredCounts(path)
    assert (after.get("o200k_base", "a"), after.get("o200k_base", "b")) == (1, 2)


def test_the_newest_counts_are_kept_up_to_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(measured_counts, "MAX_TEXTS", 3)
    path = tmp_path / "measured-tokens.json"
    counts = MeasuredCounts(path)
    for number in range(5):
        counts.put("o200k_base", f"text {number}", number)
    counts.save()
    again = MeasuredCounts(path)
    assert [again.get("o200k_base", f"text {number}") for number in range(5)] == [None, None, 2, 3, 4]
    assert len(json.loads(path.read_text())["counts"]) == 3


@pytest.mark.parametrize(
    "content", [b"", b"{not json", b"[1, 2]", b'{"v": 99, "counts": {}}', b'{"v": 1, "counts": 3}']
)
def test_a_damaged_file_is_read_as_empty_and_replaced(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "measured-tokens.json"
    path.write_bytes(content)
    counts = MeasuredCounts(path)
    assert counts.get("o200k_base", "a") is None
    counts.put("o200k_base", "a", 4)
    counts.save()
    assert MeasuredCounts(path).get("o200k_base", "a") == 4


def test_a_count_that_is_not_a_number_of_tokens_is_not_believed(tmp_path: Path) -> None:
    path = tmp_path / "measured-tokens.json"
    counts = MeasuredCounts(path)
    counts.put("o200k_base", "a", 4)
    counts.put("o200k_base", "b", 5)
    counts.save()
    saved = json.loads(path.read_text())
    first, second = saved["counts"]
    saved["counts"][first], saved["counts"][second] = "4", -5
    path.write_text(json.dumps(saved))
    again = MeasuredCounts(path)
    assert again.get("o200k_base", "a") is None and again.get("o200k_base", "b") is None


def test_a_folder_in_the_files_place_costs_only_the_speed_up(tmp_path: Path) -> None:
    path = tmp_path / "measured-tokens.json"
    path.mkdir()
    counts = MeasuredCounts(path)
    counts.put("o200k_base", "a", 4)
    counts.save()  # refused: not a regular file, and nothing raised
    assert path.is_dir() and counts.get("o200k_base", "a") == 4


def test_a_replan_in_a_new_process_counts_nothing_when_every_count_is_kept(tmp_path: Path) -> None:
    """The first plan counts the tail and its own note; a new process's plan of the same session counts
    nothing at all (so it never loads its tokenizer), and plans the same."""
    session = huge_session(tmp_path / "s.jsonl", 5_000)
    first_counter = EveryTextCounter()
    first = services_with(tmp_path, first_counter, {"small-test": 2_000})
    planned = first.plan(session, "small-test", Strategy.TRUNCATE, reserve=0)
    assert planned.placeholder is not None
    assert any(planned.placeholder in text for text in first_counter.texts)  # the note was counted
    later_counter = EveryTextCounter()
    later = services_with(tmp_path, later_counter, {"small-test": 2_000})
    again = later.plan(session, "small-test", Strategy.TRUNCATE, reserve=0)
    assert later_counter.texts == []
    assert again.placeholder == planned.placeholder
    assert [(item.message.id, item.tokens) for item in again.kept] == [
        (item.message.id, item.tokens) for item in planned.kept
    ]
    assert (again.tokens_after, again.decision) == (planned.tokens_after, planned.decision)
    (later.paths.cache_dir / "measured-tokens.json").unlink()
    once_more = EveryTextCounter()
    services_with(tmp_path, once_more, {"small-test": 2_000}).plan(session, "small-test", Strategy.TRUNCATE, reserve=0)
    assert once_more.texts and all(text not in [m.text for m in session.messages] for text in once_more.texts)


def test_estimates_are_not_kept(tmp_path: Path) -> None:
    class Guessing(EveryTextCounter):
        exact = False

    session = huge_session(tmp_path / "s.jsonl", 5_000)
    counter = Guessing()
    services = services_with(tmp_path, counter, {"small-test": 2_000})
    plan = services.plan(session, "small-test", reserve=0)
    assert plan.placeholder is not None and counter.texts  # its note was measured, as a guess
    assert not (services.paths.cache_dir / "measured-tokens.json").exists()
