"""One JSON shape per object (issue 36): `--json` and the MCP tools give each object from one function of
`services/json_shapes.py`, each function gives exactly the keys `SHAPES` documents (docs/json.md is made
from them), and the MCP output schema declares those keys.

Each comparison runs the real CLI in-process and the real tool bodies on the fixture homes; the MCP
side is the shared object inside its envelope (paging fields, the homes searched), nothing else.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_runner import smig

from smig_tui.mcp.schemas import TOOLS, _check_value
from smig_tui.mcp.tools import SmigTools
from smig_tui.services import build_services, json_shapes

CLAUDE_MAIN = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"
PAGING = {"offset", "next_offset", "next_page"}
"""What `page_items` adds around a page: the MCP envelope, never part of an object."""


def _shape(name: str) -> tuple[str, ...]:
    return next(shape for shape in json_shapes.SHAPES if shape.name == name).key_names


def _cli_json(*argv: str) -> Any:
    code, stdout, stderr = smig(*argv, "--json")
    assert code == 0, stderr
    return json.loads(stdout)


def _every_page(call: Any, key: str, **arguments: Any) -> dict[str, Any]:
    """A paged tool's result with its `key` items from every page, and the paging fields left out."""
    page = call(**arguments, max_chars=40_000)
    items = list(page[key])
    while page["next_offset"] is not None:
        page = call(**arguments, max_chars=40_000, offset=page["next_offset"])
        items += page[key]
    return {name: value for name, value in page.items() if name not in PAGING} | {key: items}


def test_the_docs_list_every_object_once_and_each_key_once() -> None:
    names = [shape.name for shape in json_shapes.SHAPES]
    assert len(names) == len(set(names))
    for shape in json_shapes.SHAPES:
        assert len(shape.key_names) == len(set(shape.key_names)), shape.name
        assert all(meaning for _, meaning in shape.keys), shape.name
    text = (Path(__file__).resolve().parent.parent / "docs" / "json.md").read_text(encoding="utf-8")
    assert json_shapes.shapes_markdown() in text  # scripts/docs.py wrote it from SHAPES


def test_each_function_gives_exactly_the_keys_its_shape_documents(fake_home: dict[str, Path]) -> None:
    from smig_tui.core.models import Strategy
    from smig_tui.core.native import Destination
    from smig_tui.services import diagnose

    services = build_services()
    info = services.find_session(CLAUDE_MAIN)
    assert tuple(json_shapes.session_json(info)) == _shape("session")
    session = services.load_session(info)
    plan = services.plan(session, "gpt-4", Strategy.TRUNCATE)
    assert not plan.decision.fits  # a plan that leaves something out
    assert tuple(json_shapes.decision_json(plan.decision)) == _shape("decision")
    assert (*json_shapes.plan_json(services, session, plan), "items") == _shape("plan")
    assert all(tuple(item) == _shape("item") for item in json_shapes.plan_items(plan))
    assert tuple(json_shapes.model_json(services.capacities.lookup("gemini-2.5-pro"))) == _shape("model")
    result = services.migrate(session, plan, {Destination.STORE, Destination("codex")}, dry_run=True)
    migration = json_shapes.migration_json(result, plan)
    assert tuple(migration) == _shape("migration") and migration["files"]
    hits = services.search("flag")
    assert hits and all(tuple(json_shapes.search_hit_json(hit)) == _shape("search hit") for hit in hits)
    memory = services.memory_plan()
    assert tuple(json_shapes.memory_sync_json(memory, None, show_diffs=True)) == _shape("memory sync")
    assert tuple(json_shapes.diagnosis_json(diagnose())) == _shape("diagnosis")


def test_the_model_output_schema_declares_the_model_shape_and_holds_a_real_reply(fake_home: dict[str, Path]) -> None:
    """The one tool with an `outputSchema`: its properties are the shape's keys, all required, and a real
    reply passes the schema's types (a key added to `model_json` alone fails here)."""
    [tool] = [tool for tool in TOOLS if tool["name"] == "model_context_window"]
    schema = tool["outputSchema"]
    assert tuple(schema["properties"]) == _shape("model") == tuple(schema["required"])
    for name in ("gpt-5.5", "gemini-2.5-pro", "claude-sonnet-4"):  # exact; per class; retired
        reply = SmigTools(build_services()).model_context_window(name)
        assert tuple(reply) == _shape("model")
        problems = {key: _check_value(value, schema["properties"][key]) for key, value in reply.items()}
        assert not any(problems.values()), problems


def test_models_json_and_the_mcp_model_tools_give_one_model_alike(fake_home: dict[str, Path]) -> None:
    tools = SmigTools(build_services())
    [cli] = _cli_json("models", "gemini-2.5-pro")
    assert cli == tools.model_context_window("gemini-2.5-pro") and cli["agents"] and cli["calibration_classes"]
    listed = _every_page(tools.list_known_models, "models", query="claude")
    assert listed["models"] == _cli_json("models", "claude") and listed["count"] == len(listed["models"]) > 1


def test_list_json_and_the_mcp_listing_give_one_shape_per_session(fake_home: dict[str, Path]) -> None:
    cli = {entry["id"]: entry for entry in _cli_json("list", "--all")}
    mcp = SmigTools(build_services()).list_sessions(limit=500, max_chars=40_000)["sessions"]
    assert len(mcp) >= 2 and {entry["id"] for entry in mcp} <= set(cli)  # MCP leaves sub-agents out
    for entry in mcp:
        assert tuple(entry) == _shape("session") and entry == cli[entry["id"]]


@pytest.mark.parametrize("target", ["gpt-4", "gemini-2.5-pro"])  # an exact count; one measured per class of text
def test_plan_json_is_the_mcp_preview_inside_its_envelope(fake_home: dict[str, Path], target: str) -> None:
    cli = _cli_json("plan", CLAUDE_MAIN, "-t", target)
    mcp = _every_page(
        SmigTools(build_services()).preview_migration, "items", session_id=CLAUDE_MAIN, target_model=target
    )
    assert set(mcp.pop("searched")) >= {"codex", "claude"}  # the envelope: the homes read
    assert mcp == cli and tuple(cli) == _shape("plan") and cli["agent_overhead"]["assumed"]
    if target == "gpt-4":  # a plan that leaves messages out
        assert not cli["decision"]["fits"] and cli["dropped_count"] > 0
    else:  # the ± of this session's mix of text classes, as both give it
        assert cli["calibration_mix"] and sum(cli["calibration_mix"].values()) == pytest.approx(1, abs=0.01)


def test_migrate_json_is_the_mcp_commit_and_the_stored_record(fake_home: dict[str, Path]) -> None:
    """A dry run both ways: the same object, its fresh ids aside; the CLI adds the record and each file's text."""
    cli = _cli_json("migrate", CLAUDE_MAIN, "-t", "gpt-4", "--to", "codex", "--to", "markdown", "--dry-run")
    mcp = SmigTools(build_services()).commit_migration(CLAUDE_MAIN, "gpt-4", to=["codex", "markdown"], dry_run=True)
    assert set(mcp.pop("searched")) >= {"codex", "claude"}
    record = cli.pop("record")
    assert record["id"] == cli["migration_id"] and record["messages"] and tuple(record) == _shape("stored migration")
    assert all(entry.pop("data") for entry in cli["files"])
    assert _without_ids(cli) == _without_ids(mcp) and tuple(mcp) == _shape("migration")
    assert "<written at>" in _without_ids(cli)  # the rollout's time was there to mask
    codex, markdown = sorted(mcp["files"], key=lambda entry: entry["destination"])
    assert codex["resume_argv"] and codex["session_id"] and markdown["session_id"] is None
    written = SmigTools(build_services()).commit_migration(CLAUDE_MAIN, "gpt-4", to=["codex"])
    [latest] = written["continue_latest"]  # an object, as the CLI has always given it (MCP gave the sentence)
    assert set(latest) == {"agent", "command", "folder", "picks", "migration", "sentence"} and latest["migration"]


def _without_ids(reply: dict[str, Any]) -> str:
    """The reply's JSON with the ids a run makes afresh (the migration's, each native session's) named by role."""
    text = json.dumps(reply, sort_keys=True)
    fresh = [reply["migration_id"], *(entry["session_id"] for entry in reply["files"] if entry["session_id"])]
    for number, value in enumerate(fresh):
        text = text.replace(value, f"<id {number}>")
    # A Codex rollout's name and folders hold the second it was written: the two runs may be a second apart.
    return re.sub(r"\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}", "<written at>", text)


def test_a_stored_migration_is_one_shape_in_history_and_get_handoff(fake_home: dict[str, Path]) -> None:
    """`smig history --json` lists a stored migration as MCP's `get_handoff` gives it above the handoff, and
    each of its keys holds what the record whole holds (`smig history show --json`, the record on disk):
    a key added, renamed or spelled anew on one side alone fails here."""
    tools = SmigTools(build_services())
    written = tools.commit_migration(CLAUDE_MAIN, "gpt-4", to=["codex"])
    whole = _cli_json("history", "show", written["migration_id"])
    assert whole == json.loads(Path(written["record_path"]).read_text(encoding="utf-8"))
    assert tuple(whole) == _shape("stored migration") and whole["kept_ids"] and whole["dropped_ids"]
    [listed] = _cli_json("history")
    assert tuple(listed) == _shape("stored migration, listed") == json_shapes.STORED_MIGRATION_LISTED
    assert listed == {key: whole[key] for key in listed} and listed["outputs"] and listed["left_out"] > 0
    [output] = listed["outputs"]
    assert (
        output["resume_command"] == written["resume_commands"][0]
        and output["argv"] == written["files"][0]["resume_argv"]
    )
    handoff = _every_page(tools.get_handoff, "content", workspace=whole["source"]["cwd"], format="json")
    assert handoff.pop("content") == whole["messages"]
    assert handoff.pop("format") == "json" and "recall_omitted" in handoff.pop("recall")  # MCP's own, around it
    assert handoff == listed
    text = tools.get_handoff(whole["source"]["cwd"], max_chars=40_000)  # the Markdown handoff: the same head
    assert {key: text[key] for key in listed} == listed


def test_search_json_and_the_mcp_search_give_one_hit_alike(fake_home: dict[str, Path]) -> None:
    cli = _cli_json("search", "flag")
    mcp = _every_page(SmigTools(build_services()).search_sessions, "hits", query="flag")
    assert mcp == {"query": "flag", "total": len(cli), "hits": cli} and len(cli) > 1
    assert all("«flag»" in hit["marked"].lower() and hit["spans"] for hit in cli)


def test_memory_json_and_the_mcp_sync_give_one_sync_alike(fake_home: dict[str, Path]) -> None:
    """Report only, then applied: MCP's reply is the CLI's, less the diffs (MCP never gives a file's text)."""
    memories = fake_home["codex"] / "memories"
    memories.mkdir(parents=True)
    (memories / "memory_summary.md").write_text("# Profile\n- prefers uv\n", encoding="utf-8")
    tools = SmigTools(build_services())
    cli = _cli_json("memory", "sync", "--dry-run")
    assert cli["writes"] and all(write.pop("diff") for write in cli["writes"])
    assert tools.memory_sync() == cli and tuple(cli) == _shape("memory sync") and not cli["applied"]
    applied = tools.memory_sync(apply=True)
    assert applied["applied"] and applied["written"] == [write["path"] for write in cli["writes"]]
    again = _cli_json("memory", "sync")
    assert again == tools.memory_sync(apply=True) and again["applied"] and not again["writes"]


def test_doctor_json_is_the_diagnosis_shape(fake_home: dict[str, Path]) -> None:
    assert tuple(_cli_json("doctor")) == _shape("diagnosis")


def test_the_cli_only_objects_give_exactly_their_documented_keys(fake_home: dict[str, Path]) -> None:
    """`smig show`, `archive` and `summarize` print objects no tool returns: documented once all the same."""
    from smig_tui.core.summary import SummaryResult

    shown = _cli_json("show", CLAUDE_MAIN)
    assert tuple(shown) == _shape("session document") and tuple(shown["info"]) == _shape("session")
    assert shown["messages"] and "text" in shown["messages"][0]
    run = _cli_json("archive")
    assert tuple(run) == _shape("archive run") and run["new"] > 0
    status = _cli_json("archive", "--status")
    assert tuple(status) == _shape("archive status") and tuple(status["pending"]) == _shape("archive run")
    assert status["sessions"] == run["new"] and status["pending"]["new"] == 0
    summary = json_shapes.summary_json(SummaryResult(text="Done so far.", model="m", provider="local", requests=1))
    assert tuple(summary) == _shape("summary")  # `smig summarize --json` against a live summarizer: tests/cli
