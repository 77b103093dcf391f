"""Kilo Code's profile and writer without the client: window rule, overhead, memory, the import document.

That the real `kilo import` takes the document and `kilo run -s` / `-c` resume it is proven in
tests/e2e/test_kilo_real_client.py.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from kilo_builders import FIXTURE, RECORDED_ROOT, install_database
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents import registry
from smig_tui.adapters.agents.kilo import KILO, PROFILE, resume_argv
from smig_tui.adapters.agents.opencode.home import resolve_home, session_ref
from smig_tui.adapters.agents.opencode.writer import OpenCodeWriter
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core import agent_rules
from smig_tui.core.errors import SmigError
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination, NativeOutput, PlannedFile
from smig_tui.services import Services, build_services


def test_the_overhead_is_the_one_measured_from_kilos_request() -> None:
    measured = json.loads((FIXTURE / "overhead.json").read_text(encoding="utf-8"))
    assert PROFILE.overhead is not None and PROFILE.overhead.tokens == measured["total"]
    assert dict(PROFILE.overhead.parts) == {k: v for k, v in measured.items() if isinstance(v, int) and k != "total"}
    assert build_services().agent_overheads["kilo"].tokens == 12_119


@pytest.mark.parametrize(
    ("window", "auto_compact", "usable"),
    [(200_000, None, 168_000), (1_000_000, None, 968_000), (20_000, None, 10_000), (200_000, 100_000, 100_000)],
)
def test_kilo_compacts_a_window_less_its_capped_output(window: int, auto_compact: int | None, usable: int) -> None:
    assert agent_rules.usable_window("kilo", window, auto_compact) == usable


def test_it_is_a_registered_agent_with_its_resume_command() -> None:
    assert registry.profile_of("kilo") is PROFILE and PROFILE.name == "Kilo Code"
    assert resume_argv("ses_x") == ("kilo", "-s", "ses_x") and PROFILE.import_command == "kilo import"
    assert PROFILE.is_client("kilo-code") and not PROFILE.is_client("opencode")


def _dry_run(tmp_path: Path, keep_last: int | None = None) -> tuple[dict, object]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(project))
    result = build_services().migrate(
        session, make_plan(session, "gpt-5.5", keep_last), {Destination("kilo")}, dry_run=True
    )
    [planned] = [f for f in result.files if f.destination == Destination("kilo")]
    return json.loads(planned.data), result


def test_the_import_document_is_kilos_and_names_its_configured_model(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    config = isolated_homes["home"] / ".config" / "kilo" / "kilo.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"model": "fake/gpt-4.1"}), encoding="utf-8")
    document, result = _dry_run(tmp_path)
    info, messages = document["info"], document["messages"]
    assert info["version"] == "7.7.7" and info["directory"] == str(tmp_path / "project")
    assert {m["info"]["agent"] for m in messages} == {"code"}  # Kilo's default agent, not OpenCode's `build`
    assert {m["info"].get("modelID") or m["info"]["model"]["modelID"] for m in messages} == {"gpt-4.1"}
    ids = [m["info"]["id"] for m in messages]
    assert ids == sorted(ids)  # Kilo orders a session's messages by id
    [output] = result.outputs  # type: ignore[attr-defined]
    assert output.agent == "kilo" and output.resume_command.endswith(f"kilo -s {info['id']}")
    assert output.path == session_ref(isolated_homes["home"] / ".local" / "share" / "kilo" / "kilo.db", info["id"])
    texts = "\n".join(m["parts"][0]["text"] for m in messages)
    assert "PELICAN-77" in texts and "OSPREY-93" in texts


def test_kilo_config_dir_moves_the_config_the_model_is_read_from(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "kilo-config"
    folder.mkdir()
    (folder / "opencode.json").write_text(json.dumps({"model": "local/qwen3-coder"}), encoding="utf-8")
    monkeypatch.setenv("KILO_CONFIG_DIR", str(folder))
    document, _ = _dry_run(tmp_path)
    assert document["messages"][0]["info"]["model"] == {"providerID": "local", "modelID": "qwen3-coder"}


def test_without_the_kilo_command_the_write_is_refused_by_name(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "")
    writer = PROFILE.writer(resolve_paths(), None)
    assert writer is not None
    assert writer.unavailable() == (
        "Writing a Kilo Code session needs the `kilo` command (not found on PATH; SMIG_KILO_BIN can name it)."
    )


def test_continue_latest_is_the_newest_session_of_the_folder_not_of_the_project(
    isolated_homes: dict[str, Path],
) -> None:
    database = install_database(isolated_homes["home"] / ".local" / "share" / "kilo" / "kilo.db")
    tools = "ses_dbbf2f7deffe7eJlBs3YSWIbyp"  # in work/tools; newer sessions of the same project are elsewhere
    writer = OpenCodeWriter(resolve_home(None, KILO), isolated_homes["smig"] / "kilo-imports")
    document = json.dumps({"info": {"directory": f"{RECORDED_ROOT}/tools"}})
    native = NativeOutput("kilo", session_ref(database, tools), tools, resume_argv(tools), f"{RECORDED_ROOT}/tools")
    fact = writer.settle(PlannedFile(Destination("kilo"), "doc.json", document, native=native))
    assert fact is not None and fact.migration and fact.command == "kilo -c"


def _memory(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    ctx = Context(out=Output(stdout=out, stderr=err))
    ctx.__dict__["services"] = Services(paths=resolve_paths())
    return main(["memory", *argv], ctx), out.getvalue()


def test_memory_sync_reads_and_writes_kilos_global_agents_md(isolated_homes: dict[str, Path]) -> None:
    config = isolated_homes["home"] / ".config" / "kilo"
    config.mkdir(parents=True)
    (config / "AGENTS.md").write_text("# Kilo rules\n- KILO-NOTE: tabs, never spaces.\n", encoding="utf-8")
    memories = isolated_homes["codex"] / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text("- CODEX-NOTE: answer in French.\n", encoding="utf-8")
    code, out = _memory("sync")
    assert code == 0, out
    bundle = (config / "smig_memory.md").read_text(encoding="utf-8")
    assert "CODEX-NOTE" in bundle and "KILO-NOTE" not in bundle  # the others' memory, not its own
    rules = (config / "AGENTS.md").read_text(encoding="utf-8")
    assert rules.startswith("# Kilo rules\n") and str(config / "smig_memory.md") in rules
    claude_bundle = isolated_homes["claude"] / "smig_memory.md"
    assert "KILO-NOTE" in claude_bundle.read_text(encoding="utf-8")  # Kilo's rules cross to the others


def test_a_kilo_home_in_kilo_config_dir_takes_part_in_memory_sync(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "kilo-config"
    folder.mkdir()
    (folder / "AGENTS.md").write_text("- MOVED-NOTE\n", encoding="utf-8")
    (isolated_homes["codex"] / "memories").mkdir(parents=True)
    (isolated_homes["codex"] / "memories" / "MEMORY.md").write_text("- CODEX-NOTE\n", encoding="utf-8")
    monkeypatch.setenv("KILO_CONFIG_DIR", str(folder))
    assert _memory("sync")[0] == 0
    assert "MOVED-NOTE" in (isolated_homes["claude"] / "smig_memory.md").read_text(encoding="utf-8")
    assert str(folder / "smig_memory.md") in (folder / "AGENTS.md").read_text(encoding="utf-8")
    assert not (isolated_homes["home"] / ".config" / "kilo").exists()


def test_the_cli_plans_for_and_migrates_to_kilo_by_name(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    install_database(isolated_homes["home"] / ".local" / "share" / "kilo" / "kilo.db")
    tools = "ses_dbbf2f7deffe7eJlBs3YSWIbyp"
    out = io.StringIO()
    assert main(["plan", tools, "--target", "gpt-5.5", "--to", "kilo", "--json"], Context(out=Output(stdout=out))) == 0
    plan = json.loads(out.getvalue())
    assert plan["decision"]["overhead"] == 12_119 and plan["agent_overhead"]["agent"] == "kilo"
    out = io.StringIO()
    argv = ["migrate", tools, "--target", "gpt-5.5", "--to", "kilo", "--dry-run", "--cwd", str(tmp_path), "--json"]
    assert main(argv, Context(out=Output(stdout=out))) == 0
    assert "kilo -s ses_" in out.getvalue()


def test_with_no_kilo_config_and_no_session_the_writer_names_kilos_own_default_and_says_so(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """Not OpenCode's guess from the target (`anthropic/...`, which a Kilo install without that key
    cannot run): Kilo's own default, the gateway's free router, and the reason in the lineage."""
    opencode = isolated_homes["home"] / ".config" / "opencode" / "opencode.json"
    opencode.parent.mkdir(parents=True)
    opencode.write_text(json.dumps({"model": "anthropic/claude-sonnet-4-5"}), encoding="utf-8")  # not Kilo's
    document, _ = _dry_run(tmp_path)
    assert {m["info"]["model"]["providerID"] for m in document["messages"] if m["info"]["role"] == "user"} == {"kilo"}
    assert document["info"]["model"] == {"id": "kilo-auto/free", "providerID": "kilo"}
    folder = isolated_homes["home"] / ".config" / "kilo"
    assert document["smigLineage"]["model"] == (
        f"kilo/kilo-auto/free, Kilo Code's own default, as no `model` is set in {folder} and no Kilo Code session ran yet"
    )
    assert document["smigLineage"]["modelConfigured"] is False


def test_the_commit_says_which_model_kilo_resumes_the_session_on(isolated_homes: dict[str, Path]) -> None:
    database = install_database(isolated_homes["home"] / ".local" / "share" / "kilo" / "kilo.db")
    config = isolated_homes["home"] / ".config" / "kilo" / "kilo.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"model": "fake/gpt-4.1"}), encoding="utf-8")
    writer = OpenCodeWriter(resolve_home(None, KILO), isolated_homes["smig"] / "kilo-imports")
    provider, model, chosen = writer.chosen_model("claude-sonnet-4-5")
    assert (provider, model, chosen) == ("fake", "gpt-4.1", f"fake/gpt-4.1, the default model in {config}")
    tools = "ses_dbbf2f7deffe7eJlBs3YSWIbyp"
    native = NativeOutput("kilo", session_ref(database, tools), tools, resume_argv(tools), f"{RECORDED_ROOT}/tools")

    def settled(lineage: dict[str, object]) -> str:
        document = json.dumps({"info": {"directory": f"{RECORDED_ROOT}/tools"}, "smigLineage": lineage})
        fact = writer.settle(PlannedFile(Destination("kilo"), "doc.json", document, native=native))
        assert fact is not None and fact.migration
        return fact.sentence

    plain = f"`kilo -c` in {RECORDED_ROOT}/tools continues this migration."
    assert settled({"model": chosen, "modelConfigured": True}) == plain  # the user's own default: nothing to add
    config.unlink()  # no config: the newest session's model, which the commit points out
    provider, model, chosen = writer.chosen_model(None)
    assert chosen == f"{provider}/{model}, the model of the newest Kilo Code session (no `model` in {config.parent})"
    assert settled({"model": chosen, "modelConfigured": False}) == f"{plain} Kilo Code resumes it on {chosen}."


def test_a_missing_session_of_kilos_database_is_named_as_kilos(isolated_homes: dict[str, Path]) -> None:
    """Kilo's `<database>#<id>` references have OpenCode's shape: the error names the agent whose home the
    database is, not the first agent whose references look alike."""
    from smig_tui.core.errors import SessionNotFoundError

    services = build_services()
    kilo = isolated_homes["home"] / ".local" / "share" / "kilo" / "kilo.db"
    opencode = isolated_homes["home"] / ".local" / "share" / "opencode" / "opencode.db"
    with pytest.raises(SessionNotFoundError, match=r"^No Kilo Code session ses_nope in "):
        services.find_session(f"{kilo}#ses_nope")
    with pytest.raises(SessionNotFoundError, match=r"^No OpenCode session ses_nope in "):
        services.find_session(f"{opencode}#ses_nope")
    ref = registry.row_ref(f"{kilo}#ses_nope")
    assert ref is not None and ref.refs is PROFILE.refs


def _recording_kilo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, words: str, exit_code: int) -> Path:
    """A stand-in `kilo` (SMIG_KILO_BIN) that writes its telemetry switch, a variable of the user's and
    `words` of its arguments to the file returned, then exits with `exit_code`."""
    seen = tmp_path / "seen"
    stand_in = tmp_path / "kilo"
    stand_in.write_text(f'#!/bin/sh\necho "$KILO_TELEMETRY_LEVEL|$SMIG_TEST_MARK|"{words} > {seen}\nexit {exit_code}\n')
    stand_in.chmod(0o755)
    monkeypatch.setenv("SMIG_KILO_BIN", str(stand_in))
    monkeypatch.setenv("SMIG_TEST_MARK", "the user's")
    monkeypatch.delenv("KILO_TELEMETRY_LEVEL", raising=False)
    return seen


def test_kilos_import_runs_with_its_telemetry_off_and_the_users_environment(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """smig's import is smig's act, not the user's use of Kilo: Kilo is told to send no telemetry for it
    (waiting on the upload held every import 2.4 s more offline); the rest of the environment is the
    user's. A stand-in `kilo` records what it was run with, then fails: the migration says so."""
    seen = _recording_kilo(tmp_path, monkeypatch, '"$1"', exit_code=3)
    project = tmp_path / "project"
    project.mkdir()
    session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(project))
    with pytest.raises(SmigError, match=r"`kilo import` did not create session ses_\w+ \(exit 3\)"):
        build_services().migrate(session, make_plan(session, "gpt-5.5", None), {Destination("kilo")})
    assert seen.read_text().strip() == "off|the user's|import"
    assert "KILO_TELEMETRY_LEVEL" not in os.environ  # smig's own environment is left alone


def test_the_rollbacks_session_delete_runs_with_kilos_telemetry_off_too(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rollback's `kilo session delete` (a commit whose check failed) is smig's act as much as its
    import: it runs with the same switch over the user's environment, and leaves smig's own alone."""
    database = install_database(isolated_homes["home"] / ".local" / "share" / "kilo" / "kilo.db")
    seen = _recording_kilo(tmp_path, monkeypatch, '"$*"', exit_code=0)
    writer = OpenCodeWriter(resolve_home(None, KILO), isolated_homes["smig"] / "kilo-imports")
    session_id = "ses_dbbf0dc00fffsmigfixture000"
    assert resolve_home(None, KILO).database == database and writer.exists(session_id)
    native = NativeOutput("kilo", session_ref(database, session_id), session_id, resume_argv(session_id))
    writer.uninstall(PlannedFile(Destination("kilo"), "doc.json", "{}", native=native))
    assert seen.read_text().strip() == f"off|the user's|session delete {session_id}"
    assert "KILO_TELEMETRY_LEVEL" not in os.environ
