from __future__ import annotations

import pytest

from smig_tui.adapters.capacity_table import load_builtin, load_capacities
from smig_tui.adapters.config_file import load_config
from smig_tui.core.capacity import normalise, parse_table
from smig_tui.core.errors import ConfigError, UnknownModelError


@pytest.fixture(scope="module")
def table():
    return load_builtin()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("gpt-5-1-codex-2025-11-13", "gpt-5.1-codex"),  # as Codex logs it in turn_context
        ("openai/gpt-5.1-codex", "gpt-5.1-codex"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("anthropic/claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
        ("us.anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"),
        ("claude-sonnet-4-5[1m]", "claude-sonnet-4-5[1m]"),
        ("claude-opus-4-6[1m]", "claude-opus-4-6"),  # already 1M natively
        ("deepseek/deepseek-chat", "deepseek-chat"),
        ("GPT-4o-2024-08-06", "gpt-4o"),
        ("opus", "claude-opus-5-5"),
    ],
)
def test_lookup_normalises_names(table, name: str, expected: str) -> None:
    assert table.lookup(name).name == expected


def test_one_m_variant_is_larger(table) -> None:
    assert table.lookup("claude-sonnet-4-5[1m]").context_window == 1_000_000
    assert table.lookup("claude-sonnet-4-5").context_window == 200_000


def test_builtin_table_is_sound(table) -> None:
    providers = {m.provider for m in table.models}
    assert {
        "openai",
        "anthropic",
        "google",
        "deepseek",
        "qwen",
        "moonshot",
        "zhipu",
        "mistral",
        "xai",
        "meta",
    } <= providers
    keys = [normalise(n) for m in table.models for n in (m.name, *m.aliases)]
    assert len(keys) == len(set(keys)), "two models claim the same name or alias"
    for model in table.models:
        assert model.source and model.max_output <= model.context_window
    assert table.lookup("gpt-5-codex").harness_window == 258_400  # 95% of 272,000
    assert table.lookup("gpt-3.5-turbo").encoding == "cl100k_base"


def test_unknown_model_suggests_close_names(table) -> None:
    with pytest.raises(UnknownModelError) as caught:
        table.lookup("claude-sonet-4-5")
    assert "claude-sonnet-4-5" in caught.value.suggestions
    assert "Did you mean" in str(caught.value)


def test_search(table) -> None:
    names = [m.name for m in table.search("kimi")]
    assert names and all("kimi" in n for n in names)
    assert len(table.search("")) == len(table.models)
    assert table.search("openai codex")  # every word must match


def test_overrides_and_new_models_from_toml(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[models."gpt-4o"]\ncontext_window = 64000\n\n'
        '[models."my-local-qwen"]\ncontext_window = 32768\nmax_output = 4096\nprovider = "ollama"\n'
        'aliases = ["qwen-local"]\ncalibration = 1.1\n',
        encoding="utf-8",
    )
    table = load_capacities(load_config(path), path)
    assert table.lookup("gpt-4o").context_window == 64000
    assert table.lookup("gpt-4o").max_output == 16384  # untouched fields stay
    local = table.lookup("qwen-local")
    assert (local.name, local.provider, local.calibration) == ("my-local-qwen", "ollama", 1.1)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[models."x"]\nmax_output = 5\n', r"models\.x\.context_window is required"),
        ('[models."gpt-4o"]\ncontext_window = "big"\n', r"models\.gpt-4o\.context_window must be a int"),
        ('[models."gpt-4o"]\nwindow = 5\n', r"models\.gpt-4o\.window is not a model field"),
        ('[models."gpt-4o"]\nencoding = "p50k_base"\n', r"encoding must be one of"),
        ('[models."gpt-4o"]\nharness_window = 999999\n', r"harness_window cannot exceed"),
    ],
)
def test_override_errors_name_file_and_key(tmp_path, toml: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError, match=message) as caught:
        load_capacities(load_config(path), path)
    assert str(path) in str(caught.value)


def test_parse_table_rejects_non_mapping() -> None:
    with pytest.raises(ConfigError):
        parse_table(["gpt"], "here")  # type: ignore[arg-type]


def test_the_shipped_table_is_parsed_once_and_the_users_models_are_read_on_every_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every `build_services` builds the capacities: the shipped table is kept for the process while its
    file is unchanged, but the user's `[models]` is applied again each time, so an edit shows at once."""
    from smig_tui.adapters import capacity_table
    from smig_tui.services.root import build_services

    parsed: list[str] = []
    real_parse = capacity_table.parse_table

    def counting(*args: object, **kwargs: object) -> object:
        parsed.append("table")
        return real_parse(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(capacity_table, "parse_table", counting)
    monkeypatch.setattr(capacity_table, "_KEPT", {})
    services = build_services()
    shipped = services.capacities.lookup("gpt-4o").context_window
    config = services.paths.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    for window in (64000, 32000):
        config.write_text(f'[models."gpt-4o"]\ncontext_window = {window}\n', encoding="utf-8")
        assert build_services().capacities.lookup("gpt-4o").context_window == window
    config.unlink()
    assert build_services().capacities.lookup("gpt-4o").context_window == shipped != 64000
    assert parsed == ["table"]
    assert load_builtin() is load_builtin()  # the same table, not a copy per call
