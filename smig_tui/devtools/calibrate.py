r"""Measures how a provider's tokenizer compares with smig's count, from the usage real transcripts logged.

    python -m smig_tui.devtools.calibrate ../shared/fixtures/claude [more dirs or files] [--json]

Each model call logs the size of the prompt it was sent. Between two calls the prompt grows by
exactly the messages that came in between (the reply, tool results, the next user message), so

    ratio = sum of logged growth / sum of smig's count of those messages

compares the provider's tokenizer with the encoding smig counts in, free of the system prompt and
tool schemas the agent adds (they are in both prompts and cancel out). A stretch is skipped when
the prompt shrank (a compaction) or when it holds reasoning (Claude drops old thinking from the
prompt, so it would count on one side only). Transcripts are grouped by the tokenizer family of
their model, and each family's spread is printed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smig_tui.core.models import Agent, Kind, Message, Session
from smig_tui.core.tokens import usage_context

MIN_COUNTED = 5_000
"""Stretches must add up to this many counted tokens for a transcript's ratio to mean anything."""


@dataclass(frozen=True, slots=True)
class Growth:
    """Logged prompt growth against smig's count of the same messages, for one session."""

    logged: int
    counted: int
    stretches: int

    @property
    def ratio(self) -> float | None:
        """Logged over counted, or None when too little was measured."""
        return self.logged / self.counted if self.counted >= MIN_COUNTED and self.logged > 0 else None


def measure_growth(session: Session, counts: Sequence[int]) -> Growth:
    """Compare each logged prompt's growth with smig's counts (framed, uncalibrated) of what came between."""
    calls = _calls(session.messages, session.info.agent)
    logged = counted = stretches = 0
    for (start, prompt), (next_start, next_prompt) in zip(calls, calls[1:], strict=False):
        between = session.messages[start:next_start]
        growth = next_prompt - prompt
        if growth <= 0 or any(m.kind is Kind.REASONING for m in between):
            continue
        logged += growth
        counted += sum(counts[start:next_start])
        stretches += 1
    return Growth(logged, counted, stretches)


def _calls(messages: Sequence[Message], agent: Agent) -> list[tuple[int, int]]:
    """Return (first message index, logged prompt size) of each model call, once per call."""
    calls: list[tuple[int, int]] = []
    last_usage = None
    for message in messages:
        usage = message.usage
        if usage is None or usage == last_usage:
            continue  # Claude logs one record per content block, each with the call's usage
        last_usage = usage
        calls.append((message.index, usage_context(usage, agent)))
    return calls


def main(argv: list[str] | None = None) -> int:
    """Measure the given transcripts and print each one's ratio and each family's spread."""
    parser = argparse.ArgumentParser(prog="python -m smig_tui.devtools.calibrate", description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="Claude Code transcripts, or folders of them")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    files = sorted(f for p in args.paths for f in ([p] if p.is_file() else p.glob("*.jsonl")))
    rows = measure_files(files)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        print(f"{row['file'][:70]:70} {row['model'] or '?':28} {row['family']:12} "
              f"{row['logged']:>8,} / {row['counted']:>8,} = {row['ratio'] or '-'}")
    families: dict[str, list[float]] = {}
    for row in rows:
        if row["ratio"]:
            families.setdefault(row["family"], []).append(row["ratio"])
    for family, ratios in sorted(families.items()):
        print(f"{family}: {len(ratios)} transcripts, ratio {min(ratios):.2f}-{max(ratios):.2f}, "
              f"median {sorted(ratios)[len(ratios) // 2]:.2f}")
    return 0


def measure_files(files: Sequence[Path]) -> list[dict[str, Any]]:
    """Read each transcript the way smig does (in a scratch home) and measure it."""
    from smig_tui.services import build_services

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        project = home / "claude" / "projects" / "calibration"
        project.mkdir(parents=True)
        for file in files:
            shutil.copy(file, project / file.name)
        services = build_services({"HOME": scratch, "SMIG_TUI_HOME": str(home / "smig"),
                                   "CODEX_HOME": str(home / "codex"), "CLAUDE_CONFIG_DIR": str(home / "claude")})
        table = services.capacities
        counter_model = table.lookup("gpt-5.5")  # o200k_base, calibration 1: smig's raw count
        for info in services.list_sessions(include_subagents=True):
            session = services.load_session(info)
            growth = measure_growth(session, services.count_session(session, counter_model))
            model = table.get(session.info.model) if session.info.model else None
            ratio = growth.ratio
            rows.append({"file": Path(info.path).name, "model": session.info.model,
                         "family": model.tokenizer if model else "?", "logged": growth.logged,
                         "counted": growth.counted, "stretches": growth.stretches,
                         "ratio": round(ratio, 3) if ratio else None})
    return sorted(rows, key=lambda row: str(row["file"]))


if __name__ == "__main__":
    sys.exit(main())
