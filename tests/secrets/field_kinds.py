"""The second secrets corpus: credentials as they leak in the field, written from providers' documented
formats and the files and commands people paste into agent sessions.

Written before the detector was widened for issue 33 and kept apart from its patterns: each kind is a
provider's documented shape (prefix, length, alphabet) or a configuration file's documented field,
planted in the line a person or tool would write (a `.npmrc`, a kubeconfig, a `curl` with a header, a
CLI taking the secret as an argument, a cookie header). Values are drawn from a seeded generator in
the right shape, so none is live and every run plants the same ones. A kind the detector misses
stays in here: the suite's threshold (98% on every path) is what it has to meet.
"""

from __future__ import annotations

import base64
import random
import string
import uuid
from collections.abc import Callable

from secret_corpus import Planted

UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UPPER + LOWER + DIGITS
LOWER_ALNUM = LOWER + DIGITS
UPPER_ALNUM = UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
BASE32_LOWER = LOWER + "234567"

Make = Callable[[random.Random], Planted]


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _b64(rng: random.Random, raw: int) -> str:
    """Standard base64 of `raw` random bytes (padding kept)."""
    return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(raw))).decode()


def _password(rng: random.Random) -> str:
    """What a person types: a word, digits, punctuation, capitals, in some order."""
    parts = [
        _r(rng, LOWER, rng.randint(4, 7)),
        _r(rng, DIGITS, rng.randint(2, 4)),
        rng.choice("!#%*?@$+"),
        _r(rng, UPPER, 2),
    ]
    rng.shuffle(parts)
    return "".join(parts)


def kind(name: str, template: str, *makers: Callable[[random.Random], str]) -> Make:
    """A kind whose text is `template` with `{0}`, `{1}`, … filled by the makers; every filled value is a secret."""

    def build(rng: random.Random) -> Planted:
        values = [make(rng) for make in makers]
        return Planted(name, template.format(*values), tuple(values))

    return build


def kind_shown(name: str, template: str, secret: int, *makers: Callable[[random.Random], str]) -> Make:
    """As `kind`, where only value number `secret` is secret (the others are ids, users, hosts)."""

    def build(rng: random.Random) -> Planted:
        values = [make(rng) for make in makers]
        return Planted(name, template.format(*values), (values[secret],))

    return build


def s(alphabet: str, n: int, prefix: str = "", suffix: str = "") -> Callable[[random.Random], str]:
    """A maker: prefix, `n` characters of `alphabet`, suffix."""
    return lambda rng: prefix + _r(rng, alphabet, n) + suffix


def fixed(text: str) -> Callable[[random.Random], str]:
    return lambda _rng: text


# Provider tokens: the shape alone says what they are.
PROVIDER_TOKENS: tuple[Make, ...] = (
    kind("docker-hub-pat", "echo {0} | docker login -u alice --password-stdin", s(URLSAFE, 27, "dckr_pat_")),
    kind("docker-org-token", "The org access token for CI is {0}, scoped to read.", s(URLSAFE, 32, "dckr_oat_")),
    kind("netlify-pat", "netlify deploy --prod --dir dist --auth {0}", s(ALNUM, 43, "nfp_")),
    kind("launchdarkly-sdk-key", 'ld_client = ldclient.LDClient(Config("{0}"))', lambda r: "sdk-" + _uuid(r)),
    kind(
        "launchdarkly-mobile-key",
        'LDConfig(mobileKey: "{0}", autoEnvAttributes: .enabled)',
        lambda r: "mob-" + _uuid(r),
    ),
    kind(
        "launchdarkly-api-token",
        'curl -s -H "Authorization: {0}" https://app.launchdarkly.com/api/v2/flags/default',
        lambda r: "api-" + _uuid(r),
    ),
    kind(
        "fcm-server-key",
        "curl -X POST -H \"Authorization: key={0}\" -H 'Content-Type: application/json' https://fcm.googleapis.com/fcm/send",
        lambda r: "AAAA" + _r(r, URLSAFE, 7) + ":APA91b" + _r(r, URLSAFE, 134),
    ),
    kind(
        "datadog-api-key-installer",
        'DD_API_KEY={0} DD_SITE="datadoghq.eu" bash -c "$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)"',
        s(HEX, 32),
    ),
    kind(
        "datadog-application-key-header",
        'curl -H "DD-API-KEY: ${{DD_API_KEY}}" -H "DD-APPLICATION-KEY: {0}" https://api.datadoghq.com/api/v1/dashboard',
        s(HEX, 40),
    ),
    kind(
        "newrelic-license-key",
        "common: &default_settings\n  license_key: {0}\n  app_name: checkout",
        s(HEX, 36, suffix="NRAL"),
    ),
    kind(
        "newrelic-insert-key",
        "curl -H 'X-Insert-Key: {0}' https://insights-collector.newrelic.com/v1/accounts/1/events",
        s(ALNUM + "-_", 32, "NRII-"),
    ),
    kind(
        "1password-secret-key",
        "Emergency Kit\nSign-in address: my.1password.com\nSecret Key: {0}",
        lambda r: (
            f"A3-{_r(r, UPPER_ALNUM, 6)}-{_r(r, UPPER_ALNUM, 6)}-{_r(r, UPPER_ALNUM, 5)}-{_r(r, UPPER_ALNUM, 5)}-{_r(r, UPPER_ALNUM, 5)}-{_r(r, UPPER_ALNUM, 5)}"
        ),
    ),
    kind("1password-service-account", "op whoami --session {0}", lambda r: "ops_eyJ" + _r(r, B64, 600)),
    kind(
        "azure-devops-pat-in-url",
        "git clone https://{0}@dev.azure.com/contoso/Fabrikam/_git/web",
        s(BASE32_LOWER, 52),
    ),
    kind(
        "azure-devops-pat-new",
        "PAT for the release pipeline (expires in 30 days): {0}",
        lambda r: _r(r, ALNUM, 52) + "JQQJ99" + _r(r, ALNUM, 18) + "AZDO" + _r(r, ALNUM, 4),
    ),
    kind(
        "azure-ad-client-secret",
        "az login --service-principal -u 8a6c2f4e-0b1d-4c3e-9f7a-2d5b8e1c0f3a -p {0} --tenant contoso.onmicrosoft.com",
        lambda r: _r(r, ALNUM, 3) + r.choice(DIGITS) + "Q~" + _r(r, ALNUM + "_~.-", 34),
    ),
    kind(
        "azure-service-bus-connection",
        "Endpoint=sb://orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={0}",
        lambda r: _b64(r, 32),
    ),
    kind(
        "azure-cosmos-connection",
        'services.AddSingleton(new CosmosClient("AccountEndpoint=https://shop.documents.azure.com:443/;AccountKey={0};"));',
        lambda r: _b64(r, 64),
    ),
    kind(
        "azure-function-key-url",
        "curl https://orders-api.azurewebsites.net/api/HttpTrigger1?code={0}",
        lambda r: _r(r, URLSAFE, 54) + "==",
    ),
    kind(
        "azure-apim-subscription-key",
        "curl -H 'Ocp-Apim-Subscription-Key: {0}' https://contoso.azure-api.net/echo/resource",
        s(HEX, 32),
    ),
    kind(
        "azure-openai-key-header",
        'curl "$ENDPOINT/openai/deployments/gpt4o/chat/completions?api-version=2024-06-01" -H "api-key: {0}"',
        s(HEX, 32),
    ),
    kind(
        "alibaba-access-key",
        "aliyun configure set --profile prod --mode AK --region cn-hangzhou --access-key-id {0} --access-key-secret {1}",
        s(ALNUM, 20, "LTAI"),
        s(ALNUM, 30),
    ),
    kind(
        "tencent-secret-id",
        "tccli configure set secretId {0} secretKey {1} region ap-guangzhou",
        s(ALNUM, 32, "AKID"),
        s(ALNUM, 32),
    ),
    kind("google-refresh-token", "gcloud printed a refresh token for the CI: {0}", s(URLSAFE, 100, "1//0")),
    kind(
        "gemini-settings-key",
        '{{\n  "selectedAuthType": "gemini-api-key",\n  "apiKey": "{0}"\n}}',
        s(URLSAFE, 35, "AIza"),
    ),
    kind(
        "openai-service-account-key",
        "client = OpenAI(api_key='{0}')",
        lambda r: "sk-svcacct-" + _r(r, URLSAFE, 74) + "T3BlbkFJ" + _r(r, URLSAFE, 74),
    ),
    kind(
        "anthropic-oauth-token",
        "CLAUDE_CODE_OAUTH_TOKEN={0} claude -p 'summarise the diff'",
        lambda r: "sk-ant-oat01-" + _r(r, URLSAFE, 93) + "AA",
    ),
    kind("groq-key", 'from groq import Groq\nclient = Groq(api_key="{0}")', s(ALNUM, 52, "gsk_")),
    kind("xai-key", 'curl https://api.x.ai/v1/chat/completions -H "Authorization: Bearer {0}"', s(ALNUM, 80, "xai-")),
    kind("perplexity-key", "The Perplexity key I made today: {0}", s(ALNUM, 48, "pplx-")),
    kind("replicate-token", "REPLICATE_API_TOKEN={0} python predict.py", s(ALNUM, 37, "r8_")),
    kind(
        "huggingface-org-token", "huggingface-cli upload acme/model ./out --token {0}", s(LOWER + UPPER, 34, "api_org_")
    ),
    kind("langsmith-key", "export LANGCHAIN_API_KEY={0}", lambda r: f"lsv2_pt_{_r(r, HEX, 32)}_{_r(r, HEX, 10)}"),
    kind("cohere-key-positional", 'co = cohere.Client("{0}")', s(ALNUM, 40)),
    kind("fireworks-key", 'fireworks.client.api_key = "{0}"', s(ALNUM, 40, "fw_")),
    kind("pinecone-key", 'pc = Pinecone(api_key="{0}")', lambda r: f"pcsk_{_r(r, ALNUM, 6)}_{_r(r, ALNUM, 60)}"),
    kind("openrouter-key", "OPENROUTER_KEY={0}", s(HEX, 64, "sk-or-v1-")),
    kind("supabase-pat", "supabase login --token {0}", s(HEX, 40, "sbp_")),
    kind(
        "render-key",
        "curl -H 'Accept: application/json' -H 'Authorization: Bearer {0}' https://api.render.com/v1/services",
        s(ALNUM, 32, "rnd_"),
    ),
    kind("flyio-token", 'fly deploy --access-token "FlyV1 {0}"', lambda r: "fm2_" + _r(r, B64, 300)),
    kind(
        "tailscale-auth-key",
        "sudo tailscale up --authkey={0} --advertise-tags=tag:ci",
        lambda r: f"tskey-auth-k{_r(r, ALNUM, 11)}-{_r(r, ALNUM, 33)}",
    ),
    kind("tailscale-api-key", "TS_API_KEY: {0}", lambda r: f"tskey-api-k{_r(r, ALNUM, 11)}-{_r(r, ALNUM, 33)}"),
    kind(
        "ngrok-authtoken-positional",
        "ngrok config add-authtoken {0}",
        lambda r: "2" + _r(r, ALNUM, 26) + "_" + _r(r, ALNUM, 21),
    ),
    kind_shown(
        "sentry-dsn",
        'sentry_sdk.init(dsn="https://{0}@o{1}.ingest.us.sentry.io/{1}", traces_sample_rate=1.0)',
        0,
        s(HEX, 32),
        s(DIGITS, 7),
    ),
    kind("grafana-legacy-api-key", "Grafana API key (Admin role): {0}", lambda r: "eyJrIjoi" + _r(r, ALNUM, 90)),
    kind(
        "okta-ssws-token",
        'curl -H "Authorization: SSWS {0}" https://acme.okta.com/api/v1/users?limit=25',
        s(URLSAFE, 40, "00"),
    ),
    kind("opsgenie-geniekey", 'curl -H "Authorization: GenieKey {0}" https://api.opsgenie.com/v2/alerts', _uuid),
    kind("bitbucket-app-password", "Bitbucket app password for the deploy user: {0}", s(ALNUM, 32, "ATBB")),
    kind(
        "circleci-pat",
        "circleci setup --token {0} --host https://circleci.com",
        lambda r: f"CCIPAT_{_r(r, ALNUM, 22)}_{_r(r, HEX, 40)}",
    ),
    kind("buildkite-token", "BUILDKITE_API_TOKEN: {0}", s(HEX, 40, "bkua_")),
    kind("snyk-auth-positional", "snyk auth {0}", _uuid),
    kind(
        "sonarqube-user-token",
        "mvn sonar:sonar -Dsonar.host.url=https://sonar.acme.io -Dsonar.token={0}",
        s(HEX, 40, "squ_"),
    ),
    kind(
        "jfrog-api-key",
        "curl -H 'X-JFrog-Art-Api: {0}' -T app.jar https://acme.jfrog.io/artifactory/libs/app.jar",
        s(ALNUM, 69, "AKCp"),
    ),
    kind(
        "nuget-api-key",
        "dotnet nuget push bin/Release/Acme.1.2.0.nupkg --api-key {0} --source https://api.nuget.org/v3/index.json",
        s(LOWER_ALNUM, 43, "oy2"),
    ),
    kind("rubygems-credentials", "---\n:rubygems_api_key: {0}", s(HEX, 48, "rubygems_")),
    kind("crates-io-login", "cargo login {0}", s(ALNUM, 32, "cio")),
    kind(
        "gitlab-trigger-token",
        "curl -X POST --fail -F token={0} -F ref=main https://gitlab.com/api/v4/projects/42/trigger/pipeline",
        s(HEX, 40, "glptt-"),
    ),
    kind(
        "gitlab-runner-registration",
        "gitlab-runner register --url https://gitlab.com/ --registration-token {0}",
        s(URLSAFE, 20, "GR1348941"),
    ),
    kind("github-user-to-server", "the app's user token came back as {0}", s(ALNUM, 36, "ghu_")),
    kind(
        "github-installation-in-url",
        "git clone https://x-access-token:{0}@github.com/acme/infra.git",
        s(ALNUM, 36, "ghs_"),
    ),
    kind(
        "braintree-access-token",
        'BraintreeGateway(accessToken: "{0}")',
        lambda r: f"access_token$production${_r(r, LOWER_ALNUM, 16)}${_r(r, HEX, 32)}",
    ),
    kind(
        "plaid-access-token",
        "response = client.accounts_get(AccountsGetRequest(access_token='{0}'))",
        lambda r: "access-production-" + _uuid(r),
    ),
    kind(
        "mailchimp-key", "mailchimp.setConfig({{ apiKey: '{0}', server: 'us21' }});", lambda r: _r(r, HEX, 32) + "-us21"
    ),
    kind(
        "mailgun-new-key",
        "curl -s --user 'api:{0}' https://api.mailgun.net/v3/mg.acme.io/messages",
        lambda r: f"{_r(r, HEX, 32)}-{_r(r, HEX, 8)}-{_r(r, HEX, 8)}",
    ),
    kind("postmark-server-token", "curl https://api.postmarkapp.com/email -H 'X-Postmark-Server-Token: {0}'", _uuid),
    kind("mandrill-key", "mandrill_client = mandrill.Mandrill('{0}')", s(URLSAFE, 22, "md-")),
    kind("brevo-key", "BREVO_KEY={0}", lambda r: f"xkeysib-{_r(r, HEX, 64)}-{_r(r, ALNUM, 16)}"),
    kind("slack-config-token", "slack-cli token rotated: {0}", lambda r: "xoxe.xoxp-1-" + _r(r, UPPER_ALNUM, 163)),
    kind(
        "twitter-bearer",
        "curl 'https://api.twitter.com/2/tweets/search/recent?query=smig' -H \"Authorization: Bearer {0}\"",
        lambda r: "A" * 22 + _r(r, ALNUM, 30) + "%3D" + _r(r, ALNUM, 50),
    ),
    kind(
        "facebook-page-token",
        "curl -G -d 'access_token={0}' https://graph.facebook.com/v19.0/me/accounts",
        s(ALNUM, 180, "EAAG"),
    ),
    kind("dropbox-short-lived", "dbx = dropbox.Dropbox('{0}')", s(URLSAFE, 136, "sl.B")),
    kind(
        "asana-pat",
        "curl https://app.asana.com/api/1.0/users/me -H 'Authorization: Bearer {0}'",
        lambda r: f"2/{_r(r, DIGITS, 16)}/{_r(r, DIGITS, 16)}:{_r(r, HEX, 32)}",
    ),
    kind("notion-legacy-secret", "const notion = new Client({{ auth: '{0}' }})", s(ALNUM, 43, "secret_")),
    kind("notion-token", "The Notion integration token: {0}", lambda r: "ntn_" + _r(r, DIGITS, 11) + _r(r, ALNUM, 35)),
    kind(
        "airtable-pat",
        "base = Api('{0}').base('appXyZ12345678901')",
        lambda r: f"pat{_r(r, ALNUM, 14)}.{_r(r, HEX, 64)}",
    ),
    kind("figma-pat", "curl -H 'X-Figma-Token: {0}' https://api.figma.com/v1/files/AbC123", s(URLSAFE, 40, "figd_")),
    kind("clickup-token", "ClickUp personal token: {0}", lambda r: f"pk_{_r(r, DIGITS, 8)}_{_r(r, UPPER_ALNUM, 32)}"),
    kind("typeform-token", "typeform.Typeform('{0}').forms.list()", s(URLSAFE, 59, "tfp_")),
    kind("contentful-cma-token", "contentful login --management-token {0}", s(URLSAFE, 43, "CFPAT-")),
    kind("shippo-token", 'shippo.config.api_key = "{0}"', s(HEX, 40, "shippo_live_")),
    kind("easypost-key", 'client = easypost.EasyPostClient("{0}")', s(ALNUM, 54, "EZAK")),
    kind("duffel-token", "Duffel token (live): {0}", s(URLSAFE, 43, "duffel_live_")),
    kind("vault-legacy-token", "vault login {0}", s(ALNUM, 24, "s.")),
    kind("planetscale-service-token", "pscale auth login --service-token {0}", s(URLSAFE, 43, "pscale_tkn_")),
    kind(
        "planetscale-password",
        "DATABASE_URL='mysql://app:{0}@aws.connect.psdb.cloud/shop?sslaccept=strict'",
        s(URLSAFE, 43, "pscale_pw_"),
    ),
    kind(
        "neon-api-key",
        "curl 'https://console.neon.tech/api/v2/projects' -H \"Authorization: Bearer {0}\"",
        s(LOWER_ALNUM, 64, "napi_"),
    ),
    kind("digitalocean-oauth", "doctl auth init --access-token {0}", s(HEX, 64, "doo_v1_")),
    kind("aws-bedrock-key", "AWS_BEARER_TOKEN_BEDROCK={0}", lambda r: "ABSK" + _r(r, B64, 132)),
    kind("hubspot-private-app", 'hubspot.Client.create(access_token="{0}")', lambda r: "pat-na1-" + _uuid(r)),
    kind(
        "salesforce-session-id",
        "sf org display showed Access Token {0}",
        lambda r: f"00D{_r(r, ALNUM, 12)}!AQ{_r(r, URLSAFE + '.', 94)}",
    ),
    kind("wakatime-key", "[settings]\napi_key = {0}", lambda r: "waka_" + _uuid(r)),
    kind("prefect-key", "prefect cloud login -k {0}", s(ALNUM, 36, "pnu_")),
    kind("wandb-login-positional", "wandb login {0}", s(HEX, 40)),
    kind(
        "riot-api-key",
        "curl -H 'X-Riot-Token: {0}' https://euw1.api.riotgames.com/lol/status/v4/platform-data",
        lambda r: "RGAPI-" + _uuid(r),
    ),
    kind("twitch-irc-oauth", "PASS {0}\nNICK smigbot\nJOIN #smig", s(LOWER_ALNUM, 30, "oauth:")),
    kind(
        "intercom-token",
        'curl https://api.intercom.io/me -H "Authorization: Bearer {0}"',
        lambda r: "dG9rOj" + _r(r, B64, 54) + "=",
    ),
    kind("artifactory-reference-token", "JFROG_ACCESS_TOKEN={0}", lambda r: "cmVmdGtuOjAxOjE3" + _r(r, ALNUM, 48)),
    kind("clojars-token", "lein deploy clojars with CLOJARS_PASSWORD={0}", s(LOWER_ALNUM, 60, "CLOJARS_")),
    kind(
        "dynatrace-token",
        "curl -H 'Authorization: Api-Token {0}' https://abc12345.live.dynatrace.com/api/v2/metrics",
        lambda r: f"dt0c01.{_r(r, UPPER_ALNUM, 24)}.{_r(r, UPPER_ALNUM, 64)}",
    ),
    kind(
        "sendinblue-smtp-key",
        "smtp-relay.brevo.com login with {0}",
        lambda r: f"xsmtpsib-{_r(r, HEX, 64)}-{_r(r, ALNUM, 16)}",
    ),
    kind("linear-oauth-token", "LINEAR_TOKEN={0}", s(HEX, 64, "lin_oauth_")),
    kind("scalingo-token", "scalingo login --api-token {0}", s(URLSAFE, 48, "tk-us-")),
    kind("readme-key", "rdme openapi spec.json --key={0}", s(LOWER_ALNUM, 70, "rdme_")),
)

# Webhook and capability URLs: the token is part of the path or query.
WEBHOOKS: tuple[Make, ...] = (
    kind_shown(
        "teams-webhook",
        "Invoke-RestMethod -Method Post -Uri 'https://contoso.webhook.office.com/webhookb2/{0}@{1}/IncomingWebhook/{2}/{3}/V2{4}'",
        2,
        _uuid,
        _uuid,
        s(HEX, 32),
        _uuid,
        s(URLSAFE, 45),
    ),
    kind_shown(
        "google-chat-webhook",
        "curl -X POST 'https://chat.googleapis.com/v1/spaces/AAAA{0}/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token={1}%3D'",
        1,
        s(URLSAFE, 7),
        s(URLSAFE, 43),
    ),
    kind(
        "mattermost-webhook",
        'curl -i -X POST -d \'payload={{"text": "deployed"}}\' https://chat.acme.io/hooks/{0}',
        s(LOWER_ALNUM, 26),
    ),
    kind("ifttt-maker-key", "curl -X POST https://maker.ifttt.com/trigger/deploy_done/with/key/{0}", s(URLSAFE, 22)),
    kind_shown(
        "logic-apps-url",
        "POST https://prod-27.westeurope.logic.azure.com:443/workflows/{0}/triggers/manual/paths/invoke?api-version=2016-10-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={1}",
        1,
        s(HEX, 32),
        s(URLSAFE, 43),
    ),
    kind_shown(
        "discord-webhook-ptb",
        "WEBHOOK = 'https://ptb.discord.com/api/webhooks/{0}/{1}'",
        1,
        s(DIGITS, 19),
        s(URLSAFE, 68),
    ),
    kind_shown(
        "slack-workflow-trigger",
        "curl -X POST -H 'Content-type: application/json' https://hooks.slack.com/triggers/{0}/{1}/{2}",
        2,
        s(UPPER_ALNUM, 9, "T"),
        s(DIGITS, 13),
        s(HEX, 32),
    ),
    kind(
        "telegram-bot-url",
        'requests.get(f"https://api.telegram.org/bot{0}/sendMessage", params=p)',
        lambda r: f"{r.randrange(10**9, 10**10)}:AA{_r(r, URLSAFE, 33)}",
    ),
)

# Credentials in configuration files, under the names those files use.
CONFIG_FILES: tuple[Make, ...] = (
    kind(
        "npmrc-auth",
        "registry=https://npm.acme.io/\n_auth={0}\nalways-auth=true",
        lambda r: base64.b64encode(f"ci:{_password(r)}".encode()).decode(),
    ),
    kind(
        "npmrc-scoped-password",
        "//npm.acme.io/:username=ci\n//npm.acme.io/:_password={0}\n//npm.acme.io/:email=ci@acme.io",
        lambda r: base64.b64encode(_password(r).encode()).decode(),
    ),
    kind(
        "yarnrc-npm-auth-token",
        'npmScopes:\n  acme:\n    npmRegistryServer: "https://npm.acme.io"\n    npmAuthToken: "{0}"',
        s(ALNUM, 36, "npm_"),
    ),
    kind(
        "kubeconfig-client-key-data",
        "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==\n    client-key-data: {0}",
        lambda r: base64.b64encode(
            (
                "-----BEGIN RSA PRIVATE KEY-----\n"
                + _r(r, B64, 64)
                + "\n"
                + _r(r, B64, 64)
                + "\n-----END RSA PRIVATE KEY-----\n"
            ).encode()
        ).decode(),
    ),
    kind(
        "kubeconfig-user-token",
        "users:\n- name: ci\n  user:\n    token: {0}",
        lambda r: f"{_r(r, LOWER_ALNUM, 6)}.{_r(r, LOWER_ALNUM, 16)}",
    ),
    kind(
        "k8s-secret-manifest",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: stripe\ntype: Opaque\ndata:\n  api-key: {0}",
        lambda r: base64.b64encode(("rk_live_" + _r(r, ALNUM, 24)).encode()).decode(),
    ),
    kind(
        "maven-settings-password",
        "<server>\n  <id>ossrh</id>\n  <username>acme-ci</username>\n  <password>{0}</password>\n</server>",
        _password,
    ),
    kind(
        "nuget-cleartext-password",
        '<packageSourceCredentials>\n  <acme>\n    <add key="Username" value="ci" />\n    <add key="ClearTextPassword" value="{0}" />\n  </acme>\n</packageSourceCredentials>',
        _password,
    ),
    kind(
        "appsettings-xml-apikey",
        '<appSettings>\n  <add key="PaymentsApiKey" value="{0}" />\n</appSettings>',
        s(ALNUM, 32),
    ),
    kind(
        "gradle-signing-password",
        "signing.keyId=24875D73\nsigning.password={0}\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg",
        _password,
    ),
    kind(
        "wp-config-define",
        "define( 'DB_NAME', 'wordpress' );\ndefine( 'DB_USER', 'wp' );\ndefine( 'DB_PASSWORD', '{0}' );",
        _password,
    ),
    kind(
        "php-array-password",
        "'mysql' => [\n    'driver' => 'mysql',\n    'username' => 'forge',\n    'password' => '{0}',\n],",
        _password,
    ),
    kind(
        "laravel-app-key",
        "APP_NAME=Shop\nAPP_ENV=production\nAPP_KEY=base64:{0}\nAPP_DEBUG=false",
        lambda r: _b64(r, 32),
    ),
    kind("ansible-ssh-pass", "[web]\n10.0.4.21 ansible_user=deploy ansible_ssh_pass={0}", _password),
    kind("ansible-become-pass", "all:\n  vars:\n    ansible_become_pass: {0}", _password),
    kind("pgpass-line", 'echo "db.internal:5432:shop:app:{0}" >> ~/.pgpass && chmod 600 ~/.pgpass', _password),
    kind("my-cnf-password", "[client]\nuser=root\npassword={0}\nhost=127.0.0.1", _password),
    kind(
        "git-credentials-file", "$ cat ~/.git-credentials\nhttps://alice:{0}@gitlab.acme.io", s(URLSAFE, 20, "glpat-")
    ),
    kind(
        "aws-credentials-ini",
        "[prod]\naws_access_key_id = AKIAI44QH8DHBEXAMPLE\naws_secret_access_key = {0}",
        s(B64, 40),
    ),
    kind(
        "s3cfg-secret",
        "[default]\naccess_key = AKIAIOSFODNN7EXAMPLE\nsecret_key = {0}\nhost_base = s3.amazonaws.com",
        s(B64, 40),
    ),
    kind("rclone-pass", "[nas]\ntype = sftp\nhost = nas.lan\nuser = backup\npass = {0}", s(URLSAFE, 44)),
    kind(
        "wireguard-preshared-key",
        "[Peer]\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\nPresharedKey = {0}\nAllowedIPs = 10.8.0.2/32",
        lambda r: _b64(r, 32),
    ),
    kind(
        "openvpn-static-key",
        "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n{0}\n{1}\n-----END OpenVPN Static key V1-----\n</tls-auth>",
        s(HEX, 32),
        s(HEX, 32),
    ),
    kind("wpa-supplicant-psk", 'network={{\n    ssid="acme-office"\n    psk="{0}"\n}}', _password),
    kind(
        "jdbc-url-password",
        "spring.datasource.url=jdbc:mysql://db:3306/shop?user=shop&password={0}&useSSL=true",
        _password,
    ),
    kind(
        "sqlserver-connection-string",
        '"DefaultConnection": "Server=tcp:acme.database.windows.net,1433;Database=shop;User ID=shopadmin;Password={0};Encrypt=True;"',
        _password,
    ),
    kind(
        "docker-compose-env",
        "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: {0}",
        _password,
    ),
    kind_shown(
        "putty-private-lines",
        "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: deploy\nPublic-Lines: 1\n{0}\nPrivate-Lines: 1\n{1}",
        1,
        s(B64, 64),
        s(B64, 64),
    ),
    kind("kaggle-json", '{{"username":"alice","key":"{0}"}}', s(HEX, 32)),
    kind_shown("bundler-contribsys", "bundle config --local gems.contribsys.com {0}:{1}", 1, s(HEX, 8), s(HEX, 8)),
    kind("terraform-tfvars", 'admin_password = "{0}"\nregion         = "eu-west-1"', _password),
    kind(
        "env-unquoted-ampersand",
        "DJANGO_SECRET_KEY={0}\nDJANGO_DEBUG=False",
        lambda r: _r(r, LOWER_ALNUM, 10) + "&" + _r(r, LOWER_ALNUM + "!@#%^*(-_=+)", 30) + "&" + _r(r, LOWER_ALNUM, 8),
    ),
    kind(
        "yaml-passphrase-words",
        "ssh:\n  key: ~/.ssh/deploy\n  passphrase: {0}",
        lambda r: " ".join(
            r.choice(["copper", "violin", "harbor", "mango", "pixel", "tundra", "falcon", "quartz"]) for _ in range(4)
        ),
    ),
    kind("go-short-assignment", 'apiToken := "{0}"\nreq.Header.Set("X-Token", apiToken)', s(ALNUM, 32)),
    kind(
        "wallet-mnemonic",
        'MNEMONIC="{0}"',
        lambda r: " ".join(
            r.choice(
                [
                    "abandon",
                    "zoo",
                    "ribbon",
                    "clever",
                    "flock",
                    "vivid",
                    "orbit",
                    "sample",
                    "cable",
                    "wrist",
                    "glue",
                    "mirror",
                ]
            )
            for _ in range(12)
        ),
    ),
    kind("ethereum-private-key", "PRIVATE_KEY=0x{0} npx hardhat run scripts/deploy.js --network mainnet", s(HEX, 64)),
    kind(
        "recaptcha-secret-form",
        "curl -d 'secret={0}&response=03AGdBq24' https://www.google.com/recaptcha/api/siteverify",
        s(URLSAFE, 38, "6L"),
    ),
    kind(
        "trello-key-token",
        "curl 'https://api.trello.com/1/members/me/boards?key={0}&token={1}'",
        s(HEX, 32),
        s(ALNUM, 76, "ATTA"),
    ),
    kind(
        "steam-api-key-query",
        "https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key={0}&steamids=76561197960435530",
        s(UPPER_ALNUM, 32),
    ),
    kind("app-config-session-secret", "app.use(session({{ secret: '{0}', resave: false }}))", s(ALNUM, 32)),
)

# Headers and cookies.
HEADERS: tuple[Make, ...] = (
    kind(
        "cookie-header-session",
        "curl 'https://admin.acme.io/api/users' -H 'Cookie: sessionid={0}; csrftoken={1}'",
        s(LOWER_ALNUM, 32),
        s(ALNUM, 32),
    ),
    kind(
        "set-cookie-session",
        "HTTP/1.1 302 Found\nSet-Cookie: __Host-session={0}; Path=/; Secure; HttpOnly; SameSite=Lax",
        s(URLSAFE, 43),
    ),
    kind("curl-cookie-flag", "curl -b 'PHPSESSID={0}' https://shop.acme.io/cart", s(LOWER_ALNUM, 26)),
    kind("express-session-cookie", "Cookie: connect.sid=s%3A{0}.{1}", s(URLSAFE, 32), s(URLSAFE, 43)),
    kind("gitlab-session-cookie", 'curl --cookie "_gitlab_session={0}" https://gitlab.acme.io/api/v4/user', s(HEX, 32)),
    kind("rails-session-cookie", "Cookie: _shop_session={0}--{1}", s(B64, 120), s(HEX, 40)),
    kind(
        "x-auth-token-header",
        "GET /v3/projects HTTP/1.1\nHost: openstack.acme.io\nX-Auth-Token: {0}",
        s(URLSAFE, 180, "gAAAAA"),
    ),
    kind(
        "private-token-header",
        "curl --header 'PRIVATE-TOKEN: {0}' https://gitlab.acme.io/api/v4/projects",
        s(URLSAFE, 20),
    ),
    kind("x-api-key-lower", 'fetch(url, {{ headers: {{ "x-api-key": "{0}" }} }})', s(ALNUM, 40)),
    kind(
        "proxy-authorization",
        "Proxy-Authorization: Basic {0}",
        lambda r: base64.b64encode(f"squid:{_password(r)}".encode()).decode(),
    ),
    kind(
        "authorization-digest-like",
        'curl -H "Authorization: Token token={0}" https://api.pagerduty.com/incidents',
        s(URLSAFE, 20),
    ),
    kind("honeycomb-header", "curl https://api.honeycomb.io/1/events/prod -H 'X-Honeycomb-Team: {0}'", s(ALNUM, 32)),
    kind(
        "vault-token-header",
        'curl --header "X-Vault-Token: {0}" https://vault.acme.io/v1/secret/data/db',
        s(URLSAFE, 95, "hvs."),
    ),
)

# Secrets given to commands: flags, short options and positional arguments.
COMMANDS: tuple[Make, ...] = (
    kind("password-flag-leading-dash", "mysqladmin --user=root --password -{0} status", s(ALNUM, 11)),
    kind(
        "password-flag-quoted",
        "./bin/kafka-configs.sh --bootstrap-server b:9092 --alter --add-config 'SCRAM-SHA-512=[password={0}]' --entity-type users --entity-name app",
        _password,
    ),
    kind(
        "password-flag-single-quoted",
        "./manage.py changepassword --password '{0}' admin",
        lambda r: _password(r) + " " + _r(r, LOWER, 5),
    ),
    kind("mysql-p-quoted", "mysql -u root -p'{0}' -e 'show databases'", _password),
    kind(
        "openssl-passout",
        "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{0}",
        _password,
    ),
    kind(
        "keytool-storepass",
        "keytool -importkeystore -srckeystore bundle.p12 -srcstoretype PKCS12 -destkeystore app.jks -storepass {0}",
        _password,
    ),
    kind("zip-password", "zip -r -P {0} backup.zip ./exports", _password),
    kind("7z-password", "7z a -p{0} -mhe=on secrets.7z ./vault", _password),
    kind("smbclient-user-pass", "smbclient //fileserver/share -U 'ACME\\svc_backup%{0}' -c 'ls'", _password),
    kind(
        "ldapsearch-w", "ldapsearch -x -H ldap://dc1 -D 'cn=admin,dc=acme,dc=io' -w {0} -b 'dc=acme,dc=io'", _password
    ),
    kind("sqlcmd-p", "sqlcmd -S tcp:acme.database.windows.net -U shopadmin -P {0} -Q 'SELECT 1'", _password),
    kind("mongosh-p", "mongosh 'mongodb://db0:27017/admin' -u root -p {0} --authenticationDatabase admin", _password),
    kind("rabbitmqctl-add-user", "rabbitmqctl add_user orders {0}", _password),
    kind("sudo-s-echo", "echo '{0}' | sudo -S systemctl restart nginx", _password),
    kind("aws-configure-set-secret", "aws configure set aws_secret_access_key {0} --profile ci", s(B64, 40)),
    kind("mc-alias-set", "mc alias set minio http://minio.lan:9000 minioadmin {0}", s(ALNUM, 40)),
    kind("gh-secret-body", 'gh secret set SENTRY_TOKEN --body "{0}" --repo acme/web', s(HEX, 64)),
    kind(
        "kubectl-from-literal",
        "kubectl create secret generic db-creds --from-literal=username=app --from-literal=password={0}",
        _password,
    ),
    kind("docker-run-env", "docker run -d -e MYSQL_ROOT_PASSWORD={0} -p 3306:3306 mysql:8", _password),
    kind("jenkins-cli-auth", "java -jar jenkins-cli.jar -s https://ci.acme.io/ -auth deploy:{0} build web", s(HEX, 34)),
    kind("htpasswd-nb", "htpasswd -nbB admin {0} > .htpasswd", _password),
    kind(
        "wget-http-password",
        "wget --http-user=ci --http-password={0} https://nexus.acme.io/repository/raw/app.tgz",
        _password,
    ),
    kind(
        "twilio-api-key-secret-positional",
        'client = Client("{0}", "{1}", "AC{2}")',
        s(HEX, 32, "SK"),
        s(ALNUM, 32),
        s(HEX, 32),
    ),
    kind("twilio-token-positional-script", "python send_sms.py AC{0} {1} +15005550006", s(HEX, 32), s(HEX, 32)),
    kind("algolia-admin-positional", "const client = algoliasearch('LATENCY42Z', '{0}');", s(HEX, 32)),
    kind("redis-cli-pass-long-flag", "redis-cli -h cache.acme.io --pass {0} --no-auth-warning info", _password),
    kind(
        "psql-conninfo-password",
        'psql "host=db.acme.io port=5432 dbname=shop user=app password={0} sslmode=require"',
        _password,
    ),
    kind(
        "curl-data-client-secret",
        "curl -X POST https://login.acme.io/oauth/token -d 'grant_type=client_credentials&client_id=cli&client_secret={0}'",
        s(URLSAFE, 40),
    ),
)

KINDS: tuple[Make, ...] = PROVIDER_TOKENS + WEBHOOKS + CONFIG_FILES + HEADERS + COMMANDS


def field_secrets(seed: int = 33) -> list[Planted]:
    """One planted secret of every field kind, the same on every run."""
    rng = random.Random(seed)
    return [make(rng) for make in KINDS]
