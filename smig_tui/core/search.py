"""Provides the pure rules of full-text search: query parsing, which index answers each term,
ranking tiers, `--since` parsing and highlighted snippets.

The index (an adapter) keeps two FTS5 tables: one split into words (unicode61, ranked with bm25)
for text written with spaces, and one of trigrams for messages holding scripts written without
spaces (Chinese, Japanese, Korean, Thai, …), which a word tokenizer would keep as one long token.
Emoji and one- or two-character CJK terms, shorter than a trigram, are found through a token per
character the word table also holds, then confirmed on the text; only punctuation (`->`) is matched
by reading every stored text. This module decides which answers each term.

The query language (`QUERY_HELP`): words all match (AND); "quoted words" match as a phrase; migr*
as a prefix; `a OR b` matches either (OR joins the terms either side of it, and binds tighter than
the implicit AND: `parser lexer OR tokenizer` is parser AND (lexer OR tokenizer)); `-word`,
`-"a phrase"` or `NOT word` leave out messages holding it. Case and accents do not matter, and
letters without a decomposition fold as people type them (ø o, ł l, ß ss, æ ae, œ oe, đ d, þ th).
Anything else is searched as text; a construct smig cannot run is refused with a sentence, never
answered with silence.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from smig_tui.core.errors import SmigError
from smig_tui.core.models import Kind, Role
from smig_tui.core.patterns import on_first_use


class SearchQueryError(SmigError):
    """A search query smig cannot run (unbalanced quote, nothing to search for, a bad date)."""

    exit_code = 2


SPLITLESS = on_first_use(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"
)
"""Characters of scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana,
Bopomofo, Han, Hangul): messages holding one go into the trigram table."""
CHAR_TOKEN = on_first_use(
    SPLITLESS.pattern[:-1] + "\u2190-\u21ff\u2300-\u23ff\u2460-\u24ff\u25a0-\u27bf\u2900-\u297f\u2b00-\u2bff"
    "\U0001f000-\U0001faff\u200d\ufe0f]+"
)
"""Runs of characters the word tokenizer drops or cannot split: emoji, arrows and symbols, and the
scripts of `SPLITLESS`. Each such character also gets a token of its own (`char_tokens`)."""
TRIGRAM = 3
"""The trigram tokenizer cannot match a substring shorter than this."""
CONVERSATION, TOOLING, CONTEXT = 0, 1, 2
"""Ranking tiers, best first: what a person or the model wrote, then tool calls, tool outputs and
reasoning, then context the harness injected."""
SINCE_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
SNIPPET_MARGIN = 1024
"""Characters kept either side of a hit's first match when its snippet is made from a long text."""
QUERY_HELP = (
    'words must all match; "quoted words" match as a phrase; migr* as a prefix; a OR b matches either; '
    '-word, -"a phrase" or NOT word leave out messages holding it'
)
"""The query language in one line, for help texts and error sentences."""
LETTERS = {
    "ø": "o",
    "ł": "l",
    "ß": "ss",
    "ẞ": "ss",
    "æ": "ae",
    "œ": "oe",
    "đ": "d",
    "ð": "d",
    "þ": "th",
    "ı": "i",
    "ħ": "h",
    "ŧ": "t",
}
"""Letters Unicode does not decompose, folded the way people type them without the key (Øresund as
oresund, Łódź as lodz, Straße as strasse, Æro as aero); upper case folds through `lower` first."""
_LETTER_CHARS = frozenset(LETTERS) | frozenset(c.upper() for c in LETTERS)


@dataclass(frozen=True, slots=True)
class Term:
    """One thing the user asked for: a word, a "phrase", or a prefix (`migr*`)."""

    text: str
    phrase: bool = False
    prefix: bool = False

    @property
    def words(self) -> list[str]:
        """The term split and folded as the word index splits and folds text."""
        return word_tokens(self.text)

    @property
    def answered_by(self) -> str:
        """`words`, `grams`, `chars` or `scan`: which part of the index finds this term.

        `chars`: a term of emoji or of one or two CJK characters, found by the per-character tokens
        the word table holds for such characters and confirmed on the text; `scan` (punctuation
        such as `->`) reads every stored text.
        """
        if SPLITLESS.search(self.text) and len(self.text.strip()) >= TRIGRAM:
            return "grams"
        if SPLITLESS.search(self.text) or not self.words:
            visible = "".join(self.text.split())
            return "chars" if CHAR_TOKEN.fullmatch(visible) else "scan"
        return "words"


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A parsed query: every clause must match (AND), a clause being one term or terms joined by OR;
    no excluded term may match."""

    terms: tuple[Term, ...]
    """Every term to find, in the order given."""
    clauses: tuple[tuple[Term, ...], ...] = ()
    """The terms grouped by OR (empty: each term a clause of its own)."""
    excluded: tuple[Term, ...] = ()
    """Terms no hit may hold (`-word`, `NOT word`)."""

    @property
    def groups(self) -> tuple[tuple[Term, ...], ...]:
        """The clauses, each term its own when none were given."""
        return self.clauses or tuple((term,) for term in self.terms)

    @property
    def word_match(self) -> str | None:
        """The FTS5 expression for the word table (each word term a phrase of its words; clauses ANDed,
        OR inside one; excluded words after NOT), or None when no term is found there."""
        parts = []
        for group in self.groups:
            if all(term.answered_by == "words" for term in group):
                alternatives = [_word_phrase(term) for term in group]
                parts.append(alternatives[0] if len(group) == 1 else "(" + " OR ".join(alternatives) + ")")
            elif group[0].answered_by == "chars":
                parts += [f'"{token}"' for token in sorted(set(char_tokens(group[0].text).split()))]
        if not parts:
            return None
        match = " AND ".join(parts)
        for term in self.excluded:
            if term.answered_by == "words":
                match = f"({match}) NOT {_word_phrase(term)}"
        return match

    @property
    def needs_confirming(self) -> bool:
        """True when a term must be checked on the text: emoji or CJK characters (the index finds
        texts holding each of them, in any order), or an excluded term the word table cannot exclude."""
        return any(term.answered_by == "chars" for term in self.terms) or any(
            term.answered_by != "words" or self.word_match is None for term in self.excluded
        )

    def confirms(self, text: str) -> bool:
        """Tell whether every character term occurs in `text` as written, and no excluded term does."""
        return all(chars in text for chars in _char_terms(self)) and not any(
            _holds(text, term) for term in self.excluded if term.answered_by != "words" or self.word_match is None
        )

    @property
    def gram_match(self) -> str | None:
        """The FTS5 expression for the trigram table, or None when no term needs it."""
        parts = []
        for group in self.groups:
            if group[0].answered_by == "grams":
                alternatives = ['"' + term.text.replace('"', '""') + '"' for term in group]
                parts.append(alternatives[0] if len(group) == 1 else "(" + " OR ".join(alternatives) + ")")
        return " AND ".join(parts) or None

    @property
    def scans(self) -> tuple[str, ...]:
        """Substrings matched by reading the stored text (lowered as SQLite lowers: ASCII only)."""
        return tuple(ascii_lower(term.text) for term in self.terms if term.answered_by == "scan")

    @property
    def needles(self) -> tuple[str, ...]:
        """What to highlight in a hit: each term's text, its words as written, and its words as the
        index splits them (`parse_query` matches `parse query` and `parse-query`), longest first."""
        texts = {term.text for term in self.terms}
        texts |= {word for term in self.terms if term.answered_by == "words" for word in term.text.split()}
        texts |= {word for term in self.terms if term.answered_by == "words" for word in term.words}
        return tuple(sorted(texts, key=len, reverse=True))

    @property
    def anchors(self) -> tuple[str, ...]:
        """A pattern per word term matching it as the index does (its folded words, anything but
        letters and digits between them, whole words unless a prefix), for folded, lowered text:
        the snippet is cut around the first of these, not around a needle inside another word."""
        patterns = []
        for term in self.terms:
            words = term.words if term.answered_by == "words" else []
            if words:
                body = "[\\W_]+".join(re.escape(word) for word in words)
                patterns.append(f"(?<![^\\W_]){body}" + ("" if term.prefix else "(?![^\\W_])"))
        return tuple(patterns)


def _word_phrase(term: Term) -> str:
    """A word term as an FTS5 phrase of its folded words (with `*` for a prefix)."""
    return '"' + " ".join(term.words) + '"' + ("*" if term.prefix else "")


def _holds(text: str, term: Term) -> bool:
    """Tell whether `text` holds `term` the way the index would match it (for exclusions checked on the text)."""
    if term.answered_by in ("chars", "grams"):
        return term.text in text
    if term.answered_by == "scan":
        return ascii_lower(term.text) in ascii_lower(text)
    wanted, words = term.words, word_tokens(text)
    size = len(wanted)
    for at in range(len(words) - size + 1):
        window = words[at : at + size]
        if window[:-1] == wanted[:-1] and (
            window[-1].startswith(wanted[-1]) if term.prefix else window[-1] == wanted[-1]
        ):
            return True
    return False


def parse_query(text: str) -> SearchQuery:
    """Parse the query language (module docstring) into terms; raise SearchQueryError, one sentence
    saying what to write instead, on a query smig cannot run."""
    rest = text.strip()
    if rest.count('"') % 2:
        raise SearchQueryError(f'Unbalanced quote in search query {text!r}: close the phrase with another ".')
    clauses: list[list[Term]] = []
    excluded: list[Term] = []
    pending = ""  # an operator waiting for its term: "OR" or "NOT"
    for match in re.finditer(r'(-?)"([^"]*)"(\*?)|(\S+)', rest):
        dash, phrase, star, word = match.groups()
        if word in ("OR", "NOT", "AND"):
            if pending or (word == "OR" and not clauses):
                raise SearchQueryError(f"{word} in search query {text!r} needs a term after it and, for OR, before it.")
            pending = "" if word == "AND" else word
            continue
        negated = bool(dash) or (word is not None and len(word) > 1 and word[0] == "-" and word[1].isalnum())
        raw = phrase if phrase is not None else word[1:] if negated else word
        prefix = bool(star) or (word is not None and raw.endswith("*"))
        raw = raw.rstrip("*") if word is not None else raw
        if not raw.strip():
            if prefix:
                raise SearchQueryError(
                    f"A lone * in search query {text!r}: put it after the start of a word, e.g. migr*."
                )
            continue
        term = Term(" ".join(raw.split()), phrase=phrase is not None, prefix=prefix)
        if negated or pending == "NOT":
            excluded.append(term)
        elif pending == "OR":
            clauses[-1].append(term)
        else:
            clauses.append([term])
        pending = ""
    if pending:
        raise SearchQueryError(f"{pending} in search query {text!r} needs a term after it.")
    if not clauses:
        what = "only leaves messages out" if excluded else "is empty"
        raise SearchQueryError(f"The search query {text!r} {what}: give something to find ({QUERY_HELP}).")
    for group in clauses:
        _check_alternatives(text, group)
    terms = tuple(term for group in clauses for term in group)
    grouped = tuple(tuple(group) for group in clauses) if any(len(group) > 1 for group in clauses) else ()
    return SearchQuery(terms, grouped, tuple(excluded))


def _check_alternatives(text: str, group: list[Term]) -> None:
    """Refuse an OR the index cannot answer in one place: words with CJK, emoji or punctuation terms."""
    if len(group) < 2:
        return
    kinds = {term.answered_by for term in group}
    if kinds in ({"words"}, {"grams"}):
        return
    shown = " OR ".join(term.text for term in group)
    raise SearchQueryError(
        f"{shown!r} in search query {text!r}: OR joins words, or Chinese, Japanese or Korean terms of three "
        "characters or more, not emoji, single characters or punctuation; search for each separately."
    )


@functools.lru_cache(maxsize=32)
def _char_terms(query: SearchQuery) -> tuple[str, ...]:
    """The query's character terms as they must appear in a text (worked out once per query)."""
    return tuple(" ".join(term.text.split()) for term in query.terms if term.answered_by == "chars")


def word_tokens(text: str) -> list[str]:
    """Split text as FTS5's unicode61 tokenizer does (letters, digits and private-use characters
    make words) and fold it as `remove_diacritics 2` does (lower case, accents dropped)."""
    tokens: list[str] = []
    current: list[str] = []
    for char in text:
        if unicodedata.category(char)[0] in "LN" or unicodedata.category(char) == "Co":
            current.append(fold(char))
        elif current:
            tokens.append("".join(current))
            current = []
    if current:
        tokens.append("".join(current))
    return tokens


def fold(char: str) -> str:
    """One character lowered and stripped of accents (é -> e), the `LETTERS` as people type them
    (ß -> ss), kept whole if that would split it otherwise."""
    base = "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)).lower()
    if len(base) == 1:
        return LETTERS.get(base, base)
    lowered = char.lower()
    return lowered if len(lowered) == 1 else char


def letters_folded(text: str) -> str | None:
    """`text` with its `LETTERS` folded (Øresund -> oresund), or None when it holds none: the word
    table indexes this copy too, since FTS5's own folding leaves those letters as they are."""
    if text.isascii() or not _LETTER_CHARS.intersection(text):
        return None
    return "".join(LETTERS.get(char.lower(), char) if char in _LETTER_CHARS else char for char in text)


def ascii_lower(text: str) -> str:
    """Lower ASCII letters only, as SQLite's `lower()` does."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def char_tokens(text: str) -> str:
    """A word-table token for each distinct emoji, symbol or CJK character of `text` (`smigch1f680`
    for 🚀), so one or two such characters are found without reading every text."""
    if text.isascii():  # most texts: no regex pass needed
        return ""
    chars = {char for run in CHAR_TOKEN.findall(text) for char in run if char not in "\u200d\ufe0f"}
    return " ".join(f"smigch{ord(char):x}" for char in sorted(chars))


def needs_grams(text: str) -> bool:
    """Tell whether a message's text holds a script the word index cannot split."""
    return not text.isascii() and SPLITLESS.search(text) is not None


def tier(role: Role | str, kind: Kind | str, injected: bool) -> int:
    """The ranking tier of a message: conversation first, tool traffic below, injected context last."""
    if injected:
        return CONTEXT
    if role in _CONVERSATION_ROLES and kind in _CONVERSATION_KINDS:  # StrEnum members equal their strings
        return CONVERSATION
    return TOOLING


_CONVERSATION_ROLES = frozenset((Role.USER, Role.ASSISTANT))
_CONVERSATION_KINDS = frozenset((Kind.TEXT, Kind.SUMMARY))


def tier_holds_role(rank: int, role: str) -> bool:
    """Tell whether a message of this role can be in this ranking tier (conversation is only what a
    person or the model wrote), so a search filtered by role skips the tiers it cannot find."""
    return rank != CONVERSATION or role in _CONVERSATION_ROLES


def parse_since(value: str, now: datetime | None = None) -> str:
    """`7d`, `12h`, `30m`, `2w` back from now, or an ISO date/time, as an ISO 8601 UTC string."""
    now = now or datetime.now(UTC)
    match = re.fullmatch(r"(\d+)\s*([mhdw])", value.strip())
    if match:
        moment = now - timedelta(seconds=int(match.group(1)) * SINCE_UNITS[match.group(2)])
    else:
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise SearchQueryError(
                f"since {value!r} is neither an age (30m, 12h, 7d, 2w) nor a date (2026-11-30)."
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True, slots=True)
class Snippet:
    """A short window of a message around the first match, with the matches marked."""

    text: str
    spans: tuple[tuple[int, int], ...]
    """(start, end) character offsets of each highlighted match in `text`."""

    def marked(self, before: str = "[", after: str = "]") -> str:
        """The text with every span wrapped in `before` … `after`."""
        out, done = [], 0
        for start, end in self.spans:
            out += [self.text[done:start], before, self.text[start:end], after]
            done = end
        out.append(self.text[done:])
        return "".join(out)


def make_snippet(text: str, needles: tuple[str, ...], width: int = 160, anchors: tuple[str, ...] = ()) -> Snippet:
    """Cut a one-line window of about `width` characters around the first match, and mark the matches.

    A match is a whole term as the index matched it (`anchors`, see `SearchQuery.anchors`: its words
    with any separators between them, so `parse_query` marks `parse query` and `parse-query`), else
    a needle. Matching folds case and accents like the word index, so `cafe` highlights `Café` and
    `strasse` highlights `Straße`.
    """
    flat = " ".join(text.split())
    if flat.isascii():
        folded, where = flat.lower(), None
    else:
        folded, where = _folded_with_offsets(flat)
    whole = [_span(*m.span(), where) for m in _anchor_regex(anchors).finditer(folded)] if anchors else []
    parts = [_span(at, at + len(n), where) for n in _folded(needles) for at in _find_all(folded, n)]
    hits = sorted(whole + parts, key=lambda span: (span[0], -span[1]))  # at one start, the longest match
    first = min(whole)[0] if whole else hits[0][0] if hits else 0
    start = max(0, first - width // 3)
    if start:  # begin at a word boundary when one is close
        space = flat.find(" ", start, first)
        start = space + 1 if space != -1 else start
    end = min(len(flat), max(start + width, min(whole)[1] if whole else 0))
    window = flat[start:end]
    spans: list[tuple[int, int]] = []
    for hit_start, hit_end in hits:
        if hit_start >= start and hit_end <= end and (not spans or hit_start - start >= spans[-1][1]):
            spans.append((hit_start - start, hit_end - start))
    prefix, suffix = ("…" if start else ""), ("…" if end < len(flat) else "")
    shift = len(prefix)
    return Snippet(prefix + window + suffix, tuple((a + shift, b + shift) for a, b in spans))


def snippet_region(
    text: str, needles: tuple[str, ...], margin: int = SNIPPET_MARGIN, anchors: tuple[str, ...] = ()
) -> str:
    """The part of `text` its snippet comes from: `margin` characters either side of the first match
    (a whole term where the text holds one, as `make_snippet` chooses), so a hit in a megabyte of
    tool output is redacted and cut in a few kilobytes, and the snippet is the one the whole text
    gives. The whole text when it is short, or not ASCII (where the snippet folds accents, which
    `lower` does not), or when nothing is found as written."""
    if len(text) <= 2 * margin or not text.isascii():
        return text
    lowered = text.lower()
    whole = _anchor_regex(anchors).search(lowered) if anchors else None
    if whole is not None:
        first = whole.start()
    else:
        found = [at for needle in needles if (at := lowered.find(needle.lower())) != -1]
        if not found:
            return text
        first = min(found)
    return text[max(0, first - margin) : first + margin]


@functools.lru_cache(maxsize=32)
def _anchor_regex(anchors: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern matching any anchor (`SearchQuery.anchors`) in folded, lowered text."""
    return re.compile("|".join(anchors) or "(?!)")


def _folded_with_offsets(flat: str) -> tuple[str, list[int]]:
    """`flat` folded as the word index folds it, and for each folded character the offset of the
    character it came from (ß folds to two)."""
    out: list[str] = []
    where: list[int] = []
    for at, char in enumerate(flat):
        folded = fold(char)
        out.append(folded)
        where += [at] * len(folded)
    return "".join(out), where


def _span(start: int, end: int, where: list[int] | None) -> tuple[int, int]:
    """A match's offsets in the folded text as offsets in the text itself."""
    if where is None:
        return start, end
    return where[start], where[end - 1] + 1


@functools.lru_cache(maxsize=32)
def _folded(needles: tuple[str, ...]) -> list[str]:
    """The needles folded as the text is, empty ones dropped (worked out once per query, not per hit)."""
    return [folded for n in needles if (folded := "".join(fold(c) for c in " ".join(n.split())))]


def _find_all(haystack: str, needle: str) -> list[int]:
    """Every start of `needle` in `haystack`, not overlapping."""
    found, at = [], haystack.find(needle)
    while at != -1:
        found.append(at)
        at = haystack.find(needle, at + len(needle))
    return found
