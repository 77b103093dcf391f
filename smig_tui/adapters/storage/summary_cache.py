"""Provides the on-disk cache of written summaries, so re-opening a preview sends nothing again."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from smig_tui.adapters.fs import atomic_write
from smig_tui.core.summary import SummaryResult
from smig_tui.core.summary_prompt import PROMPT_VERSION

_KEY = re.compile(r"[0-9a-f]{64}")


class SummaryCache:
    """Summaries keyed by `SummaryJob.cache_key(...)`, one JSON file each."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        """Return the file for a key; keys are hex digests, so no path can escape the folder."""
        if not _KEY.fullmatch(key):
            raise ValueError(f"not a summary cache key: {key!r}")
        return self.folder / f"{key}.json"

    def get(self, key: str) -> SummaryResult | None:
        """Return the cached summary; None when absent, unreadable or from another prompt."""
        try:
            record = json.loads(self._path(key).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or record.get("prompt_version") != PROMPT_VERSION:
            return None
        text = record.get("text")
        if not isinstance(text, str) or not text:
            return None
        return SummaryResult(
            text=text,
            model=str(record.get("model", "")),
            provider=str(record.get("provider", "")),
            redactions=_counts(record.get("redactions")),
            chunks=int(record.get("chunks", 1) or 1),
            cached=True,
            requests=0,
            truncated=bool(record.get("truncated", False)),
        )

    def put(self, key: str, result: SummaryResult) -> Path:
        """Store a summary atomically (mode 0600: it is derived from a private conversation)."""
        record = {
            "prompt_version": result.prompt_version,
            "text": result.text,
            "model": result.model,
            "provider": result.provider,
            "redactions": result.redactions,
            "chunks": result.chunks,
            "truncated": result.truncated,
        }
        path = self._path(key)
        atomic_write(path, json.dumps(record, ensure_ascii=False, indent=1) + "\n")
        return path


def _counts(value: Any) -> dict[str, int]:
    """Read a redaction-count mapping back, ignoring anything malformed."""
    if not isinstance(value, dict):
        return {}
    return {str(kind): int(n) for kind, n in value.items() if isinstance(n, int)}
