"""Provides secret redaction for any text that leaves the machine or crosses between agents.

Three kinds of evidence find a secret: its own shape (provider tokens with a known prefix, JWTs,
private key blocks), its neighbourhood (the 40 characters after an AWS key id, the password of a
`mysql -p`, `sshpass -p` or `.netrc` line, the user:password of any URL), and its name
(`NAME=value`, `"name": "value"`, `--password value` where the name says secret). Each hit becomes
`[REDACTED:<kind>]`, so the reader still sees that something was there.

Text is often JSON-encoded (tool-call arguments, tool output inside a transcript line), so every
value stops at a backslash and separators may be escaped quotes: a literal `\\n` ends a value the
way a newline does. Every pattern is gated by a cheap substring test and scans forward only, so
redaction stays linear on whole sessions.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import accumulate
from typing import Any

# Each pattern starts with a literal or a small character set, so `re` can skip ahead quickly; the
# word boundary a key needs in front is checked in `_replace` instead of by a leading `\b`, which
# would make every position a candidate. A `secret` group, where present, is the part replaced.
# Needles are substrings (of the lowered text; one with capitals, of the text as written) without
# which the pattern cannot match: a plain `in` test skips most regex passes, which matters on
# megabytes of tool output.
_END = r"(?![A-Za-z0-9_\-])"


def _starts_token(prefix: str) -> str:
    """A check, placed right after a literal `prefix`, that the prefix does not continue a run of
    token characters (a JSON escape like `\\n` in front is a break).

    Placed after the literal, not before it, so `re` still skips ahead to the literal quickly; and a
    run like `eyJeyJeyJ…` is tried once, not at every repeat, which keeps redaction linear.
    """
    width = len(prefix.replace("\\", ""))
    return rf"(?:(?<=\\[nrt].{{{width}}})|(?<![A-Za-z0-9_\-].{{{width}}})|(?<=^.{{{width}}}))"


_Q = r"""(?:\\?["'])?"""  # an optional quote, escaped when the text is JSON-encoded
_PATTERNS: tuple[tuple[str, tuple[str, ...], re.Pattern[str], bool], ...] = (
    (
        "private-key",
        ("private key",),
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        False,
    ),
    ("anthropic-key", ("sk-ant-",), re.compile(r"sk-ant-[A-Za-z0-9_\-]{20,}"), True),
    ("openai-key", ("sk-",), re.compile(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"), True),
    (
        "github-token",
        ("gh", "github_pat_"),
        re.compile(r"g(?:h[pousr]_[A-Za-z0-9]{30,}|ithub_pat_[A-Za-z0-9_]{40,})"),
        True,
    ),
    ("aws-access-key", ("akia", "asia"), re.compile(r"A(?:KIA|SIA)[0-9A-Z]{16}\b"), True),
    ("google-api-key", ("aiza",), re.compile(r"AIza[0-9A-Za-z_\-]{35}" + _END), True),
    ("google-oauth-secret", ("gocspx-",), re.compile(r"GOCSPX-[A-Za-z0-9_\-]{20,}"), True),
    ("slack-token", ("xox", "xapp-"), re.compile(r"x(?:ox[abprse]|app)-[A-Za-z0-9\-]{10,}"), True),
    ("stripe-key", ("_live_", "_test_"), re.compile(r"[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}"), True),
    ("stripe-webhook-secret", ("whsec_",), re.compile(r"whsec_[A-Za-z0-9+/=]{24,}"), True),
    ("huggingface-token", ("hf_",), re.compile(r"hf_[A-Za-z0-9]{30,}"), True),
    ("gitlab-token", ("gl",), re.compile(r"gl(?:pat|rt|dt|ptt|ft|imt|agent|oas|cbt|soat)-[A-Za-z0-9_\-]{20,}"), True),
    ("grafana-token", ("glsa_", "glc_"), re.compile(r"gl(?:sa|c)_[A-Za-z0-9_+/=]{32,}"), True),
    ("npm-token", ("npm_",), re.compile(r"npm_[A-Za-z0-9]{36}" + _END), True),
    ("pypi-token", ("pypi-",), re.compile(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"), True),
    ("google-oauth-token", ("ya29.",), re.compile(r"ya29\.[0-9A-Za-z_\-]{20,}"), True),
    ("digitalocean-token", ("_v1_",), re.compile(r"do[por]_v1_[a-f0-9]{64}\b"), True),
    (
        "sendgrid-key",
        ("sg.",),
        re.compile(r"SG\." + _starts_token("SG.") + r"[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
        True,
    ),
    ("twilio-key", ("SK", "AC"), re.compile(r"(?:SK|AC)[0-9a-f]{32}(?![0-9A-Za-z])"), True),
    ("mailgun-key", ("key-",), re.compile(r"key-[0-9a-f]{32}(?![0-9A-Za-z])"), True),
    (
        "telegram-bot-token",
        (":aa",),
        re.compile(r"(?:(?<=bot)|(?<=\\[nrt])|(?<![A-Za-z0-9_]))[0-9]{6,12}:AA[A-Za-z0-9_\-]{31,34}" + _END),
        False,
    ),
    (
        "discord-bot-token",
        (".",),
        re.compile(
            r"[MNO]" + _starts_token("M") + r"[A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,40}" + _END
        ),
        True,
    ),
    ("shopify-token", ("shp",), re.compile(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"), True),
    ("linear-key", ("lin_api_",), re.compile(r"lin_api_[A-Za-z0-9]{40}"), True),
    ("doppler-token", ("dp.",), re.compile(r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}"), True),
    ("databricks-token", ("dapi",), re.compile(r"dapi[a-f0-9]{32}(?:-\d)?(?![0-9A-Za-z])"), True),
    ("pulumi-token", ("pul-",), re.compile(r"pul-[a-f0-9]{40}"), True),
    ("vault-token", ("hvs.", "hvb.", "hvr."), re.compile(r"hv[sbr]\.[A-Za-z0-9_\-]{24,}"), True),
    ("terraform-token", (".atlasv1.",), re.compile(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}"), True),
    ("newrelic-key", ("nrak-", "nrii-", "nrjs-"), re.compile(r"NR(?:AK|II|JS)-[A-Za-z0-9]{19,}"), True),
    ("age-secret-key", ("age-secret-key-",), re.compile(r"AGE-SECRET-KEY-1[0-9A-Z]{58}"), True),
    (
        "mapbox-token",
        ("sk.eyj",),
        re.compile(r"sk\.eyJ" + _starts_token("sk.eyJ") + r"[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}"),
        True,
    ),
    ("atlassian-token", ("atatt",), re.compile(r"ATATT3[A-Za-z0-9_\-=]{150,}"), True),
    ("postman-key", ("pmak-",), re.compile(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"), True),
    (
        "square-token",
        ("eaaa", "sq0"),
        re.compile(r"(?:EAAA[A-Za-z0-9_\-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,})" + _END),
        True,
    ),
    ("heroku-key", ("hrku-",), re.compile(r"HRKU-[A-Za-z0-9_\-]{40,}"), True),
    ("sentry-token", ("sntry",), re.compile(r"sntry[su]_[A-Za-z0-9_\-=+/]{40,}"), True),
    ("cloudflare-ca-key", ("v1.0-",), re.compile(r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"), True),
    (
        "slack-webhook",
        ("hooks.slack.com",),
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/\-]{20,})"),
        False,
    ),
    (
        "discord-webhook",
        ("/api/webhooks/",),
        re.compile(r"/api/webhooks/(?P<secret>[0-9]{15,20}/[A-Za-z0-9_\-]{40,})"),
        False,
    ),
    (
        "jwt",
        ("eyj",),
        re.compile(r"eyJ" + _starts_token("eyJ") + r"[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
        True,
    ),
    (
        "bearer-token",
        ("bearer ",),
        re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr] (?P<secret>[A-Za-z0-9_\-.=/+~]{20,})"),
        True,
    ),
    ("basic-auth", ("basic ",), re.compile(r"[Bb][Aa][Ss][Ii][Cc] (?P<secret>[A-Za-z0-9+/]{16,}={0,2})"), True),
    (
        "authorization-header",
        ("authorization",),
        re.compile(
            r"[Aa]uthorization"
            + _Q
            + r"[ \t]*:[ \t]*"
            + _Q
            + r"(?:(?i:token|bot|digest|apikey|key|sso-key|otoken)[ \t]+)?(?P<secret>[A-Za-z0-9_\-.=/+~:]{16,})"
            r"(?![A-Za-z0-9_\-.=/+~:(\[])",
        ),
        True,
    ),
    (
        "docker-auth",
        ('"auth',),
        re.compile(r""""auth\\?"[ \t]*:[ \t]*\\?"(?P<secret>[A-Za-z0-9+/]{8,}={0,2})"""),
        False,
    ),
    ("azure-sas", ("sig=",), re.compile(r"[?&]sig=(?P<secret>[A-Za-z0-9%+/=]{20,})"), False),
    (
        "url-credentials",
        ("://",),
        re.compile(
            r"://[^/\s:@\\\"'<>]{0,256}:(?P<secret>[^/\s@\\\"'<>$%{][^/\s@\\\"'<>]{0,256}"
            r"|%(?!7B)[^/\s@\\\"'<>]{0,256})(?=@)"
        ),
        False,
    ),
    (
        "mysql-password",
        ("mysql", "mariadb"),
        re.compile(
            r"(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?[ \t]-p(?P<secret>[^\s\\\"'$-][^\s\\\"']*)"
        ),
        False,
    ),
    (
        "sshpass-password",
        ("sshpass",),
        re.compile(
            r"sshpass[ \t]+(?:-[a-oq-zA-Z][ \t]+)*-p[ \t]*"
            r"""(?:\\?'(?P<secret>[^'\\]+)|\\?"(?P<dq>[^"\\]+)|(?P<bare>[^\s\\"'$][^\s\\"']*))"""
        ),
        False,
    ),
    # Passwords that commands take on their command line.
    (
        "cli-password",
        ("curl", "wget"),
        re.compile(
            r"(?:curl|wget)\b[^\n|;&]{0,200}?[ \t](?:-u|--user)[ \t=]+[\\\"']*"
            r"[^\s:'\"\\$]*:(?P<secret>[^\s\\\"'$@-][^\s\\\"']*)"
        ),
        False,
    ),
    (
        "cli-password",
        ("docker",),
        re.compile(r"docker[ \t]+login\b[^\n|;&]{0,200}?[ \t]-p[ \t]+[\\\"']*(?P<secret>[^\s\\\"'$@-][^\s\\\"']*)"),
        False,
    ),
    (
        "cli-password",
        ("redis-cli",),
        re.compile(r"redis-cli\b[^\n|;&]{0,200}?[ \t]-a[ \t]+[\\\"']*(?P<secret>[^\s\\\"'$@-][^\s\\\"']*)"),
        False,
    ),
    (
        "cli-password",
        ("htpasswd",),
        re.compile(
            r"htpasswd[ \t]+-[A-Za-z]*b[A-Za-z]*[ \t]+(?:-[A-Za-z]+[ \t]+)*[^\s\\]+[ \t]+[^\s\\]+[ \t]+[\\\"']*(?P<secret>[^\s\\\"'$@-][^\s\\\"']*)"
        ),
        False,
    ),
    (
        "netrc-password",
        ("password",),
        re.compile(
            r"(?:machine|login)[ \t]+[^\s\\]+(?:\s|\\[nrt])+(?:login[ \t]+[^\s\\]+(?:\s|\\[nrt])+)?"
            r"password[ \t]+(?P<secret>[^\s\\\"']+)"
        ),
        False,
    ),
)
_AWS_KEY_ID = re.compile(r"\[REDACTED:aws-access-key\]")
# An AWS secret key is 40 characters of base64 with both cases; after a key id it is the key's pair.
_AWS_SECRET = re.compile(r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9/+]))[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_AWS_REACH = 200
"""How far after a key id its secret may stand (a CSV row, the next line of a console page)."""
_TWILIO_SID = re.compile(r"\[REDACTED:twilio-key\]")
_HEX32 = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z])")

_NAME_NEEDLES = ("key", "secret", "token", "passw", "pwd", "credential")

# `NAME=value` / `"name": "value"` where the name says secret; the value is replaced, the name kept.
_SECRET_WORD = re.compile(
    r"(?i)api[_\-]?key|secret|token|passw(?:or)?d|passwd|pwd|credential|auth[_\-]?key"
    r"|private[_\-]?key|access[_\-]?key|account[_\-]?key"
)
# The same words, searched in lowered text: a case-sensitive alternation of literals is much faster.
_SECRET_WORD_LOWER = re.compile(_SECRET_WORD.pattern.removeprefix("(?i)"))
# What may follow the secret word: the rest of the name and the separator (quotes may be escaped).
_AFTER_WORD = re.compile(r"""[A-Za-z0-9_\-]{0,64}(?P<sep>(?:\\?["'])?[ \t]*[:=][ \t]*(?P<quote>\\?["'])?)""")
# A command-line flag naming a secret: `--password PW`, `--api-key=KEY`.
_FLAG = re.compile(r"(?:(?<!\S)|(?<=\\[nt]))--?[A-Za-z0-9\-]*$")
_NAME_TAIL = re.compile(r"[A-Za-z0-9_\-]{0,64}")
_FLAG_VALUE = re.compile(r"""(?:=|[ \t]+)(?P<value>[^\s\\"'<$\-|>][^\s\\"'|;&]{5,})""")
# A value: unquoted up to a space, quote or separator; quoted up to its closing (maybe escaped) quote.
_VALUE = {
    "": re.compile(r"""[^\s"'`,;&\\]{6,}"""),
    '"': re.compile(r'[^"\\\s,;)][^"\\\n]{3,}(?=\\?")'),
    "'": re.compile(r"[^'\\\s,;)][^'\\\n]{3,}(?=\\?')"),
}
_NAME_REACH = 64
"""Most characters a name runs on either side of its secret word; longer runs are not names (and
bounding them keeps the scan linear on megabytes of identifier soup)."""
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_PLACEHOLDER = re.compile(r"\[REDACTED:[a-z\-]+\]")
_COUNT = re.compile(r"\d[\d_,.]*[)\]}]*")
_PLAIN_WORDS = {
    "true",
    "false",
    "null",
    "none",
    "required",
    "optional",
    "string",
    "number",
    "boolean",
    "undefined",
    "unknown",
    "any",
    "str",
    "int",
    "bytes",
    "secretstr",
    "bearer",
    "basic",
}
# `settings.api_key`, `document.querySelector(`, `getToken()`: code that reads a secret, not one.
_CODE_REFERENCE = re.compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+)+\(?|[A-Za-z_]+\(\)?")
# An unquoted value that calls or indexes something: `bcrypt.hashpw(`, `len(tokens)`, `config[`.
_CODE_EXPRESSION = re.compile(r"[(\[]|[A-Za-z_][A-Za-z0-9_.]*[(\[]")
# An operator after an unquoted value makes it an expression: `Token = Ignore + PlainToken`.
_OPERATOR_AFTER = re.compile(r"[ \t]*[-+*/%][ \t]")
# The last word of a name that describes a secret rather than holding one: `password_hash`,
# `token_count`, `SecretId`, `secret_name`, `token_type`, `max_tokens`.
_METADATA_WORDS = frozenset(
    {
        "hash",
        "hashed",
        "hasher",
        "hashers",
        "digest",
        "count",
        "counts",
        "id",
        "ids",
        "arn",
        "name",
        "names",
        "type",
        "types",
        "field",
        "fields",
        "file",
        "files",
        "path",
        "dir",
        "expires",
        "expiry",
        "expire",
        "expiration",
        "ttl",
        "length",
        "len",
        "size",
        "limit",
        "prefix",
        "suffix",
        "label",
        "hint",
        "policy",
        "validators",
        "validator",
        "header",
        "env",
        "var",
        "mode",
        "format",
        "version",
        "endpoint",
        "ref",
        "tokens",
        "keys",
        "secrets",
        "passwords",
        "usage",
        "input",
        "widget",
        "form",
        "manager",
        "store",
        "url",
        "uri",
        "location",
        "stdin",
        "required",
        "enabled",
        "reset",
        "mgr",
        "handler",
        "class",
    }
)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# Stand-ins and templates: `your-api-key-here`, `<token>`, `xxxx`, `'{0}:{1}'`, `"%s:%s"`.
_PLACEHOLDER_VALUE = re.compile(
    r"(?i)(?:your|my)[_\-].*|.*[_\-]here|<.*>|x{4,}|\*{3,}|[^.…]{0,8}(?:\.{3}|…).*|.*\{[0-9a-z_]*\}.*|.*(?<![A-Za-z0-9])(?-i:%[sdr])(?![A-Za-z0-9]).*"
)


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
    lowered = text.lower()
    return _redact_found(text, lowered, _patterns_for(text, lowered), None)


def _redact_found(text: str, lowered: str, patterns: list[int], cores: CorePlaces | None) -> Redaction:
    """`redact` once the patterns the text needs are known, and (`cores`) where the cores of secret
    words occur in it (None: not looked for yet)."""
    counts: Counter[str] = Counter()
    for index in patterns:
        kind, _, pattern, bounded = _PATTERNS[index]
        replace = partial(_replace, kind=kind, bounded=bounded, counts=counts)
        shape = _SHAPES.get(kind)
        text = pattern.sub(replace, text) if shape is None else _sub_near_shapes(pattern, shape, replace, text)
    if counts:
        if counts["aws-access-key"]:
            text = _redact_after(text, _AWS_KEY_ID, _AWS_SECRET, "aws-secret-key", counts, _mixed_case)
        if counts["twilio-key"]:
            text = _redact_after(text, _TWILIO_SID, _HEX32, "twilio-auth-token", counts, lambda _: True)
        lowered = text.lower()  # only a replacement changes the text
        cores = None  # and a placeholder may bring a name in (`[REDACTED:github-token]`)
    if cores is None and any(needle in lowered for needle in _NAME_NEEDLES):
        cores = _core_places(lowered)
    if cores:
        text = _redact_assignments(text, lowered, counts, cores)
    return Redaction(text, counts)


@dataclass(frozen=True)
class _Shape:
    """A part of every match of a pattern that is rare in text, and where in a match it can start."""

    finder: re.Pattern[str]
    offsets: range
    """Where the part starts, counted from the start of the match."""


_SHAPES = {"discord-bot-token": _Shape(re.compile(r"\.[A-Za-z0-9_\-]{6,7}\."), range(24, 29))}
"""For patterns whose needle is in nearly every text (a Discord token's `.`) and which open with a
character set (which `re` tests at every position), a part of every match that is rare in text: in
a run, the pattern is run only on the texts where that part occurs, and in a text only at the
starts that part allows (`_sub_near_shapes`)."""
_BATCH_CHARS = 1 << 20
"""Texts are tested together in runs of about this many characters (the joined copies stay small)."""
_JOIN = "\x00"
"""Between texts tested together; no needle holds it, so no needle is found across two texts."""


def redact_many(texts: Sequence[str]) -> list[Redaction]:
    """Each text redacted exactly as `redact` does it, with the needles looked for in whole runs of texts.

    Choosing each text's patterns cost more than redacting on a whole session's export: a dozen
    regex calls or 67 substring tests per message. Here a run of texts is joined and each needle
    group scanned once over it; a hit names the text it falls in, which alone is then examined,
    and the scan resumes at the next text. Most texts meet no needle at all and cost no Python.
    """
    out: list[Redaction] = []
    start = 0
    while start < len(texts):
        end, chars = start, 0
        while end < len(texts) and (end == start or chars + len(texts[end]) <= _BATCH_CHARS):
            chars += len(texts[end])
            end += 1
        run = texts[start:end]
        lowered = [text.lower() for text in run]
        as_written, as_lowered = _Joined.of(run), _Joined.of(lowered)
        needles = _needles_in_run(as_written, as_lowered)
        cores = _core_places_in_run(as_lowered)
        unshaped = _unshaped_patterns(as_written)
        out += [
            _redact_found(text, low, [i for i in _patterns_of(found) if index not in unshaped.get(i, ())], text_cores)
            for index, (text, low, found, text_cores) in enumerate(zip(run, lowered, needles, cores, strict=True))
        ]
        start = end
    return out


def _starts(haystacks: Sequence[str]) -> list[int]:
    """Where each text starts in `_JOIN.join(haystacks)`, and one past the end."""
    return list(accumulate((len(haystack) + len(_JOIN) for haystack in haystacks), initial=0))


@dataclass(frozen=True, slots=True)
class _Joined:
    """A run's texts, joined by `_JOIN` so one regex pass covers them all, and where each starts."""

    texts: Sequence[str]
    joined: str
    starts: list[int]
    """Where each text starts in `joined`, and one past the end."""

    @classmethod
    def of(cls, texts: Sequence[str]) -> _Joined:
        return cls(texts, _JOIN.join(texts), _starts(texts))

    def holder(self, where: int) -> int:
        """The index of the text a place in `joined` falls in."""
        return bisect_right(self.starts, where) - 1


def _needles_in_run(as_written: _Joined, as_lowered: _Joined) -> list[set[str]]:
    """The needles each text holds: what `_patterns_for` finds in it, found for the run at once."""
    gates = _current_gates()
    found: list[set[str]] = [set() for _ in as_written.texts]
    for groups, run in ((gates.lowered, as_lowered), (gates.exact, as_written)):
        haystacks, joined, starts = run.texts, run.joined, run.starts
        for group in groups:
            if len(group) == 1 and len(group[0]) == 1:
                for index in _texts_holding(group, run):
                    found[index].add(group[0])
                continue
            finder, at = _group_regex(group), 0
            while hit := finder.search(joined, at):
                index = run.holder(hit.start())
                _find_needles(group, haystacks[index], found[index])
                at = starts[index + 1]
    return found


def _sub_near_shapes(
    pattern: re.Pattern[str], shape: _Shape, replace: Callable[[re.Match[str]], str], text: str
) -> str:
    """`pattern.sub(replace, text)`, with the pattern tried only at the starts its shape allows.

    Every match holds the shape at one of `shape.offsets`, so each place the shape occurs names a
    few starts. They are tried in text order with `match`, which sees the whole text as `sub` does:
    the first start that matches is the match `sub` finds next. One quick scan for the shape
    replaces `re` testing the pattern's opening character set at every position.
    """
    out: list[str] = []
    done = untried = 0
    at = 0
    while hit := shape.finder.search(text, at):
        at = hit.start() + 1  # shapes may overlap: every place one starts is looked at
        last = hit.start() - shape.offsets[0]
        for start in range(max(untried, done, hit.start() - shape.offsets[-1]), last + 1):
            found = pattern.match(text, start)
            if found is not None:
                out += (text[done:start], replace(found))
                done = found.end()
                break
        untried = max(untried, last + 1)
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _unshaped_patterns(run: _Joined) -> dict[int, set[int]]:
    """For each pattern with a shape (`_SHAPES`), the texts of the run where the shape does not occur."""
    unshaped: dict[int, set[int]] = {}
    joined, starts = run.joined, run.starts
    for index, (kind, _, _, _) in enumerate(_PATTERNS):
        shape = _SHAPES.get(kind)
        if shape is None:
            continue
        shaped, at = set(), 0
        while hit := shape.finder.search(joined, at):
            found = run.holder(hit.start())
            shaped.add(found)
            at = starts[found + 1]
        unshaped[index] = set(range(len(run.texts))) - shaped
    return unshaped


def _texts_holding(needles: Sequence[str], run: _Joined) -> set[int]:
    """The indexes of the run's texts holding any of the needles (one `find` per holding text)."""
    holding: set[int] = set()
    for needle in needles:
        at = 0
        while (where := run.joined.find(needle, at)) >= 0:
            index = run.holder(where)
            holding.add(index)
            at = run.starts[index + 1]
    return holding


_SHORT_TEXT = 1024
"""Below this many characters a text is tested needle by needle (measured crossover on session text)."""
_COMMON_FIRST = " \nerstoanidlcp_u/-f:hwmv1.g2yb0345()687k9x\"\t[]=,`q%'>j{}#?z+"
"""Characters of session text, most frequent first (measured on generated and real sessions); a
needle is looked for from its rarest character, and a character missing here counts as rarest."""


@dataclass(frozen=True)
class _Gates:
    """Which patterns a text needs, found in a few passes instead of one per needle.

    Testing each of the 67 needles with `in` cost more than the patterns themselves: 67 scans of
    every text. Needles are grouped by their rarest character; each group is one regex that `re`
    skips through by that character, with the rest of each needle checked around it, so a text is
    scanned once per group (a dozen) and a needle is only named when its group matched.
    """

    source: tuple[Any, ...]
    patterns_of: dict[str, tuple[int, ...]]
    """The patterns each needle lets run."""
    implied: dict[str, tuple[str, ...]]
    """The needles inside each needle (`sk-` inside `sk-ant-`): found with it."""
    lowered: tuple[tuple[str, ...], ...]
    """Groups of needles looked for in the lowered text; one-character needles stand alone."""
    exact: tuple[tuple[str, ...], ...]
    """Groups looked for in the text as written: needles with capitals (`AC` of a Twilio SID)."""
    every_lowered: tuple[str, ...] = ()
    every_exact: tuple[str, ...] = ()


def _anchor(needle: str) -> int:
    """Where in the needle its rarest character stands."""

    def commonness(char: str) -> int:
        found = _COMMON_FIRST.find(char)
        return len(_COMMON_FIRST) if found < 0 else found

    return max(range(len(needle)), key=lambda at: commonness(needle[at]))


def _groups(needles: list[str]) -> tuple[tuple[str, ...], ...]:
    by_anchor: dict[str, list[str]] = {}
    for needle in sorted(needles, key=len, reverse=True):  # longest first: a needle before those inside it
        # A one-character needle (a Discord token's `.`) is in most texts: alone, a hit on it does
        # not send every text back to be searched for the longer needles sharing its character.
        key = f"alone {needle}" if len(needle) == 1 else needle[_anchor(needle)]
        by_anchor.setdefault(key, []).append(needle)
    return tuple(tuple(group) for group in by_anchor.values())


@functools.lru_cache(maxsize=256)
def _group_regex(needles: tuple[str, ...]) -> re.Pattern[str]:
    """One regex finding any of the needles, led by their shared rarest character; the alternative
    that matched is named by `lastgroup` (`n<i>`: the i-th needle).

    Each alternative checks the characters after the anchor before those in front of it: `re`
    rejects an alternative that opens with a literal in one comparison, while one that opens with a
    lookbehind is entered in full at every anchor (a third of the needle scans' time).
    """
    anchor = needles[0][_anchor(needles[0])]
    alternatives = []
    for number, needle in enumerate(needles):
        at = _anchor(needle)
        whole = f"(?<={re.escape(needle)})" if at else ""  # behind the end: the needle, anchor included
        alternatives.append(f"{re.escape(needle[at + 1 :])}{whole}(?P<n{number}>)")
    return re.compile(re.escape(anchor) + "(?:" + "|".join(alternatives) + ")")


def _build_gates(patterns: tuple[Any, ...]) -> _Gates:
    patterns_of: dict[str, list[int]] = {}
    for index, (_, needles, _, _) in enumerate(patterns):
        for needle in needles:
            patterns_of.setdefault(needle, []).append(index)
    implied = {
        needle: tuple(other for other in patterns_of if other != needle and other in needle) for needle in patterns_of
    }
    return _Gates(
        patterns,
        {needle: tuple(indexes) for needle, indexes in patterns_of.items()},
        implied,
        _groups([needle for needle in patterns_of if needle == needle.lower()]),
        _groups([needle for needle in patterns_of if needle != needle.lower()]),
        tuple(needle for needle in patterns_of if needle == needle.lower()),
        tuple(needle for needle in patterns_of if needle != needle.lower()),
    )


_gates = _build_gates(_PATTERNS)


def _current_gates() -> _Gates:
    """The gates of the pattern table as it is now."""
    global _gates
    if _gates.source is not _PATTERNS:  # the table was swapped (tests switch the detector off)
        _gates = _build_gates(_PATTERNS)
    return _gates


def _patterns_for(text: str, lowered: str) -> list[int]:
    """The patterns whose needles occur in the text, in table order (the order they always ran in)."""
    _current_gates()
    found: set[str] = set()
    if len(text) < _SHORT_TEXT:  # most messages: a plain test per needle beats a regex call per group
        for needle in _gates.every_lowered:
            if needle in lowered:
                found.add(needle)
        for needle in _gates.every_exact:
            if needle in text:
                found.add(needle)
        return _patterns_of(found)
    for groups, haystack in ((_gates.lowered, lowered), (_gates.exact, text)):
        for group in groups:
            if len(group) == 1 and len(group[0]) == 1:
                if group[0] in haystack:
                    found.add(group[0])
                continue
            _find_needles(group, haystack, found)
    return _patterns_of(found)


def _patterns_of(found: set[str]) -> list[int]:
    """The patterns the found needles let run, in table order (the order they always ran in)."""
    wanted: set[int] = set()
    for needle in found:
        wanted.update(_gates.patterns_of[needle])
        for inner in _gates.implied[needle]:
            wanted.update(_gates.patterns_of[inner])
    return sorted(wanted)


def _find_needles(group: tuple[str, ...], haystack: str, found: set[str]) -> None:
    """Add the group's needles that occur in `haystack` to `found`.

    Each hit names one needle; the search goes on from the same place for the needles not yet
    found, so one hiding another at the same spot is still seen. Most texts need one pass.
    """
    remaining, at = group, 0
    while remaining:
        hit = _group_regex(remaining).search(haystack, at)
        if hit is None:
            return
        needle = remaining[int(str(hit.lastgroup)[1:])]
        found.add(needle)
        found.update(inner for inner in _gates.implied[needle] if inner in group)
        remaining = tuple(other for other in remaining if other not in found)
        at = hit.start()


def redact_json(value: Any) -> Any:
    """The same JSON-like value with every string in it redacted: one pass over a whole tool reply."""
    if isinstance(value, str):
        return redact(value).text
    if isinstance(value, dict):
        return {key: redact_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_json(item) for item in value]
    return value


def _replace(match: re.Match[str], kind: str, bounded: bool, counts: Counter[str]) -> str:
    """Replace a hit (or just its `secret` group) unless it is glued to a word in front of it."""
    whole, start = match.group(0), match.start()
    if bounded and _glued(match.string, start):
        return whole
    counts[kind] += 1
    groups = [name for name in ("secret", "dq", "bare") if name in match.re.groupindex and match.group(name)]
    if not groups:
        return f"[REDACTED:{kind}]"
    head, tail = match.start(groups[0]) - start, match.end(groups[0]) - start
    return f"{whole[:head]}[REDACTED:{kind}]{whole[tail:]}"


def _glued(text: str, start: int) -> bool:
    """Tell whether position `start` continues a word (a JSON escape like `\\n` in front is a break)."""
    before = text[start - 1] if start > 0 else " "
    if not (before.isalnum() or before == "_"):
        return False
    return not (before in "nrt" and start > 1 and text[start - 2] == "\\")


def _mixed_case(value: str) -> bool:
    """Base64 secrets mix cases and digits; a hex digest or a word does not."""
    return any(c.isupper() for c in value) and any(c.islower() for c in value)


def _redact_after(
    text: str, anchor: re.Pattern[str], shape: re.Pattern[str], kind: str, counts: Counter[str], accept: object
) -> str:
    """Replace the first run of `shape` within reach after each `anchor`: a secret's known pair."""
    out: list[str] = []
    done = 0
    for hit in anchor.finditer(text):
        if hit.end() < done:
            continue
        found = shape.search(text, hit.end(), min(len(text), hit.end() + _AWS_REACH))
        if found is None or not callable(accept) or not accept(found.group(0)):
            continue
        out.append(text[done : found.start()] + f"[REDACTED:{kind}]")
        counts[kind] += 1
        done = found.end()
    out.append(text[done:])
    return "".join(out)


_WORD_CORES = ("key", "secret", "token", "passw", "pwd", "credential")
"""One of these is in every secret word, once; the word starts at most `_CORE_START` characters
before it (`account_key`) and ends at most `_CORE_TAIL` after it (`password`)."""
_CORE_START, _CORE_TAIL = 8, 3


_CORE_FINDERS = tuple((re.compile(core), len(core)) for core in _WORD_CORES)
"""A literal regex per core: `re` skips to each core's first letter in C, so listing every place a
core occurs costs one quick pass per core (none of them can overlap itself, so none is missed)."""

CorePlaces = list[tuple[int, int]]
"""Where the cores of secret words occur in a lowered text and how long each is, in text order."""


def _core_places(lowered: str) -> CorePlaces:
    """Every place a core occurs in one lowered text."""
    return sorted((hit.start(), length) for finder, length in _CORE_FINDERS for hit in finder.finditer(lowered))


def _core_places_in_run(run: _Joined) -> list[CorePlaces]:
    """`_core_places` of each lowered text of a run, found with one pass per core over the joined
    run (a text holding none gets an empty list and skips the assignment scan)."""
    places: list[CorePlaces] = [[] for _ in run.texts]
    for finder, length in _CORE_FINDERS:
        for hit in finder.finditer(run.joined):
            where = hit.start()
            index = run.holder(where)
            places[index].append((where - run.starts[index], length))
    for text_places in places:
        if len(text_places) > 1:
            text_places.sort()
    return places


class _SecretWords:
    """`_SECRET_WORD_LOWER.search(lowered, at)`, found from the words' cores.

    The regex tries every position holding an `a`, `s`, `t`, `p` or `c`: a third of the time
    redaction took. Every core's place is listed up front (`_core_places`), and the regex is tried
    only in the few characters around each one, in order; a core that is not part of a word
    (`keyboard`) is passed.
    """

    def __init__(self, lowered: str, cores: CorePlaces | None = None) -> None:
        self.lowered = lowered
        self.cores = _core_places(lowered) if cores is None else cores
        """Where each core occurs and how long it is, in text order."""
        self.next_index = 0
        """Where in `cores` the last search stopped (searches go forward, so this only moves on)."""

    def next(self, at: int) -> re.Match[str] | None:
        """The first secret word starting at or after `at` (searches go forward only)."""
        cores, index = self.cores, self.next_index
        if index < len(cores) and cores[index][0] < at:
            index = bisect_left(cores, (at, 0), index)
        while index < len(cores):
            where, length = cores[index]
            hit = _SECRET_WORD_LOWER.search(self.lowered, max(at, where - _CORE_START), where + length + _CORE_TAIL)
            if hit is not None and hit.start() <= where:  # the word holding this core: the first one
                self.next_index = index
                return hit
            at, index = where + 1, index + 1  # no word holds this core, so the first word starts after it
        self.next_index = index
        return None


def _redact_assignments(text: str, lowered: str, counts: Counter[str], cores: CorePlaces | None = None) -> str:
    """Replace the value of every `NAME=value` whose name says secret, scanning from the word.

    Anchoring on the secret word (then widening to the whole name) keeps this linear; a regex that
    starts at every word boundary is quadratic on long identifier-heavy lines.
    """
    out: list[str] = []
    done = search_from = 0
    # Lowering can change the length of a few characters; then search the text itself.
    if len(lowered) == len(text):
        next_word = _SecretWords(lowered, cores).next
    else:
        next_word = partial(_SECRET_WORD.search, text)
    while hit := next_word(search_from):
        found = _value_after(text, hit.start(), hit.end())
        if found is None:
            search_from = hit.end()
            continue
        start = hit.start()
        while start > max(done, hit.start() - _NAME_REACH) and text[start - 1] in _NAME_CHARS:
            start -= 1
        value_start, value_end = found
        value = text[value_start:value_end]
        quoted = text[value_start - 1] in "\"'"
        if _keeps(_full_name(text, start, hit.end()), value, quoted) or (
            not quoted and value.isidentifier() and _OPERATOR_AFTER.match(text, value_end)
        ):
            search_from = value_start
            continue
        out.append(text[done:value_start] + "[REDACTED:secret-assignment]")
        counts["secret-assignment"] += 1
        done = search_from = value_end
    out.append(text[done:])
    return "".join(out)


def _full_name(text: str, start: int, word_end: int) -> str:
    """The whole name around the secret word: `DB_PASSWORD`, `aws_secret_access_key`, `--api-key`."""
    end = word_end
    while end < min(len(text), word_end + _NAME_REACH) and (text[end].isalnum() or text[end] in "_-"):
        end += 1
    return text[start:end]


def _value_after(text: str, word_start: int, word_end: int) -> tuple[int, int] | None:
    """Where the value assigned to the name around the secret word lies, if one is assigned."""
    tail = _AFTER_WORD.match(text, word_end)
    if tail is not None:
        quote = (tail.group("quote") or "")[-1:]
        # A quote that never closes (the text was cut) still opens a value.
        value = _VALUE[quote].match(text, tail.end()) or (_VALUE[""].match(text, tail.end()) if quote else None)
        return (value.start(), value.end()) if value else None
    reach = max(0, word_start - _NAME_REACH)
    if text.find("-", reach, word_start) >= 0 and _FLAG.search(text, reach, word_start):
        name_end = _NAME_TAIL.match(text, word_end)
        flag = _FLAG_VALUE.match(text, name_end.end() if name_end else word_end)
        if flag:
            return flag.start("value"), flag.end("value")
    return None


def _keeps(name: str, value: str, quoted: bool) -> bool:
    """Tell whether an assignment's value is evidently not a secret."""
    if _PLACEHOLDER.fullmatch(value) or value.startswith("[REDACTED:") or _looks_harmless(value):
        return True
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    if words and words[-1] in _METADATA_WORDS:
        return True
    if not quoted and _is_code(value):
        return True
    # A token count (`max_tokens=128000`), not a credential.
    return bool(_COUNT.fullmatch(value)) and "tokens" in name.lower()


def _is_code(value: str) -> bool:
    """An unquoted value that is an expression: a call, an index, or a variable named like a secret."""
    if _CODE_EXPRESSION.match(value):
        return True
    return value.isidentifier() and bool(_SECRET_WORD.search(value))


def _looks_harmless(value: str) -> bool:
    """Skip values that are clearly not secrets: references, placeholders, types, code."""
    lowered = value.lower().rstrip(")]}>,.:")
    return (
        lowered in _PLAIN_WORDS
        or value.startswith(("$", "${", "<", "os.environ", "process.env", "env.", "{{"))
        or bool(_CODE_REFERENCE.fullmatch(value))
        or bool(_PLACEHOLDER_VALUE.fullmatch(value))
        or (value.startswith(("http://", "https://")) and not set("@=") & set(value))
        or set(value) <= {"*", "x", "X", "."}
    )
