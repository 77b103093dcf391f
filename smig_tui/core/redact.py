"""Provides secret redaction for any text that leaves the machine or crosses between agents.

Patterns cover the common credential shapes (provider API keys, cloud keys, tokens, private keys,
`KEY=value` lines in env dumps). Each hit becomes `[REDACTED:<kind>]`, so the reader still sees that
something was there.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
    ),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})")),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("slack-token", re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}")),
    ("stripe-key", re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi-token", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}")),
    ("google-oauth-token", re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}")),
    ("digitalocean-token", re.compile(r"\bdo[por]_v1_[a-f0-9]{64}\b")),
    ("sendgrid-key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}")),
    ("slack-webhook", re.compile(r"(?<=https://hooks\.slack\.com/services/)[A-Za-z0-9_/\-]{20,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}")),
    ("bearer-token", re.compile(r"(?i)(?<=\bBearer )[A-Za-z0-9_\-.=/+]{20,}")),
    ("basic-auth", re.compile(r"(?i)(?<=\bBasic )[A-Za-z0-9+/]{16,}={0,2}")),
    ("url-credentials", re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)")),
)

# `NAME=value` / `"name": "value"` where the name says secret; the value is replaced, the name kept.
_ASSIGNMENT = re.compile(
    r"""(?ix)
    (?P<name>\b[A-Z0-9_.\-]*(?:api[_\-]?key|secret|token|passw(?:or)?d|passwd|credential|auth[_\-]?key|private[_\-]?key|access[_\-]?key|account[_\-]?key)[A-Z0-9_\-]*)
    (?P<sep>["']?\s*[:=]\s*["']?)
    (?P<value>[^\s"',;]{6,})
    """
)
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
    for kind, pattern in _PATTERNS:
        def _sub(match: re.Match[str], kind: str = kind) -> str:
            counts[kind] += 1
            return f"[REDACTED:{kind}]"

        text = pattern.sub(_sub, text)

    def _assign(match: re.Match[str]) -> str:
        value = match.group("value")
        if _PLACEHOLDER.fullmatch(value) or value.startswith("[REDACTED:") or _looks_harmless(value):
            return match.group(0)
        if _COUNT.fullmatch(value) and "tokens" in match.group("name").lower():
            return match.group(0)  # a token count (`max_tokens=128000`), not a credential
        counts["secret-assignment"] += 1
        return f"{match.group('name')}{match.group('sep')}[REDACTED:secret-assignment]"

    text = _ASSIGNMENT.sub(_assign, text)
    return Redaction(text, counts)


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
