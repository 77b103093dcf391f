"""Provides the shapes of provider credentials that need no name beside them: a known prefix, length
and alphabet say what they are.

The facts (prefixes, lengths, alphabets) are those the providers document and the maintained rule
sets record (gitleaks' rules, detect-secrets' plugins, GitHub secret scanning's partner list); the
patterns are written here. Each entry is (kind, needles, pattern, bounded): the needles are
substrings every match holds (lowercase: looked for in the lowered text; with capitals: as written),
and `bounded` asks that the match not continue a word in front of it. Minimum lengths are kept a
little below the documented ones and the tails unbounded, so a provider lengthening its tokens is
still caught.
"""

from __future__ import annotations

import re

from smig_tui.core.patterns import on_first_use

_END = r"(?![A-Za-z0-9_\-])"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

Shape = tuple[str, tuple[str, ...], re.Pattern[str], bool]


def _token(kind: str, needles: tuple[str, ...], pattern: str, bounded: bool = True) -> Shape:
    return kind, needles, on_first_use(pattern), bounded


PROVIDER_SHAPES: tuple[Shape, ...] = (
    # Container registries, CI and package registries.
    _token("docker-token", ("dckr_",), r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{24,}"),
    _token("netlify-token", ("nfp_", "nfc_", "nfo_", "nfu_"), r"nf[pcou]_[A-Za-z0-9]{32,}"),
    _token("buildkite-token", ("bkua_", "bkat_"), r"bk(?:ua|at)_[a-f0-9]{40}"),
    _token("sonarqube-token", ("squ_", "sqp_", "sqa_"), r"sq[upa]_[a-f0-9]{40}"),
    _token("jfrog-token", ("akcp", "cmvmdgtu"), r"(?:AKCp[A-Za-z0-9]{60,}|cmVmdGtu[A-Za-z0-9]{50,})"),
    _token("nuget-key", ("oy2",), r"oy2[a-z0-9]{43}" + _END),
    _token("rubygems-token", ("rubygems_",), r"rubygems_[a-f0-9]{48}"),
    _token("clojars-token", ("clojars_",), r"CLOJARS_[a-z0-9]{60}"),
    _token("gitlab-token", ("gr1348941",), r"GR1348941[A-Za-z0-9_\-]{20,}"),
    _token("bitbucket-app-password", ("atbb",), r"ATBB[A-Za-z0-9]{32}"),
    _token("readme-key", ("rdme_",), r"rdme_[a-z0-9]{70}"),
    _token("scalingo-token", ("tk-us-",), r"tk-us-[A-Za-z0-9_\-]{48}"),
    _token("octopus-key", ("api-",), r"API-[A-Z0-9]{26}" + _END),
    _token("openshift-token", ("sha256~",), r"sha256~[A-Za-z0-9_\-]{43}"),
    # AI providers.
    _token("groq-key", ("gsk_",), r"gsk_[A-Za-z0-9]{48,}"),
    _token("xai-key", ("xai-",), r"xai-[A-Za-z0-9]{70,}"),
    _token("perplexity-key", ("pplx-",), r"pplx-[A-Za-z0-9]{40,}"),
    _token("huggingface-token", ("api_org_",), r"api_org_[A-Za-z]{30,}"),
    _token("langsmith-key", ("lsv2_pt_", "lsv2_sk_"), r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    _token("fireworks-key", ("fw_",), r"fw_[A-Za-z0-9]{20,}"),
    _token("pinecone-key", ("pcsk_",), r"pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,}"),
    # Cloud, hosting and databases.
    _token("aws-bedrock-key", ("absk",), r"ABSK[A-Za-z0-9+/]{100,}={0,2}"),
    _token("azure-ad-client-secret", ("q~",), r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}" + _END),
    _token("azure-key", ("jqqj9", "azdo"), r"[A-Za-z0-9]{52}JQQJ9[9DH][A-Za-z0-9]{18}(?:AZDO[A-Za-z0-9]{4})?"),
    _token("alibaba-access-key", ("LTAI",), r"LTAI[A-Za-z0-9]{20}" + _END),
    _token("tencent-secret-id", ("akid",), r"AKID[A-Za-z0-9]{32}" + _END),
    _token("yandex-key", ("aqvn",), r"AQVN[A-Za-z0-9_\-]{35,38}" + _END),
    _token("google-refresh-token", ("1//0",), r"1//0[A-Za-z0-9_\-]{40,}"),
    _token("supabase-token", ("sbp_", "sb_secret_"), r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,})"),
    _token(
        "flyio-token",
        ("fo1_", "fm1_", "fm2_", "fm1a_", "fm1r_", "fm2a_", "fm2r_"),
        r"(?:fo1_[A-Za-z0-9_\-]{40,}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})",
    ),
    _token("tailscale-key", ("tskey-",), r"tskey-(?:auth|api|client|webhook|scim)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}"),
    _token(
        "planetscale-token",
        ("pscale_tkn_", "pscale_pw_", "pscale_oauth_"),
        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=\-]{32,}",
    ),
    _token("defined-networking-key", ("dnkey-",), r"dnkey-[A-Za-z0-9=_\-]{26}-[A-Za-z0-9=_\-]{52}"),
    _token("settlemint-token", ("sm_aat_", "sm_pat_", "sm_sat_"), r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}" + _END),
    # Observability and feature flags.
    _token("newrelic-key", ("nrii-", "nrak-", "nrjs-"), r"NR(?:II|AK|JS)-[A-Za-z0-9_\-]{19,}"),
    _token("launchdarkly-key", ("sdk-", "mob-"), r"(?:sdk|mob)-" + _UUID + _END),
    _token("dynatrace-token", ("dt0c01.",), r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    _token("grafana-token", ("eyjrijoi",), r"eyJrIjoi[A-Za-z0-9+/]{60,}={0,3}"),
    _token("wakatime-key", ("waka_",), r"waka_" + _UUID),
    _token("prefect-key", ("pnu_",), r"pnu_[A-Za-z0-9]{36}"),
    _token("maxmind-key", ("_mmk",), r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk" + _END),
    # Messaging, payments and productivity.
    _token("firebase-messaging-key", (":apa91b",), r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{120,}"),
    _token("mandrill-key", ("md-",), r"md-[A-Za-z0-9_\-]{22}" + _END),
    _token("brevo-key", ("xkeysib-", "xsmtpsib-"), r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _token("braintree-token", ("access_token",), r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}"),
    _token(
        "plaid-token",
        ("access-production-", "access-sandbox-", "access-development-"),
        r"access-(?:production|sandbox|development)-" + _UUID,
    ),
    _token("shippo-token", ("shippo_",), r"shippo_(?:live|test)_[a-fA-F0-9]{40}"),
    _token("easypost-key", ("ezak", "eztk"), r"EZ[AT]K[A-Za-z0-9]{54}"),
    _token("duffel-token", ("duffel_",), r"duffel_(?:live|test)_[A-Za-z0-9_\-=]{43}"),
    _token("flutterwave-key", ("flwseck", "flwpubk"), r"FLW(?:SECK|PUBK)(?:_TEST)?-[a-hA-H0-9]{12,32}(?:-X)?"),
    _token("hubspot-token", ("pat-na1-", "pat-eu1-"), r"pat-(?:na|eu)1-" + _UUID),
    _token("salesforce-session", ("!aq",), r"00D[A-Za-z0-9]{12,15}!AQ[A-Za-z0-9_.\-]{80,}"),
    _token("riot-key", ("rgapi-",), r"RGAPI-" + _UUID),
    _token("twitch-oauth", ("oauth:",), r"oauth:[a-z0-9]{30}" + _END),
    _token("intercom-token", ("dg9roj",), r"dG9rOj[A-Za-z0-9+/]{40,}={0,2}"),
    _token("figma-token", ("figd_",), r"figd_[A-Za-z0-9_\-]{38,}"),
    _token("clickup-token", ("pk_",), r"pk_[0-9]{6,10}_[A-Z0-9]{32}"),
    _token("typeform-token", ("tfp_",), r"tfp_[A-Za-z0-9_\-.=]{50,}"),
    _token("frameio-token", ("fio-u-",), r"fio-u-[A-Za-z0-9_\-=]{64}"),
    _token("contentful-token", ("cfpat-",), r"CFPAT-[A-Za-z0-9_\-]{43}"),
    _token("facebook-token", ("eaa",), r"EAA[A-Z][A-Za-z0-9]{100,}"),
    _token("twitter-bearer", ("a" * 22,), r"A{22}[A-Za-z0-9%]{30,}"),
    _token(
        "1password-key", ("A3-",), r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}" + _END
    ),
    _token("1password-token", ("ops_eyj",), r"ops_eyJ[A-Za-z0-9+/]{200,}={0,3}"),
    _token("linear-key", ("lin_oauth_",), r"lin_oauth_[a-f0-9]{64}"),
)
