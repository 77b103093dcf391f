from __future__ import annotations

import os
import pickle

import pytest
import tiktoken

from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.tokenizers import tiktoken_counter
from smig_tui.adapters.tokenizers.approx_counter import ApproxCounter
from smig_tui.adapters.tokenizers.tiktoken_counter import TiktokenCounter, make_counter


def _exact(encoding: str) -> TiktokenCounter:
    counter = make_counter(encoding)
    if not counter.exact:
        pytest.skip("tiktoken BPE files are not available offline here")
    return counter  # type: ignore[return-value]


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_hello_world_is_two_tokens(encoding: str) -> None:
    counter = _exact(encoding)
    assert counter.name == encoding and counter.count("hello world") == 2


def test_batches_match_single_counts_and_tiktoken() -> None:
    counter = _exact("o200k_base")
    texts = [f"def f{i}(x):\n    return x * {i}  # café ✓" for i in range(200)] + ["", "<|endoftext|>"]
    encoding = tiktoken.get_encoding("o200k_base")
    expected = [len(encoding.encode_ordinary(t)) for t in texts]
    assert counter.count_many(texts) == expected
    assert [counter.count(t) for t in texts[:5]] == expected[:5]


def test_offline_without_cache_falls_back_to_labelled_estimate(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty"))

    def no_network(*_args, **_kwargs):
        raise OSError("network is unreachable")

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    attempts: list[str] = []

    def loader(name: str) -> tiktoken.Encoding:
        attempts.append(name)
        return tiktoken.Encoding("fresh", **_constructor_args(name))

    counter = make_counter("o200k_base", loader=loader)
    assert isinstance(counter, ApproxCounter) and not counter.exact and counter.name == "estimate"
    assert "o200k_base" in counter.reason and "TIKTOKEN_CACHE_DIR" in counter.reason
    assert counter.count("hello world") > 0
    counter.count_many(["a b c"] * 10)
    assert attempts == ["o200k_base"]  # tried once, never per call


def _constructor_args(name: str) -> dict:
    from tiktoken_ext import openai_public

    return getattr(openai_public, name)()  # reads the BPE file, which now fails


def test_unknown_encoding_falls_back() -> None:
    counter = make_counter("no_such_encoding")
    assert not counter.exact


def test_estimate_is_close_to_tiktoken_on_real_text(shared_fixtures) -> None:
    counter = _exact("o200k_base")
    text = "".join(
        p.read_text(encoding="utf-8", errors="replace")[:200_000]
        for p in sorted((shared_fixtures / "claude").glob("*.jsonl"))[:4]
    )
    exact, estimate = counter.count(text), ApproxCounter().count(text)
    assert 0.7 < estimate / exact < 1.6


def test_single_thread_path(monkeypatch) -> None:
    counter = _exact("o200k_base")
    single = TiktokenCounter(tiktoken.get_encoding("o200k_base"), threads=1)
    texts = ["one two three"] * 100
    assert single.count_many(texts) == counter.count_many(texts)
    assert tiktoken_counter.BATCH_MIN > 1


def test_shortened_output_cost_never_undercounts(shared_fixtures) -> None:
    from smig_tui.core.plans import shorten_output
    from smig_tui.core.tokens import MESSAGE_OVERHEAD

    counter = _exact("o200k_base")

    def measure(text: str) -> int:
        return counter.count(text) + MESSAGE_OVERHEAD

    checked = 0
    for path in sorted((shared_fixtures / "codex").glob("*.jsonl")) + sorted(
        (shared_fixtures / "claude").glob("*.jsonl")
    ):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for start in range(0, max(1, len(lines) - 80), 40):
            text = "\n".join(lines[start : start + 80])
            result = shorten_output(text, measure(text), measure)
            if result is not None:
                short, cost = result
                assert cost >= measure(short), path.name
                checked += 1
    assert checked > 10


def test_anthropic_calibration_matches_logged_context_growth(shared_fixtures) -> None:
    """Claude logs its own count of the context per call; growth between calls vs our o200k count."""
    from smig_tui.adapters.agents.claude.source import ClaudeSource
    from smig_tui.adapters.capacity_table import load_builtin
    from smig_tui.core.models import Agent, Kind, Role, SessionInfo
    from smig_tui.core.tokens import count_messages, usage_context

    counter = _exact("o200k_base")
    source = ClaudeSource(claude_home())
    ours = theirs = 0
    for path in sorted((shared_fixtures / "claude").glob("*.jsonl")):
        stat = path.stat()
        info = SessionInfo(id=path.stem, agent=Agent("claude"), path=str(path), size=stat.st_size, mtime=stat.st_mtime)
        session = source.load(info, lambda _w: None)
        counts = count_messages(session.messages, counter)
        points = [
            (i, usage_context(m.usage, Agent("claude")))
            for i, m in enumerate(session.messages)
            if m.usage is not None and m.role is Role.ASSISTANT
        ]
        previous = None
        for index, context in points:
            if previous and context > previous[1]:
                added = sum(
                    counts[j] for j in range(previous[0], index) if session.messages[j].kind is not Kind.REASONING
                )
                if added > 200:
                    ours, theirs = ours + added, theirs + context - previous[1]
            if previous is None or context != previous[1]:
                previous = (index, context)
    assert ours > 50_000
    ratio = theirs / ours
    calibration = load_builtin().lookup("claude-sonnet-4-5").calibration
    assert 1.1 < ratio < 1.6 and abs(calibration - ratio) < 0.2


def test_a_long_text_is_counted_in_pieces_that_join_back_to_it() -> None:
    """Texts over PIECE_CHARS are encoded a piece at a time (byte-pair encoding is quadratic in a run
    with no break: 100 MB on one line took minutes): the pieces are the text, none is too long, and a
    cut falls after a line end or before a space where one is near (issue 33)."""
    code = "".join(f"def handler_{i}(request):\n    return respond(request, status={i % 500})\n" for i in range(4_000))
    one_line = " ".join(f"word{i}" for i in range(40_000))
    capitals = "ABCDEFGHIJ" * 20_000  # no break at all
    for text in (code, one_line, capitals):
        parts = list(tiktoken_counter.bounded_pieces(text))
        assert "".join(parts) == text and len(parts) > 1
        assert all(len(part) <= tiktoken_counter.PIECE_CHARS for part in parts)
    assert all(part.endswith("\n") for part in list(tiktoken_counter.bounded_pieces(code))[:-1])
    assert all(part.startswith(" ") for part in list(tiktoken_counter.bounded_pieces(one_line))[1:])


def test_a_long_text_counts_as_the_whole_does_but_for_a_few_tokens_per_hard_cut() -> None:
    counter = _exact("o200k_base")
    encoding = tiktoken.get_encoding("o200k_base")
    code = "".join(f"def handler_{i}(request):\n    return respond(request, status={i % 500})\n" for i in range(4_000))
    prose = " ".join(f"the session {i} was moved to another agent" for i in range(8_000))
    for text in (code, prose):  # cut where the tokenizer breaks anyway: exact
        assert len(text) > tiktoken_counter.PIECE_CHARS
        assert counter.count(text) == len(encoding.encode_ordinary(text))
        assert counter.count_many([text, "x"]) == [len(encoding.encode_ordinary(text)), 1]
    capitals = "ABCDEFGHIJ" * 20_000
    hard_cuts = len(list(tiktoken_counter.bounded_pieces(capitals))) - 1
    assert hard_cuts >= 2
    assert abs(counter.count(capitals) - len(encoding.encode_ordinary(capitals))) <= 3 * hard_cuts


LINES = [
    "Traceback (most recent call last):",
    '  File "/srv/app/main.py", line 120, in <module>',
    "ValueError: port 8080 is taken.",
    "total 48 -rw-r--r-- 10485760 Dec  3 19:58 big.bin/",
    "état du système: ½ prêt ✓ 日本語のテキスト 🚀",
    "it's done; they'll see /usr/bin/",
    "",
    "    indented code(x) -> y  ",
    "HTTP/1.1 200 OK\r",
    "1234567890 and 0x1F and 3.14159",
    "Camelcase WordsThatRun together.\t",
]


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base", tiktoken_counter.SPLIT_DIGITS])
def test_a_long_text_counted_in_pieces_counts_what_the_whole_text_counts(
    encoding: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long text is cut after line breaks a letter follows; every pre-tokenizer ends a piece there,
    so the pieces' counts add up to the whole text's: checked with a cut every few lines of text that
    mixes code, numbers, paths, punctuation before breaks, blank lines, CRLF and non-Latin script."""
    import random

    counter = _exact(encoding)
    rng = random.Random(7)
    text = "\n".join(rng.choice(LINES) for _ in range(3000))
    whole = counter.count_many([text])[0]
    if encoding == tiktoken_counter.SPLIT_DIGITS:
        assert whole == counter._count_share([text])[0]
    else:
        assert whole == len(tiktoken.get_encoding(encoding).encode_ordinary(text))
    monkeypatch.setattr(tiktoken_counter, "LONG_TEXT", 200)
    cut = tiktoken_counter.pieces(text)
    assert len(cut) > 100 and "".join(cut) == text
    assert counter.count(text) == whole
    assert counter.count_many(["short one", text, "x" * 500]) == [
        counter._count_share(["short one"])[0],
        whole,
        counter._count_share(["x" * 500])[0],
    ]


def test_a_long_text_counted_until_a_limit_gives_a_beginning_and_its_length() -> None:
    counter = _exact("o200k_base")
    text = "Line of output with words, numbers 12345 and symbols {}\n" * 60_000  # 3.4 MB
    whole = counter.count(text)
    part, done = counter.count_at_least(text, 1_000)
    assert 1_000 < part < whole and 0 < done < len(text)
    assert part == counter.count(text[:done])  # the beginning counted exactly, cut where pieces are cut
    assert counter.count_at_least(text, whole + 1) == (whole, len(text))


def test_a_loaded_encoding_lets_go_of_its_python_ranks_and_counts_as_a_whole_one(shared_fixture_lines) -> None:
    """tiktoken keeps its BPE ranks as a 27 MB Python dict only to pickle the encoding: smig's counters drop
    it and count every text as an encoding that keeps it (issue 35: peak RSS of a 500 MB session)."""
    counter = _exact("o200k_base")
    encoding = counter._encoding
    assert vars(encoding)["_mergeable_ranks"] == {}
    whole = tiktoken.Encoding(
        "o200k_whole",
        pat_str=encoding._pat_str,
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(tiktoken_counter.VOCABULARY_URL.format(name="o200k_base")),
        special_tokens=encoding._special_tokens,
    )
    texts = shared_fixture_lines[:3000] + ["", "<|endoftext|> café ✓ 日本語", "x" * 70_000]
    assert texts and counter.count_many(texts) == [len(whole.encode_ordinary(text)) for text in texts]
    assert encoding.n_vocab == whole.n_vocab and encoding.decode(whole.encode_ordinary("a b c")) == "a b c"


def _bpe_copy(tmp_path, monkeypatch) -> str:
    """A TIKTOKEN_CACHE_DIR of the test's own holding o200k's BPE file, so its mtime can change."""
    import shutil

    path, _, present = tiktoken_counter.vocabulary_file("o200k_base")
    if not present:
        pytest.skip("tiktoken BPE files are not available offline here")
    folder = tmp_path / "tiktoken"
    folder.mkdir()
    copy = folder / os.path.basename(path)
    shutil.copyfile(path, copy)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})
    return str(copy)


def _tiktoken_reads(monkeypatch) -> list[str]:
    """Record each encoding tiktoken itself is asked to load (reading its BPE file)."""
    reads: list[str] = []

    def recorded(name: str) -> tiktoken.Encoding:
        reads.append(name)
        return tiktoken.Encoding(**_constructor_args(name))  # not tiktoken's process-wide one

    monkeypatch.setattr(tiktoken_counter.tiktoken, "get_encoding", recorded)
    return reads


def _ranks_file(saved):
    """Where smig keeps o200k's ranks for its BPE file as it is now."""
    place = tiktoken_counter._saved_place(saved, "o200k_base")
    assert place is not None
    return place[0]


TEXTS = ["hello world", "def f(x):\n    return x * 42  # café ✓ 日本語", "<|endoftext|>", "", "1234567 ½ ²"]


def test_the_next_process_builds_the_encoding_from_its_saved_ranks(tmp_path, monkeypatch) -> None:
    """The first load reads the BPE file as tiktoken does and saves its ranks; a new process (an empty
    `_LOADED`) builds the same encoding from them, tiktoken never asked, and counts every text alike."""
    _bpe_copy(tmp_path, monkeypatch)
    reads = _tiktoken_reads(monkeypatch)
    saved = tmp_path / "cache" / "tokenizers"
    first = make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))
    assert reads == ["o200k_base"] and _ranks_file(saved).is_file()
    assert _ranks_file(saved).stat().st_mode & 0o777 == 0o600
    expected = first.count_many(TEXTS)
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})
    second = make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))
    assert reads == ["o200k_base"] and second.exact and second.name == "o200k_base"
    reference = tiktoken.Encoding(**_constructor_args("o200k_base"))
    assert second is not first and second.count_many(TEXTS) == expected
    assert expected == [len(reference.encode_ordinary(text)) for text in TEXTS]
    assert vars(second._encoding)["_mergeable_ranks"] == {}  # let go of, as a fresh load's
    split = make_counter(tiktoken_counter.SPLIT_DIGITS, tiktoken_counter.SavedLoader(saved))
    assert reads == ["o200k_base"] and split.count("1234567") == 7  # one token per digit


def test_saved_ranks_are_not_used_once_the_bpe_file_changed(tmp_path, monkeypatch) -> None:
    bpe = _bpe_copy(tmp_path, monkeypatch)
    reads = _tiktoken_reads(monkeypatch)
    saved = tmp_path / "tokenizers"
    make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))
    stat = os.stat(bpe)
    os.utime(bpe, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # rewritten, say
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})
    make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))
    assert reads == ["o200k_base", "o200k_base"]  # read again, and saved again for the new file
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})
    assert make_counter("o200k_base", tiktoken_counter.SavedLoader(saved)).count("hello world") == 2
    assert reads == ["o200k_base", "o200k_base"]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not a pickle at all",
        pickle.dumps({"key": "wrong", "name": "o200k_base"}),
        b"\x80\x05\x95" + b"\x00" * 40,
    ],
)
def test_a_saved_file_that_is_not_smigs_ranks_is_read_past_and_replaced(tmp_path, monkeypatch, content) -> None:
    _bpe_copy(tmp_path, monkeypatch)
    reads = _tiktoken_reads(monkeypatch)
    saved = tmp_path / "tokenizers"
    saved.mkdir()
    _ranks_file(saved).write_bytes(content)
    counter = make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))
    assert counter.exact and counter.count("hello world") == 2 and reads == ["o200k_base"]
    assert _ranks_file(saved).read_bytes() != content  # saved anew


def test_a_folder_where_ranks_cannot_be_saved_costs_nothing_but_the_speed_up(tmp_path, monkeypatch) -> None:
    _bpe_copy(tmp_path, monkeypatch)
    reads = _tiktoken_reads(monkeypatch)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    counter = make_counter("o200k_base", tiktoken_counter.SavedLoader(blocker / "tokenizers"))
    assert counter.exact and counter.count("hello world") == 2 and reads == ["o200k_base"]


class _Touch:
    """Pickles as a call that makes a file when unpickled."""

    def __init__(self, path) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (str(self.path), "w"))


def test_a_saved_file_is_plain_data_only_and_never_runs_a_call(tmp_path, monkeypatch) -> None:
    _bpe_copy(tmp_path, monkeypatch)
    reads = _tiktoken_reads(monkeypatch)
    saved = tmp_path / "tokenizers"
    saved.mkdir()
    marker = tmp_path / "ran"
    _ranks_file(saved).write_bytes(pickle.dumps({"key": _Touch(marker)}))
    counter = make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))
    assert counter.count("hello world") == 2 and not marker.exists() and counter.exact and reads == ["o200k_base"]
    pickle.loads(_ranks_file(saved).read_bytes())  # saved anew: plain data


def test_with_its_ranks_saved_a_counter_loads_its_encoding_at_its_first_count(tmp_path, monkeypatch) -> None:
    """A plan whose counts all come from the token cache counts nothing: its counter, made while the ranks
    are saved for the BPE file as it is, loads no encoding until something is counted (0.17 s of every
    warm `smig plan`)."""
    _bpe_copy(tmp_path, monkeypatch)
    reads = _tiktoken_reads(monkeypatch)
    saved = tmp_path / "tokenizers"
    make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))  # the first process saves the ranks
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})
    counter = make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))
    split = make_counter(tiktoken_counter.SPLIT_DIGITS, tiktoken_counter.SavedLoader(saved))
    assert counter.exact and counter.name == "o200k_base" and split.name == tiktoken_counter.SPLIT_DIGITS
    assert tiktoken_counter._LOADED == {}  # nothing loaded yet
    reference = tiktoken.Encoding(**_constructor_args("o200k_base"))
    counts = counter.count_many(TEXTS * 40)  # in threads: the first count loads it once for all of them
    assert counts == [len(reference.encode_ordinary(text)) for text in TEXTS] * 40
    assert "o200k_base" in tiktoken_counter._LOADED and reads == ["o200k_base"]
    assert split.count("1234567 and 89") == counter.count("1234567 and 89") + 5  # 123|456|7 -> 7, 89 -> 2


def test_a_deferred_load_that_fails_says_so_in_one_sentence(tmp_path, monkeypatch) -> None:
    """Should the saved ranks and the BPE file both go bad between the counter's making and its first
    count, the count is refused with one sentence (a SmigError), never a traceback or a silent guess."""
    from smig_tui.core.errors import SmigError

    _bpe_copy(tmp_path, monkeypatch)
    _tiktoken_reads(monkeypatch)
    saved = tmp_path / "tokenizers"
    make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})
    counter = make_counter("o200k_base", tiktoken_counter.SavedLoader(saved))
    _ranks_file(saved).write_bytes(b"garbage")

    def unreadable(name: str) -> tiktoken.Encoding:
        raise ValueError("Hash mismatch for data downloaded from the BPE file")

    monkeypatch.setattr(tiktoken_counter.tiktoken, "get_encoding", unreadable)
    with pytest.raises(SmigError, match=r"^tiktoken could not load o200k_base \(Hash mismatch for data .*\)\.$"):
        counter.count("hello world")
