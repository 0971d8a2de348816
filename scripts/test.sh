#!/usr/bin/env bash
# Install the test tools (Python packages, Debian's Chromium for the browser tests and Debian's HAProxy for the
# multi-process deployment test, axe-core from npm for the accessibility test) and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q --disable-pip-version-check -r requirements-test.txt
if [ ! -x /usr/bin/chromium ]; then
  echo "Installing Debian's chromium for the browser tests..."
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null;
  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi
fi
/usr/bin/chromium --version   # fail here, not skip later, if the browser is still missing
if [ ! -x /usr/sbin/haproxy ]; then
  echo "Installing Debian's haproxy for the deployment test..."
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq haproxy >/dev/null;
  else sudo apt-get update -qq && sudo apt-get install -y -qq haproxy >/dev/null; fi
fi
/usr/sbin/haproxy -v             # fail here, not skip later, if haproxy is still missing
mkdir -p artifacts
if [ ! -s artifacts/axe.min.js ]; then
  echo "Fetching axe-core (npm) for the accessibility test..."
  axe_tmp="$(mktemp -d)"
  (cd "$axe_tmp" && npm pack --silent axe-core@4 >/dev/null && tar -xzf axe-core-*.tgz package/axe.min.js)
  cp "$axe_tmp/package/axe.min.js" artifacts/axe.min.js
  rm -rf "$axe_tmp"
fi
test -s artifacts/axe.min.js     # fail here, not skip later, if axe-core could not be fetched
# Class mode's PostgreSQL path: psycopg, Debian's postgresql, and a throwaway cluster on a free loopback port in a
# temp dir (as the postgres user when run as root, as CI is), stopped at exit; its URL goes to the tests.
python -m pip install -q --disable-pip-version-check -r requirements-class.txt
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
  echo "Installing Debian's postgresql for the class store tests..."
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq postgresql >/dev/null;
  else sudo apt-get update -qq && sudo apt-get install -y -qq postgresql >/dev/null; fi
  pg_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
fi
"$pg_bin/initdb" --version        # fail here, not skip later, if postgresql is still missing
pg_dir="$(mktemp -d /tmp/posenc-pg.XXXXXX)"
pg_port="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
pg_as() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi; }
if [ "$(id -u)" = 0 ]; then chown postgres "$pg_dir"; fi
pg_as "'$pg_bin/initdb' -D '$pg_dir/data' -A trust -U posenc >/dev/null"
pg_as "'$pg_bin/pg_ctl' -D '$pg_dir/data' -l '$pg_dir/log' -w -o \"-p $pg_port -k '$pg_dir' -c listen_addresses=127.0.0.1\" start >/dev/null"
pg_stop() { pg_as "'$pg_bin/pg_ctl' -D '$pg_dir/data' -m fast -w stop >/dev/null" || true; rm -rf "$pg_dir"; }
trap pg_stop EXIT
export POSENC_TEST_PG_URL="postgresql://posenc@127.0.0.1:$pg_port/postgres"
python -c "import os, psycopg; psycopg.connect(os.environ['POSENC_TEST_PG_URL']).close()"  # fail here if not up
python -m pytest "$@"
