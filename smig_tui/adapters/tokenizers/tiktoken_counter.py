"""Provides exact token counts through tiktoken: the only module that imports it."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import tiktoken

from smig_tui.adapters.fs import atomic_write
from smig_tui.adapters.tokenizers.approx_counter import ApproxCounter
from smig_tui.core.errors import SmigError
from smig_tui.core.ports import TokenCounter

BATCH_MIN = 64
"""Below this many texts a thread pool costs more than it saves."""

LONG_TEXT = 1 << 20
"""Characters from which a text is counted in pieces (`pieces`)."""
_PIECE_START = re.compile(r"\n(?=[A-Za-z])")

Loader = Callable[[str], "tiktoken.Encoding"]
Deferred = Callable[[], "tiktoken.Encoding"]
"""An encoding's load, made at a counter's first count."""


def pieces(text: str) -> list[str]:
    """A long text cut about every `LONG_TEXT` characters, each cut just after a line break that a
    letter follows. Every encoding's pre-tokenizer (o200k, cl100k, p50k, r50k) ends a piece there (a
    break is never the prefix of a word, and what ends with breaks takes no letter after them), and
    tokens never cross its pieces, so the counts add up to the whole text's. Encoding it whole held
    a list of every token: 25 million ints (about 900 MB) for a 100 MB tool output."""
    return list(iter_pieces(text))


def iter_pieces(text: str) -> Iterator[str]:
    """`pieces`, made one at a time."""
    start = 0
    while len(text) - start > LONG_TEXT:
        found = _PIECE_START.search(text, start + LONG_TEXT)
        if found is None:
            break
        yield text[start : found.end()]
        start = found.end()
    yield text[start:] if start else text


class TiktokenCounter:
    """Counts tokens exactly with one tiktoken encoding, batching over all cores."""

    def __init__(
        self, encoding: tiktoken.Encoding | Deferred, threads: int | None = None, name: str | None = None
    ) -> None:
        self._loaded = encoding if isinstance(encoding, tiktoken.Encoding) else None
        self._deferred = None if isinstance(encoding, tiktoken.Encoding) else encoding
        self._name = name or str(getattr(encoding, "name", ""))
        self._loading = threading.Lock()
        self._threads = threads or max(1, os.cpu_count() or 1)

    @property
    def name(self) -> str:
        """The encoding's name, e.g. `o200k_base`."""
        return self._name

    @property
    def _encoding(self) -> tiktoken.Encoding:
        """The encoding, loaded at the first count when its load was deferred (`make_counter`)."""
        loaded = self._loaded
        if loaded is None:
            with self._loading:
                loaded = self._loaded
                if loaded is None:
                    loaded = self._loaded = self._load_deferred()
        return loaded

    def _load_deferred(self) -> tiktoken.Encoding:
        assert self._deferred is not None
        try:
            loaded = self._deferred()
        except (OSError, ValueError, ImportError, KeyError) as error:
            raise SmigError(f"tiktoken could not load {self._name} ({_first_line(error)}).") from error
        self._deferred = None
        self._after_load(loaded)
        return loaded

    def _after_load(self, encoding: tiktoken.Encoding) -> None:
        """What a counter works out from its encoding once it is loaded (nothing, here)."""

    @property
    def exact(self) -> bool:
        """True: tiktoken is the reference tokenizer for OpenAI models."""
        return True

    def count(self, text: str) -> int:
        """Return the number of tokens in `text` (special tokens are counted as plain text)."""
        if len(text) > LONG_TEXT:
            return sum(self._count_all(pieces(text)))
        return self._count_share([text])[0]

    def count_at_least(self, text: str, limit: float) -> tuple[int, int]:
        """`text`'s tokens, counted a piece at a time (`pieces`) until they pass `limit`, and the
        characters counted: all of them, or the first pieces' (whose count the whole text's adds to)."""
        total = done = 0
        for piece in iter_pieces(text):
            total += self._count_share([piece])[0]
            done += len(piece)
            if total > limit:
                break
        return total, done

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Return each text's token count, encoding in parallel for large batches; a long text is
        counted in pieces (`pieces`), shared among the threads like the other texts."""
        if not any(len(text) > LONG_TEXT for text in texts):
            return self._count_all(texts)
        owners: list[int] = []
        cut: list[str] = []
        for index, text in enumerate(texts):
            for piece in pieces(text) if len(text) > LONG_TEXT else (text,):
                owners.append(index)
                cut.append(piece)
        counts = [0] * len(texts)
        for owner, counted in zip(owners, self._count_all(cut), strict=True):
            counts[owner] += counted
        return counts

    def _count_all(self, texts: Sequence[str]) -> list[int]:
        """Each text's count, in threads for large batches.

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
        return [
            len(encode(text)) if len(text) <= PIECE_CHARS else sum(map(len, map(encode, bounded_pieces(text))))
            for text in texts
        ]


PIECE_CHARS = 1 << 16
"""Longer texts are encoded a piece at a time. Byte-pair encoding is quadratic in the length of a run
with no break in it (100 MB of capitals took minutes); a cut with no break near costs a few tokens of
exactness (at most 3 measured, on a repeated run of capitals; 0-2 on base64, hex and random letters)."""
_BREAK_WINDOW = 4096
"""How far back from a piece's end a line end or a space is looked for to cut at."""


def bounded_pieces(text: str) -> Iterator[str]:
    """`text` in pieces of at most `PIECE_CHARS` (inside one of `pieces`, which may be one long run),
    each cut where the tokenizer's own pieces break if one is near: after a line break a letter
    follows (exact, as `pieces`), else after a line end or before a space; the pieces count as the
    whole does but for a few tokens at each hard cut."""
    start = 0
    while len(text) - start > PIECE_CHARS:
        end = start + PIECE_CHARS
        window = max(start + 1, end - _BREAK_WINDOW)
        exact = [found.end() for found in _PIECE_START.finditer(text, window, end)]
        newline = text.rfind("\n", window, end)
        space = text.rfind(" ", window, end)
        if exact:
            end = exact[-1]
        elif newline > start:
            end = newline + 1
        elif space > start:
            end = space
        yield text[start:end]
        start = end
    yield text[start:]


SPLIT_DIGITS = "o200k_split_digits"
"""o200k_base with every digit its own token: the base for tokenizers that split digits (Gemma, Qwen)."""

_DIGIT_GROUP = re.compile(r"[0-9]{1,3}")
"""o200k's pre-tokenizer cuts a digit run into groups of up to three from the left; each is one token."""


class SplitDigitCounter(TiktokenCounter):
    """Counts o200k_base tokens, but one token per ASCII digit where o200k groups up to three.

    Gemma (Gemini's tokenizer) and Qwen split every digit, so number-heavy text costs them up to
    three times what o200k counts for its numbers: no single factor over plain o200k fits both
    prose and tool output. `exact` stays True in the port's sense (a deterministic count, cached on
    disk under its own name); as a count for Gemini or Qwen it is an estimate, which the model's
    encoding says (`core.capacity.counted_exactly`).
    """

    def __init__(self, encoding: tiktoken.Encoding | Deferred, threads: int | None = None) -> None:
        self._extra_of: dict[int, int] = {}
        """Each all-digit token's extra tokens once split (the token for `123` adds 2)."""
        super().__init__(encoding, threads, SPLIT_DIGITS)
        if self._loaded is not None:
            self._after_load(self._loaded)

    def _after_load(self, encoding: tiktoken.Encoding) -> None:
        for width in (2, 3):
            for n in range(10**width):
                tokens = encoding.encode_ordinary(str(n).zfill(width))
                if len(tokens) == 1:
                    self._extra_of[tokens[0]] = width - 1

    @property
    def name(self) -> str:
        """`o200k_split_digits`: its own key in the token cache and the counter registry."""
        return SPLIT_DIGITS

    def _count_share(self, texts: Sequence[str]) -> list[int]:
        """Count texts one by one, adding what splitting each all-digit token would add.

        In ASCII text every digit run is cut into groups of 1-3 digits (`\\p{N}{1,3}` in o200k's
        pattern), and every such group is a single token (all 1,110 are in the vocabulary; a test
        checks), so the extra tokens follow from the groups alone. Elsewhere another numeric
        character (`½`, `²`) may join a group, so the tokens themselves are inspected.
        """
        encode = self._encoding.encode_ordinary  # loads a deferred encoding, and `_extra_of` with it
        counts = []
        for text in texts:
            tokens = (
                encode(text)
                if len(text) <= PIECE_CHARS
                else [token for piece in bounded_pieces(text) for token in encode(piece)]
            )
            if text.isascii():
                groups = _DIGIT_GROUP.findall(text)
                extra = sum(map(len, groups)) - len(groups)
            else:
                extra = sum(self._extra_of.get(token, 0) for token in tokens)
            counts.append(len(tokens) + extra)
        return counts


_LOADED: dict[str, tiktoken.Encoding] = {}
"""Each encoding loaded in this process, by name: every Services of a process counts with the same one."""


def _load(encoding: str, saved: Path | None = None) -> tiktoken.Encoding:
    """Load an encoding by name, once per process: from smig's saved copy of its ranks in the folder
    `saved` when that copy was made from the BPE file as it is now, else as tiktoken does (reading the
    BPE file from TIKTOKEN_CACHE_DIR, or downloading it), saving the ranks there for the next process."""
    loaded = _LOADED.get(encoding)
    if loaded is None:
        place = _saved_place(saved, encoding) if saved is not None else None
        loaded = _from_saved(*place) if place is not None else None
        if loaded is None:
            loaded = tiktoken.get_encoding(encoding)
            if place is not None and vars(loaded).get("_mergeable_ranks"):
                _save(*place, loaded)
        let_go_of_ranks(loaded)
        _LOADED[encoding] = loaded
    return loaded


class SavedLoader:
    """A loader that keeps each encoding's ranks in a folder, ready to use.

    tiktoken reads a BPE file by decoding 200,000 lines of base64 in Python: 0.30 s of every smig command
    that counts (o200k), most of a plan of a small session. Unpickling the ranks takes 0.04 s, and
    building the encoding from them (tiktoken's own tables, in Rust) 0.13 s. And when the ranks are
    there, the load waits for a first count: a plan whose counts all come from the token cache makes
    none (`make_counter`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, encoding: str) -> tiktoken.Encoding:
        return _load(encoding, self.folder)

    def ready(self, encoding: str) -> bool:
        """Whether `encoding` is loaded in this process, or its ranks are saved for its BPE file as it is."""
        if encoding in _LOADED:
            return True
        place = _saved_place(self.folder, encoding)
        return place is not None and place[0].is_file()


def _saved_place(folder: Path, encoding: str) -> tuple[Path, list[Any]] | None:
    """Where `encoding`'s ranks are saved in `folder` for its BPE file as it is, and the key they are saved
    under (`_vocabulary_key`, whose digest is in the file's name, so a stat tells they are there); None
    when the BPE file is not there."""
    key = _vocabulary_key(encoding)
    if key is None:
        return None
    digest = hashlib.blake2b(repr(key).encode(), digest_size=8).hexdigest()
    return folder / f"{encoding}.{digest}.ranks", key


def _vocabulary_key(encoding: str) -> list[Any] | None:
    """What a saved copy of `encoding`'s ranks must have been made from: tiktoken's version and the BPE
    file's path, size and mtime (None when the file is not there: tiktoken then reads it its own way)."""
    path, _, present = vocabulary_file(encoding)
    if not present:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    made_by = str(getattr(tiktoken, "__version__", ""))  # not importlib.metadata: 20 ms to look up
    return [SAVED_FORMAT, made_by, encoding, path, stat.st_size, stat.st_mtime_ns]


SAVED_FORMAT = 1
"""Bumped when what `_save` writes changes."""


class _PlainData(pickle.Unpickler):
    """Unpickles dicts, strings, bytes and numbers only: a saved file can name no class or function."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name} is not plain data")


def _from_saved(path: Path, key: list[Any]) -> tiktoken.Encoding | None:
    """The encoding built from the ranks saved at `path` for `key`, or None (none saved, another key,
    or a file that is not one `_save` wrote)."""
    try:
        with open(path, "rb") as handle:
            saved = _PlainData(io.BytesIO(handle.read())).load()
        if not isinstance(saved, dict) or saved.get("key") != key:
            return None
        return tiktoken.Encoding(
            saved["name"],
            pat_str=saved["pat_str"],
            mergeable_ranks=saved["ranks"],
            special_tokens=saved["special_tokens"],
        )
    except (OSError, EOFError, pickle.UnpicklingError, KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None


def _save(path: Path, key: list[Any], encoding: tiktoken.Encoding) -> None:
    """Keep a loaded encoding's ranks at `path` for the next process; one that cannot be written is
    only a lost speed-up."""
    saved = {
        "key": key,
        "name": encoding.name,
        "pat_str": encoding._pat_str,
        "special_tokens": dict(encoding._special_tokens),
        "ranks": encoding._mergeable_ranks,
    }
    with contextlib.suppress(SmigError, OSError):
        atomic_write(path, pickle.dumps(saved, protocol=pickle.HIGHEST_PROTOCOL))
        for older in path.parent.glob(f"{encoding.name}.*.ranks"):  # made from an older BPE file
            if older != path:
                older.unlink(missing_ok=True)


def let_go_of_ranks(encoding: tiktoken.Encoding) -> None:
    """Drop the Python copy of the encoding's BPE ranks: tiktoken encodes with its Rust tables and keeps
    the dict (200,000 byte strings, 27 MB for o200k) only to pickle the encoding, which smig never does."""
    ranks = vars(encoding).get("_mergeable_ranks")
    if isinstance(ranks, dict) and ranks:
        encoding._mergeable_ranks = {}


def make_counter(encoding: str, loader: Loader = _load) -> TokenCounter:
    """Return an exact counter for `encoding`, or a labelled estimate when it cannot be loaded.

    `o200k_split_digits` is o200k_base's vocabulary counted by `SplitDigitCounter`. With a loader that
    says the encoding is `ready` (`SavedLoader`: its ranks saved for the BPE file as it is), the load
    waits for the counter's first count, which a plan whose counts are all cached never makes.

    Offline without a cached BPE file tiktoken raises a requests error (an OSError), a hash
    mismatch raises ValueError, and an unknown name raises ValueError too: none of them is fatal.
    Callers keep the returned counter, so a failed load is tried once per process, not per call.
    """
    base = "o200k_base" if encoding == SPLIT_DIGITS else encoding
    ready = getattr(loader, "ready", None)
    try:
        # When it will load, it loads at the first count, if there is one.
        source = partial(loader, base) if ready is not None and ready(base) else loader(base)
        return SplitDigitCounter(source) if encoding == SPLIT_DIGITS else TiktokenCounter(source, name=encoding)
    except (OSError, ValueError, ImportError, KeyError) as error:
        detail = _first_line(error)
        return ApproxCounter(
            reason=f"tiktoken could not load {encoding} ({detail}); counts are estimates. "
            "Set TIKTOKEN_CACHE_DIR to a folder holding its BPE file for exact counts."
        )


def _first_line(error: BaseException) -> str:
    """An error's first line, short, or its type's name."""
    return str(error).splitlines()[0][:160] if str(error) else type(error).__name__


VOCABULARY_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
"""Where tiktoken fetches an OpenAI encoding's BPE file; its cache names the file by this address's sha1."""


def vocabulary_file(encoding: str, env: Mapping[str, str] | None = None) -> tuple[str, str, bool]:
    """The BPE file an encoding is read from offline: (path, the setting that chose its folder, whether it
    is there). Reads nothing and fetches nothing, as tiktoken would look it up (`load.read_file_cached`)."""
    env = os.environ if env is None else env
    base = "o200k_base" if encoding == SPLIT_DIGITS else encoding
    if "TIKTOKEN_CACHE_DIR" in env:
        folder, chosen_by = env["TIKTOKEN_CACHE_DIR"], "TIKTOKEN_CACHE_DIR"
    elif "DATA_GYM_CACHE_DIR" in env:
        folder, chosen_by = env["DATA_GYM_CACHE_DIR"], "DATA_GYM_CACHE_DIR"
    else:
        import tempfile

        folder, chosen_by = os.path.join(tempfile.gettempdir(), "data-gym-cache"), "tiktoken's default"
    name = hashlib.sha1(VOCABULARY_URL.format(name=base).encode(), usedforsecurity=False).hexdigest()
    path = os.path.join(folder, name)
    return path, chosen_by, bool(folder) and os.path.isfile(path)
