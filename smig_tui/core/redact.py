# smig: compiled with mypyc where it can (setup.py)
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

import base64
import functools
import hashlib
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import accumulate
from typing import Any

from ahocorasick_rs import AhoCorasick, Implementation

from smig_tui.core.patterns import on_first_use
from smig_tui.core.secret_shapes import PROVIDER_SHAPES, Shape

# Each pattern starts with a literal or a small character set, so `re` can skip ahead quickly; the
# word boundary a key needs in front is checked in `_replace` instead of by a leading `\b`, which
# would make every position a candidate. A `secret` group, where present, is the part replaced.
# Needles are substrings (of the lowered text; one with capitals, of the text as written) without
# which the pattern cannot match: a plain `in` test skips most regex passes, which matters on
# megabytes of tool output. They are as long as the pattern allows (`ghp_`, `gho_`, ... rather than
# `gh`): one automaton looks for all of them at once, so more needles cost nothing, while a short one
# occurs every few kilobytes of base64 and sends nearly every such text to its pattern.
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
_ARG = r"[ \t]+(?:\\?'(?P<sq>[^'\\\n]+)\\?'|\\?\"(?P<dq>[^\"\\\n]+)\\?\"|(?P<bare>(?!\$(?:[{(]|[A-Z_][A-Z0-9_]*(?![\w])|[a-z_][a-z0-9_]*(?![\w])))[^\s\\\"'<>|;&\-][^\s\\\"'|;&]*))"
"""A command-line argument after its option: single- or double-quoted (escaped quotes when the text is
JSON-encoded) or bare; a bare one that starts with `-` is the next option, with `$` and a name a variable."""
_GLUED_ARG = _ARG.replace("[ \\t]+", "", 1)
"""The same glued to its option, as `mysql -pPW` and `7z -pPW` take it."""
_KNOWN_SHAPES: tuple[Shape, ...] = (
    (
        "private-key",
        ("private key",),
        on_first_use(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        False,
    ),
    ("anthropic-key", ("sk-ant-",), on_first_use(r"sk-ant-[A-Za-z0-9_\-]{20,}"), True),
    ("openai-key", ("sk-",), on_first_use(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"), True),
    (
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        on_first_use(r"g(?:h[pousr]_[A-Za-z0-9]{30,}|ithub_pat_[A-Za-z0-9_]{40,})"),
        True,
    ),
    (
        "aws-access-key",
        ("akia", "asia", "abia", "A3T"),
        on_first_use(r"(?:A(?:KIA|SIA|BIA)|A3T[A-Z0-9])[0-9A-Z]{16}\b"),
        True,
    ),
    ("google-api-key", ("aiza",), on_first_use(r"AIza[0-9A-Za-z_\-]{35}" + _END), True),
    ("google-oauth-secret", ("gocspx-",), on_first_use(r"GOCSPX-[A-Za-z0-9_\-]{20,}"), True),
    (
        "slack-token",
        ("xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "xoxe-", "xapp-"),
        on_first_use(r"x(?:ox[abprse]|app)-[A-Za-z0-9\-]{10,}"),
        True,
    ),
    ("stripe-key", ("_live_", "_test_"), on_first_use(r"[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}"), True),
    ("stripe-webhook-secret", ("whsec_",), on_first_use(r"whsec_[A-Za-z0-9+/=]{24,}"), True),
    ("huggingface-token", ("hf_",), on_first_use(r"hf_[A-Za-z0-9]{30,}"), True),
    (
        "gitlab-token",
        tuple(f"gl{kind}-" for kind in ("pat", "rt", "dt", "ptt", "ft", "imt", "agent", "oas", "cbt", "soat", "ffct")),
        on_first_use(
            r"gl(?:pat|rt|dt|ptt|ft|imt|agent|oas|cbt|soat|ffct)-[A-Za-z0-9_\-]{20,}(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9})?"
        ),
        True,
    ),
    ("grafana-token", ("glsa_", "glc_"), on_first_use(r"gl(?:sa|c)_[A-Za-z0-9_+/=]{32,}"), True),
    ("npm-token", ("npm_",), on_first_use(r"npm_[A-Za-z0-9]{36}" + _END), True),
    ("pypi-token", ("pypi-",), on_first_use(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"), True),
    ("google-oauth-token", ("ya29.",), on_first_use(r"ya29\.[0-9A-Za-z_\-]{20,}"), True),
    ("digitalocean-token", ("_v1_",), on_first_use(r"do[por]_v1_[a-f0-9]{64}\b"), True),
    (
        "sendgrid-key",
        ("sg.",),
        on_first_use(r"SG\." + _starts_token("SG.") + r"[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
        True,
    ),
    ("twilio-key", ("SK", "AC"), on_first_use(r"(?:SK|AC)[0-9a-f]{32}(?![0-9A-Za-z])"), True),
    ("mailgun-key", ("key-",), on_first_use(r"key-[0-9a-f]{32}(?![0-9A-Za-z])"), True),
    (
        "telegram-bot-token",
        (":aa",),
        on_first_use(r"(?:(?<=bot)|(?<=\\[nrt])|(?<![A-Za-z0-9_]))[0-9]{6,12}:AA[A-Za-z0-9_\-]{31,34}" + _END),
        False,
    ),
    (
        "discord-bot-token",
        (".",),
        on_first_use(
            r"[MNO]" + _starts_token("M") + r"[A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,40}" + _END
        ),
        True,
    ),
    (
        "shopify-token",
        ("shpat_", "shpss_", "shpca_", "shppa_"),
        on_first_use(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
        True,
    ),
    ("linear-key", ("lin_api_",), on_first_use(r"lin_api_[A-Za-z0-9]{40}"), True),
    (
        "doppler-token",
        ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
        on_first_use(r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}"),
        True,
    ),
    ("databricks-token", ("dapi",), on_first_use(r"dapi[a-f0-9]{32}(?:-\d)?(?![0-9A-Za-z])"), True),
    ("pulumi-token", ("pul-",), on_first_use(r"pul-[a-f0-9]{40}"), True),
    ("vault-token", ("hvs.", "hvb.", "hvr."), on_first_use(r"hv[sbr]\.[A-Za-z0-9_\-]{24,}"), True),
    ("terraform-token", (".atlasv1.",), on_first_use(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}"), True),
    ("age-secret-key", ("age-secret-key-",), on_first_use(r"AGE-SECRET-KEY-1[0-9A-Z]{58}"), True),
    (
        "mapbox-token",
        ("sk.eyj",),
        on_first_use(r"sk\.eyJ" + _starts_token("sk.eyJ") + r"[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}"),
        True,
    ),
    ("atlassian-token", ("atatt",), on_first_use(r"ATATT3[A-Za-z0-9_\-=]{150,}"), True),
    ("postman-key", ("pmak-",), on_first_use(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"), True),
    (
        "square-token",
        ("eaaa", "sq0atp-", "sq0csp-"),
        on_first_use(r"(?:EAAA[A-Za-z0-9_\-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,})" + _END),
        True,
    ),
    ("heroku-key", ("hrku-",), on_first_use(r"HRKU-[A-Za-z0-9_\-]{40,}"), True),
    ("sentry-token", ("sntry",), on_first_use(r"sntry[su]_[A-Za-z0-9_\-=+/]{40,}"), True),
    ("cloudflare-ca-key", ("v1.0-",), on_first_use(r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"), True),
    (
        "slack-webhook",
        ("hooks.slack.com",),
        on_first_use(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/\-]{20,})"),
        False,
    ),
    (
        "discord-webhook",
        ("/api/webhooks/",),
        on_first_use(r"/api/webhooks/(?P<secret>[0-9]{15,20}/[A-Za-z0-9_\-]{40,})"),
        False,
    ),
    (
        "jwt",
        (".eyj",),
        on_first_use(
            r"eyJ" + _starts_token("eyJ") + r"[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"
        ),
        True,
    ),
    (
        "bearer-token",
        ("bearer ",),
        on_first_use(r"[Bb][Ee][Aa][Rr][Ee][Rr] (?P<secret>[A-Za-z0-9_\-.=/+~]{20,})"),
        True,
    ),
    ("basic-auth", ("basic ",), on_first_use(r"[Bb][Aa][Ss][Ii][Cc] (?P<secret>[A-Za-z0-9+/]{16,}={0,2})"), True),
    (
        "authorization-header",
        ("authorization",),
        on_first_use(
            r"[Aa]uthorization"
            + _Q
            + r"[ \t]*:[ \t]*"
            + _Q
            + r"(?:[A-Za-z][A-Za-z0-9_\-]{1,20}[ \t]+)?(?P<secret>[A-Za-z0-9_\-.=/+~:%]{16,})"
            r"(?![A-Za-z0-9_\-.=/+~:(\[])",
        ),
        True,
    ),
    (
        "docker-auth",
        ('"auth',),
        on_first_use(r""""auth\\?"[ \t]*:[ \t]*\\?"(?P<secret>[A-Za-z0-9+/]{8,}={0,2})"""),
        False,
    ),
    ("azure-sas", ("sig=",), on_first_use(r"[?&]sig=(?P<secret>[A-Za-z0-9%+/=_\-]{20,})"), False),
    (
        "url-credentials",
        ("://",),
        on_first_use(
            r"://[^/\s:@\\\"'<>]{0,256}:(?P<secret>[^/\s@\\\"'<>$%{][^/\s@\\\"'<>]{0,256}"
            r"|%(?!7B)[^/\s@\\\"'<>]{0,256})(?=@)"
        ),
        False,
    ),
    (
        "mysql-password",
        ("mysql", "mariadb"),
        on_first_use(
            r"(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb)\b[^\n|;&]{0,200}?[ \t]-p" + _GLUED_ARG
        ),
        False,
    ),
    (
        "sshpass-password",
        ("sshpass",),
        on_first_use(
            r"sshpass[ \t]+(?:-[a-oq-zA-Z][ \t]+)*-p[ \t]*"
            r"""(?:\\?'(?P<secret>[^'\\]+)|\\?"(?P<dq>[^"\\]+)|(?P<bare>[^\s\\"'$][^\s\\"']*))"""
        ),
        False,
    ),
    # Passwords that commands take on their command line.
    (
        "cli-password",
        ("curl", "wget"),
        on_first_use(
            r"(?:curl|wget)\b[^\n|;&]{0,200}?[ \t](?:-u|--user)[ \t=]+[\\\"']*"
            r"[^\s:'\"\\$]*:(?P<secret>[^\s\\\"'$@-][^\s\\\"']*)"
        ),
        False,
    ),
    *[
        ("cli-password", needles, on_first_use(pattern), False)
        for needles, pattern in (
            # `docker login -p PW` and the clients that copied it.
            (
                ("login",),
                r"(?:docker|podman|nerdctl|buildah|oras|crane|az|helm[ \t]+registry|skopeo|regctl)[ \t]+"
                r"(?:auth[ \t]+|registry[ \t]+)?login\b[^\n|;&]{0,200}?[ \t]-p" + _ARG,
            ),
            (("redis-cli",), r"redis-cli\b[^\n|;&]{0,200}?[ \t]-a" + _ARG),
            (("zip",), r"(?:zip|unzip|zipcloak)\b[^\n|;&]{0,200}?[ \t]-P" + _ARG),
            (("7z",), r"(?:7z|7za|7zr)\b[^\n|;&]{0,200}?[ \t]-p" + _GLUED_ARG),
            (
                ("ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldappasswd"),
                r"ldap[a-z]+\b[^\n|;&]{0,200}?[ \t]-w" + _ARG,
            ),
            (("sqlcmd", "bcp", "osql", "isql"), r"(?:sqlcmd|bcp|osql|isql)\b[^\n|;&]{0,200}?[ \t]-P" + _ARG),
            (("mongo",), r"mongo[a-z]*\b[^\n|;&]{0,200}?[ \t]-p" + _ARG),
            (("prefect",), r"prefect[ \t]+cloud[ \t]+login\b[^\n|;&]{0,200}?[ \t]-k" + _ARG),
            (("codecov", "fly"), r"(?:codecov|codecovcli|fly|flyctl)\b[^\n|;&]{0,200}?[ \t]-t" + _ARG),
            # `htpasswd -b FILE USER PW`, `htpasswd -nb USER PW`.
            (
                ("htpasswd",),
                r"htpasswd[ \t]+(?:-[A-Za-z]*n[A-Za-z]*b[A-Za-z]*|-[A-Za-z]*b[A-Za-z]*n[A-Za-z]*)(?:[ \t]+-[A-Za-z]+)*"
                r"[ \t]+[^\s\\]+" + _ARG,
            ),
            (
                ("htpasswd",),
                r"htpasswd[ \t]+-(?![A-Za-z]*n)[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*[ \t]+[^\s\\]+[ \t]+[^\s\\]+"
                + _ARG,
            ),
            # `openssl … -passout pass:PW`, `-passin pass:PW`.
            (("pass:",), r"-pass(?:in|out|word)?[ \t]+\\?[\"']?pass:(?P<bare>[^\s\\\"']+)"),
            # `smbclient -U 'DOMAIN\\user%PW'`.
            (
                ("smbclient", "rpcclient", "smbget", "smbmap", "smbcacls", "net use"),
                r"(?:smbclient|rpcclient|smbget|smbmap|smbcacls|mount\.cifs|net[ \t]+use)\b[^\n|;&]{0,200}?"
                r"[ \t]-U[ \t]+\\?[\"']?[^\s%\"']+%(?P<bare>[^\s\\\"']+)",
            ),
            # `jenkins-cli.jar -auth USER:TOKEN`.
            (("-auth",), r"jenkins-cli\S*\b[^\n|;&]{0,200}?[ \t]-auth[ \t]+[^\s:]+:(?P<bare>[^\s\\\"']+)"),
            # `rabbitmqctl add_user USER PW`, `change_password USER PW`.
            (("rabbitmqctl",), r"rabbitmqctl\b[^\n|;&]{0,100}?[ \t](?:add_user|change_password)[ \t]+[^\s\\]+" + _ARG),
            # `echo PW | sudo -S …`.
            (("sudo",), r"echo" + _ARG + r"[ \t]*\|[ \t]*sudo[ \t]+(?:-[A-Za-z]*S|--stdin)\b"),
            # `mc alias set NAME URL ACCESS SECRET`.
            (
                ("mc alias", "mc config"),
                r"mc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)(?:[ \t]+[^\s\\]+){3}" + _ARG,
            ),
            # `gh secret set NAME --body VALUE`.
            (("gh secret",), r"gh[ \t]+secret[ \t]+set\b[^\n|;&]{0,200}?[ \t](?:-b|--body)(?:=|(?=[ \t]))" + _ARG),
            # `bundle config gems.contribsys.com USER:PW` and `BUNDLE_HOST__COM=USER:PW`.
            (
                ("bundle",),
                r"(?:bundle[ \t]+config[ \t]+(?:set[ \t]+)?(?:--(?:local|global)[ \t]+)?[A-Za-z0-9_.\-]+\.[a-z]{2,}[ \t]+"
                r"|BUNDLE_[A-Z0-9_]+__[A-Z0-9_]+=)[^\s:\\\"']+:(?P<bare>[^\s\\\"']+)",
            ),
            # Tokens that a login command takes as its argument: `ngrok config add-authtoken TOKEN`.
            (
                ("authtoken", "snyk", "cargo", "wandb", "vault"),
                r"(?:ngrok(?:[ \t]+config)?[ \t]+(?:add-)?authtoken|snyk[ \t]+auth|cargo[ \t]+login|wandb[ \t]+login"
                r"|vault[ \t]+login)(?:[ \t]+-[\w\-]+(?:=[^\s]+)?)*[ \t]+(?P<bare>[^\s\\\"'$<>=\-][^\s\\\"'=]{11,})",
            ),
        )
    ],
    (
        "netrc-password",
        ("password",),
        on_first_use(
            r"(?:machine|login)[ \t]+[^\s\\]+(?:\s|\\[nrt])+(?:login[ \t]+[^\s\\]+(?:\s|\\[nrt])+)?"
            r"password[ \t]+(?P<secret>[^\s\\\"']+)"
        ),
        False,
    ),
)
_HEADER_SEP = r"""\\?["']?[ \t]*:[ \t]*\\?["']?"""
"""Between a header's name and its value, as written, in a JSON string or a Python dict."""
_CONTEXTS: tuple[Shape, ...] = (
    # A private key encoded once more in base64 (a kubeconfig's `client-key-data`, a Kubernetes secret).
    ("private-key-encoded", ("ls0tls1crudjti",), on_first_use(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}"), True),
    # PuTTY's key file: the lines after `Private-Lines: N`.
    (
        "private-key",
        ("private-lines:",),
        on_first_use(r"Private-Lines:[ \t]*\d+(?P<secret>(?:(?:\r?\n|(?:\\r)?\\n)[A-Za-z0-9+/=]{4,})+)"),
        False,
    ),
    (
        "private-key",
        ("static key",),
        on_first_use(r"-----BEGIN OpenVPN Static key V1-----.*?(?:-----END OpenVPN Static key V1-----|\Z)", re.DOTALL),
        False,
    ),
    # The token in a webhook's path: Teams, Mattermost, IFTTT, Zapier and the like.
    (
        "webhook-url",
        ("hook", "/with/key/"),
        on_first_use(
            r"/(?:hooks?|webhooks?|webhookb2|IncomingWebhook|with/key|catch)/(?P<secret>[A-Za-z0-9_\-@.%/=]{16,2048})"
        ),
        False,
    ),
    # A token as a URL's user name: `https://TOKEN@dev.azure.com/…`, a Sentry DSN.
    ("url-token", ("://",), on_first_use(r"://(?P<secret>[A-Za-z0-9_\-.~%]{20,})@"), False),
    # An Azure Functions key or an OAuth code in a query string.
    (
        "url-code",
        ("code=",),
        on_first_use(r"code=(?:(?<=\?code=)|(?<=&code=))(?P<secret>[A-Za-z0-9_\-%=.]{30,})"),
        False,
    ),
    # Cookies: `Cookie:` and `Set-Cookie:` headers, `curl -b`/`--cookie`, and session cookies by name.
    (
        "cookie",
        ("cookie", "-b "),
        on_first_use(
            r"(?:(?i:set-cookie|cookie)" + _HEADER_SEP + r"|(?<![\w\-])(?:-b|--cookie)(?:=|[ \t]+)\\?[\"']?)"
            r"(?P<secret>[^\r\n\"'\\]{1,4096})"
        ),
        False,
    ),
    (
        "session-cookie",
        ("sessionid=", "sessid=", "connect.sid=", "_session="),
        on_first_use(
            r"=(?:(?<=[Ss][Ee][Ss][Ss][Ii][Oo][Nn][Ii][Dd]=)|(?<=[Ss][Ee][Ss][Ss][Ii][Dd]=)|(?<=connect\.sid=)|(?<=_session=))"
            r"(?P<secret>[A-Za-z0-9%._\-+/=:]{16,})"
        ),
        False,
    ),
    # Headers that carry a key under a name that does not say so.
    (
        "api-key-header",
        ("x-honeycomb-team", "x-jfrog-art-api"),
        on_first_use(r"(?i:x-honeycomb-team|x-jfrog-art-api)" + _HEADER_SEP + r"(?P<secret>[A-Za-z0-9_\-.=/+]{16,})"),
        False,
    ),
    # Secrets in XML and PHP by their element or constant name: `<password>PW</password>`,
    # `<add key="ClearTextPassword" value="PW" />`, `define('DB_PASSWORD', 'PW')`.
    (
        "named-secret",
        ("</",),
        on_first_use(r"<(?P<name>[A-Za-z_][A-Za-z0-9_:.\-]{0,64})>(?P<secret>[^<>\s][^<>\n]{3,})</(?P=name)>"),
        False,
    ),
    (
        "named-secret",
        ("<add",),
        on_first_use(r"<add[ \t]+key=\\?\"(?P<name>[^\"\\]{1,64})\\?\"[ \t]+value=\\?\"(?P<secret>[^\"\\]{4,})"),
        False,
    ),
    (
        "named-secret",
        ("define(",),
        on_first_use(
            r"define\([ \t]*\\?['\"](?P<name>[A-Za-z0-9_]{1,64})\\?['\"][ \t]*,[ \t]*\\?['\"](?P<secret>[^'\"\\\n]{4,})"
        ),
        False,
    ),
    # A personal access token by its name: `AZURE_DEVOPS_EXT_PAT=…`, `GITHUB_PAT: …`.
    (
        "personal-access-token",
        ("_PAT", "-PAT", "_pat=", "_pat:"),
        on_first_use(
            r"[_\-](?:PAT|pat)(?![A-Za-z])" + _HEADER_SEP.replace(":", "[:=]") + r"(?P<secret>[A-Za-z0-9_\-.]{20,})"
        ),
        False,
    ),
    # `.pgpass`: host:port:database:user:password.
    (
        "pgpass-password",
        ("pgpass",),
        on_first_use(r"(?<![^\s\"'])[A-Za-z0-9_.\-*]+:(?:\d+|\*):[^\s:\"'\\]+:[^\s:\"'\\]+:(?P<secret>[^\s\"'\\]+)"),
        False,
    ),
    # `aws configure set aws_secret_access_key VALUE`, `tccli configure set secretKey VALUE`.
    ("configured-secret", ("configure set",), on_first_use(r"configure[ \t]+set\b(?P<secret>[^\n|;&]{1,400})"), False),
    # A random-looking literal handed to an API client: `cohere.Client("…")`, `algoliasearch('ID', '…')`.
    (
        "client-argument",
        ("client(", "algoliasearch(", "gateway(", "api(", "dropbox("),
        on_first_use(
            r"\((?:(?<=[Cc]lient\()|(?<=algoliasearch\()|(?<=[Gg]ateway\()|(?<=[Aa]pi\()|(?<=[Dd]ropbox\())(?P<secret>[^()\n]{10,300})\)"
        ),
        False,
    ),
)
_PATTERNS: tuple[Shape, ...] = _KNOWN_SHAPES + PROVIDER_SHAPES + _CONTEXTS
_AWS_KEY_ID = on_first_use(r"\[REDACTED:aws-access-key\]")
# An AWS secret key is 40 characters of base64 with both cases; after a key id it is the key's pair.
_AWS_SECRET = on_first_use(r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9/+]))[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_AWS_REACH = 200
"""How far after a key id its secret may stand (a CSV row, the next line of a console page)."""
_TWILIO_SID = on_first_use(r"\[REDACTED:twilio-key\]")
# An account's auth token (32 hex) after its SID, an API key's secret (32 letters and digits) after its SK id.
_TWILIO_SECRET = on_first_use(r"(?<![0-9A-Za-z])[0-9A-Za-z]{32}(?![0-9A-Za-z])")

_WORD_CORES: tuple[str, ...] = ("key", "secret", "token", "pass", "pwd", "credential", "auth", "psk", "mnemonic")
"""One of these is in every secret word; the word starts at most `_CORE_START` characters before it
(`account_key`) and ends at most `_CORE_TAIL` after it (`passphrase`). (Typed as any length: compiled,
a tuple's inferred type is its length, and the secrets suite switches the detector off with `()`.)"""
_CORE_START, _CORE_TAIL = 8, 6
_NAME_NEEDLES = _WORD_CORES

_NOT_AFTER = {
    "token": r"(?!s|i[sz])",
    "pass": r"(?!ed|ing|es|age|port|ive|enger)",
    "auth": r"(?!or|ent)",
    "key": r"(?!s|board|word|stroke|chain|frame|code|down|up|press|map|event|err)",
}
"""What ends a core's word where it is not a name (`tokens`, `passed`, `author`, `keyboard`): those places
are not listed (`_core_places`), so most of the cores in a session's text cost nothing."""
# `NAME=value` / `"name": "value"` where the name may say secret; the value is replaced, the name kept.
# Longer words first: at one place the first alternative that matches is the one found.
_SECRET_WORD = on_first_use(
    r"(?i)(?:api[_\-]?|auth[_\-]?|private[_\-]?|access[_\-]?|account[_\-]?)?key"
    + _NOT_AFTER["key"]
    + r"|secret|token"
    + _NOT_AFTER["token"]
    + r"|passphrase|passw(?:or)?d|passwd|pwd|credential|mnemonic|psk"
    r"|pass" + _NOT_AFTER["pass"] + r"|auth" + _NOT_AFTER["auth"]
)
# The same words, searched in lowered text: a case-sensitive alternation of literals is much faster.
_SECRET_WORD_LOWER = on_first_use(_SECRET_WORD.pattern.removeprefix("(?i)"))
# What may follow the secret word: the rest of the name and the separator (quotes may be escaped):
# `=`, `:`, Go's `:=`, PHP's and Ruby's `=>`, Make's `?=`.
_AFTER_WORD = on_first_use(
    r"""[A-Za-z0-9_\-]{0,64}(?P<sep>(?:\\?["'])?[ \t]*(?::=|=>|\?=|[:=])[ \t]*(?P<quote>\\?["'])?)"""
)
# A command-line flag naming a secret: `--password PW`, `--api-key=KEY`, `-storepass PW`.
_FLAG = on_first_use(r"(?:(?<!\S)|(?<=\\[nt]))--?[A-Za-z0-9\-]*$")
_NAME_TAIL = on_first_use(r"[A-Za-z0-9_\-]{0,64}")
# A flag's value: quoted (spaces allowed), bare, or bare starting with one dash (`--password -Xy7…`).
_FLAG_VALUE = on_first_use(
    r"""(?:=|[ \t]+)(?:\\?(?P<q>["'])(?P<quoted>[^"'\\\n]{4,})\\?(?P=q)"""
    r"""|(?P<value>(?!\$(?:[{(]|[A-Z_][A-Z0-9_]*(?![\w])|[a-z_][a-z0-9_]*(?![\w])))[^\s\\"'<\-|>][^\s\\"'|;&]{5,})"""
    r"""|(?P<dashed>-(?![\-\s])[^\s\\"'|;&]{5,}))"""
)
# A value: unquoted up to a space, quote or separator; quoted up to its closing (maybe escaped) quote.
# Unquoted values run through `&` (Django keys hold it) except in a URL's query string.
_VALUE = {
    "": on_first_use(r"""[^\s"'`,;\\]{6,}"""),
    "&": on_first_use(r"""[^\s"'`,;&\\]{6,}"""),
    '"': on_first_use(r'[^"\\\s][^"\\\n]{3,}(?=\\?")'),
    "'": on_first_use(r"[^'\\\s][^'\\\n]{3,}(?=\\?')"),
}
_REST_OF_LINE = on_first_use(r"""[^\r\n\\"'`]*""")
_WORDS_TO_LINE_END = on_first_use(
    r"""[^\s"'`,;\\#|>][^\s"'`,;\\]{1,5}(?:[ \t]+[^\s"'`,;\\#]+)+(?=[ \t]*(?:$|[\r\n"]|\\[nr"]))"""
)
_COMMENT = on_first_use(r"[ \t]+#.*$")
_NAME_REACH = 64
"""Most characters a name runs on either side of its secret word; longer runs are not names (and
bounding them keeps the scan linear on megabytes of identifier soup)."""
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_PLACEHOLDER = on_first_use(r"\[REDACTED:[a-z\-]+\]")
_COUNT = on_first_use(r"\d[\d_,.]*[)\]}]*")
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
_CODE_REFERENCE = on_first_use(r"[A-Za-z_]+(?:\.[A-Za-z_]+)+\(?|[A-Za-z_]+\(\)?")
# An unquoted value that calls or indexes something: `bcrypt.hashpw(`, `len(tokens)`, `config[`.
_CODE_EXPRESSION = on_first_use(r"[(\[]|[A-Za-z_][A-Za-z0-9_.]*[(\[]")
# An operator after an unquoted value makes it an expression: `Token = Ignore + PlainToken`.
_OPERATOR_AFTER = on_first_use(r"[ \t]*[-+*/%][ \t]")
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
        "timeout",
        "interval",
        "retries",
        "attempts",
        "age",
        "lifetime",
        "seconds",
        "minutes",
        "hours",
        "days",
    }
)
_NAME_WORDS = on_first_use(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# Stand-ins and templates: `your-api-key-here`, `<token>`, `xxxx`, `'{0}:{1}'`, `"%s:%s"`.
_PLACEHOLDER_VALUE = on_first_use(
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
    return _redact_found(text, lowered, *_scan_text(text, lowered))


LINE_MARGIN = 8_192
"""Characters redacted past the end of a shortened line: a secret that starts in what is shown is
redacted whole (up to this long) before the line is cut, so the cut never leaves its head."""


def redacted_line(text: str | None, width: int) -> str | None:
    """`text` as one line of at most `width` characters (whitespace collapsed, `…` where it was cut),
    its secrets replaced before the cut: titles, names and previews, wherever they are shown.

    Only the head of a long text is read: enough that, whitespace collapsed, `LINE_MARGIN`
    characters follow what is shown (a first prompt can be megabytes).
    """
    if not text:
        return None
    end = width + LINE_MARGIN
    while True:
        head = " ".join(text[:end].split())
        if len(head) >= width + LINE_MARGIN or end >= len(text):
            break
        end *= 4
    flat = " ".join(redact(head).text.split())
    if not flat:
        return None
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


_CUT_TRIES = 256
"""Whitespace steps a cut may move before it gives up and keeps nothing on its side."""


def cut_outside_secrets(text: str, cut: int, head: bool) -> int:
    """Where to cut `text` near `cut` so that no secret is cut in two: `text[:result]` is kept when
    `head`, else `text[result:]`; the kept side only shrinks.

    A secret the cut passes through is redacted by neither half afterwards (the tail of a token has
    no prefix left to recognise, a password is parted from its name), so shortened text that is
    redacted later would keep a piece of it verbatim. The cut moves to the whitespace before it (the
    head) or after it (the tail) until each side redacts as the whole text does there.
    """
    end = 0 if head else len(text)
    for _ in range(_CUT_TRIES):
        if cut == end or not _splits_a_secret(text, cut):
            return cut
        cut = _whitespace_before(text, cut) if head else _whitespace_after(text, cut)
    return end


_NEAR = 2_048
"""Characters each side of a cut read first: every secret but a long key block or token lies within."""
_LONG_RUN = on_first_use(r"\S{512}")
"""Unbroken text this long around a cut may be one long secret (a key as one base64 line, a JWT)."""


def _splits_a_secret(text: str, cut: int) -> bool:
    """Tell whether the text on either side of `cut` redacts otherwise than the whole does there.

    `_NEAR` characters each side first (most cuts: one quick look at text with no secret); as far
    as `LINE_MARGIN` when a key block's first or last line or a long unbroken run is near: the cut
    may be in the middle of a secret too long to show within `_NEAR`.
    """
    if _cut_in_two(text, cut, _NEAR):
        return True
    near, at = text[max(0, cut - _NEAR) : cut + _NEAR], min(cut, _NEAR)
    if "-----BEGIN" not in near and "-----END" not in near and not _LONG_RUN.search(near, max(0, at - 512), at + 512):
        return False
    return _cut_in_two(text, cut, LINE_MARGIN)


def _cut_in_two(text: str, cut: int, margin: int) -> bool:
    """Tell whether `margin` characters each side of `cut` redact otherwise apart than together."""
    start = max(0, cut - margin)
    window = text[start : cut + margin]
    whole = redact(window).text
    if whole == window:
        return False
    at = cut - start
    return redact(window[:at]).text + redact(window[at:]).text != whole


_WHITESPACE = on_first_use(r"\s")


def _whitespace_before(text: str, cut: int) -> int:
    """The last whitespace before `cut` (the head then ends before it), else 0."""
    return max(text.rfind(" ", 0, cut), text.rfind("\n", 0, cut), text.rfind("\t", 0, cut), 0)


def _whitespace_after(text: str, cut: int) -> int:
    """Just past the first whitespace at or after `cut` (the tail then starts after it), else the end."""
    found = _WHITESPACE.search(text, cut)
    return found.end() if found else len(text)


def detector_version() -> str:
    """A fingerprint of the detector's rules: caches of redacted text (listing titles) keep it, so
    what an older, weaker detector let through is redacted again."""
    return _current_gates().version


def _redact_found(
    text: str, lowered: str, patterns: list[int], cores: CorePlaces | None, found: set[str] | None = None
) -> Redaction:
    """`redact` once the patterns the text needs are known, and (`cores`) where the cores of secret
    words occur in it (None: not looked for yet); `found`, the needles it holds, when known."""
    counts: Counter[str] = Counter()
    source, leads = text, _current_gates().leads
    for index in patterns:
        kind, _, pattern, bounded = _PATTERNS[index]
        replace = partial(_replace, kind=kind, bounded=bounded, counts=counts)
        shape, lead = _SHAPES.get(kind), leads.get(index)
        if shape is not None:
            text = _sub_near_shapes(pattern, shape, replace, text)
        elif lead is not None and len(lowered) == len(text) and (text is source or text == source):
            text = _sub_at_leads(pattern, lead, replace, text, lowered, found)
        else:
            text = pattern.sub(replace, text)
    if counts:
        if counts["aws-access-key"]:
            text = _redact_after(text, _AWS_KEY_ID, _AWS_SECRET, "aws-secret-key", counts, _mixed_case)
        if counts["twilio-key"]:
            text = _redact_after(text, _TWILIO_SID, _TWILIO_SECRET, "twilio-auth-token", counts, _random_looking)
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


_SHAPES = {
    "discord-bot-token": _Shape(on_first_use(r"\.[A-Za-z0-9_\-]{6,7}\.(?=[A-Za-z0-9_\-]{27})"), range(24, 29)),
    "azure-ad-client-secret": _Shape(on_first_use(r"Q~"), range(4, 5)),
    "azure-key": _Shape(on_first_use(r"JQQJ9"), range(52, 53)),
    "maxmind-key": _Shape(on_first_use(r"_mmk"), range(36, 37)),
}
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
    regex calls or 67 substring tests per message. Here a run of texts is joined and searched once by
    the automaton of needles and name cores (and once per group of needles with capitals); a hit names
    the text it falls in, which alone is then examined. Most texts meet neither and cost no Python.
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
        needles, cores = _scan_run(as_written, as_lowered)
        unshaped = _unshaped_patterns(as_written, {index for found in needles for index in _patterns_of(found)})
        out += [
            _redact_found(
                text, low, [i for i in _patterns_of(found) if index not in unshaped.get(i, ())], text_cores, found
            )
            if found or text_cores
            else Redaction(text)  # no needle, no name: most texts, and nothing to look at
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


def _scan_run(as_written: _Joined, as_lowered: _Joined) -> tuple[list[set[str]], list[CorePlaces]]:
    """The needles each text holds (what `_scan_text` finds in it) and where the cores of secret words
    are in it (`_core_places`), found for the run at once: the automaton's one pass gives both."""
    gates = _current_gates()
    found, places = _automaton_scan(as_lowered.joined, as_lowered.starts)
    for groups, run in ((gates.lowered, as_lowered), (gates.exact, as_written)):
        haystacks, joined, starts = run.texts, run.joined, run.starts
        for anchor, group in groups:
            if len(group) == 1 and len(group[0]) == 1:
                for index in _texts_holding(group, run):
                    found[index].add(group[0])
                continue
            finder, at = _group_regex(anchor, group), 0
            while hit := finder.search(joined, at):
                index = run.holder(hit.start())
                # No needle of the group is in this text before the hit: look on from there.
                _find_needles(anchor, group, haystacks[index], found[index], hit.start() - starts[index])
                at = starts[index + 1]
    return found, places


def _automaton_scan(joined: str, starts: list[int]) -> tuple[list[set[str]], list[CorePlaces]]:
    """For each text of a lowered run (`starts`: where each begins in `joined`, and one past the end), the
    automaton's needles it holds and where the cores of secret words are in it, in order."""
    gates = _current_gates()
    found: list[set[str]] = [set() for _ in starts[1:]]
    places: list[CorePlaces] = [[] for _ in starts[1:]]
    longer = gates.longer_lowered
    for number, where, end in _automaton_places(gates, joined):
        index = bisect_right(starts, where) - 1
        if number < len(longer):
            found[index].add(longer[number])
        elif _is_core(number - len(longer), joined, end):
            places[index].append((where - starts[index], end - where))
    for text_places in places:
        if len(text_places) > 1:
            text_places.sort()
    return found, places


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


Lead = tuple[tuple[str, tuple[int, ...]], ...]
"""For a pattern that opens with one of a few words (`(?:sqlcmd|bcp|osql|isql)`), each needle and
where it can stand in that opening word (`zip` at 0 in `zip`, at 2 in `unzip`)."""

_OPENING_WORDS = on_first_use(r"\(\?:([a-z0-9_\-]+(?:\|[a-z0-9_\-]+)*)\)")


def _lead_of(pattern: re.Pattern[str], needles: tuple[str, ...]) -> Lead | None:
    """Where a pattern's needles stand in the word every match opens with, when it opens with one of a
    few plain lowercase words each holding a needle; else None.

    `re` tries such an alternation at every position holding one of the words' first letters: 10-20 ns
    a character, where a pattern opening with one word skips ahead to it. On base64 in a tool reply,
    `bcp` sends nearly every text to its pattern.
    """
    opening = _OPENING_WORDS.match(pattern.pattern)
    if opening is None or pattern.flags & re.VERBOSE or not _always_after(pattern.pattern, opening.end()):
        return None
    words = opening.group(1).split("|")
    if not all(any(needle in word for needle in needles) for word in words):
        return None
    return tuple(
        (needle, tuple(sorted({at for word in words for at in range(len(word)) if word.startswith(needle, at)})))
        for needle in needles
        if any(needle in word for word in words)
    )


def _always_after(source: str, end: int) -> bool:
    """Whether every match of the regex `source` opens with its group ending at `end`: the group is not
    optional (no `?`, `*` or `{` after it) and nothing after it is an alternative at the top level (`|`
    outside any group or character set)."""
    if source[end : end + 1] in ("?", "*", "{"):
        return False
    depth, at, in_set = 0, end, False
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 1  # the escaped character stands for itself
        elif in_set:
            in_set = char != "]"
        elif char == "[":
            in_set = True
            if source.startswith("^", at + 1):
                at += 1
            if source.startswith("]", at + 1):  # a `]` first in a set stands for itself
                at += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return False
        at += 1
    return True


def _sub_at_leads(
    pattern: re.Pattern[str],
    lead: Lead,
    replace: Callable[[re.Match[str]], str],
    text: str,
    lowered: str,
    found: set[str] | None,
) -> str:
    """`pattern.sub(replace, text)`, with the pattern tried only where its opening word can start.

    Every match opens with a word holding a needle (`_lead_of`), so each place a needle occurs in the
    lowered text names the starts to try; tried in order with `match`, which sees the whole text as
    `sub` does, the first that matches is the match `sub` finds next. Only the needles in `found` (all,
    when None) are looked for.
    """
    starts: set[int] = set()
    for needle, offsets in lead:
        if found is not None and needle not in found:
            continue
        place = lowered.find(needle)
        while place >= 0:
            starts.update(place - offset for offset in offsets if place >= offset)
            place = lowered.find(needle, place + 1)
    out: list[str] = []
    done = 0
    for start in sorted(starts):
        if start < done:
            continue
        hit = pattern.match(text, start)
        if hit is not None:
            out += (text[done:start], replace(hit))
            done = hit.end()
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _unshaped_patterns(run: _Joined, wanted: set[int]) -> dict[int, set[int]]:
    """For each pattern with a shape (`_SHAPES`) that some text of the run wants (its needles are
    there), the texts of the run where the shape does not occur."""
    unshaped: dict[int, set[int]] = {}
    joined, starts = run.joined, run.starts
    for index, (kind, _, _, _) in enumerate(_PATTERNS):
        shape = _SHAPES.get(kind)
        if shape is None or index not in wanted:
            continue
        shaped, at = set(), 0
        while hit := shape.finder.search(joined, at):
            found = run.holder(hit.start())
            shaped.add(found)
            at = starts[found + 1]
        unshaped[index] = set(range(len(run.texts))) - shaped
    return unshaped


_WINDOW = 1 << 18
"""Characters the automaton searches in one call. Each call maps every byte of what it is given to a
character's index, 8 bytes a character (a 100 MB text took 760 MB more and 1 s), where windows of 16 K
to 2 M characters all search 245 MB in 0.65 s."""


def _automaton_places(gates: _Gates, haystack: str) -> Iterator[tuple[int, int, int]]:
    """(number, start, end) of every place of a lowered needle (numbered as in `longer_lowered`) or of a
    core of secret words (numbered on from there) in `haystack`, each once, a window at a time. Each
    window reaches on by the longest of them but one character, so one across two windows is found in
    the first; one that starts in that reach is left to the next."""
    finder, reach = gates.lowered_finder, gates.lowered_reach
    size = len(haystack)
    for start in range(0, max(size, 1), _WINDOW):
        window = haystack if size <= _WINDOW else haystack[start : start + _WINDOW + reach]
        try:
            places = finder.find_matches_as_indexes(window, True)
        except UnicodeEncodeError:  # a lone surrogate (JSON's `\ud800`): the automaton reads UTF-8
            places = finder.find_matches_as_indexes(_SURROGATE.sub("\ufffd", window), True)
        for number, where, end in places:
            if where < _WINDOW:
                yield number, start + where, start + end


_SURROGATE = on_first_use(r"[\ud800-\udfff]")
"""A lone surrogate, replaced for the automaton by a character no needle holds (one for one: places stay)."""


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
"""Below this many characters a text is tested for each needle with capitals in turn, rather than by
their groups' regexes (measured crossover on session text)."""
_FIND_BUDGET = 1 << 18
"""Characters `_find_needles` may scan with `str.find` (needles left times text left) rather than make a
regex of the needles left: about what making one costs."""
_CHAR_SHARE = {
    " ": 12.1, "e": 8.66, "t": 5.55, "r": 5.45, "s": 5.05, "n": 4.68, "o": 4.26, "a": 4.08, "i": 4.02,
    "d": 2.95, "c": 2.69, "l": 2.6, '"': 2.32, "p": 2.2, "u": 2.01, "-": 1.77, "m": 1.68, ":": 1.63,
    "_": 1.49, "f": 1.49, "/": 1.34, "h": 1.24, "1": 1.11, "g": 1.1, "v": 1.01, ".": 0.96, "w": 0.95,
    "2": 0.82, "b": 0.81, "0": 0.8, "y": 0.78, "3": 0.68, "4": 0.66, "5": 0.61, "x": 0.56, "6": 0.54,
    "9": 0.52, "7": 0.51, "k": 0.5, "8": 0.48, "(": 0.42, "=": 0.35, "j": 0.2, "q": 0.17, "z": 0.11,
    "<": 0.1, "~": 0.01,
}  # fmt: skip
"""Percent of session text (lowered) each character makes, for the characters needles hold (measured
on generated sessions and the real fixtures, half each); a character missing here is rare."""
_HIT_SHARE = 1.8
"""A search led by a character this common costs twice one led by a rare one (it stops at every
occurrence; measured with `re` on session text): the cost of each pass is `1 + share / _HIT_SHARE`."""


@dataclass(frozen=True)
class _Gates:
    """Which patterns a text needs, found in a few passes instead of one per needle.

    Testing each of the needles (about 250) with `in` cost more than the patterns themselves: a scan of
    every text per needle. The needles of the lowered text (all but seven) are looked for at once, by one
    Aho-Corasick automaton (`lowered_finder`); the few with capitals are grouped by a character
    each holds (`_groups`), each group one regex that `re` skips through by that character.
    """

    source: tuple[Any, ...]
    patterns_of: dict[str, tuple[int, ...]]
    """The patterns each needle lets run."""
    implied: dict[str, tuple[str, ...]]
    """The needles inside each needle (`sk-` inside `sk-ant-`): found with it."""
    lowered_finder: AhoCorasick
    """Finds every place any of `longer_lowered`, then of `_WORD_CORES`, occurs in a lowered text, in
    one pass: the twenty-five regex passes it replaced were more than half of redacting a whole session."""
    longer_lowered: tuple[str, ...]
    """The needles of the lowered text longer than a character, in `lowered_finder`'s order."""
    lowered_reach: int
    """The longest of them or the cores but one character: how far a window searched reaches into the next."""
    lowered: tuple[tuple[str, tuple[str, ...]], ...]
    """The one-character needles of the lowered text (a Discord token's `.`), each alone: nearly every
    text holds one, so each is tested with `in`, where the automaton would list every place."""
    exact: tuple[tuple[str, tuple[str, ...]], ...]
    """Groups looked for in the text as written: needles with capitals (`AC` of a Twilio SID)."""
    leads: dict[int, Lead] = field(default_factory=dict)
    """The patterns opening with one of a few words, by index, and where their needles stand in them."""
    every_lowered: tuple[str, ...] = ()
    every_exact: tuple[str, ...] = ()
    version: str = ""
    """A digest of the patterns and name words (`detector_version`)."""


def _pass_cost(char: str) -> float:
    """What one search of the text led by `char` costs, one led by a rare character being 1."""
    return 1 + _CHAR_SHARE.get(char, 0.0) / _HIT_SHARE


def _groups(needles: list[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The needles grouped by a character each holds, each group one search led by that character.

    Every search is one pass over the text, so the characters are chosen to cover all the needles
    in few passes, each over a character rare enough that the search seldom stops (greedily: the
    character of least cost per needle it takes in). A one-character needle (a Discord token's `.`)
    is in most texts: alone, a hit on it does not send every text back to be searched for the longer
    needles sharing its character.
    """
    longer = sorted((needle for needle in needles if len(needle) > 1), key=lambda needle: (-len(needle), needle))
    holding: dict[str, int] = {}  # for each character, the needles holding it (bit i: longer[i])
    for number, needle in enumerate(longer):
        for char in needle:
            holding[char] = holding.get(char, 0) | 1 << number
    groups: list[tuple[str, tuple[str, ...]]] = []
    chars, left = sorted(holding), (1 << len(longer)) - 1
    while left:
        anchor = min(
            (char for char in chars if holding[char] & left),
            key=lambda char: _pass_cost(char) / (holding[char] & left).bit_count(),
        )
        taken = holding[anchor] & left
        left &= ~taken
        members = []  # longest first, as in `longer`
        while taken:
            members.append(longer[(taken & -taken).bit_length() - 1])
            taken &= taken - 1
        groups.append((anchor, tuple(members)))
    return tuple(groups) + tuple((needle, (needle,)) for needle in needles if len(needle) == 1)


@functools.lru_cache(maxsize=256)
def _group_regex(anchor: str, needles: tuple[str, ...]) -> re.Pattern[str]:
    """One regex finding any of the needles, led by `anchor` (a character each holds); the alternative
    that matched is named by `lastgroup` (`n<i>`: the i-th needle).

    After the anchor the needles' characters are checked as a trie, each character once whatever
    the number of needles sharing it, and the characters in front of the anchor last (a lookbehind
    of the whole needle): `re` rejects an alternative that opens with a literal in one comparison,
    while one that opens with a lookbehind is entered in full at every anchor.
    """
    entries, ends, before = [], [], set()
    for number, needle in enumerate(needles):
        at = needle.index(anchor)
        whole = f"(?<={re.escape(needle)})" if at else ""  # behind the end: the needle, anchor included
        if at and at == len(needle) - 1:  # the anchor ends it: only what stands in front is left to check
            ends.append(f"{whole}(?P<n{number}>)")
            before.add(needle[at - 1])
        else:
            entries.append((needle[at + 1 :], f"{whole}(?P<n{number}>)"))
    if len(ends) > 1:  # one test of the character in front turns most anchors away before any lookbehind
        guard = "(?<=[" + "".join(re.escape(char) for char in sorted(before)) + "]" + re.escape(anchor) + ")"
        entries.append(("", guard + "(?:" + "|".join(ends) + ")"))
    else:
        entries += [("", end) for end in ends]
    return re.compile(re.escape(anchor) + _trie(entries))


def _trie(entries: list[tuple[str, str]]) -> str:
    """A regex matching each entry's text followed by its tail, sharing the texts' common starts."""
    by_first: dict[str, list[tuple[str, str]]] = {}
    ends = []
    for text, tail in entries:
        if text:
            by_first.setdefault(text[0], []).append((text[1:], tail))
        else:
            ends.append(tail)
    parts = [re.escape(first) + _trie(rest) for first, rest in by_first.items()] + ends
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _build_gates(patterns: tuple[Any, ...]) -> _Gates:
    patterns_of: dict[str, list[int]] = {}
    for index, (_, needles, _, _) in enumerate(patterns):
        for needle in needles:
            patterns_of.setdefault(needle, []).append(index)
    implied = {
        needle: tuple(other for other in patterns_of if other != needle and other in needle) for needle in patterns_of
    }
    lowered = [needle for needle in patterns_of if needle == needle.lower()]
    exact = [needle for needle in patterns_of if needle != needle.lower()]
    longer = tuple(needle for needle in lowered if len(needle) > 1)
    rules = "\x1f".join([_SECRET_WORD.pattern, *(f"{kind} {pattern.pattern}" for kind, _, pattern, _ in patterns)])
    return _Gates(
        patterns,
        {needle: tuple(indexes) for needle, indexes in patterns_of.items()},
        implied,
        AhoCorasick((*longer, *_WORD_CORES), implementation=Implementation.DFA),  # the fastest: 0.65 s for 245 MB
        longer,
        max(map(len, (*longer, *_WORD_CORES)), default=1) - 1,
        tuple((needle, (needle,)) for needle in lowered if len(needle) == 1),
        _groups(exact),
        {
            index: lead
            for index, (_, needles, pattern, _) in enumerate(patterns)
            if (lead := _lead_of(pattern, needles)) is not None
        },
        tuple(lowered),
        tuple(exact),
        hashlib.sha256(rules.encode()).hexdigest()[:12],
    )


_gates = _build_gates(_PATTERNS)


def _current_gates() -> _Gates:
    """The gates of the pattern table as it is now."""
    global _gates
    if _gates.source is not _PATTERNS:  # the table was swapped (tests switch the detector off)
        _gates = _build_gates(_PATTERNS)
    return _gates


def _scan_text(text: str, lowered: str) -> tuple[list[int], CorePlaces]:
    """The patterns whose needles occur in the text, in table order (the order they always ran in), and
    where the cores of secret words are in it (`_core_places`): the automaton's one pass gives both."""
    gates = _current_gates()
    found, places = _needles_and_cores(lowered)
    found.update(needle for _, (needle,) in gates.lowered if needle in lowered)
    if len(text) < _SHORT_TEXT:  # most messages: a plain test per needle beats a regex call per group
        found.update(needle for needle in gates.every_exact if needle in text)
        return _patterns_of(found), places
    for anchor, group in gates.exact:
        _find_needles(anchor, group, text, found)
    return _patterns_of(found), places


def _patterns_of(found: set[str]) -> list[int]:
    """The patterns the found needles let run, in table order (the order they always ran in)."""
    wanted: set[int] = set()
    for needle in found:
        wanted.update(_gates.patterns_of[needle])
        for inner in _gates.implied[needle]:
            wanted.update(_gates.patterns_of[inner])
    return sorted(wanted)


def _find_needles(anchor: str, group: tuple[str, ...], haystack: str, found: set[str], at: int = 0) -> None:
    """Add the group's needles that occur in `haystack` (from `at`, where a search of the group
    matched first) to `found`.

    Each hit names one needle; the search goes on from the same place for the needles not yet
    found, so one hiding another at the same spot is still seen. Most texts need one pass. When
    what is left is small (`_FIND_BUDGET`), each needle left is looked for with `str.find` instead:
    a regex for each set of needles left costs more to make than such a search, and glued needles
    in short texts make many different sets.
    """
    remaining = group
    while remaining:
        hit = _group_regex(anchor, remaining).search(haystack, at)
        if hit is None:
            return
        needle = remaining[int(str(hit.lastgroup)[1:])]
        found.add(needle)
        found.update(inner for inner in _gates.implied[needle] if inner in group)
        remaining = tuple(other for other in remaining if other not in found)
        at = hit.start()
        if len(remaining) * (len(haystack) - at) <= _FIND_BUDGET:
            # No needle occurs with its anchor before `at`: each is looked for from there.
            found.update(other for other in remaining if haystack.find(other, max(0, at - other.index(anchor))) >= 0)
            return


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
    """Replace a hit (or just its secret group) unless it is glued to a word in front of it, or the
    kind's own check (`_SPECIAL`) says it is not a secret after all."""
    if bounded and _glued(match.string, match.start()):
        return match.group(0)
    special = _SPECIAL.get(kind)
    if special is not None:
        return special(match, kind, counts)
    return _replaced(match, kind, counts)


def _replaced(match: re.Match[str], kind: str, counts: Counter[str]) -> str:
    """The hit with its secret group (or all of it) replaced by the kind's placeholder."""
    whole, start = match.group(0), match.start()
    counts[kind] += 1
    groups = [name for name in ("secret", "sq", "dq", "bare") if name in match.re.groupindex and match.group(name)]
    if not groups:
        return f"[REDACTED:{kind}]"
    head, tail = match.start(groups[0]) - start, match.end(groups[0]) - start
    return f"{whole[:head]}[REDACTED:{kind}]{whole[tail:]}"


def _when(test: Callable[[re.Match[str]], bool]) -> Callable[[re.Match[str], str, Counter[str]], str]:
    """A special rule that replaces a hit only when `test` accepts it."""

    def replace(match: re.Match[str], kind: str, counts: Counter[str]) -> str:
        return _replaced(match, kind, counts) if test(match) else match.group(0)

    return replace


def _token_looking(value: str) -> bool:
    """Where the place already says credential (a webhook's path, a URL's user, a session cookie),
    a token is any long run that is not words: digits in it, or both cases."""
    return (
        len(value) >= 16
        and not _WORDS_JOINED.fullmatch(value)
        and not _SPACE.search(value)
        and (
            bool(_TWO_DIGITS.search(value))
            or (value.lower() != value and value.upper() != value and len(value) < 4 * len(_WORD_PARTS.findall(value)))
        )
    )


_WORD_PARTS = on_first_use(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
"""The words of camelCase (`MyApplicationName`: three of them); a random token splits into many short ones."""


def _secret_token(match: re.Match[str]) -> bool:
    return _token_looking(match.group("secret"))


def _secret_random(match: re.Match[str]) -> bool:
    return _random_looking(match.group("secret"))


def _any_part_random(match: re.Match[str]) -> bool:
    """A webhook path holds a token among its parts (not just ids and names): one that looks made by
    a machine, or a run of 24 or more letters and digits with no separator (Mattermost's keys)."""
    return any(
        _token_looking(part) or (len(part) >= 24 and part.isalnum())
        for part in re.split(r"[/@]", match.group("secret"))
    )


def _encoded_private_key(match: re.Match[str]) -> bool:
    """A base64 blob that decodes to a private key's armour (a certificate's is left alone)."""
    head = match.group(0)[:96]
    try:
        decoded = base64.b64decode(head[: len(head) // 4 * 4] + "", validate=False)
    except ValueError:
        return False
    return b"PRIVATE KEY" in decoded or b"Static key" in decoded


def _named_value(match: re.Match[str]) -> bool:
    """An element, setting or constant whose name says secret, with a value that is not evidently harmless."""
    name, value = match.group("name"), match.group("secret")
    strength = _name_strength(name)
    return bool(strength) and not _keeps(name, value, True, strength)


_COOKIE_PAIR = on_first_use(r"(?P<name>[^\s=;,]+)=(?P<value>[^\s;,]+)")
_COOKIE_ATTRIBUTES = frozenset({"path", "domain", "expires", "max-age", "samesite", "version", "priority", "comment"})


def _cookie_values(match: re.Match[str], kind: str, counts: Counter[str]) -> str:
    """Every cookie value of a `Cookie:`/`Set-Cookie:` header or `curl -b` (the attributes kept)."""

    def value(pair: re.Match[str]) -> str:
        text = pair.group("value")
        if len(text) < 8 or pair.group("name").lower() in _COOKIE_ATTRIBUTES or "[REDACTED:" in text:
            return pair.group(0)
        counts[kind] += 1
        return f"{pair.group('name')}=[REDACTED:{kind}]"

    whole, start = match.group(0), match.start()
    head = match.start("secret") - start
    return whole[:head] + _COOKIE_PAIR.sub(value, whole[head:])


_SETTING = on_first_use(r"(?P<name>-{0,2}[A-Za-z][\w.\-]*)[ \t]+(?P<value>[^\s\\\"']+)")


def _configured_values(match: re.Match[str], kind: str, counts: Counter[str]) -> str:
    """`configure set NAME VALUE …`: each value whose name says secret."""

    def value(pair: re.Match[str]) -> str:
        name, text = pair.group("name"), pair.group("value")
        strength = _name_strength(name)
        if not strength or _keeps(name, text, True, strength):
            return pair.group(0)
        counts[kind] += 1
        return f"{name}{pair.group(0)[len(name) : pair.start('value') - pair.start()]}[REDACTED:{kind}]"

    return _SETTING.sub(value, match.group(0))


_LITERAL = on_first_use(r"""(?P<quote>\\?["'])(?P<value>[^"'\\\s]{20,})(?P=quote)""")


def _client_arguments(match: re.Match[str], kind: str, counts: Counter[str]) -> str:
    """The random-looking string literals handed to an API client's constructor."""

    def literal(found: re.Match[str]) -> str:
        text = found.group("value")
        if not _token_looking(text) or "[REDACTED:" in text or text.startswith(("http", "/")):
            return found.group(0)
        counts[kind] += 1
        return f"{found.group('quote')}[REDACTED:{kind}]{found.group('quote')}"

    return _LITERAL.sub(literal, match.group(0))


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


_CORE_ENDS = {core: on_first_use(lookahead) for core, lookahead in _NOT_AFTER.items()}
"""For the cores that often end a word that is not a name (`tokens`), a test of what follows them."""

CorePlaces = list[tuple[int, int]]
"""Where the cores of secret words occur in a lowered text and how long each is, in text order."""


def _is_core(number: int, lowered: str, end: int) -> bool:
    """Whether the `number`th core, ending at `end`, ends as a name's core may (not `tokens`, `keyboard`)."""
    ending = _CORE_ENDS.get(_WORD_CORES[number])
    return ending is None or ending.match(lowered, end) is not None


def _core_places(lowered: str) -> CorePlaces:
    """Every place a core occurs in one lowered text, in order (from the automaton's pass)."""
    return _needles_and_cores(lowered)[1]


def _needles_and_cores(lowered: str) -> tuple[set[str], CorePlaces]:
    """The automaton's needles in one lowered text, and where its cores are, in order (`_scan_run` does
    this for a run of texts)."""
    found, places = _automaton_scan(lowered, [0, len(lowered) + len(_JOIN)])
    return found[0], places[0]


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
        found = _value_after(text, hit.start(), hit.end(), done)
        if found is None:
            search_from = hit.end()
            continue
        start, value_start, value_end, env_style = found
        name = _full_name(text, start, hit.end())
        strength = _name_strength(name)
        value = text[value_start:value_end]
        quoted = text[value_start - 1] in "\"'"
        if (
            not strength
            or _keeps(name, value, quoted, strength, env_style)
            or (not quoted and not env_style and value.isidentifier() and _OPERATOR_AFTER.match(text, value_end))
        ):
            search_from = value_start
            continue
        if strength == _STRONG and not quoted and _starts_line(text, start):
            value_end = _line_end(text, value_end)
        out.append(text[done:value_start] + "[REDACTED:secret-assignment]")
        counts["secret-assignment"] += 1
        done = search_from = value_end
    out.append(text[done:])
    return "".join(out)


def _starts_line(text: str, at: int) -> bool:
    """Whether only a line's indent (and YAML's `- ` or a shell's `export `) stands before `at`: an
    unquoted value there runs to the end of the line, so a passphrase of words is not cut short."""
    head = at
    while head > 0 and text[head - 1] in " \t":
        head -= 1
    for lead in ("- ", "export "):
        if text.startswith(lead, head - len(lead)) and head >= len(lead):
            head -= len(lead)
            while head > 0 and text[head - 1] in " \t":
                head -= 1
            break
    return head == 0 or text[head - 1] in "\n\r" or (text[head - 1] in "nr" and head > 1 and text[head - 2] == "\\")


def _line_end(text: str, value_end: int) -> int:
    """Where an unquoted value that starts a line ends: at the line's end, before a `# comment`."""
    rest = _REST_OF_LINE.match(text, value_end)
    if rest is None:
        return value_end
    tail = _COMMENT.sub("", rest.group(0)).rstrip()
    return value_end + len(tail)


def _full_name(text: str, start: int, word_end: int) -> str:
    """The whole name around the secret word: `DB_PASSWORD`, `aws_secret_access_key`, `--api-key`."""
    end = word_end
    while end < min(len(text), word_end + _NAME_REACH) and (text[end].isalnum() or text[end] in "_-"):
        end += 1
    return text[start:end]


def _name_start(text: str, word_start: int, floor: int) -> int:
    """Where the name holding the secret word starts (not before `floor`, where the last value ended)."""
    start = word_start
    while start > max(floor, word_start - _NAME_REACH) and text[start - 1] in _NAME_CHARS:
        start -= 1
    return start


def _value_after(text: str, word_start: int, word_end: int, floor: int) -> tuple[int, int, int, bool] | None:
    """Where the name around the secret word starts and the value assigned to it lies, if one is, and
    whether it is a shell variable's (`NAME=value`: no spaces, no quotes, a name in capitals)."""
    tail = _AFTER_WORD.match(text, word_end)
    if tail is not None:
        name_start = _name_start(text, word_start, floor)
        quote = (tail.group("quote") or "")[-1:]
        if quote:
            value = _VALUE[quote].match(text, tail.end())
            if value is not None:
                return name_start, value.start(), value.end(), False
        # A quote that never closes (the text was cut) still opens a value.
        in_query = name_start > 0 and text[name_start - 1] in "?&"
        value = _VALUE["&" if in_query else ""].match(text, tail.end())
        if value is None and not quote and _starts_line(text, name_start):
            value = _WORDS_TO_LINE_END.match(text, tail.end())  # `passphrase: four short words`
        if value is None:
            return None
        name = text[name_start : tail.start("sep")]
        env_style = not quote and tail.group("sep") == "=" and not any(char.islower() for char in name)
        return name_start, value.start(), value.end(), env_style
    reach = max(0, word_start - _NAME_REACH)
    if text.find("-", reach, word_start) >= 0 and _FLAG.search(text, reach, word_start):
        name_end = _NAME_TAIL.match(text, word_end)
        flag = _FLAG_VALUE.match(text, name_end.end() if name_end else word_end)
        if flag:
            name_start = _name_start(text, word_start, floor)
            group = next(name for name in ("quoted", "value", "dashed") if flag.group(name))
            flag_name = text[name_start : name_end.end() if name_end else word_end]
            if group != "dashed" or _name_strength(flag_name) == _STRONG:
                return name_start, flag.start(group), flag.end(group), False
    return None


_STRONG, _WEAK = 2, 1
"""How surely a name says secret: `DB_PASSWORD` holds one whatever its value; `DD_APP_KEY` or
`_auth` only when the value looks made by a machine (`_random_looking`)."""
_STRONG_NAME = on_first_use(
    r"api[_\-.]?key|secret|token(?!s|i[sz])|passw|passphrase|pwd|credential|auth[_\-.]?key|private[_\-.]?key"
    r"|access[_\-.]?key|account[_\-.]?key|mnemonic|(?<![a-z])psk(?![a-z])|key[_\-.]?data"
)
_NOT_PASS = frozenset({"bypass", "compass", "surpass", "trespass", "overpass", "underpass", "sshpass", "encompass"})
_NOT_KEY = frozenset({"monkey", "turkey", "hockey", "jockey", "donkey", "whiskey", "hotkey", "turnkey"})
_KEY_OF_DATA = frozenset(
    {
        "public",
        "pub",
        "primary",
        "foreign",
        "sort",
        "partition",
        "cache",
        "idempotency",
        "dedup",
        "dedupe",
        "routing",
        "row",
        "hash",
        "lookup",
        "composite",
        "unique",
        "i18n",
        "translation",
        "group",
        "index",
        "order",
        "column",
        "map",
        "dict",
        "object",
        "kms",
        "arn",
        "host",
        "known",
        "cursor",
        "page",
        "next",
        "prev",
        "start",
        "last",
        "storage",
        "redis",
        "s3",
        "bucket",
        "metric",
        "event",
        "shortcut",
    }
)
"""Words that make a `…key` name a key into data (`primary_key`, `cache_key`, `PublicKey`), not a credential."""


@functools.lru_cache(maxsize=4096)
def _name_strength(name: str) -> int:
    """`_STRONG`, `_WEAK` or 0: how surely the name says its value is a secret."""
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    if not words or words[-1] in _METADATA_WORDS:
        return 0
    last = words[-1]
    if _STRONG_NAME.search(name.lower()) or "pass" in words or (last.endswith("pass") and last not in _NOT_PASS):
        return _STRONG
    if any(word in _KEY_OF_DATA for word in words):
        return 0
    if any(word in ("key", "auth") or (word.endswith("key") and word not in _NOT_KEY) for word in words):
        return _WEAK
    return 0


def _keeps(name: str, value: str, quoted: bool, strength: int = _STRONG, env_style: bool = False) -> bool:
    """Tell whether an assignment's value is evidently not a secret."""
    if strength == _WEAK and not _random_looking(value):
        return True
    if _PLACEHOLDER.fullmatch(value) or value.startswith("[REDACTED:") or _looks_harmless(value):
        return True
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    if words and words[-1] in _METADATA_WORDS:
        return True
    if not quoted and not env_style and _is_code(value.rstrip(")]},")):
        return True
    # A token count (`max_tokens=128000`), not a credential.
    return bool(_COUNT.fullmatch(value)) and "tokens" in name.lower()


_WORD = r"(?:[A-Z]?[a-z]{0,19}[0-9]{0,8}|[A-Z]{1,20}[0-9]{0,8})"
_WORDS_JOINED = on_first_use(rf"{_WORD}(?:[_\-.:/]{_WORD})+")
"""Words joined by separators (`user_profile_v2`, `index_tree`), each a word, an acronym or a number."""
_TWO_DIGITS = on_first_use(r"\d\D*\d")
_FOUR_LETTERS = on_first_use(r"(?:[^A-Za-z]*[A-Za-z]){4}")
_SPACE = on_first_use(r"\s")


def _random_looking(value: str) -> bool:
    """A value made by a machine, not a person: long, no spaces, letters and digits mixed, and not
    words joined by separators (`user_profile_v2`), a path or a version."""
    return (
        len(value) >= 16
        and not _WORDS_JOINED.fullmatch(value)
        and not _SPACE.search(value)
        and bool(_TWO_DIGITS.search(value))
        and bool(_FOUR_LETTERS.match(value))
    )


def _is_code(value: str) -> bool:
    """An unquoted value that is an expression: a call, an index, or a variable named like a secret."""
    if _CODE_EXPRESSION.match(value):
        return True
    return value.isidentifier() and bool(_SECRET_WORD.search(value)) and not _random_looking(value)


def _looks_harmless(value: str) -> bool:
    """Skip values that are clearly not secrets: references, placeholders, types, code."""
    lowered = value.lower().rstrip(")]}>,.:")
    return (
        lowered in _PLAIN_WORDS
        or bool(_REFERENCE.match(value))
        or value.startswith(("<", "os.environ", "process.env", "env.", "{{"))
        or bool(_CODE_REFERENCE.fullmatch(value))
        or bool(_PLACEHOLDER_VALUE.fullmatch(value))
        or (value.startswith(("http://", "https://")) and not set("@=") & set(value))
        or set(value) <= {"*", "x", "X", "."}
        or bool(_LOCAL_PATH.match(value))
    )


_REFERENCE = on_first_use(r"\$(?:[{(]|[A-Z_][A-Z0-9_]*(?![A-Za-z0-9_])|[a-z_][a-z0-9_]*(?![A-Za-z0-9_]))")
"""A shell or template variable (`$DB_PASSWORD`, `${TOKEN}`, `$(pass show db)`): where a secret comes
from. A `$` that starts a mix of cases and digits (`$68yvvpZG`, `$YInkeq80`) is part of a password."""
_LOCAL_PATH = on_first_use(r"(?:[\w\-]+:)?(?:~/|\.\.?/|/(?:etc|run|var|home|srv|opt|usr|tmp|Users|mnt|proc|dev)/)")
"""A file's path (`~/.ssh/id_ed25519.pub`, `db:/etc/shop/db-password`): where a secret is kept, not the secret."""


_SPECIAL: dict[str, Callable[[re.Match[str], str, Counter[str]], str]] = {
    "private-key-encoded": _when(_encoded_private_key),
    "webhook-url": _when(_any_part_random),
    "url-token": _when(_secret_token),
    "url-code": _when(_secret_token),
    "session-cookie": _when(_secret_token),
    "personal-access-token": _when(_secret_random),
    "named-secret": _when(_named_value),
    "cookie": _cookie_values,
    "configured-secret": _configured_values,
    "client-argument": _client_arguments,
}
"""Kinds whose hits are checked further, or that replace several values in one hit."""
