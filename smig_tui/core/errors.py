"""Provides smig's exception hierarchy, one class per thing a user can act on.

SmigError                      exit 1 unless a subclass says otherwise
├── ConfigError                a config file or setting is invalid (names file and key)
├── UsageError                 exit 2: options or arguments that do not make sense together
├── NotFoundError              exit 3
│   ├── SessionNotFoundError   no session matches an id or prefix
│   ├── MessageNotFoundError   no message of a session matches a row number or id (a pin)
│   ├── UnknownModelError      a model is not in the capacity table (carries close matches)
│   └── MigrationNotFoundError no stored migration has that id
├── AmbiguousIdError           exit 3: an id prefix matches several sessions, messages or migrations
├── SessionReadError           a session file cannot be read at all
├── WriteRefusedError          exit 4: a write would clobber a file smig does not own
├── LockedError                exit 5: another smig instance holds the lock
└── SummaryError               exit 6: the summarizer's provider failed (one-sentence message)
    ├── NoApiKeyError
    ├── AuthError
    ├── RateLimitError
    ├── ProviderUnavailableError
    ├── SummaryModelNotFoundError
    ├── SummaryConsentError    exit 2: sending needs an explicit opt-in (`--yes-send`)
    └── SummaryCancelledError  exit 130: the user cancelled a summary mid-way
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum


class Hint(StrEnum):
    """What a user can do about an error, as data: each front end words it (the command line's words
    are `CLI_WORDS`; the TUI's and the MCP server's are theirs), so none rewrites another's sentence."""

    REPLACE = "replace"
    """The file exists: it can be replaced."""
    TO_A_FILE = "to_a_file"
    """The clipboard cannot be reached: write to a file instead."""
    SUMMARY_FIRST = "summary_first"
    """The plan needs a summary: write one, or truncate instead."""
    SEND = "send"
    """Writing the summary sends the conversation out: the user has to agree."""
    SUMMARIZER_URL = "summarizer_url"
    """The summarizer needs an address."""
    SUMMARIZER_MODEL = "summarizer_model"
    """The summarizer needs a model."""
    NO_FOLDER = "no_folder"
    """A native session needs a project folder the source does not record: name one, or export."""
    LIST_SESSIONS = "list_sessions"
    """Where the session ids are."""
    LIST_ARCHIVED = "list_archived"
    """Where the archived sessions are."""
    LIST_MIGRATIONS = "list_migrations"
    """Where the stored migrations are."""
    LIST_MODELS = "list_models"
    """Where the known models are, and how to add one (`where`: the config file's table)."""


CLI_WORDS: Mapping[Hint, str] = {
    Hint.REPLACE: "Pass --force to replace it.",
    Hint.TO_A_FILE: "Use --out FILE instead.",
    Hint.SUMMARY_FIRST: "Write one first (`smig summarize`) or choose --strategy truncate.",
    Hint.SEND: "Confirm with --yes-send (or run `smig summarize`).",
    Hint.SUMMARIZER_URL: "Set it there or pass --base-url.",
    Hint.SUMMARIZER_MODEL: "Set it there, pass --model or set SMIG_SUMMARY_MODEL.",
    Hint.NO_FOLDER: "Give one with --cwd, or use --to markdown or --to json.",
    Hint.LIST_SESSIONS: "`smig list` shows the ids.",
    Hint.LIST_ARCHIVED: "`smig archive --status` says what is held.",
    Hint.LIST_MIGRATIONS: "`smig history` lists them.",
    Hint.LIST_MODELS: "See `smig models` for the table, or add it {where}.",
}
"""How the command line says each hint; `str(error)` ends with it (the CLI prints that, logs keep it)."""


class SmigError(Exception):
    """Base of every error smig reports to a user: one readable sentence, and what can be done about it.

    `sentence` says what went wrong in words every front end shares; `hint` (data) says what the user
    can do, and each front end words it (`worded`); `where` fills a hint's `{where}`.
    """

    exit_code = 1

    def __init__(self, sentence: str = "", *, hint: Hint | None = None, where: str = "") -> None:
        super().__init__(sentence)
        self.sentence = sentence
        self.hint = hint
        self.where = where

    def __str__(self) -> str:
        return worded(self, CLI_WORDS)


def worded(error: BaseException, words: Mapping[Hint, str]) -> str:
    """An error's sentence followed by its hint in one front end's `words` (none: the sentence alone)."""
    sentence = getattr(error, "sentence", None)
    if sentence is None:  # not a SmigError, or one built without its own __init__
        return Exception.__str__(error)
    hint = getattr(error, "hint", None)
    phrase = words.get(hint, "") if hint is not None else ""
    return f"{sentence} {phrase.format(where=getattr(error, 'where', ''))}" if phrase else str(sentence)


class ConfigError(SmigError):
    """A config file or setting is invalid."""


class UsageError(SmigError):
    """Options or arguments that do not make sense together (argparse's own errors exit 2 too)."""

    exit_code = 2


class NotFoundError(SmigError):
    """Something named by the user does not exist."""

    exit_code = 3


class SessionNotFoundError(NotFoundError):
    """No session matches the id or prefix given."""


class MessageNotFoundError(NotFoundError):
    """No message of a session has the row number or id (prefix) given."""


class UnknownModelError(NotFoundError):
    """A model name is not in the capacity table."""

    def __init__(self, name: str, suggestions: list[str] | None = None, config_file: str = "") -> None:
        self.name = name
        self.suggestions = suggestions or []
        self.config_file = config_file
        hint = f" Did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        where = f"under [models] in {config_file}" if config_file else "to the config file"
        super().__init__(f"Unknown model {name!r}.{hint}", hint=Hint.LIST_MODELS, where=where)


class MigrationNotFoundError(NotFoundError):
    """No stored migration has the id given."""


class AmbiguousIdError(SmigError):
    """An id prefix matches more than one session (or message, or stored migration)."""

    exit_code = 3


class SessionReadError(SmigError):
    """A session file cannot be read at all (missing, unreadable, not a session)."""


class SourceChangedError(SessionReadError):
    """A session file was rewritten after smig read it, so a text it left there cannot be read back."""


class WriteRefusedError(SmigError):
    """A write was refused because it would clobber a file smig does not own."""

    exit_code = 4


class LockedError(SmigError):
    """Another smig instance holds the lock on the same files."""

    exit_code = 5


class SummaryError(SmigError):
    """The summarizer's provider failed; the message says what to do."""

    exit_code = 6


class NoApiKeyError(SummaryError):
    """No API key is configured for the summarizer's provider."""


class AuthError(SummaryError):
    """The provider rejected the API key (HTTP 401/403)."""


class RateLimitError(SummaryError):
    """The provider rate-limited the request (HTTP 429) after retries."""


class ProviderUnavailableError(SummaryError):
    """The provider could not be reached or timed out."""


class SummaryModelNotFoundError(SummaryError):
    """The provider does not know the summarizer model."""


class SummaryConsentError(SummaryError):
    """A summary would send conversation text off the machine without the caller's opt-in."""

    exit_code = 2


class SummaryCancelledError(SummaryError):
    """The user cancelled a summary while it was being written."""

    exit_code = 130
