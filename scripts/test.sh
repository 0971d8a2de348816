#!/usr/bin/env bash
# Install the test tools and run every test: the project itself (editable) with the test and class-mode Python
# packages; Debian's chromium (browser tests), haproxy (several app processes) and postgresql (class mode's
# PostgreSQL store); axe-core from npm (accessibility); then the linters (ruff, vulture) and pytest.
# Anything missing fails here — nothing is skipped later.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q --disable-pip-version-check -e . -r requirements-test.txt -r requirements-class.txt

apt_install() {  # apt_install PACKAGE CHECK_PATH: install a Debian package unless CHECK_PATH is there
  if [ ! -e "$2" ] && ! ls $2 >/dev/null 2>&1; then
    echo "Installing Debian's $1 for the tests..."
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "$1" >/dev/null;
    else sudo apt-get update -qq && sudo apt-get install -y -qq "$1" >/dev/null; fi
  fi
}
apt_install chromium /usr/bin/chromium
apt_install haproxy /usr/sbin/haproxy
apt_install postgresql '/usr/lib/postgresql/*/bin/initdb'
/usr/bin/chromium --version
/usr/sbin/haproxy -v | sed -n 1p  # sed reads to the end: head would close the pipe early and, under pipefail, SIGPIPE (141) fails the run
pg_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
"$pg_bin/initdb" --version

mkdir -p artifacts
if [ ! -s artifacts/axe.min.js ]; then
  echo "Fetching axe-core (npm) for the accessibility test..."
  axe_tmp="$(mktemp -d)"
  (cd "$axe_tmp" && npm pack --silent axe-core@4 >/dev/null && tar -xzf axe-core-*.tgz package/axe.min.js)
  cp "$axe_tmp/package/axe.min.js" artifacts/axe.min.js
  rm -rf "$axe_tmp"
fi
test -s artifacts/axe.min.js

# The house stays small: no lint finding, no dead code (pyproject.toml configures both).
ruff check --quiet .
vulture

# Class mode's PostgreSQL path: a throwaway cluster on a free loopback port in a temp dir (as the postgres user
# when run as root, as CI is), stopped at exit; its URL goes to the tests.
pg_dir="$(mktemp -d /tmp/posenc-pg.XXXXXX)"
pg_port="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
pg_as() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi; }
if [ "$(id -u)" = 0 ]; then chown postgres "$pg_dir"; fi
pg_as "'$pg_bin/initdb' -D '$pg_dir/data' -A trust -U posenc >/dev/null"
pg_as "'$pg_bin/pg_ctl' -D '$pg_dir/data' -l '$pg_dir/log' -w -o \"-p $pg_port -k '$pg_dir' -c listen_addresses=127.0.0.1\" start >/dev/null"
pg_stop() { pg_as "'$pg_bin/pg_ctl' -D '$pg_dir/data' -m fast -w stop >/dev/null" || true; rm -rf "$pg_dir"; }
trap pg_stop EXIT
export POSENC_TEST_PG_URL="postgresql://posenc@127.0.0.1:$pg_port/postgres"
python -c "import os, psycopg; psycopg.connect(os.environ['POSENC_TEST_PG_URL']).close()"

python -m pytest "$@"
