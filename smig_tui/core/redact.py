"""Provides secret redaction for any text that leaves the machine or crosses between agents.

Patterns cover the common credential shapes (provider API keys, cloud keys, tokens, private keys,
`KEY=value` lines in env dumps). Each hit becomes `[REDACTED:<kind>]`, so the reader still sees that
something was there.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import partial

# Each pattern starts with a literal or a small character set, so `re` can skip ahead quickly; the
# word boundary a key needs in front is checked in `_replace` instead of by a leading `\b`, which
# would make every position a candidate. A `secret` group, where present, is the part replaced.
_PATTERNS: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
        False,
    ),
    ("anthropic-key", re.compile(r"sk-ant-[A-Za-z0-9_\-]{20,}"), True),
    ("openai-key", re.compile(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"), True),
    (
        "github-token",
        re.compile(r"g(?:h[pousr]_[A-Za-z0-9]{30,}|ithub_pat_[A-Za-z0-9_]{40,})"),
        True,
    ),
    ("aws-access-key", re.compile(r"A(?:KIA|SIA)[0-9A-Z]{16}\b"), True),
    ("google-api-key", re.compile(r"AIza[0-9A-Za-z_\-]{35}\b"), True),
    ("slack-token", re.compile(r"xox[abprs]-[A-Za-z0-9\-]{10,}"), True),
    ("stripe-key", re.compile(r"[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"), True),
    ("huggingface-token", re.compile(r"hf_[A-Za-z0-9]{30,}"), True),
    ("gitlab-token", re.compile(r"glpat-[A-Za-z0-9_\-]{20,}"), True),
    ("npm-token", re.compile(r"npm_[A-Za-z0-9]{36}\b"), True),
    ("pypi-token", re.compile(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"), True),
    ("google-oauth-token", re.compile(r"ya29\.[0-9A-Za-z_\-]{20,}"), True),
    ("digitalocean-token", re.compile(r"do[por]_v1_[a-f0-9]{64}\b"), True),
    ("sendgrid-key", re.compile(r"SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"), True),
    (
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/services/(?P<secret>[A-Za-z0-9_/\-]{20,})"),
        False,
    ),
    (
        "jwt",
        re.compile(r"eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
        True,
    ),
    (
        "bearer-token",
        re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr] (?P<secret>[A-Za-z0-9_\-.=/+]{20,})"),
        True,
    ),
    ("basic-auth", re.compile(r"[Bb][Aa][Ss][Ii][Cc] (?P<secret>[A-Za-z0-9+/]{16,}={0,2})"), True),
    ("url-credentials", re.compile(r"://(?P<secret>[^/\s:@]+:[^/\s@]+)(?=@)"), False),
)

# Substrings without which a pattern cannot match: a plain `in` test skips most regex passes, which
# matters on megabytes of tool output. Checked against the lowered text.
_NEEDLES: dict[str, tuple[str, ...]] = {
    "private-key": ("private key",),
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "github-token": ("gh", "github_pat_"),
    "aws-access-key": ("akia", "asia"),
    "google-api-key": ("aiza",),
    "slack-token": ("xox",),
    "stripe-key": ("_live_", "_test_"),
    "huggingface-token": ("hf_",),
    "gitlab-token": ("glpat-",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-",),
    "google-oauth-token": ("ya29.",),
    "digitalocean-token": ("_v1_",),
    "sendgrid-key": ("sg.",),
    "slack-webhook": ("hooks.slack.com",),
    "jwt": ("eyj",),
    "bearer-token": ("bearer ",),
    "basic-auth": ("basic ",),
    "url-credentials": ("://",),
}
_NAME_NEEDLES = ("key", "secret", "token", "passw", "credential")

# `NAME=value` / `"name": "value"` where the name says secret; the value is replaced, the name kept.
_SECRET_WORD = re.compile(
    r"(?i)api[_\-]?key|secret|token|passw(?:or)?d|passwd|credential|auth[_\-]?key"
    r"|private[_\-]?key|access[_\-]?key|account[_\-]?key"
)
# The same words, searched in lowered text: a case-sensitive alternation of literals is much faster.
_SECRET_WORD_LOWER = re.compile(_SECRET_WORD.pattern.removeprefix("(?i)"))
# What may follow the secret word: the rest of the name, the separator, and the value itself.
_AFTER_WORD = re.compile(
    r"""(?i)[A-Z0-9_\-]*(?P<sep>["']?\s*[:=]\s*["']?)(?P<value>[^\s"',;]{6,})"""
)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_PLACEHOLDER = re.compile(r"\[REDACTED:[a-z\-]+\]")
_COUNT = re.compile(r"\d[\d_,.]*[)\]}]*")
_PLAIN_WORDS = {
    "true", "false", "null", "none", "required", "optional", "string", "number", "boolean",
    "undefined", "unknown", "any", "str", "int", "bytes", "secretstr",
}
# `settings.api_key`, `document.querySelector(`, `getToken()`: code that reads a secret, not one.
_CODE_REFERENCE = re.compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+)+\(?|[A-Za-z_]+\(\)?")


@dataclass
class Redaction:
    """The redacted text and what was taken out of it."""

    text: str
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        """How many secrets were replaced."""
        return sum(self.counts.values())


def redact(text: str) -> Redaction:
    """Replace every secret-looking run in `text` with a labelled placeholder."""
    counts: Counter[str] = Counter()
    lowered = text.lower()
    for kind, pattern, bounded in _PATTERNS:
        if any(needle in lowered for needle in _NEEDLES.get(kind, ("",))):
            text = pattern.sub(partial(_replace, kind=kind, bounded=bounded, counts=counts), text)

    if any(needle in lowered for needle in _NAME_NEEDLES):
        text = _redact_assignments(text, counts)
    return Redaction(text, counts)


def _replace(match: re.Match[str], kind: str, bounded: bool, counts: Counter[str]) -> str:
    """Replace a hit (or just its `secret` group) unless it is glued to a word in front of it."""
    whole, start = match.group(0), match.start()
    before = match.string[start - 1] if start > 0 else " "
    if bounded and (before.isalnum() or before == "_"):
        return whole
    counts[kind] += 1
    if "secret" not in match.re.groupindex:
        return f"[REDACTED:{kind}]"
    head, tail = match.start("secret") - start, match.end("secret") - start
    return f"{whole[:head]}[REDACTED:{kind}]{whole[tail:]}"


def _redact_assignments(text: str, counts: Counter[str]) -> str:
    """Replace the value of every `NAME=value` whose name says secret, scanning from the word.

    Anchoring on the secret word (then widening to the whole name) keeps this linear; a regex that
    starts at every word boundary is quadratic on long identifier-heavy lines.
    """
    out: list[str] = []
    done = search_from = 0
    lowered = text.lower()
    # Lowering can change the length of a few characters; then search the text itself.
    finder, haystack = (_SECRET_WORD_LOWER, lowered)
    if len(lowered) != len(text):
        finder, haystack = _SECRET_WORD, text
    while hit := finder.search(haystack, search_from):
        tail = _AFTER_WORD.match(text, hit.end())
        if tail is None:
            search_from = hit.end()
            continue
        start = hit.start()
        while start > done and text[start - 1] in _NAME_CHARS:
            start -= 1
        name, sep, value = text[start : tail.start("sep")], tail.group("sep"), tail.group("value")
        out.append(text[done:start] + name + sep)
        if _keeps(name, value):
            out.append(value)
        else:
            out.append("[REDACTED:secret-assignment]")
            counts["secret-assignment"] += 1
        done = search_from = tail.end()
    out.append(text[done:])
    return "".join(out)


def _keeps(name: str, value: str) -> bool:
    """Tell whether an assignment's value is evidently not a secret."""
    if _PLACEHOLDER.fullmatch(value) or value.startswith("[REDACTED:") or _looks_harmless(value):
        return True
    # A token count (`max_tokens=128000`), not a credential.
    return bool(_COUNT.fullmatch(value)) and "tokens" in name.lower()


def _looks_harmless(value: str) -> bool:
    """Skip values that are clearly not secrets: references, placeholders, types, code."""
    lowered = value.lower().rstrip(")]}>,.")
    return (
        lowered in _PLAIN_WORDS
        or value.startswith(("$", "${", "<", "os.environ", "process.env", "env."))
        or bool(_CODE_REFERENCE.fullmatch(value))
        or (value.startswith(("http://", "https://")) and not set("@=") & set(value))
        or set(value) <= {"*", "x", "X", "."}
    )
