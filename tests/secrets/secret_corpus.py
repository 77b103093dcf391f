"""Generates the secrets suite's corpora: synthetic credentials of many kinds, and ordinary code.

Every secret is drawn from a seeded random generator in the shape the provider documents, so none
is live and every run plants the same ones. Each kind yields the line it is planted in (as a person
or a tool would write it) and the fragments that must not survive redaction.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UPPER + LOWER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


@dataclass(frozen=True)
class Planted:
    """One secret as planted: the text around it and the parts that must disappear."""

    kind: str
    text: str
    secrets: tuple[str, ...]


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _pw(rng: random.Random) -> str:
    """A password a person might pick: letters, digits and a little punctuation."""
    return _r(rng, LOWER, 5) + _r(rng, DIGITS, 3) + rng.choice("!#%^*_") + _r(rng, UPPER, 3)


def _aws_pair(rng: random.Random) -> Planted:
    key_id, secret = "AKIA" + _r(rng, UPPER + "234567", 16), _r(rng, B64, 40)
    return Planted("aws-key-pair", f"Access key ID: {key_id}\nSecret access key: {secret}", (key_id, secret))


def _aws_csv(rng: random.Random) -> Planted:
    key_id, secret = "AKIA" + _r(rng, UPPER + "234567", 16), _r(rng, B64, 40)
    return Planted(
        "aws-credentials-csv", f"User name,Access key ID,Secret access key\ndeploy,{key_id},{secret}", (key_id, secret)
    )


def _aws_bare(rng: random.Random) -> Planted:
    key_id, secret = "AKIA" + _r(rng, UPPER + "234567", 16), _r(rng, B64, 40)
    return Planted("aws-bare-secret", f"aws configure set with {key_id} {secret}", (key_id, secret))


def _aws_session(rng: random.Random) -> Planted:
    token = "IQoJb3JpZ2luX2VjE" + _r(rng, B64, 300)
    return Planted("aws-session-token", f"export AWS_SESSION_TOKEN={token}", (token[:40],))


def _simple(
    kind: str, make: Callable[[random.Random], str], template: str = "use {s} for this"
) -> Callable[[random.Random], Planted]:
    def build(rng: random.Random) -> Planted:
        secret = make(rng)
        return Planted(kind, template.format(s=secret), (secret,))

    return build


def _url(kind: str, scheme: str, user: str, host: str) -> Callable[[random.Random], Planted]:
    def build(rng: random.Random) -> Planted:
        pw = _pw(rng)
        return Planted(kind, f"connect to {scheme}://{user}:{pw}@{host}", (pw,))

    return build


def _jwt(rng: random.Random) -> str:
    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    claims = f'{{"sub":"{rng.randrange(10**9)}","name":"{_r(rng, LOWER, 8)}","iat":{rng.randrange(10**9)}}}'
    header = part(b'{"alg":"HS256","typ":"JWT"}')
    return f"{header}.{part(claims.encode())}.{_r(rng, URLSAFE, 43)}"


def _pem(label: str) -> Callable[[random.Random], Planted]:
    def build(rng: random.Random) -> Planted:
        body = [_r(rng, B64, 64) for _ in range(6)]
        block = f"-----BEGIN {label}-----\n" + "\n".join(body) + f"\n-----END {label}-----"
        return Planted("pem-" + label.lower().replace(" ", "-"), f"here is the key:\n{block}\n", tuple(body))

    return build


def _named(kind: str, template: str, make: Callable[[random.Random], str]) -> Callable[[random.Random], Planted]:
    def build(rng: random.Random) -> Planted:
        secret = make(rng)
        return Planted(kind, template.format(s=secret), (secret,))

    return build


def _docker_auth(rng: random.Random) -> Planted:
    auth = base64.b64encode(f"{_r(rng, LOWER, 7)}:{_pw(rng)}".encode()).decode()
    text = '{\n  "auths": {\n    "registry.example.com": {\n      "auth": "' + auth + '"\n    }\n  }\n}'
    return Planted("docker-config-auth", text, (auth,))


def _basic(rng: random.Random) -> Planted:
    auth = base64.b64encode(f"{_r(rng, LOWER, 6)}:{_pw(rng)}".encode()).decode()
    return Planted("basic-auth-header", f"curl -H 'Authorization: Basic {auth}' https://api.example.com", (auth,))


def _google_sa(rng: random.Random) -> Planted:
    body = [_r(rng, B64, 64) for _ in range(4)]
    key = "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(body) + "\\n-----END PRIVATE KEY-----\\n"
    text = (
        '{"type": "service_account", "project_id": "demo-123", "private_key_id": "'
        + _r(rng, HEX, 40)
        + '", "private_key": "'
        + key
        + '"}'
    )
    return Planted("google-service-account", text, tuple(body))


def _azure_conn(rng: random.Random) -> Planted:
    key = _r(rng, B64, 86) + "=="
    return Planted(
        "azure-storage-connection",
        f"DefaultEndpointsProtocol=https;AccountName=demo;AccountKey={key};EndpointSuffix=core.windows.net",
        (key[:40],),
    )


def _azure_sas(rng: random.Random) -> Planted:
    sig = _r(rng, B64, 43) + "%3D"
    return Planted(
        "azure-sas",
        f"https://demo.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r"
        f"&se=2026-01-01T00:00:00Z&st=2025-01-01T00:00:00Z&spr=https&sig={sig}",
        (sig[:30],),
    )


def _twilio(rng: random.Random) -> Planted:
    sid, token = "AC" + _r(rng, HEX, 32), _r(rng, HEX, 32)
    return Planted("twilio-sid-and-token", f"client = Client('{sid}', '{token}')", (token,))


def _netrc(rng: random.Random) -> Planted:
    pw = _pw(rng)
    return Planted("netrc-password", f"machine api.example.com\n  login deploy\n  password {pw}\n", (pw,))


def _netrc_inline(rng: random.Random) -> Planted:
    pw = _pw(rng)
    return Planted("netrc-inline", f"machine git.example.com login bot password {pw}", (pw,))


KINDS: tuple[Callable[[random.Random], Planted], ...] = (
    _aws_pair,
    _aws_csv,
    _aws_bare,
    _aws_session,
    _simple("aws-access-key-id", lambda r: "AKIA" + _r(r, UPPER + "234567", 16)),
    _simple("github-pat-classic", lambda r: "ghp_" + _r(r, ALNUM, 36), "git clone https://{s}@github.com/o/r"),
    _simple("github-oauth", lambda r: "gho_" + _r(r, ALNUM, 36)),
    _simple("github-app", lambda r: "ghs_" + _r(r, ALNUM, 36)),
    _simple("github-refresh", lambda r: "ghr_" + _r(r, ALNUM, 76)),
    _simple("github-fine-grained", lambda r: "github_pat_" + _r(r, ALNUM, 22) + "_" + _r(r, ALNUM, 59)),
    _simple("gitlab-pat", lambda r: "glpat-" + _r(r, URLSAFE, 20)),
    _simple("gitlab-runner", lambda r: "glrt-" + _r(r, URLSAFE, 20)),
    _simple("gitlab-deploy", lambda r: "gldt-" + _r(r, URLSAFE, 20)),
    _simple("slack-bot", lambda r: f"xoxb-{_r(r, DIGITS, 12)}-{_r(r, DIGITS, 13)}-{_r(r, ALNUM, 24)}"),
    _simple(
        "slack-user", lambda r: f"xoxp-{_r(r, DIGITS, 12)}-{_r(r, DIGITS, 12)}-{_r(r, DIGITS, 13)}-{_r(r, HEX, 32)}"
    ),
    _simple("slack-app", lambda r: f"xapp-1-A{_r(r, UPPER + DIGITS, 10)}-{_r(r, DIGITS, 13)}-{_r(r, HEX, 64)}"),
    _simple(
        "slack-webhook",
        lambda r: f"T{_r(r, UPPER + DIGITS, 8)}/B{_r(r, UPPER + DIGITS, 10)}/{_r(r, ALNUM, 24)}",
        "curl -X POST https://hooks.slack.com/services/{s}",
    ),
    _simple("stripe-secret", lambda r: "sk_live_" + _r(r, ALNUM, 99)),
    _simple("stripe-restricted", lambda r: "rk_live_" + _r(r, ALNUM, 99)),
    _simple("stripe-webhook", lambda r: "whsec_" + _r(r, ALNUM, 32)),
    _simple("openai-project", lambda r: "sk-proj-" + _r(r, URLSAFE, 156)),
    _simple("openai-legacy", lambda r: "sk-" + _r(r, ALNUM, 20) + "T3BlbkFJ" + _r(r, ALNUM, 20)),
    _simple("anthropic", lambda r: "sk-ant-api03-" + _r(r, URLSAFE, 93) + "AA"),
    _simple("anthropic-admin", lambda r: "sk-ant-admin01-" + _r(r, URLSAFE, 93) + "AA"),
    _simple("google-api", lambda r: "AIza" + _r(r, URLSAFE, 35)),
    _simple("google-oauth-access", lambda r: "ya29." + _r(r, URLSAFE, 120)),
    _simple("google-client-secret", lambda r: "GOCSPX-" + _r(r, URLSAFE, 28)),
    _google_sa,
    _azure_conn,
    _azure_sas,
    _simple("twilio-api-key", lambda r: "SK" + _r(r, HEX, 32), "twilio api:core:keys --sid {s}"),
    _twilio,
    _simple("mailgun", lambda r: "key-" + _r(r, HEX, 32), "curl -s --user 'api:{s}' https://api.mailgun.net/v3"),
    _simple("sendgrid", lambda r: "SG." + _r(r, URLSAFE, 22) + "." + _r(r, URLSAFE, 43)),
    _simple(
        "telegram-bot",
        lambda r: f"{r.randrange(10**8, 10**10)}:AA{_r(r, URLSAFE, 33)}",
        "curl https://api.telegram.org/bot{s}/getMe",
    ),
    _simple(
        "telegram-bot-bare", lambda r: f"{r.randrange(10**8, 10**10)}:AA{_r(r, URLSAFE, 33)}", "the bot token is {s}"
    ),
    _simple(
        "discord-bot",
        lambda r: "M" + _r(r, ALNUM, 25) + "." + _r(r, URLSAFE, 6) + "." + _r(r, URLSAFE, 38),
        "client.run('{s}')",
    ),
    _simple(
        "discord-webhook",
        lambda r: f"{r.randrange(10**17, 10**19)}/{_r(r, URLSAFE, 68)}",
        "https://discord.com/api/webhooks/{s}",
    ),
    _simple("npm", lambda r: "npm_" + _r(r, ALNUM, 36), "//registry.npmjs.org/:_authToken={s}"),
    _simple("pypi", lambda r: "pypi-AgEIcHlwaS5vcmc" + _r(r, URLSAFE, 70), "twine upload -u __token__ -p {s} dist/*"),
    _simple("jwt", _jwt, "curl -H 'Cookie: session={s}' http://localhost:3000"),
    _pem("RSA PRIVATE KEY"),
    _pem("OPENSSH PRIVATE KEY"),
    _pem("EC PRIVATE KEY"),
    _pem("PRIVATE KEY"),
    _pem("PGP PRIVATE KEY BLOCK"),
    _url("redis-url", "redis", "", "cache.internal:6379/0"),
    _url("postgres-url", "postgres", "app", "db.internal:5432/app"),
    _url("mysql-url", "mysql", "root", "127.0.0.1:3306/shop"),
    _url("amqp-url", "amqp", "guest", "mq.internal:5672/"),
    _url("mongodb-srv-url", "mongodb+srv", "admin", "cluster0.abcde.mongodb.net/test"),
    _url("https-url", "https", "deploy", "git.example.com/team/repo.git"),
    _url("ftp-url", "ftp", "upload", "files.example.com/in"),
    _named("mysql-p", "mysql -uroot -p{s} -h 127.0.0.1 shop", _pw),
    _named("mysqldump-password", "mysqldump --user=root --password={s} shop > dump.sql", _pw),
    _named("sshpass", "sshpass -p {s} ssh deploy@10.0.0.5", _pw),
    _named("curl-user", "curl -u admin:{s} https://api.example.com/v1/items", _pw),
    _named("docker-login-p", "docker login -u bot -p {s} registry.example.com", _pw),
    _named("redis-cli-a", "redis-cli -h cache.internal -a {s} ping", _pw),
    _named("htpasswd-b", "htpasswd -b /etc/nginx/.htpasswd admin {s}", _pw),
    _named("sshpass-quoted", "sshpass -p '{s}' scp build.tgz deploy@10.0.0.5:", _pw),
    _netrc,
    _netrc_inline,
    _docker_auth,
    _named("env-db-password", "DB_PASSWORD={s}", _pw),
    _named("env-api-key", "STRIPE_API_KEY={s}", lambda r: _r(r, ALNUM, 32)),
    _named("env-export-secret", "export DJANGO_SECRET_KEY='{s}'", lambda r: _r(r, ALNUM + "!@#%^&*(-_=+)", 50)),
    _named("pgpassword", "PGPASSWORD={s} psql -h db -U app", _pw),
    _named("bearer-header", "Authorization: Bearer {s}", lambda r: _r(r, URLSAFE + ".", 48)),
    _basic,
    _named("token-header", "curl -H 'Authorization: token {s}' https://api.example.com", lambda r: _r(r, HEX, 40)),
    _named("x-api-key-header", "curl -H 'X-Api-Key: {s}' https://api.example.com/v1", lambda r: _r(r, ALNUM, 32)),
    _named("json-password", '{{"username": "admin", "password": "{s}"}}', _pw),
    _named("yaml-password", "database:\n  user: app\n  password: {s}\n", _pw),
    _named("cli-password-flag", "./manage.py createsuperuser --username admin --password {s}", _pw),
    _simple("huggingface", lambda r: "hf_" + _r(r, ALNUM, 34)),
    _simple("digitalocean", lambda r: "dop_v1_" + _r(r, HEX, 64)),
    _simple("shopify", lambda r: "shpat_" + _r(r, HEX, 32)),
    _simple("linear", lambda r: "lin_api_" + _r(r, ALNUM, 40)),
    _simple("doppler", lambda r: "dp.pt." + _r(r, ALNUM, 43)),
    _simple("databricks", lambda r: "dapi" + _r(r, HEX, 32)),
    _simple("pulumi", lambda r: "pul-" + _r(r, HEX, 40)),
    _simple("vault", lambda r: "hvs." + _r(r, URLSAFE, 90)),
    _simple("terraform-cloud", lambda r: _r(r, ALNUM, 14) + ".atlasv1." + _r(r, URLSAFE, 67)),
    _simple("newrelic", lambda r: "NRAK-" + _r(r, UPPER + DIGITS, 27)),
    _simple("grafana-service-account", lambda r: "glsa_" + _r(r, ALNUM, 32) + "_" + _r(r, HEX, 8)),
    _simple("age-secret-key", lambda r: "AGE-SECRET-KEY-1" + _r(r, UPPER + DIGITS, 58)),
    _simple("mapbox", lambda r: "sk.eyJ1Ijoi" + _r(r, URLSAFE, 50) + "." + _r(r, URLSAFE, 22)),
    _simple("atlassian", lambda r: "ATATT3xFfGF0" + _r(r, URLSAFE, 180) + "=" + _r(r, HEX.upper(), 8)),
    _simple("postman", lambda r: "PMAK-" + _r(r, HEX, 24) + "-" + _r(r, HEX, 34)),
    _simple("square", lambda r: "EAAA" + _r(r, URLSAFE, 60)),
    _simple("heroku", lambda r: "HRKU-" + _r(r, URLSAFE, 60)),
    _simple("sentry-token", lambda r: "sntrys_" + _r(r, URLSAFE, 80)),
    _simple("cloudflare-origin-ca", lambda r: "v1.0-" + _r(r, HEX, 24) + "-" + _r(r, HEX, 146)),
)


def secrets(seed: int = 13) -> list[Planted]:
    """One planted secret of every kind, the same on every run."""
    rng = random.Random(seed)
    return [make(rng) for make in KINDS]


TRICKY_CODE = r"""
password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())
token_count = len(tokens)
<div class="btn task-sk-primary mask-sk-hidden">Save</div>
client.get_secret_value(SecretId='prod/db')
secret = client.get_secret_value(SecretId="prod/api")["SecretString"]
password = getpass.getpass("Password: ")
if not password:
self.password = password
token = request.headers.get("Authorization", "")
api_key = config["openai"]["api_key"]
API_KEY = os.getenv("API_KEY")
export OPENAI_API_KEY="$(pass show openai)"
headers = {"Authorization": f"Bearer {token}"}
def verify_password(plain_password: str, hashed_password: str) -> bool:
access_token_expires = timedelta(minutes=ACCESS_TOKEN_EXPIRE_MINUTES)
ACCESS_TOKEN_EXPIRE_MINUTES = 30
max_tokens = 4096
tokens = tokenizer.encode(text)
secret_name = "prod/stripe"
PASSWORD_MIN_LENGTH = 12
password_reset_url = reverse("password_reset_confirm")
<input type="password" name="password" autocomplete="current-password">
<label for="password">Password</label>
token_type = "bearer"
"token_type": "Bearer",
"grant_type": "client_credentials",
auth = HTTPBasicAuth(username, password)
session.auth = (user, password)
password_field = forms.CharField(widget=forms.PasswordInput)
class PasswordResetForm(forms.Form):
from django.contrib.auth.hashers import make_password
user.set_password(form.cleaned_data["password1"])
key = cache_key(user_id, "profile")
key_id = record["KeyId"]
secret_key = settings.SECRET_KEY
SECRET_KEY = env("DJANGO_SECRET_KEY")
jwt_secret: str = Field(..., env="JWT_SECRET")
token = jwt.encode(payload, SECRET_KEY, algorithm="HS256")
refresh_token = create_refresh_token(identity=user.id)
if token is None or token.expired:
raise InvalidTokenError("token has expired")
assert response.json()["access_token"]
def test_login_with_wrong_password(client):
"password": "********",
PASSWORD=<your-password>
API_KEY=your-api-key-here
api_key: "${OPENAI_API_KEY}"
token: ${{ secrets.GITHUB_TOKEN }}
GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
env: { NPM_TOKEN: process.env.NPM_TOKEN }
const token = localStorage.getItem("token");
const [password, setPassword] = useState("");
onChange={(e) => setPassword(e.target.value)}
.sk-spinner { animation: sk-bounce 1.4s infinite ease-in-out; }
.task-sk-item > .sk-label { color: #333; }
<i class="fa fa-key"></i> Reset key
secretsmanager = boto3.client("secretsmanager")
response = kms.decrypt(CiphertextBlob=blob, KeyId="alias/app")
ssm.get_parameter(Name="/prod/db/password", WithDecryption=True)
vault kv get -field=password secret/app/db
kubectl create secret generic db --from-file=./password.txt
kubectl get secret db -o jsonpath='{.data.password}'
mysql -u root -p
psql "host=db user=app dbname=app"
ssh -i ~/.ssh/id_ed25519 deploy@10.0.0.5
git remote add origin git@github.com:team/repo.git
postgres://app@db.internal:5432/app
redis://cache.internal:6379/0
DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app
https://docs.python.org/3/library/secrets.html
Bearer token authentication is described in RFC 6750.
The password must be at least 12 characters long.
Use `gh auth token` to print your token.
# TODO: rotate the API key every 90 days
logger.info("token refreshed for user %s", user_id)
tokenizer = tiktoken.get_encoding("o200k_base")
input_tokens, output_tokens = usage.input_tokens, usage.output_tokens
"max_output_tokens": 32000,
"total_tokens": 118240,
keyboard_layout = "us"
monkeypatch.setenv("OPENAI_API_KEY", "test")
monkeypatch.delenv("OPENAI_API_KEY", raising=False)
PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]
AUTH_PASSWORD_VALIDATORS = [
"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
hashed = hashlib.sha256(password.encode()).hexdigest()
if hmac.compare_digest(expected_token, token):
key = Fernet.generate_key()
secret = secrets.token_urlsafe(32)
token = secrets.token_hex(16)
nonce = os.urandom(12)
credentials = service_account.Credentials.from_service_account_file(path)
creds = Credentials.from_authorized_user_file("token.json", SCOPES)
with open("token.json", "w") as token:
if creds and creds.expired and creds.refresh_token:
auth_header = request.headers["Authorization"].split(" ")[1]
passwd = pwd.getpwnam(user)
shadow_password_file = "/etc/shadow"
The secret to good tests is isolation.
Tokens are counted with tiktoken's o200k_base encoding.
sk-learn is not a package; use scikit-learn.
task-skeleton-loader task-sk-loader skeleton-sk-row
.mask-sk-overlay{opacity:.5}
key_path = Path.home() / ".ssh" / "id_rsa.pub"
public_key = private_key.public_key()
private_key = serialization.load_pem_private_key(data, password=None)
ssh-keygen -t ed25519 -C "me@example.com"
cat ~/.ssh/id_ed25519.pub
export PATH="$HOME/.local/bin:$PATH"
curl -fsSL https://example.com/install.sh | sh
curl -H "Authorization: Bearer $TOKEN" https://api.example.com
curl -u "$USER:$PASSWORD" https://api.example.com
docker login -u "$REGISTRY_USER" --password-stdin < token.txt
echo "$CR_PAT" | docker login ghcr.io -u USERNAME --password-stdin
npm config set //registry.npmjs.org/:_authToken=${NPM_TOKEN}
aws configure set region us-east-1
aws sts get-caller-identity --profile prod
AWS_PROFILE=prod aws s3 ls
aws secretsmanager get-secret-value --secret-id prod/db
gcloud auth application-default login
az login --use-device-code
from cryptography.hazmat.primitives.asymmetric import rsa
KEY_SIZE = 2048
primary_key = "id"
foreign_key = models.ForeignKey(User, on_delete=models.CASCADE)
sort_key = lambda item: item.name
dict_keys = list(mapping.keys())
for key, value in sorted(data.items()):
keys = [k for k in row if k.startswith("x-")]
monkey_patch_token_counter(counter)
tokenize.generate_tokens(io.StringIO(src).readline)
"""


def ordinary_code(seed: int = 13) -> list[str]:
    """Lines of everyday code and prose that hold no secret: tricky ones, identifiers and data.

    Hashes, uuids, git shas, base64 images and long identifiers are generated; the tricky lines are
    the kind that trip name-based detectors (a password *hash*, a token *count*, a CSS class).
    """
    rng = random.Random(seed)
    lines = [line for line in TRICKY_CODE.strip("\n").splitlines() if line.strip()]
    for _ in range(25):
        data = _r(rng, ALNUM, 40).encode()
        lines.append(f"commit {hashlib.sha1(data).hexdigest()}")
        lines.append(f'"sha256": "{hashlib.sha256(data).hexdigest()}",')
        lines.append(f"request_id = '{uuid.UUID(int=rng.getrandbits(128), version=4)}'")
        lines.append(f"git checkout {hashlib.sha1(data).hexdigest()[:12]} -- src/app.py")
    for _ in range(20):
        png = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(120))).decode()
        lines.append(f'<img src="data:image/png;base64,{png}" alt="logo">')
        lines.append(f'integrity="sha384-{base64.b64encode(hashlib.sha384(png.encode()).digest()).decode()}"')
        lines.append(f'etag: W/"{hashlib.md5(png.encode()).hexdigest()}"')
        lines.append(f"npm install left-pad@1.3.0 --save  # lockfile {hashlib.sha512(png.encode()).hexdigest()[:40]}")
    return lines
