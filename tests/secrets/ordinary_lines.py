"""Ordinary lines the detector must leave alone: this repository's own code and configuration, and
the configuration files, logs and command output an agent session is full of.

None of them holds a secret, and many come close: names that say password or token beside a
reference (`${DB_PASSWORD}`, `secretKeyRef`), hashes, ids, base64 images and long identifiers.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

from secret_corpus import ordinary_code

REPO = Path(__file__).resolve().parents[2]
OWN_SKIPPED = {"redact.py", "secret_shapes.py"}
"""The detector's own files hold the shapes it looks for, as pattern text."""

CONFIG_FILES = r"""
server {
    listen 443 ssl http2;
    server_name shop.example.com;
    ssl_certificate /etc/letsencrypt/live/shop.example.com/fullchain.pem;
    ssl_certificate_key /etc/letsencrypt/live/shop.example.com/privkey.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    location /api/ { proxy_pass http://127.0.0.1:8000; proxy_set_header Host $host; }
    location /static/ { alias /srv/shop/static/; expires 30d; }
    add_header Strict-Transport-Security "max-age=63072000; includeSubDomains" always;
    proxy_set_header Authorization $http_authorization;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
}
version: "3.9"
services:
  db:
    image: postgres:16-alpine
    environment:
      POSTGRES_USER: shop
      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}
      POSTGRES_DB: shop
    volumes:
      - pgdata:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U shop"]
      interval: 10s
  web:
    build: .
    env_file: .env
    depends_on: [db, redis]
    ports: ["8000:8000"]
    secrets:
      - stripe_key
secrets:
  stripe_key:
    file: ./secrets/stripe_key.txt
apiVersion: apps/v1
kind: Deployment
metadata:
  name: checkout
  labels: {app: checkout, tier: backend}
spec:
  replicas: 3
  selector:
    matchLabels:
      app: checkout
  template:
    spec:
      serviceAccountName: checkout
      containers:
        - name: checkout
          image: ghcr.io/acme/checkout:1.14.2
          ports:
            - containerPort: 8080
          env:
            - name: DATABASE_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: checkout-db
                  key: password
            - name: API_TOKEN
              valueFrom:
                secretKeyRef: {name: checkout-api, key: token}
          resources:
            limits: {cpu: 500m, memory: 512Mi}
          readinessProbe:
            httpGet: {path: /healthz, port: 8080}
      imagePullSecrets:
        - name: ghcr-pull
name: CI
on:
  push:
    branches: [main]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      id-token: write
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
          cache: pip
      - run: pip install -e '.[dev]'
      - run: pytest -q
        env:
          OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}
          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}
      - uses: docker/login-action@v3
        with:
          registry: ghcr.io
          username: ${{ github.actor }}
          password: ${{ secrets.GITHUB_TOKEN }}
{
  "name": "@acme/web",
  "version": "2.3.1",
  "private": true,
  "scripts": {
    "dev": "vite",
    "build": "tsc -b && vite build",
    "lint": "eslint . --ext ts,tsx --report-unused-disable-directives --max-warnings 0",
    "test": "vitest run --coverage"
  },
  "dependencies": {"react": "^18.3.1", "react-dom": "^18.3.1", "zod": "^3.23.8"},
  "devDependencies": {"typescript": "^5.5.4", "vite": "^5.4.2", "@types/node": "^22.5.0"},
  "engines": {"node": ">=20"}
}
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "bundler",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "jsx": "react-jsx",
    "paths": {"@/*": ["./src/*"]}
  },
  "include": ["src"]
}
[package]
name = "tokenizer-cli"
version = "0.4.0"
edition = "2021"
[dependencies]
clap = { version = "4.5", features = ["derive"] }
serde = { version = "1", features = ["derive"] }
tokio = { version = "1.39", features = ["full"] }
ring = "0.17"
[profile.release]
lto = true
.PHONY: build test lint release
build:
	go build -ldflags "-s -w -X main.version=$(VERSION)" -o bin/app ./cmd/app
test:
	go test -race -count=1 ./...
lint:
	golangci-lint run --timeout 5m
FROM python:3.12-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
RUN --mount=type=secret,id=pip_token pip install -r private.txt
ARG GITHUB_TOKEN
COPY . .
USER 10001
CMD ["gunicorn", "shop.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "4"]
DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost"])
DATABASES = {"default": env.db("DATABASE_URL")}
AUTH_PASSWORD_VALIDATORS = [{"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"}]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_AGE = 1209600
PASSWORD_RESET_TIMEOUT = 259200
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
STRIPE_SECRET_KEY = os.environ["STRIPE_SECRET_KEY"]
__pycache__/
*.py[cod]
.env
.env.*
!.env.example
node_modules/
dist/
coverage/
*.pem
secrets/
terraform {
  required_version = ">= 1.6"
  backend "s3" {
    bucket = "acme-tfstate"
    key    = "prod/network.tfstate"
    region = "eu-west-1"
  }
}
variable "db_password" {
  type      = string
  sensitive = true
}
resource "aws_db_instance" "main" {
  identifier        = "shop-prod"
  engine            = "postgres"
  instance_class    = "db.t4g.medium"
  username          = "shop"
  password          = var.db_password
  storage_encrypted = true
  kms_key_id        = aws_kms_key.db.arn
}
resource "aws_secretsmanager_secret" "stripe" {
  name = "prod/stripe"
}
output "db_endpoint" { value = aws_db_instance.main.endpoint }
- name: Deploy the web tier
  hosts: web
  become: true
  vars_files:
    - vars/main.yml
    - vault.yml
  tasks:
    - name: Install packages
      ansible.builtin.apt:
        name: [nginx, python3-venv]
        state: present
    - name: Template the env file
      ansible.builtin.template:
        src: env.j2
        dest: /srv/shop/.env
        mode: "0600"
      no_log: true
    - name: Set the database password
      community.postgresql.postgresql_user:
        name: shop
        password: "{{ vault_db_password }}"
[Unit]
Description=Shop API
After=network-online.target
[Service]
User=shop
EnvironmentFile=/etc/shop/env
ExecStart=/srv/shop/venv/bin/gunicorn shop.wsgi --bind unix:/run/shop.sock
Restart=on-failure
LoadCredential=db-password:/etc/shop/db-password
[Install]
WantedBy=multi-user.target
global:
  scrape_interval: 15s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["10.0.0.11:9100", "10.0.0.12:9100"]
  - job_name: api
    bearer_token_file: /var/run/secrets/kubernetes.io/serviceaccount/token
    tls_config:
      ca_file: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
Port 22
PermitRootLogin no
PasswordAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
ChallengeResponseAuthentication no
*/5 * * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1
0 3 * * 0 certbot renew --quiet
[pytest]
addopts = -ra --strict-markers
markers =
    e2e: needs the real clients
testpaths = tests
requests==2.32.3
cryptography==43.0.1
python-jose[cryptography]==3.3.0
passlib[bcrypt]==1.7.4
module github.com/acme/keyring
go 1.23
require (
	github.com/spf13/cobra v1.8.1
	golang.org/x/crypto v0.27.0
)
[mysqld]
bind-address = 127.0.0.1
max_connections = 200
innodb_buffer_pool_size = 1G
[client]
user = app
password = ${MYSQL_PASSWORD}
[remote "origin"]
	url = git@github.com:acme/shop.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[credential]
	helper = osxkeychain
[user]
	signingkey = ~/.ssh/id_ed25519.pub
[commit]
	gpgsign = true
"""

COMMAND_OUTPUT = r"""
$ git log --oneline -5
$ kubectl get pods -n shop
NAME                        READY   STATUS    RESTARTS   AGE
checkout-7d9f8b6c5d-2xkqp   1/1     Running   0          3d4h
checkout-7d9f8b6c5d-9mzlv   1/1     Running   1          3d4h
$ kubectl get secret checkout-db -o yaml | head -3
$ docker ps
CONTAINER ID   IMAGE                COMMAND                  CREATED        STATUS        PORTS                    NAMES
3f2a9c1e7b44   postgres:16-alpine   "docker-entrypoint.s…"   2 hours ago    Up 2 hours    0.0.0.0:5432->5432/tcp   shop-db-1
$ ls -la ~/.ssh
-rw-------  1 user user  411 Mar  3 10:12 id_ed25519
-rw-r--r--  1 user user   97 Mar  3 10:12 id_ed25519.pub
-rw-r--r--  1 user user 2774 Nov 20 09:41 known_hosts
============================= test session starts ==============================
platform linux -- Python 3.12.4, pytest-8.3.2, pluggy-1.5.0
collected 214 items
tests/test_auth.py ....................                                    [  9%]
tests/test_tokens.py ...........F.....                                    [ 17%]
FAILED tests/test_tokens.py::test_refresh_token_rotates - AssertionError: expected a new token
E       AssertionError: expected a new token
E       assert 'tok_old' != 'tok_old'
======================== 1 failed, 213 passed in 12.48s ========================
Traceback (most recent call last):
  File "/srv/shop/venv/lib/python3.12/site-packages/django/core/handlers/exception.py", line 55, in inner
    response = get_response(request)
  File "/srv/shop/app/views.py", line 88, in login
    user = authenticate(request, username=username, password=password)
django.db.utils.OperationalError: FATAL:  password authentication failed for user "shop"
npm ERR! code E401
npm ERR! Unable to authenticate, your authentication token seems to be invalid.
npm ERR! To correct this please trying logging in again with: npm login
error: failed to push some refs to 'github.com:acme/shop.git'
remote: Invalid username or password.
fatal: Authentication failed for 'https://github.com/acme/shop.git/'
Error: Error acquiring the state lock: ConditionalCheckFailedException
WARNING: The requested image's platform (linux/amd64) does not match the detected host platform (linux/arm64/v8)
Successfully built 3f2a9c1e7b44
Successfully tagged ghcr.io/acme/checkout:1.14.2
added 1423 packages, and audited 1424 packages in 38s
found 0 vulnerabilities
 ✓ src/auth/token.test.ts (12 tests) 41ms
 ✓ src/api/client.test.ts (8 tests) 19ms
Cloning into 'shop'...
Receiving objects: 100% (2411/2411), 1.21 MiB | 9.84 MiB/s, done.
Resolving deltas: 100% (1290/1290), done.
10.0.4.21 - - [03/Mar/2026:10:12:44 +0000] "POST /api/login HTTP/1.1" 200 512 "-" "Mozilla/5.0"
10.0.4.21 - - [03/Mar/2026:10:12:45 +0000] "GET /api/orders?page=2&per_page=50 HTTP/1.1" 200 18231 "-" "curl/8.5.0"
Mar 03 10:12:46 web1 sshd[2231]: Accepted publickey for deploy from 10.0.0.5 port 51234 ssh2: ED25519 SHA256:Xy9aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5a
Mar 03 10:12:47 web1 systemd[1]: Started Shop API.
2026-03-03T10:12:48.120Z INFO  auth: token refreshed for user_id=4412 expires_in=3600
2026-03-03T10:12:49.001Z WARN  ratelimit: key=ip:10.0.4.21 remaining=0 reset=60
"""

WORDS = ["user", "order", "cart", "item", "price", "stock", "queue", "cache", "index", "report", "session", "event"]
VERBS = ["get", "load", "save", "parse", "build", "render", "sync", "check", "fetch", "update"]


def _generated(rng: random.Random, count: int) -> list[str]:
    """Lines of the shapes agent sessions repeat: calls, assignments, log lines, paths, config keys."""
    ident = lambda: f"{rng.choice(VERBS)}_{rng.choice(WORDS)}"  # noqa: E731
    shapes = [
        lambda: f"    {rng.choice(WORDS)}_id = {ident()}(request, {rng.choice(WORDS)}_id={rng.randint(1, 9999)})",
        lambda: f"def {ident()}(self, {rng.choice(WORDS)}: {rng.choice(['str', 'int', 'dict[str, Any]'])}) -> None:",
        lambda: f"const {rng.choice(WORDS)}Key = `{rng.choice(WORDS)}:${{{rng.choice(WORDS)}.id}}`;",
        lambda: f"  {rng.choice(WORDS)}_timeout: {rng.randint(1, 120)}s",
        lambda: f"{rng.choice(WORDS).upper()}_URL=http://{rng.choice(WORDS)}.internal:{rng.randint(1024, 9999)}",
        lambda: f"src/{rng.choice(WORDS)}/{ident()}.py:{rng.randint(1, 400)}:{rng.randint(1, 80)}: E501 line too long",
        lambda: (
            f"2026-03-0{rng.randint(1, 9)}T1{rng.randint(0, 9)}:00:00Z INFO {rng.choice(WORDS)}: {ident()} took {rng.randint(1, 999)}ms"
        ),
        lambda: f'cache_key = f"{rng.choice(WORDS)}:{{user_id}}:{rng.choice(WORDS)}"',
        lambda: f"assert response.status_code == {rng.choice([200, 201, 204, 400, 401, 403, 404])}",
        lambda: f"      - {rng.choice(WORDS)}-{''.join(rng.choice(string.ascii_lowercase) for _ in range(5))}",
        lambda: f"token_count += len(encoding.encode({rng.choice(WORDS)}))",
        lambda: (
            f'password_field = forms.CharField(label="{rng.choice(WORDS).title()} password", widget=forms.PasswordInput)'
        ),
        lambda: f"export {rng.choice(WORDS).upper()}_TOKEN_FILE=/run/secrets/{rng.choice(WORDS)}_token",
        lambda: f'git commit -m "{rng.choice(VERBS).title()} the {rng.choice(WORDS)} {rng.choice(WORDS)}"',
    ]
    return [rng.choice(shapes)() for _ in range(count)]


def own_lines() -> list[str]:
    """This repository's own code, configuration and documentation, one line each, deduplicated."""
    lines: set[str] = set()
    paths = [path for path in sorted((REPO / "smig_tui").rglob("*.py")) if path.name not in OWN_SKIPPED]
    paths += [REPO / "pyproject.toml", REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    for path in paths:
        if path.is_file():
            lines.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return sorted(line for line in lines if len(line) < 400)


def config_and_output_lines() -> list[str]:
    """Typical configuration files and command output, one line each."""
    text = CONFIG_FILES + COMMAND_OUTPUT
    return [line for line in text.splitlines() if line.strip()]


def ordinary_lines(seed: int = 33) -> list[str]:
    """Every ordinary line: code of this repository, configuration, output, generated shapes, tricky code."""
    rng = random.Random(seed)
    return own_lines() + config_and_output_lines() + _generated(rng, 1500) + ordinary_code()
