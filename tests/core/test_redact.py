"""Tests secret redaction: every credential shape is caught, labelled and counted; prose survives."""

from __future__ import annotations

import json

import pytest

from smig_tui.core.redact import redact

# Fake credentials with the real shapes (none of them is live).
CASES = [
    ("openai-key", "sk-proj-Q7wErTy8uIoP4aSdFgHjKlZxCvBnM1234567"),
    ("openai-key", "sk-0123456789abcdef0123456789abcdef"),  # DeepSeek keys have this shape
    ("anthropic-key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"),
    ("github-token", "ghp_" + "a1B2c3D4e5" * 4),
    ("aws-access-key", "AKIAIOSFODNN7EXAMPLE"),
    ("google-api-key", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"),
    ("slack-token", "xoxb-1234567890-abcdefghij"),
    ("stripe-key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("huggingface-token", "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEF"),
    ("gitlab-token", "glpat-AbCdEfGhIjKlMnOpQrSt"),
    ("npm-token", "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    (
        "pypi-token",
        "pypi-AgEIcHlwaS5vcmc" + "CJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NQACKlsz",
    ),
    ("google-oauth-token", "ya29.a0AfB_byDEFghijklmnopQRSTuvwxyz0123456789"),
    ("digitalocean-token", "dop_v1_" + "0123456789abcdef" * 4),
    ("sendgrid-key", "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
]


@pytest.mark.parametrize(("kind", "secret"), CASES)
def test_each_credential_shape_is_replaced_and_counted(kind: str, secret: str) -> None:
    result = redact(f"I ran it with {secret} and it worked.")
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text
    assert result.counts[kind] == 1 and result.total == 1
    assert result.text.startswith("I ran it with ") and result.text.endswith(" and it worked.")


@pytest.mark.parametrize(
    ("text", "gone", "kind"),
    [
        (
            "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI",
            "secret-assignment",
        ),
        ('{"api_key": "abcdef123456"}', "abcdef123456", "secret-assignment"),
        ("x-api-key: abcdefghijklmnop1234", "abcdefghijklmnop1234", "secret-assignment"),
        ("DB_PASSWORD=hunter22", "hunter22", "secret-assignment"),
        (
            "AccountKey=abcdefghijklmnopqrstuvwxyz0123456789ABCD",
            "abcdefghijklmnop",
            "secret-assignment",
        ),
        ("postgres://admin:s3cretpw@db.example.com:5432/app", "s3cretpw", "url-credentials"),
        (
            "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
            "abcdefghijklmnopqrstuvwxyz012345",
            "bearer-token",
        ),
        (
            "Authorization: Basic dXNlcjpwYXNzd29yZDEyMzQ1Ng==",
            "dXNlcjpwYXNzd29yZDEyMzQ1Ng",
            "basic-auth",
        ),
        (
            "https://hooks.slack.com/services/T00000000/B00000000/abcdefghijklmnopqrstuvwx",
            "abcdefghijklmnopqrstuvwx",
            "slack-webhook",
        ),
        (
            "reset_token_url=https://example.com/r?token=abcdef123456",
            "abcdef123456",
            "secret-assignment",
        ),
        ("TOKEN=a1b2c3d4.e5f6g7h8", "a1b2c3d4", "secret-assignment"),
        ('"db_password": "correct.horse9"', "correct.horse9", "secret-assignment"),
    ],
)
def test_contextual_secrets_are_replaced(text: str, gone: str, kind: str) -> None:
    result = redact(text)
    assert gone not in result.text
    assert result.counts[kind] >= 1


def test_private_key_block_is_removed_whole() -> None:
    block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
    result = redact(f"key:\n{block}\ndone")
    assert "b3BlbnNzaC1rZXktdjEAAAAA" not in result.text and result.text.endswith("done")
    assert result.counts["private-key"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "the token count was 12345 tokens",
        "max_tokens=128000 and max_output_tokens: 32000",
        "api_key = os.environ['OPENAI_API_KEY']",
        "OPENAI_API_KEY=$OPENAI_API_KEY",
        "password: required",
        "docs_url=https://platform.openai.com/docs/api-reference",
        "Set the secret in the dashboard, then rerun pytest -q.",
        '"total_tokens":11062},"last_token_usage":{"maxThinkingTokens":31999},',
        "showPopup: (project: string, credentialType: string) => void",
        "const csrfToken = document.querySelector(\"meta[name='csrf-token']\")",
        "api_key=settings.OPENAI_API_KEY and token = get_token()",
        "pip install flask-sqlalchemy-utilities-extra and task-runner-configuration-v2",
    ],
)
def test_harmless_text_is_left_alone(text: str) -> None:
    result = redact(text)
    assert result.text == text and result.total == 0


def test_redaction_is_idempotent_and_counts_add_up() -> None:
    text = "a sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 b TOKEN=abcdefgh123 c AKIAIOSFODNN7EXAMPLE"
    first = redact(text)
    again = redact(first.text)
    assert again.text == first.text and again.total == 0
    assert first.total == 3 and sum(first.counts.values()) == 3


def test_text_whose_lowering_changes_length_is_still_redacted() -> None:
    result = redact("İstanbul İİ PASSWORD=hunter22x and Authorization: Bearer abcdefghijklmnopqrstuvwx")
    assert "hunter22x" not in result.text and "abcdefghijklmnopqrstuvwx" not in result.text
    assert result.text.startswith("İstanbul İİ PASSWORD=[REDACTED:secret-assignment]")
    assert dict(result.counts) == {"secret-assignment": 1, "bearer-token": 1}


def test_a_long_transcript_redacts_in_linear_time() -> None:
    line = '{"type":"token_count","total_tokens":123456,"note":"lorem ipsum tokenizer"}\n'
    text = line * 20_000 + "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz12\n"
    result = redact(text)  # 1.5 MB of token-heavy lines: quadratic scanning would take minutes
    assert result.counts == {"openai-key": 1}
    assert result.text.endswith("OPENAI_API_KEY=[REDACTED:openai-key]\n")


def test_json_escaped_lines_are_redacted_one_by_one() -> None:
    # Tool-call arguments arrive JSON-encoded: a value must stop at the `\n` escape, or the next
    # line's secret rides along unredacted inside the first value's replacement.
    args = json.dumps(
        {
            "cmd": "export OPENAI_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz12\nAWS_SECRET=Zq8xR2mN5vB7cL1k\n"
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
        }
    )
    result = redact(args)
    assert "Zq8xR2mN5vB7cL1k" not in result.text and "ghp_abcdefghij" not in result.text
    assert result.counts == {"openai-key": 1, "secret-assignment": 1, "github-token": 1}
    assert json.loads(result.text)["cmd"].endswith("AWS_SECRET=[REDACTED:secret-assignment]\n[REDACTED:github-token]\n")


def test_escaped_quotes_separate_names_from_values() -> None:
    text = json.dumps({"output": '{"username": "admin", "password": "pa55word!X"}'})
    assert "pa55word!X" not in redact(text).text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("AKIAIOSFODNN7EXAMPL3\nwJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKE", "wJalrXUtnFEMI"),
        ("redis://:s3cr3t-pw@cache:6379/0", "s3cr3t-pw"),
        ("amqp://guest:gu3st!pw@mq:5672/", "gu3st!pw"),
        ("mysql -uroot -pHunt3r22 shop", "Hunt3r22"),
        ("sshpass -p 'Hunt3r22' ssh deploy@host", "Hunt3r22"),
        ("machine api.example.com login bot password Hunt3r22", "Hunt3r22"),
        ('{"auths": {"r.io": {"auth": "dXNlcjpIdW50M3IyMg=="}}}', "dXNlcjpIdW50M3IyMg"),
        ("https://a.blob.core.windows.net/c?sv=2022&sig=abcdefghijklmnopqrstuvwxyz%3D", "abcdefghijklmnop"),
        ("SK0123456789abcdef0123456789abcdef", "0123456789abcdef0123"),
        ("key-0123456789abcdef0123456789abcdef", "0123456789abcdef0123"),
        ("https://api.telegram.org/bot123456789:AAabcdefghijklmnopqrstuvwxyz0123456/getMe", "AAabcdefghij"),
    ],
)
def test_kinds_the_old_patterns_missed(text: str, gone: str) -> None:
    assert gone not in redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        "token_count = len(tokens)",
        '<div class="btn task-sk-primary mask-sk-hidden">',
        "client.get_secret_value(SecretId='prod/db')",
        "self.password = password",
        'token_type = "bearer"',
        'codemie-claude --api-key sk-... "review code"',
        "credentials = '{0}:{1}'.format(user, passwd)",
        "authorization = self.headers.get('authorization')",
    ],
)
def test_code_that_names_a_secret_is_left_alone(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "mysql " * 50_000,
        "eyJ" * 200_000,
        "SG." * 200_000,
        "://aaaa:bbbb" * 50_000,
        "secret_token_password_" * 20_000,
        " --password" * 50_000,
    ],
)
def test_hostile_repeats_stay_linear(text: str) -> None:
    # Each of these took minutes (or hours) when a pattern rescanned the run from every repeat.
    assert redact(text).text.startswith(text[:3])
