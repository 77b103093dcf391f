"""The user's own Codex and Claude Code configuration moves each agent's usable window, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smig_tui.services import build_services


def _codex_config(homes: dict[str, Path], text: str) -> Path:
    homes["codex"].mkdir(parents=True, exist_ok=True)
    path = homes["codex"] / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_agent_config(isolated_homes) -> None:
    table = build_services().capacities
    assert table.lookup("gpt-5.4").harness_window == 258_400
    assert table.lookup("claude-opus-5-5").harness_window == 967_000


def test_codex_model_context_window_moves_the_configured_model_up_to_its_catalog_ceiling(isolated_homes) -> None:
    path = _codex_config(isolated_homes, 'model = "gpt-5.6-sol"\nmodel_context_window = 600000\n')
    table = build_services().capacities
    (codex,) = table.lookup("gpt-5.6-sol").agents
    assert (codex.window, codex.usable) == (600_000, 570_000)
    assert str(path) in codex.source and "model_context_window 600,000" in codex.source
    assert table.lookup("gpt-5.6-sol").harness_window == 570_000
    assert table.lookup("gpt-5.6-luna").harness_window == 258_400  # another model: untouched

    _codex_config(isolated_homes, 'model = "gpt-5.6-sol"\nmodel_context_window = 2000000\n')
    (capped,) = build_services().capacities.lookup("gpt-5.6-sol").agents
    assert capped.window == 872_000 and "capped at Codex's max_context_window 872,000" in capped.source

    _codex_config(isolated_homes, 'model = "gpt-5.4"\nmodel_context_window = 2000000\n')
    (outside,) = build_services().capacities.lookup("gpt-5.4").agents  # not in Codex's catalog: held at 272,000
    assert (outside.window, outside.usable) == (272_000, 258_400)


def test_codex_auto_compact_limit_and_profiles(isolated_homes) -> None:
    _codex_config(
        isolated_homes,
        'profile = "tight"\nmodel_auto_compact_token_limit = 240000\n'
        "[profiles.tight]\nmodel_auto_compact_token_limit = 150000\n",
    )
    table = build_services().capacities
    for name in ("gpt-5.6-sol", "gpt-5.5", "gpt-5-codex"):  # no `model`: applies to whichever runs
        assert table.lookup(name).harness_window == 150_000, name
    assert table.lookup("claude-opus-5-5").harness_window == 967_000


def test_broken_codex_config_is_ignored(isolated_homes) -> None:
    _codex_config(isolated_homes, "model_context_window = [not toml\n")
    assert build_services().capacities.lookup("gpt-5.5").harness_window == 258_400


@pytest.mark.parametrize("where", ["env", "settings"])
def test_claude_code_disable_1m_holds_native_1m_models_to_200k(isolated_homes, monkeypatch, where: str) -> None:
    if where == "env":
        monkeypatch.setenv("CLAUDE_CODE_DISABLE_1M_CONTEXT", "1")
    else:
        isolated_homes["claude"].mkdir(parents=True)
        (isolated_homes["claude"] / "settings.json").write_text(
            json.dumps({"env": {"CLAUDE_CODE_DISABLE_1M_CONTEXT": "true"}}), encoding="utf-8"
        )
    table = build_services().capacities
    (claude,) = table.lookup("claude-opus-5-5").agents
    assert (claude.window, claude.usable) == (200_000, 167_000)
    assert "CLAUDE_CODE_DISABLE_1M_CONTEXT" in claude.source
    assert table.lookup("claude-haiku-4-5").harness_window == 167_000  # 200K natively: unchanged
    assert table.lookup("claude-opus-5-5").context_window == 1_000_000  # the API window stays


def test_config_harness_window_wins_over_agent_config(isolated_homes) -> None:
    _codex_config(isolated_homes, "model_context_window = 800000\n")
    services = build_services()
    assert services.capacities.lookup("gpt-6-sol").harness_window == 760_000
    services = build_services()
    services.config = {"models": {"gpt-6-sol": {"harness_window": 500_000}}}
    assert services.capacities.lookup("gpt-6-sol").harness_window == 500_000


def _qwen_settings(homes: dict[str, Path], settings: dict) -> Path:
    path = homes["home"] / ".qwen" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings), encoding="utf-8")
    return path


def test_qwen_code_settings_move_its_window_compaction_share_and_session_limit(isolated_homes) -> None:
    """`model.generationConfig.contextWindowSize` (for `model.name`), `context.autoCompactThreshold` and
    `model.sessionTokenLimit` in Qwen Code 0.24.4's settings.json, each said in the source."""
    (default,) = build_services().capacities.lookup("qwen3-coder-plus").agents
    assert (default.window, default.usable) == (1_000_000, 850_000)
    path = _qwen_settings(
        isolated_homes,
        {"model": {"name": "qwen3-coder-plus", "generationConfig": {"contextWindowSize": 300_000}}},
    )
    table = build_services().capacities
    (qwen,) = table.lookup("qwen3-coder-plus").agents
    assert (qwen.window, qwen.usable) == (300_000, 255_000)
    assert qwen.source == f"model.generationConfig.contextWindowSize 300,000 in {path}"
    assert table.lookup("qwen3-max").agents[0].window == 262_144  # another model: untouched
    _qwen_settings(isolated_homes, {"context": {"autoCompactThreshold": 0.5}, "model": {"sessionTokenLimit": 90_000}})
    table = build_services().capacities
    assert [(a.window, a.usable) for a in table.lookup("qwen3-max").agents] == [(262_144, 90_000)]
    (plus,) = table.lookup("qwen3-coder-plus").agents
    assert (plus.window, plus.usable) == (1_000_000, 90_000) and "model.sessionTokenLimit 90,000" in plus.source
    _qwen_settings(isolated_homes, {"context": {"autoCompactThreshold": 0.5}})
    (half,) = build_services().capacities.lookup("qwen3-max").agents
    assert half.usable == 131_072 and "context.autoCompactThreshold 0.5" in half.source
    _qwen_settings(isolated_homes, {"context": {"autoCompactThreshold": 7}, "model": {"sessionTokenLimit": "lots"}})
    (ignored,) = build_services().capacities.lookup("qwen3-max").agents  # values Qwen Code ignores, smig too
    assert (ignored.window, ignored.usable) == (262_144, 222_822)


def test_qwen_home_moves_the_settings_read(isolated_homes, monkeypatch, tmp_path) -> None:
    folder = tmp_path / "qwen-home"
    folder.mkdir()
    (folder / "settings.json").write_text(json.dumps({"model": {"sessionTokenLimit": 50_000}}), encoding="utf-8")
    monkeypatch.setenv("QWEN_HOME", str(folder))
    (qwen,) = build_services().capacities.lookup("qwen3-coder-plus").agents
    assert qwen.usable == 50_000 and str(folder / "settings.json") in qwen.source
