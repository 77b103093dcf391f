"""Provides exact token counts through tiktoken: the only module that imports it."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import tiktoken

from smig_tui.adapters.tokenizers.approx_counter import ApproxCounter
from smig_tui.core.ports import TokenCounter

BATCH_MIN = 64
"""Below this many texts a thread pool costs more than it saves."""

Loader = Callable[[str], "tiktoken.Encoding"]


class TiktokenCounter:
    """Counts tokens exactly with one tiktoken encoding, batching over all cores."""

    def __init__(self, encoding: tiktoken.Encoding, threads: int | None = None) -> None:
        self._encoding = encoding
        self._threads = threads or max(1, os.cpu_count() or 1)

    @property
    def name(self) -> str:
        """The encoding's name, e.g. `o200k_base`."""
        return str(self._encoding.name)

    @property
    def exact(self) -> bool:
        """True: tiktoken is the reference tokenizer for OpenAI models."""
        return True

    def count(self, text: str) -> int:
        """Return the number of tokens in `text` (special tokens are counted as plain text)."""
        return len(self._encoding.encode_ordinary(text))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Return each text's token count, encoding in parallel for large batches.

        Each thread counts an interleaved share of the texts and keeps only the lengths:
        `encode_ordinary_batch` would hold every token list at once (gigabytes of ints for a
        500 MB session) and pays a thread hand-off per text.
        """
        if len(texts) < BATCH_MIN or self._threads == 1:
            return self._count_share(texts)
        shares = [texts[start :: self._threads] for start in range(self._threads)]
        with ThreadPoolExecutor(self._threads) as pool:
            counted = list(pool.map(self._count_share, shares))
        counts = [0] * len(texts)
        for start, share in enumerate(counted):
            counts[start :: self._threads] = share
        return counts

    def _count_share(self, texts: Sequence[str]) -> list[int]:
        """Count texts one by one; tiktoken releases the GIL while it encodes."""
        encode = self._encoding.encode_ordinary
        return [len(encode(text)) for text in texts]


def _load(encoding: str) -> tiktoken.Encoding:
    """Load an encoding by name (reads the BPE file from TIKTOKEN_CACHE_DIR or downloads it)."""
    return tiktoken.get_encoding(encoding)


def make_counter(encoding: str, loader: Loader = _load) -> TokenCounter:
    """Return an exact counter for `encoding`, or a labelled estimate when it cannot be loaded.

    Offline without a cached BPE file tiktoken raises a requests error (an OSError), a hash
    mismatch raises ValueError, and an unknown name raises ValueError too: none of them is fatal.
    Callers keep the returned counter, so a failed load is tried once per process, not per call.
    """
    try:
        return TiktokenCounter(loader(encoding))
    except (OSError, ValueError, ImportError, KeyError) as error:
        detail = str(error).splitlines()[0][:160] if str(error) else type(error).__name__
        return ApproxCounter(
            reason=f"tiktoken could not load {encoding} ({detail}); counts are estimates. "
            "Set TIKTOKEN_CACHE_DIR to a folder holding its BPE file for exact counts."
        )
