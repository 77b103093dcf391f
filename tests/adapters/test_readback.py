"""A corrupted native write is caught by the read-back, rolled back and reported in one sentence."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

from smig_tui.adapters import migration_commit
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.writer import append_session_index, recorded_model
from smig_tui.adapters.readback import ReadBackError
from smig_tui.core.errors import SmigError
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination
from smig_tui.services import build_services


def _corrupt_writes(monkeypatch: pytest.MonkeyPatch, damage: Callable[[str], str]) -> None:
    """Make every native session write land damaged, as a faulty writer or disk would."""
    real = migration_commit.atomic_write

    def damaged(target: Path, data: str, **kwargs: object) -> None:
        if target.suffix == ".jsonl":
            data = damage(data)
        real(target, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(migration_commit, "atomic_write", damaged)


def _drop_last_assistant_item(data: str) -> str:
    lines = data.splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if '"output_text"' in line or '"type":"assistant"' in line)
    return "".join(lines[:last] + lines[last + 1 :])


@pytest.mark.parametrize(
    ("destination", "damage", "said"),
    [
        (
            Destination("codex"),
            lambda data: data.replace("OSPREY-93", "OSPREY-39"),
            "with other text than the plan wrote",
        ),
        (
            Destination("claude"),
            lambda data: data.replace("OSPREY-93", "OSPREY-39"),
            "with other text than the plan wrote",
        ),
        (Destination("codex"), _drop_last_assistant_item, "reads back 4 messages where the plan wrote 5"),
        (Destination("claude"), _drop_last_assistant_item, "reads back 3 messages where the plan wrote 4"),
    ],
)
def test_a_corrupted_write_is_rolled_back_and_reported(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    destination: Destination,
    damage: Callable[[str], str],
    said: str,
) -> None:
    services = build_services()
    session = make_session(
        tmp_path / "src", agent=Agent("claude") if destination == Destination("codex") else Agent("codex")
    )
    _corrupt_writes(monkeypatch, damage)
    with pytest.raises(ReadBackError, match=said) as caught:
        services.migrate(session, make_plan(session), {destination, Destination.MARKDOWN})
    assert str(caught.value).startswith(f"The written {destination.value} session ")
    root = codex_home().root if destination == Destination("codex") else claude_home().projects
    assert not [p for p in root.rglob("*.jsonl") if p.is_file()]  # rolled back, index included
    assert not list((services.paths.data_dir / "exports").rglob("*.md"))
    assert services.store.list() == []


def test_an_intact_write_passes_the_read_back(tmp_path: Path) -> None:
    services = build_services()
    session = make_session(tmp_path / "src", agent=Agent("claude"))
    result = services.migrate(session, make_plan(session, keep_last=2), {Destination("codex"), Destination("claude")})
    stored = services.store.get(result.migration_id)
    assert len(result.outputs) == 2 and stored.outputs == result.outputs
    assert (stored.left_out, stored.left_out_tokens) == (9, 90)  # the figures of the note and placeholder
    for output in result.outputs:
        assert "9 earlier messages (90 tokens) were left out" in Path(output.path).read_text(encoding="utf-8")


def test_session_index_is_only_appended_to(isolated_homes: dict[str, Path]) -> None:
    index = codex_home().root / "session_index.jsonl"
    index.parent.mkdir(parents=True)
    theirs = '{"id":"a","thread_name":"mine","updated_at":"2026-01-01T00:00:00Z"}'
    index.write_text(theirs)  # Codex left the last line unterminated
    append_session_index(codex_home(), '{"id":"b","thread_name":"smig","updated_at":"x"}\n')
    assert index.read_text() == theirs + '\n{"id":"b","thread_name":"smig","updated_at":"x"}\n'
    assert [json.loads(line)["id"] for line in index.read_text().splitlines()] == ["a", "b"]


def test_session_index_that_is_not_a_regular_file_is_left_alone(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    services = build_services()
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text("precious\n")
    codex_home().root.mkdir(parents=True)
    os.symlink(elsewhere, codex_home().root / "session_index.jsonl")
    with pytest.raises(SmigError, match="session_index.jsonl"):
        append_session_index(codex_home(), '{"id":"b"}\n')
    assert elsewhere.read_text() == "precious\n"
    session = make_session(tmp_path / "src", agent=Agent("claude"))
    with pytest.raises(SmigError):
        services.migrate(session, make_plan(session), {Destination("codex")})
    assert not list(codex_home().root.rglob("rollout-*.jsonl")) and services.store.list() == []
    assert elsewhere.read_text() == "precious\n"


def test_the_rollout_records_a_model_codex_runs(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    services = build_services()
    assert recorded_model(codex_home(), "gpt-5.2-codex") == "gpt-5.2-codex"
    assert recorded_model(codex_home(), "tiny") == "gpt-5.5"  # Codex's default
    codex_home().root.mkdir(parents=True)
    (codex_home().root / "config.toml").write_text('model = "gpt-5.4"\n')
    assert recorded_model(codex_home(), "claude-sonnet-4-5") == "gpt-5.4"  # the receiving home's default
    session = make_session(tmp_path / "src", agent=Agent("claude"))
    result = services.migrate(session, make_plan(session, target="tiny"), {Destination("codex")})
    lines = [json.loads(line) for line in Path(result.outputs[0].path).read_text().splitlines()]
    assert {line["payload"]["model"] for line in lines if line["type"] == "turn_context"} == {"gpt-5.4"}
    assert lines[0]["payload"]["smig_lineage"]["planning_target"] == "tiny"
    assert services.store.get(result.migration_id).target == "tiny"


@pytest.mark.parametrize(("destination", "name"), [("codex", "Codex"), ("gemini", "Gemini"), ("qwen", "Qwen Code")])
def test_a_written_file_its_reader_does_not_list_is_one_sentence(
    tmp_path: Path, isolated_homes: dict[str, Path], destination: str, name: str
) -> None:
    """`read_listed`, the read-back of the agents keeping one file per session: written, then made
    unlistable (no session in it), the file reads back as one sentence naming the agent and the path."""
    services = build_services()
    session = make_session(tmp_path / "src", agent=Agent("claude"))
    [output] = services.migrate(session, make_plan(session), {Destination(destination)}).outputs
    Path(output.path).write_text("not a session\n", encoding="utf-8")
    writer = services.agent_profile(destination).writer(services.paths, services.env)
    with pytest.raises(ReadBackError) as caught:
        writer.read_back(output)
    assert str(caught.value) == f"The written {name} session {output.path} cannot be read back."
