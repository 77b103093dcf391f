r"""Measures how a provider's tokenizer compares with smig's count, from the usage real transcripts logged.

    python -m smig_devtools.calibrate ../shared/fixtures/claude [more dirs or files] [--json]

The ratio is `core.calibration.measure_growth`'s (logged prompt growth over smig's o200k count of
the same messages); a transcript needs `MIN_COUNTED` measurable tokens to give one. Transcripts are
grouped by the tokenizer family of their model, and each family's spread is printed: the
`tokenizers` factors in `data/models.json` come from this.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smig_tui.core.calibration import measure_growth
from smig_tui.core.models import Session

if TYPE_CHECKING:
    from smig_tui.services import Services


def main(argv: list[str] | None = None) -> int:
    """Measure the given transcripts and print each one's ratio and each family's spread."""
    parser = argparse.ArgumentParser(prog="python -m smig_devtools.calibrate", description=__doc__.split("\n")[0])
    parser.add_argument(
        "paths", nargs="+", type=Path, help="Claude Code transcripts or Codex rollouts, or folders of them"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = measure_files(session_files(args.paths))
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        print(
            f"{row['file'][:70]:70} {row['model'] or '?':28} {row['family']:12} "
            f"{row['logged']:>8,} / {row['counted']:>8,} = {row['ratio'] or '-'}{'' if row['trusted'] else ' (too little)'}"
        )
    families: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row["trusted"]:
            families.setdefault(row["family"], []).append(row)
    for family, trusted in sorted(families.items()):
        ratios = [row["ratio"] for row in trusted]
        held_out = leave_one_out(trusted)
        spread = f"; each left out of the fit misses by {', '.join(f'{e:+.1%}' for e in held_out)}" if held_out else ""
        print(
            f"{family}: {len(ratios)} transcripts, ratio {min(ratios):.2f}-{max(ratios):.2f}, "
            f"median {sorted(ratios)[len(ratios) // 2]:.2f}{spread}"
        )
    return 0


def leave_one_out(rows: Sequence[dict[str, Any]]) -> list[float]:
    """Each transcript's miss when the ratio is fitted on the others (logged over counted, pooled):
    the held-out error of a family's factor measured from logged usage (empty with fewer than 2)."""
    misses = []
    for row in rows:
        others = [other for other in rows if other is not row]
        counted = sum(other["counted"] for other in others)
        if not others or not counted:
            continue
        fitted = sum(other["logged"] for other in others) / counted
        misses.append(round(fitted / (row["logged"] / row["counted"]) - 1, 4))
    return misses


def measure_files(files: Sequence[Path]) -> list[dict[str, Any]]:
    """Read each transcript the way smig does (in a scratch home) and measure it."""
    rows: list[dict[str, Any]] = []
    with scratch_sessions(files) as (services, sessions):
        table = services.capacities
        counter_model = table.lookup("gpt-5.5")  # o200k_base, calibration 1: smig's raw count
        for session in sessions:
            growth = measure_growth(session, services.count_session(session, counter_model))
            model = table.get(session.info.model) if session.info.model else None
            raw = growth.logged / growth.counted if growth.counted else None
            rows.append(
                {
                    "file": Path(session.info.path).name,
                    "model": session.info.model,
                    "family": model.tokenizer if model else "?",
                    "logged": growth.logged,
                    "counted": growth.counted,
                    "stretches": growth.stretches,
                    "ratio": round(raw, 3) if raw else None,
                    "trusted": growth.ratio is not None,
                }
            )
    return sorted(rows, key=lambda row: str(row["file"]))


def session_files(paths: Iterable[Path]) -> list[Path]:
    """The Claude Code transcripts and Codex rollouts (plain or `.zst`) given, or inside the folders given."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        else:
            found.extend(f for f in path.glob("*.jsonl*") if f.name.endswith((".jsonl", ".jsonl.zst")))
    return sorted(found)


@contextmanager
def scratch_sessions(files: Sequence[Path]) -> Iterator[tuple[Services, list[Session]]]:
    """Copy transcripts into a scratch home and load every session there (sub-agents too), read-only on the originals."""
    from smig_tui.services import build_services

    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        project = home / "claude" / "projects" / "calibration"
        project.mkdir(parents=True)
        rollouts = home / "codex" / "sessions" / "2026" / "01" / "01"
        rollouts.mkdir(parents=True)
        for file in files:
            is_codex = (
                file.name.endswith(".zst")
                or '"session_meta"' in file.read_text(encoding="utf-8", errors="replace")[:4000]
            )
            name = file.name if not is_codex or file.name.startswith("rollout-") else f"rollout-{file.name}"
            shutil.copy(file, (rollouts if is_codex else project) / name)
        services = build_services(
            {
                "HOME": scratch,
                "SMIG_TUI_HOME": str(home / "smig"),
                "CODEX_HOME": str(home / "codex"),
                "CLAUDE_CONFIG_DIR": str(home / "claude"),
            }
        )
        sessions = [services.load_session(info) for info in services.list_sessions(include_subagents=True)]
        yield services, sessions


if __name__ == "__main__":
    sys.exit(main())
